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

struct OpDiffRow {
    std::string key;
    bool inBaseline = false, inCurrent = false;
    std::uint64_t baselineCount = 0, currentCount = 0;
    TimeNs baselineTotal = 0, currentTotal = 0;
    double baselineAvgNs = kNaN, currentAvgNs = kNaN;
    TimeNs delta = 0;     // currentTotal − baselineTotal
    double ratio = kNaN;  // currentTotal / baselineTotal (NaN when only in current)
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
};

struct CompareOptions {
    GroupBy groupBy = GroupBy::Type;
    double peakHbmGBps = kNaN;   // NaN: per profile (summary.h)
    double tokensPerStep = 0;    // > 0 adds a per-token latency row
    double sameWithin = kSameWithin; // the share of the larger value under which a change is "same"
    bool mapOperators = true;    // fills CompareResult::mapping (op_mapping.h)
    bool stepSpans = true;       // fills CompareResult::baselineSpans / currentSpans (step_diff.h)
};

struct CompareResult {
    std::vector<HeadlineRow> headline;
    std::vector<OpDiffRow> ops;  // sorted by |delta| descending, then key
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
    std::vector<double> stepsMs;       // per step, of the slowest rank
    std::vector<StepBreakdown> steps;
};
CompareSide compareSide(const Session& s, const CompareOptions& o = {});
// The headline, the verdict and its interval, and the operator diff of two sides (no mapping,
// no steps side by side: they need the operators in order, which only profiles have).
CompareResult compareSides(const CompareSide& baseline, const CompareSide& current, const CompareOptions& o = {});
// Sets the runs' steps (step_diff.h) in r, with the median step of each as the anchors and the
// pairs around them: what compareSessions does with o.stepSpans.
void alignStepSpans(CompareResult& r, std::vector<StepSpan> baseline, std::vector<StepSpan> current);
// With the two below, also the operator mapping and the steps side by side (o.mapOperators,
// o.stepSpans) and the input problems of both.
CompareResult compareSessions(const Session& baseline, const Session& current, const CompareOptions& o = {});
CompareResult compareProfiles(const Profile& baseline, const Profile& current, const CompareOptions& o = {});

} // namespace npuscope
