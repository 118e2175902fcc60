#include "advisor/cluster_summary_advice.h"

#include "advisor/rule_context.h"
#include "advisor/rules_cluster_late.h"

#include "model/analysis/cluster.h"
#include "model/cluster_summary/cluster_summary.h"
#include "model/cluster_summary/summary_late.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

namespace npuscope::advisor {

using nlohmann::json;

namespace {

// Evidence rows a stored cluster finding keeps (the report shows 10 in a PDF, 5 in Markdown).
constexpr std::size_t kStoredEvidence = 20;

// The effective thresholds a summary was made with, as a short fingerprint (FNV-1a, 64 bits).
std::string thresholdsHash(const std::string& effective)
{
    std::uint64_t h = 14695981039346656037ull;
    for (const unsigned char ch : effective)
        h = (h ^ ch) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

json num(double v)
{
    return std::isfinite(v) ? json(v) : json(nullptr);
}

FindingSeverity severityOf(const std::string& s)
{
    return s == "high" ? FindingSeverity::High : s == "medium" ? FindingSeverity::Medium : s == "low" ? FindingSeverity::Low
                                                                                                      : FindingSeverity::None;
}

Status statusOf(const std::string& s)
{
    for (Status st : {Status::Fired, Status::Passed, Status::NotChecked, Status::Disabled, Status::Error})
        if (s == statusName(st))
            return st;
    return Status::Error;
}

Category categoryOf(const std::string& s)
{
    for (Category c : {Category::Computation, Category::Communication, Category::Scheduling, Category::Memory, Category::Cluster})
        if (s == categoryName(c))
            return c;
    return Category::Computation;
}

} // namespace

json findingJson(const Finding& f, bool detail)
{
    json j = {{"id", f.id},
              {"rule", f.rule},
              {"category", categoryName(f.category)},
              {"status", statusName(f.status)},
              {"severity", severityName(f.severity)},
              {"title", f.title},
              {"cost_ns", f.costNs},
              {"gain", f.gain.text()}};
    if (f.gain.estimated)
        j["gain_ns"] = num(f.gain.nsPerStep);
    if (!f.needs.empty())
        j["needs"] = f.needs;
    if (!f.check.empty())
        j["check"] = f.check;
    if (f.minor)
        j["minor"] = true;
    if (f.gainFrom)
        j["gain_from"] = categoryName(*f.gainFrom);
    if (!detail) { // a rank's finding is its rank's; its share is of the rank's step (advisor_split T)
        if (!f.suggestions.empty())
            j["action"] = f.suggestions.front(); // what the plan says to do
        return j;
    }
    j["suggestions"] = f.suggestions;
    j["cost_share"] = num(f.costShare);
    j["ranks"] = f.scope.ranks;
    j["description"] = f.description;
    j["inputs"] = f.inputs;
    j[f.gain.estimated ? "gain_formula" : "gain_reason"] = f.gain.estimated ? f.gain.formula : f.gain.reason;
    if (!f.error.empty())
        j["error"] = f.error;
    j["scope"] = {{"cluster", f.scope.cluster}, {"device", f.scope.device}, {"steps", f.scope.steps},
                  {"worst_step", f.scope.worstStep}};
    json evidence = json::array();
    for (std::size_t i = 0; i < f.evidence.size() && i < kStoredEvidence; ++i) {
        const Evidence& e = f.evidence[i];
        json at = {{"rank", e.at.rank}, {"device", e.at.device}, {"stream", e.at.stream}};
        if (e.at.ts)
            at["ts_ns"] = *e.at.ts;
        if (e.at.dur)
            at["dur_ns"] = *e.at.dur;
        for (const auto& [key, text] : {std::pair{"op", &e.at.op}, {"shapes", &e.at.shapes}, {"row", &e.at.row}, {"link", &e.at.link}})
            if (!text->empty())
                at[key] = *text;
        json metrics = json::array();
        for (const Metric& m : e.metrics)
            metrics.push_back({m.name, num(m.value), m.unit});
        evidence.push_back({{"at", std::move(at)}, {"metrics", std::move(metrics)}, {"threshold", e.threshold}, {"cost_ns", e.cost}});
    }
    j["evidence"] = std::move(evidence);
    if (f.evidence.size() > kStoredEvidence)
        j["evidence_rows"] = f.evidence.size();
    return j;
}

Finding findingFromJson(const json& j, double T)
{
    auto str = [&j](const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    auto strings = [&j](const char* key) {
        std::vector<std::string> out;
        for (const json& v : j.value(key, json::array()))
            if (v.is_string())
                out.push_back(v.get<std::string>());
        return out;
    };
    auto number = [](const json& o, const char* key, double fallback) {
        const auto it = o.find(key);
        return it != o.end() && it->is_number() ? it->get<double>() : fallback;
    };
    Finding f;
    f.id = str("id");
    f.rule = str("rule");
    f.category = categoryOf(str("category"));
    f.status = statusOf(str("status"));
    f.severity = severityOf(str("severity"));
    f.title = str("title");
    f.minor = j.value("minor", false);
    if (const std::string from = str("gain_from"); !from.empty())
        f.gainFrom = categoryOf(from);
    f.costNs = static_cast<TimeNs>(std::llround(number(j, "cost_ns", 0)));
    f.costShare = number(j, "cost_share", 0);
    for (const json& r : j.value("ranks", json::array()))
        if (r.is_number_integer())
            f.scope.ranks.push_back(r.get<int>());
    f.needs = str("needs");
    f.check = str("check");
    f.error = str("error");
    f.description = str("description");
    f.suggestions = strings("suggestions");
    if (const std::string action = str("action"); f.suggestions.empty() && !action.empty())
        f.suggestions.push_back(action);
    f.inputs = strings("inputs");
    if (const double g = number(j, "gain_ns", kNaN); !std::isnan(g)) {
        f.gain.estimated = true;
        f.gain.nsPerStep = g;
        f.gain.shareOfT = T > 0 ? g / T : 0;
        f.gain.formula = str("gain_formula");
    } else {
        f.gain.reason = str("gain_reason");
    }
    if (const auto sc = j.find("scope"); sc != j.end() && sc->is_object()) {
        f.scope.cluster = sc->value("cluster", false);
        f.scope.device = static_cast<int>(number(*sc, "device", -1));
        f.scope.steps = sc->value("steps", std::string());
        f.scope.worstStep = sc->value("worst_step", std::string());
    }
    for (const json& e : j.value("evidence", json::array())) {
        if (!e.is_object())
            continue;
        Evidence ev;
        const json at = e.value("at", json::object());
        ev.at.rank = static_cast<int>(number(at, "rank", -1));
        ev.at.device = static_cast<int>(number(at, "device", -1));
        ev.at.stream = static_cast<std::int64_t>(number(at, "stream", -1));
        if (const auto ts = at.find("ts_ns"); ts != at.end() && ts->is_number_integer())
            ev.at.ts = ts->get<TimeNs>();
        if (const auto dur = at.find("dur_ns"); dur != at.end() && dur->is_number_integer())
            ev.at.dur = dur->get<TimeNs>();
        ev.at.op = at.value("op", std::string());
        ev.at.shapes = at.value("shapes", std::string());
        ev.at.row = at.value("row", std::string());
        ev.at.link = at.value("link", std::string());
        for (const json& m : e.value("metrics", json::array()))
            if (m.is_array() && m.size() == 3 && m[0].is_string() && m[2].is_string())
                ev.metrics.push_back({m[0].get<std::string>(), m[1].is_number() ? m[1].get<double>() : kNaN, m[2].get<std::string>()});
        ev.threshold = e.value("threshold", std::string());
        ev.cost = static_cast<TimeNs>(std::llround(number(e, "cost_ns", 0)));
        f.evidence.push_back(std::move(ev));
    }
    return f;
}

json rankAdvice(const Session& rank, const Thresholds& th)
{
    const AdvisorReport rep = runAdvisor(rank, th);
    json split = json::object();
    if (!rep.summary.ranks.empty()) {
        const RankSplit& rs = rep.summary.ranks.front();
        split = {{"T_ns", num(rs.T())},
                 {"computing_ns", num(static_cast<double>(rs.split.computing))},
                 {"comm_not_overlapped_ns", num(static_cast<double>(rs.split.commNotOverlapped))},
                 {"free_ns", num(static_cast<double>(rs.split.free))},
                 {"steps", rs.split.steps},
                 {"partial_steps", rs.split.partial},
                 {"source", rs.split.source},
                 {"step_min_ns", num(rs.split.min)},
                 {"step_median_ns", num(rs.split.median)},
                 {"step_max_ns", num(rs.split.max)}};
        // In order, as [name, ns] pairs: the report lists the parts as the rank's facts give them.
        for (const auto& [key, parts] : {std::pair{"computing_parts", &rs.computingParts}, {"comm_parts", &rs.commParts}}) {
            json list = json::array();
            for (const SplitPart& part : *parts)
                list.push_back({part.name, num(part.ns)});
            split[key] = std::move(list);
        }
    }
    json findings = json::array(), passed = json::array(), notChecked = json::array(), errors = json::array();
    std::vector<std::string> ids;
    for (const Finding& f : rep.findings) {
        if (f.category == Category::Cluster || f.status == Status::Disabled)
            continue;
        if (f.status == Status::Fired) {
            findings.push_back(findingJson(f, false));
            ids.push_back(f.id);
        } else if (f.status == Status::Passed) { // the folders' report lists it with the ranks of each
            passed.push_back(f.rule);
        } else {
            (f.status == Status::Error ? errors : notChecked).push_back({f.rule, f.status == Status::Error ? f.error : f.needs});
        }
    }
    // The plan of the folders weighs each finding by the device tasks it claims, which stay in
    // the folder: the pieces they make are kept instead, as [tasks, ns, index of each finding
    // claiming them in "findings"...].
    json claims = json::array();
    for (const ClaimAtom& a : rep.claimAtoms) {
        json atom = {a.tasks, num(a.ns)};
        for (const std::string& id : a.ids)
            if (const auto it = std::find(ids.begin(), ids.end(), id); it != ids.end())
                atom.push_back(it - ids.begin());
        if (atom.size() > 2)
            claims.push_back(std::move(atom));
    }
    return {{"advisor_split", std::move(split)},
            {"findings", std::move(findings)},
            {"claims", std::move(claims)},
            {"rules", {{"passed", std::move(passed)}, {"not_checked", std::move(notChecked)}, {"error", std::move(errors)}}}};
}

namespace {

// COM-WAIT with every rank's wait: per rank, the wait in ops at or above the wait ratio and the
// part of it above the least any rank waited in the same op (the wait for a late peer).
json comWaitJson(const Session& s, const Thresholds& th)
{
    const double waitRatio = th.param("COM-WAIT", "wait_ratio");
    std::map<std::pair<std::string, std::string>, double> minWait;
    for (const auto& op : s.cluster.comm)
        if (!op.totalInfo && !std::isnan(op.waitMs)) {
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
        if (!(op.waitRatio >= waitRatio) || std::isnan(op.waitMs))
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
    return {{"wait_ratio", waitRatio}, {"ranks", std::move(waits)}};
}

constexpr const char* kLateRule = "CLU-LATE";

// The median of the ranks' own step times (advisor_split T_ns), as CLU-LATE takes T on the folders.
double medianRankT(const json& summary)
{
    std::vector<double> ts;
    for (const json& r : summary.value("ranks", json::array())) {
        const json sp = r.is_object() ? r.value("advisor_split", json::object()) : json::object();
        const auto t = sp.is_object() ? sp.find("T_ns") : sp.end();
        if (sp.is_object() && t != sp.end() && t->is_number() && t->get<double>() > 0)
            ts.push_back(t->get<double>());
    }
    std::sort(ts.begin(), ts.end());
    return ts.empty() ? 0 : ts[ts.size() / 2];
}

// CLU-LATE on a summary: lateRankFinding on the numbers the summary keeps, completed as the
// engine completes a cluster rule's result (its share of the report's T, its severity).
std::vector<Finding> lateFindings(const cluster_summary::LateSummary& late, double rankT, double reportT, const Thresholds& th)
{
    RuleOut out;
    out.ruleId = kLateRule;
    out.category = Category::Cluster;
    lateRankFinding(late, rankT, th.param(kLateRule, "min_share"), out);
    std::string summary;
    for (const RuleInfo& info : ruleCatalog())
        if (info.id == kLateRule)
            summary = info.summary;
    std::vector<Finding> found;
    for (Finding& fd : out.fired) {
        fd.rule = kLateRule;
        fd.category = Category::Cluster;
        fd.status = Status::Fired;
        if (fd.inputs.empty())
            fd.inputs = out.inputs;
        fd.scope.cluster = true;
        fd.costShare = reportT > 0 ? static_cast<double>(fd.costNs) / reportT : 0;
        if (fd.gain.estimated) {
            fd.gain.shareOfT = reportT > 0 ? fd.gain.nsPerStep / reportT : 0;
            if (!(fd.gain.nsPerStep > 0)) {
                fd.gain.estimated = false;
                fd.gain.reason = "the formula gives no saving on this data";
            }
        }
        resolveSeverity(fd, th);
        if (fd.minor)
            fd.severity = FindingSeverity::Low;
        sortEvidence(fd.evidence);
        found.push_back(std::move(fd));
    }
    if (found.empty()) {
        Finding g;
        g.id = g.rule = kLateRule;
        g.category = Category::Cluster;
        g.status = out.status == Status::Fired ? Status::Passed : out.status;
        g.title = summary;
        g.needs = out.needs;
        g.check = out.check;
        g.inputs = out.inputs;
        g.scope.cluster = true;
        found.push_back(std::move(g));
    }
    return found;
}

// A summary without the late-rank numbers (written before them): CLU-LATE not checked.
Finding latePredates(const Thresholds& th)
{
    cluster_summary::LateSummary none;
    none.needs = "the summary predates the late-rank numbers (summary version 3): run cluster-summary again on the "
                 "rank folders";
    return lateFindings(none, 0, 0, th).front();
}

void orderAndCount(AdvisorReport& rep);

} // namespace

json clusterSection(const Session& s, const Thresholds& th, const json* summary, const cluster_summary::LateSummary* lateNumbers)
{
    ClusterOptions o;
    o.gapRatio = th.param("CLU-SLOWRANK", "gap_ratio");
    o.bwRatio = th.param("CLU-SLOWLINK", "bw_ratio");
    const ClusterAnalysis ca = analyzeCluster(s, o);
    json out;
    json breakdown = json::array();
    for (const auto& r : ca.ranks)
        breakdown.push_back({{"rank", r.rank},
                             {"steps", r.split.steps},
                             {"computing_ns", num(static_cast<double>(r.split.computing))},
                             {"comm_not_overlapped_ns", num(static_cast<double>(r.split.commNotOverlapped))},
                             {"free_ns", num(static_cast<double>(r.split.free))},
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

    out["com_wait"] = comWaitJson(s, th);

    AdvisorReport rep = runAdvisor(s, th);
    if (summary) { // CLU-LATE from the late-rank numbers the summary keeps
        cluster_summary::LateSummary late;
        if (lateNumbers)
            late = *lateNumbers;
        else if (!cluster_summary::lateFromJson(*summary, late))
            late.needs = "needs the late-rank numbers of the rank folders (cluster_summary::addLateRanks)";
        rep.findings.erase(std::remove_if(rep.findings.begin(), rep.findings.end(),
                                          [](const Finding& f) { return f.rule == kLateRule; }),
                           rep.findings.end());
        for (Finding& f : lateFindings(late, medianRankT(*summary), rep.T, th))
            rep.findings.push_back(std::move(f));
        orderAndCount(rep);
    }
    json findings = json::array();
    for (const Finding& f : rep.findings)
        if (f.category == Category::Cluster)
            findings.push_back(findingJson(f, true));
    out["T_ns"] = num(rep.T);
    out["thresholds_digest"] = thresholdsHash(rep.thresholdsDigest);
    out["findings"] = std::move(findings);
    return out;
}

namespace {

// The ranks' fired findings a summary stores, merged by id as the folders' report merges them:
// the ranks listed together, the costliest rank's finding speaking for all (ties: the lowest
// rank), its shares of that rank's own step.
std::vector<Finding> rankFindings(const json& summary)
{
    std::vector<Finding> out;
    for (const json& r : summary.value("ranks", json::array()))
        for (const json& fj : r.value("findings", json::array())) {
            const int rank = r.value("rank", -1);
            const double rankT = r.value("advisor_split", json::object()).value("T_ns", 0.0);
            Finding f = findingFromJson(fj, rankT);
            f.status = Status::Fired;
            f.costShare = rankT > 0 ? static_cast<double>(f.costNs) / rankT : 0;
            f.scope.ranks.clear();
            if (rank >= 0)
                f.scope.ranks.push_back(rank);
            if (!f.gain.estimated)
                f.gain.reason = "see the rank's own report";
            else if (f.gain.formula.empty())
                f.gain.formula = "from the rank's summary";
            f.description = "From the cluster summary; open the rank's folder for the evidence.";
            auto same = std::find_if(out.begin(), out.end(), [&](const Finding& o) { return o.id == f.id; });
            if (same == out.end()) {
                out.push_back(std::move(f));
                continue;
            }
            std::vector<int> ranks = same->scope.ranks;
            if (rank >= 0 && std::find(ranks.begin(), ranks.end(), rank) == ranks.end())
                ranks.push_back(rank);
            std::sort(ranks.begin(), ranks.end());
            if (f.costNs > same->costNs)
                *same = std::move(f);
            same->scope.ranks = std::move(ranks);
        }
    return out;
}

// Every rank's claim atoms, those naming the same findings summed: the claims of the folders'
// report, by rank.
std::vector<ClaimAtom> rankClaimAtoms(const json& summary)
{
    std::map<std::vector<std::string>, ClaimAtom> byIds;
    for (const json& r : summary.value("ranks", json::array())) {
        const json findings = r.value("findings", json::array());
        for (const json& a : r.value("claims", json::array())) {
            if (!a.is_array() || a.size() < 3 || !a[0].is_number() || !a[1].is_number())
                continue;
            std::vector<std::string> ids;
            for (std::size_t i = 2; i < a.size(); ++i)
                if (a[i].is_number_unsigned() && a[i].get<std::size_t>() < findings.size())
                    ids.push_back(findings[a[i].get<std::size_t>()].value("id", std::string()));
            std::sort(ids.begin(), ids.end());
            ClaimAtom& atom = byIds[ids];
            atom.ids = ids;
            atom.tasks += a[0].get<std::size_t>();
            atom.ns += a[1].get<double>();
        }
    }
    std::vector<ClaimAtom> out;
    for (auto& [ids, a] : byIds)
        out.push_back(std::move(a));
    return out;
}

// The summary's step split per rank (advisor_split) and T over every rank's complete steps, as
// the folders give them.
void summaryStepsFromJson(const json& summary, AdvisorReport& rep)
{
    Summary& sm = rep.summary;
    sm.ranks.clear();
    sm.steps = sm.partial = 0;
    sm.tSource.clear();
    std::vector<double> complete;
    for (const json& r : summary.value("ranks", json::array())) {
        const json sp = r.value("advisor_split", json::object());
        if (!sp.is_object() || sp.empty())
            continue;
        auto ns = [&sp](const char* key) {
            const auto it = sp.find(key);
            return it != sp.end() && it->is_number() ? it->get<double>() : 0.0;
        };
        RankSplit rs;
        rs.rank = r.value("rank", -1);
        const auto whole = [&ns](const char* key) { return static_cast<TimeNs>(std::llround(ns(key))); };
        rs.split.stepTime = whole("T_ns");
        rs.split.computing = whole("computing_ns");
        rs.split.commNotOverlapped = whole("comm_not_overlapped_ns");
        rs.split.free = whole("free_ns");
        rs.split.steps = sp.value("steps", 0);
        rs.split.partial = sp.value("partial_steps", 0);
        rs.split.source = sp.value("source", std::string());
        rs.split.min = ns("step_min_ns");
        rs.split.median = ns("step_median_ns");
        rs.split.max = ns("step_max_ns");
        for (const auto& [key, parts] : {std::pair{"computing_parts", &rs.computingParts}, {"comm_parts", &rs.commParts}})
            for (const json& part : sp.value(key, json::array()))
                if (part.is_array() && part.size() == 2 && part[0].is_string() && part[1].is_number())
                    parts->push_back({part[0].get<std::string>(), part[1].get<double>()});
        for (const json& st : r.value("steps", json::array()))
            if (st.is_object() && !st.value("partial", false))
                complete.push_back(st.value("computing_ns", 0.0) + st.value("comm_not_overlapped_ns", 0.0)
                                   + st.value("free_ns", 0.0));
        sm.steps += rs.split.steps;
        sm.partial += rs.split.partial;
        if (sm.tSource.empty())
            sm.tSource = rs.split.source;
        sm.ranks.push_back(std::move(rs));
    }
    if (sm.ranks.empty())
        return; // no rank kept its split: T stays that of the cluster step rows
    poolSteps(sm, std::move(complete));
    rep.T = sm.T;
}

// The rank rules that did not fire, as the folders' report groups them: per rule, the ranks with
// the same status, needs and error in one finding, their checks joined. Empty when the summary
// kept no rule statuses.
std::vector<Finding> rankRuleStatuses(const json& summary)
{
    const json ranks = summary.value("ranks", json::array());
    std::map<std::string, std::vector<Finding>> byRule;
    bool any = false;
    for (const json& r : ranks) {
        const int rank = r.value("rank", -1);
        const json rules = r.value("rules", json::object());
        if (!rules.is_object())
            continue;
        for (const auto& [key, status] : {std::pair{"passed", Status::Passed}, {"not_checked", Status::NotChecked}, {"error", Status::Error}})
            for (const json& st : rules.value(key, json::array())) {
                Finding g;
                g.status = status;
                if (st.is_string()) {
                    g.rule = st.get<std::string>();
                } else if (st.is_array() && st.size() == 2 && st[0].is_string() && st[1].is_string()) {
                    g.rule = st[0].get<std::string>();
                    (status == Status::Error ? g.error : g.needs) = st[1].get<std::string>();
                } else {
                    continue;
                }
                any = true;
                g.id = g.rule;
                auto& groups = byRule[g.rule];
                auto same = std::find_if(groups.begin(), groups.end(), [&](const Finding& e) {
                    return e.status == g.status && e.needs == g.needs && e.error == g.error;
                });
                if (same == groups.end()) {
                    groups.push_back(std::move(g));
                    same = groups.end() - 1;
                }
                if (rank >= 0)
                    same->scope.ranks.push_back(rank);
            }
    }
    std::vector<Finding> out;
    if (!any)
        return out;
    for (const RuleInfo& info : ruleCatalog())
        for (Finding& g : byRule[info.id]) {
            std::sort(g.scope.ranks.begin(), g.scope.ranks.end());
            g.category = info.category;
            g.title = info.summary;
            out.push_back(std::move(g));
        }
    return out;
}

// The report's order and counts (as runAdvisor gives them) over its findings as they now are.
void orderAndCount(AdvisorReport& rep)
{
    std::vector<Finding> fired, others;
    for (Finding& f : rep.findings)
        (f.status == Status::Fired ? fired : others).push_back(std::move(f));
    // Within a status the others keep the rules' order, as in a report on the folders.
    const std::vector<RuleInfo> catalog = ruleCatalog();
    auto ruleIndex = [&catalog](const Finding& f) {
        return std::find_if(catalog.begin(), catalog.end(), [&f](const RuleInfo& r) { return r.id == f.rule; }) - catalog.begin();
    };
    std::stable_sort(others.begin(), others.end(), [&](const Finding& a, const Finding& b) { return ruleIndex(a) < ruleIndex(b); });
    orderFindings(fired, others);
    Summary& sm = rep.summary;
    sm.high = sm.medium = sm.low = sm.minor = sm.fired = sm.passed = sm.notChecked = sm.disabled = sm.errors = 0;
    sm.topGains.clear();
    countFindings(fired, others, sm);
    rep.findings = std::move(fired);
    rep.findings.insert(rep.findings.end(), std::make_move_iterator(others.begin()), std::make_move_iterator(others.end()));
}

} // namespace

AdvisorReport adviseSummary(const Session& summarySession, const json& summary, const Thresholds& th,
                            const std::atomic<bool>* cancel)
{
    AdvisorReport rep = runAdvisor(summarySession, th, cancel);
    summaryStepsFromJson(summary, rep);
    const json cluster = summary.value("cluster", json::object());
    rep.findings.erase(std::remove_if(rep.findings.begin(), rep.findings.end(),
                                      [](const Finding& f) { return f.category == Category::Cluster; }),
                       rep.findings.end());
    for (const json& fj : cluster.value("findings", json::array()))
        if (fj.is_object())
            rep.findings.push_back(findingFromJson(fj, rep.T));
    if (!summary.contains("collectives")) { // written before the late-rank numbers
        rep.findings.erase(std::remove_if(rep.findings.begin(), rep.findings.end(),
                                          [](const Finding& f) { return f.rule == kLateRule; }),
                           rep.findings.end());
        rep.findings.push_back(latePredates(th));
    }
    for (Finding& f : rankFindings(summary))
        rep.findings.push_back(std::move(f));
    if (std::vector<Finding> statuses = rankRuleStatuses(summary); !statuses.empty()) {
        // The summary session has no rank facts: its rank rules were not checked. The ranks'
        // own results stand for them.
        rep.findings.erase(std::remove_if(rep.findings.begin(), rep.findings.end(),
                                          [](const Finding& f) {
                                              return f.category != Category::Cluster && f.status != Status::Fired
                                                     && f.status != Status::Disabled;
                                          }),
                           rep.findings.end());
        for (Finding& g : statuses)
            rep.findings.push_back(std::move(g));
    }
    orderAndCount(rep);
    if (!rep.cancelled)
        buildPlanFromAtoms(rep, rankClaimAtoms(summary));
    const std::string digest = cluster.value("thresholds_digest", std::string());
    if (!digest.empty() && digest != thresholdsHash(rep.thresholdsDigest))
        rep.warnings.push_back("The cluster findings are as the summary was made, with other thresholds than these: "
                               "run cluster-summary again with these thresholds to apply them.");
    return rep;
}

AdvisorReport adviseSession(const Session& session, const Thresholds& th, const std::atomic<bool>* cancel,
                            const ClockOptions* clock)
{
    if (session.source != "summary")
        return runAdvisor(session, th, cancel, clock);
    json summary;
    std::string error;
    if (!cluster_summary::readSummary(session.root, summary, &error)) {
        AdvisorReport rep = runAdvisor(session, th, cancel);
        rep.warnings.push_back("The cluster findings could not be read again from the summary: " + error);
        return rep;
    }
    AdvisorReport rep = adviseSummary(session, summary, th, cancel);
    if (clock && (clock->raw || !clock->manual.empty()))
        rep.warnings.push_back("The cluster findings of a summary are as it was written, with the ranks' clocks aligned "
                               "by the collectives: --clock and --clock-offset apply to rank folders only.");
    return rep;
}

} // namespace npuscope::advisor
