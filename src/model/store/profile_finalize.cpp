// Profile::finalize: slices sorted by track and time, nesting depths, track ranges, flow ends
// bound to their slices, counters sorted and the time span set.
#include "model/store/profile.h"

#include "model/io/parallel.h"
#include "model/store/cancellable_rows.h"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <numeric>
#include <span>

namespace npuscope {

namespace {

// Puts each of `columns` in `order`, one after the other: each is gathered into the storage
// the one before it left, so only the first takes fresh pages (a column of a 10 GB profile is
// 128-256 MB, and the kernel zeroes every fresh page). A cancel leaves the column being gathered
// as it was (the profile is being dropped): a column of 50 M rows takes longer to gather than a
// cancel may.
template <typename T>
void permute(std::initializer_list<std::vector<T>*> columns, std::span<const std::uint32_t> order,
             const std::atomic<bool>* cancel = nullptr)
{
    std::vector<T> out;
    for (std::vector<T>* v : columns) {
        out.clear();
        out.reserve(v->size());
        for (std::size_t from = 0; from < order.size(); from += kRowsBetweenCancelChecks) {
            if (isCancelled(cancel))
                return;
            const std::size_t to = std::min(order.size(), from + kRowsBetweenCancelChecks);
            for (std::size_t k = from; k < to; ++k)
                out.push_back((*v)[order[k]]);
        }
        v->swap(out);
    }
}

// Row numbers for n rows, not zeroed: every one is written before it is read. Zeroing them
// first would fault in 200 MB for a 50 M-row table in one go, longer than a cancel may take.
std::unique_ptr<std::uint32_t[]> rowsForOverwrite(std::size_t n) { return std::make_unique_for_overwrite<std::uint32_t[]>(n); }

// Slice on `track` that encloses ts (the deepest one), or the first one starting at or after ts
// when `orNext` is set and none encloses it. `hint` holds, per track, where the previous lookup
// on it landed: flows come in time order, so a lookup gallops from there over a few slices
// instead of bisecting the whole track (a cache miss per step on a track of a million slices).
std::uint32_t sliceAt(const Profile& p, TrackId track, TimeNs ts, bool orNext, std::vector<std::uint32_t>& hint)
{
    if (!track.valid() || track.v >= p.tracks.size())
        return kNone;
    const Track& t = p.tracks[track.v];
    const auto& st = p.slices.start;
    if (t.sliceEnd <= t.sliceBegin)
        return kNone;
    auto first = st.begin() + t.sliceBegin;
    auto last = st.begin() + t.sliceEnd;
    // Bracket the first start > ts around the hint, doubling the step, then bisect the bracket.
    auto lo = first, hi = last;
    const std::uint32_t h = hint[track.v];
    if (h >= t.sliceBegin && h < t.sliceEnd) {
        auto at = st.begin() + h;
        std::ptrdiff_t step = 1;
        if (*at <= ts) {
            lo = at + 1;
            while (last - lo > step && *(lo + step - 1) <= ts) {
                lo += step;
                step *= 2;
            }
            hi = std::min(last, lo + step);
        } else {
            hi = at;
            while (hi - first > step && *(hi - step) > ts) {
                hi -= step;
                step *= 2;
            }
            lo = std::max(first, hi - step);
        }
    }
    auto it = std::upper_bound(lo, hi, ts); // first start > ts
    hint[track.v] = static_cast<std::uint32_t>(std::min(it, last - 1) - st.begin());
    std::uint32_t best = kNone;
    std::uint16_t bestDepth = 0;
    // Walk back over candidates that start <= ts. A slice j that starts before ts bounds the
    // search: an earlier slice still open at ts was open when j started, so j sits above it in
    // finalize's stack and it is shallower than j. Once nothing shallower than that bound can
    // be deeper than the best so far (or the bound is depth 0), the walk stops. (Only starts
    // exactly at ts leave room for an earlier slice ending exactly at ts, e.g. a parent's
    // previous child, to be deeper.)
    int bound = std::numeric_limits<int>::max(); // earlier candidates have a depth below this
    for (auto j = it; j != first;) {
        --j;
        const auto row = static_cast<std::uint32_t>(j - st.begin());
        const int d = p.slices.depth[row];
        if (d < bound && p.slices.end(row) >= ts && (best == kNone || d > bestDepth)) {
            best = row;
            bestDepth = static_cast<std::uint16_t>(d);
        }
        if (p.slices.start[row] < ts)
            bound = std::min(bound, d);
        if (bound == 0 || (best != kNone && bound <= bestDepth + 1))
            break;
        if (it - j > 256)
            break;
    }
    if (best == kNone && orNext && it != last)
        best = static_cast<std::uint32_t>(it - st.begin());
    return best;
}

} // namespace

namespace {

// By finalize(), after sorting: exact repeats are kept, and named.
void reportDuplicateSlices(Profile& p)
{
    const SliceTable& slices = p.slices;
    // Slices are sorted by (track, start, -dur): exact repeats sit in one run of equal
    // (track, start, dur); names are compared inside the run (sorted, so a long run stays cheap).
    const std::size_t n = slices.size();
    std::uint64_t duplicates = 0;
    std::size_t first = n;
    std::vector<std::pair<std::uint32_t, std::size_t>> names;
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i + 1;
        while (j < n && slices.track[j].v == slices.track[i].v && slices.start[j] == slices.start[i]
               && slices.dur[j] == slices.dur[i])
            ++j;
        if (j - i > 1) {
            names.clear();
            for (std::size_t k = i; k < j; ++k)
                names.emplace_back(slices.name[k].v, k);
            std::sort(names.begin(), names.end());
            for (std::size_t k = 1; k < names.size(); ++k)
                if (names[k].first == names[k - 1].first) {
                    ++duplicates;
                    first = std::min(first, names[k].second);
                }
        }
        i = j;
    }
    if (duplicates == 0)
        return;
    std::string file = p.root;
    for (const auto& f : p.files)
        if (f.has(FileRole::Slices)) {
            file = f.path;
            break;
        }
    std::string where;
    if (const auto tr = slices.track[first].v; tr < p.tracks.size())
        where = " on pid " + std::to_string(p.tracks[tr].pid) + " tid " + std::to_string(p.tracks[tr].tid);
    std::string reason = std::to_string(duplicates) + " duplicate event(s) (same track, start, duration and name as "
        + "another) kept; the first: '" + std::string(p.str(slices.name[first])) + "' at ts "
        + std::to_string(slices.start[first]) + " ns" + where;
    p.diagnostics.push_back(Diagnostic{Severity::Warning, file, -1, -1, std::move(reason), duplicates});
}

// The slices' rows in their finalized order: by track, then start, longer first; ties keep their
// reading order. Slices arrive mostly in time order per track, so a counting pass by track and
// a sortedness check per track do most of it; only tracks out of order are sorted (stably, as a
// whole sort would). Null when cancelled.
std::unique_ptr<std::uint32_t[]> sliceOrder(const SliceTable& slices, std::size_t trackCount,
                                            const std::atomic<bool>* cancel)
{
    const std::size_t n = slices.size();
    const auto stopped = [cancel] { return isCancelled(cancel); };
    auto inTrackOrder = [&slices](std::uint32_t a, std::uint32_t b) {
        if (slices.start[a] != slices.start[b])
            return slices.start[a] < slices.start[b];
        return slices.dur[a] > slices.dur[b];
    };
    std::uint32_t maxTrack = 0;
    for (std::size_t i = 0; i < n; ++i)
        maxTrack = std::max(maxTrack, slices.track[i].v);
    if (isCancelled(cancel))
        return nullptr;
    auto order = rowsForOverwrite(n);
    if (n > 0 && maxTrack < trackCount + 1024) {
        std::vector<std::uint32_t> begin(std::size_t(maxTrack) + 2, 0);
        for (std::size_t i = 0; i < n; ++i)
            ++begin[std::size_t(slices.track[i].v) + 1];
        for (std::size_t t = 1; t < begin.size(); ++t)
            begin[t] += begin[t - 1];
        std::vector<std::uint32_t> next(begin.begin(), begin.end() - 1);
        for (std::size_t from = 0; from < n; from += kRowsBetweenCancelChecks) {
            if (isCancelled(cancel))
                return nullptr;
            for (std::size_t i = from; i < std::min(n, from + kRowsBetweenCancelChecks); ++i)
                order[next[slices.track[i].v]++] = static_cast<std::uint32_t>(i);
        }
        for (std::size_t t = 0; t + 1 < begin.size(); ++t) {
            if (isCancelled(cancel))
                return nullptr;
            const auto b = order.get() + begin[t], e = order.get() + begin[t + 1];
            if (!std::is_sorted(b, e, inTrackOrder) && !stableSortRows(b, e, inTrackOrder, stopped))
                return nullptr;
        }
    } else {
        std::iota(order.get(), order.get() + n, 0u);
        const auto byTrack = [&](std::uint32_t a, std::uint32_t b) {
            if (slices.track[a].v != slices.track[b].v)
                return slices.track[a].v < slices.track[b].v;
            return inTrackOrder(a, b);
        };
        if (!stableSortRows(order.get(), order.get() + n, byTrack, stopped))
            return nullptr;
    }
    return order;
}

// Puts the slices in `order` (row i becomes order[i]), and every reference to a slice row with
// them: kernels, flow ends, subtask ids. Nothing to do when the order is the identity.
void reorderSlices(Profile& p, std::span<const std::uint32_t> order, const std::atomic<bool>* cancel)
{
    SliceTable& slices = p.slices;
    const std::size_t n = slices.size();
    bool identity = true;
    for (std::size_t i = 0; i < n && identity; ++i)
        identity = order[i] == i;
    if (identity)
        return;
    const auto newRow = rowsForOverwrite(n);
    for (std::size_t from = 0; from < n; from += kRowsBetweenCancelChecks) {
        if (isCancelled(cancel))
            return;
        for (std::size_t i = from; i < std::min(n, from + kRowsBetweenCancelChecks); ++i)
            newRow[order[i]] = static_cast<std::uint32_t>(i);
    }
    // Columns of one type are gathered in turn, the types side by side: a big profile uses every
    // core for it. The depths are not gathered: setTrackRanges() writes every one.
    const std::function<void()> jobs[] = {
        [&] { permute({&slices.start, &slices.dur}, order, cancel); },
        [&] { permute({&slices.name, &slices.category}, order, cancel); },
        [&] { permute({&slices.track}, order, cancel); },
        [&] { permute({&slices.taskId, &slices.kernel, &slices.args}, order, cancel); },
        [&] {
            for (auto& s : p.kernels.slice)
                if (s != kNone)
                    s = newRow[s];
            for (auto* col : {&p.flows.srcSlice, &p.flows.dstSlice})
                for (auto& s : *col)
                    if (s != kNone && s < n)
                        s = newRow[s];
        },
        [&] {
            std::vector<std::pair<std::uint32_t, std::uint32_t>> sub;
            sub.reserve(slices.subtaskRow.size());
            for (std::size_t i = 0; i < slices.subtaskRow.size(); ++i)
                if (slices.subtaskRow[i] < n)
                    sub.emplace_back(newRow[slices.subtaskRow[i]], slices.subtaskId[i]);
            std::sort(sub.begin(), sub.end());
            slices.subtaskRow.clear();
            slices.subtaskId.clear();
            for (const auto& [row, id] : sub)
                slices.setSubtask(row, id);
        },
    };
    constexpr std::size_t kParallelRows = 1u << 20;
    parallelFor(std::size(jobs), n >= kParallelRows ? 0u : 1u, [&](std::size_t i) {
        if (!isCancelled(cancel))
            jobs[i]();
    });
}

// Track ranges and nesting depths (a stack of open ends per track), on slices in track order.
void setTrackRanges(Profile& p)
{
    SliceTable& slices = p.slices;
    const std::size_t n = slices.size();
    for (auto& t : p.tracks) {
        t.sliceBegin = t.sliceEnd = 0;
        t.maxDepth = 0;
    }
    std::vector<TimeNs> stack;
    for (std::size_t i = 0; i < n;) {
        const auto tr = slices.track[i].v;
        std::size_t j = i;
        stack.clear();
        std::uint16_t maxDepth = 0;
        for (; j < n && slices.track[j].v == tr; ++j) {
            const TimeNs s = slices.start[j];
            const TimeNs e = slices.end(j);
            while (!stack.empty() && stack.back() <= s)
                stack.pop_back(); // abutting slices do not nest
            // A slice that starts inside the open one but ends after it cannot nest: it is drawn
            // at the open one's depth + 1 anyway (partial overlap), not dropped.
            const auto d = static_cast<std::uint16_t>(std::min<std::size_t>(stack.size(), 65535));
            slices.depth[j] = d;
            maxDepth = std::max(maxDepth, d);
            stack.push_back(e);
        }
        if (tr < p.tracks.size()) {
            p.tracks[tr].sliceBegin = static_cast<std::uint32_t>(i);
            p.tracks[tr].sliceEnd = static_cast<std::uint32_t>(j);
            p.tracks[tr].maxDepth = maxDepth;
        }
        i = j;
    }
}

// Flow ends: the sources and the destinations are bound on two threads for a big profile
// (1.2 M flows at the 1 GB benchmark profile), each with its own hints.
void bindFlowEnds(Profile& p, const std::atomic<bool>* cancel)
{
    FlowTable& flows = p.flows;
    for (auto* col : {&flows.srcSlice, &flows.dstSlice})
        if (col->size() < flows.size())
            col->resize(flows.size(), kNone);
    auto bindEnds = [&](std::vector<std::uint32_t>& slice, const std::vector<TrackId>& track,
                        const std::vector<TimeNs>& ts, bool orNext) {
        std::vector<std::uint32_t> hint(p.tracks.size(), kNone);
        for (std::size_t f = 0; f < flows.size(); ++f) {
            if (f % 65536 == 0 && isCancelled(cancel))
                return;
            if (slice[f] == kNone)
                slice[f] = sliceAt(p, track[f], ts[f], orNext, hint);
        }
    };
    constexpr std::size_t kParallelFlows = 1u << 18;
    parallelFor(2, flows.size() >= kParallelFlows ? 0u : 1u, [&](std::size_t i) {
        if (i == 0)
            bindEnds(flows.srcSlice, flows.srcTrack, flows.srcTs, false);
        else
            bindEnds(flows.dstSlice, flows.dstTrack, flows.dstTs, true);
    });
}

void sortCounters(Profile& p)
{
    for (auto& c : p.counters) {
        if (!std::is_sorted(c.ts.begin(), c.ts.end())) {
            std::vector<std::uint32_t> o(c.ts.size());
            std::iota(o.begin(), o.end(), 0u);
            std::stable_sort(o.begin(), o.end(), [&c](auto a, auto b) { return c.ts[a] < c.ts[b]; });
            permute({&c.ts}, o);
            permute({&c.value}, o);
        }
    }
}

// The span of everything with a time: slices, counters, allocations; the kernel rows only when
// there is none of those.
void setTimeSpan(Profile& p)
{
    bool any = false;
    TimeNs b = 0, e = 0;
    auto take = [&](TimeNs s, TimeNs en) {
        if (!any) {
            b = s;
            e = en;
            any = true;
        } else {
            b = std::min(b, s);
            e = std::max(e, en);
        }
    };
    for (std::size_t i = 0; i < p.slices.size(); ++i)
        take(p.slices.start[i], p.slices.end(i));
    for (const auto& c : p.counters)
        if (!c.ts.empty())
            take(c.ts.front(), c.ts.back());
    for (const auto& a : p.opMemory)
        take(a.allocAt, std::max(a.allocAt, a.releaseAt.value_or(a.allocAt)));
    if (!any)
        for (std::size_t i = 0; i < p.kernels.size(); ++i)
            take(p.kernels.start[i], p.kernels.start[i] + p.kernels.dur[i]);
    p.begin = b;
    p.end = e;
}

} // namespace

bool Profile::finalize(const std::atomic<bool>* cancel)
{
    const auto order = sliceOrder(slices, tracks.size(), cancel);
    if (isCancelled(cancel))
        return false;
    reorderSlices(*this, {order.get(), slices.size()}, cancel);
    if (isCancelled(cancel))
        return false;
    setTrackRanges(*this);
    if (isCancelled(cancel))
        return false;
    if (!m_finalized)
        reportDuplicateSlices(*this);
    if (isCancelled(cancel))
        return false;
    bindFlowEnds(*this, cancel);
    if (isCancelled(cancel))
        return false;
    sortCounters(*this);
    setTimeSpan(*this);
    m_finalized = true;
    return true;
}

} // namespace npuscope
