#pragma once
// Interval arithmetic for the Overlap Analysis lanes and the step breakdown (FORMATS.md §5):
// Computing = ∪ compute, Communication = ∪ comm, Not Overlapped = comm − compute,
// Free = the step's device part − (compute ∪ comm). As the profiler writes step_trace_time, the
// device part runs from the first to the last busy instant inside the step ("Stage" =
// Computing + Communication(Not Overlapped) + Free); the step's start to its first device work
// is "Preparing".
#include <cstdint>
#include <utility>
#include <vector>

namespace npuscope::synth {

using Interval = std::pair<std::int64_t, std::int64_t>; // [begin, end) ns

struct Overlap {
    std::vector<Interval> computing, communication, notOverlapped, free;
    // The device part: the first and last busy instant inside [begin, end) (begin, begin when
    // nothing ran there).
    std::int64_t deviceBegin = 0, deviceEnd = 0;
};

// Sorts and merges overlapping or touching intervals.
std::vector<Interval> mergeIntervals(std::vector<Interval> v);
// a − b for merged inputs.
std::vector<Interval> subtractIntervals(const std::vector<Interval>& a, const std::vector<Interval>& b);
std::int64_t total(const std::vector<Interval>& v);
Overlap computeOverlap(std::vector<Interval> compute, std::vector<Interval> comm, std::int64_t begin,
                       std::int64_t end);

} // namespace npuscope::synth
