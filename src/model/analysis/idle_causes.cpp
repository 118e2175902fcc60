#include "model/analysis/idle_causes.h"

#include <algorithm>

namespace npuscope {

const char* idleCauseKey(IdleCause c)
{
    switch (c) {
    case IdleCause::HostPython: return "host_python";
    case IdleCause::DataLoader: return "dataloader";
    case IdleCause::Sync: return "sync";
    case IdleCause::Compile: return "compile";
    case IdleCause::Launch: return "launch";
    case IdleCause::Dependency: return "dependency";
    case IdleCause::CommWait: return "comm_wait";
    case IdleCause::Unknown: return "unknown";
    }
    return "unknown";
}

namespace {

// The fixed reasons (IdleGap::reason).
constexpr const char* kNoTask = "no device task starts where the gap ends";
constexpr const char* kNoFlows = "no launch flows in this profile: host causes cannot be attributed";
constexpr const char* kNoLaunch = "no launch flow into the task that ended the gap";
constexpr const char* kQueued = "queued; waited on the stream";
constexpr const char* kEvent = "queued; waited on an event recorded on another stream";
constexpr const char* kCommEvent = "queued; waited on a record of a communication stream";
constexpr const char* kNotify = "queued; waited on a notify from a peer (Notify Wait)";
constexpr const char* kInferred = "queued; waited on a task of another stream (inferred from timing, no event recorded)";
constexpr const char* kInferredComm =
    "queued; waited on a communication task of another stream (inferred from timing, no event recorded)";
constexpr const char* kPeers = "queued; the communication task waited for its peers";
constexpr const char* kDispatch = "launch submitted after the device went idle: dispatch delay";
constexpr const char* kQueue = "between enqueue and dequeue of the task queue";
constexpr const char* kOwnLaunch = "inside the task's own launch call";
constexpr const char* kSync = "host thread blocked in a synchronize";
constexpr const char* kCompile = "host thread compiling an operator";
constexpr const char* kLoader = "host thread waiting on the data loader";
constexpr const char* kPython = "host thread busy in Python / framework code";
constexpr const char* kRuntime = "host thread busy in the runtime (CANN) on other work";
constexpr const char* kNothing = "host thread had no recorded work";

struct Piece {
    IdleCause cause = IdleCause::Unknown;
    std::uint32_t host = kNone;
    const char* reason = kNothing;
};

class Attributor {
public:
    Attributor(const Profile& p, const StepGraph& g, IdleCauses& out) : m_p(p), m_g(g), m_s(p.slices), m_out(out)
    {
        m_commStream.assign(p.tracks.size(), 0);
        for (std::size_t t = 0; t < p.tracks.size(); ++t) {
            const Track& tr = p.tracks[t];
            if (tr.kind == TrackKind::Python)
                m_python.push_back(static_cast<std::uint32_t>(t));
            else if (tr.kind == TrackKind::Cann)
                m_cann.push_back(static_cast<std::uint32_t>(t));
            else if (tr.kind == TrackKind::Stream)
                for (std::uint32_t r = tr.sliceBegin; r < tr.sliceEnd; ++r)
                    if (g.role[r] == NodeRole::Comm) {
                        m_commStream[t] = 1;
                        break;
                    }
        }
    }

    // [a, b) of a step's Free, or (preparing) of its Preparing.
    void gap(int step, TimeNs a, TimeNs b, bool preparing = false)
    {
        m_step = step;
        m_preparing = preparing;
        const std::uint32_t n = taskAt(b);
        if (n == kNone)
            return emit(a, b, {IdleCause::Unknown, kNone, kNoTask}, n);
        const GraphEdge* launch = launchOf(n);
        if (!launch) {
            if (deviceWait(n, a, b) || inferredWait(n, a, b))
                return;
            return emit(a, b, {IdleCause::Unknown, kNone, m_g.hasLaunchFlows ? kNoLaunch : kNoFlows}, n);
        }
        const TimeNs l = launch->at;
        if (l <= a) {
            if (deviceWait(n, a, b) || inferredWait(n, a, b))
                return;
            if (m_g.role[n] == NodeRole::Comm)
                return emit(a, b, {IdleCause::CommWait, kNone, kPeers}, n);
            return emit(a, b, {IdleCause::Dependency, kNone, kQueued}, n);
        }
        const TimeNs c = std::min(b, l);
        hostSide(a, c, *launch, n);
        if (c < b)
            emit(c, b, {IdleCause::Launch, launch->src, kDispatch}, n);
    }

private:
    // N: the busy task starting at b (computation or communication first, then any).
    std::uint32_t taskAt(TimeNs b) const
    {
        std::uint32_t any = kNone;
        for (std::uint32_t r : m_g.deviceStartingAt(b)) {
            if (m_g.role[r] == NodeRole::Compute || m_g.role[r] == NodeRole::Comm) {
                if (launchOf(r))
                    return r;
                if (any == kNone || m_g.role[any] != NodeRole::Compute)
                    any = r;
            } else if (any == kNone) {
                any = r;
            }
        }
        return any;
    }

    // The latest launch flow into a task, or into a collective's tasks.
    const GraphEdge* launchOf(std::uint32_t n) const
    {
        const GraphEdge* best = nullptr;
        for (const GraphEdge& e : m_g.edgesInto(n))
            if (e.kind == EdgeKind::Launch && (!best || e.at > best->at))
                best = &e;
        if (!best && m_g.kind[n] == NodeKind::Collective)
            for (const GraphEdge* c : m_g.edgesFrom(n))
                if (c->kind == EdgeKind::Collective)
                    for (const GraphEdge& e : m_g.edgesInto(c->dst))
                        if (e.kind == EdgeKind::Launch && (!best || e.at < best->at))
                            best = &e;
        return best;
    }

    // A wait on N's stream that ended inside the gap, just before N: the gap is device-side.
    bool deviceWait(std::uint32_t n, TimeNs a, TimeNs b)
    {
        std::uint32_t r = n;
        for (int k = 0; k < 16; ++k) {
            r = m_g.streamPrev(r);
            if (r == kNone || m_s.end(r) <= a)
                break;
            if (m_g.role[r] != NodeRole::EventWait)
                continue;
            const bool notify = m_p.str(m_s.name[r]).find("otify") != std::string_view::npos;
            std::uint32_t rec = kNone;
            for (const GraphEdge& e : m_g.edgesInto(r))
                if (e.kind == EdgeKind::EventWait || e.kind == EdgeKind::NotifyWait)
                    rec = e.src;
            Piece pc{IdleCause::Dependency, kNone, kEvent};
            if (notify && (rec == kNone || m_commStream[m_s.track[rec].v]))
                pc = {IdleCause::CommWait, kNone, kNotify};
            else if (rec != kNone && m_commStream[m_s.track[rec].v])
                pc = {IdleCause::CommWait, kNone, kCommEvent};
            else if (rec == kNone)
                pc.reason = kQueued;
            emit(a, b, pc, n, rec != kNone ? rec : r);
            return true;
        }
        return false;
    }

    // N waited on a task of another stream the data has no event for (EdgeKind::InferredWait):
    // `comm_wait` on a communication task, else `dependency`, as with a recorded wait.
    bool inferredWait(std::uint32_t n, TimeNs a, TimeNs b)
    {
        for (const GraphEdge& e : m_g.edgesInto(n)) {
            if (e.kind != EdgeKind::InferredWait)
                continue;
            const bool comm = m_g.role[e.src] == NodeRole::Comm;
            emit(a, b, {comm ? IdleCause::CommWait : IdleCause::Dependency, kNone, comm ? kInferredComm : kInferred}, n,
                 e.src);
            return true;
        }
        return false;
    }

    std::uint32_t trackWithTid(const std::vector<std::uint32_t>& tracks, std::int64_t tid) const
    {
        for (std::uint32_t t : tracks)
            if (m_p.tracks[t].tid == tid)
                return t;
        return kNone;
    }

    // The last slice of a track starting at or before t, or kNone.
    std::uint32_t lastStartingBy(std::uint32_t track, TimeNs t) const
    {
        const Track& tr = m_p.tracks[track];
        const auto first = m_s.start.begin() + tr.sliceBegin, last = m_s.start.begin() + tr.sliceEnd;
        const auto it = std::upper_bound(first, last, t);
        return it == first ? kNone : static_cast<std::uint32_t>(it - 1 - m_s.start.begin());
    }

    // The slices of a track overlapping [x, y), appended to `out`.
    void overlapping(std::uint32_t track, TimeNs x, TimeNs y, std::vector<std::uint32_t>& out) const
    {
        const Track& tr = m_p.tracks[track];
        const std::uint32_t i = lastStartingBy(track, x);
        for (std::uint32_t r = i; r != kNone; r = m_g.parent[r])
            if (m_s.end(r) > x && m_g.kind[r] != NodeKind::None)
                out.push_back(r);
        for (std::uint32_t r = i == kNone ? tr.sliceBegin : i + 1; r < tr.sliceEnd && m_s.start[r] < y; ++r)
            if (m_s.end(r) > x && m_g.kind[r] != NodeKind::None)
                out.push_back(r);
    }

    // [x, y) before the launch was submitted: what the launching host thread was doing.
    void hostSide(TimeNs x, TimeNs y, const GraphEdge& launch, std::uint32_t n)
    {
        if (x >= y)
            return;
        const Track& srcTrack = m_p.tracks[m_s.track[launch.src].v];
        TimeNs queueFrom = launch.at, queueTo = launch.at;
        std::int64_t tid = srcTrack.tid;
        // The task queue: the Dequeue running at the launch on the launching thread, and the
        // Enqueue that fed it on the thread that issued the op.
        if (const std::uint32_t pt = trackWithTid(m_python, tid); pt != kNone) {
            for (std::uint32_t r = lastStartingBy(pt, launch.at); r != kNone; r = m_g.parent[r]) {
                if (m_g.role[r] != NodeRole::Dequeue || m_s.end(r) < launch.at)
                    continue;
                for (const GraphEdge& e : m_g.edgesInto(r))
                    if (e.kind == EdgeKind::TaskQueue) {
                        queueFrom = e.at;
                        tid = m_p.tracks[m_s.track[e.src].v].tid;
                    }
                break;
            }
        }
        m_slices.clear();
        if (const std::uint32_t pt = trackWithTid(m_python, tid); pt != kNone)
            overlapping(pt, x, y, m_slices);
        if (const std::uint32_t ct = trackWithTid(m_cann, tid); ct != kNone)
            overlapping(ct, x, y, m_slices);
        m_cuts.clear();
        m_cuts.push_back(x);
        m_cuts.push_back(y);
        const auto cut = [&](TimeNs t) {
            if (t > x && t < y)
                m_cuts.push_back(t);
        };
        for (std::uint32_t r : m_slices) {
            cut(m_s.start[r]);
            cut(m_s.end(r));
        }
        cut(queueFrom);
        cut(m_s.start[launch.src]);
        cut(m_s.end(launch.src));
        std::sort(m_cuts.begin(), m_cuts.end());
        m_cuts.erase(std::unique(m_cuts.begin(), m_cuts.end()), m_cuts.end());
        // A sweep over the pieces: `m_open` holds the slices covering the current piece (every
        // start and end is a cut, so a slice open at a piece's start covers all of it).
        std::sort(m_slices.begin(), m_slices.end(), [&](std::uint32_t a, std::uint32_t b) {
            return m_s.start[a] < m_s.start[b] || (m_s.start[a] == m_s.start[b] && m_s.depth[a] < m_s.depth[b]);
        });
        m_open.clear();
        std::size_t next = 0;
        for (std::size_t i = 0; i + 1 < m_cuts.size(); ++i) {
            const TimeNs u = m_cuts[i], v = m_cuts[i + 1];
            for (; next < m_slices.size() && m_s.start[m_slices[next]] <= u; ++next)
                m_open.push_back(m_slices[next]);
            std::erase_if(m_open, [&](std::uint32_t r) { return m_s.end(r) <= u; });
            emit(u, v, classify(u, v, launch, queueFrom, queueTo), n);
        }
    }

    Piece classify(TimeNs u, TimeNs v, const GraphEdge& launch, TimeNs queueFrom, TimeNs queueTo) const
    {
        std::uint32_t sync = kNone, compile = kNone, loader = kNone, py = kNone, cann = kNone;
        for (std::uint32_t r : m_open) {
            if (m_s.start[r] > u || m_s.end(r) < v)
                continue;
            switch (m_g.role[r]) {
            case NodeRole::Sync: sync = r; break;
            case NodeRole::Compile: compile = r; break;
            case NodeRole::DataLoader: loader = r; break;
            default: break;
            }
            std::uint32_t& deepest = m_g.kind[r] == NodeKind::Python ? py : cann;
            if (deepest == kNone || m_s.depth[r] >= m_s.depth[deepest])
                deepest = r;
        }
        if (sync != kNone)
            return {IdleCause::Sync, sync, kSync};
        if (compile != kNone)
            return {IdleCause::Compile, compile, kCompile};
        if (loader != kNone)
            return {IdleCause::DataLoader, loader, kLoader};
        if (u >= queueFrom && v <= queueTo && queueFrom < queueTo)
            return {IdleCause::Launch, launch.src, kQueue};
        if (u >= m_s.start[launch.src] && v <= m_s.end(launch.src))
            return {IdleCause::Launch, launch.src, kOwnLaunch};
        if (py != kNone)
            return {IdleCause::HostPython, py, kPython};
        if (cann != kNone)
            return {IdleCause::HostPython, cann, kRuntime};
        return {IdleCause::Unknown, kNone, kNothing};
    }

    void emit(TimeNs a, TimeNs b, const Piece& pc, std::uint32_t n, std::uint32_t waitedOn = kNone)
    {
        if (b <= a)
            return;
        IdleStep& st = m_out.steps.back(); // the step of m_step, the last one listed
        (m_preparing ? st.preparingByCause : st.byCause)[static_cast<std::size_t>(pc.cause)] += b - a;
        std::vector<IdleGap>& gaps = m_preparing ? m_out.preparingGaps : m_out.gaps;
        if (!gaps.empty()) {
            IdleGap& last = gaps.back();
            if (last.end == a && last.step == m_step && last.cause == pc.cause && last.hostSlice == pc.host && last.task == n
                && last.reason == pc.reason) {
                last.end = b;
                return;
            }
        }
        gaps.push_back({a, b, m_step, pc.cause, pc.host, n, waitedOn, pc.reason, m_preparing});
    }

    const Profile& m_p;
    const StepGraph& m_g;
    const SliceTable& m_s;
    IdleCauses& m_out;
    std::vector<std::uint32_t> m_python, m_cann;
    std::vector<char> m_commStream;
    std::vector<std::uint32_t> m_slices, m_open;
    std::vector<TimeNs> m_cuts;
    int m_step = 0;
    bool m_preparing = false;
};

} // namespace

IdleCauses idleCauses(const Profile& p, const StepGraph& g)
{
    std::vector<std::size_t> all(g.steps.size());
    for (std::size_t si = 0; si < all.size(); ++si)
        all[si] = si;
    return idleCauses(p, g, all);
}

IdleCauses idleCauses(const Profile& p, const StepGraph& g, const std::vector<std::size_t>& steps)
{
    IdleCauses out;
    out.missing = g.missing;
    Attributor at(p, g, out);
    for (const std::size_t si : steps) {
        if (si >= g.steps.size())
            continue;
        const GraphStep& s = g.steps[si];
        IdleStep st;
        st.step = static_cast<int>(si);
        st.name = s.name;
        st.idleNs = s.idleNs;
        st.preparingNs = s.preparing();
        out.steps.push_back(std::move(st));
        if (s.deviceBegin > s.begin)
            at.gap(static_cast<int>(si), s.begin, s.deviceBegin, true);
        for (const Interval& iv : s.idle)
            at.gap(static_cast<int>(si), iv.begin, iv.end);
    }
    TimeNs noLaunch = 0;
    std::size_t noLaunchGaps = 0;
    for (const IdleGap& gap : out.gaps)
        if (gap.reason == kNoLaunch) {
            noLaunch += gap.dur();
            ++noLaunchGaps;
        }
    if (noLaunchGaps > 0)
        out.missing.push_back(std::to_string(noLaunchGaps) + " idle gaps (" + std::to_string(noLaunch)
                              + " ns) end at a task with no launch flow: attributed to unknown");
    for (const IdleStep& st : out.steps) {
        out.idleNs += st.idleNs;
        out.preparingNs += st.preparingNs;
        for (std::size_t c = 0; c < kIdleCauseCount; ++c) {
            out.totals[c] += st.byCause[c];
            out.preparingTotals[c] += st.preparingByCause[c];
        }
    }
    return out;
}

std::string idleGapReason(const Profile& p, const IdleGap& gap)
{
    std::string r = gap.reason;
    if (gap.hostSlice != kNone && gap.hostSlice < p.slices.size())
        r += ": " + std::string(p.str(p.slices.name[gap.hostSlice]));
    if (gap.waitedOn != kNone && gap.waitedOn < p.slices.size())
        r += " (" + std::string(p.str(p.slices.name[gap.waitedOn])) + ")";
    if (gap.task != kNone && gap.task < p.slices.size())
        r += "; next task " + std::string(p.str(p.slices.name[gap.task]));
    return r;
}

std::string hostCallStack(const Profile& p, const StepGraph& g, std::uint32_t row)
{
    for (int k = 0; row != kNone && row < p.slices.size() && k < 256; ++k, row = g.parent[row]) {
        if (p.slices.args[row] == kNone)
            continue;
        std::string cs = p.args.find(p.slices.args[row], "Call stack", p.strings);
        if (!cs.empty())
            return cs;
    }
    return {};
}

} // namespace npuscope
