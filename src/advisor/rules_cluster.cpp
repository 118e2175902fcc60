// Cluster rules (≥ 2 ranks): slow rank, slow link, RDMA retransmission.
#include "advisor/rule_helpers.h"
#include "model/analysis/cluster.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

namespace npuscope::advisor {

namespace {

// Every rank's comm ops: the cluster file when present, else each rank's communication.json.
// Transport names are interned in a pool: a rank's own, or (cluster file) ClusterData::strings.
struct OpRef {
    const CommOp* op;
    int rank;
    const StringPool* pool;
    std::string transport(const CommBandwidth& b) const { return pool ? std::string(pool->view(b.transport)) : std::string(); }
};

// Whether the cluster_analysis_output files describe the loaded ranks. They do not when they are
// older than a rank's files (the ranks were profiled again) or disagree with them (other ranks,
// other step times); the cluster rules then recompute from the ranks and say so.
struct ClusterInputs {
    bool use = false;
    std::string note; // why the cluster files were not used ("" when used or absent)
};

// A rank's mean Computing over all its steps: cluster_step_trace_time.csv checked against the
// rank's own rows, the same statistic on both sides (the rules take T, the median step).
struct MeanSplit {
    double comp = 0, comm = 0, free = 0;
};
MeanSplit meanSplit(const RankFacts& r)
{
    MeanSplit m;
    for (const RankStep& s : r.steps) {
        m.comp += static_cast<double>(s.split.computing);
        m.comm += static_cast<double>(s.split.commNotOverlapped);
        m.free += static_cast<double>(s.split.free);
    }
    if (const double n = static_cast<double>(r.steps.size()); n > 0) {
        m.comp /= n;
        m.comm /= n;
        m.free /= n;
    }
    return m;
}

std::string fileName(const std::string& path)
{
    const auto pos = path.find_last_of('/');
    return pos == std::string::npos ? path : path.substr(pos + 1);
}

std::string durationText(double seconds)
{
    if (seconds < 120)
        return fmtNum(seconds, 0) + " s";
    if (seconds < 7200)
        return fmtNum(seconds / 60, 0) + " min";
    if (seconds < 172800)
        return fmtNum(seconds / 3600, 1) + " h";
    return fmtNum(seconds / 86400, 1) + " days";
}

ClusterInputs clusterInputs(const RuleCtx& c)
{
    ClusterInputs ci;
    const ClusterData& cl = c.session.cluster;
    if (!cl.present())
        return ci;
    namespace fs = std::filesystem;
    auto mtime = [](const std::string& path, fs::file_time_type& t) {
        std::error_code ec;
        t = fs::last_write_time(path, ec);
        return !ec;
    };
    // Oldest cluster file against the newest rank file.
    std::string oldPath, newPath;
    fs::file_time_type oldT{}, newT{};
    for (const auto& f : c.session.files) {
        fs::file_time_type t;
        if (f.has(FileRole::Cluster) && f.status != FileStatus::NotRead && f.status != FileStatus::Ignored
            && mtime(f.path, t) && (oldPath.empty() || t < oldT)) {
            oldT = t;
            oldPath = f.path;
        }
    }
    for (const auto& r : c.all)
        for (const auto& f : r.p.files) {
            fs::file_time_type t;
            if (wasRead(f) && mtime(f.path, t)
                && (newPath.empty() || t > newT)) {
                newT = t;
                newPath = f.path;
            }
        }
    // A copied folder gets its files' dates in copy order: only a clear lead of the rank files
    // (more than 5 minutes, e.g. the job profiled again) makes the cluster output stale.
    if (!oldPath.empty() && !newPath.empty() && newT - oldT > std::chrono::minutes(5)) {
        const double s = std::chrono::duration<double>(newT - oldT).count();
        ci.note = "cluster_analysis_output is stale: " + fileName(oldPath) + " was written " + durationText(s) + " before "
                  + fileName(newPath) + " (" + newPath + "); recomputed from the ranks";
        return ci;
    }
    // Rank set and per-rank Computing against the ranks' own step_trace_time.csv.
    std::map<int, std::pair<double, int>> comp;
    for (const auto& row : cl.stepTrace)
        if (row.type == "rank" && row.computing) {
            auto& a = comp[std::atoi(row.index.c_str())];
            a.first += static_cast<double>(*row.computing);
            ++a.second;
        }
    std::set<int> loaded;
    for (const auto& r : c.all)
        if (r.rank >= 0 && r.hasStepTrace)
            loaded.insert(r.rank);
    if (!comp.empty() && loaded.size() >= 2) {
        std::set<int> inCluster;
        for (const auto& [r, a] : comp)
            inCluster.insert(r);
        auto list = [](const std::set<int>& v) {
            std::string out;
            for (int r : v)
                out += (out.empty() ? "" : ",") + std::to_string(r);
            return out;
        };
        if (inCluster != loaded) {
            ci.note = "cluster_step_trace_time.csv covers ranks " + list(inCluster) + " but the folder has ranks " + list(loaded)
                      + "; recomputed from the ranks";
            return ci;
        }
        for (const auto& r : c.all) {
            const auto it = comp.find(r.rank);
            const double own = meanSplit(r).comp;
            if (!r.hasStepTrace || it == comp.end() || !(own > 0))
                continue;
            const double cm = it->second.first / it->second.second;
            if (std::abs(cm - own) > 0.01 * own) {
                ci.note = "cluster_step_trace_time.csv gives rank " + std::to_string(r.rank) + " Computing " + fmtMs(cm)
                          + "/step, its step_trace_time.csv " + fmtMs(own) + "; recomputed from the ranks";
                return ci;
            }
        }
    }
    ci.use = true;
    return ci;
}

std::vector<OpRef> allCommOps(const RuleCtx& c, const ClusterInputs& ci)
{
    std::vector<OpRef> out;
    if (ci.use && !c.session.cluster.comm.empty()) {
        for (const auto& o : c.session.cluster.comm)
            if (!o.totalInfo)
                out.push_back({&o, o.rank, &c.session.cluster.strings});
        return out;
    }
    for (const auto& f : c.all)
        for (const auto& o : f.p.commOps)
            if (!o.totalInfo)
                out.push_back({&o, f.rank, &f.p.strings});
    return out;
}

std::string commSource(const RuleCtx& c, const ClusterInputs& ci)
{
    return ci.use && !c.session.cluster.comm.empty() ? "cluster_communication.json" : "ranks' communication.json";
}

// The ranks' step splits (T, the median of the complete steps, and that step's split, as the
// cluster analysis takes them): cluster_step_trace_time.csv when it has two ranks or more, else
// each rank's own breakdown. `unnamed` counts the profiles left out for want of a rank id.
std::vector<RankTimes> rankSplits(const RuleCtx& c, const ClusterInputs& ci, std::string& source, std::size_t& unnamed)
{
    std::vector<RankTimes> ranks;
    if (ci.use) {
        const std::map<int, std::vector<StepBreakdown>> rows = clusterRankSteps(c.session.cluster);
        if (rows.size() >= 2) {
            source = "cluster_step_trace_time.csv";
            for (const auto& [r, steps] : rows)
                ranks.push_back({r, stepSplit(steps, source)});
            return ranks;
        }
    }
    source = "each rank's step breakdown";
    std::set<int> seen;
    for (const auto& f : c.all)
        if (f.stepTime > 0) {
            if (f.rank < 0 || !seen.insert(f.rank).second) {
                ++unnamed;
                continue;
            }
            ranks.push_back({f.rank, stepSplit(f.overlap)});
        }
    return ranks;
}

// Last arriver per collective: the rank whose time in it is a statistical outlier below the
// others (it waited least because the others waited for it).
struct LastArrivals {
    std::map<int, int> count; // rank -> collectives it arrived last in
    std::size_t tested = 0;   // collectives on three ranks or more
    int top = -1;             // the rank most often last, -1 for none
    std::string text;         // what the description and the check say; empty when none was tested
};

LastArrivals lastArrivals(const RuleCtx& c, const ClusterInputs& ci)
{
    LastArrivals out;
    std::map<std::pair<std::string, std::string>, std::vector<std::pair<int, double>>> perOp;
    for (const OpRef& r : allCommOps(c, ci))
        if (!isMissing(r.op->elapseMs) && r.rank >= 0)
            perOp[{r.op->step, r.op->fullName}].emplace_back(r.rank, r.op->elapseMs);
    std::string testName;
    for (const auto& [k, v] : perOp) {
        if (v.size() < 3)
            continue;
        ++out.tested;
        std::vector<double> t;
        for (const auto& [rank, ms] : v)
            t.push_back(ms);
        std::string method;
        for (std::size_t i : lastArrivers(t, &method))
            ++out.count[v[i].first];
        if (testName.empty())
            testName = v.size() <= 100 ? "Dixon's Q test at 99.5 %" : "3σ below the mean";
    }
    for (const auto& [rank, n] : out.count)
        if (out.top < 0 || n > out.count[out.top])
            out.top = rank;
    if (out.tested == 0)
        return out;
    out.text = out.top < 0 ? "no rank is a significant last arriver in " + std::to_string(out.tested) + " collectives ("
                                 + testName + ")"
                           : "rank " + std::to_string(out.top) + " is the last arriver in "
                                 + std::to_string(out.count[out.top]) + " of " + std::to_string(out.tested)
                                 + " collectives (" + testName + ")";
    return out;
}

// Fires the finding of one dimension (0 Computing, 1 Communication, 2 Free) with a slow rank.
void fireSlowRank(RuleOut& out, int d, const SlowRankDimension& dim, const std::vector<RankTimes>& ranks,
                  const std::string& source, LastArrivals& last, double gapRatio)
{
    const std::string& name = dim.name;
    auto val = [d](const RankTimes& r) {
        return static_cast<double>(d == 0 ? r.split.computing : (d == 1 ? r.split.commNotOverlapped : r.split.free));
    };
    const double gap = dim.spread;
    const double med = dim.median;
    const int slowRankId = dim.slowRank;
    Finding& fd = out.fire(std::string(d == 0 ? "computing" : (d == 1 ? "communication" : "free")));
    if (d == 1)
        fd.gainFrom = Category::Communication; // the time the others wait in collectives
    else if (d == 2)
        fd.gainFrom = Category::Scheduling; // free time, as the idle and host-bound findings'
    fd.scope.ranks = {slowRankId};
    fd.costNs = roundNs(dim.excess);
    fd.title = "Rank " + std::to_string(slowRankId) + " slow in " + name + ": "
               + (d == 1 ? "shortest communication (" + fmtMs(dim.value) + ", arrives last)"
                         : fmtMs(dim.value) + " vs median " + fmtMs(med) + " (+" + fmtPct(med > 0 ? dim.value / med - 1 : 0) + ")");
    fd.description = name + std::string(" differs across ") + std::to_string(ranks.size()) + " ranks by " + fmtPct(gap)
                     + " of the ranks' mean T (threshold " + fmtPct(gapRatio) + "); the others wait for rank "
                     + std::to_string(slowRankId) + " at the next collective."
                     + (last.text.empty() ? std::string() : " Per collective, " + last.text + ".");
    if (d == 0)
        fd.suggestions.push_back("Computing: balance the work (uneven sequence lengths, pipeline stages) or check "
                                 "rank " + std::to_string(slowRankId) + "'s card (frequency, temperature).");
    else if (d == 2)
        fd.suggestions.push_back("Free: look at rank " + std::to_string(slowRankId) + "'s host (data loading, CPU "
                                 "binding, GC).");
    else
        fd.suggestions.push_back("Communication: see CLU-SLOWLINK for a slow link; otherwise the rank arrives late "
                                 "because of its computation or host.");
    setGain(fd, dim.excess, "max " + fmtMs(dim.max) + " − median " + fmtMs(med) + " = " + fmtMs(dim.excess));
    for (const auto& r : ranks) {
        Evidence e;
        e.at.rank = r.rank;
        e.at.row = source + " rank " + std::to_string(r.rank);
        e.metrics = {{"Computing", static_cast<double>(r.split.computing) / 1e6, "ms"},
                     {"Comm(NO)", static_cast<double>(r.split.commNotOverlapped) / 1e6, "ms"},
                     {"Free", static_cast<double>(r.split.free) / 1e6, "ms"}};
        if (last.count.count(r.rank))
            e.metrics.push_back({"last arriver in", static_cast<double>(last.count[r.rank]), "collectives"});
        e.threshold = "(max − min)/mean T > " + fmtPct(gapRatio);
        e.cost = roundNs(std::abs(val(r) - med));
        fd.evidence.push_back(std::move(e));
    }
    sortEvidence(fd.evidence);
}

void slowRank(const RuleCtx& c, RuleOut& out)
{
    std::string source;
    std::size_t unnamed = 0; // profiles without a rank id of their own: not ranks of one run
    const ClusterInputs ci = clusterInputs(c);
    const std::vector<RankTimes> ranks = rankSplits(c, ci, source, unnamed);
    if (const int need = std::max(2, c.th.minRanks()); static_cast<int>(ranks.size()) < need)
        return out.notChecked("needs ≥ " + std::to_string(need)
                              + (unnamed > 0 ? " ranks of one run: " + std::to_string(unnamed)
                                                   + " of the profiles have no rank id of their own "
                                                     "(profiler_info_N.json, a cluster folder)"
                                             : std::string(" ranks (a cluster folder, or cluster_step_trace_time.csv)")));
    out.inputs.push_back(source + " (" + std::to_string(ranks.size()) + " ranks)");
    if (!ci.note.empty())
        out.inputs.push_back(ci.note);
    const double gapRatio = c.param("gap_ratio");
    LastArrivals last = lastArrivals(c, ci);
    if (last.tested)
        out.inputs.push_back(commSource(c, ci) + ": Elapse Time of " + std::to_string(last.tested) + " collectives on ≥ 3 ranks");
    // The spread test itself is the cluster analysis' (the Cluster tab shows the same result).
    // Computing/Free: the rank with the most is slow. Communication: the one most often a
    // significant last arriver, else the one with the least (it waited least).
    const SlowRankResult sr = findSlowRank(ranks, gapRatio, last.top);
    std::string check;
    for (int d = 0; d < 3; ++d) {
        const SlowRankDimension& dim = sr.dimensions[static_cast<std::size_t>(d)];
        check += (check.empty() ? "" : ", ") + dim.name + " spread " + fmtPct(dim.spread);
        if (dim.fired)
            fireSlowRank(out, d, dim, ranks, source, last, gapRatio);
    }
    if (out.fired.empty())
        out.pass(check + " (threshold " + fmtPct(gapRatio) + ")" + (last.text.empty() ? std::string() : "; " + last.text));
}

void slowLink(const RuleCtx& c, RuleOut& out)
{
    const ClusterInputs ci = clusterInputs(c);
    const auto ops = allCommOps(c, ci);
    std::map<std::string, std::map<int, std::pair<double, double>>> acc; // transport -> rank -> (MB, ms)
    for (const OpRef& r : ops)
        for (const auto& b : r.op->bandwidth) {
            if (!(b.sizeMB > 0) || !(b.timeMs > 0) || r.rank < 0)
                continue;
            const std::string t = r.transport(b);
            auto& a = acc[t][r.rank];
            a.first += b.sizeMB;
            a.second += b.timeMs;
        }
    std::size_t ranks = 0;
    for (const auto& [t, m] : acc)
        ranks = std::max(ranks, m.size());
    if (ranks < 2)
        return out.notChecked("needs ≥ 2 ranks with communication.json or cluster_communication.json");
    out.inputs.push_back(commSource(c, ci) + ": Transit Size/Time per transport");
    if (!ci.note.empty())
        out.inputs.push_back(ci.note);
    const double ratio = c.param("bw_ratio");
    std::string check;
    for (const auto& [t, m] : acc) {
        if (m.size() < 2 || t.empty())
            continue;
        std::vector<double> bws;
        for (const auto& [r, a] : m)
            bws.push_back(a.first / a.second);
        const double med = medianOf(bws);
        check += (check.empty() ? "" : ", ") + t + " median " + fmtNum(med, 1) + " GB/s";
        for (const auto& [r, a] : m) {
            const double bw = a.first / a.second;
            if (!(bw < ratio * med))
                continue;
            Finding& fd = out.fire("rank" + std::to_string(r) + "-" + t);
            fd.gainFrom = Category::Communication;
            fd.scope.ranks = {r};
            int steps = 1;
            for (const auto& f : c.all)
                if (f.rank == r)
                    steps = f.nSteps;
            if (c.all.empty()) // a cluster summary: one step row per step of each rank
                steps = std::max<int>(1, static_cast<int>(std::count_if(
                    c.session.cluster.stepTrace.begin(), c.session.cluster.stepTrace.end(),
                    [rank = r](const StepRow& s) { return s.type == "rank" && s.index == std::to_string(rank); })));
            // The cost is the time the slow link loses against the median bandwidth, not the
            // whole transit time (which a link at the median speed would spend too).
            const double lost = (a.second - a.first / med) * 1e6 / steps;
            fd.costNs = roundNs(lost);
            fd.title = "Slow " + t + " link on rank " + std::to_string(r) + ": " + fmtNum(bw, 1) + " GB/s vs median "
                       + fmtNum(med, 1) + " GB/s";
            fd.description = "Rank " + std::to_string(r) + " moves data over " + t + " at " + fmtNum(bw, 1)
                             + " GB/s, below " + fmtPct(ratio) + " of the median of " + std::to_string(m.size()) + " ranks.";
            fd.suggestions.push_back("Check the NIC / link of this rank (error counters, speed), the switch port and the "
                                     "placement of the job on the topology.");
            setGain(fd, lost, "Σ(t − size/median bw) = " + fmtMs(lost));
            Evidence e;
            e.at.rank = r;
            e.at.link = t;
            e.metrics = {{"bandwidth", bw, "GB/s"}, {"median", med, "GB/s"}, {"size", a.first, "MB"}};
            e.threshold = "bw < " + fmtRatio(ratio) + " × median";
            e.cost = fd.costNs;
            fd.evidence.push_back(std::move(e));
        }
    }
    if (out.fired.empty())
        out.pass(check + "; no rank below " + fmtPct(ratio) + " of the median");
}

void retrans(const RuleCtx& c, RuleOut& out)
{
    if (c.session.cluster.comm.empty() && c.all.size() < 2)
        return out.notChecked("needs cluster_communication.json (msprof-analyze cluster) or ≥ 2 ranks with communication.json");
    const ClusterInputs ci = clusterInputs(c);
    const auto ops = allCommOps(c, ci);
    if (ops.empty())
        return out.notChecked("needs cluster_communication.json (msprof-analyze cluster)");
    out.inputs.push_back(commSource(c, ci) + " (" + std::to_string(ops.size()) + " op entries)");
    if (!ci.note.empty())
        out.inputs.push_back(ci.note);
    std::map<std::pair<std::string, std::string>, std::pair<double, double>> per; // min elapse, max RDMA transit
    for (const OpRef& r : ops) {
        const CommOp* o = r.op;
        auto& p = per.try_emplace({o->step, o->fullName}, kNaN, 0.0).first->second;
        if (!isMissing(o->elapseMs))
            p.first = !isMissing(p.first) ? std::min(p.first, o->elapseMs) : o->elapseMs;
        for (const auto& b : o->bandwidth)
            if (r.transport(b) == "RDMA" && !isMissing(b.timeMs))
                p.second = std::max(p.second, b.timeMs);
    }
    const double el = c.param("elapse_ms"), tr = c.param("transit_ms");
    std::vector<Evidence> ev;
    for (const auto& [k, v] : per)
        if (v.first >= el && v.second > tr) {
            Evidence e;
            e.at.op = k.second;
            e.at.row = "step " + k.first + " " + k.second;
            e.metrics = {{"min elapse", v.first, "ms"}, {"max RDMA transit", v.second, "ms"}};
            e.threshold = "elapse ≥ " + fmtNum(el, 0) + " ms and RDMA transit > " + fmtNum(tr, 0) + " ms";
            e.cost = roundNs(v.first * 1e6);
            ev.push_back(std::move(e));
        }
    if (ev.empty())
        return out.pass(std::to_string(per.size()) + " collectives; none with every rank ≥ " + fmtNum(el, 0) + " ms and RDMA transit > "
                        + fmtNum(tr, 0) + " ms");
    Finding& fd = out.fire("rdma");
    fd.title = "RDMA retransmission suspected in " + std::to_string(ev.size()) + " collectives";
    fd.description = "Every rank spent at least " + fmtNum(el, 0) + " ms in these collectives and an RDMA transfer took over "
                     + fmtNum(tr, 0) + " ms: the pattern of packet loss and retransmission timeouts.";
    fd.suggestions.push_back("Check the RDMA network: switch and NIC error/retransmission counters, PFC/ECN settings, cables.");
    noGain(fd, "a network fault; the time lost depends on the retransmission timeout");
    fd.evidence = std::move(ev);
    sortEvidence(fd.evidence, kMaxEvidence);
}

} // namespace

void lateRank(const RuleCtx& c, RuleOut& out); // CLU-LATE (rules_cluster_late.cpp)

void addClusterRules(std::vector<RuleDef>& out)
{
    out.push_back({"CLU-SLOWRANK", Category::Cluster, true, "A rank slower than the others", slowRank});
    out.push_back({"CLU-SLOWLINK", Category::Cluster, true, "A rank's link slower than the median", slowLink});
    out.push_back({"CLU-RETRANS", Category::Cluster, true, "RDMA retransmission (very long transfers)", retrans});
    out.push_back({"CLU-LATE", Category::Cluster, true, "A rank arriving last at collectives, and why", lateRank});
}

} // namespace npuscope::advisor
