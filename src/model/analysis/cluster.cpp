#include "model/analysis/cluster.h"

#include "model/analysis/op_stats.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

namespace npuscope {

double medianOf(std::vector<double> v)
{
    if (v.empty())
        return kNaN;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const MatrixCell* CommMatrix::cell(int src, int dst) const
{
    auto it = std::lower_bound(cells.begin(), cells.end(), std::make_pair(src, dst), [](const MatrixCell& c, const auto& k) {
        return std::make_pair(c.src, c.dst) < k;
    });
    return it != cells.end() && it->src == src && it->dst == dst ? &*it : nullptr;
}

const char* matrixMetricName(MatrixMetric m)
{
    switch (m) {
    case MatrixMetric::Bandwidth: return "Bandwidth (GB/s)";
    case MatrixMetric::Size: return "Transit size (MB)";
    case MatrixMetric::Time: return "Transit time (ms)";
    case MatrixMetric::Transport: return "Transport type";
    }
    return "";
}

const std::vector<std::string>& transportNames()
{
    static const std::vector<std::string> names{"LOCAL", "HCCS", "PCIE", "SDMA", "RDMA", "SIO", "other"};
    return names;
}

int transportIndex(const std::string& transport)
{
    const auto& n = transportNames();
    for (std::size_t i = 0; i + 1 < n.size(); ++i)
        if (n[i] == transport)
            return static_cast<int>(i);
    return static_cast<int>(n.size()) - 1;
}

double matrixValue(const MatrixCell& c, MatrixMetric m)
{
    switch (m) {
    case MatrixMetric::Bandwidth: return c.bandwidthGBps();
    case MatrixMetric::Size: return c.sizeMB;
    case MatrixMetric::Time: return c.timeMs;
    case MatrixMetric::Transport: return c.transport.empty() ? kNaN : static_cast<double>(transportIndex(c.transport));
    }
    return kNaN;
}

bool SlowRankResult::fired() const
{
    return std::any_of(dimensions.begin(), dimensions.end(), [](const SlowRankDimension& d) { return d.fired; });
}

std::vector<const RankTransportBandwidth*> SlowLinkResult::slow() const
{
    std::vector<const RankTransportBandwidth*> out;
    for (const auto& r : rows)
        if (r.slow)
            out.push_back(&r);
    return out;
}

int ClusterAnalysis::rankIndexOf(int rank) const
{
    for (const auto& r : ranks)
        if (r.rank == rank)
            return r.rankIndex;
    return -1;
}

SlowRankResult findSlowRank(const std::vector<RankTimes>& ranks, double gapRatio, int lastArriver)
{
    SlowRankResult out;
    out.gapRatio = gapRatio;
    if (ranks.size() < 2)
        return out;
    out.checked = true;
    double sumMean = 0;
    for (const auto& r : ranks)
        sumMean += static_cast<double>(r.split.stepTime);
    sumMean /= static_cast<double>(ranks.size());
    out.meanStep = sumMean;
    for (int d = 0; d < 3; ++d) {
        SlowRankDimension dim;
        dim.name = d == 0 ? "Computing" : (d == 1 ? "Communication(Not Overlapped)" : "Free");
        auto val = [d](const RankTimes& r) {
            return static_cast<double>(d == 0 ? r.split.computing : (d == 1 ? r.split.commNotOverlapped : r.split.free));
        };
        std::vector<double> v;
        for (const auto& r : ranks)
            v.push_back(val(r));
        const auto [mnIt, mxIt] = std::minmax_element(v.begin(), v.end());
        dim.min = *mnIt;
        dim.max = *mxIt;
        dim.median = medianOf(v);
        dim.spread = sumMean > 0 ? (dim.max - dim.min) / sumMean : 0;
        dim.fired = dim.spread > gapRatio;
        std::size_t slow = static_cast<std::size_t>((d == 1 ? mnIt : mxIt) - v.begin());
        if (d == 1 && lastArriver >= 0)
            for (std::size_t i = 0; i < ranks.size(); ++i)
                if (ranks[i].rank == lastArriver)
                    slow = i;
        dim.slowRank = ranks[slow].rank;
        dim.value = v[slow];
        dim.excess = dim.max - dim.median;
        out.dimensions.push_back(std::move(dim));
    }
    return out;
}

std::vector<RankTransportBandwidth> rankTransportTotals(const Session& s, std::string* source)
{
    std::map<std::pair<std::string, int>, std::pair<double, double>> acc; // (transport, rank) -> (MB, ms)
    auto add = [&](const CommOp& o, int rank, const StringPool& pool) {
        if (o.totalInfo || rank < 0)
            return;
        for (const auto& b : o.bandwidth) {
            if (!(b.sizeMB > 0) || !(b.timeMs > 0))
                continue;
            auto& a = acc[{std::string(pool.view(b.transport)), rank}];
            a.first += b.sizeMB;
            a.second += b.timeMs;
        }
    };
    if (!s.cluster.comm.empty()) {
        for (const auto& o : s.cluster.comm)
            add(o, o.rank, s.cluster.strings);
        if (source)
            *source = "cluster_communication.json";
    } else {
        for (std::size_t i = 0; i < s.ranks.size(); ++i) {
            const Profile& p = *s.ranks[i];
            for (const auto& o : p.commOps)
                add(o, p.rank >= 0 ? p.rank : static_cast<int>(i), p.strings);
        }
        if (source)
            *source = "ranks' communication.json";
    }
    std::vector<RankTransportBandwidth> out;
    for (const auto& [k, a] : acc) {
        RankTransportBandwidth r;
        r.transport = k.first;
        r.rank = k.second;
        r.sizeMB = a.first;
        r.timeMs = a.second;
        out.push_back(std::move(r));
    }
    return out;
}

SlowLinkResult findSlowLinks(std::vector<RankTransportBandwidth> totals, double bwRatio)
{
    SlowLinkResult out;
    out.bwRatio = bwRatio;
    std::sort(totals.begin(), totals.end(), [](const auto& a, const auto& b) {
        return std::tie(a.transport, a.rank) < std::tie(b.transport, b.rank);
    });
    std::map<std::string, std::vector<double>> bws;
    for (const auto& r : totals)
        if (!r.transport.empty() && r.timeMs > 0)
            bws[r.transport].push_back(r.bandwidthGBps());
    for (auto& r : totals) {
        auto it = bws.find(r.transport);
        if (it == bws.end() || it->second.size() < 2)
            continue;
        r.median = medianOf(it->second);
        r.slow = r.bandwidthGBps() < bwRatio * r.median;
        out.rows.push_back(r);
    }
    out.checked = !out.rows.empty();
    return out;
}

namespace {

int rankIdOf(const Session& s, std::size_t i)
{
    return s.ranks[i]->rank >= 0 ? s.ranks[i]->rank : static_cast<int>(i);
}

void addBubble(const Profile& p, RankBreakdown& b)
{
    double bubble = 0;
    int n = 0;
    for (const StepRow& row : p.steps)
        if (row.type.empty() || row.type == "rank") {
            bubble += row.bubble ? static_cast<double>(*row.bubble) : 0;
            ++n;
        }
    b.bubble = n ? bubble / n : 0;
}

struct LinkAcc {
    std::map<std::string, double> bytesByTransport;
    MatrixCell cell;
};

// True for a link group that repeats transfers other groups of its step already count: the
// "Total Op Info" summary of every op, and torch_npu's sampled ops ("allreduce-top1",
// "-middle", "-bottom1".."-bottom3", which may name one op twice) beside their "-total".
bool isRepeatedLink(std::string_view collective)
{
    if (collective == "Total Op Info")
        return true;
    const auto dash = collective.rfind('-');
    if (dash == std::string_view::npos)
        return false;
    std::string_view tag = collective.substr(dash + 1);
    if (tag == "middle")
        return true;
    for (std::string_view sampled : {std::string_view("top"), std::string_view("bottom")})
        if (tag.starts_with(sampled)) {
            tag.remove_prefix(sampled.size());
            return !tag.empty() && std::all_of(tag.begin(), tag.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        }
    return false;
}

void buildMatrices(const Session& s, ClusterAnalysis& a, double bwRatio)
{
    // Every link once: (step, op, src, dst).
    std::set<std::tuple<std::string, std::string, int, int>> seen;
    std::map<std::string, std::map<std::pair<int, int>, LinkAcc>> groups; // collective -> (src, dst) -> cell
    std::set<int> ranks;
    auto add = [&](const CommLink& l, const StringPool& pool) {
        if (l.src < 0 || l.dst < 0
            || !seen.insert({pool.str(l.step), pool.str(l.fullName), l.src, l.dst}).second)
            return;
        const std::string coll = commBaseName(pool.str(pool.view(l.opName).empty() ? l.fullName : l.opName));
        const std::string transport(pool.view(l.transport));
        const bool inAll = !isRepeatedLink(coll);
        for (const std::string& g : {std::string("All"), coll}) {
            if (g == "All" && !inAll)
                continue;
            LinkAcc& c = groups[g][{l.src, l.dst}];
            c.cell.src = l.src;
            c.cell.dst = l.dst;
            const double mb = !isMissing(l.sizeMB) ? l.sizeMB : 0;
            c.cell.sizeMB += mb;
            c.cell.timeMs += !isMissing(l.timeMs) ? l.timeMs : 0;
            c.cell.links += static_cast<int>(l.count);
            c.bytesByTransport[transport] += mb;
        }
        ranks.insert(l.src);
        ranks.insert(l.dst);
    };
    if (!s.cluster.links.empty()) {
        for (const auto& l : s.cluster.links)
            add(l, s.cluster.strings);
        a.matrixSource = "cluster_communication_matrix.json";
    } else {
        for (const auto& p : s.ranks)
            for (const auto& l : p->commLinks)
                add(l, p->strings);
        a.matrixSource = "ranks' communication_matrix.json";
    }
    a.matrixRanks.assign(ranks.begin(), ranks.end());
    auto make = [&](const std::string& name, std::map<std::pair<int, int>, LinkAcc>& cells) {
        CommMatrix m;
        m.collective = name;
        for (auto& [k, acc] : cells) {
            // The transport carrying the most bytes (first by name on a tie).
            double best = -1;
            for (const auto& [t, mb] : acc.bytesByTransport)
                if (mb > best) {
                    best = mb;
                    acc.cell.transport = t;
                }
            m.cells.push_back(acc.cell);
        }
        // Slow cells: below bwRatio × the median of the group's cells on the same transport.
        std::map<std::string, std::vector<double>> bws;
        for (const auto& c : m.cells)
            if (c.transport != "LOCAL" && c.timeMs > 0)
                bws[c.transport].push_back(c.bandwidthGBps());
        std::map<std::string, double> medians; // once per transport, not per cell
        for (auto& [t, v] : bws)
            if (v.size() >= 2)
                medians[t] = medianOf(v);
        for (auto& c : m.cells) {
            auto it = medians.find(c.transport);
            if (c.transport == "LOCAL" || it == medians.end() || !(c.timeMs > 0))
                continue;
            c.slow = c.bandwidthGBps() < bwRatio * it->second;
        }
        a.matrices.push_back(std::move(m));
    };
    if (groups.empty())
        return;
    make("All", groups["All"]);
    for (auto& [name, cells] : groups)
        if (name != "All")
            make(name, cells);
}

} // namespace

namespace {

// A rank id written as text (the cluster file's Index); false when it is not a number.
bool parseRankId(const std::string& index, int& rank)
{
    if (index.empty())
        return false;
    char* end = nullptr;
    const long r = std::strtol(index.c_str(), &end, 10);
    if (end == index.c_str())
        return false;
    rank = static_cast<int>(r);
    return true;
}

// cluster_step_trace_time.csv's rank rows: per rank, the mean Bubble per step.
std::map<int, double> clusterBubbles(const Session& s)
{
    std::map<int, std::pair<double, int>> acc;
    for (const StepRow& row : s.cluster.stepTrace) {
        int r = -1;
        if (row.type != "rank" || !row.computing || !parseRankId(row.index, r))
            continue;
        acc[r].first += row.bubble ? static_cast<double>(*row.bubble) : 0.0;
        ++acc[r].second;
    }
    std::map<int, double> out;
    for (const auto& [r, a] : acc)
        out[r] = a.first / a.second;
    return out;
}

// A rank's breakdown from its steps: T and the median complete step's split (overlap.h), with the
// overlapped and whole communication time of that same step.
RankBreakdown breakdownOf(const OverlapResult& ov, std::string source)
{
    RankBreakdown b;
    b.split = stepSplit(ov);
    b.overlapped = static_cast<double>(ov.typical.overlapped);
    b.communication = static_cast<double>(ov.typical.communication);
    b.source = std::move(source);
    return b;
}

// The breakdown of a rank's cluster step trace rows.
RankBreakdown fromClusterRows(std::vector<StepBreakdown> steps, double bubble)
{
    OverlapResult ov;
    ov.steps = std::move(steps);
    ov.stepTimeSource = "cluster_step_trace_time";
    finishSteps(ov);
    RankBreakdown b = breakdownOf(ov, "cluster_step_trace_time");
    b.bubble = bubble;
    return b;
}

// The breakdown of a rank's own steps; no source when it has none.
RankBreakdown fromOwnSteps(const Profile& p, const OverlapResult& ov)
{
    if (ov.source == OverlapSource::None || ov.steps.empty())
        return {};
    RankBreakdown b = breakdownOf(ov, overlapSourceName(ov.source));
    if (ov.source == OverlapSource::StepTrace)
        addBubble(p, b);
    return b;
}

// Per collective (by base name): per rank its time and the part of it computation covered.
struct CollectiveTimes {
    std::map<std::string, std::map<int, std::pair<TimeNs, TimeNs>>> perRank; // name -> rank -> (dur, covered)
    std::map<std::string, int> count;
};

// Each collective's totals and the ranks where computation covered the least and most of it,
// largest communication first.
std::vector<CollectiveOverlapStats> collectiveStats(const CollectiveTimes& t)
{
    std::vector<CollectiveOverlapStats> out;
    for (const auto& [name, perRank] : t.perRank) {
        CollectiveOverlapStats c;
        c.collective = name;
        c.count = t.count.at(name);
        for (const auto& [rank, dc] : perRank) {
            c.communication += dc.first;
            c.covered += dc.second;
            if (dc.first <= 0)
                continue;
            const double r = static_cast<double>(dc.second) / static_cast<double>(dc.first);
            if (c.minRank < 0 || r < c.minRatio) {
                c.minRatio = r;
                c.minRank = rank;
            }
            if (c.maxRank < 0 || r > c.maxRatio) {
                c.maxRatio = r;
                c.maxRank = rank;
            }
        }
        out.push_back(std::move(c));
    }
    std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.communication > y.communication; });
    return out;
}

} // namespace

std::map<int, std::vector<StepBreakdown>> clusterRankSteps(const ClusterData& cl)
{
    std::map<int, std::vector<StepBreakdown>> out;
    for (const StepRow& row : cl.stepTrace) {
        int r = -1;
        if (row.type != "rank" || !row.computing || !parseRankId(row.index, r))
            continue;
        StepBreakdown b;
        b.step = row.step;
        b.computing = *row.computing;
        b.commNotOverlapped = row.commNotOverlapped.value_or(0);
        b.overlapped = row.overlapped.value_or(0);
        b.communication = row.communication ? *row.communication : b.overlapped + b.commNotOverlapped;
        b.free = row.free.value_or(0);
        out[r].push_back(std::move(b));
    }
    return out;
}

ClusterAnalysis analyzeCluster(const Session& s, const ClusterOptions& o)
{
    ClusterAnalysis a;
    const std::map<int, std::vector<StepBreakdown>> stt = clusterRankSteps(s.cluster);
    const std::map<int, double> bubbles = clusterBubbles(s);
    const auto bubbleOf = [&bubbles](int r) {
        const auto it = bubbles.find(r);
        return it == bubbles.end() ? 0.0 : it->second;
    };
    std::set<std::string> sources;
    std::map<int, RankBreakdown> byRank;
    CollectiveTimes coll;
    for (std::size_t i = 0; i < s.ranks.size(); ++i) {
        const Profile& p = *s.ranks[i];
        const int rank = rankIdOf(s, i);
        const OverlapResult ov = computeOverlap(p);
        const auto it = stt.find(rank);
        RankBreakdown b = it != stt.end() ? fromClusterRows(it->second, bubbleOf(rank)) : fromOwnSteps(p, ov);
        b.rank = rank;
        b.rankIndex = static_cast<int>(i);
        if (!b.source.empty())
            sources.insert(b.source);
        byRank[rank] = b;

        RankOverlap ro;
        ro.rank = rank;
        ro.rankIndex = static_cast<int>(i);
        for (const CollectiveOverlap& c : ov.collectives) {
            ++ro.collectives;
            ro.communication += c.dur;
            ro.covered += c.covered;
            const std::string name = commBaseName(c.name);
            auto& pr = coll.perRank[name][rank];
            pr.first += c.dur;
            pr.second += c.covered;
            ++coll.count[name];
        }
        a.rankOverlap.push_back(ro);
    }
    // Ranks only in the cluster file.
    for (const auto& [r, steps] : stt)
        if (!byRank.count(r)) {
            byRank[r] = fromClusterRows(steps, bubbleOf(r));
            byRank[r].rank = r;
            sources.insert(byRank[r].source);
        }
    for (auto& [r, b] : byRank)
        a.ranks.push_back(b);
    for (const auto& src : sources)
        a.breakdownSource += (a.breakdownSource.empty() ? "" : ", ") + src;
    std::sort(a.rankOverlap.begin(), a.rankOverlap.end(), [](const auto& x, const auto& y) { return x.rank < y.rank; });
    a.collectiveOverlap = collectiveStats(coll);

    buildMatrices(s, a, o.bwRatio);

    std::vector<RankTimes> times;
    for (const auto& b : a.ranks)
        if (!b.source.empty() && b.stepTime() > 0)
            times.push_back({b.rank, b.split});
    a.slowRank = findSlowRank(times, o.gapRatio);
    a.slowLink = findSlowLinks(rankTransportTotals(s, &a.slowLinkSource), o.bwRatio);
    return a;
}

} // namespace npuscope
