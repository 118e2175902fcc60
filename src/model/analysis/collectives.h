#pragma once
// Who made the others wait at each collective, and why (docs/CLUSTER.md "Late ranks").
//
// An instance is one collective of a group (clock_align.h's matching: same lane, same sequence
// index on every rank). A rank's arrival is the start of its collective on the device, in
// aligned time; the last arriver made every other rank wait (last arrival − its arrival).
//
// The reason: the collective's previous instance in the group ended at the same instant on
// every rank (or, for the first, the rank's step began), so what the late rank L did between
// then and its arrival took longer than what the earliest rank E did in its own such window.
// Both windows are compared: the device tasks summed by name (an op that ran longer on L, or
// ran only on L), the device's idle time (L idle longer: the host was late; the longest host
// slice over L's idle gaps is named), and the window's start (L's previous collective or step
// ended later). The largest of these is the reason; the late rank's critical path between the
// earliest arrival and its own (critical_path.h) is added to it as the chain.
#include "model/analysis/clock_align.h"

#include <string>
#include <vector>

namespace npuscope {

inline constexpr TimeNs kLateMinSpreadNs = 10'000; // below: arrived together, no late rank named

struct Arrival {
    int rank = -1, rankIndex = -1;
    TimeNs arrival = 0; // aligned
    TimeNs end = 0;     // aligned
    TimeNs wait = 0;    // last arrival − arrival
    std::uint32_t slice = kNone;
};

enum class LateCause : std::uint8_t { None, LongerOp, ExtraOp, HostStall, DeviceIdle, LaterStart };
const char* lateCauseName(LateCause c); // "longer_op", "extra_op", "host_stall", "device_idle", "later_start", "none"

struct CollectiveInstance {
    std::string collective; // the op name on the first member ("hcom_allReduce__586_0_1")
    std::string group;
    int index = 0;                 // sequence index in the group
    std::string step;              // the step it falls in ("3" of ProfilerStep#3), or ""
    std::vector<Arrival> arrivals; // by rank
    int firstRank = -1, lastRank = -1, lastRankIndex = -1;
    TimeNs spread = 0;     // last − first arrival
    TimeNs waitCaused = 0; // Σ over the other ranks of their wait
    // The reason.
    LateCause cause = LateCause::None;
    std::string causeName;                  // the op or host slice
    TimeNs causeNs = 0;                     // its share of the lateness
    std::string reason;                     // "rank 1 arrived 5.6 ms late ← MatMulV2 ran 3.1 ms longer than on rank 0"
    std::string criticalPath;               // the late rank's critical path between the first arrival and its own
                                            // (critical_path.h): its two largest parts, "compute MatMulV2 3.10 ms, ..."
    std::vector<std::uint32_t> causeSlices; // the late rank's slice rows behind the reason
    TimeNs windowBegin = 0, windowEnd = 0;  // the late rank's window, its file time
};

struct RankWaitCaused {
    int rank = -1, rankIndex = -1;
    int lastCount = 0;     // instances it arrived last at (spread ≥ kLateMinSpreadNs)
    TimeNs waitCaused = 0; // Σ waitCaused of those
    double perStep = 0;    // ns per step
};

struct CollectivesResult {
    ClockAlignment clock;
    std::vector<CollectiveInstance> instances; // by group, then index
    std::vector<RankWaitCaused> ranks;         // by rank
    int steps = 1;                             // steps the instances fall in (at least 1)
    std::vector<std::string> problems;         // matching problems
};

CollectivesResult analyzeCollectives(const Session& s, const ClockOptions& o = {});

} // namespace npuscope
