#include "bench/db_bench.h"

#include "bench/child_process.h"

#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace npuscope::bench {

namespace {

namespace fs = std::filesystem;

struct LoadMeasure {
    bool ok = false;
    double seconds = 0;
    long peakRssKb = 0;
    std::uint64_t deviceTasks = 0, kernels = 0, slices = 0;
    std::int64_t kernelNs = 0;
    char error[256] = {};
};

// Loads `dir` in a child process (a fresh heap and RSS for each measurement).
LoadMeasure loadInChild(const std::string& dir, Prefer prefer)
{
    return runInChild<LoadMeasure>([&](LoadMeasure& r) {
        LoadOptions o;
        o.prefer = prefer;
        const LoadResult res = loadSession(dir, o);
        if (!res.session) {
            std::snprintf(r.error, sizeof r.error, "%s", res.error.c_str());
            return;
        }
        r.ok = true;
        for (const auto& p : res.session->ranks) {
            r.deviceTasks += p->join.deviceTasks;
            r.kernels += p->kernels.size();
            r.slices += p->slices.size();
            for (auto d : p->kernels.dur)
                r.kernelNs += d;
        }
    });
}

// Bytes of the files each export's load reads, and the page cache warmed for them.
std::uint64_t exportBytes(const fs::path& dir, bool db)
{
    std::uint64_t total = 0;
    std::vector<char> buf(8 << 20);
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec)
            break;
        if (!it->is_regular_file() || it->path().parent_path().filename() != "ASCEND_PROFILER_OUTPUT")
            continue;
        const bool isDb = it->path().extension() == ".db";
        if (isDb != db)
            continue;
        total += it->file_size();
        std::ifstream in(it->path(), std::ios::binary);
        while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
        }
    }
    return total;
}

} // namespace

int generateProfile(const std::string& dir, double sizeMb, std::uint64_t seed, const std::string& format, bool compact,
                    int steps, const std::string& shape)
{
    synth::SynthOptions o;
    o.scenario = "llama2-baseline";
    o.seed = seed;
    o.format = format;
    if (!synth::applyShape(shape, o)) {
        std::fprintf(stderr, "npuscope-bench: unknown shape '%s'\n", shape.c_str());
        return 0;
    }
    if (compact) {
        std::fprintf(stderr, "Generating the same %d steps with compact JSON in %s ...\n", steps, dir.c_str());
        o.compactJson = true;
        o.steps = steps;
        o.memoryFiles = 0; // as the real-shaped profile of the same size
    } else {
        std::fprintf(stderr, "Generating a %.0f MB profile (%s, %s) in %s ...\n", sizeMb, format.c_str(), shape.c_str(),
                     dir.c_str());
        o.targetMB = sizeMb;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const synth::SynthResult r = synth::synthesize(dir, o);
    if (!r.ok) {
        std::fprintf(stderr, "npuscope-bench: generating failed: %s\n", r.error.c_str());
        return 0;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "Generated %.1f MB in %.2f s (%.0f MB/s)\n", r.bytesWritten / 1e6, s, r.bytesWritten / 1e6 / s);
    return r.steps;
}

int dbVsTextBench(double sizeMb, const std::string& dirText, std::uint64_t seed)
{
    const fs::path dir(dirText);
    std::error_code ec;
    bool have = false;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        have = have || it->path().filename() == "ascend_pytorch_profiler_0.db";
    if (!have) {
        fs::remove_all(dir, ec);
        if (!generateProfile(dir.string(), sizeMb, seed, "both"))
            return 1;
    }
    const double textMb = static_cast<double>(exportBytes(dir, false)) / 1e6;
    const double dbMb = static_cast<double>(exportBytes(dir, true)) / 1e6;
    const LoadMeasure text = loadInChild(dir.string(), Prefer::Text);
    const LoadMeasure db = loadInChild(dir.string(), Prefer::Db);

    std::printf("npuscope-bench --db: %s, %ld cores\n", dir.c_str(), sysconf(_SC_NPROCESSORS_ONLN));
    std::printf("%-22s %10s %10s %10s %12s %10s %16s %14s\n", "export", "MB", "seconds", "MB/s", "device tasks",
                "kernels", "sum kernel ns", "peak RSS MiB");
    auto row = [](const char* name, double mb, const LoadMeasure& m) {
        if (!m.ok) {
            std::printf("%-22s failed: %s\n", name, m.error);
            return;
        }
        std::printf("%-22s %10.1f %10.3f %10.1f %12llu %10llu %16lld %14.1f\n", name, mb, m.seconds, mb / m.seconds,
                    static_cast<unsigned long long>(m.deviceTasks), static_cast<unsigned long long>(m.kernels),
                    static_cast<long long>(m.kernelNs), m.peakRssKb / 1024.0);
    };
    row("text (--prefer text)", textMb, text);
    row("SQLite (--prefer db)", dbMb, db);
    if (!text.ok || !db.ok)
        return 1;
    std::printf("load time db / text: %.2f (goal <= 1.0: the db loads at least as fast)\n", db.seconds / text.seconds);
    const bool same = text.deviceTasks == db.deviceTasks && text.kernels == db.kernels && text.kernelNs == db.kernelNs;
    std::printf("same data: %s\n", same ? "yes (device tasks, kernel rows and sum of kernel durations equal)" : "NO");
    return same ? 0 : 1;
}

} // namespace npuscope::bench
