#include "model/synth/overlap.h"

#include <algorithm>

namespace npuscope::synth {

std::vector<Interval> mergeIntervals(std::vector<Interval> v)
{
    std::sort(v.begin(), v.end());
    std::vector<Interval> out;
    for (const auto& iv : v) {
        if (iv.second <= iv.first)
            continue;
        if (!out.empty() && iv.first <= out.back().second)
            out.back().second = std::max(out.back().second, iv.second);
        else
            out.push_back(iv);
    }
    return out;
}

std::vector<Interval> subtractIntervals(const std::vector<Interval>& a, const std::vector<Interval>& b)
{
    std::vector<Interval> out;
    std::size_t j = 0;
    for (auto [lo, hi] : a) {
        while (j < b.size() && b[j].second <= lo)
            ++j;
        std::size_t k = j;
        while (lo < hi) {
            if (k >= b.size() || b[k].first >= hi) {
                out.emplace_back(lo, hi);
                break;
            }
            if (b[k].first > lo)
                out.emplace_back(lo, b[k].first);
            lo = std::max(lo, b[k].second);
            ++k;
        }
    }
    return out;
}

std::int64_t total(const std::vector<Interval>& v)
{
    std::int64_t t = 0;
    for (const auto& iv : v)
        t += iv.second - iv.first;
    return t;
}

Overlap computeOverlap(std::vector<Interval> compute, std::vector<Interval> comm, std::int64_t begin,
                       std::int64_t end)
{
    Overlap o;
    o.computing = mergeIntervals(std::move(compute));
    o.communication = mergeIntervals(std::move(comm));
    o.notOverlapped = subtractIntervals(o.communication, o.computing);
    std::vector<Interval> busy = o.computing;
    busy.insert(busy.end(), o.communication.begin(), o.communication.end());
    busy = mergeIntervals(std::move(busy));
    o.deviceBegin = o.deviceEnd = begin;
    bool any = false;
    for (const auto& [a, b] : busy) {
        const std::int64_t lo = std::max(a, begin), hi = std::min(b, end);
        if (hi <= lo)
            continue;
        if (!any)
            o.deviceBegin = lo;
        any = true;
        o.deviceEnd = hi;
    }
    if (o.deviceEnd > o.deviceBegin)
        o.free = subtractIntervals({{o.deviceBegin, o.deviceEnd}}, busy);
    return o;
}

} // namespace npuscope::synth
