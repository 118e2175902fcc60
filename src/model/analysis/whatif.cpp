// What-if replay (whatif.h): the measured constraints of every device task, built once, and
// replays of each step with changed durations and dependencies.
#include "model/analysis/whatif.h"

#include "model/analysis/op_stats.h"

#include "model/analysis/critical_path.h"
#include "model/analysis/idle_causes.h"
#include "model/analysis/overlap.h"
#include "model/analysis/rank_facts.h"
#include "model/analysis/step_graph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <numeric>
#include <unordered_map>

namespace npuscope {

namespace {

enum Bind : std::uint8_t { kStream = 0, kLaunch = 1, kDep = 2, kFirst = 3 };

// One device task and its measured constraints.
struct Dev {
    std::uint32_t row = kNone;
    std::uint32_t track = kNone;
    TimeNs start = 0, dur = 0;
    int step = -1;
    bool comm = false, compute = false;
    std::uint32_t prev = kNone;      // dev index of the stream predecessor
    std::uint32_t launchSrc = kNone; // slice row of its launch
    std::uint32_t enqueue = kNone;   // the Enqueue feeding the launch's thread, when linked
    TimeNs launchArr = 0;            // when the launch arrived (measured)
    std::uint32_t dep = kNone;       // dev index of the latest cross-stream dependency (recorded or inferred)
    Bind bind = kFirst;
    TimeNs gap[3] = {0, 0, 0};  // gap after each constraint's event, as the replay uses it
    std::uint32_t type = kNone; // NameId of the op type (kernel Type, else name)
};

TimeNs medianOf(std::vector<TimeNs> v)
{
    if (v.empty())
        return 0;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

double medianOfSteps(const std::vector<double>& v, const std::vector<char>& partial)
{
    std::vector<double> c;
    for (std::size_t i = 0; i < v.size(); ++i)
        if (i >= partial.size() || !partial[i])
            c.push_back(v[i]);
    if (c.empty())
        return 0;
    std::sort(c.begin(), c.end());
    const std::size_t n = c.size();
    return n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2.0;
}

std::string stepKey(std::string s)
{
    const std::string pre = "ProfilerStep#";
    if (s.rfind(pre, 0) == 0)
        s = s.substr(pre.size());
    return s;
}

bool hostCause(IdleCause c)
{
    return c == IdleCause::HostPython || c == IdleCause::DataLoader || c == IdleCause::Sync || c == IdleCause::Compile;
}

} // namespace

struct WhatIfModel::Impl {
    const Profile& p;
    StepGraph g;
    OverlapResult ov;
    IdleCauses idle;
    std::vector<Dev> dev;                                      // by start
    std::unordered_map<std::uint32_t, std::uint32_t> devOf;    // slice row → dev index
    std::unordered_map<std::uint32_t, std::string> lowerTypes; // NameId → lower-cased type
    std::vector<std::string> notes;
    // What every replay reads the same (prepare()): the host rows that synchronize, by row;
    // whether `dev`'s starts never decrease (a replay then merges the host events into it); per
    // step the measured end of its last work and of its device tasks outside `dev`; and the host
    // work of the steps, by thread and end.
    struct HostEnd {
        TimeNs end;
        std::uint32_t thread;
        std::int32_t step;
    };
    std::vector<std::uint32_t> syncRows;
    bool devSorted = false;
    std::vector<TimeNs> lastMeasured, lastFixed;
    std::vector<HostEnd> hostEnds;
    // A replay's per-task columns, kept between replays (one replay at a time uses them), so
    // that each does not fault in fresh pages.
    struct Scratch {
        std::vector<TimeNs> dur, st, en;
        std::vector<char> done;
    };
    mutable std::mutex scratchMutex;
    mutable Scratch scratch;

    explicit Impl(const Profile& prof)
        : p(prof), g(buildStepGraph(prof)), ov(computeOverlap(prof)), idle(idleCauses(prof, g))
    {
        build();
    }

    void build();
    void classify();
    void prepare();
    // Host tracks of one thread (its Python and CANN tracks) share one history: by tid.
    std::vector<std::uint32_t> threadOf; // track → thread index
    std::size_t threads = 0;
    std::uint32_t thread(std::uint32_t row) const { return threadOf[p.slices.track[row].v]; }
    TimeNs hostShiftAt(const std::vector<std::vector<std::pair<TimeNs, TimeNs>>>& hist, std::uint32_t th, TimeNs t) const
    {
        if (th >= hist.size())
            return 0;
        const auto& h = hist[th];
        auto it = std::upper_bound(h.begin(), h.end(), std::make_pair(t, kMaxTimeNs));
        return it == h.begin() ? 0 : std::prev(it)->second;
    }
    // The Enqueue row of the task queue feeding `row`'s thread (row or an ancestor is a Dequeue).
    std::uint32_t enqueueOf(std::uint32_t row) const
    {
        for (int depth = 0; row != kNone && depth < 64; ++depth, row = g.parent[row]) {
            if (g.role[row] != NodeRole::Dequeue)
                continue;
            for (const GraphEdge& e : g.edgesInto(row))
                if (e.kind == EdgeKind::TaskQueue)
                    return e.src;
        }
        return kNone;
    }
};

void WhatIfModel::Impl::build()
{
    const auto& sl = p.slices;
    std::map<std::int64_t, std::uint32_t> byTid;
    threadOf.resize(p.tracks.size());
    for (std::size_t t = 0; t < p.tracks.size(); ++t)
        threadOf[t] = byTid.try_emplace(p.tracks[t].tid, static_cast<std::uint32_t>(byTid.size())).first->second;
    threads = byTid.size();
    if (g.kind.size() != sl.size()) {
        notes.push_back("no step graph: nothing to replay");
        return;
    }
    dev.reserve(g.deviceByStart.size());
    for (std::uint32_t row : g.deviceByStart) {
        if (row >= sl.size() || g.kind[row] != NodeKind::DeviceTask)
            continue;
        Dev d;
        d.row = row;
        d.track = sl.track[row].v;
        d.start = sl.start[row];
        d.dur = sl.dur[row];
        d.step = g.step[row];
        d.comm = g.role[row] == NodeRole::Comm;
        d.compute = g.role[row] == NodeRole::Compute;
        const std::uint32_t k = sl.kernel[row];
        d.type = (k != kNone && k < p.kernels.size() && !p.str(p.kernels.type[k]).empty()) ? p.kernels.type[k].v
                                                                                           : sl.name[row].v;
        devOf.emplace(row, static_cast<std::uint32_t>(dev.size()));
        dev.push_back(d);
    }
    for (Dev& d : dev)
        if (lowerTypes.find(d.type) == lowerTypes.end())
            lowerTypes.emplace(d.type, lower(std::string(p.str(NameId(d.type)))));
    // Stream predecessors, launches and explicit waits.
    for (Dev& d : dev) {
        const std::uint32_t pr = g.streamPrev(d.row);
        if (pr != kNone)
            if (auto it = devOf.find(pr); it != devOf.end())
                d.prev = it->second;
        TimeNs depEnd = -kMaxTimeNs;
        for (const GraphEdge& e : g.edgesInto(d.row)) {
            if (e.src >= sl.size())
                continue;
            if (e.kind == EdgeKind::Launch) {
                const bool better = d.launchSrc == kNone
                                    || (g.role[e.src] == NodeRole::Launch && g.role[d.launchSrc] != NodeRole::Launch);
                if (better)
                    d.launchSrc = e.src;
            } else if (e.kind == EdgeKind::EventWait || e.kind == EdgeKind::NotifyWait || e.kind == EdgeKind::InferredWait) {
                if (auto it = devOf.find(e.src); it != devOf.end() && sl.end(e.src) > depEnd) {
                    depEnd = sl.end(e.src);
                    d.dep = it->second;
                }
            }
        }
        if (d.launchSrc != kNone) {
            d.launchArr = std::min(sl.end(d.launchSrc), d.start);
            for (const GraphEdge& e : g.edgesInto(d.row))
                if (e.kind == EdgeKind::Launch && e.src == d.launchSrc && e.at > 0)
                    d.launchArr = std::min(e.at, d.start); // the flow: when the launch was submitted
            d.enqueue = enqueueOf(d.launchSrc);
        }
    }
    classify();
    prepare();
    if (!g.hasLaunchFlows)
        notes.push_back("no launch flows: device tasks replay on stream order and waits only");
    for (const auto& m : g.missing)
        notes.push_back(m);
}

// The binding constraint of each task and the gaps the replay uses.
void WhatIfModel::Impl::classify()
{
    // Binding constraint: the one whose event came last; typical gaps per stream and kind.
    std::unordered_map<std::uint32_t, std::vector<TimeNs>> binding[3];
    for (Dev& d : dev) {
        TimeNs ev[3] = {-kMaxTimeNs, -kMaxTimeNs, -kMaxTimeNs};
        if (d.prev != kNone)
            ev[kStream] = dev[d.prev].start + dev[d.prev].dur;
        if (d.launchSrc != kNone)
            ev[kLaunch] = d.launchArr;
        if (d.dep != kNone)
            ev[kDep] = dev[d.dep].start + dev[d.dep].dur;
        d.bind = kFirst;
        for (int k = 0; k < 3; ++k)
            if (ev[k] > -kMaxTimeNs && (d.bind == kFirst || ev[k] > ev[d.bind]))
                d.bind = static_cast<Bind>(k);
        for (int k = 0; k < 3; ++k)
            d.gap[k] = ev[k] > -kMaxTimeNs ? d.start - ev[k] : 0;
        if (d.bind != kFirst)
            binding[d.bind][d.track].push_back(d.gap[d.bind]);
    }
    std::unordered_map<std::uint32_t, TimeNs> typical[3];
    for (int k = 0; k < 3; ++k)
        for (auto& [track, v] : binding[k])
            typical[k][track] = medianOf(v);
    for (Dev& d : dev)
        for (int k = 0; k < 3; ++k) {
            if (k == d.bind)
                continue;
            const auto it = typical[k].find(d.track);
            const TimeNs t = it != typical[k].end() ? it->second : 0;
            d.gap[k] = std::min(std::max<TimeNs>(t, 0), d.gap[k]);
        }
}

void WhatIfModel::Impl::prepare()
{
    const auto& sl = p.slices;
    devSorted = std::is_sorted(dev.begin(), dev.end(), [](const Dev& a, const Dev& b) { return a.start < b.start; });
    lastMeasured.assign(g.steps.size(), -kMaxTimeNs);
    lastFixed.assign(g.steps.size(), -kMaxTimeNs);
    for (std::uint32_t row = 0; row < sl.size(); ++row) {
        const NodeKind k = g.kind[row];
        const bool host = k == NodeKind::Python || k == NodeKind::Cann;
        if (host && g.role[row] == NodeRole::Sync)
            syncRows.push_back(row);
        const int s = g.step[row];
        if (s < 0 || static_cast<std::size_t>(s) >= g.steps.size() || k == NodeKind::None || k == NodeKind::Collective)
            continue;
        const auto si = static_cast<std::size_t>(s);
        lastMeasured[si] = std::max(lastMeasured[si], sl.end(row));
        if (host)
            hostEnds.push_back({sl.end(row), thread(row), s});
        else if (devOf.find(row) == devOf.end())
            lastFixed[si] = std::max(lastFixed[si], sl.end(row));
    }
    std::sort(hostEnds.begin(), hostEnds.end(),
              [](const HostEnd& a, const HostEnd& b) { return a.thread != b.thread ? a.thread < b.thread : a.end < b.end; });
}

WhatIfModel::WhatIfModel(const Profile& p) : m(std::make_unique<Impl>(p)) {}
WhatIfModel::~WhatIfModel() = default;
WhatIfModel::WhatIfModel(WhatIfModel&&) noexcept = default;
WhatIfModel& WhatIfModel::operator=(WhatIfModel&&) noexcept = default;

std::vector<std::uint32_t> WhatIfModel::rowsOfType(const std::string& type) const
{
    const std::string t = lower(type);
    std::vector<std::uint32_t> out;
    for (const Dev& d : m->dev)
        if (m->lowerTypes.at(d.type) == t)
            out.push_back(d.row);
    return out;
}

namespace {

struct HostEv {
    TimeNs at;
    std::uint32_t row;
    bool sync;
};

} // namespace

// One replay: the new start and end of every device task, the host threads' shifts, and what the
// steps become.
struct WhatIfModel::Replay {
    const Impl& I;
    const WhatIfChanges& c;
    const Profile& p;
    const StepGraph& g;
    const SliceTable& sl;
    std::size_t n;
    WhatIfModel::Detail detail = WhatIfModel::Detail::Full;
    WhatIfResult res;
    std::vector<TimeNs> dur, st, en;
    std::vector<char> done;
    void swapScratch(Impl::Scratch& s)
    {
        dur.swap(s.dur);
        st.swap(s.st);
        en.swap(s.en);
        done.swap(s.done);
    }
    std::unordered_set<std::uint32_t> removedHost;
    // By dev index: the ns of its binding gap (its launch wait) removed, kNoCut where none; empty
    // when none is. `cuts` counts the tasks with one.
    static constexpr TimeNs kNoCut = -kMaxTimeNs;
    std::vector<TimeNs> cutGap, cutLaunch;
    std::size_t cuts = 0;
    std::vector<std::vector<std::pair<TimeNs, TimeNs>>> hist; // per thread: (time, cumulative shift)
    std::vector<HostEv> hostEv;
    std::vector<TimeNs> syncEnd;
    std::vector<std::uint32_t> stepLast; // per step: the processed task with the latest measured end
    std::vector<TimeNs> last, last2;     // per step: the measured and the replayed end of its last work
    StepStats stats;

    Replay(const Impl& impl, const WhatIfChanges& changes)
        : I(impl), c(changes), p(impl.p), g(impl.g), sl(impl.p.slices), n(impl.dev.size())
    {
    }
    TimeNs shiftOfLaunch(const Dev& d) const
    {
        if (d.enqueue != kNone)
            return I.hostShiftAt(hist, I.thread(d.enqueue), sl.start[d.enqueue]);
        return I.hostShiftAt(hist, I.thread(d.launchSrc), sl.start[d.launchSrc]);
    }
    bool valid()
    {
        for (const auto& cause : c.removeCauses)
            if (std::find(whatIfCauses().begin(), whatIfCauses().end(), cause) == whatIfCauses().end()) {
                {
                    std::string known;
                    for (const auto& k : whatIfCauses())
                        known += (known.empty() ? "" : ", ") + k;
                    res.error = "unknown cause '" + cause + "' (known: " + known + ")";
                }
                return false;
            }
        for (const auto& [t, f] : c.scaleTypes)
            if (!(f >= 0) || !std::isfinite(f)) {
                res.error = "scale factor for " + t + " must be a finite number >= 0";
                return false;
            }
        if (g.steps.empty() || I.dev.empty()) {
            res.error = "no device tasks with a step to replay";
            return false;
        }
        return true;
    }
    void durations()
    {
        // New durations.
        std::unordered_map<std::uint32_t, double> typeScale;
        for (const auto& [t, f] : c.scaleTypes) {
            const std::string lt = lower(t);
            bool any = false;
            for (const auto& [id, name] : I.lowerTypes)
                if (name == lt) {
                    auto [it, fresh] = typeScale.try_emplace(id, f);
                    if (!fresh)
                        it->second *= f;
                    any = true;
                }
            if (!any)
                res.notes.push_back("no device task of type " + t + ": its scale changes nothing");
        }
        dur.assign(n, 0);
        st.assign(n, 0);
        en.assign(n, 0);
        done.assign(n, 0);
        for (std::size_t i = 0; i < n; ++i) {
            const Dev& d = I.dev[i];
            double x = static_cast<double>(d.dur);
            if (!typeScale.empty())
                if (auto it = typeScale.find(d.type); it != typeScale.end())
                    x *= it->second;
            if (!c.scaleRows.empty())
                if (auto it = c.scaleRows.find(d.row); it != c.scaleRows.end())
                    x *= std::max(0.0, it->second);
            if (!c.saveRows.empty())
                if (auto it = c.saveRows.find(d.row); it != c.saveRows.end())
                    x -= static_cast<double>(it->second);
            dur[i] = std::max<TimeNs>(0, roundNs(x));
        }
    }
    void causes()
    {
        // Removed causes: the host slices idle_causes blames take no time; a device-side or launch
        // wait loses the idle time blamed on it.
        if (c.removeCauses.empty())
            return;
        bool removed[kIdleCauseCount] = {};
        for (std::size_t k = 0; k < kIdleCauseCount; ++k)
            removed[k] = std::find(c.removeCauses.begin(), c.removeCauses.end(), idleCauseKey(static_cast<IdleCause>(k)))
                         != c.removeCauses.end();
        for (const IdleGap& gap : I.idle.gaps) {
            const auto k = static_cast<std::size_t>(gap.cause);
            if (k >= kIdleCauseCount || !removed[k])
                continue;
            if (hostCause(gap.cause)) {
                if (gap.hostSlice != kNone && gap.hostSlice < sl.size())
                    removedHost.insert(gap.hostSlice);
            } else if (auto it = I.devOf.find(gap.task); it != I.devOf.end()) {
                std::vector<TimeNs>& cut = gap.cause == IdleCause::Launch ? cutLaunch : cutGap;
                if (cut.empty())
                    cut.assign(n, kNoCut);
                TimeNs& v = cut[it->second];
                cuts += v == kNoCut ? 1 : 0;
                v = (v == kNoCut ? 0 : v) + gap.dur();
            }
        }
    }
    void hostEvents()
    {
        // Host events per track: (time, cumulative shift) histories, built in time order.
        hist.assign(I.threads, {});
        // The host rows that synchronize and the removed ones, by row.
        std::vector<std::uint32_t> rows = I.syncRows;
        for (std::uint32_t row : removedHost)
            if ((g.kind[row] == NodeKind::Python || g.kind[row] == NodeKind::Cann) && g.role[row] != NodeRole::Sync)
                rows.push_back(row);
        if (rows.size() > I.syncRows.size())
            std::sort(rows.begin(), rows.end());
        for (std::uint32_t row : rows) {
            const NodeRole r = g.role[row];
            const bool removed = removedHost.count(row) != 0;
            if (removed) { // only the outermost removed slice counts
                bool nested = false;
                for (std::uint32_t a = g.parent[row]; a != kNone && !nested; a = g.parent[a])
                    nested = removedHost.count(a) != 0;
                if (nested)
                    continue;
            }
            if (r == NodeRole::Sync || removed)
                hostEv.push_back({sl.end(row), row, r == NodeRole::Sync});
        }
    }
    void syncEvent(std::size_t h)
    {
        const HostEv& e = hostEv[h];
        const std::uint32_t tr = I.thread(e.row);
        const TimeNs before = I.hostShiftAt(hist, tr, sl.start[e.row]);
        const bool removed = removedHost.count(e.row) != 0;
        TimeNs end2 = sl.start[e.row] + before;
        if (!removed && e.sync) {
            // Returns when the device work it waited for ends, plus the measured lag.
            end2 = std::max(end2, sl.end(e.row) + before);
            bool anyDevice = false;
            TimeNs waited = -kMaxTimeNs;
            auto waitFor = [&](std::uint32_t di) {
                const TimeNs lag = sl.end(e.row) - (I.dev[di].start + I.dev[di].dur);
                const TimeNs e2 = (done[di] ? en[di] : I.dev[di].start + I.dev[di].dur) + lag;
                waited = std::max(waited, e2);
                anyDevice = true;
            };
            for (const GraphEdge& ge : g.edgesInto(e.row)) {
                if (ge.kind != EdgeKind::HostSync)
                    continue;
                if (auto it = I.devOf.find(ge.src); it != I.devOf.end()) {
                    waitFor(it->second);
                    continue;
                }
                // A collective: the device tasks it contains.
                for (const GraphEdge* ce : g.edgesFrom(ge.src))
                    if (ce->kind == EdgeKind::Collective)
                        if (auto it = I.devOf.find(ce->dst); it != I.devOf.end())
                            waitFor(it->second);
            }
            const int si = g.step[e.row];
            if (!anyDevice && si >= 0 && static_cast<std::size_t>(si) < stepLast.size() && stepLast[si] != kNone)
                waitFor(stepLast[si]); // the step's device task that had ended last
            if (anyDevice)
                end2 = std::max(sl.start[e.row] + before, waited);
        }
        syncEnd[h] = end2;
        hist[tr].emplace_back(sl.end(e.row), end2 - sl.end(e.row));
    }
    void deviceEvent(std::size_t i)
    {
        const Dev& d = I.dev[i];
        const bool fused = c.fusedRows.count(d.row) != 0;
        TimeNs gap[3] = {d.gap[0], d.gap[1], d.gap[2]};
        if (!cutGap.empty() && cutGap[i] != kNoCut && d.bind != kFirst)
            gap[d.bind] = std::max<TimeNs>(0, gap[d.bind] - cutGap[i]);
        if (!cutLaunch.empty() && cutLaunch[i] != kNoCut)
            gap[kLaunch] = std::max<TimeNs>(0, gap[kLaunch] - cutLaunch[i]);
        TimeNs s = -kMaxTimeNs;
        if (d.prev != kNone) {
            const TimeNs pe = done[d.prev] ? en[d.prev] : I.dev[d.prev].start + I.dev[d.prev].dur;
            s = std::max(s, pe + (fused ? 0 : gap[kStream]));
        }
        if (!fused && d.launchSrc != kNone)
            s = std::max(s, d.launchArr + shiftOfLaunch(d) + gap[kLaunch]);
        if (!fused && d.dep != kNone) {
            const Dev& src = I.dev[d.dep];
            const bool dropped = c.overlapComm && src.comm && !d.comm;
            if (!dropped)
                s = std::max(s, (done[d.dep] ? en[d.dep] : src.start + src.dur) + gap[kDep]);
        }
        if (s == -kMaxTimeNs)
            s = d.start;
        st[i] = s;
        en[i] = s + dur[i];
        done[i] = 1;
        if (d.step >= 0 && static_cast<std::size_t>(d.step) < stepLast.size()) {
            std::uint32_t& sl0 = stepLast[static_cast<std::size_t>(d.step)];
            if (sl0 == kNone || d.start + d.dur > I.dev[sl0].start + I.dev[sl0].dur)
                sl0 = static_cast<std::uint32_t>(i);
        }
    }
    void simulate()
    {
        // Events in time order: device tasks at their start, host events at their end (a device
        // task first on a tie).
        if (I.devSorted) {
            syncEnd.assign(hostEv.size(), 0);
            stepLast.assign(g.steps.size(), kNone);
            std::vector<std::uint32_t> byAt(hostEv.size());
            std::iota(byAt.begin(), byAt.end(), 0u);
            std::stable_sort(byAt.begin(), byAt.end(), [&](auto a, auto b) { return hostEv[a].at < hostEv[b].at; });
            std::size_t h = 0;
            for (std::size_t i = 0; i < n; ++i) {
                for (; h < byAt.size() && hostEv[byAt[h]].at < I.dev[i].start; ++h)
                    syncEvent(byAt[h]);
                deviceEvent(i);
            }
            for (; h < byAt.size(); ++h)
                syncEvent(byAt[h]);
            return;
        }
        std::vector<std::pair<TimeNs, std::int64_t>> order; // (time, dev index or -(host event index + 1))
        order.reserve(n + hostEv.size());
        for (std::size_t i = 0; i < n; ++i)
            order.emplace_back(I.dev[i].start, static_cast<std::int64_t>(i));
        for (std::size_t i = 0; i < hostEv.size(); ++i)
            order.emplace_back(hostEv[i].at, -static_cast<std::int64_t>(i) - 1);
        std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        syncEnd.assign(hostEv.size(), 0);
        stepLast.assign(g.steps.size(), kNone);
        for (const auto& [at, idx] : order) {
            if (idx < 0)
                syncEvent(static_cast<std::size_t>(-idx - 1));
            else
                deviceEvent(static_cast<std::size_t>(idx));
        }
    }
    void lastWork()
    {
        // Per step: the measured and the replayed end of its last work.
        last = I.lastMeasured;
        last2 = I.lastFixed;
        for (std::size_t i = 0; i < n; ++i)
            if (const int s = I.dev[i].step; s >= 0 && static_cast<std::size_t>(s) < last2.size())
                last2[static_cast<std::size_t>(s)] = std::max(last2[static_cast<std::size_t>(s)], en[i]);
        // The host work, each thread's by end: its shift history (by time) swept along.
        std::size_t j = 0;
        for (std::size_t k = 0; k < I.hostEnds.size(); ++k) {
            const Impl::HostEnd& h = I.hostEnds[k];
            if (k == 0 || h.thread != I.hostEnds[k - 1].thread)
                j = 0;
            TimeNs shift = 0;
            if (h.thread < hist.size()) {
                const auto& hh = hist[h.thread];
                for (; j < hh.size() && hh[j].first <= h.end; ++j) {
                }
                shift = j == 0 ? 0 : hh[j - 1].second;
            }
            auto& l2 = last2[static_cast<std::size_t>(h.step)];
            l2 = std::max(l2, h.end + shift);
        }
    }
    void stepRows()
    {
        // Measured step times: step_trace_time's where present, matched by name, else the spans.
        std::map<std::string, double> traceByName;
        const bool fromTrace = I.ov.source == OverlapSource::StepTrace && !I.ov.steps.empty();
        if (fromTrace)
            for (const auto& b : I.ov.steps)
                traceByName[stepKey(b.step)] = static_cast<double>(b.stepTime());
        res.stepSource = fromTrace ? "step_trace_time" : g.stepSource;
        for (std::size_t si = 0; si < g.steps.size(); ++si) {
            const GraphStep& gs = g.steps[si];
            WhatIfStep ws;
            ws.name = gs.name;
            ws.spanNs = gs.span();
            const TimeNs shift = last[si] > -kMaxTimeNs ? last2[si] - last[si] : 0;
            ws.replayedSpanNs = gs.span() + shift;
            double m0 = static_cast<double>(gs.span());
            if (fromTrace) {
                auto it = traceByName.find(stepKey(gs.name));
                if (it == traceByName.end() && g.steps.size() == I.ov.steps.size())
                    it = traceByName.find(stepKey(I.ov.steps[si].step));
                if (it != traceByName.end())
                    m0 = it->second;
            }
            ws.measuredNs = m0;
            ws.predictedNs = m0 + static_cast<double>(shift);
            res.steps.push_back(ws);
        }
    }
    // The replayed timeline as the critical path walks it: device tasks at their replayed times,
    // host slices moved by their thread's shift, a collective with its tasks, each edge released
    // when its source's time moved it, each step ending where its replayed span ends.
    PathClock clock() const
    {
        PathClock k;
        k.start.assign(sl.start.begin(), sl.start.end());
        k.end.resize(sl.size());
        for (std::size_t r = 0; r < sl.size(); ++r)
            k.end[r] = sl.end(r);
        for (std::size_t i = 0; i < n; ++i) {
            k.start[I.dev[i].row] = st[i];
            k.end[I.dev[i].row] = en[i];
        }
        const auto hostShift = [&](std::uint32_t row, TimeNs t) { return I.hostShiftAt(hist, I.thread(row), t); };
        for (std::uint32_t row = 0; row < sl.size(); ++row) {
            const NodeKind kind = g.kind[row];
            if (kind == NodeKind::Python || kind == NodeKind::Cann) {
                k.start[row] = sl.start[row] + hostShift(row, sl.start[row]);
                k.end[row] = std::max(k.start[row], sl.end(row) + hostShift(row, sl.end(row)));
            } else if (kind == NodeKind::Collective) {
                // Moved with its first and its last task.
                std::uint32_t first = kNone, lastTask = kNone;
                for (const GraphEdge* e : g.edgesFrom(row)) {
                    if (e->kind != EdgeKind::Collective || I.devOf.find(e->dst) == I.devOf.end())
                        continue;
                    if (first == kNone || sl.start[e->dst] < sl.start[first])
                        first = e->dst;
                    if (lastTask == kNone || sl.end(e->dst) > sl.end(lastTask))
                        lastTask = e->dst;
                }
                if (first != kNone) {
                    k.start[row] = sl.start[row] + (k.start[first] - sl.start[first]);
                    k.end[row] = std::max(k.start[row], sl.end(row) + (k.end[lastTask] - sl.end(lastTask)));
                }
            }
        }
        k.edgeAt.resize(g.edges.size());
        for (std::size_t i = 0; i < g.edges.size(); ++i) {
            const GraphEdge& e = g.edges[i];
            TimeNs at = e.at;
            if (e.src < sl.size() && I.devOf.count(e.src))
                at += k.end[e.src] - sl.end(e.src);
            else if (e.src < sl.size() && (g.kind[e.src] == NodeKind::Python || g.kind[e.src] == NodeKind::Cann))
                at += hostShift(e.src, e.at);
            k.edgeAt[i] = at;
        }
        for (std::size_t si = 0; si < g.steps.size(); ++si) {
            const GraphStep& gs = g.steps[si];
            k.steps.emplace_back(gs.begin, gs.end + (last[si] > -kMaxTimeNs ? last2[si] - last[si] : 0));
        }
        return k;
    }
    // Each step's replayed critical path by kind; the result's shares are the median complete
    // step's (by replayed span), its idle time split by cause.
    void boundBy()
    {
        const std::vector<StepPath> paths = criticalPathsOn(p, g, I.idle, clock());
        std::vector<std::size_t> complete;
        for (std::size_t si = 0; si < res.steps.size() && si < paths.size(); ++si) {
            WhatIfStep& ws = res.steps[si];
            for (std::size_t k = 0; k < kPathKindCount; ++k)
                ws.boundBy.emplace_back(pathKindKey(static_cast<PathKind>(k)), paths[si].boundBy[k]);
            if (!ws.partial)
                complete.push_back(si);
        }
        if (complete.empty())
            return;
        std::stable_sort(complete.begin(), complete.end(), [&](std::size_t a, std::size_t b) {
            return res.steps[a].replayedSpanNs < res.steps[b].replayedSpanNs;
        });
        const std::size_t mid = complete[(complete.size() - 1) / 2]; // the lower middle of an even count
        res.boundByStep = res.steps[mid].name;
        res.boundBySpanNs = res.steps[mid].replayedSpanNs;
        if (res.stepSource == "step_trace_time" && roundNs(res.steps[mid].measuredNs) != res.steps[mid].spanNs) {
            char buf[256];
            std::snprintf(buf, sizeof buf,
                          "the bound-by shares tile the step's whole span, start to end (%.3f ms replayed); "
                          "step_trace_time measures step %s as %.3f ms",
                          static_cast<double>(res.boundBySpanNs) / 1e6, res.boundByStep.c_str(),
                          res.steps[mid].measuredNs / 1e6);
            res.notes.push_back(buf);
        }
        for (const auto& [k, v] : res.steps[mid].boundBy)
            res.boundBy.emplace_back(k, static_cast<double>(v));
        std::stable_sort(res.boundBy.begin(), res.boundBy.end(),
                         [](const auto& x, const auto& y) { return x.second > y.second; });
        std::map<std::string, TimeNs> idle;
        std::map<std::pair<std::string, std::string>, WhatIfResult::PathTop> top;
        for (const PathSegment& seg : paths[mid].segments) {
            if (seg.kind == PathKind::Idle)
                idle[idleCauseKey(seg.idleCause)] += seg.dur();
            const std::string kind = pathKindKey(seg.kind);
            // a collective's instances ("hcom_allReduce__482_66_1") as their operator
            const std::string label = seg.kind == PathKind::Idle   ? idleCauseKey(seg.idleCause)
                                      : seg.kind == PathKind::Comm ? commBaseName(seg.label)
                                                                   : seg.label;
            WhatIfResult::PathTop& t = top[{kind, label}];
            t.kind = kind;
            t.label = label;
            t.ns += static_cast<double>(seg.dur());
            ++t.count;
        }
        for (auto& [key, t] : top)
            res.pathTop.push_back(std::move(t));
        std::stable_sort(res.pathTop.begin(), res.pathTop.end(), [](const auto& x, const auto& y) { return x.ns > y.ns; });
        if (res.pathTop.size() > WhatIfResult::kPathTopCount)
            res.pathTop.resize(WhatIfResult::kPathTopCount);
        for (const auto& [k, v] : idle)
            res.idleByCause.emplace_back(k, static_cast<double>(v));
        std::stable_sort(res.idleByCause.begin(), res.idleByCause.end(),
                         [](const auto& x, const auto& y) { return x.second > y.second; });
    }
    void finish()
    {
        std::vector<double> complete;
        for (const auto& ws : res.steps)
            complete.push_back(ws.measuredNs);
        stats = stepStats(complete);
        std::vector<double> measured, predicted;
        for (std::size_t si = 0; si < res.steps.size(); ++si) {
            WhatIfStep& ws = res.steps[si];
            ws.partial = si < stats.isPartial.size() && stats.isPartial[si];
            predicted.push_back(ws.predictedNs);
            measured.push_back(ws.measuredNs);
        }
        if (detail == WhatIfModel::Detail::Full)
            boundBy();
        res.measuredStepNs = medianOfSteps(measured, stats.isPartial);
        res.predictedStepNs = medianOfSteps(predicted, stats.isPartial);
        bool anyComm = false;
        for (const Dev& d : I.dev)
            anyComm = anyComm || d.comm;
        if (anyComm && p.rank >= 0)
            res.notes.push_back(
                "single-rank replay: each collective keeps its measured duration (its peers are not in the data)");
        else if (anyComm)
            res.notes.push_back("each collective keeps its measured duration (its peers are not in the data)");
        if (!c.removeCauses.empty() && removedHost.empty() && cuts == 0)
            res.notes.push_back("no idle time is attributed to the removed causes: --remove changes nothing");
        res.ok = true;
    }
};

WhatIfResult WhatIfModel::run(const WhatIfChanges& c, Detail detail) const
{
    Replay r(*m, c);
    r.detail = detail;
    r.res.changes = c.describe();
    r.res.notes = m->notes;
    if (!r.valid())
        return r.res;
    std::unique_lock lock(m->scratchMutex, std::try_to_lock);
    if (lock.owns_lock())
        r.swapScratch(m->scratch);
    r.durations();
    r.causes();
    r.hostEvents();
    r.simulate();
    r.lastWork();
    r.stepRows();
    r.finish();
    if (lock.owns_lock())
        r.swapScratch(m->scratch);
    return std::move(r.res);
}

WhatIfResult replayWhatIf(const Profile& p, const WhatIfChanges& c)
{
    return WhatIfModel(p).run(c);
}

} // namespace npuscope
