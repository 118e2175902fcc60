#include "model/analysis/intervals.h"

#include <algorithm>

namespace npuscope {

IntervalSet uniteIntervals(std::vector<Interval> v)
{
    // Only the starts' order matters (the union is the same whatever the order of equal
    // starts). A profile's tasks come as a few sorted runs (one per stream): those are merged,
    // anything else sorted.
    auto byBegin = [](const Interval& a, const Interval& b) { return a.begin < b.begin; };
    constexpr std::size_t kMaxRuns = 64;
    std::vector<std::size_t> runs{0};
    for (std::size_t i = 1; i < v.size() && runs.size() <= kMaxRuns; ++i)
        if (v[i].begin < v[i - 1].begin)
            runs.push_back(i);
    runs.push_back(v.size());
    if (runs.size() > kMaxRuns + 1)
        std::sort(v.begin(), v.end(), byBegin);
    else
        mergeSortedRuns(v, std::move(runs), byBegin);
    // United in place: the set never holds more intervals than were read.
    std::size_t n = 0;
    for (const Interval& i : v) {
        if (i.end <= i.begin)
            continue;
        if (n > 0 && i.begin <= v[n - 1].end)
            v[n - 1].end = std::max(v[n - 1].end, i.end);
        else
            v[n++] = i;
    }
    v.resize(n);
    if (n < v.capacity() / 4)
        v.shrink_to_fit();
    return v;
}

IntervalSet uniteSets(const IntervalSet& a, const IntervalSet& b)
{
    IntervalSet out;
    out.reserve(a.size() + b.size());
    auto i = a.begin(), j = b.begin();
    while (i != a.end() || j != b.end()) {
        const Interval& next = j == b.end() || (i != a.end() && i->begin <= j->begin) ? *i++ : *j++;
        if (!out.empty() && next.begin <= out.back().end)
            out.back().end = std::max(out.back().end, next.end);
        else
            out.push_back(next);
    }
    return out;
}

TimeNs totalLength(const IntervalSet& s)
{
    TimeNs t = 0;
    for (const Interval& i : s)
        t += i.end - i.begin;
    return t;
}

IntervalSet intersectIntervals(const IntervalSet& a, const IntervalSet& b)
{
    IntervalSet out;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const TimeNs lo = std::max(a[i].begin, b[j].begin);
        const TimeNs hi = std::min(a[i].end, b[j].end);
        if (lo < hi)
            out.push_back({lo, hi});
        if (a[i].end < b[j].end)
            ++i;
        else
            ++j;
    }
    return out;
}

TimeNs intersectionLength(const IntervalSet& a, const IntervalSet& b) { return totalLength(intersectIntervals(a, b)); }

TimeNs coveredLength(const IntervalSet& s, TimeNs begin, TimeNs end)
{
    if (end <= begin)
        return 0;
    // First interval ending after begin.
    auto it = std::upper_bound(s.begin(), s.end(), begin, [](TimeNs t, const Interval& i) { return t < i.end; });
    TimeNs t = 0;
    for (; it != s.end() && it->begin < end; ++it)
        t += std::min(it->end, end) - std::max(it->begin, begin);
    return t;
}

IntervalSet subtractIntervals(const IntervalSet& a, const IntervalSet& b)
{
    IntervalSet out;
    std::size_t j = 0;
    for (const Interval& i : a) {
        while (j < b.size() && b[j].end <= i.begin)
            ++j;
        TimeNs cur = i.begin;
        for (std::size_t k = j; k < b.size() && b[k].begin < i.end; ++k) {
            if (b[k].begin > cur)
                out.push_back({cur, b[k].begin});
            cur = std::max(cur, b[k].end);
        }
        if (cur < i.end)
            out.push_back({cur, i.end});
    }
    return out;
}

IntervalSet clipIntervals(const IntervalSet& s, TimeNs begin, TimeNs end)
{
    IntervalSet out;
    for (const Interval& i : s) {
        const TimeNs lo = std::max(i.begin, begin), hi = std::min(i.end, end);
        if (hi > lo)
            out.push_back({lo, hi});
    }
    return out;
}

} // namespace npuscope
