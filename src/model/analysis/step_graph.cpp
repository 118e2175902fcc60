#include "model/analysis/step_graph.h"

#include "model/analysis/op_stats.h"
#include "model/analysis/overlap.h"
#include "model/analysis/u64_map.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace npuscope {

const char* nodeKindName(NodeKind k)
{
    switch (k) {
    case NodeKind::None: return "none";
    case NodeKind::Python: return "python";
    case NodeKind::Cann: return "cann";
    case NodeKind::DeviceTask: return "device_task";
    case NodeKind::Collective: return "collective";
    }
    return "none";
}

const char* nodeRoleName(NodeRole r)
{
    switch (r) {
    case NodeRole::None: return "none";
    case NodeRole::Op: return "op";
    case NodeRole::Compile: return "compile";
    case NodeRole::Sync: return "sync";
    case NodeRole::Launch: return "launch";
    case NodeRole::Enqueue: return "enqueue";
    case NodeRole::Dequeue: return "dequeue";
    case NodeRole::DataLoader: return "dataloader";
    case NodeRole::Compute: return "compute";
    case NodeRole::Comm: return "comm";
    case NodeRole::EventRecord: return "event_record";
    case NodeRole::EventWait: return "event_wait";
    case NodeRole::DeviceOther: return "device_other";
    }
    return "none";
}

const char* edgeKindName(EdgeKind k)
{
    switch (k) {
    case EdgeKind::Launch: return "launch";
    case EdgeKind::TaskQueue: return "task_queue";
    case EdgeKind::EventWait: return "event_wait";
    case EdgeKind::NotifyWait: return "notify_wait";
    case EdgeKind::HostSync: return "host_sync";
    case EdgeKind::Collective: return "collective";
    case EdgeKind::InferredWait: return "inferred_wait";
    }
    return "launch";
}

std::span<const GraphEdge> StepGraph::edgesInto(std::uint32_t row) const
{
    const auto lo = std::lower_bound(edges.begin(), edges.end(), row,
                                     [](const GraphEdge& e, std::uint32_t r) { return e.dst < r; });
    auto hi = lo;
    while (hi != edges.end() && hi->dst == row)
        ++hi;
    return {lo, hi};
}

std::vector<const GraphEdge*> StepGraph::edgesFrom(std::uint32_t row) const
{
    std::vector<const GraphEdge*> out;
    auto it = std::lower_bound(bySrc.begin(), bySrc.end(), row,
                               [&](std::uint32_t e, std::uint32_t r) { return edges[e].src < r; });
    for (; it != bySrc.end() && edges[*it].src == row; ++it)
        out.push_back(&edges[*it]);
    return out;
}

std::uint32_t StepGraph::streamPrev(std::uint32_t row) const
{
    if (!profile || row >= kind.size() || kind[row] != NodeKind::DeviceTask)
        return kNone;
    const Track& t = profile->tracks[profile->slices.track[row].v];
    return row > t.sliceBegin ? row - 1 : kNone;
}

std::uint32_t StepGraph::streamNext(std::uint32_t row) const
{
    if (!profile || row >= kind.size() || kind[row] != NodeKind::DeviceTask)
        return kNone;
    const Track& t = profile->tracks[profile->slices.track[row].v];
    return row + 1 < t.sliceEnd ? row + 1 : kNone;
}

std::uint32_t StepGraph::hostPrev(std::uint32_t row) const
{
    if (!profile || row >= kind.size() || (kind[row] != NodeKind::Python && kind[row] != NodeKind::Cann))
        return kNone;
    const SliceTable& s = profile->slices;
    const Track& t = profile->tracks[s.track[row].v];
    // Going back in start order, the previous sibling is the first slice at the same depth; a
    // shallower one first is the parent (no previous sibling).
    for (std::uint32_t r = row; r > t.sliceBegin;) {
        --r;
        if (s.depth[r] == s.depth[row])
            return r;
        if (s.depth[r] < s.depth[row])
            return kNone;
    }
    return kNone;
}

int StepGraph::stepAt(TimeNs t) const
{
    const auto it = std::upper_bound(steps.begin(), steps.end(), t, [](TimeNs v, const GraphStep& s) { return v < s.begin; });
    if (it == steps.begin())
        return -1;
    const auto& s = *(it - 1);
    return t < s.end || (t == s.end && s.begin == s.end) ? static_cast<int>(it - 1 - steps.begin()) : -1;
}

std::span<const std::uint32_t> StepGraph::deviceStartingAt(TimeNs t) const
{
    const auto& st = profile->slices.start;
    const auto lo = std::lower_bound(deviceByStart.begin(), deviceByStart.end(), t,
                                     [&](std::uint32_t r, TimeNs v) { return st[r] < v; });
    auto hi = lo;
    while (hi != deviceByStart.end() && st[*hi] == t)
        ++hi;
    return {lo, hi};
}

void RowSteps::assign(std::size_t n, std::size_t steps)
{
    m_narrow.clear();
    m_wide.clear();
    if (steps < 0xFFFF) {
        m_narrow.assign(n, 0);
        m_narrow.shrink_to_fit();
        m_wide.shrink_to_fit();
    } else {
        m_wide.assign(n, -1);
        m_wide.shrink_to_fit();
        m_narrow.shrink_to_fit();
    }
}

void RowParents::assign(std::size_t n)
{
    m_back.assign(n, 0);
    m_back.shrink_to_fit();
    m_far.clear();
}

void RowParents::set(std::uint32_t row, std::uint32_t parent)
{
    if (parent == kNone || parent >= row) {
        m_back[row] = 0;
        return;
    }
    const std::uint32_t d = row - parent;
    if (d < kFar) {
        m_back[row] = static_cast<std::uint16_t>(d);
        return;
    }
    m_back[row] = kFar;
    m_far.emplace_back(row, parent);
}

void RowParents::finish()
{
    if (!std::is_sorted(m_far.begin(), m_far.end())) // the tracks' row ranges out of order
        std::sort(m_far.begin(), m_far.end());
    m_far.shrink_to_fit();
}

std::uint32_t RowParents::far(std::uint32_t row) const
{
    const auto it = std::lower_bound(
        m_far.begin(), m_far.end(), row,
        [](const std::pair<std::uint32_t, std::uint32_t>& e, std::uint32_t r) { return e.first < r; });
    return it != m_far.end() && it->first == row ? it->second : kNone;
}

namespace {

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}
bool has(std::string_view s, std::string_view p)
{
    return s.find(p) != std::string_view::npos;
}

NodeRole cannRole(std::string_view n)
{
    if (startsWith(n, "AscendCL@aclopCompile") || startsWith(n, "AscendCL@opCompile") || has(n, "Compile"))
        return NodeRole::Compile;
    if (has(n, "aclrtSynchronize") || has(n, "Synchronize"))
        return NodeRole::Sync;
    if (startsWith(n, "Node@launch") || (startsWith(n, "AscendCL@") && (has(n, "Launch") || has(n, "launch"))))
        return NodeRole::Launch;
    return NodeRole::Op;
}

NodeRole pythonRole(std::string_view n)
{
    if (startsWith(n, "Enqueue"))
        return NodeRole::Enqueue;
    if (startsWith(n, "Dequeue@"))
        return NodeRole::Dequeue;
    if (n == "aten::_local_scalar_dense" || n == "aten::item" || has(n, "Tensor.item") || has(n, "method 'item'")
        || has(n, "aclrtSynchronize"))
        return NodeRole::Sync;
    if (has(n, "DataLoader") || has(n, "dataloader") || has(n, "_next_data")
        || (has(n, "multiprocessing/connection.py") && has(n, "_recv")))
        return NodeRole::DataLoader;
    return NodeRole::Op;
}

NodeRole deviceRole(const Profile& p, std::uint32_t row)
{
    const std::uint32_t k = p.slices.kernel[row];
    const bool kernelRow = k != kNone && k < p.kernels.size();
    const std::string_view type = p.str(kernelRow ? p.kernels.taskType[k] : p.slices.category[row]);
    const std::string_view name = p.str(p.slices.name[row]);
    if (startsWith(name, "EVENT_RECORD") || startsWith(type, "EVENT_RECORD") || name == "Notify_Record"
        || name == "Notify Record")
        return NodeRole::EventRecord;
    if (startsWith(name, "EVENT_WAIT") || startsWith(type, "EVENT_WAIT") || name == "Notify_Wait" || name == "Notify Wait")
        return NodeRole::EventWait;
    if (isCommunicationTask(type, name) || isHcclTask(type, name))
        return NodeRole::Comm;
    if (kernelRow || isComputeTask(type, name))
        return NodeRole::Compute;
    return NodeRole::DeviceOther;
}

bool isNotify(const Profile& p, std::uint32_t row)
{
    return has(p.str(p.slices.name[row]), "otify");
}

// Kinds, roles (once per distinct name), parents and the ProfilerStep#N slices left out.
void classify(const Profile& p, StepGraph& g)
{
    const SliceTable& s = p.slices;
    const std::size_t n = s.size();
    g.kind.assign(n, NodeKind::None);
    g.role.assign(n, NodeRole::None);
    g.parent.assign(n);
    std::vector<std::uint8_t> hostMemo(p.strings.size() * 2, 0xFF);
    U64Map deviceMemo(256);
    std::vector<std::uint32_t> open;
    for (const Track& t : p.tracks) {
        NodeKind k = NodeKind::None;
        switch (t.kind) {
        case TrackKind::Python: k = NodeKind::Python; break;
        case TrackKind::Cann: k = NodeKind::Cann; break;
        case TrackKind::Stream: k = NodeKind::DeviceTask; break;
        case TrackKind::CommGroup: k = NodeKind::Collective; break;
        default: break;
        }
        if (k == NodeKind::None)
            continue;
        open.assign(static_cast<std::size_t>(t.maxDepth) + 1, kNone);
        for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r) {
            const std::uint16_t d = s.depth[r];
            if (d < open.size())
                open[d] = r;
            if (d > 0 && d - 1 < static_cast<int>(open.size()))
                g.parent.set(r, open[d - 1]);
            if (k == NodeKind::DeviceTask) {
                const std::uint64_t key = (std::uint64_t{s.category[r].v} << 32) | s.name[r].v;
                const std::uint32_t kernelBit = s.kernel[r] != kNone ? 1u : 0u;
                g.role[r] = static_cast<NodeRole>(
                    deviceMemo.memo(key ^ (std::uint64_t{kernelBit} << 63), [&] { return deviceRole(p, r); }));
                ++g.counts.deviceNodes;
            } else if (k == NodeKind::Collective) {
                g.role[r] = NodeRole::Comm;
                ++g.counts.collectiveNodes;
            } else {
                const std::size_t slot = std::size_t{s.name[r].v} * 2 + (k == NodeKind::Cann ? 1 : 0);
                if (slot >= hostMemo.size())
                    continue;
                if (hostMemo[slot] == 0xFF) {
                    const std::string_view name = p.str(s.name[r]);
                    hostMemo[slot] = startsWith(name, "ProfilerStep#")
                                         ? static_cast<std::uint8_t>(NodeRole::None)
                                         : static_cast<std::uint8_t>(k == NodeKind::Cann ? cannRole(name) : pythonRole(name));
                }
                g.role[r] = static_cast<NodeRole>(hostMemo[slot]);
                if (g.role[r] == NodeRole::None)
                    continue;
                ++g.counts.hostNodes;
                g.hasHost = true;
            }
            g.kind[r] = k;
        }
    }
    g.parent.finish();
}

// The device task and collective rows by start: the tracks' sorted ranges merged.
void sortDevice(const Profile& p, StepGraph& g)
{
    std::vector<std::size_t> bounds{0};
    for (const Track& t : p.tracks) {
        if (t.kind != TrackKind::Stream && t.kind != TrackKind::CommGroup)
            continue;
        for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r)
            g.deviceByStart.push_back(r);
        if (g.deviceByStart.size() > bounds.back())
            bounds.push_back(g.deviceByStart.size());
    }
    const auto& st = p.slices.start;
    const auto less = [&](std::uint32_t a, std::uint32_t b) { return st[a] < st[b] || (st[a] == st[b] && a < b); };
    mergeSortedRuns(g.deviceByStart, std::move(bounds), less);
}

// Steps: ProfilerStep#N spans, else one step over the device span (named after step_trace_time
// when it has rows), with their idle sets.
void buildSteps(const Profile& p, StepGraph& g)
{
    IntervalSet busy;
    bool anyDevice = false;
    Interval deviceSpan;
    {
        const DeviceIntervals d = deviceIntervals(p, false);
        anyDevice = !d.empty();
        deviceSpan = {d.first, d.last};
        busy = uniteSets(d.compute, d.comm);
    }
    auto spans = profilerSteps(p);
    if (!spans.empty()) {
        g.stepSource = "ProfilerStep#N spans";
        for (auto& [name, iv] : spans) {
            GraphStep s;
            s.name = startsWith(name, "ProfilerStep#") ? name.substr(13) : name;
            s.begin = iv.begin;
            s.end = iv.end;
            g.steps.push_back(std::move(s));
        }
    } else if (anyDevice) {
        GraphStep s;
        s.begin = deviceSpan.begin;
        s.end = deviceSpan.end;
        std::vector<std::string> rows;
        for (const StepRow& r : p.steps)
            if (r.computing && (r.type.empty() || r.type == "rank"))
                rows.push_back(r.step);
        if (!rows.empty()) {
            g.stepSource = "step_trace_time (no span: one step over the device span)";
            s.name = rows.size() == 1 ? rows.front() : rows.front() + "-" + rows.back();
            if (rows.size() > 1)
                g.missing.push_back("step_trace_time has " + std::to_string(rows.size())
                                    + " steps but the timeline has no ProfilerStep#N spans: one step over the "
                                      "whole device span");
        } else {
            g.stepSource = "device span (first to last device task)";
        }
        g.steps.push_back(std::move(s));
    }
    IntervalSet inside; // a step's busy intervals, reused from step to step
    for (GraphStep& s : g.steps) {
        // clipIntervals() from the first busy interval ending after the step's start (busy is
        // sorted and disjoint: its ends grow too), not from the start of the whole run.
        inside.clear();
        const auto from = std::partition_point(busy.begin(), busy.end(), [&](const Interval& i) { return i.end <= s.begin; });
        for (auto it = from; it != busy.end() && it->begin < s.end; ++it)
            if (const TimeNs lo = std::max(it->begin, s.begin), hi = std::min(it->end, s.end); hi > lo)
                inside.push_back({lo, hi});
        s.deviceBegin = inside.empty() ? s.begin : inside.front().begin;
        s.deviceEnd = inside.empty() ? s.begin : inside.back().end;
        s.lastBusyBegin = inside.empty() ? s.begin : inside.back().begin;
        s.idle = subtractIntervals({{s.deviceBegin, s.deviceEnd}}, inside);
        s.idleNs = totalLength(s.idle);
    }
}

void assignSteps(const Profile& p, StepGraph& g)
{
    g.step.assign(p.slices.size(), g.steps.size());
    if (g.steps.empty())
        return;
    for (const Track& t : p.tracks) {
        std::size_t si = 0;
        for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r) {
            if (g.kind[r] == NodeKind::None)
                continue;
            const TimeNs at = p.slices.start[r];
            while (si < g.steps.size() && g.steps[si].end <= at && !(g.steps[si].begin == g.steps[si].end))
                ++si;
            if (si < g.steps.size() && at >= g.steps[si].begin && at < g.steps[si].end)
                g.step.set(r, static_cast<std::int32_t>(si));
        }
    }
}

// `dst` is below kMaxGraphRows (buildStepGraph builds no edges otherwise).
GraphEdge makeEdge(std::uint32_t src, std::uint32_t dst, EdgeKind k, bool byId, TimeNs at)
{
    GraphEdge e;
    e.src = src;
    e.dst = dst;
    e.kind = k;
    e.byId = byId;
    e.at = at;
    return e;
}

struct EdgeSink {
    const Profile& p;
    StepGraph& g;
    // False, counted as broken, when the edge points back in time: a synchronize and a stream
    // wait are gated at their end (they return when what they wait for happened); every other
    // target cannot start before its source released it.
    bool accept(std::uint32_t dst, TimeNs at, EdgeKind k)
    {
        const bool atEnd = k == EdgeKind::HostSync || k == EdgeKind::EventWait || k == EdgeKind::NotifyWait;
        const TimeNs gated = atEnd ? p.slices.end(dst) : p.slices.start[dst];
        if (gated + kEdgeTolerance < at) {
            ++g.counts.brokenEdges;
            return false;
        }
        ++g.counts.edges[static_cast<int>(k)];
        return true;
    }
    void add(std::uint32_t src, std::uint32_t dst, TimeNs at, EdgeKind k, bool byId = true)
    {
        if (accept(dst, at, k))
            g.edges.push_back(makeEdge(src, dst, k, byId, at));
    }
};

// The launch and task-queue flows, the bulk of the edges. Each flow's edge is judged once
// (counted; `taken` when bound and not pointing back in time), then written straight into its
// target's place (placeEdges): the flows' edges are never held twice.
struct FlowEdges {
    NameId npu, h2d, queue;
    std::vector<bool> taken; // per flow

    explicit FlowEdges(const Profile& p)
        : npu(p.strings.find("async_npu")), h2d(p.strings.find("HostToDevice")), queue(p.strings.find("async_task_queue"))
    {
    }
    bool launch(NameId c) const { return (npu.valid() && c == npu) || (h2d.valid() && c == h2d); }
    bool taskQueue(NameId c) const { return queue.valid() && c == queue; }

    // Judges every flow, counting each taken edge into its target's bucket of `at` (one past
    // the target row).
    void judge(const Profile& p, StepGraph& g, EdgeSink& sink, std::vector<std::uint32_t>& at)
    {
        const FlowTable& f = p.flows;
        taken.assign(f.size(), false);
        for (std::size_t i = 0; i < f.size(); ++i) {
            const NameId c = f.category[i];
            const bool l = launch(c);
            if (!l && !taskQueue(c))
                continue;
            const std::uint32_t src = f.srcSlice[i], dst = f.dstSlice[i];
            if (src == kNone || dst == kNone || src >= g.kind.size() || dst >= g.kind.size()
                || (l && g.kind[dst] != NodeKind::DeviceTask) || g.kind[src] == NodeKind::None) {
                ++g.counts.unboundFlows;
                continue;
            }
            if (l)
                g.hasLaunchFlows = true;
            if (sink.accept(dst, f.srcTs[i], l ? EdgeKind::Launch : EdgeKind::TaskQueue)) {
                taken[i] = true;
                ++at[dst + 1];
            }
        }
    }
    GraphEdge edge(const FlowTable& f, std::size_t i) const
    {
        return makeEdge(f.srcSlice[i], f.dstSlice[i], launch(f.category[i]) ? EdgeKind::Launch : EdgeKind::TaskQueue, true,
                        f.srcTs[i]);
    }
};

// EVENT_RECORD → EVENT_WAIT and Notify_Record → Notify_Wait: the same id in the args when both
// have one, else the latest record of the same family on another stream ending before the wait
// ends.
void waitEdges(const Profile& p, StepGraph& g, EdgeSink& sink)
{
    const SliceTable& s = p.slices;
    std::vector<std::uint32_t> records, waits;
    for (std::uint32_t r : g.deviceByStart) {
        if (g.role[r] == NodeRole::EventRecord)
            records.push_back(r);
        else if (g.role[r] == NodeRole::EventWait && g.kind[r] == NodeKind::DeviceTask)
            waits.push_back(r);
    }
    std::sort(records.begin(), records.end(), [&](std::uint32_t a, std::uint32_t b) { return s.end(a) < s.end(b); });
    const auto idOf = [&](std::uint32_t r) {
        return s.args[r] == kNone ? std::string()
                                  : p.args.find(s.args[r], {"Event Id", "event_id", "Notify Id", "notify_id"}, p.strings)[0];
    };
    for (std::uint32_t w : waits) {
        const bool notify = isNotify(p, w);
        const std::string wid = idOf(w);
        auto it = std::upper_bound(records.begin(), records.end(), s.end(w) + kEdgeTolerance,
                                   [&](TimeNs v, std::uint32_t r) { return v < s.end(r); });
        std::uint32_t nearest = kNone, byId = kNone;
        for (int looked = 0; it != records.begin() && looked < 256; ++looked) {
            const std::uint32_t r = *--it;
            if (s.track[r] == s.track[w] || isNotify(p, r) != notify)
                continue;
            if (nearest == kNone)
                nearest = r;
            if (wid.empty())
                break;
            if (idOf(r) == wid) {
                byId = r;
                break;
            }
        }
        const std::uint32_t rec = byId != kNone ? byId : nearest;
        if (rec == kNone) {
            ++g.counts.waitsUnmatched;
            continue;
        }
        ++(byId != kNone ? g.counts.waitsById : g.counts.waitsNearest);
        sink.add(rec, w, s.end(rec), notify ? EdgeKind::NotifyWait : EdgeKind::EventWait, byId != kNone);
    }
}

// A synchronize returns when the device drained: an edge from the last device task that ends
// inside it (none when every task had ended before it began: it waited on nothing).
void syncEdges(const Profile& p, StepGraph& g, EdgeSink& sink)
{
    const SliceTable& s = p.slices;
    const auto streams = p.sliceRanges(TrackKind::Stream);
    for (const Track& t : p.tracks) {
        if (t.kind != TrackKind::Cann && t.kind != TrackKind::Python)
            continue;
        for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r) {
            if (g.role[r] != NodeRole::Sync)
                continue;
            const TimeNs b = s.start[r], e = s.end(r);
            std::uint32_t best = kNone;
            for (const auto& [begin, end] : streams) {
                const auto first = s.start.begin() + begin, last = s.start.begin() + end;
                auto it = std::upper_bound(first, last, e);
                for (int k = 0; it != first && k < 8; ++k) {
                    const auto row = static_cast<std::uint32_t>(--it - s.start.begin());
                    if (s.end(row) <= e) {
                        if (s.end(row) > b && (best == kNone || s.end(row) > s.end(best)))
                            best = row;
                        break;
                    }
                }
            }
            if (best != kNone)
                sink.add(best, r, s.end(best), EdgeKind::HostSync);
        }
    }
}

// A collective op → each communication task (and wait) inside it, on a stream; `ownStream`: the
// stream of each collective's first task.
void collectiveEdges(const Profile& p, StepGraph& g, EdgeSink& sink,
                     std::unordered_map<std::uint32_t, std::uint32_t>& ownStream)
{
    const SliceTable& s = p.slices;
    for (const Track& t : p.tracks) {
        if (t.kind != TrackKind::CommGroup)
            continue;
        for (std::uint32_t op = t.sliceBegin; op < t.sliceEnd; ++op) {
            const TimeNs b = s.start[op], e = s.end(op);
            auto it = std::lower_bound(g.deviceByStart.begin(), g.deviceByStart.end(), b,
                                       [&](std::uint32_t r, TimeNs v) { return s.start[r] < v; });
            for (; it != g.deviceByStart.end() && s.start[*it] < e; ++it) {
                const std::uint32_t r = *it;
                if (g.kind[r] != NodeKind::DeviceTask || s.end(r) > e + kEdgeTolerance)
                    continue;
                if (g.role[r] == NodeRole::Comm || g.role[r] == NodeRole::EventWait || g.role[r] == NodeRole::EventRecord) {
                    sink.add(op, r, b, EdgeKind::Collective);
                    ownStream.try_emplace(op, s.track[r].v);
                }
            }
        }
    }
}

// Every edge in (dst, src) order, equal pairs in the order they were made (the flows' in flow
// order, then the others g.edges holds, in theirs): each is placed in its target row's bucket
// (rows are dense, so this is linear; `at` comes with the flows' counts, one past their target
// row, and is left zeroed), then each bucket of more than one edge (a few at most) is ordered by
// source. The edges get room for `room` more.
void placeEdges(const Profile& p, StepGraph& g, const FlowEdges& flows, std::vector<std::uint32_t>& at, std::size_t room)
{
    const std::vector<GraphEdge>& others = g.edges;
    for (const GraphEdge& e : others)
        ++at[e.dst + 1];
    const std::size_t rows = at.size() - 1;
    for (std::size_t r = 0; r < rows; ++r)
        at[r + 1] += at[r];
    std::vector<GraphEdge> out;
    out.reserve(at[rows] + room);
    out.resize(at[rows]);
    const FlowTable& f = p.flows;
    for (std::size_t i = 0; i < f.size(); ++i)
        if (flows.taken[i])
            out[at[f.dstSlice[i]]++] = flows.edge(f, i);
    for (const GraphEdge& e : others)
        out[at[e.dst]++] = e;
    std::fill(at.begin(), at.end(), 0);
    for (std::size_t b = 0; b < out.size();) {
        std::size_t e = b + 1;
        while (e < out.size() && out[e].dst == out[b].dst)
            ++e;
        if (e - b > 1)
            std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(b), out.begin() + static_cast<std::ptrdiff_t>(e),
                             [](const GraphEdge& x, const GraphEdge& y) { return x.src < y.src; });
        b = e;
    }
    g.edges.swap(out);
}

// Indices into `edges` (sorted by (dst, src)) in (src, dst) order: a stable count by source
// keeps each source's edges in target order. `at` comes zeroed, one longer than the rows.
std::vector<std::uint32_t> indicesBySrc(const std::vector<GraphEdge>& edges, std::vector<std::uint32_t>& at)
{
    const std::size_t rows = at.size() - 1;
    for (const GraphEdge& e : edges)
        ++at[e.src + 1];
    for (std::size_t r = 0; r < rows; ++r)
        at[r + 1] += at[r];
    std::vector<std::uint32_t> out(edges.size());
    for (std::uint32_t i = 0; i < edges.size(); ++i)
        out[at[edges[i].src]++] = i;
    return out;
}

// Cross-stream waits the data does not record (step_graph.h), once `edges` is sorted by (dst,
// src); `ownStream`: each collective's stream (the one of its first task). Candidates in start
// order; device task ends swept in end order, keeping the task that ended last (`last`) and the
// one that ended last on another stream than last's (`other`): the task of a stream other than T
// that ended last is `last`, or `other` when `last` runs on T. The new edges are merged in order.
void inferredWaits(const Profile& p, StepGraph& g, EdgeSink& sink,
                   const std::unordered_map<std::uint32_t, std::uint32_t>& ownStream)
{
    const SliceTable& s = p.slices;
    // The device tasks by (end, row): stream after stream, each in start order, so mostly a
    // few ascending runs to merge.
    std::vector<std::uint32_t> byEnd;
    const auto streams = p.sliceRanges(TrackKind::Stream);
    byEnd.reserve(g.deviceByStart.size());
    for (const auto& [begin, end] : streams)
        for (std::uint32_t r = begin; r < end; ++r)
            byEnd.push_back(r);
    if (byEnd.empty())
        return;
    stableSortByRuns(
        byEnd, [&](std::uint32_t a, std::uint32_t b) { return s.end(a) < s.end(b) || (s.end(a) == s.end(b) && a < b); },
        2 * streams.size() + 16);
    std::uint32_t last = kNone, other = kNone;
    std::size_t pe = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> found; // (source, target)
    for (std::uint32_t r : g.deviceByStart) {
        const TimeNs at = s.start[r];
        for (; pe < byEnd.size() && s.end(byEnd[pe]) <= at; ++pe) {
            const std::uint32_t x = byEnd[pe];
            if (last != kNone && s.track[last] != s.track[x])
                other = last;
            last = x;
        }
        if (last == kNone)
            continue;
        // Its stream and its stream predecessor (a collective's: the previous op of its group).
        std::uint32_t own = s.track[r].v, prev = kNone;
        if (g.kind[r] == NodeKind::DeviceTask) {
            prev = g.streamPrev(r);
            if (prev == kNone || g.role[prev] == NodeRole::EventWait)
                continue;
        } else {
            const auto it = ownStream.find(r);
            const Track& t = p.tracks[s.track[r].v];
            if (it == ownStream.end() || r == t.sliceBegin)
                continue;
            own = it->second;
            prev = r - 1;
        }
        const std::uint32_t c = s.track[last].v != own ? last : other;
        if (c == kNone || s.track[c].v == own || g.step[c] != g.step[r] || s.end(c) <= s.end(prev))
            continue;
        // Not bound by a recorded wait or a launch arriving after c ended.
        bool bound = false;
        for (const GraphEdge& e : g.edgesInto(r))
            bound = bound || e.kind == EdgeKind::EventWait || e.kind == EdgeKind::NotifyWait
                    || (e.kind == EdgeKind::Launch && std::min(e.at > 0 ? e.at : s.end(e.src), at) >= s.end(c));
        if (!bound)
            found.emplace_back(c, r);
    }
    const std::size_t before = g.edges.size();
    for (const auto& [src, dst] : found)
        sink.add(src, dst, s.end(src), EdgeKind::InferredWait);
    const auto byDst = [](const GraphEdge& a, const GraphEdge& b) {
        return a.dst < b.dst || (a.dst == b.dst && a.src < b.src);
    };
    const auto mid = g.edges.begin() + static_cast<std::ptrdiff_t>(before);
    std::sort(mid, g.edges.end(), byDst);
    std::inplace_merge(g.edges.begin(), mid, g.edges.end(), byDst);
}

void sayMissing(const Profile& p, StepGraph& g)
{
    const bool level0 = p.meta.profilerLevel == "Level0";
    if (!g.hasHost)
        g.missing.push_back(std::string("no host timeline (no Python or CANN tracks") + (level0 ? ", Level0 export" : "")
                            + "): host causes cannot be attributed");
    bool python = false, cann = false;
    for (const Track& t : p.tracks) {
        python = python || (t.kind == TrackKind::Python && t.sliceEnd > t.sliceBegin);
        cann = cann || (t.kind == TrackKind::Cann && t.sliceEnd > t.sliceBegin);
    }
    if (python && !cann)
        g.missing.push_back(std::string("no CANN tracks") + (level0 ? " (Level0 export)" : "")
                            + ": op compiles and runtime synchronizes are not recorded, HostToDevice launches have no "
                              "source; launches are taken from the Python ops' async_npu flows");
    if (cann && !python)
        g.missing.push_back("no Python tracks: host time is attributed to the runtime (CANN) slices only, without "
                            "Python ops, the task queue or the data loader");
    if (!g.hasLaunchFlows)
        g.missing.push_back(std::string("no launch flows") + (level0 ? " (Level0 export)" : "")
                            + ": host causes cannot be attributed");
    if (g.counts.unboundFlows > 0)
        g.missing.push_back(
            std::to_string(g.counts.unboundFlows)
            + " launch or task-queue flows have an end bound to no slice: those launches are not in the graph");
    if (g.counts.brokenEdges > 0)
        g.missing.push_back(std::to_string(g.counts.brokenEdges)
                            + " edges pointed back in time (clock skew or out-of-order flows) and were dropped");
    if (const auto n = g.counts.edges[static_cast<int>(EdgeKind::InferredWait)]; n > 0)
        g.missing.push_back(std::to_string(n) + " cross-stream waits inferred from timing (no event recorded)");
    if (g.counts.waitsNearest > 0)
        g.missing.push_back(std::to_string(g.counts.waitsNearest)
                            + " stream waits were matched to the nearest preceding record on another stream (no event id)");
    if (g.steps.empty())
        g.missing.push_back("no device tasks: no step to analyse");
    for (GraphStep& s : g.steps)
        s.missing = g.missing;
}

} // namespace

StepGraph buildStepGraph(const Profile& p)
{
    StepGraph g;
    g.profile = &p;
    classify(p, g);
    sortDevice(p, g);
    buildSteps(p, g);
    assignSteps(p, g);
    if (p.slices.size() >= kMaxGraphRows) {
        g.missing.push_back(std::to_string(p.slices.size()) + " slices, more than the step graph holds ("
                            + std::to_string(kMaxGraphRows) + "): no launch, wait or sync edges");
        sayMissing(p, g);
        return g;
    }
    EdgeSink sink{p, g};
    // A count per slice row (and one more): the edges by target, then by source.
    std::vector<std::uint32_t> at(p.slices.size() + 1, 0);
    FlowEdges flows(p);
    flows.judge(p, g, sink, at);
    waitEdges(p, g, sink);
    syncEdges(p, g, sink);
    std::unordered_map<std::uint32_t, std::uint32_t> ownStream;
    collectiveEdges(p, g, sink, ownStream);
    // Room for the inferred waits (at most one into each device task or collective), so that
    // they do not move every edge to a new vector twice the size.
    placeEdges(p, g, flows, at, g.deviceByStart.size());
    inferredWaits(p, g, sink, ownStream);
    g.bySrc = indicesBySrc(g.edges, at);
    sayMissing(p, g);
    return g;
}

} // namespace npuscope
