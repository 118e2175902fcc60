#include "model/analysis/overlap.h"

#include "model/analysis/op_stats.h"
#include "model/analysis/u64_map.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace npuscope {

const char* overlapSourceName(OverlapSource s)
{
    switch (s) {
    case OverlapSource::StepTrace: return "step_trace_time";
    case OverlapSource::OverlapTracks: return "Overlap Analysis";
    case OverlapSource::Tasks: return "device tasks";
    case OverlapSource::None: return "none";
    }
    return "none";
}

namespace {

// A stream task's type: the timeline may say "Other" where the joined CSV row knows the core.
NameId streamTaskType(const Profile& p, std::uint32_t row)
{
    if (const auto k = p.slices.kernel[row]; k != kNone && k < p.kernels.size())
        return p.kernels.taskType[k];
    return p.slices.category[row];
}

// What a stream task is, by its type and name, worked out once per distinct pair: a profile has
// a few hundred of them and millions of tasks.
class StreamTaskKinds {
public:
    static constexpr std::uint32_t kCommunication = 1, kHccl = 2, kCompute = 4;
    explicit StreamTaskKinds(const Profile& p) : m_p(p) {}
    std::uint32_t of(std::uint32_t row)
    {
        const NameId type = streamTaskType(m_p, row), name = m_p.slices.name[row];
        return m_memo.memo((std::uint64_t{type.v} << 32) | name.v, [&] {
            const std::string_view t = m_p.str(type), n = m_p.str(name);
            return (isCommunicationTask(t, n) ? kCommunication : 0u) | (isHcclTask(t, n) ? kHccl : 0u)
                   | (isComputeTask(t, n) ? kCompute : 0u);
        });
    }

private:
    const Profile& m_p;
    U64Map m_memo;
};

// Communication streams carry HCCL's own tasks (Notify Wait, Write Value, ...); nothing on them
// is computation, whatever its type (a database gives the collective itself there as AI_CORE
// without a COMPUTE_TASK_INFO row). The track indices of those streams.
std::set<std::size_t> communicationStreams(const Profile& p, StreamTaskKinds& kinds)
{
    std::set<std::size_t> out;
    for (std::size_t ti = 0; ti < p.tracks.size(); ++ti) {
        const Track& t = p.tracks[ti];
        if (t.kind != TrackKind::Stream)
            continue;
        for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r)
            if (kinds.of(r) & StreamTaskKinds::kHccl) {
                out.insert(ti);
                break;
            }
    }
    return out;
}

// When every kernel row (kernel_details, op_summary, COMPUTE_TASK_INFO) found its task, the
// tasks without one are not computation ops either: a database's MIX parent tasks (AI_CORE,
// KERNEL_AICORE without COMPUTE_TASK_INFO) lie outside the profiler's Computing lane.
bool everyKernelJoined(const Profile& p)
{
    const KernelTable& k = p.kernels;
    if (k.size() == 0)
        return false;
    for (std::size_t r = 0; r < k.size(); ++r)
        if (k.slice[r] == kNone
            && !isCommunicationTask(p.str(k.taskType[r]), p.str(k.type[r]).empty() ? p.str(k.name[r]) : p.str(k.type[r])))
            return false;
    return true;
}

// The intervals as they are found, before they are united.
struct FoundIntervals {
    DeviceIntervals& d;
    std::vector<Interval> compute, comm;
    bool commOps = true; // names kept in d.commOps
    bool haveFirst = false;
    void span(TimeNs b, TimeNs e)
    {
        if (!haveFirst || b < d.first)
            d.first = b;
        if (!haveFirst || e > d.last)
            d.last = e;
        haveFirst = true;
    }
    void addComm(std::string_view name, TimeNs b, TimeNs e)
    {
        comm.push_back({b, e});
        if (commOps)
            d.commOps.push_back({std::string(name), {b, e}});
    }
};

// The stream tasks: communication tasks (unless the communication groups give the ops) and
// computation tasks. False when the timeline has no stream task.
bool collectStreamTasks(const Profile& p, bool haveGroups, FoundIntervals& c)
{
    StreamTaskKinds kinds(p);
    const std::set<std::size_t> commStreams = communicationStreams(p, kinds);
    const bool kernelsJoined = everyKernelJoined(p);
    bool haveStream = false;
    std::size_t rows = 0; // room for every task: what is never written is never touched
    for (const Track& t : p.tracks)
        if (t.kind == TrackKind::Stream)
            rows += t.sliceEnd - t.sliceBegin;
    c.compute.reserve(rows);
    for (std::size_t ti = 0; ti < p.tracks.size(); ++ti) {
        const Track& t = p.tracks[ti];
        if (t.kind != TrackKind::Stream)
            continue;
        const bool commStream = commStreams.count(ti) > 0;
        for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r) {
            haveStream = true;
            const std::uint32_t kind = kinds.of(r);
            const TimeNs b = p.slices.start[r], e = p.slices.end(r);
            c.span(b, e);
            if (kind & StreamTaskKinds::kCommunication) {
                if (!haveGroups)
                    c.addComm(p.str(p.slices.name[r]), b, e);
                continue;
            }
            // A kernel row joined to the task makes it a kernel.
            const bool kernelRow = p.slices.kernel[r] != kNone && p.slices.kernel[r] < p.kernels.size();
            if (commStream || (!kernelRow && kernelsJoined))
                continue;
            if (kernelRow ? !(kind & StreamTaskKinds::kHccl) : (kind & StreamTaskKinds::kCompute) != 0)
                c.compute.push_back({b, e});
        }
    }
    return haveStream;
}

// Without a timeline every kernel table row is an op: a communication op or a kernel.
void collectKernelRows(const Profile& p, bool haveGroups, FoundIntervals& c)
{
    const KernelTable& k = p.kernels;
    for (std::size_t r = 0; r < k.size(); ++r) {
        const std::string_view type = p.str(k.taskType[r]);
        const std::string_view name = p.str(k.type[r]).empty() ? p.str(k.name[r]) : p.str(k.type[r]);
        const TimeNs b = k.start[r], e = k.start[r] + k.dur[r];
        c.span(b, e);
        if (isCommunicationTask(type, name)) {
            if (!haveGroups)
                c.addComm(p.str(k.name[r]), b, e);
        } else if (!isHcclTask(type, name)) {
            c.compute.push_back({b, e});
        }
    }
}

} // namespace

DeviceIntervals deviceIntervals(const Profile& p, bool commOps)
{
    DeviceIntervals d;
    FoundIntervals c{d, {}, {}, commOps};
    bool haveGroups = false;
    for (const Track& t : p.tracks)
        if (t.kind == TrackKind::CommGroup && t.sliceEnd > t.sliceBegin)
            haveGroups = true;
    if (!collectStreamTasks(p, haveGroups, c))
        collectKernelRows(p, haveGroups, c);
    if (haveGroups)
        for (const Track& t : p.tracks) {
            if (t.kind != TrackKind::CommGroup)
                continue;
            for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r) {
                const TimeNs b = p.slices.start[r], e = p.slices.end(r);
                c.span(b, e);
                c.addComm(p.str(p.slices.name[r]), b, e);
            }
        }
    std::stable_sort(d.commOps.begin(), d.commOps.end(),
                     [](const auto& a, const auto& b) { return a.second.begin < b.second.begin; });
    d.compute = uniteIntervals(std::move(c.compute));
    d.comm = uniteIntervals(std::move(c.comm));
    return d;
}

std::vector<std::pair<std::string, Interval>> profilerSteps(const Profile& p)
{
    std::vector<std::pair<std::string, Interval>> out;
    std::set<std::string> seen;
    for (const Track& t : p.tracks) {
        if (t.kind == TrackKind::Stream || t.kind == TrackKind::Overlap)
            continue;
        for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r) {
            const std::string_view name = p.str(p.slices.name[r]);
            if (name.rfind("ProfilerStep#", 0) != 0 || !seen.insert(std::string(name)).second)
                continue;
            out.push_back({std::string(name), {p.slices.start[r], p.slices.end(r)}});
        }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second.begin < b.second.begin; });
    return out;
}

namespace {

// The mean of two breakdowns, part by part (the two middle steps of an even count).
StepBreakdown meanOfTwo(const StepBreakdown& a, const StepBreakdown& b)
{
    StepBreakdown m = a;
    m.step.clear();
    m.computing = (a.computing + b.computing) / 2;
    m.commNotOverlapped = (a.commNotOverlapped + b.commNotOverlapped) / 2;
    m.overlapped = (a.overlapped + b.overlapped) / 2;
    m.communication = (a.communication + b.communication) / 2;
    m.free = (a.free + b.free) / 2;
    return m;
}

// Whether a timeline file of the profile was read in part: the input ends inside its last step.
bool timelineCut(const Profile& p)
{
    for (const FileRecord& f : p.files)
        if (f.has(FileRole::Timeline) && f.status == FileStatus::Partial)
            return true;
    return false;
}

} // namespace

void finishSteps(OverlapResult& r, bool lastCut)
{
    r.total = StepBreakdown{};
    for (const StepBreakdown& s : r.steps) {
        r.total.computing += s.computing;
        r.total.commNotOverlapped += s.commNotOverlapped;
        r.total.overlapped += s.overlapped;
        r.total.communication += s.communication;
        r.total.free += s.free;
    }
    if (!r.steps.empty()) {
        r.total.begin = r.steps.front().begin;
        r.total.end = r.steps.back().end;
    }
    std::vector<double> durations;
    durations.reserve(r.steps.size());
    for (const StepBreakdown& s : r.steps)
        durations.push_back(static_cast<double>(s.stepTime()));
    r.stats = stepStats(durations, lastCut);
    if (r.stats.complete() > 0) {
        const StepBreakdown& lo = r.steps[r.stats.midLow];
        r.typical = r.stats.midLow == r.stats.midHigh ? lo : meanOfTwo(lo, r.steps[r.stats.midHigh]);
        r.stepTime = r.typical.stepTime();
    }
}

namespace {

// A step_trace_time.csv row of this rank: it has a Computing value and is not a cluster-level row.
bool isRankStepRow(const StepRow& row) { return row.computing && (row.type.empty() || row.type == "rank"); }

// The rank's step_trace_time.csv rows, of one device: the one with the most rows when a folder
// holds several.
bool fromStepTrace(const Profile& p, OverlapResult& r)
{
    std::map<int, int> perDevice;
    for (const StepRow& row : p.steps)
        if (isRankStepRow(row))
            ++perDevice[row.device];
    if (perDevice.empty())
        return false;
    int device = perDevice.begin()->first;
    for (const auto& [d, n] : perDevice)
        if (n > perDevice[device])
            device = d;
    for (const StepRow& row : p.steps) {
        if (!isRankStepRow(row) || row.device != device)
            continue;
        StepBreakdown s;
        s.step = row.step;
        s.computing = row.computing.value_or(0);
        s.commNotOverlapped = row.commNotOverlapped.value_or(0);
        s.overlapped = row.overlapped.value_or(0);
        s.communication = row.communication.value_or(s.overlapped + s.commNotOverlapped);
        s.free = row.free.value_or(0);
        r.steps.push_back(s);
    }
    r.source = OverlapSource::StepTrace;
    r.stepTimeSource = "step_trace_time";
    return true;
}

// Without ProfilerStep#N spans the window is that of the device's work (first to last compute or
// communication task), as for the advisor's E2E step: the lanes may start at the profiler's
// start, long before the first op (a host that compiles for seconds first), and that is no step
// time. Without such tasks it is the lanes' own span.
bool fromOverlapTracks(const Profile& p, const std::vector<std::pair<std::string, Interval>>& spans,
                       const DeviceIntervals& d, OverlapResult& r)
{
    std::map<std::string, std::vector<Interval>> byThread;
    for (const Track& t : p.tracks) {
        if (t.kind != TrackKind::Overlap)
            continue;
        auto& v = byThread[std::string(p.str(t.thread))];
        for (std::uint32_t i = t.sliceBegin; i < t.sliceEnd; ++i)
            v.push_back({p.slices.start[i], p.slices.end(i)});
    }
    std::map<std::string, IntervalSet> sets;
    TimeNs first = 0, last = 0;
    bool any = false;
    for (auto& [name, v] : byThread) {
        sets[name] = uniteIntervals(std::move(v));
        for (const Interval& i : sets[name]) {
            first = any ? std::min(first, i.begin) : i.begin;
            last = any ? std::max(last, i.end) : i.end;
            any = true;
        }
    }
    // Lanes without a Computing lane while the device computed are partial (a Free lane alone):
    // the tasks give the split instead.
    if (!any || (!sets.count("Computing") && !d.compute.empty()))
        return false;
    auto len = [&](const char* thread, TimeNs b, TimeNs e) {
        auto it = sets.find(thread);
        return it == sets.end() ? TimeNs(0) : coveredLength(it->second, b, e);
    };
    std::vector<std::pair<std::string, Interval>> parts = spans;
    const bool taskWindow = parts.empty() && !d.empty();
    if (taskWindow) {
        Interval work{std::numeric_limits<TimeNs>::max(), std::numeric_limits<TimeNs>::min()};
        for (const IntervalSet* set : {&d.compute, &d.comm})
            if (!set->empty()) { // sorted and disjoint: the first begins first, the last ends last
                work.begin = std::min(work.begin, set->front().begin);
                work.end = std::max(work.end, set->back().end);
            }
        parts.push_back({"", work});
    } else if (parts.empty()) {
        parts.push_back({"", {first, last}});
    }
    for (const auto& [name, iv] : parts) {
        StepBreakdown s;
        s.step = name;
        s.begin = iv.begin;
        s.end = iv.end;
        s.computing = len("Computing", iv.begin, iv.end);
        s.communication = len("Communication", iv.begin, iv.end);
        s.commNotOverlapped = len("Communication(Not Overlapped)", iv.begin, iv.end);
        s.overlapped = std::max<TimeNs>(0, s.communication - s.commNotOverlapped);
        s.free = len("Free", iv.begin, iv.end);
        r.steps.push_back(s);
    }
    r.source = OverlapSource::OverlapTracks;
    r.stepTimeSource = !spans.empty() ? "Overlap Analysis per ProfilerStep#N span"
                       : taskWindow      ? "Overlap Analysis, first to last device task"
                                         : "Overlap Analysis";
    return true;
}

bool fromTasks(const DeviceIntervals& d, const std::vector<std::pair<std::string, Interval>>& spans, OverlapResult& r)
{
    if (d.empty())
        return false;
    const auto split = splitSpans(d, spans.empty() ? std::vector<std::pair<std::string, Interval>>{{"", {d.first, d.last}}} : spans);
    r.steps.insert(r.steps.end(), split.begin(), split.end());
    r.source = OverlapSource::Tasks;
    r.stepTimeSource = spans.empty() ? "E2E (first to last device task)" : "ProfilerStep#N spans";
    return true;
}

} // namespace

// Kept here, not in overlap.h, which a large part of the program includes: tuning it rebuilds
// this file alone.
constexpr double kPartialStepShare = 0.6;

StepStats stepStats(const std::vector<double>& durations, bool lastCut)
{
    StepStats st;
    const std::size_t n = durations.size();
    st.steps = static_cast<int>(n);
    st.isPartial.assign(n, 0);
    if (n >= 2) {
        auto medianOf = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            const std::size_t k = v.size();
            return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2.0;
        };
        // The steps the first and the last are measured against: the interior ones, or the
        // other one of two.
        const double ref = n >= 3 ? medianOf({durations.begin() + 1, durations.end() - 1}) : 0.0;
        auto cut = [&](std::size_t i, std::size_t other) {
            return durations[i] < kPartialStepShare * (n >= 3 ? ref : durations[other]);
        };
        st.isPartial[0] = cut(0, n - 1);
        st.isPartial[n - 1] = lastCut || cut(n - 1, 0);
        if (n == 2 && st.isPartial[0] && st.isPartial[1])
            st.isPartial[0] = 0; // one of two stays: the input's cut end has the last word
    }
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < n; ++i)
        if (!st.isPartial[i])
            order.push_back(i);
        else
            ++st.partial;
    if (order.empty())
        return st;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return durations[a] < durations[b]; });
    const std::size_t k = order.size();
    st.midLow = order[(k - 1) / 2];
    st.midHigh = order[k / 2];
    st.median = (durations[st.midLow] + durations[st.midHigh]) / 2.0;
    st.min = durations[order.front()];
    st.max = durations[order.back()];
    return st;
}

std::string stepCountText(const StepStats& s)
{
    if (s.partial == 0)
        return std::to_string(s.steps) + (s.steps == 1 ? " step" : " steps");
    const int c = s.complete();
    return std::to_string(c) + " complete step" + (c == 1 ? "" : "s") + "; " + std::to_string(s.partial) + " partial excluded";
}

std::vector<StepBreakdown> splitSpans(const DeviceIntervals& d, const std::vector<std::pair<std::string, Interval>>& spans)
{
    const IntervalSet both = intersectIntervals(d.compute, d.comm);
    const IntervalSet busy = uniteSets(d.compute, d.comm);
    std::vector<StepBreakdown> out;
    out.reserve(spans.size());
    for (const auto& [name, iv] : spans) {
        StepBreakdown s;
        s.step = name;
        s.begin = iv.begin;
        s.end = iv.end;
        s.computing = coveredLength(d.compute, iv.begin, iv.end);
        s.communication = coveredLength(d.comm, iv.begin, iv.end);
        s.overlapped = coveredLength(both, iv.begin, iv.end);
        s.commNotOverlapped = s.communication - s.overlapped;
        s.free = (iv.end - iv.begin) - coveredLength(busy, iv.begin, iv.end);
        out.push_back(s);
    }
    return out;
}

OverlapResult computeOverlap(const Profile& p)
{
    OverlapResult r;
    const DeviceIntervals d = deviceIntervals(p);
    r.spans = profilerSteps(p);
    if (!fromStepTrace(p, r) && !fromOverlapTracks(p, r.spans, d, r))
        fromTasks(d, r.spans, r);
    // step_trace_time.csv was written whole by the profiler, whatever became of the timeline.
    finishSteps(r, r.source != OverlapSource::StepTrace && timelineCut(p));
    for (const auto& [name, iv] : d.commOps) {
        CollectiveOverlap c;
        c.name = name;
        c.start = iv.begin;
        c.dur = iv.end - iv.begin;
        c.covered = coveredLength(d.compute, iv.begin, iv.end);
        c.ratio = c.dur > 0 ? static_cast<double>(c.covered) / static_cast<double>(c.dur) : 0.0;
        r.collectives.push_back(std::move(c));
    }
    return r;
}

} // namespace npuscope
