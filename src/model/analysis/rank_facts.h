#pragma once
// The facts of one rank that the advisor's rules share, computed once per analysis: its device
// tasks (kernel rows, else timeline stream tasks) with their class, the unions of its compute
// and communication time, its collective ops, its steps (computeOverlap's), its cube and vector
// tasks grouped by op type and by shape, and what its inputs can tell (capabilities).
#include "model/analysis/intervals.h"
#include "model/analysis/overlap.h"
#include "model/store/profile.h"

#include <string>
#include <string_view>
#include <vector>

namespace npuscope {

// Case-insensitive (ASCII) helpers on op, task and file names.
std::string lower(std::string s);
bool containsCI(std::string_view hay, std::string_view needle);
bool isCubeType(std::string_view type);
// FlashAttentionScore and its gradient, the prompt and incremental variants, fusion attention.
bool isFlashAttention(std::string_view type);

// A part of the step's Computing or Communication (not overlapped) time.
struct SplitPart {
    std::string name;  // "MatMul", "wait", ...
    double ns = 0;     // per step
};

// A device task's class, on op_stats.h's isCommunicationTask / isHcclTask / isComputeTask:
// communication (hcom_ ops, HCCL and COMMUNICATION task types); AI CPU; the other computation
// tasks are Cube when their op type is a matrix one (MatMul, GEMM, Conv) and Vector otherwise;
// anything else (HCCL's own tasks, waits, event records, memory copies) is Other.
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

// A group of device tasks: an op type, or an op type with its input shapes and dtypes.
struct TaskGroup {
    std::string key;    // the type, or "type [shapes dtypes]"
    std::string type;
    std::string shapes; // "shapes dtypes" (groups by shape)
    std::string dtypes; // the input dtypes (groups by shape)
    TaskClass cls = TaskClass::Other;
    std::vector<const Task*> tasks; // by start
    double sumDur = 0;
};

// One step of the rank: computeOverlap's breakdown of it, and what the rules add: its short name
// ("50", "3" of ProfilerStep#3, "E2E"), its time range (a step_trace_time.csv row takes its
// ProfilerStep#N span), and whether it is partial.
struct RankStep {
    StepBreakdown split;
    std::string name;
    bool hasRange = false;
    TimeNs start = 0, end = 0;
    bool partial = false; // cut by the capture, left out of T (overlap.h stepStats)
};

class RankFacts {
public:
    explicit RankFacts(const Profile& profile);
    // The task groups point into `tasks`: a move keeps its buffer, a copy would not.
    RankFacts(RankFacts&&) = default;
    RankFacts(const RankFacts&) = delete;
    RankFacts& operator=(const RankFacts&) = delete;

    const Profile& p;
    int rank = -1;
    std::vector<Task> tasks;        // sorted by start
    bool tasksFromKernels = false;
    OverlapResult overlap;          // the step breakdown of the analysis layer (computeOverlap)
    std::vector<RankStep> steps;    // its steps; at least one (E2E) when anything has a time
    std::string stepSource;
    double stepTime = 0;            // T in ADVISOR.md, ns: the median of the complete steps
    int nSteps = 1;                 // every step, partial ones too: totals over the trace divide by it
    double computing = 0, commNotOverlapped = 0, free = 0; // the median step's split (they add up to T)
    std::vector<SplitPart> computingParts, commParts;
    IntervalSet computeUnion;         // Cube, Vector and AI CPU tasks: the overlap's Computing
    struct CommInterval { TimeNs start, dur; std::string name; std::uint32_t slice; int device; };
    std::vector<CommInterval> commOpsTl; // collective ops on the timeline (or kernel comm rows)
    std::string commSource;
    IntervalSet commUnion;
    // The Cube and Vector tasks with a kernel row, grouped by class and op type (opTypes), and by
    // class, op type, input shapes and dtypes (opShapes); each sorted by class, then key.
    std::vector<TaskGroup> opTypes, opShapes;

    // Capabilities.
    bool hasKernels = false, hasTimeline = false, hasStepTrace = false, hasComm = false, hasInfo = false,
         hasMeta = false, hasCann = false, hasPython = false, level0 = false, torchNpu = false;

    double perStep(double totalNs) const { return nSteps > 0 ? totalNs / nSteps : totalNs; }
    // The part of [start, end) inside the steps' time ranges, or all of it when the steps have
    // none (step_trace_time.csv without ProfilerStep# spans): what an interval adds to the step time.
    TimeNs inSteps(TimeNs start, TimeNs end) const;
    std::string str(NameId id) const { return std::string(p.str(id)); }
    std::string shapesOf(const Task& t) const;   // "in 4096,4096;4096,4096 FLOAT16"
    // The name of the first of the rank's files with `role` (FileRole), or `otherwise`.
    std::string fileOf(FileRole role, const char* otherwise) const;
    std::string kernelFile() const; // the kernel table's name, or the one its layout writes
};

} // namespace npuscope
