#pragma once
// The step graph of one rank: which host op launched which device task, which task waited on
// which, and the steps they belong to (docs/ARCHITECTURE.md "The step graph and idle causes").
//
// Nodes are the Profile's slice rows themselves (no copy): `kind[row]` and `role[row]` classify
// every row, kNone-free. Two kinds of edges:
//  - implicit, from the store's order (a track's slices are sorted by start): the host thread
//    order (hostPrev: the previous slice at the same depth under the same parent, parent[row]
//    its enclosing slice) and the stream order (streamPrev: the previous task on the stream);
//  - explicit, in `edges` (launch flows, task queue enqueue→dequeue, cross-stream waits, host
//    syncs, collective ↔ device task), sorted by (dst, src); edgesInto() / edgesFrom() look
//    them up.
// Cross-stream waits the data does not record (writers other than torch_npu emit no EVENT /
// Notify tasks) are inferred from timing, as InferredWait edges: a device task (or collective)
// with no wait edge into it and no wait task just before it on its stream, that has a stream
// predecessor, started after both its stream predecessor's end and its launch, and after the end
// of the device task of another stream (for a collective: of a stream none of its own tasks run
// on) that ended last before it started, in the same step: that task → it.
// An explicit edge whose target starts before its source ends by more than kEdgeTolerance
// (clock quirks, flows drawn backwards) would make a cycle: it is dropped and counted
// (StepGraph::brokenEdges), so every walk along predecessors goes back in time and ends.
//
// Steps: ProfilerStep#N host slices (profilerSteps() of overlap.h), else the step_trace_time
// rows (no span: one step over the whole device span, said in `stepSource`), else one step from
// the first to the last device task. A step's busy time is Computing ∪ Communication of
// deviceIntervals() (overlap.h) inside its span, so its idle time is the breakdown's Free.
#include "model/analysis/intervals.h"
#include "model/store/profile.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace npuscope {

// What a slice row is in the graph.
enum class NodeKind : std::uint8_t {
    None,       // not a node (Overlap Analysis lanes, comm planes, other tracks, ProfilerStep#N)
    Python,     // a slice on a TrackKind::Python track (cpu_op, python_function, Enqueue/Dequeue)
    Cann,       // a slice on a TrackKind::Cann track (AscendCL@..., Runtime@..., Node@launch)
    DeviceTask, // a task on a TrackKind::Stream track
    Collective  // a communication op on a TrackKind::CommGroup track
};
const char* nodeKindName(NodeKind k);

// What a host slice does, from its name (resolved once per distinct name), or what a device
// task is, from its type.
enum class NodeRole : std::uint8_t {
    None,
    Op,          // any other host slice
    Compile,     // AscendCL@aclopCompile*, AscendCL@opCompile, CANN slices naming Compile
    Sync,        // AscendCL@aclrtSynchronize*, .item() / aten::_local_scalar_dense / aten::item
    Launch,      // Node@launch, AscendCL@ launch calls
    Enqueue,     // torch_npu task queue Enqueue*
    Dequeue,     // torch_npu task queue Dequeue@*
    DataLoader,  // Python frames/ops naming the data loader
    Compute,     // device: a computation task (counts in Computing)
    Comm,        // device: a communication task or op (counts in Communication)
    EventRecord, // device: EVENT_RECORD / Notify_Record (Notify Record)
    EventWait,   // device: EVENT_WAIT / Notify_Wait (Notify Wait)
    DeviceOther  // device: any other task (memcpy, write value, ...)
};
const char* nodeRoleName(NodeRole r);

// Why an explicit edge exists.
enum class EdgeKind : std::uint8_t {
    Launch,      // a launch flow: async_npu (cpu_op → task) or HostToDevice (Node@launch → task)
    TaskQueue,   // async_task_queue: the Python Enqueue → the Dequeue that runs it
    EventWait,   // EVENT_RECORD → EVENT_WAIT on another stream
    NotifyWait,  // Notify_Record → Notify_Wait on another stream
    HostSync,    // the last device task ending before a synchronize returns → the synchronize
    Collective,  // a collective op → each device task it contains (by time containment)
    InferredWait // a cross-stream wait the data does not record, inferred from timing (below)
};
inline constexpr std::size_t kEdgeKindCount = 7;
const char* edgeKindName(EdgeKind k);

// A graph holds at most this many slice rows (an edge's target takes 28 bits, beside its kind):
// a larger profile gets no edges, and says so (StepGraph::missing).
inline constexpr std::size_t kMaxGraphRows = std::size_t{1} << 28;

// 16 bytes: twelve million of them at 10 GB.
struct GraphEdge {
    std::uint32_t src = kNone; // slice rows
    std::uint32_t dst : 28 = 0;
    EdgeKind kind : 3 = EdgeKind::Launch;
    // Waits: true when matched on the same event / notify id of the args; false when taken as
    // the nearest preceding record on another stream. Other kinds: true.
    bool byId : 1 = true;
    // When the source released the target: a flow's source time (the launch submitted), else
    // the source's end.
    TimeNs at = 0;
};
static_assert(kEdgeKindCount <= 8, "an edge's kind takes 3 bits");
static_assert(sizeof(GraphEdge) == 16);

// The step index of each slice row (-1: none), two bytes a row while the steps are fewer than
// 65535, else four.
class RowSteps {
public:
    // n rows, none in a step, for a graph of `steps` steps.
    void assign(std::size_t n, std::size_t steps);
    void set(std::size_t row, std::int32_t step)
    {
        if (m_wide.empty())
            m_narrow[row] = static_cast<std::uint16_t>(step + 1);
        else
            m_wide[row] = step;
    }
    std::int32_t operator[](std::size_t row) const
    {
        return m_wide.empty() ? static_cast<std::int32_t>(m_narrow[row]) - 1 : m_wide[row];
    }
    std::size_t size() const { return m_wide.empty() ? m_narrow.size() : m_wide.size(); }

private:
    std::vector<std::uint16_t> m_narrow; // step + 1
    std::vector<std::int32_t> m_wide;
};

// The enclosing slice of each slice row (kNone: none), two bytes a row: how many rows before it
// the parent is (a track's rows are contiguous), or, for a parent further back, a lookup.
class RowParents {
public:
    void assign(std::size_t n); // n rows, none with a parent
    // Each row once at most; finish() when all are set.
    void set(std::uint32_t row, std::uint32_t parent);
    void finish();
    std::uint32_t operator[](std::size_t row) const
    {
        const std::uint16_t d = m_back[row];
        return d == 0 ? kNone : d != kFar ? static_cast<std::uint32_t>(row) - d : far(static_cast<std::uint32_t>(row));
    }
    std::size_t size() const { return m_back.size(); }

private:
    static constexpr std::uint16_t kFar = 0xFFFF;
    std::uint32_t far(std::uint32_t row) const;
    std::vector<std::uint16_t> m_back;                          // row − parent, 0: none, kFar: in m_far
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_far; // (row, parent), by row
};

// One step of the rank.
struct GraphStep {
    std::string name;          // "3" of ProfilerStep#3, the step_trace_time step, or "" (whole)
    TimeNs begin = 0, end = 0; // the span [begin, end)
    // Busy is Computing ∪ Communication inside the span; the last busy interval starts here
    // (begin when nothing ran).
    TimeNs lastBusyBegin = 0;
    // The device part of the span: from the first to the last busy instant inside it (begin,
    // begin when nothing ran). The profiler's step_trace_time measures its Free there: its
    // Computing + Communication(Not Overlapped) + Free is this length ("Stage"), and the time
    // from the step's start to its first device work is "Preparing", not Free.
    TimeNs deviceBegin = 0, deviceEnd = 0;
    IntervalSet idle;  // [deviceBegin, deviceEnd) − busy: step_trace_time's Free
    TimeNs idleNs = 0; // totalLength(idle)
    TimeNs preparing() const { return deviceBegin - begin; }
    bool anyBusy() const { return deviceEnd > deviceBegin; }
    // What could not be built for this step and why, one sentence each (e.g. "no launch
    // flows (Level0 export): host causes cannot be attributed").
    std::vector<std::string> missing;
    TimeNs span() const { return end - begin; }
};

// Counts of what the graph holds and dropped, for reports and tests.
struct GraphCounts {
    std::uint64_t hostNodes = 0, deviceNodes = 0, collectiveNodes = 0;
    std::uint64_t edges[kEdgeKindCount] = {}; // explicit edges by EdgeKind
    std::uint64_t unboundFlows = 0;           // flows of the launch categories with an endpoint unbound
    std::uint64_t brokenEdges = 0;            // edges dropped because they pointed back in time (cycles)
    std::uint64_t waitsById = 0, waitsNearest = 0, waitsUnmatched = 0;
};

struct StepGraph {
    const Profile* profile = nullptr;
    // Where the steps come from: "ProfilerStep#N spans", "step_trace_time (no span: one step
    // over the device span)", "device span (first to last device task)", or "" when empty.
    std::string stepSource;
    std::vector<GraphStep> steps;             // by start
    std::vector<NodeKind> kind;               // per slice row
    std::vector<NodeRole> role;               // per slice row
    RowParents parent;                        // per slice row: the enclosing slice on its track, or kNone
    RowSteps step;                            // per slice row: the step index its start lies in, or -1
    std::vector<GraphEdge> edges;             // explicit edges, sorted by (dst, src)
    std::vector<std::uint32_t> bySrc;         // indices into `edges`, sorted by (src, dst)
    std::vector<std::uint32_t> deviceByStart; // device task and collective rows, by start
    bool hasLaunchFlows = false;              // any bound launch flow
    bool hasHost = false;                     // any Python or CANN track
    GraphCounts counts;
    std::vector<std::string> missing; // what could not be built for the whole rank

    // The explicit edges into / out of a row.
    std::span<const GraphEdge> edgesInto(std::uint32_t row) const;
    std::vector<const GraphEdge*> edgesFrom(std::uint32_t row) const;
    // The previous task on the same stream, or kNone.
    std::uint32_t streamPrev(std::uint32_t row) const;
    // The next task on the same stream, or kNone.
    std::uint32_t streamNext(std::uint32_t row) const;
    // The previous slice on the same host thread at the same depth under the same parent, or kNone.
    std::uint32_t hostPrev(std::uint32_t row) const;
    // The step index a time lies in, or -1.
    int stepAt(TimeNs t) const;
    // The device tasks (and collectives) starting exactly at `t`, as a range of deviceByStart.
    std::span<const std::uint32_t> deviceStartingAt(TimeNs t) const;
};

// Edges pointing back in time by more than this are dropped as cycles (ns).
inline constexpr TimeNs kEdgeTolerance = 1000;

// Builds the graph of one finalized rank. Never throws on bad input: what is missing is said in
// `missing` (the rank's and each step's).
StepGraph buildStepGraph(const Profile& p);

} // namespace npuscope
