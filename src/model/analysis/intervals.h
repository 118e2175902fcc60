#pragma once
// Time intervals and their set arithmetic, shared by the step breakdown (overlap.h), the cluster
// analysis and the advisor's rules: one Interval type and one implementation of each operation.
// (The generator, model/synth/overlap.h, keeps its own: it writes what these read back, and a
// test that compares the two would prove nothing if both were the same code.)
#include "model/store/ids.h"

#include <vector>

namespace npuscope {

struct Interval {
    TimeNs begin = 0, end = 0; // [begin, end)
};
// Sorted, disjoint, non-empty intervals.
using IntervalSet = std::vector<Interval>;

// The union of any intervals (empty ones dropped; touching ones merged).
IntervalSet uniteIntervals(std::vector<Interval> v);
TimeNs totalLength(const IntervalSet& s);
IntervalSet intersectIntervals(const IntervalSet& a, const IntervalSet& b);
TimeNs intersectionLength(const IntervalSet& a, const IntervalSet& b);
// a − b.
IntervalSet subtractIntervals(const IntervalSet& a, const IntervalSet& b);
// The parts of s inside [begin, end).
IntervalSet clipIntervals(const IntervalSet& s, TimeNs begin, TimeNs end);
// Length of s inside [begin, end).
TimeNs coveredLength(const IntervalSet& s, TimeNs begin, TimeNs end);

} // namespace npuscope
