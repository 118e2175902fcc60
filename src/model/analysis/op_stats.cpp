#include "model/analysis/op_stats.h"

#include "model/analysis/slice_detail.h"
#include "model/analysis/u64_map.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace npuscope {

const char* boundTypeName(BoundType b)
{
    switch (b) {
    case BoundType::Compute: return "compute";
    case BoundType::Memory: return "memory";
    case BoundType::Latency: return "latency";
    case BoundType::Unknown: return "unknown";
    }
    return "unknown";
}

namespace {

bool startsWithNoCase(std::string_view s, std::string_view prefix)
{
    if (s.size() < prefix.size())
        return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
            return false;
    return true;
}

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Duration-weighted mean that falls back to the plain mean when every weight is zero
// (a group of zero-length tasks still has a meaningful average metric).
struct WeightedMean {
    double sum = 0, weight = 0, plain = 0;
    std::uint64_t n = 0;
    void add(double v, double w)
    {
        if (std::isnan(v))
            return;
        sum += v * w;
        weight += w;
        plain += v;
        ++n;
    }
    void merge(const WeightedMean& o)
    {
        sum += o.sum;
        weight += o.weight;
        plain += o.plain;
        n += o.n;
    }
    double value() const
    {
        if (n == 0)
            return kNaN;
        return weight > 0 ? sum / weight : plain / static_cast<double>(n);
    }
};

// Max over the present values of several columns; NaN when none is present.
double maxOf(const KernelTable& k, const std::vector<int>& cols, std::size_t row)
{
    double best = kNaN;
    for (int c : cols) {
        const double v = k.metric(c, row);
        if (!std::isnan(v) && (std::isnan(best) || v > best))
            best = v;
    }
    return best;
}

// Sum over the present values of several columns; NaN when none is present.
double sumOf(const KernelTable& k, const std::vector<int>& cols, std::size_t row)
{
    double s = kNaN;
    for (int c : cols) {
        const double v = k.metric(c, row);
        if (!std::isnan(v))
            s = std::isnan(s) ? v : s + v;
    }
    return s;
}

std::vector<int> present(const KernelTable& k, std::initializer_list<const char*> names)
{
    std::vector<int> out;
    for (const char* n : names)
        if (int i = k.metricIndex(std::string(n)); i >= 0)
            out.push_back(i);
    return out;
}

// Column indices resolved once per profile.
struct MetricColumns {
    int cube = -1, mac = -1, vec = -1, l2Rate = -1;
    std::vector<int> mte2, mte3, scalar, read, write, hits, misses;

    explicit MetricColumns(const KernelTable& k)
    {
        cube = k.metricIndex({"cube_utilization(%)"});
        mac = k.metricIndex({"aic_mac_ratio", "mac_ratio"});
        vec = k.metricIndex({"aiv_vec_ratio", "vec_ratio"});
        l2Rate = k.metricIndex({"l2_hit_rate"});
        mte2 = present(k, {"aic_mte2_ratio", "aiv_mte2_ratio", "mte2_ratio"});
        mte3 = present(k, {"aiv_mte3_ratio", "aic_mte3_ratio", "mte3_ratio"});
        scalar = present(k, {"aic_scalar_ratio", "aiv_scalar_ratio", "scalar_ratio"});
        read = present(k, {"aic_main_mem_read_bw(GB/s)", "aiv_main_mem_read_bw(GB/s)"});
        if (read.empty())
            read = present(k, {"main_mem_read_bw(GB/s)"});
        write = present(k, {"aic_main_mem_write_bw(GB/s)", "aiv_main_mem_write_bw(GB/s)"});
        if (write.empty())
            write = present(k, {"main_mem_write_bw(GB/s)"});
        for (std::size_t i = 0; i < k.metricNames.size(); ++i) {
            if (endsWith(k.metricNames[i], "_cache_hit"))
                hits.push_back(static_cast<int>(i));
            else if (endsWith(k.metricNames[i], "_cache_miss_allocate"))
                misses.push_back(static_cast<int>(i));
        }
    }
};

struct GroupAcc {
    OpGroupStats s;
    std::vector<TimeNs> durs;
    std::map<std::string, TimeNs> taskTypes; // task type -> Σ dur, for the dominant one
    WeightedMean util, l2Rate, read, write, mac, vec, mte2, mte3, scalar;
    double hits = 0, misses = 0;
    bool haveCounters = false;
    double self = 0; // Σ self time (generic slices), ns
    bool haveSelf = false;

    void merge(GroupAcc&& o, std::uint32_t profileIndex)
    {
        s.count += o.s.count;
        s.total += o.s.total;
        s.rows.insert(s.rows.end(), o.s.rows.begin(), o.s.rows.end());
        s.rowProfile.insert(s.rowProfile.end(), o.s.rows.size(), profileIndex);
        durs.insert(durs.end(), o.durs.begin(), o.durs.end());
        for (const auto& [type, total] : o.taskTypes)
            taskTypes[type] += total;
        using Pair = std::pair<WeightedMean*, const WeightedMean*>;
        for (auto [a, b] : std::initializer_list<Pair>{{&util, &o.util}, {&l2Rate, &o.l2Rate}, {&read, &o.read}, {&write, &o.write},
                            {&mac, &o.mac}, {&vec, &o.vec}, {&mte2, &o.mte2}, {&mte3, &o.mte3}, {&scalar, &o.scalar}})
            a->merge(*b);
        hits += o.hits;
        misses += o.misses;
        haveCounters = haveCounters || o.haveCounters;
        self += o.self;
        haveSelf = haveSelf || o.haveSelf;
    }
};

BoundType classify(const OpGroupStats& g, double peakHbmGBps)
{
    const bool haveRatios = !std::isnan(g.macRatio) || !std::isnan(g.vecRatio) || !std::isnan(g.mte2Ratio);
    double bwShare = kNaN;
    if (peakHbmGBps > 0 && (!std::isnan(g.readGBps) || !std::isnan(g.writeGBps)))
        bwShare = ((std::isnan(g.readGBps) ? 0 : g.readGBps) + (std::isnan(g.writeGBps) ? 0 : g.writeGBps))
                  / peakHbmGBps;
    const double mac = std::isnan(g.macRatio) ? 0 : g.macRatio;
    const bool memoryPressure = (!std::isnan(g.mte2Ratio) && g.mte2Ratio >= 0.8) || (!std::isnan(bwShare) && bwShare >= 0.6);
    if (memoryPressure && mac < 0.6)
        return BoundType::Memory;
    if ((!std::isnan(g.macRatio) && g.macRatio >= 0.8) || (!std::isnan(g.vecRatio) && g.vecRatio >= 0.8))
        return BoundType::Compute;
    if (haveRatios) {
        bool allLow = true;
        for (double r : {g.macRatio, g.vecRatio, g.mte2Ratio, g.mte3Ratio, g.scalarRatio})
            if (!std::isnan(r) && r > 0.8)
                allLow = false;
        if (allLow && g.avgNs < 20000.0)
            return BoundType::Latency;
    }
    return BoundType::Unknown;
}

// Clip [s, s+d) to the option range; false when the row does not overlap it.
bool clip(const OpStatsOptions& o, TimeNs s, TimeNs d, TimeNs& clipped)
{
    TimeNs b = s, e = s + d;
    if (o.rangeBegin) {
        if (e < *o.rangeBegin || (d > 0 && e == *o.rangeBegin))
            return false;
        b = std::max(b, *o.rangeBegin);
    }
    if (o.rangeEnd) {
        if (s >= *o.rangeEnd)
            return false;
        e = std::min(e, *o.rangeEnd);
    }
    clipped = std::max<TimeNs>(0, e - b);
    return true;
}

struct CollectedOps {
    std::vector<GroupAcc> groups;
    TimeNs deviceTotal = 0;
    std::uint64_t commCount = 0; // communication rows left out, inside the range
    TimeNs commTotal = 0;
    bool fromTimeline = false;
    bool genericSlices = false;
    std::set<std::string> utilSources;
};

// One kernel row's hardware metrics into its group, weighted by `w` (its time inside the range);
// counters scale with `frac`, the share of the task inside the range. The utilisation is
// cube_utilization, else the larger of the mac and vec ratios; `utilSources` names what was used.
void addKernelMetrics(const KernelTable& k, const MetricColumns& mc, std::size_t r, double w, double frac, GroupAcc& g,
                      std::set<std::string>& utilSources)
{
    const double cube = k.metric(mc.cube, r);
    if (!std::isnan(cube)) {
        g.util.add(cube / 100.0, w);
        utilSources.insert("cube_utilization(%)");
    } else {
        const double mac = k.metric(mc.mac, r), vec = k.metric(mc.vec, r);
        double u = kNaN;
        if (!std::isnan(mac) && (std::isnan(vec) || mac >= vec)) {
            u = mac;
            utilSources.insert(k.metricNames[mc.mac]);
        } else if (!std::isnan(vec)) {
            u = vec;
            utilSources.insert(k.metricNames[mc.vec]);
        }
        g.util.add(u, w);
    }
    const double h = sumOf(k, mc.hits, r), m = sumOf(k, mc.misses, r);
    if (!std::isnan(h) || !std::isnan(m)) {
        g.hits += (std::isnan(h) ? 0 : h) * frac;
        g.misses += (std::isnan(m) ? 0 : m) * frac;
        g.haveCounters = true;
    } else {
        g.l2Rate.add(k.metric(mc.l2Rate, r), w);
    }
    g.read.add(sumOf(k, mc.read, r), w);
    g.write.add(sumOf(k, mc.write, r), w);
    g.mac.add(k.metric(mc.mac, r), w);
    g.vec.add(k.metric(mc.vec, r), w);
    g.mte2.add(maxOf(k, mc.mte2, r), w);
    g.mte3.add(maxOf(k, mc.mte3, r), w);
    g.scalar.add(maxOf(k, mc.scalar, r), w);
}

// The rows being grouped: a group per key text, found by the interned id of a row's key
// without building the text (ids of one text, should a pool hold it twice, share its group).
struct Collector {
    const Profile& p;
    const OpStatsOptions& o;
    bool single; // every row in one group, "all"
    CollectedOps c{};
    std::unordered_map<std::string, std::size_t> index{};
    U64Map byId{};

    GroupAcc& groupFor(NameId id)
    {
        const std::uint32_t g = byId.memo(id.v, [&] {
            const std::string k = single ? std::string("all") : std::string(p.str(id));
            auto [it, inserted] = index.try_emplace(k, c.groups.size());
            if (inserted) {
                c.groups.emplace_back();
                c.groups.back().s.key = k;
                c.groups.back().s.rank = p.rank;
            }
            return it->second;
        });
        return c.groups[g];
    }
    // Counts a row of `d` ns (inside the range) in its group; false when that is all to do.
    bool count(GroupAcc& g, std::uint32_t row, TimeNs d)
    {
        ++g.s.count;
        g.s.total += d;
        c.deviceTotal += d;
        if (o.countsOnly)
            return false;
        g.s.rows.push_back(row);
        g.durs.push_back(d);
        return true;
    }
    // A communication row left out: counted apart when it overlaps the range.
    void leaveOut(TimeNs start, TimeNs dur)
    {
        if (TimeNs d = 0; clip(o, start, dur, d)) {
            ++c.commCount;
            c.commTotal += d;
        }
    }
};

void collectKernels(Collector& col)
{
    const Profile& p = col.p;
    const OpStatsOptions& o = col.o;
    const KernelTable& k = p.kernels;
    const MetricColumns mc(k);
    for (std::size_t r = 0; r < k.size(); ++r) {
        const std::string_view taskType = p.str(k.taskType[r]);
        const std::string_view type = p.str(k.type[r]);
        if (!o.includeCommunication && isCommunicationTask(taskType, type.empty() ? p.str(k.name[r]) : type)) {
            col.leaveOut(k.start[r], k.dur[r]);
            continue;
        }
        TimeNs d = 0;
        if (!clip(o, k.start[r], k.dur[r], d))
            continue;
        GroupAcc& g = col.groupFor(o.groupBy == GroupBy::Type ? k.type[r] : k.name[r]);
        if (!col.count(g, static_cast<std::uint32_t>(r), d))
            continue;
        g.taskTypes[std::string(taskType)] += d;
        const double w = static_cast<double>(d);
        // Counters scale with the share of the task inside the range.
        const double frac = k.dur[r] > 0 ? w / static_cast<double>(k.dur[r]) : 1.0;

        addKernelMetrics(k, mc, r, w, frac, g, col.c.utilSources);
    }
}

// A generic trace: every slice ranked by name, with its self time.
void collectGenericSlices(Collector& col)
{
    const Profile& p = col.p;
    col.c.genericSlices = true;
    for (const Track& t : p.tracks) {
        if (t.kind == TrackKind::Overlap)
            continue;
        for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r) {
            TimeNs d = 0;
            if (!clip(col.o, p.slices.start[r], p.slices.dur[r], d))
                continue;
            GroupAcc& g = col.groupFor(p.slices.name[r]);
            if (!col.count(g, r, d))
                continue;
            g.taskTypes[std::string(p.str(p.slices.category[r]))] += d;
            const TimeNs full = p.slices.dur[r];
            const double self = static_cast<double>(sliceSelfTime(p, r));
            g.self += full > 0 ? self * static_cast<double>(d) / static_cast<double>(full) : 0;
            g.haveSelf = true;
        }
    }
}

// No kernel table: device tasks of the timeline, without hardware metrics.
void collectTimeline(Collector& col)
{
    const Profile& p = col.p;
    col.c.fromTimeline = true;
    const bool anyDeviceTask = std::any_of(p.tracks.begin(), p.tracks.end(), [](const Track& t) {
        return t.kind == TrackKind::Stream && t.sliceEnd > t.sliceBegin;
    });
    if (!anyDeviceTask && col.o.rankGenericSlices) {
        collectGenericSlices(col);
        return;
    }
    for (const Track& t : p.tracks) {
        if (t.kind != TrackKind::Stream)
            continue;
        for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r) {
            const std::string_view cat = p.str(p.slices.category[r]);
            const std::string_view name = p.str(p.slices.name[r]);
            if (!col.o.includeCommunication && isCommunicationTask(cat, name)) {
                col.leaveOut(p.slices.start[r], p.slices.dur[r]);
                continue;
            }
            TimeNs d = 0;
            if (!clip(col.o, p.slices.start[r], p.slices.dur[r], d))
                continue;
            GroupAcc& g = col.groupFor(p.slices.name[r]);
            if (col.count(g, r, d))
                g.taskTypes[std::string(cat)] += d;
        }
    }
}

CollectedOps collect(const Profile& p, const OpStatsOptions& o, bool single)
{
    Collector col{p, o, single};
    if (p.kernels.size() > 0)
        collectKernels(col);
    else
        collectTimeline(col);
    return std::move(col.c);
}

OpGroupStats finish(GroupAcc& g, TimeNs deviceTotal, double peakHbmGBps)
{
    OpGroupStats s = std::move(g.s); // count and total as collected
    std::sort(g.durs.begin(), g.durs.end());
    if (!g.durs.empty()) {
        s.min = g.durs.front();
        s.max = g.durs.back();
    }
    if (s.count > 0)
        s.avgNs = static_cast<double>(s.total) / static_cast<double>(s.count);
    s.self = g.haveSelf ? static_cast<TimeNs>(std::llround(g.self)) : s.total;
    s.p50 = nearestRank(g.durs, 50);
    s.p90 = nearestRank(g.durs, 90);
    s.p99 = nearestRank(g.durs, 99);
    s.share = deviceTotal > 0 ? static_cast<double>(s.total) / static_cast<double>(deviceTotal) : 0;
    TimeNs best = -1;
    for (const auto& [type, total] : g.taskTypes)
        if (total > best) {
            best = total;
            s.taskType = type;
        }
    s.aicUtilization = g.util.value();
    if (g.haveCounters)
        s.l2HitRate = g.hits + g.misses > 0 ? g.hits / (g.hits + g.misses) : kNaN;
    else
        s.l2HitRate = g.l2Rate.value();
    s.readGBps = g.read.value();
    s.writeGBps = g.write.value();
    s.macRatio = g.mac.value();
    s.vecRatio = g.vec.value();
    s.mte2Ratio = g.mte2.value();
    s.mte3Ratio = g.mte3.value();
    s.scalarRatio = g.scalar.value();
    s.bound = classify(s, peakHbmGBps);
    return s;
}

// The names of the metrics a utilisation came from, as OpStatsResult::utilizationSource gives them.
std::string joined(const std::set<std::string>& sources)
{
    std::string out;
    for (const auto& src : sources)
        out += (out.empty() ? "" : ", ") + src;
    return out;
}

} // namespace

bool isCommunicationTask(std::string_view taskType, std::string_view typeOrName)
{
    return taskType == "HCCL" || taskType == "COMMUNICATION" || startsWithNoCase(typeOrName, "hcom");
}

bool isHcclTask(std::string_view taskType, std::string_view name)
{
    // Case-insensitive, '_' and ' ' alike: "Notify_Wait" = "Notify Wait".
    auto is = [](std::string_view s, std::string_view want, bool prefix) {
        if (s.size() < want.size() || (!prefix && s.size() != want.size()))
            return false;
        for (std::size_t i = 0; i < want.size(); ++i) {
            const char a = s[i] == '_' ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
            if (a != want[i])
                return false;
        }
        return true;
    };
    for (const std::string_view s : {taskType, name})
        if (is(s, "notify ", true) || is(s, "write value", false) || is(s, "reduce inline", false)
            || is(s, "rdma send", false))
            return true;
    return false;
}

bool isComputeTask(std::string_view taskType, std::string_view name)
{
    if (isCommunicationTask(taskType, name) || isHcclTask(taskType, name))
        return false;
    static constexpr std::string_view kCompute[] = {"AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV", "AI_CPU", "DSA_SQE"};
    for (const std::string_view t : kCompute)
        if (taskType == t)
            return true;
    if (taskType.rfind("KERNEL_", 0) == 0) // database TASK types: KERNEL_AICORE, KERNEL_AIVEC, ...
        return true;
    if (!taskType.empty() && taskType != "Other" && taskType != "OTHER")
        return false;
    return std::any_of(name.begin(), name.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

TimeNs nearestRank(const std::vector<TimeNs>& sorted, double p)
{
    if (sorted.empty())
        return 0;
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
    rank = std::clamp<std::size_t>(rank, 1, sorted.size());
    return sorted[rank - 1];
}

std::string commBaseName(std::string_view opName)
{
    std::string s(opName.substr(0, opName.find('@')));
    // Strip trailing "_<digits>" groups and the underscores left between them.
    for (;;) {
        std::size_t e = s.size();
        while (e > 0 && std::isdigit(static_cast<unsigned char>(s[e - 1])))
            --e;
        if (e < s.size() && e > 0 && s[e - 1] == '_') {
            s.resize(e - 1);
            while (!s.empty() && s.back() == '_')
                s.pop_back();
            continue;
        }
        break;
    }
    return s.empty() ? std::string(opName) : s;
}

OpStatsResult computeOpStats(const Profile& p, const OpStatsOptions& o)
{
    CollectedOps c = collect(p, o, false);
    OpStatsResult out;
    out.deviceTotal = c.deviceTotal;
    out.fromTimeline = c.fromTimeline;
    out.genericSlices = c.genericSlices;
    out.utilizationSource = joined(c.utilSources);
    out.communicationCount = c.commCount;
    out.communicationTotal = c.commTotal;
    out.groups.reserve(c.groups.size());
    for (auto& g : c.groups)
        out.groups.push_back(finish(g, c.deviceTotal, o.peakHbmGBps));
    std::sort(out.groups.begin(), out.groups.end(), [](const OpGroupStats& a, const OpGroupStats& b) {
        return a.total != b.total ? a.total > b.total : a.key < b.key;
    });
    return out;
}

OpGroupStats computeOverallStats(const Profile& p, const OpStatsOptions& o, std::string* utilizationSource)
{
    CollectedOps c = collect(p, o, true);
    if (utilizationSource)
        *utilizationSource = joined(c.utilSources);
    if (c.groups.empty()) {
        OpGroupStats empty;
        empty.key = "all";
        empty.rank = p.rank;
        return empty;
    }
    return finish(c.groups.front(), c.deviceTotal, o.peakHbmGBps);
}

std::vector<CommStats> computeCommStats(const Profile& p)
{
    std::vector<CommStats> out;
    std::unordered_map<std::string, std::size_t> index;
    auto statFor = [&](const std::string& key) -> CommStats& {
        auto [it, inserted] = index.try_emplace(key, out.size());
        if (inserted) {
            out.emplace_back();
            out.back().key = key;
            out.back().rank = p.rank;
        }
        return out[it->second];
    };
    bool any = false;
    for (const CommOp& op : p.commOps) {
        if (op.totalInfo)
            continue;
        any = true;
        CommStats& s = statFor(commBaseName(op.opName.empty() ? op.fullName : op.opName));
        ++s.count;
        if (!std::isnan(op.elapseMs))
            s.total += roundNs(op.elapseMs * 1e6);
        if (!std::isnan(op.waitMs))
            s.waitMs += op.waitMs;
        if (!std::isnan(op.transitMs))
            s.transitMs += op.transitMs;
        double rdma = 0, sdma = 0, links = 0;
        for (const CommBandwidth& b : op.bandwidth) {
            const double mb = std::isnan(b.sizeMB) ? 0 : b.sizeMB;
            const std::string_view t = p.str(b.transport);
            if (t == "RDMA")
                rdma += mb;
            else if (t == "SDMA")
                sdma += mb;
            else if (t == "HCCS" || t == "PCIE" || t == "SIO")
                links += mb;
        }
        // SDMA already counts what went over HCCS/PCIE/SIO; take the larger to avoid double counting.
        s.volumeGB += (rdma + std::max(sdma, links)) / 1000.0;
    }
    if (!any) {
        for (const Track& t : p.tracks) {
            if (t.kind != TrackKind::CommGroup)
                continue;
            for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r) {
                CommStats& s = statFor(commBaseName(p.str(p.slices.name[r])));
                ++s.count;
                s.total += p.slices.dur[r];
            }
        }
    }
    std::sort(out.begin(), out.end(), [](const CommStats& a, const CommStats& b) {
        return a.total != b.total ? a.total > b.total : a.key < b.key;
    });
    return out;
}

} // namespace npuscope

namespace npuscope {

OpStatsResult computeOpStatsAllRanks(const std::vector<ProfilePtr>& profiles, const OpStatsOptions& o)
{
    OpStatsResult out;
    out.profiles = static_cast<int>(profiles.size());
    std::vector<GroupAcc> merged;
    std::unordered_map<std::string, std::size_t> index;
    std::set<std::string> sources;
    TimeNs deviceTotal = 0;
    bool first = true;
    for (std::size_t i = 0; i < profiles.size(); ++i) {
        if (!profiles[i])
            continue;
        OpStatsOptions shifted;
        const bool shift = i < o.rangeShift.size() && o.rangeShift[i] != 0 && (o.rangeBegin || o.rangeEnd);
        if (shift) {
            shifted = o;
            if (shifted.rangeBegin)
                *shifted.rangeBegin += o.rangeShift[i];
            if (shifted.rangeEnd)
                *shifted.rangeEnd += o.rangeShift[i];
        }
        CollectedOps c = collect(*profiles[i], shift ? shifted : o, false);
        // A rank without a kernel table cannot be mixed with rows of one: the result follows
        // the first profile's kind of rows and counts the others' tasks the same way.
        if (first) {
            out.fromTimeline = c.fromTimeline;
            out.genericSlices = c.genericSlices;
            first = false;
        }
        deviceTotal += c.deviceTotal;
        out.communicationCount += c.commCount;
        out.communicationTotal += c.commTotal;
        sources.insert(c.utilSources.begin(), c.utilSources.end());
        for (GroupAcc& g : c.groups) {
            auto [it, inserted] = index.try_emplace(g.s.key, merged.size());
            if (inserted) {
                merged.emplace_back();
                merged.back().s.key = g.s.key;
                merged.back().s.rank = -1;
            }
            merged[it->second].merge(std::move(g), static_cast<std::uint32_t>(i));
        }
    }
    out.deviceTotal = deviceTotal;
    out.utilizationSource = joined(sources);
    for (auto& g : merged)
        out.groups.push_back(finish(g, deviceTotal, o.peakHbmGBps));
    std::sort(out.groups.begin(), out.groups.end(), [](const OpGroupStats& a, const OpGroupStats& b) {
        return a.total != b.total ? a.total > b.total : a.key < b.key;
    });
    return out;
}

} // namespace npuscope
