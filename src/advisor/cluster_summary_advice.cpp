#include "advisor/cluster_summary_advice.h"

#include "model/analysis/cluster.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace npuscope::advisor {

using nlohmann::json;

namespace {

json num(double v)
{
    return std::isfinite(v) ? json(v) : json(nullptr);
}

FindingSeverity severityOf(const std::string& s)
{
    return s == "high" ? FindingSeverity::High : s == "medium" ? FindingSeverity::Medium : s == "low" ? FindingSeverity::Low
                                                                                                      : FindingSeverity::None;
}

Category categoryOf(const std::string& s)
{
    for (Category c : {Category::Computation, Category::Communication, Category::Scheduling, Category::Memory, Category::Cluster})
        if (s == categoryName(c))
            return c;
    return Category::Computation;
}

} // namespace

json findingJson(const Finding& f)
{
    json j = {{"id", f.id},
              {"rule", f.rule},
              {"category", categoryName(f.category)},
              {"status", statusName(f.status)},
              {"severity", severityName(f.severity)},
              {"title", f.title},
              {"cost_ns", f.costNs},
              {"cost_share", num(f.costShare)},
              {"ranks", f.scope.ranks},
              {"gain", f.gain.text()}};
    if (f.gain.estimated)
        j["gain_ns"] = num(f.gain.nsPerStep);
    if (!f.needs.empty())
        j["needs"] = f.needs;
    if (!f.check.empty())
        j["check"] = f.check;
    return j;
}

json rankAdvice(const Session& rank, const Thresholds& th)
{
    const AdvisorReport rep = runAdvisor(rank, th);
    json split = json::object();
    if (!rep.summary.ranks.empty()) {
        const RankSplit& rs = rep.summary.ranks.front();
        split = {{"T_ns", num(rs.T)},
                 {"computing_ns", num(rs.computing)},
                 {"comm_not_overlapped_ns", num(rs.commNotOverlapped)},
                 {"free_ns", num(rs.free)},
                 {"steps", rs.steps},
                 {"source", rs.source},
                 {"step_min_ns", num(rs.stepMin)},
                 {"step_median_ns", num(rs.stepMedian)},
                 {"step_max_ns", num(rs.stepMax)}};
    }
    json findings = json::array();
    for (const Finding* f : rep.fired())
        if (f->category != Category::Cluster)
            findings.push_back(findingJson(*f));
    return {{"advisor_split", std::move(split)}, {"findings", std::move(findings)}};
}

json clusterSection(const Session& s, const Thresholds& th)
{
    ClusterOptions o;
    o.gapRatio = th.param("CLU-SLOWRANK", "gap_ratio");
    o.bwRatio = th.param("CLU-SLOWLINK", "bw_ratio");
    const ClusterAnalysis ca = analyzeCluster(s, o);
    json out;
    json breakdown = json::array();
    for (const auto& r : ca.ranks)
        breakdown.push_back({{"rank", r.rank},
                             {"steps", r.steps},
                             {"computing_ns", num(r.computing)},
                             {"comm_not_overlapped_ns", num(r.commNotOverlapped)},
                             {"free_ns", num(r.free)},
                             {"step_ns", num(r.stepTime())}});
    out["breakdown"] = std::move(breakdown);

    json dims = json::array();
    for (const auto& d : ca.slowRank.dimensions)
        dims.push_back({{"name", d.name},
                        {"min_ns", num(d.min)},
                        {"max_ns", num(d.max)},
                        {"median_ns", num(d.median)},
                        {"spread", num(d.spread)},
                        {"fired", d.fired},
                        {"slow_rank", d.slowRank},
                        {"excess_ns", num(d.excess)}});
    out["slow_rank"] = {{"checked", ca.slowRank.checked},
                        {"gap_ratio", ca.slowRank.gapRatio},
                        {"mean_step_ns", num(ca.slowRank.meanStep)},
                        {"dimensions", std::move(dims)}};

    json links = json::array();
    for (const auto& r : ca.slowLink.rows)
        links.push_back({{"rank", r.rank},
                         {"transport", r.transport},
                         {"size_mb", num(r.sizeMB)},
                         {"time_ms", num(r.timeMs)},
                         {"bandwidth_gbps", num(r.bandwidthGBps())},
                         {"median_gbps", num(r.median)},
                         {"slow", r.slow}});
    out["slow_link"] = {{"checked", ca.slowLink.checked}, {"bw_ratio", ca.slowLink.bwRatio}, {"rows", std::move(links)}};

    json matrices = json::array();
    for (const auto& m : ca.matrices) {
        json cells = json::array();
        for (const auto& c : m.cells)
            cells.push_back({{"src", c.src},
                             {"dst", c.dst},
                             {"transport", c.transport},
                             {"size_mb", num(c.sizeMB)},
                             {"time_ms", num(c.timeMs)},
                             {"links", c.links},
                             {"slow", c.slow}});
        matrices.push_back({{"collective", m.collective}, {"cells", std::move(cells)}});
    }
    out["matrix"] = {{"ranks", ca.matrixRanks}, {"source", ca.matrixSource}, {"matrices", std::move(matrices)}};

    // COM-WAIT with every rank's wait: per rank, the wait in ops at or above the wait ratio and
    // the part of it above the least any rank waited in the same op (the wait for a late peer).
    const double waitRatio = th.param("COM-WAIT", "wait_ratio");
    std::map<std::pair<std::string, std::string>, double> minWait;
    for (const auto& op : s.cluster.comm)
        if (!op.totalInfo && op.waitMs == op.waitMs) {
            auto [it, fresh] = minWait.try_emplace({op.step, op.fullName}, op.waitMs);
            if (!fresh)
                it->second = std::min(it->second, op.waitMs);
        }
    struct W {
        int ops = 0, flagged = 0;
        double waitMs = 0, slackMs = 0;
    };
    std::map<int, W> perRank;
    for (const auto& op : s.cluster.comm) {
        if (op.totalInfo || op.rank < 0)
            continue;
        W& w = perRank[op.rank];
        ++w.ops;
        if (!(op.waitRatio >= waitRatio) || op.waitMs != op.waitMs)
            continue;
        ++w.flagged;
        w.waitMs += op.waitMs;
        w.slackMs += op.waitMs - minWait[{op.step, op.fullName}];
    }
    json waits = json::array();
    for (const auto& [rank, w] : perRank)
        waits.push_back({{"rank", rank},
                         {"ops", w.ops},
                         {"flagged_ops", w.flagged},
                         {"wait_ms", num(w.waitMs)},
                         {"wait_over_min_ms", num(w.slackMs)}});
    out["com_wait"] = {{"wait_ratio", waitRatio}, {"ranks", std::move(waits)}};

    const AdvisorReport rep = runAdvisor(s, th);
    json findings = json::array();
    for (const Finding& f : rep.findings)
        if (f.category == Category::Cluster)
            findings.push_back(findingJson(f));
    out["T_ns"] = num(rep.T);
    out["findings"] = std::move(findings);
    return out;
}

void addRankFindings(const json& summary, AdvisorReport& report)
{
    std::vector<Finding> added;
    for (const json& r : summary.value("ranks", json::array()))
        for (const json& fj : r.value("findings", json::array())) {
            const std::string id = fj.value("id", std::string());
            const int rank = r.value("rank", -1);
            auto same = std::find_if(added.begin(), added.end(), [&](const Finding& f) {
                return f.id == id && f.title == fj.value("title", std::string());
            });
            if (same != added.end()) {
                if (rank >= 0)
                    same->scope.ranks.push_back(rank);
                continue;
            }
            Finding f;
            f.id = id;
            f.rule = fj.value("rule", std::string());
            f.category = categoryOf(fj.value("category", std::string()));
            f.status = Status::Fired;
            f.severity = severityOf(fj.value("severity", std::string()));
            f.title = fj.value("title", std::string());
            f.costNs = fj.value("cost_ns", TimeNs(0));
            f.costShare = fj.value("cost_share", 0.0);
            if (fj.contains("gain_ns") && fj["gain_ns"].is_number()) {
                f.gain.estimated = true;
                f.gain.nsPerStep = fj["gain_ns"].get<double>();
                f.gain.shareOfT = report.T > 0 ? f.gain.nsPerStep / report.T : 0;
                f.gain.formula = "from the rank's summary";
            } else {
                f.gain.reason = "see the rank's own report";
            }
            f.description = "From the cluster summary; open the rank's folder for the evidence.";
            if (rank >= 0)
                f.scope.ranks.push_back(rank);
            added.push_back(std::move(f));
        }
    for (auto& f : added) {
        switch (f.severity) {
        case FindingSeverity::High: ++report.summary.high; break;
        case FindingSeverity::Medium: ++report.summary.medium; break;
        case FindingSeverity::Low: ++report.summary.low; break;
        case FindingSeverity::None: break;
        }
        ++report.summary.fired;
    }
    // Fired first, by category, severity, gain (the report's order), then the rest as they were.
    auto firstOther = std::stable_partition(report.findings.begin(), report.findings.end(),
                                            [](const Finding& f) { return f.status == Status::Fired; });
    const auto nFired = firstOther - report.findings.begin();
    report.findings.insert(report.findings.begin() + nFired, std::make_move_iterator(added.begin()),
                           std::make_move_iterator(added.end()));
    const auto end = report.findings.begin() + nFired + static_cast<std::ptrdiff_t>(added.size());
    std::stable_sort(report.findings.begin(), end, [](const Finding& a, const Finding& b) {
        return std::make_tuple(a.category, a.severity, -a.gain.nsPerStep) < std::make_tuple(b.category, b.severity, -b.gain.nsPerStep);
    });
}

} // namespace npuscope::advisor
