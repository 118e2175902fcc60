// Joins timeline device tasks with op_summary / kernel_details rows (FORMATS.md §3).
//
// Rules:
//  - A slice on a Stream track joins the kernel row with the same stream (Track::streamId), task
//    id and device (either side -1 = unknown, compatible with any), first on the exact start,
//    then, for what is left, on the nearest start within 1 µs (2023 CSVs keep 0–1 fraction
//    digits). Task ids repeat, so nothing joins without a time. Each row joins at most once.
//  - Kernel rows whose task id is N/A (communication rows) join slices on CommGroup tracks with
//    the same name whose start is within 1 µs.
//  - JoinStats: kernelRows = matchedExact + matchedNearest + unmatchedKernels (comm joins
//    included); deviceTasks counts Stream-track slices and unmatchedTasks those left unjoined.
//  - l2_cache has no time: the n-th l2 row of a (device, stream, task id) key, in file order,
//    goes to the n-th kernel row of that key in start order (device ignored when l2 has none).
//    The hit rate becomes kernel metric "l2_hit_rate".
#include "model/formats/readers.h"

#include <algorithm>
#include <unordered_map>

namespace npuscope::readers {

namespace {

constexpr TimeNs kNearestNs = 1000;

struct Key {
    std::int64_t stream, task;
    bool operator==(const Key&) const = default;
};

struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept
    {
        return std::hash<std::int64_t>{}(k.stream * 1000003 ^ (k.task << 1));
    }
};

bool devicesCompatible(int a, int b)
{
    return a < 0 || b < 0 || a == b;
}

// Kernel rows of one key, sorted by start.
struct Candidates {
    std::vector<std::uint32_t> rows;
};

void joinL2(Profile& p)
{
    KernelTable& K = p.kernels;
    if (p.l2.empty() || K.size() == 0)
        return;
    const bool l2HasDevice = std::any_of(p.l2.begin(), p.l2.end(), [](const L2Row& r) { return r.device >= 0; });
    struct DKey {
        int device;
        std::int64_t stream, task;
        bool operator==(const DKey&) const = default;
    };
    struct DKeyHash {
        std::size_t operator()(const DKey& k) const noexcept
        {
            return std::hash<std::int64_t>{}((k.stream * 1000003 ^ (k.task << 1)) * 31 + k.device);
        }
    };
    std::unordered_map<DKey, std::vector<std::uint32_t>, DKeyHash> kernelsByKey;
    for (std::uint32_t r = 0; r < K.size(); ++r)
        if (K.taskId[r] >= 0)
            kernelsByKey[DKey{l2HasDevice ? K.device[r] : -1, K.streamId[r], K.taskId[r]}].push_back(r);
    for (auto& [k, rows] : kernelsByKey)
        std::stable_sort(rows.begin(), rows.end(), [&K](auto a, auto b) { return K.start[a] < K.start[b]; });
    int m = K.metricIndex(std::string("l2_hit_rate"));
    if (m < 0) {
        K.metricNames.emplace_back("l2_hit_rate");
        K.metrics.emplace_back(K.size(), kNaN);
        m = static_cast<int>(K.metrics.size() - 1);
    } else {
        K.metrics[static_cast<std::size_t>(m)].fill(kNaN);
    }
    auto& col = K.metrics[static_cast<std::size_t>(m)];
    std::unordered_map<DKey, std::size_t, DKeyHash> seen;
    for (const L2Row& l : p.l2) {
        const DKey k{l2HasDevice ? l.device : -1, l.streamId, l.taskId};
        const std::size_t n = seen[k]++;
        auto it = kernelsByKey.find(k);
        if (it != kernelsByKey.end() && n < it->second.size())
            col.set(it->second[n], l.hitRate);
    }
    col.compact();
}

} // namespace

void joinKernels(Profile& p)
{
    KernelTable& K = p.kernels;
    SliceTable& S = p.slices;
    K.slice.assign(K.size(), kNone);
    std::fill(S.kernel.begin(), S.kernel.end(), kNone);
    p.join = JoinStats{};
    p.join.kernelRows = K.size();

    std::unordered_map<Key, Candidates, KeyHash> byKey;
    for (std::uint32_t r = 0; r < K.size(); ++r)
        if (K.taskId[r] >= 0 && K.streamId[r] >= 0)
            byKey[Key{K.streamId[r], K.taskId[r]}].rows.push_back(r);
    for (auto& [k, c] : byKey)
        std::stable_sort(c.rows.begin(), c.rows.end(), [&K](auto a, auto b) { return K.start[a] < K.start[b]; });

    auto bind = [&](std::uint32_t slice, std::uint32_t row) {
        S.kernel[slice] = row;
        K.slice[row] = slice;
    };

    // Stream slices, with their key.
    std::vector<std::uint32_t> streamSlices;
    for (const Track& t : p.tracks) {
        if (t.kind != TrackKind::Stream)
            continue;
        for (std::uint32_t s = t.sliceBegin; s < t.sliceEnd; ++s)
            streamSlices.push_back(s);
    }
    p.join.deviceTasks = streamSlices.size();

    // Pass 0: exact start; pass 1: nearest start within 1 µs among rows still free.
    for (int pass = 0; pass < 2; ++pass) {
        for (std::uint32_t s : streamSlices) {
            if (S.kernel[s] != kNone || S.taskId[s] == kNone)
                continue;
            const Track& t = p.tracks[S.track[s].v];
            auto it = byKey.find(Key{t.streamId, static_cast<std::int64_t>(S.taskId[s])});
            if (it == byKey.end())
                continue;
            const auto& rows = it->second.rows;
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
                const TimeNs ad = diff < 0 ? -diff : diff;
                if (best == kNone || ad < bestDiff) {
                    best = *j;
                    bestDiff = ad;
                }
                if (pass == 0)
                    break;
            }
            if (best != kNone) {
                bind(s, best);
                ++(pass == 0 ? p.join.matchedExact : p.join.matchedNearest);
            }
        }
    }
    for (std::uint32_t s : streamSlices)
        if (S.kernel[s] == kNone)
            ++p.join.unmatchedTasks;

    // Communication rows (task id N/A): by name and start within 1 µs on CommGroup tracks.
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> commByName; // name id -> slices by start
    for (const Track& t : p.tracks) {
        if (t.kind != TrackKind::CommGroup)
            continue;
        for (std::uint32_t s = t.sliceBegin; s < t.sliceEnd; ++s)
            commByName[S.name[s].v].push_back(s);
    }
    if (!commByName.empty()) {
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
                bind(best, r);
                ++(bestDiff == 0 ? p.join.matchedExact : p.join.matchedNearest);
            }
        }
    }
    for (std::uint32_t r = 0; r < K.size(); ++r)
        if (K.slice[r] == kNone)
            ++p.join.unmatchedKernels;

    joinL2(p);
}

} // namespace npuscope::readers
