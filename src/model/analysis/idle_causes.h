#pragma once
// Why the device was idle: every idle instant of every step (StepGraph: the step's device part
// minus Computing ∪ Communication, step_trace_time's Free) attributed to exactly one cause, so
// that the causes of a step add up to its idle time to the nanosecond.
//
// A gap [a, b) ends where device task N starts (the busy task starting at b). With L the time
// N's launch was submitted (the latest launch flow into it):
//  - L <= a, the work was queued before the gap: a device-side wait, `comm_wait` when N is
//    communication or waited (EVENT_WAIT / Notify Wait just before it on its stream) on a
//    record of a communication stream or a peer, else `dependency`; with no wait recorded, a
//    wait the graph inferred from timing (EdgeKind::InferredWait) counts the same: `comm_wait`
//    on a communication task, `dependency` on any other;
//  - L > a: [max(a, L), b) is `launch` (dispatch delay) and [a, min(b, L)) what the launching
//    host thread was doing, piece by piece: a synchronize or .item() → `sync`, an op compile →
//    `compile`, the data loader → `dataloader`, the task queue or N's own launch call → `launch`,
//    any other host slice → `host_python` (the deepest one), nothing recorded → `unknown`;
//  - no launch flow into N → `unknown`, with the reason.
//
// A step's Preparing, from its start to its first device work (step_trace_time's Preparing, not
// Free), is attributed the same way as one more gap ending at that first task (a data loader
// before the step's first launch lies there). It is reported apart: `preparingNs`,
// `preparingByCause`, `preparingTotals` and `preparingGaps`, so that `idleNs`, `byCause`,
// `totals` and `gaps` stay step_trace_time's Free exactly.
#include "model/analysis/step_graph.h"

#include <array>
#include <string>
#include <vector>

namespace npuscope {

// The causes, in their fixed order (also the order of every per-cause array).
enum class IdleCause : std::uint8_t { HostPython, DataLoader, Sync, Compile, Launch, Dependency, CommWait, Unknown };
inline constexpr std::size_t kIdleCauseCount = 8;
// "host_python", "dataloader", "sync", "compile", "launch", "dependency", "comm_wait", "unknown".
const char* idleCauseKey(IdleCause c);
using IdleByCause = std::array<TimeNs, kIdleCauseCount>; // ns, indexed by IdleCause

// One attributed piece of an idle gap.
struct IdleGap {
    TimeNs start = 0, end = 0; // [start, end), ns
    int step = -1;             // index into StepGraph::steps
    IdleCause cause = IdleCause::Unknown;
    std::uint32_t hostSlice = kNone; // the responsible host slice row, or kNone
    std::uint32_t task = kNone;      // N: the device task (or collective) the gap ended at
    std::uint32_t waitedOn = kNone;  // device waits: the wait task or the record it waited on
    const char* reason = "";         // a fixed sentence; idleGapReason() completes it
    bool preparing = false;          // lies in the step's Preparing (IdleCauses::preparingGaps), not its Free
    TimeNs dur() const { return end - start; }
};

// The idle time of one step by cause.
struct IdleStep {
    int step = -1;     // index into StepGraph::steps
    std::string name;  // GraphStep::name
    TimeNs idleNs = 0; // = GraphStep::idleNs = Σ byCause
    IdleByCause byCause{};
    TimeNs preparingNs = 0; // = GraphStep::preparing() = Σ preparingByCause
    IdleByCause preparingByCause{};
};

struct IdleCauses {
    std::vector<IdleStep> steps;        // one per graph step, in order
    IdleByCause totals{};               // Σ over steps
    TimeNs idleNs = 0;                  // Σ over steps
    std::vector<IdleGap> gaps;          // by start; consecutive pieces of one cause and slice merged
    IdleByCause preparingTotals{};      // Σ over steps of preparingByCause
    TimeNs preparingNs = 0;             // Σ over steps of preparingNs
    std::vector<IdleGap> preparingGaps; // the Preparing pieces (preparing = true), by start, merged as `gaps`
    std::vector<std::string> missing;   // what could not be attributed and why (the graph's and more)
};

IdleCauses idleCauses(const Profile& p, const StepGraph& g);
// The same over some steps alone (indices into g.steps, ascending): `steps` lists those, and the
// totals, the gaps and the sums are theirs.
IdleCauses idleCauses(const Profile& p, const StepGraph& g, const std::vector<std::size_t>& steps);

// The reason of a gap as a sentence: its fixed reason, with the host slice and task named.
std::string idleGapReason(const Profile& p, const IdleGap& gap);
// The "Call stack" argument of a host slice (of its nearest ancestor that has one), "" when none.
std::string hostCallStack(const Profile& p, const StepGraph& g, std::uint32_t row);

} // namespace npuscope
