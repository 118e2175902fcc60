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
// Step time T (ADVISOR.md) = Computing + Communication(Not Overlapped) + Free per step; with
// source 3 this equals the ProfilerStep#N span, or the end-to-end span without steps.
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
DeviceIntervals deviceIntervals(const Profile& p);
// ProfilerStep#N slices of the host timeline, by start: (name, span).
std::vector<std::pair<std::string, Interval>> profilerSteps(const Profile& p);
// The breakdown of each named span from the device time sets (source 3): Computing =
// |compute ∩ span|, Communication = |comm ∩ span|, Overlapped = |compute ∩ comm ∩ span|, Free =
// span − |(compute ∪ comm) ∩ span|, so Computing + Not overlapped + Free is the span.
std::vector<StepBreakdown> splitSpans(const DeviceIntervals& d, const std::vector<std::pair<std::string, Interval>>& spans);

struct OverlapResult {
    OverlapSource source = OverlapSource::None;
    std::vector<StepBreakdown> steps;
    StepBreakdown total;                 // Σ over steps
    TimeNs stepTime = 0;                 // T: mean step time over steps
    std::string stepTimeSource;          // "step_trace_time", "Overlap Analysis", "ProfilerStep#N spans", "E2E ..."
    std::vector<CollectiveOverlap> collectives; // from the timeline, whatever the breakdown source
    std::vector<std::pair<std::string, Interval>> spans; // profilerSteps(), whatever the breakdown source
};
OverlapResult computeOverlap(const Profile& p);

} // namespace npuscope
