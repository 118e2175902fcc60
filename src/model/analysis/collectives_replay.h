#pragma once
// The steps of a cluster replayed over its collective instances (docs/CLUSTER.md "Late ranks",
// "The replay"), and what removing a late rank's delays would save.
//
// Per rank and step, the timeline is cut at the rank's collective instances (collectives.h, in
// the order of its own arrivals, every group): the segment before an instance is the rank's local
// work from the end of its previous instance in the step (for the first, from its step's start)
// to its arrival, measured in aligned time; after its last instance, the tail runs to its step's
// end. A collective ends, on each rank, at the last arrival plus that rank's measured end − last
// arrival. Replayed with the measured segments, the replay gives back the measured arrivals,
// collective ends and step ends (the residual says by how much it does not).
//
// The counterfactual removes a late rank's delay at an instance it arrived last at: its segment
// before the instance is shortened by min(causeNs, its arrival − the second-last arrival), and by
// no more than the segment. The cause's share is what the reason measured on the late rank; the
// lateness over the second-last arrival is what the others can save at most, since the
// second-last rank then arrives last. Everything after the shortened segment shifts with the
// replay, on every rank. A step's end is the latest over its ranks of the last collective end
// plus the tail; the gain of a step is how much earlier that end comes. Steps are replayed each
// from its measured start (ProfilerStep#N spans; else one step over each rank's device work), so
// the gain of a late rank is the sum over the steps of the shortening of each, and its gain per
// step that sum over the steps.
#include "model/analysis/collectives.h"

#include <string>
#include <utility>
#include <vector>

namespace npuscope {

// One rank's part of a step: its instances by its own arrival, the local work before each, and
// its tail after the last.
struct ReplayLane {
    int rankIndex = -1;
    TimeNs begin = 0, end = 0;              // its step, aligned
    std::vector<std::pair<int, int>> order; // (instance of the step, arrival index) by arrival
    std::vector<TimeNs> segment;            // before each: arrival − previous end (or begin)
    TimeNs tail = 0;                        // end − its last collective's end (or begin)
};

struct ReplayStep {
    std::string step;           // as CollectiveInstance::step ("" when there are no steps)
    TimeNs begin = 0;           // aligned: the earliest of its ranks' starts
    TimeNs measuredEnd = 0;     // aligned: the latest of its ranks' ends
    TimeNs replayedEnd = 0;     // the same replayed with the measured segments
    std::vector<int> instances; // indices into CollectivesResult::instances, by last arrival
    std::vector<ReplayLane> lanes;
    std::vector<std::vector<std::pair<int, int>>> at; // per instance, per arrival: (lane, position)
};

struct RankReplayGain {
    int rank = -1;
    int removed = 0;           // instances whose delay was removed (those it arrived last at)
    TimeNs delayNs = 0;        // Σ of the removed delays
    TimeNs gainNs = 0;         // Σ over the steps of the shortening of each
    double perStep = 0;        // gainNs / CollectivesResult::steps
    TimeNs stepNs = 0;         // the mean measured step (end − begin)
    TimeNs replayedStepNs = 0; // the mean step replayed without the rank's delays
};

struct CollectivesReplay {
    std::vector<ReplayStep> steps;
    // The replay with the measured segments against the measurements: the largest difference of a
    // collective end (on any rank) or of a step end.
    TimeNs residualNs = 0;
    std::vector<RankReplayGain> ranks; // the ranks that arrived last at least once, by rank
    std::vector<std::string> problems; // what the replay could not follow (ranks ordering instances differently)
};

// The delay of `inst` the counterfactual removes: min(causeNs, its last − second-last arrival);
// 0 for an instance without a late rank, and for a later start (LateCause::LaterStart: the late
// rank's previous collective ended later, which the replay keeps; no work of its own is longer).
TimeNs removableDelay(const CollectiveInstance& inst);

// Replays the steps of `r` (analyzeCollectives of `s`) and, for each late rank, the steps
// without its delays.
CollectivesReplay replayCollectives(const Session& s, const CollectivesResult& r);

// The shortening, summed over the steps, when the delays of the instances `removed` (indices into
// r.instances) are taken out; `rp` is replayCollectives(s, r).
TimeNs replayGainWithout(const CollectivesResult& r, const CollectivesReplay& rp, const std::vector<int>& removed);

} // namespace npuscope
