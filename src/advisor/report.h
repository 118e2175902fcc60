#pragma once
// What the advisor reports: the report and its summary, plan and claims, and the formatting
// shared by the writers and the rules. The rules (rule_context.h) fill it; advisor.h runs them.
#include "advisor/finding.h"
#include "advisor/roofline.h"
#include "advisor/thresholds.h"
#include "model/analysis/rank_facts.h"
#include "model/analysis/summary.h"
#include "model/store/input_problems.h"
#include "model/store/session.h"

#include <optional>
#include <string>
#include <vector>

namespace npuscope::advisor {

struct ReportIdentity {
    std::string name;            // profile (folder) name
    std::string path;            // what was opened
    std::string layout;
    std::vector<int> ranks;
    std::string soc;             // chip, when known
    std::string cannVersion, torchNpuVersion;
    std::string captureTime;     // from the folder name or profiler info, when known
    std::string profilerLevel;
    std::string npuscopeVersion;
};

// One rank's step: its StepSplit (T, the median of its complete steps, and the median step's
// split), with the advisor's name of the source ("step_trace_time.csv", "timeline
// (ProfilerStep#)", "timeline (E2E)"), and what the advisor adds: the parts of Computing and of
// Communication (not overlapped).
struct RankSplit {
    int rank = -1;
    StepSplit split;
    std::vector<SplitPart> computingParts; // FA, Conv, MatMul, Vector, SDMA, other
    std::vector<SplitPart> commParts;      // wait, transmit
    double T() const { return static_cast<double>(split.stepTime); }
};

// The report's step over every rank together: not one rank's StepSplit but the median of the
// complete steps of all ranks pooled (poolSteps), with no split of its own.
struct Summary {
    // The step time every share of the whole report is measured against (ns): the median of the
    // complete steps, of every rank's together on a cluster (a rank's findings are measured
    // against its own T).
    double T = 0;
    std::string tSource;
    int steps = 0;      // every step (of every rank)
    int partial = 0;    // of them, left out as partial
    double stepMin = 0, stepMedian = 0, stepMax = 0; // of the complete steps
    std::vector<RankSplit> ranks;
    // fired = high + medium + low + minor: the minor group (below min_share) is counted apart.
    int high = 0, medium = 0, low = 0; // fired findings outside the minor group
    int minor = 0;                     // fired below min_share
    int fired = 0, passed = 0, notChecked = 0, disabled = 0, errors = 0;
    std::vector<std::string> topGains; // ids of the (up to) 3 fired findings with the largest gain
};

// The plan's length: at most kPlanMaxActions actions; past the first kPlanMinActions, one that
// would buy less than kPlanMinLaterShare of the step is left to the findings list (a plan is
// what to do first, not every finding with a gain). The plan and its replay read the same three.
inline constexpr std::size_t kPlanMaxActions = 7;
inline constexpr std::size_t kPlanMinActions = 3;
inline constexpr double kPlanMinLaterShare = 0.01;

// One action of the plan (ADVISOR.md §3b): a finding to act on, with the gain it has on the
// device time the earlier actions leave.
struct PlanItem {
    std::string findingId;
    std::string title;   // the finding's title
    std::string action;  // what to do first: the finding's first suggestion
    Gain gain;           // on what the earlier actions leave; the plan's gains add up
    // Other findings whose first suggestion is this same action: their gains are in this one.
    std::vector<std::string> alsoFindings;
    std::size_t tasks = 0;               // device tasks this action claims (none claimed before)
    std::vector<std::uint64_t> claimed;  // their keys (rank facts index << 40 | task index), or its pool
};

// The device tasks that the same fired findings claim (Finding::claims), as one piece: the ids of
// those findings, how many tasks and their total duration. What the plan weighs actions by; a
// cluster summary stores each rank's, so that its plan is the plan of its folders.
struct ClaimAtom {
    std::vector<std::string> ids;        // sorted
    std::size_t tasks = 0;
    double ns = 0;                       // Σ duration of the tasks
    std::vector<std::uint64_t> keys;     // the claim keys, while the facts are at hand
};

struct AdvisorReport {
    int schemaVersion = 1;
    ReportIdentity identity;
    double T = 0;
    Summary summary;
    // The 3–7 actions to do first, in order; T − Σ gains is the estimated step after them.
    std::vector<PlanItem> plan;
    double planStepNs = 0; // T − Σ plan gains (an estimate)
    std::vector<ClaimAtom> claimAtoms; // what the plan was weighed by (not exported)
    // One roofline per rank: its roofs, and a point per op type and shape (costliest first).
    std::vector<RooflineRoofs> roofs;
    std::vector<RooflinePoint> roofline;
    std::vector<Finding> findings; // fired first (by category, severity, gain), then not checked, passed, disabled, error
    std::vector<std::string> warnings;
    std::vector<std::string> inputs;               // appendix: files read (path, kind, records)
    std::vector<InputProblem> inputProblems;       // files read in part or not at all: shown first
    std::vector<Thresholds::Override> overrides;   // appendix: non-default thresholds
    std::string thresholdsSource;
    std::string thresholdsDigest; // the effective thresholds (compact JSON) the report was computed with
    int evidenceRowsPdf = 10, evidenceRowsMd = 5;
    double minShare = 0.01; // below it a fired finding is minor
    bool cancelled = false;
    // The trace start (earliest begin of any rank with a time span), as the GUI measures from:
    // the text, Markdown, HTML and PDF reports write evidence times relative to it ("at
    // 47.483 ms"); JSON keeps the absolute timestamps.
    std::optional<TimeNs> traceStart;

    std::vector<const Finding*> fired() const;
    std::vector<const Finding*> withStatus(Status s) const;
};

// Formatting shared by the writers.
std::string fmtMs(double ns);        // "18.20 ms"
std::string fmtPct(double share);    // "6.1 %"
std::string fmtNum(double v, int decimals = 2);

} // namespace npuscope::advisor
