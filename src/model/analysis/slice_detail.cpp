#include "model/analysis/slice_detail.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace npuscope {

namespace {

std::string numberText(double v)
{
    if (std::isnan(v))
        return {};
    char buf[64];
    if (v == std::floor(v) && std::fabs(v) < 1e15)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// The deepest slice of track `t` whose span holds `ts` (start <= ts < end, or a zero-length
// slice at ts); kNone when none. Slices of a track are start-sorted and nested by depth, so the
// scan back stops at the first top-level slice.
std::uint32_t enclosingSlice(const Profile& p, const Track& t, TimeNs ts)
{
    const auto& st = p.slices.start;
    auto it = std::upper_bound(st.begin() + t.sliceBegin, st.begin() + t.sliceEnd, ts);
    std::uint32_t best = kNone;
    for (auto r = static_cast<std::uint32_t>(it - st.begin()); r > t.sliceBegin;) {
        --r;
        const bool holds = p.slices.end(r) > ts || (p.slices.dur[r] == 0 && st[r] == ts);
        if (holds && (best == kNone || p.slices.depth[r] > p.slices.depth[best]))
            best = r;
        if (p.slices.depth[r] == 0)
            break;
    }
    return best;
}

// Slices enclosing `slice` on its own track, innermost first.
std::vector<std::uint32_t> ancestors(const Profile& p, std::uint32_t slice)
{
    std::vector<std::uint32_t> out;
    const Track& t = p.tracks[p.slices.track[slice].v];
    int depth = p.slices.depth[slice];
    const TimeNs s = p.slices.start[slice];
    for (std::uint32_t r = slice; r > t.sliceBegin && depth > 0;) {
        --r;
        if (p.slices.depth[r] < depth && p.slices.end(r) >= s) {
            out.push_back(r);
            depth = p.slices.depth[r];
        }
    }
    return out;
}

std::vector<std::string> splitStack(std::string_view text)
{
    std::vector<std::string> out;
    std::size_t b = 0;
    while (b <= text.size()) {
        std::size_t e = text.find_first_of(";\n", b);
        if (e == std::string_view::npos)
            e = text.size();
        std::string_view frame = text.substr(b, e - b);
        while (!frame.empty() && (frame.front() == ' ' || frame.front() == '\r' || frame.front() == '\t'))
            frame.remove_prefix(1);
        while (!frame.empty() && (frame.back() == ' ' || frame.back() == '\r' || frame.back() == '\t'))
            frame.remove_suffix(1);
        if (!frame.empty())
            out.emplace_back(frame);
        b = e + 1;
    }
    return out;
}

std::string callStackArg(const Profile& p, std::uint32_t slice)
{
    return p.args.find(p.slices.args[slice], "Call stack", p.strings);
}

SliceLink linkTo(const Profile& p, std::uint32_t slice, std::string label, TimeNs origin)
{
    SliceLink l;
    l.label = std::move(label);
    l.slice = slice;
    l.name = std::string(p.str(p.slices.name[slice]));
    l.track = trackLabel(p, p.slices.track[slice]);
    l.start = p.slices.start[slice] - origin;
    l.dur = p.slices.dur[slice];
    return l;
}

void addKernelFields(const Profile& p, std::uint32_t k, std::vector<DetailField>& out)
{
    const KernelTable& kt = p.kernels;
    auto text = [&](const char* key, NameId id) {
        if (const std::string_view v = p.str(id); !v.empty())
            out.push_back({key, std::string(v)});
    };
    auto integer = [&](const char* key, std::int64_t v) {
        if (v >= 0)
            out.push_back({key, std::to_string(v)});
    };
    text("Name", kt.name[k]);
    text("Type", kt.type[k]);
    text("Accelerator Core", kt.taskType[k]);
    text("OP State", kt.opState[k]);
    integer("Stream Id", kt.streamId[k]);
    integer("Task Id", kt.taskId[k]);
    integer("Context Id", kt.contextId[k]);
    integer("Step Id", kt.step[k]);
    integer("Block Dim", kt.blockDim[k]);
    integer("Mix Block Dim", kt.mixBlockDim[k]);
    text("Input Shapes", kt.inputShapes[k]);
    text("Input Data Types", kt.inputDtypes[k]);
    text("Input Formats", kt.inputFormats[k]);
    text("Output Shapes", kt.outputShapes[k]);
    text("Output Data Types", kt.outputDtypes[k]);
    text("Output Formats", kt.outputFormats[k]);
    out.push_back({"Duration(ns)", std::to_string(kt.dur[k])});
    if (kt.wait[k] != std::numeric_limits<TimeNs>::min())
        out.push_back({"Wait Time(ns)", std::to_string(kt.wait[k])});
    // Every metric the row has: pipe ratios, bandwidths, cache counters, utilisation.
    for (std::size_t m = 0; m < kt.metrics.size(); ++m)
        if (const double v = kt.metrics[m][k]; !std::isnan(v))
            out.push_back({kt.metricNames[m], numberText(v)});
    for (std::size_t c = 0; c < kt.extra.size(); ++c)
        if (const std::string_view v = p.str(kt.extra[c][k]); !v.empty())
            out.push_back({kt.extraNames[c], std::string(v)});
}

} // namespace

std::string trackLabel(const Profile& p, TrackId t)
{
    if (t.v >= p.tracks.size())
        return {};
    const Track& tr = p.tracks[t.v];
    std::string process(p.str(tr.process));
    std::string thread(p.str(tr.thread));
    if (process.empty())
        process = "Process " + std::to_string(tr.pid);
    if (thread.empty())
        thread = "Thread " + std::to_string(tr.tid);
    return process + " · " + thread;
}

TimeNs sliceSelfTime(const Profile& p, std::uint32_t slice)
{
    const Track& t = p.tracks[p.slices.track[slice].v];
    const TimeNs end = p.slices.end(slice);
    const int childDepth = p.slices.depth[slice] + 1;
    TimeNs covered = 0, coveredUntil = p.slices.start[slice];
    for (std::uint32_t r = slice + 1; r < t.sliceEnd && p.slices.start[r] < end; ++r) {
        if (p.slices.depth[r] != childDepth)
            continue;
        const TimeNs b = std::max(p.slices.start[r], coveredUntil);
        const TimeNs e = std::min(p.slices.end(r), end);
        if (e > b) {
            covered += e - b;
            coveredUntil = e;
        }
    }
    return std::max<TimeNs>(0, p.slices.dur[slice] - covered);
}

namespace {

// The flows in and out of the slice (an end bound to no slice is still listed with its time);
// returns the slice that launched it from the host: a Python op beats a CANN API, kNone for none.
std::uint32_t addFlows(const Profile& p, std::uint32_t slice, TimeNs origin, SliceDetail& d)
{
    const FlowTable& f = p.flows;
    std::uint32_t launcher = kNone, launcherRank = 0; // async_npu (Python op) beats HostToDevice
    for (std::size_t i = 0; i < f.size(); ++i) {
        const bool in = f.dstSlice[i] == slice, out = f.srcSlice[i] == slice;
        if (!in && !out)
            continue;
        const std::string cat(p.str(f.category[i]));
        auto link = [&](std::uint32_t other, TrackId otherTrack, TimeNs ts) {
            if (other != kNone)
                return linkTo(p, other, cat, origin);
            SliceLink l;
            l.label = cat;
            l.track = trackLabel(p, otherTrack);
            l.start = ts - origin;
            return l;
        };
        if (in) {
            d.flowsIn.push_back(link(f.srcSlice[i], f.srcTrack[i], f.srcTs[i]));
            const std::uint32_t src = f.srcSlice[i];
            if (src != kNone && src != slice) {
                const TrackKind k = p.tracks[p.slices.track[src].v].kind;
                const std::uint32_t rank = k == TrackKind::Python ? 2 : k == TrackKind::Cann ? 1 : 0;
                if (rank > 0 && (launcher == kNone || rank > launcherRank)) {
                    launcher = src;
                    launcherRank = rank;
                }
            }
        }
        if (out)
            d.flowsOut.push_back(link(f.dstSlice[i], f.dstTrack[i], f.dstTs[i]));
    }

    return launcher;
}

// The host op: the flow's source, or for a CANN launch the Python op running on the same thread
// at that moment; its ancestors and the first call stack up its chain. Without a launcher, the
// slice's own call stack.
void addHostOp(const Profile& p, std::uint32_t slice, std::uint32_t launcher, TimeNs origin, SliceDetail& d)
{
    const Track& track = p.tracks[p.slices.track[slice].v];
    if (launcher != kNone && track.kind == TrackKind::Stream) {
        std::uint32_t host = launcher;
        const Track& lt = p.tracks[p.slices.track[launcher].v];
        if (lt.kind == TrackKind::Cann) {
            for (const Track& t : p.tracks)
                if (t.kind == TrackKind::Python && t.tid == lt.tid)
                    if (const std::uint32_t py = enclosingSlice(p, t, p.slices.start[launcher]); py != kNone) {
                        host = py;
                        break;
                    }
        }
        d.hostOp = linkTo(p, host, "host op", origin);
        for (std::uint32_t a : ancestors(p, host))
            d.hostAncestors.emplace_back(p.str(p.slices.name[a]));
        std::vector<std::uint32_t> chain{host};
        for (std::uint32_t a : ancestors(p, host))
            chain.push_back(a);
        for (std::uint32_t c : chain)
            if (const std::string stack = callStackArg(p, c); !stack.empty()) {
                d.callStack = splitStack(stack);
                break;
            }
    } else if (const std::string stack = callStackArg(p, slice); !stack.empty()) {
        d.callStack = splitStack(stack);
    }

}

// The neighbours on the same track at the same nesting depth.
void addNeighbours(const Profile& p, std::uint32_t slice, TimeNs origin, SliceDetail& d)
{
    const Track& track = p.tracks[p.slices.track[slice].v];
    for (std::uint32_t r = slice; r > track.sliceBegin;) {
        --r;
        if (p.slices.depth[r] == d.depth) {
            d.previous = linkTo(p, r, "previous", origin);
            break;
        }
    }
    for (std::uint32_t r = slice + 1; r < track.sliceEnd; ++r)
        if (p.slices.depth[r] == d.depth) {
            d.next = linkTo(p, r, "next", origin);
            break;
        }
}

} // namespace

SliceDetail describeSlice(const Profile& p, std::uint32_t slice, TimeNs origin)
{
    SliceDetail d;
    if (slice >= p.slices.size() || !p.finalized())
        return d;
    d.valid = true;
    d.slice = slice;
    d.name = std::string(p.str(p.slices.name[slice]));
    d.category = std::string(p.str(p.slices.category[slice]));
    const TrackId tid = p.slices.track[slice];
    d.track = trackLabel(p, tid);
    const Track& track = p.tracks[tid.v];
    d.trackKind = track.kind;
    d.start = p.slices.start[slice] - origin;
    d.dur = p.slices.dur[slice];
    d.self = sliceSelfTime(p, slice);
    d.depth = p.slices.depth[slice];

    if (p.slices.taskId[slice] != kNone)
        d.args.push_back({"Task Id", std::to_string(p.slices.taskId[slice])});
    if (const std::uint32_t sub = p.slices.subtask(static_cast<std::uint32_t>(slice)); sub != kNone)
        d.args.push_back({"Subtask Id", std::to_string(sub)});
    p.args.forEach(p.slices.args[slice], p.strings,
                   [&](std::string_view k, std::string_view v) { d.args.push_back({std::string(k), std::string(v)}); },
                   &d.argsError);
    if (const std::uint32_t k = p.slices.kernel[slice]; k != kNone && k < p.kernels.size())
        addKernelFields(p, k, d.kernel);

    const std::uint32_t launcher = addFlows(p, slice, origin, d);
    addHostOp(p, slice, launcher, origin, d);
    addNeighbours(p, slice, origin, d);
    return d;
}

} // namespace npuscope
