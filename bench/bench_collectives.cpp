#include "bench/bench_collectives.h"

#include "bench/child_process.h"

#include "model/analysis/collectives.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include <unistd.h>

namespace npuscope::bench {

namespace {

struct CollectivesMeasure {
    double seconds = 0; // load + alignment + collectives
    double loadSeconds = 0, alignSeconds = 0, collectivesSeconds = 0;
    std::uint64_t instances = 0, late = 0;
    int ranks = 0, aligned = 0;
    long peakRssKb = 0;
    char error[256] = {};
    bool ok = false;
};

double since(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

bool benchCollectives(int ranks)
{
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("npuscope-bench-collectives-" + std::to_string(::getpid()));
    synth::SynthOptions so;
    so.scenario = "cluster-slowrank";
    so.ranks = ranks;
    const synth::SynthResult sr = synth::synthesize(dir.string(), so);
    if (!sr.ok) {
        std::printf("collectives: cannot generate the cluster: %s\n", sr.error.c_str());
        fs::remove_all(dir);
        return false;
    }
    const CollectivesMeasure m = runInChild<CollectivesMeasure>([&](CollectivesMeasure& r) {
        auto t = std::chrono::steady_clock::now();
        const LoadAllocationScope heapReuse; // as `npuscope analyze` runs it
        const LoadResult lr = loadSession(dir.string(), LoadOptions{});
        if (!lr.session) {
            std::snprintf(r.error, sizeof r.error, "%s", lr.error.c_str());
            return;
        }
        r.loadSeconds = since(t);
        t = std::chrono::steady_clock::now();
        const ClockAlignment a = alignClocks(*lr.session);
        r.alignSeconds = since(t);
        t = std::chrono::steady_clock::now();
        const CollectivesResult c = analyzeCollectives(*lr.session);
        r.collectivesSeconds = since(t);
        r.ranks = static_cast<int>(lr.session->ranks.size());
        for (const RankClock& rc : a.ranks)
            r.aligned += rc.estimated ? 1 : 0;
        r.instances = c.instances.size();
        for (const CollectiveInstance& i : c.instances)
            r.late += i.lastRank >= 0 ? 1 : 0;
        r.ok = true;
    });
    fs::remove_all(dir);
    if (!m.ok) {
        std::printf("collectives: failed: %s\n", m.error);
        return false;
    }
    const double work = m.alignSeconds + m.collectivesSeconds;
    std::printf("collectives (clock alignment + late ranks, %d ranks, %llu instances, %llu with a late rank, %d "
                "aligned): %.3f s after a load of %.3f s (ratio %.3f; align %.3f s, collectives %.3f s; goal <= 2 s "
                "beyond the load), peak RSS %.1f MiB\n",
                m.ranks, static_cast<unsigned long long>(m.instances), static_cast<unsigned long long>(m.late), m.aligned,
                work, m.loadSeconds, m.loadSeconds > 0 ? work / m.loadSeconds : 0.0, m.alignSeconds, m.collectivesSeconds,
                m.peakRssKb / 1024.0);
    return true;
}

} // namespace npuscope::bench
