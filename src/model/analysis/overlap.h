#pragma once
// Computation/communication overlap and the per-step breakdown of one rank.
//
// Sources, first that exists wins:
//  1. step_trace_time.csv rows (Profile::steps) of the rank, with a Computing value, of one device
//     (the one with the most rows): Computing, Communication(Not Overlapped), Overlapped,
//     Communication, Free as written.
//  2. The timeline's "Overlap Analysis" tracks, by thread name (never by tid, whose order differs
//     between versions): Σ Computing, Communication, Communication(Not Overlapped), Free; split per
//     ProfilerStep#N span when the timeline has them. Not when the lanes lack Computing while
//     device tasks computed (partial lanes).
//  3. Device tasks: Computing = ∪ computation tasks (isComputeTask(): AI Core, AI Vector, MIX,
//     AI CPU and DSA kernels, or tasks with a kernel table row; only those when every kernel row
//     found its task), never a task on a communication
//     stream (one with HCCL's Notify/Write Value tasks) nor a runtime task (EVENT_WAIT,
//     MEMCPY_ASYNC, ...), as in the profiler's own Computing lane;
//     Communication = ∪ communication ops (CommGroup tracks, else communication tasks),
//     Overlapped = Computing ∩ Communication, Not Overlapped = Communication − Computing,
//     Free = span − (Computing ∪ Communication); span = each ProfilerStep#N, else first to last
//     device task.
// A step's time = Computing + Communication(Not Overlapped) + Free; with source 3 this equals
// the ProfilerStep#N span, or the end-to-end span without steps. T (ADVISOR.md) is the median of
// the complete steps (stepStats below).
#include "model/analysis/intervals.h"
#include "model/store/profile.h"

#include <string>
#include <vector>

namespace npuscope {

struct StepBreakdown {
    std::string step;       // "50", "ProfilerStep#3", or "" for the whole profile
    TimeNs begin = 0, end = 0; // span when known (0, 0 from step_trace_time)
    TimeNs computing = 0, commNotOverlapped = 0, overlapped = 0, communication = 0, free = 0;
    TimeNs stepTime() const { return computing + commNotOverlapped + free; }
};

enum class OverlapSource { None, StepTrace, OverlapTracks, Tasks };
const char* overlapSourceName(OverlapSource s);

// How much of one communication op ran while the same rank computed.
struct CollectiveOverlap {
    std::string name;
    TimeNs start = 0, dur = 0;
    TimeNs covered = 0;     // |op ∩ Computing|, Computing of source 3 whatever the breakdown source
    double ratio = 0;       // covered / dur (0 for zero-length ops)
    TimeNs exposed() const { return dur - covered; }
};

// The device-side time sets the breakdown is computed from (source 3).
struct DeviceIntervals {
    IntervalSet compute, comm;
    std::vector<std::pair<std::string, Interval>> commOps; // each communication op, by start
    TimeNs first = 0, last = 0;                            // first start, last end of any task
    bool empty() const { return compute.empty() && comm.empty(); }
};
// `commOps` false leaves DeviceIntervals::commOps empty (the time sets alone).
DeviceIntervals deviceIntervals(const Profile& p, bool commOps = true);
// ProfilerStep#N slices of the host timeline, by start: (name, span).
std::vector<std::pair<std::string, Interval>> profilerSteps(const Profile& p);
// The breakdown of each named span from the device time sets (source 3): Computing =
// |compute ∩ span|, Communication = |comm ∩ span|, Overlapped = |compute ∩ comm ∩ span|, Free =
// span − |(compute ∪ comm) ∩ span|, so Computing + Not overlapped + Free is the span.
std::vector<StepBreakdown> splitSpans(const DeviceIntervals& d, const std::vector<std::pair<std::string, Interval>>& spans);

// The steps T is taken over. A step is partial, cut by the capture window, when it is the first
// or the last of two or more steps and either
//  - lasts less than 0.6 (kPartialStepShare, overlap.cpp) of the median of the other steps (the
//    interior ones when there are three or more): the capture started or stopped inside it and
//    took an arbitrary part of it. A slow first step (warm-up, graph compilation) is longer, never
//    shorter: it stays. Or
//  - is the last one and the input ends inside it (`lastCut`: a timeline read in part).
// Partial steps are excluded from T and counted. T is the median of the complete steps (the
// mean of the two middle ones for an even count); min and max are theirs too.
struct StepStats {
    int steps = 0;                  // every step
    int partial = 0;                // of them, left out as partial
    std::vector<char> isPartial;    // per step, in step order
    double median = 0, min = 0, max = 0; // over the complete steps, ns
    std::size_t midLow = 0, midHigh = 0; // the middle complete step(s) by time: indices into the steps
    int complete() const { return steps - partial; }
};
// `durations` in step order (ns).
StepStats stepStats(const std::vector<double>& durations, bool lastCut = false);
// "5 complete steps; 1 partial excluded", "1 step", "3 steps".
std::string stepCountText(const StepStats& s);

struct OverlapResult {
    OverlapSource source = OverlapSource::None;
    std::vector<StepBreakdown> steps;
    StepBreakdown total;                 // Σ over steps
    StepStats stats;                     // which steps are complete, and their median
    // The median complete step's split (the mean of the two middle steps' for an even count):
    // its stepTime() is T, so Computing + Communication(Not Overlapped) + Free add up to T.
    StepBreakdown typical;
    TimeNs stepTime = 0;                 // T: typical.stepTime(), the median of the complete steps
    std::string stepTimeSource;          // "step_trace_time", "Overlap Analysis", "ProfilerStep#N spans", "E2E ..."
    std::vector<CollectiveOverlap> collectives; // from the timeline, whatever the breakdown source
    std::vector<std::pair<std::string, Interval>> spans; // profilerSteps(), whatever the breakdown source
};
OverlapResult computeOverlap(const Profile& p);
// What computeOverlap does last with its steps: `r.total`, `r.stats`, `r.typical` and `r.stepTime`
// from `r.steps`. For steps read elsewhere (a cluster step trace's rows of one rank).
void finishSteps(OverlapResult& r, bool lastCut = false);

} // namespace npuscope
