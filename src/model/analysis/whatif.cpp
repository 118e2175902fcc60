// What-if replay (whatif.h): replays of each step with changed durations and dependencies, on
// the model whatif_build.cpp builds once (the measured constraints of every device task).
#include "model/analysis/whatif_impl.h"

#include "model/analysis/op_stats.h"

#include "model/analysis/critical_path.h"
#include "model/analysis/rank_facts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace npuscope {

using whatif_detail::Dev;
using whatif_detail::kDep;
using whatif_detail::kFirst;
using whatif_detail::kLaunch;
using whatif_detail::kStream;

namespace {

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

bool hostCause(IdleCause c)
{
    return c == IdleCause::HostPython || c == IdleCause::DataLoader || c == IdleCause::Sync || c == IdleCause::Compile;
}

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
                if (const double* f = c.scaleRows.find(d.row))
                    x *= std::max(0.0, *f);
            if (!c.saveRows.empty())
                if (const TimeNs* ns = c.saveRows.find(d.row))
                    x -= static_cast<double>(*ns);
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
        const bool fused = c.fusedRows.contains(d.row);
        TimeNs gap[3] = {d.gap[0], d.gap[1], d.gap[2]};
        if (!cutGap.empty() && cutGap[i] != kNoCut && d.bind != kFirst)
            gap[d.bind] = std::max<TimeNs>(0, gap[d.bind] - cutGap[i]);
        if (!cutLaunch.empty() && cutLaunch[i] != kNoCut)
            gap[kLaunch] = std::max<TimeNs>(0, gap[kLaunch] - cutLaunch[i]);
        TimeNs s = -kMaxTimeNs;
        if (d.hasPrev) {
            const TimeNs pe = d.prev != kNone && done[d.prev] ? en[d.prev] : d.prevEnd;
            s = std::max(s, pe + (fused ? 0 : gap[kStream]));
        }
        if (!fused && d.launchSrc != kNone)
            s = std::max(s, d.launchArr + shiftOfLaunch(d) + gap[kLaunch]);
        if (!fused && d.hasDep) {
            const bool dropped = c.overlapComm && d.depComm && !d.comm;
            if (!dropped)
                s = std::max(s, (d.dep != kNone && done[d.dep] ? en[d.dep] : d.depEnd) + gap[kDep]);
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
        // The replayed steps (every step, or the sample): measured time, and that plus the shift
        // of their last work.
        res.stepSource = I.stepSource;
        for (const std::size_t si : I.replayed) {
            const GraphStep& gs = g.steps[si];
            WhatIfStep ws;
            ws.name = gs.name;
            ws.spanNs = gs.span();
            const TimeNs shift = last[si] > -kMaxTimeNs ? last2[si] - last[si] : 0;
            ws.replayedSpanNs = gs.span() + shift;
            ws.measuredNs = I.measuredNs[si];
            ws.predictedNs = I.measuredNs[si] + static_cast<double>(shift);
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
        // Partial: the whole run's flags (overlap.h stepStats over every step's measured time).
        std::vector<double> measured, predicted;
        std::vector<char> partial;
        for (std::size_t k = 0; k < res.steps.size(); ++k) {
            WhatIfStep& ws = res.steps[k];
            const std::size_t si = I.replayed[k];
            ws.partial = si < I.isPartial.size() && I.isPartial[si];
            partial.push_back(ws.partial ? 1 : 0);
            predicted.push_back(ws.predictedNs);
            measured.push_back(ws.measuredNs);
        }
        if (detail == WhatIfModel::Detail::Full && !I.sampled)
            boundBy();
        res.measuredStepNs = medianOfSteps(measured, partial);
        res.predictedStepNs = medianOfSteps(predicted, partial);
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
