#include "bench/bench_causal.h"

#include "bench/child_process.h"

#include "model/analysis/critical_path.h"
#include "model/formats/loader.h"

#include <chrono>
#include <cstdio>

namespace npuscope::bench {

namespace {

struct CausalMeasure {
    double seconds = 0; // load + causal
    long peakRssKb = 0;
    char error[256] = {};
    double loadSeconds = 0;
    double graphSeconds = 0, idleSeconds = 0, pathSeconds = 0;
    std::uint64_t slices = 0, edges = 0, gaps = 0, segments = 0;
    bool ok = false;
};

double since(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

bool benchCausal(const std::string& dir)
{
    const CausalMeasure m = runInChild<CausalMeasure>([&](CausalMeasure& r) {
        auto t = std::chrono::steady_clock::now();
        const LoadAllocationScope heapReuse; // as `npuscope analyze` runs it
        const LoadResult lr = loadSession(dir, LoadOptions{});
        if (!lr.session) {
            std::snprintf(r.error, sizeof r.error, "%s", lr.error.c_str());
            return;
        }
        r.loadSeconds = since(t);
        for (const ProfilePtr& p : lr.session->ranks) {
            t = std::chrono::steady_clock::now();
            const StepGraph g = buildStepGraph(*p);
            r.graphSeconds += since(t);
            t = std::chrono::steady_clock::now();
            const IdleCauses idle = idleCauses(*p, g);
            r.idleSeconds += since(t);
            t = std::chrono::steady_clock::now();
            const CriticalPaths c = criticalPaths(*p, g, idle);
            r.pathSeconds += since(t);
            r.slices += p->slices.size();
            r.edges += g.edges.size();
            r.gaps += idle.gaps.size();
            for (const StepPath& s : c.steps)
                r.segments += s.segments.size();
        }
        r.ok = true;
    });
    if (!m.ok) {
        std::printf("causal: failed: %s\n", m.error);
        return false;
    }
    const double causal = m.graphSeconds + m.idleSeconds + m.pathSeconds;
    std::printf("causal (step graph + idle causes + critical path) on %llu slices: %.3f s after a load of %.3f s "
                "(ratio %.3f; graph %.3f s, idle %.3f s, path %.3f s; %llu edges, %llu idle gaps, %llu path "
                "segments; goal <= 1 s beyond the load), peak RSS %.1f MiB\n",
                static_cast<unsigned long long>(m.slices), causal, m.loadSeconds,
                m.loadSeconds > 0 ? causal / m.loadSeconds : 0.0, m.graphSeconds, m.idleSeconds, m.pathSeconds,
                static_cast<unsigned long long>(m.edges), static_cast<unsigned long long>(m.gaps),
                static_cast<unsigned long long>(m.segments), m.peakRssKb / 1024.0);
    return true;
}

} // namespace npuscope::bench
