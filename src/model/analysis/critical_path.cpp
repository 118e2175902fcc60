#include "model/analysis/critical_path.h"

#include <algorithm>
#include <unordered_map>

namespace npuscope {

const char* pathKindKey(PathKind k)
{
    switch (k) {
    case PathKind::HostPython: return "host_python";
    case PathKind::Launch: return "launch";
    case PathKind::Compute: return "compute";
    case PathKind::Comm: return "comm";
    case PathKind::CommWait: return "comm_wait";
    case PathKind::Idle: return "idle";
    }
    return "idle";
}

namespace {

constexpr std::size_t kMaxStall = 4096;

struct Pred {
    std::uint32_t row = kNone;
    TimeNs release = 0; // when it released the node: the end of its part on the path
};

// Where a walk starts: the step's span, the end of its device part and its last device work.
struct StepEnds {
    TimeNs begin = 0, end = 0, deviceEnd = 0;
    std::uint32_t last = kNone;
};

class Walker {
public:
    // `clock`: the times to walk on; null for the store's own.
    Walker(const Profile& p, const StepGraph& g, const IdleCauses& idle, const PathClock* clock = nullptr)
        : m_p(p), m_g(g), m_s(p.slices), m_idle(idle), m_c(clock)
    {
        for (std::size_t t = 0; t < p.tracks.size(); ++t)
            if (p.tracks[t].kind == TrackKind::Python)
                m_python.push_back(static_cast<std::uint32_t>(t));
        if (m_c)
            for (const IdleGap& gap : idle.gaps)
                if (gap.task != kNone)
                    m_causeOf.emplace(gap.task, gap.cause);
    }

    // The measured run's step: its span, device end and last work from the graph.
    StepEnds measuredEnds(int si) const
    {
        const GraphStep& st = m_g.steps[static_cast<std::size_t>(si)];
        return {st.begin, st.end, st.deviceEnd, lastWork(st)};
    }

    StepPath walk(int si, const StepEnds& st)
    {
        StepPath out;
        out.step = si;
        out.name = m_g.steps[static_cast<std::size_t>(si)].name;
        std::vector<PathSegment> rev; // built from the end backwards
        TimeNs t = st.end;
        std::uint32_t node = st.last;
        std::uint32_t after = kNone; // the node whose segment starts at t
        if (node != kNone && st.deviceEnd < t) {
            rev.push_back(idleSeg(st.deviceEnd, t, "after the last device work", kNone));
            t = st.deviceEnd;
        }
        TimeNs release = node != kNone ? end(node) : t;
        // Each hop moves the cursor t back or keeps it; a run of hops that does not move it (a
        // cycle of zero-length releases) is cut.
        std::size_t stall = 0;
        while (node != kNone && t > st.begin) {
            if (++stall > kMaxStall) {
                out.cut = true;
                break;
            }
            const Pred pr = predecessor(node);
            const TimeNs r = std::clamp(release, st.begin, t);
            if (r < t)
                rev.push_back(idleSeg(r, t, "waiting", after));
            // The part of the node before its predecessor released it is the predecessor's.
            const TimeNs lo = pr.row != kNone ? std::max(start(node), pr.release) : start(node);
            const TimeNs b = std::clamp(lo, st.begin, r);
            if (b < r)
                rev.push_back(nodeSeg(node, b, r));
            if (b < t)
                stall = 0;
            t = b;
            after = node;
            node = pr.row;
            release = pr.release;
        }
        if (t > st.begin) {
            rev.push_back(idleSeg(st.begin, t, node == kNone ? "no recorded predecessor" : "path cut", kNone));
            rev.back().idleCause = IdleCause::Unknown; // nothing recorded says what came before
        }
        out.segments.assign(rev.rbegin(), rev.rend());
        for (const PathSegment& s : out.segments) {
            out.boundBy[static_cast<std::size_t>(s.kind)] += s.dur();
            out.length += s.dur();
        }
        return out;
    }

    // Each step's ends on the clock: its last computation or communication (the one ending last,
    // clipped to the step end; a device task wins a tie) among those starting in the step before
    // its device part ends, as lastWork() finds it on the measured busy set.
    std::vector<StepEnds> clockEnds() const
    {
        std::vector<StepEnds> out(m_g.steps.size());
        for (std::size_t si = 0; si < out.size() && si < m_c->steps.size(); ++si)
            out[si] = {m_c->steps[si].first, m_c->steps[si].second, m_c->steps[si].first, kNone};
        std::vector<std::uint32_t> rows;
        for (std::uint32_t r : m_g.deviceByStart)
            if (m_g.role[r] == NodeRole::Compute || m_g.role[r] == NodeRole::Comm)
                rows.push_back(r);
        std::stable_sort(rows.begin(), rows.end(), [&](std::uint32_t a, std::uint32_t b) { return start(a) < start(b); });
        const auto inStep = [&](const StepEnds& st, std::uint32_t r) { return start(r) >= st.begin && start(r) < st.end; };
        for (StepEnds& st : out) {
            const auto first = std::lower_bound(rows.begin(), rows.end(), st.begin,
                                                [&](std::uint32_t r, TimeNs v) { return start(r) < v; });
            for (auto it = first; it != rows.end() && inStep(st, *it); ++it)
                if (end(*it) > start(*it))
                    st.deviceEnd = std::max(st.deviceEnd, std::min(end(*it), st.end));
            for (auto it = first; it != rows.end() && start(*it) < st.deviceEnd; ++it) {
                const std::uint32_t r = *it, b = st.last;
                const TimeNs er = std::min(end(r), st.end);
                if (b == kNone || er > std::min(end(b), st.end)
                    || (er == std::min(end(b), st.end) && m_g.kind[r] == NodeKind::DeviceTask))
                    st.last = r;
            }
        }
        return out;
    }

private:
    TimeNs start(std::uint32_t r) const { return m_c ? m_c->start[r] : m_s.start[r]; }
    TimeNs end(std::uint32_t r) const { return m_c ? m_c->end[r] : m_s.end(r); }
    TimeNs at(const GraphEdge& e) const { return m_c ? m_c->edgeAt[static_cast<std::size_t>(&e - m_g.edges.data())] : e.at; }

    // The busy task (computation or communication) ending last in the step, at deviceEnd.
    std::uint32_t lastWork(const GraphStep& st) const
    {
        if (!st.anyBusy())
            return kNone;
        std::uint32_t best = kNone;
        const auto& start = m_s.start;
        auto it = std::lower_bound(m_g.deviceByStart.begin(), m_g.deviceByStart.end(), st.lastBusyBegin,
                                   [&](std::uint32_t r, TimeNs v) { return start[r] < v; });
        for (; it != m_g.deviceByStart.end() && start[*it] < st.deviceEnd; ++it) {
            const std::uint32_t r = *it;
            if (m_g.role[r] != NodeRole::Compute && m_g.role[r] != NodeRole::Comm)
                continue;
            if (best == kNone || std::min(m_s.end(r), st.end) > std::min(m_s.end(best), st.end)
                || (std::min(m_s.end(r), st.end) == std::min(m_s.end(best), st.end) && m_g.kind[r] == NodeKind::DeviceTask))
                best = r;
        }
        return best;
    }

    Pred predecessor(std::uint32_t node) const
    {
        Pred best;
        const auto take = [&](std::uint32_t row, TimeNs release) {
            if (row == kNone || row == node)
                return;
            if (best.row == kNone || release > best.release)
                best = {row, release};
        };
        const NodeKind k = m_g.kind[node];
        if (k == NodeKind::DeviceTask) {
            const std::uint32_t prev = m_g.streamPrev(node);
            if (prev != kNone)
                take(prev, end(prev));
        } else if (k == NodeKind::Python || k == NodeKind::Cann) {
            // Inside an enclosing slice, the time before this one is the enclosing slice's;
            // at the top, the thread's previous slice released it.
            std::uint32_t up = m_g.parent[node];
            if (up != kNone && m_g.kind[up] == NodeKind::None)
                up = kNone; // ProfilerStep#N encloses everything: not a predecessor
            if (up == kNone && k == NodeKind::Cann)
                up = enclosingPython(node);
            if (up != kNone) {
                take(up, start(node));
            } else if (const std::uint32_t prev = m_g.hostPrev(node); prev != kNone) {
                take(prev, end(prev));
            }
        }
        for (const GraphEdge& e : m_g.edgesInto(node))
            if (e.kind != EdgeKind::Collective)
                take(e.src, at(e));
        // The first slice of a thread (the autograd thread's backward): the thread that was
        // running then, blocked in the call that started it, released it.
        if (best.row == kNone && k == NodeKind::Python)
            take(otherThread(node), start(node));
        return best;
    }

    // The deepest slice of another Python thread running when `row` starts (the latest started
    // of them), or kNone.
    std::uint32_t otherThread(std::uint32_t row) const
    {
        std::uint32_t best = kNone;
        for (std::uint32_t t : m_python) {
            if (t == m_s.track[row].v)
                continue;
            const Track& tr = m_p.tracks[t];
            const auto first = m_s.start.begin() + tr.sliceBegin, last = m_s.start.begin() + tr.sliceEnd;
            const auto it = std::upper_bound(first, last, m_s.start[row]);
            if (it == first)
                continue;
            for (auto r = static_cast<std::uint32_t>(it - 1 - m_s.start.begin()); r != kNone; r = m_g.parent[r])
                if (m_s.end(r) > m_s.start[row] && m_g.kind[r] != NodeKind::None) {
                    if (best == kNone || m_s.start[r] > m_s.start[best])
                        best = r;
                    break;
                }
        }
        return best;
    }

    // The deepest Python slice of the same thread running when a CANN slice starts (a Dequeue
    // around a Node@launch).
    std::uint32_t enclosingPython(std::uint32_t row) const
    {
        const std::int64_t tid = m_p.tracks[m_s.track[row].v].tid;
        for (std::uint32_t t : m_python) {
            const Track& tr = m_p.tracks[t];
            if (tr.tid != tid)
                continue;
            const auto first = m_s.start.begin() + tr.sliceBegin, last = m_s.start.begin() + tr.sliceEnd;
            const auto it = std::upper_bound(first, last, m_s.start[row]);
            if (it == first)
                return kNone;
            for (auto r = static_cast<std::uint32_t>(it - 1 - m_s.start.begin()); r != kNone; r = m_g.parent[r])
                if (m_s.end(r) >= m_s.end(row) && m_g.kind[r] != NodeKind::None)
                    return r;
        }
        return kNone;
    }

    PathSegment nodeSeg(std::uint32_t row, TimeNs b, TimeNs e) const
    {
        PathSegment s;
        s.begin = b;
        s.end = e;
        s.slice = row;
        s.label = std::string(m_p.str(m_s.name[row]));
        switch (m_g.role[row]) {
        case NodeRole::Compute:
        case NodeRole::DeviceOther: {
            s.kind = PathKind::Compute;
            const std::uint32_t k = m_s.kernel[row];
            if (k != kNone && k < m_p.kernels.size() && !m_p.str(m_p.kernels.type[k]).empty())
                s.label = std::string(m_p.str(m_p.kernels.type[k]));
            break;
        }
        case NodeRole::Comm: s.kind = PathKind::Comm; break;
        case NodeRole::EventRecord: s.kind = PathKind::Compute; break;
        case NodeRole::EventWait:
            s.kind = s.label.find("otify") != std::string::npos ? PathKind::CommWait : PathKind::Idle;
            s.idleCause = IdleCause::Dependency;
            break;
        case NodeRole::Launch:
        case NodeRole::Enqueue:
        case NodeRole::Dequeue: s.kind = PathKind::Launch; break;
        default: s.kind = PathKind::HostPython; break;
        }
        return s;
    }

    // `after`: the node the wait delayed, or kNone.
    PathSegment idleSeg(TimeNs b, TimeNs e, const char* what, std::uint32_t after) const
    {
        PathSegment s;
        s.begin = b;
        s.end = e;
        s.label = what;
        if (m_c) { // replayed times: the cause of the measured gap that ended at the same task
            if (const auto it = m_causeOf.find(after); after != kNone && it != m_causeOf.end())
                s.idleCause = it->second;
            return s;
        }
        // The idle cause of the device at that time, when the device was idle then.
        const auto it = std::upper_bound(m_idle.gaps.begin(), m_idle.gaps.end(), b,
                                         [](TimeNs v, const IdleGap& g) { return v < g.start; });
        if (it != m_idle.gaps.begin() && (it - 1)->end > b)
            s.idleCause = (it - 1)->cause;
        else if (it != m_idle.gaps.end() && it->start < e)
            s.idleCause = it->cause;
        return s;
    }

    const Profile& m_p;
    const StepGraph& m_g;
    const SliceTable& m_s;
    const IdleCauses& m_idle;
    const PathClock* m_c;
    std::unordered_map<std::uint32_t, IdleCause> m_causeOf; // with a clock: task → its gap's cause
    std::vector<std::uint32_t> m_python;
};

} // namespace

CriticalPaths criticalPaths(const Profile& p, const StepGraph& g, const IdleCauses& idle)
{
    CriticalPaths out;
    Walker w(p, g, idle);
    for (std::size_t si = 0; si < g.steps.size(); ++si) {
        out.steps.push_back(w.walk(static_cast<int>(si), w.measuredEnds(static_cast<int>(si))));
        for (std::size_t k = 0; k < kPathKindCount; ++k)
            out.boundBy[k] += out.steps.back().boundBy[k];
        for (const PathSegment& s : out.steps.back().segments)
            if (s.slice != kNone)
                out.onPath.push_back(s.slice);
    }
    std::sort(out.onPath.begin(), out.onPath.end());
    out.onPath.erase(std::unique(out.onPath.begin(), out.onPath.end()), out.onPath.end());
    return out;
}

std::vector<StepPath> criticalPathsOn(const Profile& p, const StepGraph& g, const IdleCauses& idle, const PathClock& clock)
{
    std::vector<StepPath> out;
    const std::size_t rows = p.slices.size();
    if (clock.start.size() != rows || clock.end.size() != rows || clock.edgeAt.size() != g.edges.size()
        || clock.steps.size() != g.steps.size() || g.kind.size() != rows)
        return out; // a clock of another graph: nothing to walk
    Walker w(p, g, idle, &clock);
    const std::vector<StepEnds> ends = w.clockEnds();
    for (std::size_t si = 0; si < g.steps.size(); ++si)
        out.push_back(w.walk(static_cast<int>(si), ends[si]));
    return out;
}

bool onCriticalPath(const CriticalPaths& c, std::uint32_t row)
{
    return std::binary_search(c.onPath.begin(), c.onPath.end(), row);
}

TimeNs sliceSlack(const Profile& p, const StepGraph& g, const CriticalPaths& c, std::uint32_t row)
{
    if (row >= p.slices.size() || onCriticalPath(c, row))
        return 0;
    const SliceTable& s = p.slices;
    const TimeNs end = s.end(row);
    bool any = false;
    TimeNs best = 0;
    const auto take = [&](TimeNs v) {
        if (!any || v < best)
            best = v;
        any = true;
    };
    if (const std::uint32_t next = g.streamNext(row); next != kNone)
        take(s.start[next] - end);
    if (g.kind[row] == NodeKind::Python || g.kind[row] == NodeKind::Cann) {
        const Track& t = p.tracks[s.track[row].v];
        for (std::uint32_t r = row + 1; r < t.sliceEnd; ++r)
            if (s.depth[r] <= s.depth[row]) {
                if (s.depth[r] == s.depth[row])
                    take(s.start[r] - end);
                break;
            }
    }
    for (const GraphEdge* e : g.edgesFrom(row))
        if (e->kind != EdgeKind::Collective)
            take(s.start[e->dst] - (e->kind == EdgeKind::Launch || e->kind == EdgeKind::TaskQueue ? e->at : end));
    if (!any) {
        const int st = g.step[row];
        take(st >= 0 ? g.steps[static_cast<std::size_t>(st)].end - end : 0);
    }
    return std::max<TimeNs>(best, 0);
}

} // namespace npuscope
