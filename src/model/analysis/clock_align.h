#pragma once
// The collectives of a cluster matched across ranks, and each rank's clock offset estimated from
// them (docs/CLUSTER.md "Clock alignment").
//
// Matching: a rank's collectives are the depth-0 slices of its CommGroup tracks (the
// "Group <g> Communication" lanes), else its communication device tasks (hcom_*) on its streams,
// as one group. A group is keyed by its lane name; its instances are matched across ranks by
// their sequence index in the group, never by time. A rank whose count in a group differs from
// the group's (the count most ranks have), or whose op at some index is another collective than
// the others', is reported by name and left out of that group.
//
// Offsets: a blocking collective ends at the same true instant on every participating rank, so
// the ends of the instances a rank shares with an already aligned rank q give offset(r) =
// offset(q) + median(end_r − end_q). The reference is the lowest rank of the largest group
// (offset 0); ranks reached only through other groups are chained through a rank of that group.
// The spread of an estimate is p95 − p5 of its residuals (end_r − end_q − median). An estimate
// is refused, and the rank kept at offset 0 with the reason, when the spread exceeds the
// threshold: min(1 ms, 10 % of the median collective duration of the instances used), but not
// under 5 µs (the exports' rounding). A rank sharing no collective with an aligned rank is not
// moved either. Aligned time = file time − offset.
#include "model/store/session.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace npuscope {

inline constexpr TimeNs kClockSpreadCapNs = 1'000'000; // 1 ms
inline constexpr double kClockSpreadShare = 0.10;      // of the median collective duration
inline constexpr TimeNs kClockSpreadFloorNs = 5'000;   // 5 µs

// One collective instance on one rank (file time).
struct RankCollective {
    TimeNs start = 0, end = 0;
    NameId name;
    std::uint32_t slice = kNone; // the slice row on the rank's timeline
};

struct GroupMember {
    int rank = -1, rankIndex = -1;   // rank id, index into Session::ranks
    std::vector<RankCollective> ops; // by sequence index
};

struct CollectiveGroup {
    std::string name;                 // the lane name ("Group 0 Communication"), or "communication tasks"
    std::vector<std::string> opNames; // by sequence index (the first member's names)
    std::vector<GroupMember> members; // by rank; every one has opNames.size() ops
};

struct CollectiveMatch {
    std::vector<CollectiveGroup> groups; // by name
    std::vector<std::string> problems;   // ranks left out of a group, and why
};

// One rank's collectives per group lane, the matching's input (a cluster summary keeps it per
// rank: model/cluster_summary/summary_clock.h).
struct RankCollectives {
    int rank = -1, rankIndex = -1;
    std::map<std::string, std::vector<RankCollective>> groups;
    std::map<std::string, std::vector<std::string>> names; // per group, the op names by index
};
RankCollectives rankCollectives(const Profile& p, int rankIndex);

CollectiveMatch matchCollectives(const Session& s);
CollectiveMatch matchCollectives(std::vector<RankCollectives> ranks);

struct RankClock {
    int rank = -1, rankIndex = -1;
    TimeNs offset = 0;      // aligned = file − offset
    bool estimated = false; // offset measured from the collectives (the reference too)
    bool manual = false;    // offset given by the user
    int shared = 0;         // instances the estimate used
    TimeNs spread = 0;      // p95 − p5 of the residuals
    TimeNs threshold = 0;   // the spread allowed
    int via = -1;           // the rank it was measured against
    std::string group;      // through which group
    std::string note;       // "reference", why it was not estimated, "manual"
};

struct ClockOptions {
    bool raw = false;                           // --clock raw: every offset 0
    std::vector<std::pair<int, TimeNs>> manual; // --clock-offset RANK=NS
};

struct ClockAlignment {
    int reference = -1;           // rank id
    std::vector<RankClock> ranks; // in Session::ranks order
    std::vector<std::string> problems;
    std::string status; // one line: what was done
    TimeNs offsetOfIndex(int rankIndex) const;
    TimeNs offsetOfRank(int rank) const;
};

ClockAlignment alignClocks(const Session& s, const CollectiveMatch& m, const ClockOptions& o = {});
ClockAlignment alignClocks(const Session& s, const ClockOptions& o = {});
// The same over ranks given by id (Session order = the order of `rankIds`, rankIndex its index).
ClockAlignment alignClocks(const std::vector<int>& rankIds, const CollectiveMatch& m, const ClockOptions& o = {});

// "RANK=NS" (NS an integer, may be negative, or with a unit: 5.6ms, -20us); false if malformed.
bool parseClockOffset(const std::string& text, int& rank, TimeNs& ns);

// p-th percentile (0..100) by linear interpolation of ascending-sorted values; 0 for none.
double percentileSorted(const std::vector<double>& sorted, double p);

} // namespace npuscope
