#pragma once
// Internal to the advisor: the per-rank facts (RankFacts with what findings need), and the
// interface every rule implements.
#include "advisor/finding.h"
#include "advisor/report.h"
#include "advisor/thresholds.h"
#include "model/analysis/clock_align.h"
#include "model/analysis/rank_facts.h"
#include "model/store/session.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace npuscope {
struct StepGraph;
}

namespace npuscope::advisor {

// The rank's facts (model/analysis/rank_facts.h) and what the findings need of them.
class ProfileFacts : public RankFacts {
public:
    using RankFacts::RankFacts;
    Locator locate(const Task& t) const;
    // Missing capability text for the level-dependent inputs.
    std::string needsLevel1() const;
};

// What one rule reports for one scope.
struct RuleOut {
    Status status = Status::Passed;
    std::string needs, check, error;
    std::vector<std::string> inputs;
    std::vector<Finding> fired;
    void notChecked(std::string n) { status = Status::NotChecked; needs = std::move(n); }
    void pass(std::string c) { status = Status::Passed; check = std::move(c); }
    Finding& fire(const std::string& instanceKey);
    std::string ruleId;
    Category category = Category::Computation;
};

struct RuleDef;
struct RuleCtx {
    const Session& session;
    const std::vector<ProfileFacts>& all; // every rank
    const ProfileFacts* f;                // the rank under evaluation (null for cluster rules)
    const Thresholds& th;
    const RuleDef& def;
    const ClockOptions* clock = nullptr; // the ranks' clocks (runAdvisor's `clock`); null: aligned
    double param(const char* key) const { return th.param(ruleId(), key); }
    const nlohmann::json& paramJson(const char* key) const { return th.paramJson(ruleId(), key); }
    const std::string& ruleId() const;
};

struct RuleDef {
    std::string id;
    Category category;
    bool cluster = false; // runs once over the session instead of once per rank
    std::string summary;
    std::function<void(const RuleCtx&, RuleOut&)> run;
};

void addComputationRules(std::vector<RuleDef>& out);
void addCommunicationRules(std::vector<RuleDef>& out);
void addSchedulingRules(std::vector<RuleDef>& out);
void addMemoryRules(std::vector<RuleDef>& out);
void memoryPeakRule(const RuleCtx& c, RuleOut& out); // MEM-PEAK (rules_memory_peak.cpp)
void addClusterRules(std::vector<RuleDef>& out);
void addAffinityRules(std::vector<RuleDef>& out); // CMP-AFFINITY (rules_affinity.cpp)
void addAttentionRules(std::vector<RuleDef>& out); // CMP-FA (rules_attention.cpp)

// A fired finding's severity: fixed by the thresholds file, else by the rule, else by its cost
// share (ADVISOR.md §1).
void resolveSeverity(Finding& fd, const Thresholds& th);
// Merges the fired findings from `first` on that share a rule and a family (the shape variants
// of one op type or op-type sequence) into one finding each, and then those of one rule that
// still share a title; the merged finding keeps the place of its costliest variant.
void mergeVariants(std::vector<Finding>& fired, std::size_t first, const Thresholds& th);

// A claim key: the rank's index in the facts (plus one) from this bit up, the task index below.
inline constexpr int kClaimRankShift = 40;
// The action plan (ADVISOR.md §3b) over the report's fired findings: at most 7 actions, each
// the finding with the largest gain on the device time the earlier actions left unclaimed.
// `graphs`: each rank's step graph in the facts' order, when built already (they are moved
// from); null or empty: the plan builds them.
void buildPlan(AdvisorReport& rep, const std::vector<ProfileFacts>& facts, std::vector<StepGraph>* graphs = nullptr);
// The complete steps the plan replays per rank at most: a replay costs the same per step, and on
// the generator's 1.2 GB shapes (706 to 1368 steps) the plan's step and gains over an even sample
// of 64 stay within 0.3 % of the whole run's, for 64/N of its replay time.
inline constexpr std::size_t kPlanSampleSteps = 64;
// The plan by replaying each rank's step graph (model/analysis/whatif.h): every action a graph
// change, the estimated step after the plan one replay with all of them, each action's gain the
// step it saves after the earlier ones (action_plan_replay.cpp). False when nothing can be
// replayed (no timeline): the caller weighs the claims instead. A rank with more than
// `sampleSteps` complete steps (0: no limit) is replayed over that many of them, chosen evenly
// over the run (WhatIfOptions::maxSteps), the baseline replay too; the gains' formulas say so.
// `graphs` as for buildPlan.
bool buildPlanByReplay(AdvisorReport& rep, const std::vector<ProfileFacts>& facts, std::vector<ClaimAtom>& atoms,
                       std::size_t sampleSteps = kPlanSampleSteps, std::vector<StepGraph>* graphs = nullptr);
// The index in rep.plan of the line for `f`'s action (its first suggestion, else its title):
// the line already there with that action (one thing to do is one line of the plan), else a new
// one taking `f`'s id and title.
int planItemFor(AdvisorReport& rep, const Finding& f);
// The fired findings' claims grouped into atoms (tasks claimed by the same findings).
std::vector<ClaimAtom> claimAtoms(const AdvisorReport& rep, const std::vector<ProfileFacts>& facts);
// The plan over the report's fired findings weighed by `atoms` (rep.claimAtoms when built by
// buildPlan): the same plan whether the claims are at hand or a cluster summary stored them.
void buildPlanFromAtoms(AdvisorReport& rep, std::vector<ClaimAtom> atoms);
// The report's roofline (roofline.cpp): each rank's roofs and its points.
void addRoofline(AdvisorReport& rep, const std::vector<ProfileFacts>& facts, const Thresholds& th);

// The report's step time (step_summary.cpp): each rank's split, and T, the median of every
// rank's complete steps taken together (of the cluster step rows when there are no folders).
void summarizeSteps(const Session& session, const std::vector<ProfileFacts>& facts, AdvisorReport& rep);
// Sets the summary's min / median / max and T from the complete steps of its ranks (sm.ranks
// filled): one rank's T is its own, several ranks' the median of their steps together.
void poolSteps(Summary& sm, std::vector<double> complete);

// The report's order: fired findings by category, severity, gain (largest first), cost; the
// others by status (not checked, passed, disabled, error).
void orderFindings(std::vector<Finding>& fired, std::vector<Finding>& others);
// Adds their counts by severity and status, and the three largest gains, to `sm`.
void countFindings(const std::vector<Finding>& fired, const std::vector<Finding>& others, Summary& sm);

// Helpers shared by the rules.
// The first of the metric columns `cols` that row has a value in, else NaN. Inline: the rules
// call it for every task, several times.
inline double firstMetric(const KernelTable& k, const std::vector<int>& cols, std::size_t row)
{
    for (int c : cols) {
        const double v = k.metrics[static_cast<std::size_t>(c)][row];
        if (!isMissing(v))
            return v;
    }
    return kNaN;
}
std::vector<int> metricCols(const KernelTable& k, std::initializer_list<const char*> names);
std::string fmtUs(double ns);
std::string fmtRatio(double v);
// Duration-weighted mean of a per-task value over tasks that have it; coverage counts them.
struct Weighted {
    double sumW = 0, sumWV = 0;
    std::size_t n = 0;
    void add(double w, double v)
    {
        if (!isMissing(v)) {
            sumW += w;
            sumWV += w * v;
            ++n;
        }
    }
    double mean() const { return sumW > 0 ? sumWV / sumW : kNaN; }
};
// Sort evidence by cost descending and keep at most n rows (the full list is kept when n < 0).
void sortEvidence(std::vector<Evidence>& ev, int n = -1);

} // namespace npuscope::advisor
