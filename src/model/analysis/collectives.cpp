#include "model/analysis/collectives.h"

#include "model/analysis/critical_path.h"
#include "model/analysis/intervals.h"
#include "model/analysis/op_stats.h"
#include "model/analysis/overlap.h"
#include "model/analysis/units.h"

#include <algorithm>
#include <functional>
#include <cctype>
#include <map>
#include <set>

namespace npuscope {

namespace {

struct DevTask {
    TimeNs start, end;
    NameId name;
    std::uint32_t row;
    bool comm;
};

struct HostSlice {
    TimeNs start, end;
    NameId name;
    std::uint32_t row;
    std::uint16_t depth;
    bool python;
};

// What the windows read of one rank, gathered once.
struct RankView {
    const Profile* p = nullptr;
    std::vector<DevTask> tasks; // by start
    TimeNs maxTaskDur = 0;
    std::vector<HostSlice> host; // by start
    TimeNs maxHostDur = 0;
    std::vector<std::pair<std::string, Interval>> steps;
};

RankView viewOf(const Profile& p)
{
    RankView v;
    v.p = &p;
    std::map<std::uint32_t, bool> commName; // NameId → communication
    for (const Track& tr : p.tracks) {
        const bool dev = tr.kind == TrackKind::Stream;
        const bool host = tr.kind == TrackKind::Python || tr.kind == TrackKind::Cann;
        if (!dev && !host)
            continue;
        for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i) {
            const TimeNs s = p.slices.start[i], e = p.slices.end(i);
            const NameId n = p.slices.name[i];
            if (dev) {
                if (p.slices.depth[i] != 0)
                    continue;
                auto [it, fresh] = commName.try_emplace(n.v, false);
                if (fresh) {
                    const std::string_view nm = p.str(n), cat = p.str(p.slices.category[i]);
                    it->second = isCommunicationTask(cat, nm) || isHcclTask(cat, nm);
                }
                v.tasks.push_back({s, e, n, i, it->second});
                v.maxTaskDur = std::max(v.maxTaskDur, e - s);
            } else {
                if (p.str(n).rfind("ProfilerStep#", 0) == 0)
                    continue;
                v.host.push_back({s, e, n, i, p.slices.depth[i], tr.kind == TrackKind::Python});
                v.maxHostDur = std::max(v.maxHostDur, e - s);
            }
        }
    }
    std::sort(v.tasks.begin(), v.tasks.end(), [](const DevTask& a, const DevTask& b) { return a.start < b.start; });
    std::sort(v.host.begin(), v.host.end(), [](const HostSlice& a, const HostSlice& b) { return a.start < b.start; });
    v.steps = profilerSteps(p);
    return v;
}

// What one rank did in [b, e) of its file time.
struct WindowFacts {
    std::map<std::string, TimeNs> opNs; // non-communication tasks by name (clipped)
    std::map<std::string, std::vector<std::uint32_t>> opRows;
    IntervalSet busy; // all device tasks
    TimeNs idle = 0;
};

WindowFacts windowFacts(const RankView& v, TimeNs b, TimeNs e)
{
    WindowFacts w;
    auto it = std::lower_bound(v.tasks.begin(), v.tasks.end(), b - v.maxTaskDur,
                               [](const DevTask& t, TimeNs x) { return t.start < x; });
    std::vector<Interval> busy;
    for (; it != v.tasks.end() && it->start < e; ++it) {
        const TimeNs s = std::max(b, it->start), f = std::min(e, it->end);
        if (f <= s)
            continue;
        busy.push_back({s, f});
        if (it->comm)
            continue;
        const std::string name(v.p->str(it->name));
        w.opNs[name] += f - s;
        w.opRows[name].push_back(it->row);
    }
    w.busy = uniteIntervals(std::move(busy));
    TimeNs covered = 0;
    for (const Interval& i : w.busy)
        covered += i.end - i.begin;
    w.idle = std::max<TimeNs>(0, e - b - covered);
    return w;
}

// The window's start on a rank: its previous instance's end, else the step holding the arrival's
// start, else its first device task.
TimeNs windowStart(const RankView& v, const GroupMember& m, int index)
{
    const TimeNs arrival = m.ops[index].start;
    if (index > 0)
        return std::min(arrival, m.ops[index - 1].end);
    for (const auto& [name, iv] : v.steps)
        if (iv.begin <= arrival && arrival < iv.end)
            return iv.begin;
    return v.tasks.empty() ? arrival : std::min(arrival, v.tasks.front().start);
}

std::string stepOf(const RankView& v, TimeNs t)
{
    for (const auto& [name, iv] : v.steps)
        if (iv.begin <= t && t < iv.end)
            return name.rfind("ProfilerStep#", 0) == 0 ? name.substr(13) : name;
    return {};
}

// The longest host slice over the idle gaps of [b, e) (the deepest of those covering at least
// half as much), and its overlap.
const HostSlice* hostStall(const RankView& v, const IntervalSet& busy, TimeNs b, TimeNs e, TimeNs* overlap)
{
    IntervalSet gaps;
    TimeNs at = b;
    for (const Interval& i : busy) {
        if (i.begin > at)
            gaps.push_back({at, i.begin});
        at = std::max(at, i.end);
    }
    if (at < e)
        gaps.push_back({at, e});
    auto it = std::lower_bound(v.host.begin(), v.host.end(), b - v.maxHostDur,
                               [](const HostSlice& h, TimeNs x) { return h.start < x; });
    std::vector<std::pair<const HostSlice*, TimeNs>> cands;
    TimeNs best = 0;
    for (; it != v.host.end() && it->start < e; ++it) {
        const TimeNs c = coveredLength(gaps, it->start, it->end);
        if (c <= 0)
            continue;
        cands.push_back({&*it, c});
        best = std::max(best, c);
    }
    const HostSlice* pick = nullptr;
    TimeNs pickNs = 0;
    for (const auto& [h, c] : cands)
        if (2 * c >= best && (!pick || h->depth > pick->depth || (h->depth == pick->depth && c > pickNs))) {
            pick = h;
            pickNs = c;
        }
    *overlap = pickNs;
    return pick;
}

// Host slices summed by name over [b, e), clipped; those spanning the whole window (the
// enclosing frames, which only say that the window was long) left out.
struct HostSums {
    std::map<std::string, TimeNs> ns;
    std::map<std::string, std::vector<std::uint32_t>> rows;
    std::map<std::string, bool> python;
};

// A host slice's name with the object addresses Python prints ("at 0xfffd95c559a0") made equal
// across processes.
std::string hostKey(std::string_view name)
{
    std::string out;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '0' && i + 1 < name.size() && name[i + 1] == 'x') {
            std::size_t j = i + 2;
            while (j < name.size() && std::isxdigit(static_cast<unsigned char>(name[j])))
                ++j;
            if (j > i + 2) {
                out += "0x…";
                i = j - 1;
                continue;
            }
        }
        out += name[i];
    }
    return out;
}

HostSums hostSums(const RankView& v, TimeNs b, TimeNs e)
{
    HostSums h;
    auto it = std::lower_bound(v.host.begin(), v.host.end(), b - v.maxHostDur,
                               [](const HostSlice& x, TimeNs t) { return x.start < t; });
    for (; it != v.host.end() && it->start < e; ++it) {
        if (it->start <= b && it->end >= e)
            continue;
        const TimeNs s = std::max(b, it->start), f = std::min(e, it->end);
        if (f <= s)
            continue;
        const std::string name = hostKey(v.p->str(it->name));
        h.ns[name] += f - s;
        h.rows[name].push_back(it->row);
        h.python[name] = it->python;
    }
    return h;
}

std::string msText(TimeNs ns)
{
    return formatDuration(ns);
}

// The reason the late rank L arrived after the earliest rank E.
void explain(CollectiveInstance& inst, const RankView& lv, const GroupMember& lm, const RankView& ev, const GroupMember& em,
             const ClockAlignment& clock)
{
    const TimeNs lOff = clock.offsetOfIndex(lm.rankIndex), eOff = clock.offsetOfIndex(em.rankIndex);
    const TimeNs lb = windowStart(lv, lm, inst.index), le = lm.ops[inst.index].start;
    const TimeNs eb = windowStart(ev, em, inst.index), ee = em.ops[inst.index].start;
    inst.windowBegin = lb;
    inst.windowEnd = le;
    const WindowFacts lw = windowFacts(lv, lb, le), ew = windowFacts(ev, eb, ee);
    // The op that took longest more on L.
    std::string op;
    TimeNs opNs = 0;
    bool extra = false;
    for (const auto& [name, ns] : lw.opNs) {
        const auto e = ew.opNs.find(name);
        const TimeNs d = ns - (e == ew.opNs.end() ? 0 : e->second);
        if (d > opNs) {
            op = name;
            opNs = d;
            extra = e == ew.opNs.end();
        }
    }
    const TimeNs idleMore = lw.idle - ew.idle;
    const TimeNs laterStart = (lb - lOff) - (eb - eOff);
    const std::string head = "rank " + std::to_string(inst.lastRank) + " arrived " + msText(inst.spread) + " late ← ";
    if (opNs > 0 && opNs >= idleMore && opNs >= laterStart) {
        inst.cause = extra ? LateCause::ExtraOp : LateCause::LongerOp;
        inst.causeName = op;
        inst.causeNs = opNs;
        inst.causeSlices = lw.opRows.at(op);
        inst.reason = head + op
                      + (extra ? " ran " + msText(opNs) + " (not run by rank " + std::to_string(inst.firstRank) + ")"
                               : " ran " + msText(opNs) + " longer than on rank " + std::to_string(inst.firstRank));
    } else if (idleMore > 0 && idleMore >= laterStart) {
        inst.causeNs = idleMore;
        // The host work that took longer on L than on E, else the host slice over L's idle
        // gaps between the earliest arrival and its own.
        const HostSums lh = hostSums(lv, lb, le), eh = hostSums(ev, eb, ee);
        std::string host;
        TimeNs hostNs = 0;
        for (const auto& [name, ns] : lh.ns) {
            const auto e = eh.ns.find(name);
            const TimeNs d = ns - (e == eh.ns.end() ? 0 : e->second);
            if (d > hostNs) {
                host = name;
                hostNs = d;
            }
        }
        TimeNs over = 0;
        const TimeNs from = std::clamp(le - inst.spread, lb, le);
        const HostSlice* h = hostNs > 0 ? nullptr : hostStall(lv, lw.busy, from, le, &over);
        if (hostNs > 0) {
            inst.cause = LateCause::HostStall;
            inst.causeName = host;
            inst.causeSlices = lh.rows.at(host);
            inst.reason = head + "host " + (lh.python.at(host) ? "Python" : "CANN") + " `" + host + "` ran " + msText(hostNs)
                          + " longer than on rank " + std::to_string(inst.firstRank) + " while the device idled "
                          + msText(idleMore) + " more";
        } else if (h) {
            inst.cause = LateCause::HostStall;
            inst.causeName = std::string(lv.p->str(h->name));
            inst.causeSlices = {h->row};
            inst.reason = head + "host " + (h->python ? "Python" : "CANN") + " `" + inst.causeName + "` " + msText(over)
                          + " while the device idled " + msText(idleMore) + " more than on rank "
                          + std::to_string(inst.firstRank);
        } else {
            inst.cause = LateCause::DeviceIdle;
            inst.reason = head + "device idle " + msText(idleMore) + " more than on rank " + std::to_string(inst.firstRank)
                          + " (no host activity recorded there)";
        }
    } else if (laterStart > 0) {
        inst.cause = LateCause::LaterStart;
        inst.causeNs = laterStart;
        inst.reason = head + (inst.index > 0 ? "its previous collective in " + inst.group + " ended " : "its step began ")
                      + msText(laterStart) + " later than on rank " + std::to_string(inst.firstRank);
    } else {
        inst.reason = head + "no op ran longer and the device idled no longer than on rank " + std::to_string(inst.firstRank);
    }
}

} // namespace

const char* lateCauseName(LateCause c)
{
    switch (c) {
    case LateCause::LongerOp: return "longer_op";
    case LateCause::ExtraOp: return "extra_op";
    case LateCause::HostStall: return "host_stall";
    case LateCause::DeviceIdle: return "device_idle";
    case LateCause::LaterStart: return "later_start";
    case LateCause::None: break;
    }
    return "none";
}

namespace {

// The late rank's critical path over [b, e) (critical_path.h), its two largest parts by kind
// and label: "compute MatMulV2 3.10 ms, idle host_python 1.20 ms".
std::string pathChain(const CriticalPaths& c, TimeNs b, TimeNs e)
{
    std::map<std::string, TimeNs> by;
    for (const StepPath& s : c.steps)
        for (const PathSegment& seg : s.segments) {
            const TimeNs o = std::min(e, seg.end) - std::max(b, seg.begin);
            if (o > 0)
                by[std::string(pathKindKey(seg.kind)) + " "
                   + (seg.kind == PathKind::Idle ? std::string(idleCauseKey(seg.idleCause)) : seg.label)] += o;
        }
    std::vector<std::pair<TimeNs, std::string>> parts;
    for (const auto& [k, ns] : by)
        parts.push_back({ns, k});
    std::sort(parts.begin(), parts.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    std::string out;
    for (std::size_t i = 0; i < parts.size() && i < 2; ++i)
        out += (i ? ", " : "") + parts[i].second + " " + formatDuration(parts[i].first);
    return out;
}

using StepOfFn = std::function<std::string(const GroupMember&, std::size_t)>;
using ExplainFn = std::function<void(CollectiveInstance&, const GroupMember& last, const GroupMember& first)>;

// The instances of the matched groups: arrivals (aligned), the last rank, the waits, the step;
// `explain` gives the reason of each late arrival.
CollectivesResult arrivals(const CollectiveMatch& m, ClockAlignment clock, const StepOfFn& stepOf, const ExplainFn& explain)
{
    CollectivesResult r;
    r.problems = m.problems;
    r.clock = std::move(clock);
    for (const RankClock& c : r.clock.ranks)
        r.ranks.push_back({c.rank, c.rankIndex, 0, 0, 0});
    std::set<std::string> steps;
    for (const CollectiveGroup& g : m.groups) {
        if (g.members.size() < 2)
            continue;
        for (std::size_t i = 0; i < g.opNames.size(); ++i) {
            CollectiveInstance inst;
            inst.collective = g.opNames[i];
            inst.group = g.name;
            inst.index = static_cast<int>(i);
            const GroupMember* first = nullptr;
            const GroupMember* last = nullptr;
            TimeNs firstAt = 0, lastAt = 0;
            for (const GroupMember& mem : g.members) {
                const TimeNs off = r.clock.offsetOfIndex(mem.rankIndex);
                Arrival a;
                a.rank = mem.rank;
                a.rankIndex = mem.rankIndex;
                a.arrival = mem.ops[i].start - off;
                a.end = mem.ops[i].end - off;
                a.slice = mem.ops[i].slice;
                if (!first || a.arrival < firstAt) {
                    first = &mem;
                    firstAt = a.arrival;
                }
                if (!last || a.arrival > lastAt) {
                    last = &mem;
                    lastAt = a.arrival;
                }
                inst.arrivals.push_back(a);
            }
            for (Arrival& a : inst.arrivals) {
                a.wait = lastAt - a.arrival;
                inst.waitCaused += a.wait;
            }
            inst.spread = lastAt - firstAt;
            inst.firstRank = first->rank;
            inst.step = stepOf(g.members.front(), i);
            if (!inst.step.empty())
                steps.insert(inst.step);
            if (inst.spread >= kLateMinSpreadNs) {
                inst.lastRank = last->rank;
                inst.lastRankIndex = last->rankIndex;
                explain(inst, *last, *first);
                RankWaitCaused& w = r.ranks[last->rankIndex];
                ++w.lastCount;
                w.waitCaused += inst.waitCaused;
            } else {
                inst.reason = "arrived together (spread " + formatDuration(inst.spread) + ")";
            }
            r.instances.push_back(std::move(inst));
        }
    }
    r.steps = std::max<int>(1, static_cast<int>(steps.size()));
    for (RankWaitCaused& w : r.ranks)
        w.perStep = static_cast<double>(w.waitCaused) / r.steps;
    return r;
}

} // namespace

CollectivesResult analyzeCollectives(const Session& s, const ClockOptions& o)
{
    const CollectiveMatch m = matchCollectives(s);
    std::map<int, RankView> views; // by rank index, built on first use
    const auto view = [&](int ri) -> const RankView& {
        auto it = views.find(ri);
        if (it == views.end())
            it = views.emplace(ri, viewOf(*s.ranks[ri])).first;
        return it->second;
    };
    std::map<int, CriticalPaths> paths; // the late ranks' critical paths, built on first use
    ClockAlignment clock = alignClocks(s, m, o);
    const ClockAlignment& used = clock;
    CollectivesResult r = arrivals(
        m, clock, [&](const GroupMember& g, std::size_t i) { return stepOf(view(g.rankIndex), g.ops[i].start); },
        [&](CollectiveInstance& inst, const GroupMember& last, const GroupMember& first) {
            explain(inst, view(last.rankIndex), last, view(first.rankIndex), first, used);
            auto it = paths.find(last.rankIndex);
            if (it == paths.end()) {
                const Profile& p = *s.ranks[last.rankIndex];
                const StepGraph g = buildStepGraph(p);
                it = paths.emplace(last.rankIndex, criticalPaths(p, g, idleCauses(p, g))).first;
            }
            inst.criticalPath = pathChain(it->second, inst.windowEnd - inst.spread, inst.windowEnd);
            if (!inst.criticalPath.empty())
                inst.reason += "; its critical path there: " + inst.criticalPath;
        });
    return r;
}

} // namespace npuscope
