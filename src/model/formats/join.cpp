// Joins timeline device tasks with op_summary / kernel_details rows (FORMATS.md §3).
//
// Rules:
//  - A slice on a Stream track joins the kernel row with the same stream (Track::streamId), task
//    id and device (either side -1 = unknown, compatible with any), first on the exact start,
//    then, for what is left, on the nearest start within 1 µs (2023 CSVs keep 0–1 fraction
//    digits). Task ids repeat, so nothing joins without a time. Each row joins at most once.
//    A MIX task (MIX_AIC, MIX_AIV) also needs its Subtask Id = the row's Context ID when both
//    are known: its subtasks share the task id, and may share the start.
//  - Kernel rows whose task id is N/A (communication rows) join slices on CommGroup tracks with
//    the same name whose start is within 1 µs.
//  - JoinStats: kernelRows = matchedExact + matchedNearest + unmatchedKernels (comm joins
//    included); deviceTasks counts Stream-track slices and unmatchedTasks those left unjoined.
//  - l2_cache has no time: the n-th l2 row of a (device, stream, task id) key, in file order,
//    goes to the n-th kernel row of that key in start order (device ignored when l2 has none).
//    The hit rate becomes kernel metric "l2_hit_rate".
#include "model/formats/readers.h"
#include "model/io/parallel.h"
#include "model/store/cancellable_rows.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <span>
#include <unordered_map>

namespace npuscope::readers {

namespace {

constexpr TimeNs kNearestNs = 1000;

// Kernel rows with a task id and a stream (or, `Streams::AnyToo`, without one too), grouped by
// (stream, task id) and sorted by start in a group (ties in row order). Each row's group is
// found in an open-addressing table, and the rows are placed group by group in row order:
// kernel rows come mostly in start order, so a group rarely needs sorting. Groups are small
// (about one row each), so a hash map of a vector per group would spend its time allocating, on
// fresh memory most of all. Left incomplete when `cancelled` turns true.
class KernelIndex {
public:
    enum class Streams { Known, AnyToo };
    KernelIndex(const KernelTable& K, const std::function<bool()>& cancelled, Streams streams = Streams::Known)
    {
        std::vector<std::uint32_t> groupOf(K.size(), kNone);
        std::vector<std::uint32_t> count;
        m_slots.resize(1024);
        for (std::uint32_t r = 0; r < K.size(); ++r) {
            if (r % kRowsBetweenCancelChecks == 0 && cancelled())
                return;
            if (K.taskId[r] < 0 || (K.streamId[r] < 0 && streams == Streams::Known))
                continue;
            Slot& slot = m_slots[slotOf(K.streamId[r], K.taskId[r])];
            std::uint32_t g = slot.group;
            if (g == kNone) {
                g = static_cast<std::uint32_t>(count.size());
                slot = Slot{K.streamId[r], K.taskId[r], g};
                count.push_back(0);
                if (2 * count.size() > m_slots.size())
                    grow();
            }
            ++count[g];
            groupOf[r] = g;
        }
        m_begin.assign(count.size() + 1, 0);
        for (std::size_t g = 0; g < count.size(); ++g)
            m_begin[g + 1] = m_begin[g] + count[g];
        m_rows.resize(m_begin.back());
        std::vector<std::uint32_t> next(m_begin.begin(), m_begin.end() - 1);
        for (std::uint32_t r = 0; r < K.size(); ++r)
            if (groupOf[r] != kNone)
                m_rows[next[groupOf[r]]++] = r;
        const auto byStart = [&K](std::uint32_t a, std::uint32_t b) { return K.start[a] < K.start[b]; };
        for (std::size_t g = 0; g + 1 < m_begin.size(); ++g) {
            if (g % kRowsBetweenCancelChecks == 0 && cancelled())
                return;
            const auto b = m_rows.begin() + m_begin[g], e = m_rows.begin() + m_begin[g + 1];
            if (!std::is_sorted(b, e, byStart))
                std::stable_sort(b, e, byStart);
        }
    }

    // The rows of (stream, task), by start; empty when there are none.
    std::span<const std::uint32_t> find(std::int64_t stream, std::int64_t task) const
    {
        return rows(group(stream, task));
    }
    // The group of (stream, task), else kNone; groups are numbered from 0 to groups() - 1.
    std::uint32_t group(std::int64_t stream, std::int64_t task) const { return m_slots[slotOf(stream, task)].group; }
    std::size_t groups() const { return m_begin.empty() ? 0 : m_begin.size() - 1; }
    std::span<const std::uint32_t> rows(std::uint32_t g) const
    {
        if (g == kNone)
            return {};
        return {m_rows.data() + m_begin[g], m_rows.data() + m_begin[g + 1]};
    }

private:
    struct Slot {
        std::int64_t stream = 0, task = 0;
        std::uint32_t group = kNone; // kNone: empty
    };
    static std::size_t hash(std::int64_t stream, std::int64_t task)
    {
        std::uint64_t h = static_cast<std::uint64_t>(stream) * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(task);
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9ull;
        return static_cast<std::size_t>(h ^ (h >> 32));
    }
    // The slot holding (stream, task), else the empty slot where it would go.
    std::size_t slotOf(std::int64_t stream, std::int64_t task) const
    {
        const std::size_t mask = m_slots.size() - 1;
        std::size_t at = hash(stream, task) & mask;
        while (m_slots[at].group != kNone && (m_slots[at].stream != stream || m_slots[at].task != task))
            at = (at + 1) & mask;
        return at;
    }
    void grow()
    {
        std::vector<Slot> old(m_slots.size() * 2);
        old.swap(m_slots);
        for (const Slot& s : old)
            if (s.group != kNone)
                m_slots[slotOf(s.stream, s.task)] = s;
    }

    std::vector<Slot> m_slots; // a power of two, at most half full
    std::vector<std::uint32_t> m_begin; // group g's rows: [m_begin[g], m_begin[g + 1])
    std::vector<std::uint32_t> m_rows;
};

bool devicesCompatible(int a, int b)
{
    return a < 0 || b < 0 || a == b;
}

// The l2 rows' hit rates into `col` by the (stream, task id) groups of `byKey`, which hold the
// rows of each key by start; with devices, the n-th row of the group on the l2 row's device.
bool joinL2Rows(Profile& p, const KernelIndex& byKey, MetricColumn& col, bool l2HasDevice,
                const std::function<bool()>& cancelled)
{
    const KernelTable& K = p.kernels;
    std::vector<std::uint32_t> seen(l2HasDevice ? 0 : byKey.groups(), 0);
    std::unordered_map<std::uint64_t, std::uint32_t> seenOnDevice; // (group, device) -> rows seen
    for (std::size_t i = 0; i < p.l2.size(); ++i) {
        if (i % kRowsBetweenCancelChecks == 0 && cancelled())
            return false;
        const L2Row& l = p.l2[i];
        if (l.taskId < 0)
            continue; // no kernel row in the index has that key
        const std::uint32_t g = byKey.group(l.streamId, l.taskId);
        if (g == kNone)
            continue;
        const auto rows = byKey.rows(g);
        if (!l2HasDevice) {
            if (const std::uint32_t n = seen[g]++; n < rows.size())
                col.set(rows[n], l.hitRate);
            continue;
        }
        std::uint32_t n = seenOnDevice[(std::uint64_t{g} << 32) | static_cast<std::uint32_t>(l.device)]++;
        for (const std::uint32_t r : rows)
            if (K.device[r] == l.device && n-- == 0) {
                col.set(r, l.hitRate);
                break;
            }
    }
    return true;
}

// The l2_cache rows' hit rates as kernel metric "l2_hit_rate": the n-th l2 row of a (device,
// stream, task id) key goes to the n-th kernel row of that key by start (device ignored when the
// l2 rows have none). `byKey`: the kernel rows with a stream and a task id; when a kernel row has
// a task id and no stream (none in the known exports), an index that holds those too is built.
// False when cancelled.
bool joinL2(Profile& p, const KernelIndex& byKey, const std::function<bool()>& cancelled)
{
    KernelTable& K = p.kernels;
    if (p.l2.empty() || K.size() == 0)
        return true;
    const bool l2HasDevice = std::any_of(p.l2.begin(), p.l2.end(), [](const L2Row& r) { return r.device >= 0; });
    bool streamless = false;
    for (std::uint32_t r = 0; r < K.size() && !streamless; ++r)
        streamless = K.taskId[r] >= 0 && K.streamId[r] < 0;
    int m = K.metricIndex(std::string("l2_hit_rate"));
    if (m < 0) {
        K.metricNames.emplace_back("l2_hit_rate");
        K.metrics.emplace_back(K.size(), kNaN);
        m = static_cast<int>(K.metrics.size() - 1);
    } else {
        K.metrics[static_cast<std::size_t>(m)].fill(kNaN);
    }
    auto& col = K.metrics[static_cast<std::size_t>(m)];
    std::optional<KernelIndex> withStreamless;
    if (streamless)
        withStreamless.emplace(K, cancelled, KernelIndex::Streams::AnyToo);
    if (cancelled() || !joinL2Rows(p, withStreamless ? *withStreamless : byKey, col, l2HasDevice, cancelled))
        return false;
    col.compact();
    return true;
}

void bind(Profile& p, std::uint32_t slice, std::uint32_t row)
{
    p.slices.kernel[slice] = row;
    p.kernels.slice[row] = slice;
}

// The free kernel row a stream slice joins in a pass (0: exact start; 1: nearest start within
// 1 µs), else kNone.
std::uint32_t rowForSlice(const Profile& p, const KernelIndex& byKey, std::uint32_t s, int pass)
{
    const KernelTable& K = p.kernels;
    const SliceTable& S = p.slices;
    const Track& t = p.tracks[S.track[s].v];
    const auto rows = byKey.find(t.streamId, static_cast<std::int64_t>(S.taskId[s]));
    const std::uint32_t subtask = S.subtask(s); // kNone unless a MIX task
    const TimeNs ts = S.start[s];
    // First row starting at or after ts - window (rows are sorted by start).
    const TimeNs lo = pass == 0 ? ts : ts - kNearestNs;
    auto first = std::lower_bound(rows.begin(), rows.end(), lo,
                                  [&K](std::uint32_t r, TimeNs v) { return K.start[r] < v; });
    std::uint32_t best = kNone;
    TimeNs bestDiff = 0;
    for (auto j = first; j != rows.end(); ++j) {
        const TimeNs diff = K.start[*j] - ts;
        if (pass == 0 ? diff != 0 : diff > kNearestNs)
            break;
        if (K.slice[*j] != kNone || !devicesCompatible(K.device[*j], t.device))
            continue;
        // A MIX task's subtasks share its task id (and may share its start): the
        // Subtask Id picks the row of that Context ID.
        if (subtask != kNone && K.contextId[*j] >= 0 && K.contextId[*j] != subtask)
            continue;
        const TimeNs ad = diff < 0 ? -diff : diff;
        if (best == kNone || ad < bestDiff) {
            best = *j;
            bestDiff = ad;
        }
        if (pass == 0)
            break;
    }
    return best;
}

// Joins the stream slices: every slice on its exact start first, then what is left on the
// nearest start. False when cancelled.
bool joinStreamSlices(Profile& p, std::span<const std::pair<std::uint32_t, std::uint32_t>> streamSlices,
                      const KernelIndex& byKey, const std::function<bool()>& cancelled)
{
    const SliceTable& S = p.slices;
    for (int pass = 0; pass < 2; ++pass) {
        for (const auto& [first, end] : streamSlices) {
            for (std::uint32_t s = first; s < end; ++s) {
                if ((s - first) % kRowsBetweenCancelChecks == 0 && cancelled())
                    return false;
                if (S.kernel[s] != kNone || S.taskId[s] == kNone)
                    continue;
                const std::uint32_t row = rowForSlice(p, byKey, s, pass);
                if (row != kNone) {
                    bind(p, s, row);
                    ++(pass == 0 ? p.join.matchedExact : p.join.matchedNearest);
                }
            }
        }
    }
    return true;
}

// Communication rows (task id N/A): by name and start within 1 µs on CommGroup tracks.
void joinCommunicationRows(Profile& p)
{
    const KernelTable& K = p.kernels;
    const SliceTable& S = p.slices;
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> commByName; // name id -> slices by start
    for (const Track& t : p.tracks) {
        if (t.kind != TrackKind::CommGroup)
            continue;
        for (std::uint32_t s = t.sliceBegin; s < t.sliceEnd; ++s)
            commByName[S.name[s].v].push_back(s);
    }
    if (commByName.empty())
        return;
    for (auto& [n, v] : commByName)
        std::sort(v.begin(), v.end(), [&S](auto a, auto b) { return S.start[a] < S.start[b]; });
    for (std::uint32_t r = 0; r < K.size(); ++r) {
        if (K.taskId[r] >= 0 || K.slice[r] != kNone)
            continue;
        auto it = commByName.find(K.name[r].v);
        if (it == commByName.end())
            continue;
        const auto& v = it->second;
        const TimeNs ts = K.start[r];
        auto first = std::lower_bound(v.begin(), v.end(), ts - kNearestNs,
                                      [&S](std::uint32_t s, TimeNs x) { return S.start[s] < x; });
        std::uint32_t best = kNone;
        TimeNs bestDiff = 0;
        for (auto j = first; j != v.end() && S.start[*j] - ts <= kNearestNs; ++j) {
            if (S.kernel[*j] != kNone)
                continue;
            const TimeNs d = S.start[*j] > ts ? S.start[*j] - ts : ts - S.start[*j];
            if (best == kNone || d < bestDiff) {
                best = *j;
                bestDiff = d;
            }
        }
        if (best != kNone) {
            bind(p, best, r);
            ++(bestDiff == 0 ? p.join.matchedExact : p.join.matchedNearest);
        }
    }
}

} // namespace

class KernelJoinIndex {
public:
    KernelJoinIndex(const KernelTable& K, const std::function<bool()>& cancelled) : rows(K.size()), index(K, cancelled) {}
    std::size_t rows;
    KernelIndex index;
};

std::shared_ptr<const KernelJoinIndex> kernelJoinIndex(const KernelTable& kernels, const std::atomic<bool>* cancel)
{
    const std::function<bool()> cancelled = [cancel] { return isCancelled(cancel); };
    auto index = std::make_shared<const KernelJoinIndex>(kernels, cancelled);
    return cancelled() ? nullptr : index;
}

bool joinKernels(Profile& p, const std::atomic<bool>* cancel, const KernelJoinIndex* prebuilt)
{
    const std::function<bool()> cancelled = [cancel] { return isCancelled(cancel); };
    KernelTable& K = p.kernels;
    SliceTable& S = p.slices;
    K.slice.assign(K.size(), kNone);
    std::fill(S.kernel.begin(), S.kernel.end(), kNone);
    p.join = JoinStats{};
    p.join.kernelRows = K.size();

    const auto streamSlices = p.sliceRanges(TrackKind::Stream);
    for (const auto& [first, end] : streamSlices)
        p.join.deviceTasks += end - first;
    std::optional<KernelIndex> own;
    if (!prebuilt || prebuilt->rows != K.size())
        own.emplace(p.kernels, cancelled);
    const KernelIndex& byKey = own ? *own : prebuilt->index;
    if (cancelled())
        return false;
    // The l2 rows take their kernel rows by key alone, not through the slices: they are joined
    // beside the slices' join, each writing columns of its own (the l2 hit rates; the slice and
    // kernel rows' links and the counts).
    bool slicesJoined = true, l2Joined = true;
    parallelFor(2, 0, [&](std::size_t job) {
        if (job == 1) {
            l2Joined = joinL2(p, byKey, cancelled);
            return;
        }
        slicesJoined = joinStreamSlices(p, streamSlices, byKey, cancelled) && !cancelled();
        if (!slicesJoined)
            return;
        for (const auto& [first, end] : streamSlices)
            for (std::uint32_t s = first; s < end; ++s)
                if (S.kernel[s] == kNone)
                    ++p.join.unmatchedTasks;
        joinCommunicationRows(p);
        for (std::uint32_t r = 0; r < K.size(); ++r)
            if (K.slice[r] == kNone)
                ++p.join.unmatchedKernels;
    });
    return slicesJoined && l2Joined;
}

} // namespace npuscope::readers
