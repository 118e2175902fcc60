#pragma once
// `npuscope-bench --shape`: the load against the floor, the rules and the reopen on each of the
// generator's shapes (see bench_shapes.cpp).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace npuscope::bench {

// One shape's figures, measured by bench's own runs (bench.cpp).
struct ShapeFigures {
    bool ok = false;
    std::string error;
    double load = 0, floor = 0;             // medians of the alternating runs
    std::vector<double> loads, floors;      // every run
    double adviseLoad = 0, rules = 0;       // advise end to end: the load, then the rules alone
    double reopen = 0;                      // the median reopen from the session cache; 0 if none
    std::uint64_t slices = 0, flows = 0;    // of the loaded profile
};
using MeasureShape = std::function<ShapeFigures(const std::string& folder, const std::string& trace)>;

// Every shape in `shapes` ("all": each of synth::shapeNames()), generated once at about sizeMb
// MiB of timeline under `out` and measured with `measure`: a row per shape and which was worst
// by a/b. Returns 0 when every shape was measured.
int benchShapes(const std::vector<std::string>& shapes, double sizeMb, std::uint64_t seed, const std::string& out,
                const MeasureShape& measure);

} // namespace npuscope::bench
