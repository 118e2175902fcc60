#pragma once
// The critical path of each step: the chain through the step graph that ends at the step's last
// device work, walked back from there. At each node the binding predecessor is the one that
// released it last (latest-ending of: the previous task on its stream, the launch that submitted
// it, the record it waited on or, with none recorded, the task of another stream the graph
// inferred it waited for (EdgeKind::InferredWait), the device task a synchronize waited for;
// for host slices the previous slice of the thread, the enclosing slice, the task queue's
// enqueue). Time between a node's release and its start is an `idle` segment carrying its idle
// cause (idle_causes.h).
// The segments tile the step span exactly: their lengths add up to GraphStep::span().
#include "model/analysis/idle_causes.h"
#include "model/analysis/step_graph.h"

#include <array>
#include <string>
#include <vector>

namespace npuscope {

enum class PathKind : std::uint8_t { HostPython, Launch, Compute, Comm, CommWait, Idle };
inline constexpr std::size_t kPathKindCount = 6;
// "host_python", "launch", "compute", "comm", "comm_wait", "idle".
const char* pathKindKey(PathKind k);

struct PathSegment {
    PathKind kind = PathKind::Idle;
    TimeNs begin = 0, end = 0;   // [begin, end)
    std::uint32_t slice = kNone; // the slice row on the path, kNone for idle segments
    // compute: the kernel's op type, else its name; comm / host: the slice's name; idle: what
    // is known of the wait.
    std::string label;
    IdleCause idleCause = IdleCause::Unknown; // idle segments: the idle cause of that time
    TimeNs dur() const { return end - begin; }
};

struct StepPath {
    int step = -1;                                // index into StepGraph::steps
    std::string name;                             // GraphStep::name
    std::vector<PathSegment> segments;            // in time order, tiling [step begin, step end)
    std::array<TimeNs, kPathKindCount> boundBy{}; // ns per PathKind; Σ = length
    TimeNs length = 0;                            // = the step span
    bool cut = false;                             // the walk stopped at its safety bound (should not happen)
};

struct CriticalPaths {
    std::vector<StepPath> steps;
    std::array<TimeNs, kPathKindCount> boundBy{}; // Σ over steps
    std::vector<std::uint32_t> onPath;            // slice rows on any step's path, sorted
};

CriticalPaths criticalPaths(const Profile& p, const StepGraph& g, const IdleCauses& idle);

// The times a walk reads when they are not the store's: a replayed timeline (whatif.h). Each
// vector is complete (start / end per slice row, at per explicit edge of StepGraph::edges).
struct PathClock {
    std::vector<TimeNs> start, end; // per slice row
    std::vector<TimeNs> edgeAt;     // per explicit edge: when its source released its target
    // Per step of the graph: its span on this clock. The step's device part ends at the last
    // computation or communication end inside it, found on these times.
    std::vector<std::pair<TimeNs, TimeNs>> steps;
};

// Each step's critical path on `clock`'s times: the same walk as criticalPaths(), with the idle
// cause of a wait taken from the measured gap that ended at the task it delayed (Unknown when
// none did). A clock holding the store's own times gives criticalPaths()' paths.
std::vector<StepPath> criticalPathsOn(const Profile& p, const StepGraph& g, const IdleCauses& idle, const PathClock& clock);

// Whether a slice row lies on a critical path.
bool onCriticalPath(const CriticalPaths& c, std::uint32_t row);
// How much later the slice could end without moving its step's end: 0 on the path; else the
// least of (its successors' start − its end) over the next task on its stream or next slice on
// its thread and its explicit out-edges (a launch: the task's start − the submission), and the
// step end − its end when it has none. Negative values are reported as 0.
TimeNs sliceSlack(const Profile& p, const StepGraph& g, const CriticalPaths& c, std::uint32_t row);

} // namespace npuscope
