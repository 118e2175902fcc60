#pragma once
// Time intervals and their set arithmetic, shared by the step breakdown (overlap.h), the cluster
// analysis and the advisor's rules: one Interval type and one implementation of each operation.
// (The generator, model/synth/overlap.h, keeps its own: it writes what these read back, and a
// test that compares the two would prove nothing if both were the same code.)
#include "model/store/ids.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace npuscope {

struct Interval {
    TimeNs begin = 0, end = 0; // [begin, end)
};
// Sorted, disjoint, non-empty intervals.
using IntervalSet = std::vector<Interval>;

// Merges the adjacent sorted runs of `v`, [bounds[i], bounds[i + 1]) with bounds from 0 to
// v.size(), two by two until `v` is one sorted run: stable, in O(n log runs). For rows that come
// as a few sorted runs (a profile's tracks or streams).
template <typename T, typename Less>
void mergeSortedRuns(std::vector<T>& v, std::vector<std::size_t> bounds, Less less)
{
    while (bounds.size() > 2) {
        std::vector<std::size_t> next{0};
        for (std::size_t i = 0; i + 1 < bounds.size(); i += 2) {
            if (i + 2 < bounds.size()) {
                std::inplace_merge(v.begin() + static_cast<std::ptrdiff_t>(bounds[i]),
                                   v.begin() + static_cast<std::ptrdiff_t>(bounds[i + 1]),
                                   v.begin() + static_cast<std::ptrdiff_t>(bounds[i + 2]), less);
                next.push_back(bounds[i + 2]);
            } else {
                next.push_back(bounds[i + 1]);
            }
        }
        bounds.swap(next);
    }
}

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
