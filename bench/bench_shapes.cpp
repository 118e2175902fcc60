// `npuscope-bench --shape NAME|all`: the same model written in each of the generator's shapes
// (model/synth/shapes.cpp: interleaved, process-ordered, flow starts or ends en bloc,
// device-task-heavy, the held-out export's level-1 density), each loaded against its own floor.
// A performance claim holds for the worst shape, so the table ends by naming it.
#include "bench/bench_shapes.h"

#include "bench/db_bench.h"
#include "model/synth/synth.h"

#include <cstdio>
#include <filesystem>

namespace npuscope::bench {

namespace {

namespace fs = std::filesystem;

// As bench names its real-shaped profile (bench.cpp: profileDir), so that "real" is shared.
fs::path shapeDir(const std::string& out, const std::string& shape, double sizeMb, std::uint64_t seed)
{
    char size[32];
    std::snprintf(size, sizeof size, "%g", sizeMb);
    return fs::path(out) / ("torch_npu_" + shape + "_" + std::string(size) + "mb_seed" + std::to_string(seed));
}

std::string traceUnder(const fs::path& dir)
{
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->path().filename() == "trace_view.json")
            return it->path().string();
    return {};
}

std::string runList(const std::vector<double>& v)
{
    std::string s;
    char buf[32];
    for (const double x : v) {
        std::snprintf(buf, sizeof buf, "%s%.3f", s.empty() ? "" : " ", x);
        s += buf;
    }
    return s;
}

} // namespace

int benchShapes(const std::vector<std::string>& asked, double sizeMb, std::uint64_t seed, const std::string& out,
                const MeasureShape& measure)
{
    std::vector<std::string> shapes;
    for (const std::string& s : asked)
        if (s == "all")
            for (const std::string& n : synth::shapeNames())
                shapes.push_back(n);
        else
            shapes.push_back(s);
    std::printf("npuscope-bench: shapes at %g MiB of timeline; a/b = full load / simdjson floor, medians of "
                "alternating runs\n",
                sizeMb);
    std::printf("%-16s %9s %8s %8s %6s %8s %8s %8s %10s %9s\n", "shape", "MB", "load s", "floor s", "a/b", "advise s",
                "rules s", "reopen s", "slices", "flows");
    int failed = 0;
    std::string worst, slowestRules;
    double worstRatio = 0, worstRules = 0;
    for (const std::string& shape : shapes) {
        const fs::path dir = shapeDir(out, shape, sizeMb, seed);
        std::string trace = traceUnder(dir);
        if (trace.empty() && bench::generateProfile(dir.string(), sizeMb, seed, "text", false, 0, shape) > 0)
            trace = traceUnder(dir);
        ShapeFigures f;
        f.error = "not generated";
        if (!trace.empty())
            f = measure(dir.string(), trace);
        if (!f.ok) {
            std::printf("%-16s failed: %s\n", shape.c_str(), f.error.c_str());
            ++failed;
            continue;
        }
        const double ratio = f.load / f.floor;
        std::printf("%-16s %9.1f %8.3f %8.3f %6.2f %8.3f %8.3f %8.3f %10llu %9llu\n", shape.c_str(),
                    static_cast<double>(fs::file_size(trace)) / 1e6, f.load, f.floor, ratio, f.adviseLoad + f.rules,
                    f.rules, f.reopen, static_cast<unsigned long long>(f.slices),
                    static_cast<unsigned long long>(f.flows));
        std::printf("%-16s   runs: load %s s; floor %s s\n", "", runList(f.loads).c_str(), runList(f.floors).c_str());
        if (ratio > worstRatio) {
            worstRatio = ratio;
            worst = shape;
        }
        if (f.rules > worstRules) {
            worstRules = f.rules;
            slowestRules = shape;
        }
    }
    if (!worst.empty())
        std::printf("worst shape by a/b: %s (%.2f; goal <= 1.5 on every shape); by the rules: %s (%.3f s)\n",
                    worst.c_str(), worstRatio, slowestRules.c_str(), worstRules);
    return failed == 0 ? 0 : 1;
}

} // namespace npuscope::bench
