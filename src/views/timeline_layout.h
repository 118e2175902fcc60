#pragma once
// What the timeline draws, computed once per session (never per paint): lanes grouped by rank
// and process, one search index per nesting level, colour indices per interned name, flow
// lookups and the legend. The widget (timeline_view.h) only walks these.
#include "model/store/session.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace npuscope {

// The slices of one track at one nesting depth, in start order. At one depth slices rarely
// overlap, so ends are (almost) sorted too: the first slice reaching into a window is found by
// binary search on the end, or on a prefix max of ends when a partial overlap broke the order.
struct LaneLevel {
    bool flat = true;                 // true: rows are [begin, end) of the track's slice range
    std::uint32_t begin = 0, end = 0;
    std::vector<std::uint32_t> rows;  // slice rows when !flat
    std::vector<TimeNs> maxEnd;       // prefix max of effective ends; empty when ends are sorted

    std::size_t size() const { return flat ? end - begin : rows.size(); }
    std::uint32_t row(std::size_t k) const { return flat ? begin + static_cast<std::uint32_t>(k) : rows[k]; }
};

struct Lane {
    int rank = 0;          // index into Session::ranks
    TrackId track;
    TrackKind kind = TrackKind::Other;
    QString name;          // "Stream 2", "Thread 1234", "Free"
    int group = 0;         // index into TimelineLayout::groups (the process group)
    std::vector<LaneLevel> levels; // maxDepth + 1 levels
    // The rank's "Idle causes" lane (idle_lane.h): no track (`track` is invalid), one empty
    // level; the view draws the causal model's gaps in it.
    bool idleCauses = false;
};

struct LaneGroup {
    int rank = 0;
    bool rankHeader = false; // true: "Rank 0 / NPU 0" header of all groups of the rank
    QString title;
    std::vector<int> lanes;  // process groups: lane indices
    std::vector<int> children; // rank headers: group indices
    bool collapsed = false;
};

struct LegendEntry {
    QString key;
    int color = 0;
    TimeNs total = 0;
};

class TimelineLayout {
public:
    void build(const SessionPtr& session);
    // Adds rank `rank`'s "Idle causes" group and lane after its Overlap Analysis group (at the
    // end when it has none); the lane index, or the existing one.
    int addIdleLane(int rank);
    int idleLane(int rank) const; // -1 when none
    const SessionPtr& session() const { return m_session; }

    std::vector<Lane> lanes;
    std::vector<LaneGroup> groups;          // rank headers and process groups, in display order
    std::vector<std::vector<int>> trackLane;// [rank][track] -> lane index or -1
    std::vector<std::vector<std::uint8_t>> nameColor; // [rank][NameId] -> palette index
    std::vector<LegendEntry> legend;        // device-task keys by total time, top first

    // (slice row, flow index) of rank `rank`, sorted by slice, for both endpoints of every flow;
    // built when first asked for (a selected task's flows), not on the way to the first frame.
    const std::vector<std::pair<std::uint32_t, std::uint32_t>>& flowIndex(int rank) const;

    // Effective end: instants count as 1 ns so they are found and drawn.
    static TimeNs effEnd(const Profile& p, std::uint32_t row)
    {
        const TimeNs d = p.slices.dur[row];
        return p.slices.start[row] + (d > 0 ? d : 1);
    }
    // Positions [lo, hi) of `level` that may intersect [t0, t1).
    static std::pair<std::size_t, std::size_t> candidates(const Profile& p, const LaneLevel& level, TimeNs t0, TimeNs t1);
    // Count of slices of `level` that really intersect [t0, t1).
    static std::size_t countIntersecting(const Profile& p, const LaneLevel& level, TimeNs t0, TimeNs t1);
    // First position >= from whose start is >= t (a galloping search within [from, hi)).
    static std::size_t firstStartingAtOrAfter(const Profile& p, const LaneLevel& level, std::size_t from,
                                              std::size_t hi, TimeNs t);

    std::uint8_t colorOf(int rank, std::uint32_t row) const;
    // The key the colour came from: OP Type of the joined kernel row, else the slice name.
    std::string_view colorKey(int rank, std::uint32_t row) const;
    static NameId colorKeyId(const Profile& p, std::uint32_t row); // the string colorKey names

private:
    SessionPtr m_session;
    std::shared_ptr<const void> m_paletteClaim; // the legend keys' colours (palette.h), while this layout shows them
    mutable std::vector<std::optional<std::vector<std::pair<std::uint32_t, std::uint32_t>>>> m_flowIndex; // [rank]
};

} // namespace npuscope
