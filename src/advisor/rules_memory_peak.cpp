// MEM-PEAK: what holds device memory at its peak, how close the peak comes to the device's
// capacity, the reserved-but-unallocated gap (fragmentation), and leaks (allocations never
// freed, the allocator's floor growing every step). Inputs: memory_record / MEMORY_RECORD (the
// curves), operator_memory / OP_MEMORY (the allocations).
#include "advisor/rule_helpers.h"
#include "model/analysis/memory.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace npuscope::advisor {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string fmtMiB(double bytes)
{
    return fmtNum(bytes / kMiB, std::abs(bytes) >= 100 * kMiB ? 0 : (std::abs(bytes) >= kMiB ? 1 : 3)) + " MiB";
}

Evidence allocationEvidence(const ProfileFacts& f, const OpAllocation& a, const std::string& threshold)
{
    Evidence e;
    e.at.rank = f.rank;
    e.at.device = a.device;
    e.at.ts = a.allocAt;
    const TimeNs until = memory::liveUntil(a, f.p.end);
    e.at.dur = std::max<TimeNs>(0, until - a.allocAt);
    e.at.op = f.str(a.name);
    e.metrics.push_back({"size", a.bytes / kMiB, "MiB"});
    e.metrics.push_back({"held", static_cast<double>(*e.at.dur) / 1e6, "ms"});
    if (!a.released())
        e.metrics.push_back({"never released", 1, ""});
    e.threshold = threshold;
    e.cost = static_cast<TimeNs>(a.bytes); // sort key: bytes
    return e;
}

struct PeakParts {
    std::vector<std::uint32_t> alive; // largest first
    double total = 0, longLived = 0, activations = 0;
};

// The allocations alive at t, split by lifetime: held to the end of the capture or for at least
// long_share of a step = long-lived; shorter = activations and temporaries.
PeakParts partsAt(const ProfileFacts& f, TimeNs t, double longNs)
{
    PeakParts parts;
    parts.alive = memory::allocationsAliveAt(f.p, t);
    for (auto i : parts.alive) {
        const OpAllocation& a = f.p.opMemory[i];
        parts.total += a.bytes;
        const bool isLong = !a.released() || static_cast<double>(*a.releaseAt - a.allocAt) >= longNs;
        (isLong ? parts.longLived : parts.activations) += a.bytes;
    }
    return parts;
}

std::string topHolders(const ProfileFacts& f, const PeakParts& parts, std::size_t n)
{
    std::vector<std::string> names;
    for (std::size_t k = 0; k < parts.alive.size() && k < n; ++k) {
        const OpAllocation& a = f.p.opMemory[parts.alive[k]];
        names.push_back(f.str(a.name) + " " + fmtMiB(a.bytes) + (a.released() ? "" : " (never released)"));
    }
    return names.empty() ? "no operator allocation alive (operator_memory.csv absent)" : joinList(names);
}

void addHolderEvidence(Finding& fd, const ProfileFacts& f, const PeakParts& parts, const std::string& threshold)
{
    for (std::size_t k = 0; k < parts.alive.size() && k < kMaxEvidence; ++k)
        fd.evidence.push_back(allocationEvidence(f, f.p.opMemory[parts.alive[k]], threshold));
}

// Leak: operators with allocations never released in most steps, and (when the curve exists) the
// allocator's floor (lowest allocated in a step) rising in every step.
struct Leak {
    struct Op {
        std::string name;
        std::size_t steps = 0, count = 0;
        double bytes = 0;
        std::vector<std::uint32_t> rows;
    };
    std::vector<Op> ops;          // most unreleased bytes first
    std::vector<double> floors;   // per step, bytes (NaN: no sample)
    bool floorGrows = false;
    double growth = 0;            // last floor − first floor
};

Leak findLeak(const ProfileFacts& f, const memory::Summary& m, int minSteps)
{
    Leak leak;
    const auto& steps = f.overlap.spans;
    if (static_cast<int>(steps.size()) < minSteps)
        return leak;
    auto stepOf = [&steps](TimeNs t) {
        for (std::size_t s = 0; s < steps.size(); ++s)
            if (t >= steps[s].second.begin && t < steps[s].second.end)
                return static_cast<int>(s);
        return -1;
    };
    std::map<std::string, Leak::Op> ops;
    std::map<std::string, std::set<int>> stepsOf;
    for (std::uint32_t i = 0; i < f.p.opMemory.size(); ++i) {
        const OpAllocation& a = f.p.opMemory[i];
        if (a.released() || !(a.bytes > 0))
            continue;
        const int s = stepOf(a.allocAt);
        if (s < 0)
            continue;
        Leak::Op& o = ops[f.str(a.name)];
        o.name = f.str(a.name);
        ++o.count;
        o.bytes += a.bytes;
        o.rows.push_back(i);
        stepsOf[o.name].insert(s);
    }
    // Every step but the last (whose tensors may be freed after the capture ends).
    const std::size_t need = std::max<std::size_t>(2, steps.size() - 1);
    for (auto& [name, o] : ops) {
        o.steps = stepsOf[name].size();
        if (o.steps >= need)
            leak.ops.push_back(std::move(o));
    }
    std::stable_sort(leak.ops.begin(), leak.ops.end(), [](const Leak::Op& a, const Leak::Op& b) { return a.bytes > b.bytes; });
    if (const memory::ComponentCurve* fw = m.frameworkCurve()) {
        bool grows = true;
        for (const auto& [name, span] : steps) {
            // What the step starts with (left over from the steps before), or less within it.
            const auto& s = fw->allocated;
            double lo = s.at(span.begin);
            auto it = std::lower_bound(s.ts.begin(), s.ts.end(), span.begin);
            for (auto k = static_cast<std::size_t>(it - s.ts.begin()); k < s.ts.size() && s.ts[k] < span.end; ++k)
                lo = !isMissing(lo) ? std::min(lo, s.value[k]) : s.value[k];
            if (!leak.floors.empty() && !(lo > leak.floors.back()))
                grows = false;
            leak.floors.push_back(lo);
        }
        leak.floorGrows = grows;
        if (leak.floors.size() >= 2)
            leak.growth = leak.floors.back() - leak.floors.front();
    }
    return leak;
}

// The peak of the operator allocations' running sum (frees before allocations at one time):
// its time and bytes; peakBytes stays NaN when nothing was allocated.
void allocationsPeak(const Profile& p, TimeNs& peakAt, double& peakBytes)
{
    std::vector<std::pair<TimeNs, double>> ev;
    for (const auto& a : p.opMemory)
        if (a.bytes > 0) {
            ev.push_back({a.allocAt, a.bytes});
            if (a.releaseAt)
                ev.push_back({*a.releaseAt, -a.bytes});
        }
    std::sort(ev.begin(), ev.end(), [](const auto& x, const auto& y) {
        return x.first != y.first ? x.first < y.first : x.second < y.second; // frees first
    });
    double cur = 0;
    for (const auto& [t, d] : ev) {
        cur += d;
        if (!(cur <= peakBytes)) {
            peakBytes = cur;
            peakAt = t;
        }
    }
}

// MEM-PEAK/leak: allocations made in every step and never freed, with the framework floor's
// growth when there is a framework curve (`fw`, then non-null).
void fireLeak(const ProfileFacts& f, const Leak& leak, const memory::ComponentCurve* fw, const std::string& capText,
              RuleOut& out)
{
    const Leak::Op& worst = leak.ops.front();
    Finding& fd = out.fire("leak");
    fd.ruleSeverity = FindingSeverity::High;
    const int nSteps = static_cast<int>(leak.floors.empty() ? worst.steps : leak.floors.size());
    fd.title = "Memory leak: " + worst.name + " allocations are never freed (" + std::to_string(worst.count)
               + " in " + std::to_string(worst.steps) + " steps, " + fmtMiB(worst.bytes) + ")";
    std::vector<std::string> names;
    for (const auto& o : leak.ops)
        names.push_back(o.name + " " + fmtMiB(o.bytes) + " in " + std::to_string(o.count) + " allocations");
    fd.description = "Allocations made in every step are still held when the capture ends: " + joinList(names) + ".";
    if (!leak.floors.empty())
        fd.description += " The " + fw->component + " allocated floor rises in every one of " + std::to_string(nSteps)
                          + " steps, " + fmtMiB(leak.growth) + " in all (" + fmtMiB(leak.growth / std::max(1, nSteps - 1))
                          + " per step).";
    fd.description += " Peak " + capText + ".";
    fd.suggestions.push_back("Free what " + worst.name
                             + " allocates each step: look for tensors appended to a list or kept in a dict across "
                               "steps, losses accumulated without .item() / .detach(), or caches that only grow.");
    fd.suggestions.push_back("Long-lived tensors: release them earlier (del the reference, clear the container at the "
                             "end of the step).");
    fd.scope.steps = std::to_string(worst.steps) + " steps";
    noGain(fd, "memory, not time");
    for (const auto& o : leak.ops)
        for (auto r : o.rows)
            if (fd.evidence.size() < kMaxEvidence)
                fd.evidence.push_back(allocationEvidence(f, f.p.opMemory[r], "never released"));
    sortEvidence(fd.evidence);
}

// The suggestions of a peak finding: fragmentation first for a fragmentation finding, then the
// larger of the long-lived tensors and the activations first.
void addMemorySuggestions(Finding& fd, const PeakParts& parts, double longShareParam, bool fragFirst)
{
    const std::string frag = "Fragmentation: PYTORCH_NPU_ALLOC_CONF=expandable_segments:True lets the caching "
                             "allocator grow segments instead of reserving new blocks it cannot reuse.";
    const std::string act = "Activations: recompute (activation checkpointing) or a smaller micro-batch; "
                            + fmtMiB(parts.activations) + " of the holders at the peak live less than "
                            + fmtPct(longShareParam) + " of a step.";
    const std::string lng = "Long-lived tensors: release them earlier (del the reference, keep no Python "
                            "references to outputs past their use, offload to host); "
                            + fmtMiB(parts.longLived) + " of the holders at the peak outlive "
                            + fmtPct(longShareParam) + " of a step.";
    const double longShare = parts.total > 0 ? parts.longLived / parts.total : 0;
    if (fragFirst)
        fd.suggestions.push_back(frag);
    if (longShare > 0.5) {
        fd.suggestions.push_back(lng);
        fd.suggestions.push_back(act);
    } else {
        fd.suggestions.push_back(act);
        fd.suggestions.push_back(lng);
    }
    if (!fragFirst)
        fd.suggestions.push_back(frag);
}

// What was alive at the peak, in a peak finding's description; its scope and (no) gain.
void describeHolders(Finding& fd, const PeakParts& parts, const std::string& holders, const std::string& at)
{
    fd.description += " Alive at the peak (" + std::to_string(parts.alive.size()) + " allocations, "
                      + fmtMiB(parts.total) + "): " + holders + ". Long-lived " + fmtMiB(parts.longLived)
                      + ", activations and temporaries " + fmtMiB(parts.activations) + ".";
    fd.scope.steps = "the peak " + at;
    noGain(fd, "memory, not time");
}

} // namespace

void memoryPeakRule(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    const memory::Summary m = memory::summarize(f.p);
    const memory::ComponentCurve* fw = m.frameworkCurve();
    if (!fw && m.allocations == 0)
        return out.notChecked("needs memory_record.csv / operator_memory.csv (or MEMORY_RECORD / OP_MEMORY in the db): "
                              "collect with torch_npu.profiler profile_memory=True");
    if (fw)
        out.inputs.push_back(f.fileOf(FileRole::MemoryRecords, "memory_record") + ": " + fw->component
                             + " Total Allocated / Reserved (" + std::to_string(fw->allocated.ts.size()) + " samples)");
    if (m.allocations > 0)
        out.inputs.push_back(f.fileOf(FileRole::OperatorMemory, "operator_memory") + ": " + std::to_string(m.allocations)
                             + " allocations, " + std::to_string(m.unreleased) + " never released");

    const double peakShare = c.param("peak_share"), fragShare = c.param("frag_share");
    const double longNs = c.param("long_share") * f.stepTime;
    const auto top = static_cast<std::size_t>(std::max(1.0, c.param("top")));
    double capacity = m.capacityBytes;
    std::string capSource = m.capacitySource;
    if (const double mb = c.param("capacity_mb"); mb > 0) {
        capacity = mb * kMiB;
        capSource = "capacity_mb";
    }

    // The peak: of the framework curve, else of the allocations' running sum.
    TimeNs peakAt = 0;
    double peakBytes = kNaN;
    std::string peakSource;
    if (fw && m.peakAllocated.valid()) {
        peakAt = m.peakAllocated.at;
        peakBytes = m.peakAllocated.bytes;
        peakSource = fw->component + " allocated";
    } else {
        allocationsPeak(f.p, peakAt, peakBytes);
        peakSource = "sum of operator allocations";
    }
    const PeakParts parts = partsAt(f, peakAt, longNs);
    const double reservedAtPeak = fw ? fw->reserved.at(peakAt) : kNaN;
    const double gap = reservedAtPeak - peakBytes;
    const std::string at = Locator{f.rank, -1, -1, peakAt, std::nullopt, {}, {}, {}, {}}.text(f.p.begin);
    const std::string holders = topHolders(f, parts, top);
    const std::string capText = !isMissing(capacity)
        ? fmtPct(peakBytes / capacity) + " of the device's " + fmtMiB(capacity) + " (" + capSource + ")"
        : "device capacity unknown (set MEM-PEAK capacity_mb)";

    // 1. Close to capacity.
    if (!isMissing(capacity) && peakBytes >= peakShare * capacity) {
        Finding& fd = out.fire("capacity");
        fd.ruleSeverity = FindingSeverity::High;
        fd.title = "Device memory peak " + fmtMiB(peakBytes) + " is " + capText;
        fd.description = "The " + peakSource + " peak reaches " + fmtMiB(peakBytes) + " " + at + " (threshold "
                         + fmtPct(peakShare) + " of capacity): the next larger batch or sequence runs out of memory.";
        describeHolders(fd, parts, holders, at);
        addMemorySuggestions(fd, parts, c.param("long_share"), false);
        addHolderEvidence(fd, f, parts, "alive at the peak");
    }
    // 2. Fragmentation at the peak.
    if (!isMissing(reservedAtPeak) && reservedAtPeak > 0 && gap >= fragShare * reservedAtPeak) {
        Finding& fd = out.fire("fragmentation");
        fd.ruleSeverity = FindingSeverity::Medium;
        fd.title = "Reserved but unallocated " + fmtMiB(gap) + " at the memory peak (" + fmtPct(gap / reservedAtPeak)
                   + " of " + fmtMiB(reservedAtPeak) + " reserved)";
        fd.description = "At the " + peakSource + " peak " + at + " the caching allocator holds " + fmtMiB(reservedAtPeak)
                         + " but only " + fmtMiB(peakBytes) + " is allocated (threshold " + fmtPct(fragShare)
                         + " of reserved): free blocks too small or split to reuse. Peak " + capText + ".";
        describeHolders(fd, parts, holders, at);
        addMemorySuggestions(fd, parts, c.param("long_share"), true);
        addHolderEvidence(fd, f, parts, "alive at the peak");
    }
    // 3. Leak.
    const Leak leak = findLeak(f, m, static_cast<int>(c.param("leak_min_steps")));
    const double minGrowth = c.param("leak_min_mb") * kMiB;
    if (!leak.ops.empty() && (leak.floors.empty() || (leak.floorGrows && leak.growth >= minGrowth)))
        fireLeak(f, leak, fw, capText, out);
    if (out.fired.empty()) {
        std::string check = "peak " + fmtMiB(peakBytes) + " (" + peakSource + ") " + at + ", " + capText;
        if (!isMissing(reservedAtPeak) && reservedAtPeak > 0)
            check += ", reserved − allocated " + fmtPct(gap / reservedAtPeak) + " (threshold " + fmtPct(fragShare) + ")";
        check += "; top holders: " + holders;
        out.pass(check);
    }
}

} // namespace npuscope::advisor
