#pragma once
// Time intervals and their set arithmetic, shared by the step breakdown (overlap.h), the cluster
// analysis and the advisor's rules: one Interval type and one implementation of each operation.
// (The generator, model/synth/overlap.h, keeps its own: it writes what these read back, and a
// test that compares the two would prove nothing if both were the same code.)
#include "model/store/ids.h"

#include <algorithm>
#include <cstddef>
#include <utility>
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

// Sorts `v` stably by `less`: merged run by run (mergeSortedRuns) when it is at most `maxRuns`
// ascending runs, as rows mostly come (a stream's tasks, one stream after another), else sorted.
template <typename T, typename Less>
void stableSortByRuns(std::vector<T>& v, Less less, std::size_t maxRuns = 16)
{
    std::vector<std::size_t> bounds{0};
    for (std::size_t i = 1; i < v.size() && bounds.size() <= maxRuns; ++i)
        if (less(v[i], v[i - 1]))
            bounds.push_back(i);
    if (bounds.size() > maxRuns) {
        std::stable_sort(v.begin(), v.end(), less);
        return;
    }
    bounds.push_back(v.size());
    mergeSortedRuns(v, std::move(bounds), less);
}

// The union of any intervals (empty ones dropped; touching ones merged).
IntervalSet uniteIntervals(std::vector<Interval> v);
// a ∪ b, two sets merged in start order (touching intervals joined): uniteIntervals of the two
// together, without sorting them again.
IntervalSet uniteSets(const IntervalSet& a, const IntervalSet& b);
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
