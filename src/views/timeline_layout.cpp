#include "views/timeline_layout.h"
#include "views/format.h"

#include "views/palette.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace npuscope {

namespace {

// Display order of the process groups inside a rank, host side first (as UI.md draws it).
int kindOrder(TrackKind k)
{
    switch (k) {
    case TrackKind::Python: return 0;
    case TrackKind::Cann: return 1;
    case TrackKind::Stream: return 2;
    case TrackKind::CommGroup: return 3;
    case TrackKind::CommPlane: return 4;
    case TrackKind::Overlap: return 5;
    case TrackKind::Other: return 6;
    }
    return 7;
}

// Fixed colours for the overlap analysis lanes, so "Free" is always hatched grey and
// "Communication(Not Overlapped)" always reads as communication.
int overlapColor(std::string_view name)
{
    if (name.find("Communication") != std::string_view::npos)
        return paletteIndexFor(name);
    if (name == "Computing")
        return 0;
    return paletteIndexFor(name);
}

LaneLevel makeLevel(const Profile& p, std::vector<std::uint32_t> rows, bool flat, std::uint32_t b, std::uint32_t e)
{
    LaneLevel l;
    l.flat = flat;
    l.begin = b;
    l.end = e;
    if (!flat)
        l.rows = std::move(rows);
    bool sorted = true;
    TimeNs prev = std::numeric_limits<TimeNs>::min();
    for (std::size_t k = 0; k < l.size() && sorted; ++k) {
        const TimeNs en = TimelineLayout::effEnd(p, l.row(k));
        sorted = en >= prev;
        prev = en;
    }
    if (!sorted) {
        l.maxEnd.resize(l.size());
        TimeNs m = std::numeric_limits<TimeNs>::min();
        for (std::size_t k = 0; k < l.size(); ++k) {
            m = std::max(m, TimelineLayout::effEnd(p, l.row(k)));
            l.maxEnd[k] = m;
        }
    }
    return l;
}

// Non-empty tracks are grouped by (kind order, process name, process label).
struct ProcessKey {
    int order;
    std::string process;
    std::int64_t pid;
    bool operator<(const ProcessKey& o) const { return std::tie(order, process, pid) < std::tie(o.order, o.process, o.pid); }
};

// The non-empty tracks of a rank by process. A process's place is that of its most host-side
// track kind (HCCL holds both CommGroup and CommPlane tracks and stays one group). A process the
// trace does not name: by its pid when its kind says nothing either (a plain Chrome trace
// without process_name metadata), else by its kind.
std::map<ProcessKey, std::vector<std::uint32_t>> tracksByProcess(const Profile& p)
{
    auto processName = [&p](const Track& tr) {
        if (!p.str(tr.process).empty())
            return p.strings.str(tr.process);
        return tr.kind == TrackKind::Other ? "Process " + std::to_string(tr.pid) : std::string(trackKindName(tr.kind));
    };
    std::map<std::pair<std::string, std::int64_t>, int> processOrder;
    for (const Track& tr : p.tracks) {
        if (tr.sliceEnd <= tr.sliceBegin)
            continue;
        auto [it, fresh] = processOrder.try_emplace({processName(tr), tr.pid}, kindOrder(tr.kind));
        if (!fresh)
            it->second = std::min(it->second, kindOrder(tr.kind));
    }
    std::map<ProcessKey, std::vector<std::uint32_t>> byProcess;
    for (std::uint32_t t = 0; t < p.tracks.size(); ++t) {
        const Track& tr = p.tracks[t];
        if (tr.sliceEnd <= tr.sliceBegin)
            continue; // metadata-only tracks draw nothing
        const std::string name = processName(tr);
        byProcess[{processOrder[{name, tr.pid}], name, tr.pid}].push_back(t);
    }
    return byProcess;
}

// The lane of track `t`: one level per nesting depth.
Lane makeLane(const Profile& p, std::uint32_t t, int rank, int group)
{
    const Track& tr = p.tracks[t];
    Lane lane;
    lane.rank = rank;
    lane.track = TrackId(t);
    lane.kind = tr.kind;
    lane.name = p.str(tr.thread).empty() ? QStringLiteral("Thread %1").arg(tr.tid) : qstr(p.str(tr.thread));
    lane.group = group;
    if (tr.maxDepth == 0) {
        lane.levels.push_back(makeLevel(p, {}, true, tr.sliceBegin, tr.sliceEnd));
        return lane;
    }
    std::vector<std::vector<std::uint32_t>> perDepth(tr.maxDepth + 1u);
    for (std::uint32_t s = tr.sliceBegin; s < tr.sliceEnd; ++s)
        perDepth[p.slices.depth[s]].push_back(s);
    for (auto& rows : perDepth)
        lane.levels.push_back(makeLevel(p, std::move(rows), false, 0, 0));
    return lane;
}

// (slice, flow) for both ends of every flow bound to a slice, sorted: counted per slice and
// placed in flow order (a linear pass, not a sort of a few million pairs).
std::vector<std::pair<std::uint32_t, std::uint32_t>> flowIndexOf(const Profile& p)
{
    const std::size_t slices = p.slices.size();
    const std::size_t flows = p.flows.size();
    auto bound = [&](const std::vector<std::uint32_t>& ends, std::uint32_t f) {
        return f < ends.size() && ends[f] != kNone && ends[f] < slices;
    };
    std::vector<std::uint32_t> at(slices + 1, 0); // where each slice's pairs start
    for (std::uint32_t f = 0; f < flows; ++f) {
        if (bound(p.flows.srcSlice, f))
            ++at[p.flows.srcSlice[f] + 1];
        if (bound(p.flows.dstSlice, f))
            ++at[p.flows.dstSlice[f] + 1];
    }
    for (std::size_t s = 1; s <= slices; ++s)
        at[s] += at[s - 1];
    std::vector<std::pair<std::uint32_t, std::uint32_t>> fi(at[slices]);
    for (std::uint32_t f = 0; f < flows; ++f) {
        if (bound(p.flows.srcSlice, f))
            fi[at[p.flows.srcSlice[f]]++] = {p.flows.srcSlice[f], f};
        if (bound(p.flows.dstSlice, f))
            fi[at[p.flows.dstSlice[f]]++] = {p.flows.dstSlice[f], f};
    }
    return fi;
}

} // namespace

void TimelineLayout::build(const SessionPtr& session)
{
    m_session = session;
    m_paletteClaim.reset(); // this layout's keys no longer hold their slots
    lanes.clear();
    groups.clear();
    trackLane.clear();
    nameColor.clear();
    m_flowIndex.clear();
    legend.clear();
    if (!session)
        return;

    std::map<std::string, TimeNs> legendTotals;
    std::vector<std::vector<std::uint32_t>> rankKeys; // [rank] the string ids of its legend keys
    for (std::size_t r = 0; r < session->ranks.size(); ++r) {
        const Profile& p = *session->ranks[r];
        const int rank = static_cast<int>(r);

        // Colours per interned string (names and OP types share the pool).
        auto& colors = nameColor.emplace_back(p.strings.size());
        for (std::size_t i = 0; i < p.strings.size(); ++i)
            colors[i] = static_cast<std::uint8_t>(preferredPaletteIndex(p.strings.view(NameId(static_cast<std::uint32_t>(i)))));
        // Legend time per colour key (OP type or name), by string id: one add per slice here,
        // one map insert per distinct key after the rank.
        std::vector<TimeNs> keyTotals(p.strings.size(), 0);

        std::map<ProcessKey, std::vector<std::uint32_t>> byProcess = tracksByProcess(p);

        LaneGroup rankGroup;
        rankGroup.rank = rank;
        rankGroup.rankHeader = true;
        QString title = p.rank >= 0 ? QStringLiteral("Rank %1").arg(p.rank) : qstr(p.name);
        if (!p.devices.empty())
            title += QStringLiteral(" / NPU %1").arg(p.devices.front());
        if (p.rank >= 0 && !p.name.empty())
            title += QStringLiteral("  (%1)").arg(qstr(p.name));
        rankGroup.title = title;
        const int rankGroupIndex = static_cast<int>(groups.size());
        groups.push_back(rankGroup);

        auto& laneOfTrack = trackLane.emplace_back(p.tracks.size(), -1);
        for (auto& [key, tracks] : byProcess) {
            std::sort(tracks.begin(), tracks.end(), [&p](std::uint32_t a, std::uint32_t b) {
                const Track& x = p.tracks[a];
                const Track& y = p.tracks[b];
                return std::tie(x.threadSort, x.streamId, x.tid) < std::tie(y.threadSort, y.streamId, y.tid);
            });
            LaneGroup g;
            g.rank = rank;
            g.title = qstr(key.process);
            const int gi = static_cast<int>(groups.size());
            for (std::uint32_t t : tracks) {
                const Track& tr = p.tracks[t];
                Lane lane = makeLane(p, t, rank, gi);
                if (tr.kind == TrackKind::Overlap)
                    for (std::uint32_t s = tr.sliceBegin; s < tr.sliceEnd; ++s)
                        colors[p.slices.name[s].v] = static_cast<std::uint8_t>(overlapColor(p.str(p.slices.name[s])));
                if (tr.kind == TrackKind::Stream || tr.kind == TrackKind::CommGroup)
                    for (std::uint32_t s = tr.sliceBegin; s < tr.sliceEnd; ++s)
                        keyTotals[colorKeyId(p, s).v] += p.slices.dur[s];
                laneOfTrack[t] = static_cast<int>(lanes.size());
                g.lanes.push_back(static_cast<int>(lanes.size()));
                lanes.push_back(std::move(lane));
            }
            groups[static_cast<std::size_t>(rankGroupIndex)].children.push_back(gi);
            groups.push_back(std::move(g));
        }

        auto& keys = rankKeys.emplace_back();
        for (std::size_t i = 0; i < keyTotals.size(); ++i)
            if (keyTotals[i] > 0) {
                keys.push_back(static_cast<std::uint32_t>(i));
                legendTotals[std::string(colourKey(p.strings.view(NameId(static_cast<std::uint32_t>(i)))))] += keyTotals[i];
            }
    }
    m_flowIndex.resize(session->ranks.size());

    // The legend's keys are shown together: they claim distinct colours, heaviest first.
    std::vector<PaletteKey> claimed;
    claimed.reserve(legendTotals.size());
    for (const auto& [key, total] : legendTotals)
        claimed.push_back({key, static_cast<double>(total)});
    m_paletteClaim = claimPaletteSlots(std::move(claimed));
    for (std::size_t r = 0; r < rankKeys.size(); ++r)
        for (std::uint32_t i : rankKeys[r])
            nameColor[r][i] = static_cast<std::uint8_t>(paletteIndexFor(session->ranks[r]->strings.view(NameId(i))));

    for (const auto& [key, total] : legendTotals)
        legend.push_back({QString::fromStdString(key), paletteIndexFor(key), total});
    // In the order the keys claimed their colours, so the entries that fit are the distinct ones.
    std::sort(legend.begin(), legend.end(), [](const LegendEntry& a, const LegendEntry& b) {
        return a.total != b.total ? a.total > b.total : a.key < b.key;
    });
}

int TimelineLayout::idleLane(int rank) const
{
    for (std::size_t i = 0; i < lanes.size(); ++i)
        if (lanes[i].idleCauses && lanes[i].rank == rank)
            return static_cast<int>(i);
    return -1;
}

int TimelineLayout::addIdleLane(int rank)
{
    if (const int existing = idleLane(rank); existing >= 0)
        return existing;
    auto header = std::find_if(groups.begin(), groups.end(), [rank](const LaneGroup& g) { return g.rankHeader && g.rank == rank; });
    if (header == groups.end())
        return -1;
    const int headerIndex = static_cast<int>(header - groups.begin());
    const int gi = static_cast<int>(groups.size());
    Lane lane;
    lane.rank = rank;
    lane.track = TrackId();
    lane.kind = TrackKind::Overlap;
    lane.name = QStringLiteral("Device idle");
    lane.group = gi;
    lane.levels.push_back(LaneLevel{});
    lane.idleCauses = true;
    const int li = static_cast<int>(lanes.size());
    lanes.push_back(std::move(lane));
    LaneGroup g;
    g.rank = rank;
    g.title = QStringLiteral("Idle causes");
    g.lanes.push_back(li);
    groups.push_back(std::move(g));
    // After the last group of Overlap Analysis lanes, else at the end of the rank.
    auto& children = groups[static_cast<std::size_t>(headerIndex)].children;
    auto at = children.end();
    for (auto it = children.begin(); it != children.end(); ++it) {
        const LaneGroup& c = groups[static_cast<std::size_t>(*it)];
        if (!c.lanes.empty() && lanes[static_cast<std::size_t>(c.lanes.front())].kind == TrackKind::Overlap)
            at = it + 1;
    }
    children.insert(at, gi);
    return li;
}

std::uint8_t TimelineLayout::colorOf(int rank, std::uint32_t row) const
{
    const Profile& p = *m_session->ranks[static_cast<std::size_t>(rank)];
    const auto& colors = nameColor[static_cast<std::size_t>(rank)];
    const std::uint32_t k = p.slices.kernel[row];
    if (k != kNone && k < p.kernels.size() && p.kernels.type[k].v != 0)
        return colors[p.kernels.type[k].v];
    return colors[p.slices.name[row].v];
}

const std::vector<std::pair<std::uint32_t, std::uint32_t>>& TimelineLayout::flowIndex(int rank) const
{
    auto& fi = m_flowIndex.at(static_cast<std::size_t>(rank));
    if (!fi)
        fi = flowIndexOf(*m_session->ranks[static_cast<std::size_t>(rank)]);
    return *fi;
}

NameId TimelineLayout::colorKeyId(const Profile& p, std::uint32_t row)
{
    const std::uint32_t k = p.slices.kernel[row];
    if (k != kNone && k < p.kernels.size() && p.kernels.type[k].v != 0)
        return p.kernels.type[k];
    return p.slices.name[row];
}

std::string_view TimelineLayout::colorKey(int rank, std::uint32_t row) const
{
    const Profile& p = *m_session->ranks[static_cast<std::size_t>(rank)];
    return p.str(colorKeyId(p, row));
}

std::pair<std::size_t, std::size_t> TimelineLayout::candidates(const Profile& p, const LaneLevel& level, TimeNs t0, TimeNs t1)
{
    const std::size_t n = level.size();
    auto lowerIdx = [n](auto pred) { // first k in [0, n) with !pred(k)
        std::size_t lo = 0, hi = n;
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (pred(mid))
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    };
    const std::size_t lo = level.maxEnd.empty()
        ? lowerIdx([&](std::size_t k) { return effEnd(p, level.row(k)) <= t0; })
        : lowerIdx([&](std::size_t k) { return level.maxEnd[k] <= t0; });
    const std::size_t hi = lowerIdx([&](std::size_t k) { return p.slices.start[level.row(k)] < t1; });
    return {lo, std::max(lo, hi)};
}

std::size_t TimelineLayout::countIntersecting(const Profile& p, const LaneLevel& level, TimeNs t0, TimeNs t1)
{
    const auto [lo, hi] = candidates(p, level, t0, t1);
    if (level.maxEnd.empty())
        return hi - lo; // sorted ends: every candidate intersects
    std::size_t n = 0;
    for (std::size_t k = lo; k < hi; ++k)
        n += effEnd(p, level.row(k)) > t0;
    return n;
}

std::size_t TimelineLayout::firstStartingAtOrAfter(const Profile& p, const LaneLevel& level, std::size_t from,
                                                   std::size_t hi, TimeNs t)
{
    // The answer is usually a few positions on (the next pixel column): gallop from `from` so
    // the probes stay near it, then bisect the last step.
    std::size_t lo = from;
    for (std::size_t step = 1; lo < hi; step *= 2) {
        const std::size_t probe = std::min(hi, lo + step);
        if (probe < hi && p.slices.start[level.row(probe - 1)] < t) {
            lo = probe;
            continue;
        }
        hi = probe;
        break;
    }
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (p.slices.start[level.row(mid)] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

} // namespace npuscope
