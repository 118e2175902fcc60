// Scheduling / host rules: device idle and dependency gaps, synchronisation, data loading, GC,
// environment variables.
#include "advisor/rule_helpers.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdlib>
#include <iterator>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

namespace npuscope::advisor {

namespace {

// ---- SCH-IDLE ------------------------------------------------------------------------------
// Free per step: step_trace_time, else the Overlap Analysis "Free" thread, else computed; with
// where it came from.
double freePerStep(const ProfileFacts& f, std::string& source)
{
    const Profile& p = f.p;
    double freeNs = f.free;
    source = f.hasStepTrace ? "step_trace_time.csv Free" : "device idle between tasks (computed)";
    if (!f.hasStepTrace) {
        double sum = 0;
        bool any = false;
        for (const auto& tr : p.tracks)
            if (tr.kind == TrackKind::Overlap && p.str(tr.thread) == "Free")
                for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i) {
                    sum += static_cast<double>(f.inSteps(p.slices.start[i], p.slices.end(i)));
                    any = true;
                }
        if (any) {
            freeNs = f.perStep(sum);
            source = "timeline Overlap Analysis Free";
        }
    }
    return freeNs;
}

// What a dependency gap waited for: the other-stream task that ended just before the task after
// the gap started, within the slack. Tasks by end time are sorted when an evidence row first
// needs them.
class WaitedFor {
public:
    WaitedFor(const ProfileFacts& f, double slackNs) : m_f(f), m_slackNs(slackNs) {}

    std::string operator()(const Task& b)
    {
        if (m_byEnd.empty()) {
            // Each task with its end beside it: the sort compares ends without reading the
            // tasks (the same comparisons, so the same order, equal ends included).
            for (const auto& t : m_f.tasks)
                if (t.cls != TaskClass::Other)
                    m_byEnd.emplace_back(t.end(), &t);
            std::sort(m_byEnd.begin(), m_byEnd.end(), [](const ByEnd& x, const ByEnd& y) { return x.first < y.first; });
        }
        auto e = std::upper_bound(m_byEnd.begin(), m_byEnd.end(), b.start, [](TimeNs ts, const ByEnd& t) { return ts < t.first; });
        while (e != m_byEnd.begin()) {
            const Task* t = (--e)->second;
            if (static_cast<double>(b.start - t->end()) > m_slackNs)
                break;
            if (t->stream != b.stream || t->device != b.device)
                return m_f.str(t->name) + " on stream " + std::to_string(t->stream);
        }
        return {};
    }

private:
    using ByEnd = std::pair<TimeNs, const Task*>;
    const ProfileFacts& m_f;
    const double m_slackNs;
    std::vector<ByEnd> m_byEnd;
};

// A gap of at least gap_us on one stream.
struct Gap {
    const Task* b; // the task after the gap
    TimeNs start;
    double len;
};

// The stream gaps of at least `gapNs`, stream by stream (computing tasks only); `streams` is
// the number of streams looked at.
std::vector<Gap> streamGaps(const ProfileFacts& f, double gapNs, std::size_t& streams)
{
    std::map<std::pair<int, std::int64_t>, std::vector<const Task*>> perStream;
    for (const auto& t : f.tasks)
        if (t.cls == TaskClass::Cube || t.cls == TaskClass::Vector || t.cls == TaskClass::AiCpu)
            perStream[{t.device, t.stream}].push_back(&t);
    std::vector<Gap> gaps;
    for (const auto& [key, v] : perStream) {
        TimeNs prevEnd = v.empty() ? 0 : v.front()->end();
        for (std::size_t i = 1; i < v.size(); ++i) {
            const Task& b = *v[i];
            const double gap = static_cast<double>(b.start - prevEnd);
            const TimeNs gapStart = prevEnd;
            prevEnd = std::max(prevEnd, b.end());
            if (gap >= gapNs)
                gaps.push_back({&b, gapStart, gap});
        }
    }
    streams = perStream.size();
    return gaps;
}

// Launch time of each gap's task from its Node@launch → task flow: every launch flow is
// counted, only the gaps' tasks are looked up. The gaps' slice rows are a bitmap over the rows
// with a count of the rows set before each 64-bit word: a row's place in `ts` is that count and
// the bits below it in its word, without hashing (every launch flow asks).
struct LaunchTimes {
    static constexpr TimeNs kNoLaunch = std::numeric_limits<TimeNs>::min();
    std::vector<std::uint64_t> rows;   // bit r: slice row r is a gap's task
    std::vector<std::uint32_t> before; // per word of `rows`: the rows set in the words before it
    std::vector<TimeNs> ts;            // by row, of the rows set
    std::size_t flows = 0;             // launch flows to a stream task

    // Where row r's launch time is in ts, or nullopt when r is no gap's task.
    std::optional<std::size_t> indexOf(std::uint32_t r) const
    {
        if (r == kNone || r / 64 >= rows.size())
            return std::nullopt;
        const std::uint64_t word = rows[r / 64], bit = std::uint64_t{1} << (r % 64);
        if (!(word & bit))
            return std::nullopt;
        return before[r / 64] + static_cast<std::size_t>(std::popcount(word & (bit - 1)));
    }
    // The launch time of `b`, or kNoLaunch.
    TimeNs of(const Task& b) const
    {
        const auto k = indexOf(b.slice);
        return k ? ts[*k] : kNoLaunch;
    }
};

LaunchTimes launchTimes(const Profile& p, const std::vector<Gap>& gaps)
{
    LaunchTimes l;
    l.rows.assign((p.slices.size() + 63) / 64, 0);
    for (const Gap& g : gaps)
        if (g.b->slice != kNone && g.b->slice < p.slices.size())
            l.rows[g.b->slice / 64] |= std::uint64_t{1} << (g.b->slice % 64);
    l.before.resize(l.rows.size());
    std::uint32_t set = 0;
    for (std::size_t w = 0; w < l.rows.size(); ++w) {
        l.before[w] = set;
        set += static_cast<std::uint32_t>(std::popcount(l.rows[w]));
    }
    l.ts.assign(set, LaunchTimes::kNoLaunch);
    // Whether a flow ends on a stream task is found among the Stream tracks' row ranges.
    const auto streamRows = p.sliceRanges(TrackKind::Stream);
    const auto onStream = [&](std::uint32_t d) {
        if (!p.finalized()) {
            const auto tk = p.slices.track[d];
            return tk.valid() && p.tracks[tk.v].kind == TrackKind::Stream;
        }
        const auto it = std::upper_bound(streamRows.begin(), streamRows.end(), std::pair{d, ~0u});
        return it != streamRows.begin() && d < std::prev(it)->second;
    };
    NameId lastCat;
    bool lastLaunch = false, lastH2D = false;
    for (std::size_t i = 0; i < p.flows.size(); ++i) {
        if (i == 0 || p.flows.category[i].v != lastCat.v) { // categories are few: test each once in a row
            lastCat = p.flows.category[i];
            const auto cat = p.str(lastCat);
            lastH2D = cat == "HostToDevice";
            lastLaunch = lastH2D || containsCI(cat, "async_npu");
        }
        if (!lastLaunch)
            continue;
        const auto d = i < p.flows.dstSlice.size() ? p.flows.dstSlice[i] : kNone;
        if (d == kNone || d >= p.slices.size())
            continue;
        if (!onStream(d))
            continue;
        ++l.flows;
        if (const auto k = l.indexOf(d); k && (l.ts[*k] == LaunchTimes::kNoLaunch || lastH2D))
            l.ts[*k] = p.flows.srcTs[i];
    }
    return l;
}

// Device-level idle time: per device, the holes in the union of every task on any stream.
// A stream gap saves time only where the whole device was idle; gaps of several streams over
// the same idle stretch count once.
struct DeviceIdle {
    std::map<int, IntervalSet> holes;
    double total = 0;

    // The idle parts of [b, e) on `dev`, added to `into`.
    void addPart(std::map<int, std::vector<Interval>>& into, int dev, TimeNs b, TimeNs e) const
    {
        const auto it = holes.find(dev);
        if (it == holes.end())
            return;
        const IntervalSet& u = it->second;
        auto k = std::upper_bound(u.begin(), u.end(), b, [](TimeNs ts, const Interval& iv) { return ts < iv.end; });
        for (; k != u.end() && k->begin < e; ++k)
            into[dev].push_back({std::max(k->begin, b), std::min(k->end, e)});
    }
};

DeviceIdle deviceIdleOf(const ProfileFacts& f)
{
    std::map<int, std::vector<Interval>> busy;
    for (const auto& t : f.tasks)
        busy[t.device].push_back({t.start, t.end()});
    DeviceIdle idle;
    for (auto& [dev, v] : busy) {
        const IntervalSet u = uniteIntervals(std::move(v));
        if (u.empty())
            continue;
        idle.holes[dev] = subtractIntervals({Interval{u.front().begin, u.back().end}}, u);
        idle.total += static_cast<double>(totalLength(idle.holes[dev]));
    }
    return idle;
}

// The gaps by cause: launched after the gap began (host), launched before it (dependency), or
// without a launch flow (unknown); with the device-idle part of each class.
struct GapClasses {
    double host = 0, dep = 0, unknown = 0;
    std::map<int, std::vector<Interval>> hostIdle, depIdle;
};

GapClasses classifyGaps(const ProfileFacts& f, const std::vector<Gap>& gaps, const LaunchTimes& launches,
                        const DeviceIdle& idle, double gapNs, WaitedFor& waitedFor, TopEvidence& ev)
{
    GapClasses g;
    for (const Gap& gp : gaps) {
        const Task& b = *gp.b;
        const double gap = gp.len;
        const TimeNs gapStart = gp.start;
        const char* cls = "unknown";
        const TimeNs launch = launches.of(b);
        if (launch != LaunchTimes::kNoLaunch) {
            if (launch >= gapStart) {
                cls = "host";
                g.host += gap;
                idle.addPart(g.hostIdle, b.device, gapStart, b.start);
            } else {
                cls = "dependency";
                g.dep += gap;
                idle.addPart(g.depIdle, b.device, gapStart, b.start);
            }
        } else {
            g.unknown += gap;
        }
        ev.offer(static_cast<TimeNs>(gap), [&] {
            const std::string waited = cls[0] == 'd' ? waitedFor(b) : std::string();
            Evidence x;
            x.at = f.locate(b);
            x.at.ts = gapStart;
            x.at.dur = b.start - gapStart;
            x.at.op = "gap before " + f.str(b.name);
            x.metrics = {{"gap", gap / 1e3, "µs"}};
            x.threshold = std::string(cls) + " gap ≥ " + fmtNum(gapNs / 1e3, 0) + " µs"
                          + (waited.empty() ? std::string() : ", waits for " + waited);
            return x;
        });
    }
    return g;
}

// Gain: the classed gaps' device-idle part, each idle stretch once, capped by the free time.
void setIdleGain(Finding& fd, const ProfileFacts& f, GapClasses& g, const DeviceIdle& idle, double freeNs)
{
    double hostI = 0, depI = 0, bothI = 0;
    for (const auto& [dev, iv] : idle.holes) {
        const IntervalSet h = uniteIntervals(g.hostIdle[dev]), d = uniteIntervals(g.depIdle[dev]);
        hostI += static_cast<double>(totalLength(h));
        depI += static_cast<double>(totalLength(d));
        bothI += static_cast<double>(totalLength(uniteSets(h, d)));
    }
    const double classed = f.perStep(g.host + g.dep);
    // One device: step_trace_time's Free when it is the smaller; several: their summed idle time.
    const double freeCap = idle.holes.size() == 1 && freeNs > 0 ? std::min(freeNs, f.perStep(idle.total)) : f.perStep(idle.total);
    const double gain = std::min(f.perStep(bothI), freeCap);
    if (classed > 0 && gain > 0)
        setGain(fd, gain,
                "|classed gaps ∩ device idle| (host " + fmtMs(f.perStep(hostI)) + " ∪ dependency " + fmtMs(f.perStep(depI))
                    + ") = " + fmtMs(f.perStep(bothI)) + (f.perStep(bothI) > freeCap ? ", capped" : "") + " ≤ device free "
                    + fmtMs(freeCap) + " → " + fmtMs(gain) + " (upper bound; stream gaps " + fmtMs(classed)
                    + " include time other streams kept the device busy)");
    else if (classed > 0)
        noGain(fd, "every classed gap (" + fmtMs(classed) + "/step) overlaps work on another stream: the device was never idle in them");
    else
        noGain(fd, "no gap could be classed: needs the Node@launch → task flows (profiler Level1)");
}

// The worst step by free share, and how many steps are over the free threshold.
void setIdleSteps(Finding& fd, const ProfileFacts& f, double freeShare)
{
    double worst = -1;
    const auto freeShareOf = [](const RankStep& s) {
        return static_cast<double>(s.split.free) / static_cast<double>(s.split.stepTime());
    };
    for (const auto& s : f.steps)
        if (s.split.stepTime() > 0 && freeShareOf(s) > worst) {
            worst = freeShareOf(s);
            fd.scope.worstStep = "step " + s.name + " (free " + fmtPct(worst) + ")";
        }
    std::size_t over = 0;
    for (const auto& s : f.steps)
        over += s.split.stepTime() > 0 && freeShareOf(s) > freeShare;
    fd.scope.steps = std::to_string(over) + " of " + std::to_string(f.steps.size()) + " steps over the free threshold";
}

void idle(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (f.steps.empty() || f.stepTime <= 0)
        return out.notChecked("needs step_trace_time.csv or a timeline with device tasks");
    const double freeShare = c.param("free_share"), depShare = c.param("dep_share");
    const double gapNs = c.param("gap_us") * 1e3, slackNs = c.param("dep_slack_us") * 1e3;

    std::string freeSource;
    const double freeNs = freePerStep(f, freeSource);
    out.inputs.push_back(freeSource);
    std::size_t streams = 0;
    const std::vector<Gap> gaps = streamGaps(f, gapNs, streams);
    const LaunchTimes launches = launchTimes(f.p, gaps);
    const DeviceIdle deviceIdle = deviceIdleOf(f);
    WaitedFor waitedFor(f, slackNs);
    TopEvidence ev;
    GapClasses g = classifyGaps(f, gaps, launches, deviceIdle, gapNs, waitedFor, ev);
    const std::size_t flows = launches.flows;
    out.inputs.push_back("device task gaps on " + std::to_string(streams) + " streams; " + std::to_string(flows)
                         + " launch flows" + (flows ? "" : " (none: gaps cannot be classed; profiler Level1 has them)"));
    const double fs = freeNs / f.stepTime, ds = f.perStep(g.dep) / f.stepTime;
    const bool freeHit = fs > freeShare, depHit = ds >= depShare;
    if (!freeHit && !depHit)
        return out.pass("free " + fmtPct(fs) + " of step (threshold " + fmtPct(freeShare) + "), dependency gaps "
                        + fmtPct(ds) + " (threshold " + fmtPct(depShare) + ")");
    Finding& fd = out.fire("idle");
    fd.costNs = roundNs(freeHit ? freeNs : f.perStep(g.dep));
    fd.title = freeHit ? "Device idle " + fmtPct(fs) + " of each step (" + fmtMs(freeNs) + "/step free)"
                       : "Dependency gaps " + fmtPct(ds) + " of each step (" + fmtMs(f.perStep(g.dep)) + "/step)";
    fd.description = "The device had nothing to run for " + fmtMs(freeNs) + " per step (" + fmtPct(fs) + ", threshold "
                     + fmtPct(freeShare) + "). Of the " + std::to_string(gaps.size()) + " stream gaps ≥ "
                     + fmtNum(gapNs / 1e3, 0) + " µs, " + fmtMs(f.perStep(g.host)) + "/step are host-bound (launched late), "
                     + fmtMs(f.perStep(g.dep)) + "/step wait on a dependency, " + fmtMs(f.perStep(g.unknown))
                     + "/step have no launch flow.";
    if (g.host >= g.dep) {
        fd.suggestions.push_back("Host-bound: launch fewer, larger ops (fuse, bigger batch) or use graph mode "
                                 "(torchair / torch.compile) to cut per-op launch cost.");
        fd.suggestions.push_back("Dependencies: drop false dependencies, fill the gaps with independent work, use more streams.");
    } else {
        fd.suggestions.push_back("Dependencies: drop false dependencies (extra synchronisation, events), fill the gaps "
                                 "with independent work, use more streams.");
        fd.suggestions.push_back("Host-bound gaps: fewer, larger ops, or graph mode.");
    }
    setIdleGain(fd, f, g, deviceIdle, freeNs);
    ev.moveInto(fd.evidence);
    setIdleSteps(fd, f, freeShare);
}

// ---- SCH-SYNC ------------------------------------------------------------------------------
void sync(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    const Profile& p = f.p;
    if (!f.hasCann)
        return out.notChecked(f.needsLevel1());
    std::size_t launches = 0, co = 0;
    double syncNs = 0;
    std::vector<Evidence> ev;
    for (const auto& tr : p.tracks) {
        if (tr.kind != TrackKind::Cann)
            continue;
        bool launched = false;
        for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i) {
            const auto n = p.str(p.slices.name[i]);
            if (n.rfind("Node@launch", 0) == 0) {
                ++launches;
                launched = true;
            } else if (n.rfind("AscendCL@aclrtSynchronizeStream", 0) == 0) {
                if (launched) {
                    ++co;
                    syncNs += static_cast<double>(p.slices.dur[i]);
                    Evidence e;
                    e.at.rank = f.rank;
                    e.at.ts = p.slices.start[i];
                    e.at.dur = p.slices.dur[i];
                    e.at.op = std::string(n);
                    e.threshold = "sync right after a launch";
                    e.cost = p.slices.dur[i];
                    ev.push_back(std::move(e));
                }
                launched = false;
            }
        }
    }
    out.inputs.push_back("timeline CANN: " + std::to_string(launches) + " Node@launch, aclrtSynchronizeStream*");
    const double ratio = launches ? static_cast<double>(co) / static_cast<double>(launches) : 0;
    const double th = c.param("co_ratio");
    if (ratio <= th)
        return out.pass(std::to_string(co) + " syncs right after a launch / " + std::to_string(launches) + " launches = "
                        + fmtRatio(ratio) + " (threshold " + fmtRatio(th) + ")");
    Finding& fd = out.fire("launch-sync");
    fd.costNs = roundNs(f.perStep(syncNs));
    fd.title = "Launches synchronise: " + fmtPct(ratio) + " of launches followed by aclrtSynchronizeStream, "
               + fmtMs(f.perStep(syncNs)) + "/step";
    fd.description = std::to_string(co) + " stream synchronisations follow a kernel launch (" + std::to_string(launches)
                     + " launches): the host waits for the device after nearly every op, so nothing queues ahead.";
    const auto it = p.meta.env.find("ASCEND_LAUNCH_BLOCKING");
    if (it != p.meta.env.end() && it->second == "1")
        fd.suggestions.push_back("ASCEND_LAUNCH_BLOCKING=1 is set: unset it (or set 0).");
    else
        fd.suggestions.push_back("Unset ASCEND_LAUNCH_BLOCKING=1 if the job sets it.");
    fd.suggestions.push_back("Remove device→host reads in the step (.item(), .cpu(), printing tensors, "
                             "torch.npu.synchronize()); see the Python stacks of the sync calls.");
    setGain(fd, f.perStep(syncNs), "Σsync = " + fmtMs(f.perStep(syncNs)));
    fd.evidence = std::move(ev);
    sortEvidence(fd.evidence, kMaxEvidence);
}

// Slices on host tracks whose name or category matches.
template <typename Pred>
std::vector<std::uint32_t> hostSlices(const Profile& p, Pred pred)
{
    std::vector<std::uint32_t> out;
    for (const auto& tr : p.tracks) {
        if (tr.kind == TrackKind::Stream || tr.kind == TrackKind::CommGroup || tr.kind == TrackKind::CommPlane
            || tr.kind == TrackKind::Overlap)
            continue;
        for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i)
            if (pred(i))
                out.push_back(i);
    }
    return out;
}

void fireSlices(const ProfileFacts& f, RuleOut& out, const std::vector<std::uint32_t>& rows, double minNs,
                const std::string& key, const std::string& what, std::vector<std::string> suggestions)
{
    const Profile& p = f.p;
    double total = 0;
    std::size_t outside = 0; // long enough, but outside every step's time range
    std::vector<Evidence> ev;
    for (auto i : rows) {
        if (static_cast<double>(p.slices.dur[i]) < minNs)
            continue;
        // Only the part inside the steps costs step time (a GC before the first step does not).
        const TimeNs cost = f.inSteps(p.slices.start[i], p.slices.end(i));
        if (cost <= 0 && p.slices.dur[i] > 0) {
            ++outside;
            continue;
        }
        total += static_cast<double>(cost);
        Evidence e;
        e.at.rank = f.rank;
        e.at.ts = p.slices.start[i];
        e.at.dur = p.slices.dur[i];
        e.at.op = f.str(p.slices.name[i]);
        e.threshold = "≥ " + fmtUs(minNs);
        e.cost = cost;
        ev.push_back(std::move(e));
    }
    const std::string outsideText =
        outside ? " (" + std::to_string(outside) + (outside == 1 ? " more lies outside the steps' time ranges and costs"
                                                                : " more lie outside the steps' time ranges and cost")
                      + " no step time)"
                : "";
    if (ev.empty())
        return out.pass(std::to_string(rows.size()) + " " + what + (rows.size() == 1 ? " event" : " events") + "; none ≥ " + fmtUs(minNs)
                        + (outside ? " inside a step" + outsideText : std::string()));
    Finding& fd = out.fire(key);
    fd.costNs = roundNs(f.perStep(total));
    const std::string events = ev.size() == 1 ? " event" : " events";
    fd.title = std::to_string(ev.size()) + " long " + what + events + ", " + fmtMs(f.perStep(total)) + "/step";
    fd.description = std::to_string(ev.size()) + " " + what + events + (ev.size() == 1 ? " lasts" : " last")
                     + " at least " + fmtUs(minNs) + " (" + fmtMs(total)
                     + " of step time in all); the device waits for the host meanwhile" + outsideText + ".";
    fd.suggestions = std::move(suggestions);
    setGain(fd, f.perStep(total), "Σ flagged " + what + " time = " + fmtMs(f.perStep(total)));
    fd.evidence = std::move(ev);
    sortEvidence(fd.evidence, kMaxEvidence);
}

void dataloader(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (!f.torchNpu || !f.hasPython)
        return out.notChecked("needs a torch_npu profile with Python events (trace_view.json)");
    ByStringId loader(f.p, [](std::string_view n) { return containsCI(n, "dataloader"); });
    const auto rows = hostSlices(f.p, [&](std::uint32_t i) { return loader(f.p.slices.name[i]); });
    out.inputs.push_back("timeline Python events named *dataloader* (" + std::to_string(rows.size()) + ")");
    fireSlices(f, out, rows, c.param("max_us") * 1e3, "dataloader", "data loader",
               {"Raise DataLoader num_workers and set pin_memory=True.", "Read the data from local storage.",
                "Avoid reading from tar/zip archives in the loop; unpack once."});
}

// The host slices that are GC events: category "gc" or "GC", or named "GC", "gc" or "GC ...".
std::vector<std::uint32_t> gcSlices(const Profile& p)
{
    ByStringId gcCategory(p, [](std::string_view c) { return c == "gc" || c == "GC"; });
    ByStringId gcName(p, [](std::string_view n) { return n == "GC" || n == "gc" || n.rfind("GC ", 0) == 0; });
    return hostSlices(p, [&](std::uint32_t i) { return gcCategory(p.slices.category[i]) || gcName(p.slices.name[i]); });
}

void gc(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (!f.torchNpu)
        return out.notChecked("needs a torch_npu profile (GC events)");
    const auto rows = gcSlices(f.p);
    if (rows.empty())
        return out.notChecked("needs GC events: collect with torch_npu _ExperimentalConfig(gc_detect_threshold=...)");
    out.inputs.push_back("timeline GC events (" + std::to_string(rows.size()) + ")");
    fireSlices(f, out, rows, c.param("min_us") * 1e3, "gc", "Python GC",
               {"Break reference cycles so objects are freed by reference counting.",
                "Tune gc.set_threshold(), or gc.disable() in the loop and gc.collect() between steps."});
}

void gcGuess(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    const Profile& p = f.p;
    if (f.torchNpu && !gcSlices(p).empty())
        return out.pass("GC events were recorded: SCH-GC checks them");
    if (!f.hasCann)
        return out.notChecked(f.needsLevel1() + " (AscendCL@ calls inside Free time)");
    std::vector<std::uint32_t> frees;
    for (const auto& tr : p.tracks)
        if (tr.kind == TrackKind::Overlap && p.str(tr.thread) == "Free")
            for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i)
                frees.push_back(i);
    if (frees.empty())
        return out.notChecked("needs the Overlap Analysis Free thread in the timeline");
    std::vector<Interval> acl;
    ByStringId ascendCl(p, [](std::string_view n) { return n.rfind("AscendCL@", 0) == 0; });
    for (const auto& tr : p.tracks)
        if (tr.kind == TrackKind::Cann)
            for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i)
                if (ascendCl(p.slices.name[i]))
                    acl.push_back({p.slices.start[i], p.slices.end(i)});
    std::sort(acl.begin(), acl.end(), [](const Interval& a, const Interval& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    const IntervalSet aclU = uniteIntervals(acl);
    const double freeMin = c.param("free_us") * 1e3;
    std::vector<std::uint32_t> flagged;
    for (auto i : frees) {
        const double d = static_cast<double>(p.slices.dur[i]);
        if (d <= freeMin)
            continue;
        const TimeNs s = p.slices.start[i], e = p.slices.end(i);
        std::size_t count = 0;
        auto it = std::lower_bound(acl.begin(), acl.end(), s, [](const Interval& iv, TimeNs t) { return iv.begin < t; });
        for (; it != acl.end() && it->begin < e; ++it)
            ++count;
        const double tr = static_cast<double>(coveredLength(aclU, s, e)) / d;
        const double cr = static_cast<double>(count) / (d / 1e3);
        if (tr < c.param("acl_time_ratio") && cr < c.param("acl_count_ratio"))
            flagged.push_back(i);
    }
    out.inputs.push_back("timeline Free slices (" + std::to_string(frees.size()) + "), AscendCL@ calls (" + std::to_string(acl.size()) + ")");
    if (flagged.empty())
        return out.pass("no Free slice > " + fmtUs(freeMin) + " without host API activity");
    fireSlices(f, out, flagged, freeMin, "free-no-acl", "quiet Free (likely GC)",
               {"The host made no AscendCL call for a long idle stretch: likely Python GC. Break reference cycles; "
                "tune gc.set_threshold or disable GC in the loop.",
                "Enable GC detection (torch_npu _ExperimentalConfig(gc_detect_threshold=...)) to confirm."});
}

// ---- SCH-ENV -------------------------------------------------------------------------------
void env(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (!f.hasMeta)
        return out.notChecked("needs profiler_metadata.json (written by torch_npu beside profiler_info.json)");
    const auto& envs = f.p.meta.env;
    out.inputs.push_back("profiler_metadata.json ENV_VARIABLES (" + std::to_string(envs.size()) + " variables)");
    const auto& checks = c.paramJson("checks");
    std::size_t n = 0;
    for (const auto& ch : checks) {
        ++n;
        const std::string var = ch.value("var", std::string());
        const std::string kind = ch.value("check", std::string());
        const std::string want = ch.value("value", std::string());
        const auto it = envs.find(var);
        const bool set = it != envs.end() && !it->second.empty();
        const std::string val = set ? it->second : std::string();
        bool hit = false;
        if (kind == "not_equal")
            hit = set ? val != want : !ch.value("unset_ok", false);
        else if (kind == "equal")
            hit = set && val == want;
        else if (kind == "lacks")
            hit = !set || val.find(want) == std::string::npos;
        else if (kind == "less_or_unset")
            hit = !set || std::strtod(val.c_str(), nullptr) < std::strtod(want.c_str(), nullptr);
        else if (kind == "zero_or_unset")
            hit = !set || std::strtod(val.c_str(), nullptr) == 0;
        else if (kind == "set")
            hit = set;
        if (!hit)
            continue;
        Finding& fd = out.fire(var);
        fd.ruleSeverity = severityFromName(ch.value("severity", std::string("low")));
        const std::string shown = set ? var + "=" + val : var + " unset";
        const std::string suggest = ch.value("suggest", std::string());
        fd.title = "Environment: " + shown;
        fd.description = "profiler_metadata.json records " + shown + ".";
        if (var == "ASCEND_GLOBAL_LOG_LEVEL")
            fd.description += " Logging below ERROR (3) writes many logs and slows the host.";
        else if (var == "ASCEND_LAUNCH_BLOCKING")
            fd.description += " Every op launch waits for the device: no asynchrony at all.";
        else if (var == "PYTORCH_NPU_ALLOC_CONF")
            fd.description += " Without expandable_segments the caching allocator fragments and reallocates.";
        else if (var == "ACLNN_CACHE_LIMIT")
            fd.description += " A small aclnn cache re-creates operator executors on the host.";
        else if (var == "HOST_CACHE_CAPACITY")
            fd.description += " Without a host cache, dynamic-shape ops rebuild their host data every call.";
        else if (var == "HCCL_ALGO")
            fd.description += " A forced HCCL algorithm overrides the library's choice per topology.";
        else
            fd.description += " The RDMA traffic class / service level must match the switch configuration.";
        fd.suggestions.push_back(suggest == "unset" || suggest.rfind("add", 0) == 0 || suggest.rfind("match", 0) == 0
                                     ? (suggest == "unset" ? "Unset " + var + "." : var + ": " + suggest + ".")
                                     : "Set " + var + "=" + suggest + ".");
        noGain(fd, "an environment setting; its effect is not measured by the profile");
        Evidence e;
        e.at.rank = f.rank;
        e.at.row = "profiler_metadata.json ENV_VARIABLES " + shown;
        e.threshold = kind + " " + want;
        fd.evidence.push_back(std::move(e));
    }
    if (out.fired.empty())
        out.pass(std::to_string(n) + " environment checks passed");
}

} // namespace

void addSchedulingRules(std::vector<RuleDef>& out)
{
    out.push_back({"SCH-IDLE", Category::Scheduling, false, "Device idle time and dependency gaps", idle});
    out.push_back({"SCH-SYNC", Category::Scheduling, false, "Stream synchronisation after launches", sync});
    out.push_back({"SCH-DATALOADER", Category::Scheduling, false, "Slow data loading", dataloader});
    out.push_back({"SCH-GC", Category::Scheduling, false, "Python garbage collection pauses", gc});
    out.push_back({"SCH-GC-GUESS", Category::Scheduling, false, "Long idle stretches without host API calls (likely GC)", gcGuess});
    out.push_back({"SCH-ENV", Category::Scheduling, false, "Environment variables that slow the run", env});
}

} // namespace npuscope::advisor
