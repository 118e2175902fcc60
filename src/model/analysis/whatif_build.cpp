// What-if replay (whatif.h): the model of one rank, built once: its steps and the sample a replay
// covers, and the measured constraints of every device task.
#include "model/analysis/whatif_impl.h"

#include "model/analysis/op_stats.h"
#include "model/analysis/rank_facts.h"

#include <algorithm>
#include <map>

namespace npuscope {

using whatif_detail::Bind;
using whatif_detail::Dev;
using whatif_detail::kDep;
using whatif_detail::kFirst;
using whatif_detail::kLaunch;
using whatif_detail::kStream;

namespace {

TimeNs medianOf(std::vector<TimeNs> v)
{
    if (v.empty())
        return 0;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

std::string stepKey(std::string s)
{
    const std::string pre = "ProfilerStep#";
    if (s.rfind(pre, 0) == 0)
        s = s.substr(pre.size());
    return s;
}

} // namespace

WhatIfModel::Impl::Impl(const Profile& prof, const WhatIfOptions& o)
    : p(prof), g(o.graph ? std::move(*o.graph) : buildStepGraph(prof))
{
    if (o.overlap) {
        ovp = o.overlap;
    } else {
        ownOverlap = computeOverlap(prof);
        ovp = &*ownOverlap;
    }
    measureSteps();
    chooseSteps(o);
    idle = sampled ? idleCauses(prof, g, replayed) : idleCauses(prof, g);
    build();
}

// Measured step times: step_trace_time's where present, matched by name, else the spans.
void WhatIfModel::Impl::measureSteps()
{
    std::map<std::string, double> traceByName;
    const bool fromTrace = ov().source == OverlapSource::StepTrace && !ov().steps.empty();
    if (fromTrace)
        for (const auto& b : ov().steps)
            traceByName[stepKey(b.step)] = static_cast<double>(b.stepTime());
    stepSource = fromTrace ? "step_trace_time" : g.stepSource;
    for (std::size_t si = 0; si < g.steps.size(); ++si) {
        const GraphStep& gs = g.steps[si];
        double m0 = static_cast<double>(gs.span());
        if (fromTrace) {
            auto it = traceByName.find(stepKey(gs.name));
            if (it == traceByName.end() && g.steps.size() == ov().steps.size())
                it = traceByName.find(stepKey(ov().steps[si].step));
            if (it != traceByName.end())
                m0 = it->second;
        }
        measuredNs.push_back(m0);
    }
    isPartial = stepStats(measuredNs).isPartial;
    complete = static_cast<std::size_t>(std::count(isPartial.begin(), isPartial.end(), 0));
}

// Every step, or the given ones, or maxSteps of the complete ones chosen evenly.
void WhatIfModel::Impl::chooseSteps(const WhatIfOptions& o)
{
    const std::size_t n = g.steps.size();
    if (!o.steps.empty()) {
        sampled = true;
        for (std::size_t si : o.steps)
            if (si < n)
                replayed.push_back(si);
        std::sort(replayed.begin(), replayed.end());
        replayed.erase(std::unique(replayed.begin(), replayed.end()), replayed.end());
    } else if (o.maxSteps > 0 && complete > o.maxSteps) {
        sampled = true;
        std::vector<std::size_t> all;
        for (std::size_t si = 0; si < n; ++si)
            if (!isPartial[si])
                all.push_back(si);
        for (std::size_t i = 0; i < o.maxSteps; ++i)
            replayed.push_back(all[i * all.size() / o.maxSteps]);
    } else {
        for (std::size_t si = 0; si < n; ++si)
            replayed.push_back(si);
    }
    inReplay.assign(n, 0);
    for (std::size_t si : replayed)
        inReplay[si] = 1;
    if (sampled)
        notes.push_back("replayed over " + std::to_string(replayed.size()) + " of " + std::to_string(complete)
                        + " complete steps (a sample chosen evenly over the run)");
}

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
    // A sample's tasks are its steps' alone.
    const auto kept = [&](std::uint32_t row) {
        const int s = g.step[row];
        return !sampled || (s >= 0 && static_cast<std::size_t>(s) < inReplay.size() && inReplay[static_cast<std::size_t>(s)]);
    };
    dev.reserve(sampled ? 0 : g.deviceByStart.size());
    for (std::uint32_t row : g.deviceByStart) {
        if (row >= sl.size() || g.kind[row] != NodeKind::DeviceTask || !kept(row))
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
    // Stream predecessors, launches and explicit waits. A device task a sample left out is a
    // predecessor or dependency all the same, at its measured end (no dev index).
    const auto isDev = [&](std::uint32_t row) {
        return devOf.count(row) != 0 || (sampled && g.kind[row] == NodeKind::DeviceTask);
    };
    const auto devIndex = [&](std::uint32_t row) {
        const auto it = devOf.find(row);
        return it != devOf.end() ? it->second : kNone;
    };
    for (Dev& d : dev) {
        const std::uint32_t pr = g.streamPrev(d.row);
        if (pr != kNone && isDev(pr)) {
            d.hasPrev = true;
            d.prevEnd = sl.end(pr);
            d.prev = devIndex(pr);
        }
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
                if (isDev(e.src) && sl.end(e.src) > depEnd) {
                    depEnd = sl.end(e.src);
                    d.hasDep = true;
                    d.depEnd = depEnd;
                    d.depComm = g.role[e.src] == NodeRole::Comm;
                    d.dep = devIndex(e.src);
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
        if (d.hasPrev)
            ev[kStream] = d.prevEnd;
        if (d.launchSrc != kNone)
            ev[kLaunch] = d.launchArr;
        if (d.hasDep)
            ev[kDep] = d.depEnd;
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
        const int s = g.step[row];
        const bool inSteps = s >= 0 && static_cast<std::size_t>(s) < g.steps.size();
        if (sampled && !(inSteps && inReplay[static_cast<std::size_t>(s)]))
            continue; // a sample's host work and tasks are its steps' alone
        if (host && g.role[row] == NodeRole::Sync)
            syncRows.push_back(row);
        if (!inSteps || k == NodeKind::None || k == NodeKind::Collective)
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

WhatIfModel::WhatIfModel(const Profile& p, const WhatIfOptions& options) : m(std::make_unique<Impl>(p, options)) {}
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

bool WhatIfModel::sampled() const
{
    return m->sampled;
}

bool WhatIfModel::covers(std::uint32_t row) const
{
    // A sample holds the device tasks of its steps alone: most rows are out at a look at theirs.
    if (m->sampled && row < m->g.step.size()) {
        const int s = m->g.step[row];
        if (s < 0 || static_cast<std::size_t>(s) >= m->inReplay.size() || !m->inReplay[static_cast<std::size_t>(s)])
            return false;
    }
    return m->devOf.count(row) != 0;
}

WhatIfChanges WhatIfModel::narrowed(const WhatIfChanges& c) const
{
    WhatIfChanges out;
    out.scaleTypes = c.scaleTypes;
    out.removeCauses = c.removeCauses;
    out.overlapComm = c.overlapComm;
    const auto keep = [this](std::uint32_t row) { return covers(row); };
    out.scaleRows = c.scaleRows.filtered(keep);
    out.saveRows = c.saveRows.filtered(keep);
    out.fusedRows = c.fusedRows.filtered(keep);
    return out;
}

std::size_t WhatIfModel::replayedSteps() const
{
    return m->replayed.size();
}

std::size_t WhatIfModel::completeSteps() const
{
    return m->complete;
}

} // namespace npuscope
