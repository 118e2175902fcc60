// The engine: builds per-rank facts, runs every rule on every scope, resolves severities,
// merges identical findings across ranks and orders the report.
#include "advisor/advisor.h"
#include "advisor/rule_context.h"
#include "model/analysis/step_graph.h"
#include "model/io/memory_budget.h"
#include "model/io/parallel.h"

#include <algorithm>
#include <exception>
#include <cctype>
#include <cstdlib>
#include <iterator>
#include <cmath>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <system_error>

namespace npuscope::advisor {

const std::string& RuleCtx::ruleId() const { return def.id; }

namespace {

std::vector<RuleDef> allRules()
{
    std::vector<RuleDef> r;
    addComputationRules(r);
    addAffinityRules(r);
    addAttentionRules(r);
    addCommunicationRules(r);
    addSchedulingRules(r);
    addMemoryRules(r);
    addClusterRules(r);
    return r;
}

int severityOrder(FindingSeverity s) { return static_cast<int>(s); }

// Merge one rank's fired finding into the list (same id -> one finding with a ranks column).
void mergeFired(std::vector<Finding>& out, Finding f)
{
    for (auto& g : out) {
        if (g.id != f.id)
            continue;
        for (int r : f.scope.ranks)
            if (std::find(g.scope.ranks.begin(), g.scope.ranks.end(), r) == g.scope.ranks.end())
                g.scope.ranks.push_back(r);
        std::sort(g.scope.ranks.begin(), g.scope.ranks.end());
        auto ev = std::move(f.evidence);
        auto claims = std::move(g.claims);
        claims.insert(claims.end(), f.claims.begin(), f.claims.end());
        if (f.costNs > g.costNs) {
            // The worst rank speaks for the merged finding.
            auto ranks = g.scope.ranks;
            auto evidence = std::move(g.evidence);
            g = std::move(f);
            g.scope.ranks = ranks;
            g.evidence = std::move(evidence);
        }
        g.evidence.insert(g.evidence.end(), ev.begin(), ev.end());
        g.claims = std::move(claims);
        sortEvidence(g.evidence);
        return;
    }
    out.push_back(std::move(f));
}

// Over the rank budget the per-rank rules run on picked ranks (ADVISOR.md §3 "Cluster runs"):
// scheduling and memory on the rank with the most Free, computation on the rank with the most
// Computing in each pipeline stage, communication on the ranks with the lowest SDMA and RDMA
// bandwidth; when a metric barely differs across ranks ((max − min)/mean < rank_pick_gap),
// the lowest rank stands for all.
struct Pick {
    std::size_t fact; // index into the facts
    std::string why;
};
using Picks = std::map<Category, std::vector<Pick>>;

Picks pickRanks(const Session& session, const std::vector<ProfileFacts>& facts, const Thresholds& th)
{
    Picks picks;
    const double gap = th.rankPickGap();
    const std::string budget = " of " + std::to_string(facts.size()) + " ranks, over the budget of "
                               + std::to_string(th.rankBudget());
    std::size_t lowest = 0;
    for (std::size_t i = 0; i < facts.size(); ++i)
        if (facts[i].rank >= 0 && (facts[lowest].rank < 0 || facts[i].rank < facts[lowest].rank))
            lowest = i;
    // The index with the largest (or smallest) value among `idx`, or the lowest rank when the
    // values hardly differ; idx empty → nothing.
    auto pickOne = [&](const std::vector<std::size_t>& idx, const std::function<double(std::size_t)>& value, bool largest,
                       const std::string& what, std::vector<Pick>& into) {
        if (idx.empty())
            return;
        double mn = value(idx.front()), mx = mn, sum = 0;
        std::size_t best = idx.front();
        for (std::size_t i : idx) {
            const double v = value(i);
            mn = std::min(mn, v);
            mx = std::max(mx, v);
            sum += v;
            if (largest ? v > value(best) : v < value(best))
                best = i;
        }
        const double mean = sum / static_cast<double>(idx.size());
        std::string why = (largest ? "most " : "least ") + what + budget;
        if (!(mean > 0) || (mx - mn) / mean < gap) {
            best = *std::min_element(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return facts[a].rank < facts[b].rank; });
            why = what + " within " + fmtPct(gap) + " across ranks: lowest rank" + budget;
        }
        for (const Pick& p : into)
            if (p.fact == best)
                return;
        into.push_back({best, why});
    };
    std::vector<std::size_t> all;
    for (std::size_t i = 0; i < facts.size(); ++i)
        all.push_back(i);
    for (Category cat : {Category::Scheduling, Category::Memory})
        pickOne(all, [&](std::size_t i) { return facts[i].free; }, true, "Free", picks[cat]);
    // Pipeline stage of a rank: its position in its "pp" group (one stage when unknown).
    std::map<int, int> stageOf;
    auto addGroups = [&](const std::vector<ParallelGroup>& groups) {
        for (const auto& g : groups)
            if (lower(g.name).find("pp") != std::string::npos || lower(g.name).find("pipeline") != std::string::npos)
                for (std::size_t k = 0; k < g.ranks.size(); ++k)
                    stageOf.try_emplace(g.ranks[k], static_cast<int>(k));
    };
    addGroups(session.cluster.groups);
    for (const auto& f : facts)
        addGroups(f.p.meta.groups);
    std::map<int, std::vector<std::size_t>> stages;
    for (std::size_t i = 0; i < facts.size(); ++i) {
        const auto it = stageOf.find(facts[i].rank);
        stages[it == stageOf.end() ? 0 : it->second].push_back(i);
    }
    for (const auto& [stage, idx] : stages)
        pickOne(idx, [&](std::size_t i) { return facts[i].computing; }, true,
                "Computing" + (stages.size() > 1 ? " in pipeline stage " + std::to_string(stage) : std::string()),
                picks[Category::Computation]);
    // Communication: per transport, the rank with the lowest bandwidth (Σ MB / Σ ms).
    for (const char* transport : {"SDMA", "RDMA"}) {
        std::vector<std::size_t> idx;
        std::vector<double> bw(facts.size(), 0);
        for (std::size_t i = 0; i < facts.size(); ++i) {
            double mb = 0, ms = 0;
            for (const auto& o : facts[i].p.commOps)
                if (!o.totalInfo)
                    for (const auto& b : o.bandwidth)
                        if (facts[i].p.str(b.transport) == transport && b.sizeMB > 0 && b.timeMs > 0) {
                            mb += b.sizeMB;
                            ms += b.timeMs;
                        }
            if (ms > 0) {
                bw[i] = mb / ms;
                idx.push_back(i);
            }
        }
        pickOne(idx, [&](std::size_t i) { return bw[i]; }, false, std::string(transport) + " bandwidth", picks[Category::Communication]);
    }
    if (picks[Category::Communication].empty())
        picks[Category::Communication].push_back({lowest, "no SDMA/RDMA bandwidth: lowest rank" + budget});
    return picks;
}

} // namespace

std::vector<RuleInfo> ruleCatalog()
{
    std::vector<RuleInfo> out;
    for (const auto& d : allRules())
        out.push_back({d.id, d.category, d.summary});
    return out;
}

namespace {

// "yyyy-mm-dd HH:MM:SS" from the first run of 14 or more digits after '_' (or at the start) in
// a profile's root: torch_npu folders end in _<yyyymmddHHMMSSmmm>_ascend_pt, msprof ones are
// PROF_<n>_<14 digits>_; empty when there is none.
std::string captureTimeOf(const std::string& r)
{
    for (std::size_t i = 0; i + 14 <= r.size(); ++i) {
        std::size_t j = i;
        while (j < r.size() && std::isdigit(static_cast<unsigned char>(r[j])))
            ++j;
        if (j - i >= 14 && (i == 0 || r[i - 1] == '_')) {
            const std::string d = r.substr(i, 14);
            return d.substr(0, 4) + "-" + d.substr(4, 2) + "-" + d.substr(6, 2) + " " + d.substr(8, 2) + ":"
                   + d.substr(10, 2) + ":" + d.substr(12, 2);
        }
        i = j;
    }
    return {};
}

// What the report is about: the folder, its ranks, chip and versions (the first rank that
// knows each).
ReportIdentity identityOf(const Session& session)
{
    ReportIdentity id;
    id.path = session.root;
    id.layout = session.layout;
    id.npuscopeVersion = NPUSCOPE_VERSION;
    std::string root = session.root;
    while (root.size() > 1 && root.back() == '/')
        root.pop_back();
    const auto pos = root.find_last_of('/');
    id.name = pos == std::string::npos ? root : root.substr(pos + 1);
    for (const auto& pr : session.ranks) {
        const Profile& p = *pr;
        if (p.rank >= 0)
            id.ranks.push_back(p.rank);
        if (id.soc.empty())
            for (const auto& d : p.deviceInfo)
                if (!d.chip.empty()) {
                    id.soc = d.chip;
                    break;
                }
        if (id.cannVersion.empty())
            id.cannVersion = p.meta.cannVersion;
        if (id.torchNpuVersion.empty())
            id.torchNpuVersion = p.meta.torchNpuVersion;
        if (id.profilerLevel.empty())
            id.profilerLevel = p.meta.profilerLevel;
        if (id.layout.empty())
            id.layout = p.layout;
        if (id.name.empty())
            id.name = p.name;
        if (id.captureTime.empty())
            id.captureTime = captureTimeOf(p.root);
    }
    return id;
}

// The report's appendix of files read: each rank's files, then the session's own.
std::vector<std::string> inputsOf(const Session& session)
{
    std::vector<std::string> inputs;
    for (const auto& pr : session.ranks) {
        const Profile& p = *pr;
        for (const auto& f : p.files)
            if (f.status != FileStatus::NotRead)
                inputs.push_back((p.rank >= 0 ? "rank " + std::to_string(p.rank) + ": " : std::string()) + f.path + " ("
                                 + (f.kind.empty() ? "unknown" : f.kind) + ", " + fileStatusName(f.status) + ", "
                                 + std::to_string(f.records) + " records"
                                 + (f.skipped ? ", " + std::to_string(f.skipped) + " skipped" : std::string()) + ")");
    }
    for (const auto& f : session.files)
        inputs.push_back(f.path + " (" + (f.kind.empty() ? "unknown" : f.kind) + ", " + fileStatusName(f.status) + ")");
    return inputs;
}

// Each rank's facts, built on all cores (an exception is rethrown here, after all are done).
std::vector<ProfileFacts> buildFacts(const Session& session)
{
    std::vector<std::optional<ProfileFacts>> built(session.ranks.size());
    std::vector<std::exception_ptr> failed(session.ranks.size());
    parallelFor(built.size(), 0, [&](std::size_t i) {
        try {
            built[i].emplace(*session.ranks[i]);
        } catch (...) {
            failed[i] = std::current_exception();
        }
    });
    for (const auto& e : failed)
        if (e)
            std::rethrow_exception(e);
    std::vector<ProfileFacts> facts;
    facts.reserve(built.size());
    for (auto& b : built)
        facts.push_back(std::move(*b));
    return facts;
}

// One run of a rule: on one rank's facts, or on the whole session (cluster rules, f null).
struct Job {
    const RuleDef* def;
    const ProfileFacts* f;
    std::string picked; // why this rank was picked, when the rules run on picked ranks
    RuleOut out;
};

struct Jobs {
    std::vector<Job> jobs;
    std::vector<std::pair<std::size_t, std::size_t>> of; // [begin, end) of each rule's jobs
};

// The runs of every enabled rule, in rule order: once for a cluster rule, else once per rank
// (or per picked rank over the rank budget).
Jobs planJobs(const std::vector<RuleDef>& defs, const std::vector<ProfileFacts>& facts, const Thresholds& th,
              const std::optional<Picks>& picks)
{
    Jobs plan;
    plan.of.resize(defs.size());
    for (std::size_t d = 0; d < defs.size(); ++d) {
        const RuleDef& def = defs[d];
        plan.of[d].first = plan.jobs.size();
        if (th.enabled(def.id)) {
            if (def.cluster)
                plan.jobs.push_back({&def, nullptr, {}, {}});
            else if (picks) {
                const auto it = picks->find(def.category);
                if (it != picks->end())
                    for (const Pick& p : it->second)
                        plan.jobs.push_back({&def, &facts[p.fact], p.why, {}});
            } else
                for (const auto& f : facts)
                    plan.jobs.push_back({&def, &f, {}, {}});
        }
        plan.of[d].second = plan.jobs.size();
    }
    return plan;
}

// Runs one job; a rule that throws reports an error instead of findings.
void runJob(Job& job, const Session& session, const std::vector<ProfileFacts>& facts, const Thresholds& th,
            const ClockOptions* clock)
{
    RuleOut& out = job.out;
    out.ruleId = job.def->id;
    out.category = job.def->category;
    RuleCtx ctx{session, facts, job.f, th, *job.def, clock};
    try {
        job.def->run(ctx, out);
    } catch (const std::exception& e) {
        out.status = Status::Error;
        out.error = e.what();
        out.fired.clear();
    } catch (...) {
        out.status = Status::Error;
        out.error = "unknown error";
        out.fired.clear();
    }
    if (!job.picked.empty()) {
        out.inputs.push_back("picked rank " + std::to_string(job.f->rank) + ": " + job.picked);
        for (auto& fd : out.fired)
            if (!fd.inputs.empty())
                fd.inputs.push_back(out.inputs.back());
    }
}

// A finding of a rule that is turned off in the thresholds file.
Finding disabledFinding(const RuleDef& def)
{
    Finding dis;
    dis.id = dis.rule = def.id;
    dis.category = def.category;
    dis.status = Status::Disabled;
    dis.title = def.summary;
    dis.check = "disabled in the thresholds file";
    dis.scope.cluster = def.cluster;
    return dis;
}

// A fired finding as the report shows it: its rule, scope and inputs filled in, its cost and
// gain as shares of the step time T, its severity from the thresholds file, the rule, or the
// cost share.
void completeFired(Finding& fd, const RuleDef& def, const RuleOut& out, const ProfileFacts* f, double T,
                   const Thresholds& th)
{
    const int rank = f ? f->rank : -1;
    fd.rule = def.id;
    fd.category = def.category;
    fd.status = Status::Fired;
    if (fd.inputs.empty())
        fd.inputs = out.inputs;
    if (f && rank >= 0 && fd.scope.ranks.empty())
        fd.scope.ranks.push_back(rank);
    fd.scope.cluster = def.cluster;
    fd.costShare = T > 0 ? static_cast<double>(fd.costNs) / T : 0;
    if (fd.gain.estimated) {
        fd.gain.shareOfT = T > 0 ? fd.gain.nsPerStep / T : 0;
        if (!(fd.gain.nsPerStep > 0)) {
            fd.gain.estimated = false;
            fd.gain.reason = "the formula gives no saving on this data";
        }
    }
    resolveSeverity(fd, th);
    if (fd.minor)
        fd.severity = FindingSeverity::Low;
    sortEvidence(fd.evidence);
}

// A run that did not fire (passed, not checked, error) as a finding, added to `groups`: runs of
// one rule with the same status, needs and error become one finding listing their ranks.
void groupNotFired(std::vector<Finding>& groups, const RuleDef& def, const RuleOut& out, int rank,
                   std::size_t rankCount)
{
    Finding g;
    g.id = g.rule = def.id;
    g.category = def.category;
    g.status = out.status == Status::Fired ? Status::Passed : out.status;
    g.title = def.summary;
    g.needs = out.needs;
    g.error = out.error;
    g.inputs = out.inputs;
    g.scope.cluster = def.cluster;
    const std::string rankPrefix = rank >= 0 && rankCount > 1 ? "rank " + std::to_string(rank) + ": " : "";
    g.check = out.check.empty() ? std::string() : rankPrefix + out.check;
    for (auto& e : groups) {
        if (e.status == g.status && e.needs == g.needs && e.error == g.error) {
            if (rank >= 0)
                e.scope.ranks.push_back(rank);
            if (!g.check.empty())
                e.check += (e.check.empty() ? "" : "; ") + g.check;
            return;
        }
    }
    if (rank >= 0)
        g.scope.ranks.push_back(rank);
    groups.push_back(std::move(g));
}

// One rule's runs, in rank order, into the report's findings: fired ones merged across ranks
// into `fired`, the others grouped by status into `others`.
void collectRule(const RuleDef& def, std::vector<Job>::iterator begin, std::vector<Job>::iterator end,
                 const std::vector<ProfileFacts>& facts, const Thresholds& th, double reportT,
                 std::vector<Finding>& fired, std::vector<Finding>& others)
{
    struct Run {
        RuleOut out;
        const ProfileFacts* f;
    };
    std::vector<Run> runs;
    for (auto j = begin; j != end; ++j)
        runs.push_back({std::move(j->out), j->f});
    if (runs.empty()) {
        Run r;
        r.out.notChecked("needs a loaded profile");
        r.f = nullptr;
        runs.push_back(std::move(r));
    }
    std::vector<Finding> groups;
    const std::size_t firstOfRule = fired.size();
    for (auto& run : runs) {
        if (run.out.status == Status::Fired && !run.out.fired.empty()) {
            const double T = run.f ? run.f->stepTime : reportT;
            // Claims become report-wide keys: the rank's index in the facts above the task index.
            const std::uint64_t rankKey = run.f ? static_cast<std::uint64_t>(run.f - facts.data() + 1) << kClaimRankShift : 0;
            for (auto& fd : run.out.fired) {
                completeFired(fd, def, run.out, run.f, T, th);
                for (auto& k : fd.claims)
                    k |= rankKey;
                mergeFired(fired, std::move(fd));
            }
            continue;
        }
        groupNotFired(groups, def, run.out, run.f ? run.f->rank : -1, facts.size());
    }
    for (auto& g : groups)
        others.push_back(std::move(g));
    mergeVariants(fired, firstOfRule, th);
}

} // namespace

void resolveSeverity(Finding& fd, const Thresholds& th)
{
    const double hi = th.severityHigh(), med = th.severityMedium();
    const std::string cfg = th.severity(fd.rule);
    if (cfg != "auto")
        fd.severity = severityFromName(cfg);
    else if (fd.ruleSeverity)
        fd.severity = *fd.ruleSeverity;
    else
        fd.severity = fd.costShare >= hi    ? FindingSeverity::High
                      : fd.costShare >= med ? FindingSeverity::Medium
                                            : FindingSeverity::Low;
}

// Fired findings by category, severity, gain (largest first), cost; the others by status.
void orderFindings(std::vector<Finding>& fired, std::vector<Finding>& others)
{
    auto catOrder = [](Category c) { return static_cast<int>(c); };
    std::stable_sort(fired.begin(), fired.end(), [&](const Finding& a, const Finding& b) {
        if (a.minor != b.minor)
            return b.minor; // the minor group after all the others
        if (catOrder(a.category) != catOrder(b.category))
            return catOrder(a.category) < catOrder(b.category);
        if (a.severity != b.severity)
            return severityOrder(a.severity) < severityOrder(b.severity);
        const double ga = a.gain.estimated ? a.gain.nsPerStep : -1, gb = b.gain.estimated ? b.gain.nsPerStep : -1;
        if (ga != gb)
            return ga > gb;
        return a.costNs > b.costNs;
    });
    auto statusOrder = [](Status s) {
        switch (s) {
        case Status::NotChecked: return 0;
        case Status::Passed: return 1;
        case Status::Disabled: return 2;
        case Status::Error: return 3;
        case Status::Fired: return 4;
        }
        return 4;
    };
    std::stable_sort(others.begin(), others.end(),
                     [&](const Finding& a, const Finding& b) { return statusOrder(a.status) < statusOrder(b.status); });
}

// The summary's counts by severity and status, and the three largest gains.
void countFindings(const std::vector<Finding>& fired, const std::vector<Finding>& others, Summary& sm)
{
    for (const auto& f : fired) {
        ++sm.fired;
        if (f.minor)
            ++sm.minor;
        else if (f.severity == FindingSeverity::High)
            ++sm.high;
        else if (f.severity == FindingSeverity::Medium)
            ++sm.medium;
        else
            ++sm.low;
    }
    for (const auto& f : others) {
        if (f.status == Status::Passed)
            ++sm.passed;
        else if (f.status == Status::NotChecked)
            ++sm.notChecked;
        else if (f.status == Status::Disabled)
            ++sm.disabled;
        else if (f.status == Status::Error)
            ++sm.errors;
    }
    std::vector<const Finding*> byGain;
    for (const auto& f : fired)
        if (f.gain.estimated && !f.minor)
            byGain.push_back(&f);
    std::stable_sort(byGain.begin(), byGain.end(),
                     [](const Finding* a, const Finding* b) { return a->gain.nsPerStep > b->gain.nsPerStep; });
    for (std::size_t i = 0; i < byGain.size() && i < 3; ++i)
        sm.topGains.push_back(byGain[i]->id);
}

AdvisorReport runAdvisor(const Session& session, const Thresholds& th, const std::atomic<bool>* cancel,
                         const ClockOptions* clock)
{
    // The rules' working memory is reused from rule to rule, and over a large session they get
    // the heap a load of its size gets (huge pages where the process manages them).
    const LoadAllocationScope heapReuse(session.loadedBytes());
    AdvisorReport rep;
    rep.warnings = th.warnings();
    rep.overrides = th.overrides();
    rep.thresholdsSource = th.source();
    rep.thresholdsDigest = th.effective().dump();
    rep.evidenceRowsPdf = th.evidenceRowsPdf();
    rep.evidenceRowsMd = th.evidenceRowsMd();
    rep.minShare = th.minShare();
    for (const auto& p : session.ranks) // the SelectionController's full range begins here too
        if (p && p->end > p->begin)
            rep.traceStart = rep.traceStart ? std::min(*rep.traceStart, p->begin) : p->begin;
    rep.identity = identityOf(session);
    rep.inputs = inputsOf(session);
    rep.inputProblems = inputProblems(session);

    // The plan's step graphs depend on the profiles alone: they are built on a thread of their
    // own beside the facts and the rules (one rank's facts leave a core idle).
    std::future<std::vector<StepGraph>> graphs;
    try {
        graphs = std::async(std::launch::async, [&session, cancel] {
            std::vector<StepGraph> g;
            for (const auto& p : session.ranks) {
                if (cancel && cancel->load())
                    return std::vector<StepGraph>{};
                g.push_back(buildStepGraph(*p));
            }
            return g;
        });
    } catch (const std::system_error&) { // no thread to spare: the plan builds them
    }
    const std::vector<ProfileFacts> facts = buildFacts(session);
    summarizeSteps(session, facts, rep);

    const bool overBudget = static_cast<int>(facts.size()) > std::max(1, th.rankBudget());
    std::optional<Picks> picks;
    if (overBudget) {
        picks = pickRanks(session, facts, th);
        std::string text;
        for (const auto& [cat, v] : *picks)
            for (const Pick& p : v)
                text += (text.empty() ? "" : "; ") + std::string(categoryName(cat)) + ": rank " + std::to_string(facts[p.fact].rank)
                        + " (" + p.why + ")";
        rep.warnings.push_back("Rank rules ran on picked ranks: " + text);
    }

    // Every (rule, rank) run is independent: they run on all cores first, then their results
    // are merged in report order below, so the report does not depend on the scheduling.
    const std::vector<RuleDef> defs = allRules();
    Jobs plan = planJobs(defs, facts, th, picks);
    parallelFor(plan.jobs.size(), 0, [&](std::size_t j) {
        if (cancel && cancel->load())
            return;
        runJob(plan.jobs[j], session, facts, th, clock);
    });

    std::vector<Finding> fired, others;
    for (std::size_t d = 0; d < defs.size(); ++d) {
        if (cancel && cancel->load()) {
            rep.cancelled = true;
            break;
        }
        if (!th.enabled(defs[d].id)) {
            others.push_back(disabledFinding(defs[d]));
            continue;
        }
        const auto begin = plan.jobs.begin();
        collectRule(defs[d], begin + static_cast<std::ptrdiff_t>(plan.of[d].first),
                    begin + static_cast<std::ptrdiff_t>(plan.of[d].second), facts, th, rep.T, fired, others);
    }
    orderFindings(fired, others);
    countFindings(fired, others, rep.summary);

    rep.findings = std::move(fired);
    rep.findings.insert(rep.findings.end(), std::make_move_iterator(others.begin()),
                        std::make_move_iterator(others.end()));
    if (!rep.cancelled) {
        std::vector<StepGraph> built = graphs.valid() ? graphs.get() : std::vector<StepGraph>{};
        // The roofline reads the facts alone (and writes no field the plan reads): it is
        // computed beside the plan, whose greedy replays leave a core idle.
        AdvisorReport roof;
        std::future<void> roofDone;
        try {
            roofDone = std::async(std::launch::async, [&] { addRoofline(roof, facts, th); });
        } catch (const std::system_error&) { // no thread to spare: after the plan
        }
        buildPlan(rep, facts, &built);
        if (roofDone.valid())
            roofDone.get();
        else
            addRoofline(roof, facts, th);
        rep.roofs = std::move(roof.roofs);
        rep.roofline = std::move(roof.roofline);
    }
    return rep;
}

} // namespace npuscope::advisor
