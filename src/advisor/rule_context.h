#pragma once
// Internal to the advisor: per-profile facts computed once (tasks, steps, unions), and the
// interface every rule implements.
#include "advisor/advisor.h"
#include "advisor/finding.h"
#include "advisor/thresholds.h"
#include "model/analysis/intervals.h"
#include "model/analysis/overlap.h"
#include "model/store/session.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace npuscope::advisor {

enum class TaskClass : std::uint8_t { Cube, Vector, AiCpu, Comm, Other };

// One device task: a kernel-table row (preferred, it has the PMU metrics) or a timeline task.
struct Task {
    TimeNs start = 0, dur = 0;
    std::uint32_t kernel = kNone; // KernelTable row
    std::uint32_t slice = kNone;  // timeline slice row
    int device = -1;
    std::int64_t stream = -1;
    NameId name, type, taskType;
    TaskClass cls = TaskClass::Other;
    TimeNs end() const { return start + dur; }
};

struct StepSpan {
    std::string name;
    bool hasRange = false;
    TimeNs start = 0, end = 0;
    double computing = 0, commNotOverlapped = 0, free = 0, total = 0;
};

class ProfileFacts {
public:
    explicit ProfileFacts(const Profile& profile);

    const Profile& p;
    int rank = -1;
    std::vector<Task> tasks;        // sorted by start
    bool tasksFromKernels = false;
    OverlapResult overlap;          // the step breakdown of the analysis layer (computeOverlap)
    std::vector<StepSpan> steps;    // its steps; at least one (E2E) when anything has a time
    std::string stepSource;
    double stepTime = 0;            // mean step time, ns (T in ADVISOR.md)
    int nSteps = 1;
    double computing = 0, commNotOverlapped = 0, free = 0; // per step
    std::vector<SplitPart> computingParts, commParts;
    IntervalSet computeUnion;         // Cube/Vector device tasks
    struct CommInterval { TimeNs start, dur; std::string name; std::uint32_t slice; int device; };
    std::vector<CommInterval> commOpsTl; // collective ops on the timeline (or kernel comm rows)
    std::string commSource;
    IntervalSet commUnion;

    // Capabilities.
    bool hasKernels = false, hasTimeline = false, hasStepTrace = false, hasComm = false, hasInfo = false,
         hasMeta = false, hasCann = false, hasPython = false, level0 = false, torchNpu = false;

    double perStep(double totalNs) const { return nSteps > 0 ? totalNs / nSteps : totalNs; }
    // The part of [start, end) inside the steps' time ranges, or all of it when the steps have
    // none (step_trace_time.csv without ProfilerStep# spans): what an interval adds to the step time.
    TimeNs inSteps(TimeNs start, TimeNs end) const;
    std::string str(NameId id) const { return std::string(p.str(id)); }
    std::string shapesOf(const Task& t) const;   // "in 4096,4096;4096,4096 FLOAT16"
    Locator locate(const Task& t) const;
    std::string fileOf(const char* kind) const; // file name of a loaded input kind, or a generic name
    std::string kernelFile() const;
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
void buildPlan(AdvisorReport& rep, const std::vector<ProfileFacts>& facts);
// The report's roofline (roofline.cpp): each rank's roofs and its points.
void addRoofline(AdvisorReport& rep, const std::vector<ProfileFacts>& facts, const Thresholds& th);

// The report's order: fired findings by category, severity, gain (largest first), cost; the
// others by status (not checked, passed, disabled, error).
void orderFindings(std::vector<Finding>& fired, std::vector<Finding>& others);
// Adds their counts by severity and status, and the three largest gains, to `sm`.
void countFindings(const std::vector<Finding>& fired, const std::vector<Finding>& others, Summary& sm);

// Helpers shared by the rules.
std::string lower(std::string s);
bool containsCI(std::string_view hay, std::string_view needle);
bool isCubeType(std::string_view type);
// FlashAttentionScore and its gradient, the prompt and incremental variants, fusion attention.
bool isFlashAttention(std::string_view type);
double firstMetric(const KernelTable& k, const std::vector<int>& cols, std::size_t row); // NaN when none
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
