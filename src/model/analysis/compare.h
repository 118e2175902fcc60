#pragma once
// Baseline vs current (optimised) run: headline table and per-operator diff.
// Conventions (ADVISOR.md §5): delta = current − baseline, ratio = current / baseline, and every
// headline row says whether lower or higher is better.
// Several ranks: the step time is the slowest rank's (the step waits for it); utilisation, L2
// and bandwidth are means over ranks; operator counts and totals are summed over ranks.
#include "model/analysis/op_mapping.h"
#include "model/analysis/op_stats.h"
#include "model/analysis/overlap.h"
#include "model/analysis/step_diff.h"
#include "model/store/input_problems.h"
#include "model/store/session.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace npuscope {

enum class Better { Lower, Higher };

struct HeadlineRow {
    std::string metric;   // "Step time"
    std::string unit;     // "ms", "steps/s", "%"
    double baseline = kNaN, current = kNaN;
    double ratio = kNaN;  // current / baseline
    double delta = kNaN;  // current − baseline
    Better better = Better::Lower;
    RatioInterval ci;     // 95 % interval of the ratio over per-step values, when known
    // True when current is better than baseline, false when worse or equal or unknown.
    bool improved() const;
};

// How the operator diff puts two runs side by side. Runs of different lengths (11 steps against
// 21) have whole-run totals that say more about the length than about the operators, so the
// diff is per step unless the whole run is asked for; the verdict is per step either way.
enum class OpTimes { PerStep, WholeRun };

struct OpDiffRow {
    std::string key;
    bool inBaseline = false, inCurrent = false;
    std::uint64_t baselineCount = 0, currentCount = 0;
    TimeNs baselineTotal = 0, currentTotal = 0;
    double baselineAvgNs = kNaN, currentAvgNs = kNaN;
    TimeNs delta = 0;     // currentTotal − baselineTotal
    double ratio = kNaN;  // currentTotal / baselineTotal (NaN when only in current)
    // Per step (CompareSide::opsPerStep): the operator's time inside the steps the step time is
    // computed over, divided by their number, summed over ranks; NaN when not computed.
    double baselineNsPerStep = kNaN, currentNsPerStep = kNaN;
    double baselineCountPerStep = kNaN, currentCountPerStep = kNaN;
    // Only in the optimized run, and the operator mapping has it in a window that replaced
    // baseline operators (FlashAttentionScore for BatchMatMul→SoftmaxV2→BatchMatMul): "new".
    bool replacement = false;
    bool perStepKnown() const { return !std::isnan(baselineNsPerStep) && !std::isnan(currentNsPerStep); }
    double deltaPerStep() const { return currentNsPerStep - baselineNsPerStep; }
    // currentNsPerStep / baselineNsPerStep (NaN when only in current)
    double ratioPerStep() const;
    // The shown time of each side, its change and ratio: per step or over the whole run.
    double baselineNs(OpTimes t) const;
    double currentNs(OpTimes t) const;
    double deltaNs(OpTimes t) const { return currentNs(t) - baselineNs(t); }
    double ratioOf(OpTimes t) const { return t == OpTimes::PerStep && perStepKnown() ? ratioPerStep() : ratio; }
};

// A change of less than this share of the larger value is run-to-run noise: "same".
inline constexpr double kSameWithin = 0.01;

// One advisor finding of either run, matched by id (advisor/advisor_diff.h fills these; the
// model knows nothing of the advisor).
enum class FindingChange { Fixed, Remaining, New };
const char* findingChangeName(FindingChange c); // "fixed", "remaining", "new"
struct AdvisorDiffRow {
    FindingChange change = FindingChange::Remaining;
    std::string id, title, category;
    std::string severityBefore, severityAfter; // "high", "medium", "low"; "" on the side without it
    TimeNs costBefore = 0, costAfter = 0;       // per step; 0 on the side without it
    // The advice checked against the optimized run (advisor/advice_check.h, `compare
    // --validate-advice`); empty status and NaN times until checked.
    std::string status;   // "fixed", "partly", "remaining" (baseline findings), "new"
    double predictedGainNs = kNaN;  // the baseline finding's estimated gain per step (NaN: none)
    std::string covered;  // what the finding covers: a part of the step or its operators
    std::vector<std::string> coveredOps; // the operator keys of an operator-level finding
    double coveredBeforeNs = kNaN, coveredAfterNs = kNaN; // that time per step in each run
    double realisedNs = kNaN;       // coveredBeforeNs − coveredAfterNs: what the change saved
    bool grew = false;              // the covered time grew beyond the noise band
};

struct CompareOptions {
    GroupBy groupBy = GroupBy::Type;
    double peakHbmGBps = kNaN;   // NaN: per profile (summary.h)
    double tokensPerStep = 0;    // > 0 adds a per-token latency row
    double sameWithin = kSameWithin; // the share of the larger value under which a change is "same"
    bool mapOperators = true;    // fills CompareResult::mapping (op_mapping.h)
    bool stepSpans = true;       // fills CompareResult::baselineSpans / currentSpans (step_diff.h)
    OpTimes opTimes = OpTimes::PerStep; // what the operator diff shows and sorts by
};

struct CompareResult {
    std::vector<HeadlineRow> headline;
    std::vector<OpDiffRow> ops;  // sorted by |deltaNs(opTimes)| descending, then key
    OpTimes opTimes = OpTimes::PerStep; // as asked for (CompareOptions)
    // How many steps the operators' per-step times of each run are over (CompareSide::opSteps)
    // and how the operators were put into them (CompareSide::opBasis).
    int baselineOpSteps = 0, currentOpSteps = 0;
    std::string baselineOpBasis, currentOpBasis;
    double speedup = kNaN;       // baseline step / current step
    double sameWithin = kSameWithin; // as asked for (CompareOptions)
    // Per-step step times (ms) of the rank the step time comes from (the slowest), and the 95 %
    // bootstrap interval of optimized / baseline over them; the step time and throughput
    // verdicts use it, with sameWithin as the floor.
    std::vector<double> baselineStepsMs, currentStepsMs;
    std::vector<StepBreakdown> baselineSteps, currentSteps; // their split (overlap.h)
    RatioInterval stepRatio;
    OpMapping mapping;
    // Each run's steps with where their time went, for the side-by-side view (step_diff.h), and
    // the default anchors (the median step of each) and the pairs around them.
    std::vector<StepSpan> baselineSpans, currentSpans;
    int baselineAnchor = -1, currentAnchor = -1;
    std::vector<StepPair> stepPairs;
    bool advisorCompared = false;           // set with `advisor` by the caller that ran both advisors
    std::vector<AdvisorDiffRow> advisor;    // fixed, remaining, new; each by cost, descending
    // Set with the rows' status by advisor/advice_check.h: the baseline plan's estimated step
    // after its actions and the optimized run's measured step T (median of complete steps), ns.
    bool adviceChecked = false;
    double planStepNs = kNaN, measuredStepNs = kNaN, baselineStepNs = kNaN;
    // "faster by 2.89× (95 % CI 2.85–2.93, 11 vs 11 steps)", "slower by …", "the same (…)"; ""
    // without step times.
    std::string verdictText() const;
    // Files of either run read in part or not at all (compareSessions): the report says so first.
    std::vector<InputProblem> baselineProblems, currentProblems;
};

// One run as the comparison reads it: what compareSessions takes from the profiles, and what a
// cluster summary gives for a run whose folders stay where they are (cluster_summary.h).
struct CompareSide {
    double stepMs = kNaN, computingMs = kNaN, notOverlappedMs = kNaN, freeMs = kNaN; // of the slowest rank
    double aicUtil = kNaN, l2Hit = kNaN, hbmUtil = kNaN, hbmGBps = kNaN;             // means over ranks
    std::map<std::string, std::pair<std::uint64_t, TimeNs>> ops; // key -> (count, total), summed over ranks
    // key -> (count, ns) per step, summed over ranks: each rank's operator time inside the spans
    // of the steps its step time is computed over, divided by their number. Empty when the steps
    // have no spans (a cluster summary): compareSides then divides `ops` by the steps.
    std::map<std::string, std::pair<double, double>> opsPerStep;
    int opSteps = 0;         // the steps of the rank with the most (per-step operator times)
    std::string opBasis;     // "inside the steps' spans" or "run total / steps"
    std::vector<double> stepsMs;       // per step, of the slowest rank
    std::vector<StepBreakdown> steps;
};
CompareSide compareSide(const Session& s, const CompareOptions& o = {});
// The headline, the verdict and its interval, and the operator diff of two sides (no mapping,
// no steps side by side: they need the operators in order, which only profiles have).
CompareResult compareSides(const CompareSide& baseline, const CompareSide& current, const CompareOptions& o = {});
// Orders r.ops by the magnitude of their change in r.opTimes, the largest first, then by key: what
// compareSides does, again after r.opTimes changed.
void sortOps(CompareResult& r);
// Sets the runs' steps (step_diff.h) in r, with the median step of each as the anchors and the
// pairs around them: what compareSessions does with o.stepSpans.
void alignStepSpans(CompareResult& r, std::vector<StepSpan> baseline, std::vector<StepSpan> current);
// With the two below, also the operator mapping and the steps side by side (o.mapOperators,
// o.stepSpans) and the input problems of both.
CompareResult compareSessions(const Session& baseline, const Session& current, const CompareOptions& o = {});
CompareResult compareProfiles(const Profile& baseline, const Profile& current, const CompareOptions& o = {});

} // namespace npuscope
