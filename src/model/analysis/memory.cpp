#include "model/analysis/memory.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace npuscope::memory {

namespace {

constexpr double kKiB = 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = kMiB * 1024.0;

bool endsWith(std::string_view s, std::string_view tail)
{
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

double unitOf(std::string_view key)
{
    if (endsWith(key, "(KB)"))
        return kKiB;
    if (endsWith(key, "(MB)"))
        return kMiB;
    if (endsWith(key, "(GB)"))
        return kGiB;
    return 1;
}

void append(Series& s, const CounterSeries& c, double unit)
{
    for (std::size_t i = 0; i < c.ts.size(); ++i) {
        s.ts.push_back(c.ts[i]);
        s.value.push_back(c.value[i] * unit);
    }
}

void sortSeries(Series& s)
{
    if (std::is_sorted(s.ts.begin(), s.ts.end()))
        return;
    std::vector<std::size_t> o(s.ts.size());
    std::iota(o.begin(), o.end(), std::size_t(0));
    std::stable_sort(o.begin(), o.end(), [&s](std::size_t a, std::size_t b) { return s.ts[a] < s.ts[b]; });
    Series out;
    for (auto i : o) {
        out.ts.push_back(s.ts[i]);
        out.value.push_back(s.value[i]);
    }
    s = std::move(out);
}

// The highest value of `s` and the first time it was reached; folded into `peak` when higher.
void foldPeak(Peak& peak, const Series& s)
{
    for (std::size_t i = 0; i < s.ts.size(); ++i) {
        const double v = s.value[i];
        if (isMissing(v))
            continue;
        if (!peak.valid() || v > peak.bytes || (v == peak.bytes && s.ts[i] < peak.at)) {
            peak.bytes = v;
            peak.at = s.ts[i];
        }
    }
}

bool bySizeThenTime(const Profile& p, std::uint32_t a, std::uint32_t b)
{
    const auto& x = p.opMemory[a];
    const auto& y = p.opMemory[b];
    if (x.bytes != y.bytes)
        return x.bytes > y.bytes;
    if (x.allocAt != y.allocAt)
        return x.allocAt < y.allocAt;
    return a < b;
}

} // namespace

double Series::at(TimeNs t) const
{
    auto it = std::upper_bound(ts.begin(), ts.end(), t);
    if (it == ts.begin())
        return kNaN;
    return value[static_cast<std::size_t>(it - ts.begin() - 1)];
}

double chipCapacityBytes(const std::string& chip)
{
    if (chip == "Ascend910B1" || chip == "Ascend910B2" || chip == "Ascend910B3")
        return 64 * kGiB;
    if (chip == "Ascend910B4")
        return 32 * kGiB;
    if (chip == "Ascend910" || chip == "Ascend910A" || chip == "Ascend910ProA" || chip == "Ascend910ProB")
        return 32 * kGiB;
    return kNaN;
}

Summary summarize(const Profile& p)
{
    Summary s;
    std::map<std::tuple<int, std::string, int>, ComponentCurve> curves; // (0 record / 1 module, name, device)
    for (const auto& c : p.counters) {
        const std::string_view process = p.str(c.process);
        const bool record = process == "memory_record";
        if (!record && process != "npu_module_mem")
            continue;
        const std::string_view key = p.str(c.key);
        const std::string name(p.str(c.name));
        ComponentCurve& cc = curves[{record ? 0 : 1, name, c.device}];
        cc.component = name;
        cc.device = c.device;
        const double unit = unitOf(key);
        if (key.find("Allocated") != std::string_view::npos)
            append(cc.allocated, c, unit);
        else if (key.find("Reserved") != std::string_view::npos)
            append(cc.reserved, c, unit);
        else if (key.find("Active") != std::string_view::npos)
            append(cc.active, c, unit);
    }
    for (auto& [k, cc] : curves) {
        sortSeries(cc.allocated);
        sortSeries(cc.reserved);
        sortSeries(cc.active);
        (std::get<0>(k) == 0 ? s.components : s.modules).push_back(std::move(cc));
    }
    auto find = [&s](std::string_view name) {
        for (std::size_t i = 0; i < s.components.size(); ++i)
            if (s.components[i].component == name && !s.components[i].allocated.empty())
                return static_cast<int>(i);
        return -1;
    };
    for (const char* name : {"PTA+GE", "PTA", "GE"})
        if (s.framework < 0)
            s.framework = find(name);
    for (std::size_t i = 0; s.framework < 0 && i < s.components.size(); ++i)
        if (!s.components[i].allocated.empty() && s.components[i].component != "APP")
            s.framework = static_cast<int>(i);
    // A rank with several devices: the framework component of each device counts.
    if (s.framework >= 0) {
        const std::string& fw = s.components[static_cast<std::size_t>(s.framework)].component;
        for (const auto& cc : s.components)
            if (cc.component == fw) {
                foldPeak(s.peakAllocated, cc.allocated);
                foldPeak(s.peakReserved, cc.reserved);
                foldPeak(s.peakActive, cc.active);
            }
    }
    for (const auto& cc : s.components)
        if (cc.component == "APP")
            foldPeak(s.appReserved, cc.reserved);
    for (const auto& d : p.deviceInfo) {
        const double c = chipCapacityBytes(d.chip);
        if (!isMissing(c)) {
            s.capacityBytes = c;
            s.capacitySource = d.chip;
            break;
        }
    }
    for (const auto& a : p.opMemory)
        if (a.bytes > 0) {
            ++s.allocations;
            s.unreleased += a.released() ? 0 : 1;
        }
    return s;
}

std::vector<std::uint32_t> allocationsAliveAt(const Profile& p, TimeNs t)
{
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < p.opMemory.size(); ++i)
        if (p.opMemory[i].bytes > 0 && aliveAt(p.opMemory[i], t))
            out.push_back(i);
    std::sort(out.begin(), out.end(), [&p](auto a, auto b) { return bySizeThenTime(p, a, b); });
    return out;
}

std::vector<std::uint32_t> allocationsBySize(const Profile& p)
{
    std::vector<std::uint32_t> out;
    for (std::uint32_t i = 0; i < p.opMemory.size(); ++i)
        if (p.opMemory[i].bytes > 0)
            out.push_back(i);
    std::sort(out.begin(), out.end(), [&p](auto a, auto b) { return bySizeThenTime(p, a, b); });
    return out;
}

std::vector<OperatorBytes> byOperator(const Profile& p)
{
    std::map<std::uint32_t, OperatorBytes> m; // by NameId
    for (const auto& a : p.opMemory) {
        if (!(a.bytes > 0))
            continue;
        OperatorBytes& o = m[a.name.v];
        o.bytes += a.bytes;
        o.maxBytes = std::max(o.maxBytes, a.bytes);
        ++o.count;
        if (!a.released()) {
            ++o.unreleased;
            o.unreleasedBytes += a.bytes;
        }
        o.heldNs += std::max<TimeNs>(0, liveUntil(a, p.end) - a.allocAt);
    }
    std::vector<OperatorBytes> out;
    for (auto& [id, o] : m) {
        o.name = std::string(p.str(NameId{id}));
        out.push_back(std::move(o));
    }
    std::stable_sort(out.begin(), out.end(), [](const OperatorBytes& a, const OperatorBytes& b) {
        return a.bytes != b.bytes ? a.bytes > b.bytes : a.name < b.name;
    });
    return out;
}

AllocationOrigin originOf(const Profile& p, const OpAllocation& a)
{
    AllocationOrigin best;
    const std::string_view want = p.str(a.name);
    struct Hit {
        std::uint32_t slice;
        std::uint16_t depth;
        bool sameName;
    };
    std::vector<Hit> hits;
    constexpr std::uint32_t kScanBack = 4096; // enclosing slices start at most this many rows back
    for (const auto& tr : p.tracks) {
        if (tr.kind != TrackKind::Python || tr.sliceBegin == tr.sliceEnd)
            continue;
        const auto first = p.slices.start.begin() + tr.sliceBegin;
        const auto last = p.slices.start.begin() + tr.sliceEnd;
        auto up = static_cast<std::uint32_t>(std::upper_bound(first, last, a.allocAt) - p.slices.start.begin());
        const std::uint32_t stop = up - tr.sliceBegin > kScanBack ? up - kScanBack : tr.sliceBegin;
        for (std::uint32_t i = up; i-- > stop;)
            if (p.slices.end(i) > a.allocAt || (p.slices.dur[i] == 0 && p.slices.start[i] == a.allocAt))
                hits.push_back({i, p.slices.depth[i], p.str(p.slices.name[i]) == want});
    }
    if (hits.empty())
        return best;
    // Innermost first; among equal depth, a slice named like the allocation first.
    std::stable_sort(hits.begin(), hits.end(), [](const Hit& x, const Hit& y) {
        return x.depth != y.depth ? x.depth > y.depth : x.sameName > y.sameName;
    });
    auto pick = hits.front();
    for (const auto& h : hits)
        if (h.sameName) {
            pick = h;
            break;
        }
    best.slice = pick.slice;
    best.op = std::string(p.str(p.slices.name[pick.slice]));
    // The call stack of the picked slice, else of the nearest slice enclosing it.
    for (const auto& h : hits) {
        if (h.depth > pick.depth)
            continue;
        const std::uint32_t row = p.slices.args[h.slice];
        if (row == kNone)
            continue;
        std::string stack = p.args.find(row, "Call stack", p.strings);
        if (!stack.empty()) {
            best.callStack = std::move(stack);
            break;
        }
    }
    return best;
}

} // namespace npuscope::memory
