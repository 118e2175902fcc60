#pragma once
// What CLU-LATE reads of a cluster summary (docs/CLUSTER-SUMMARY.md "late" and "collectives"):
// per rank the wait it caused on the others at the collectives it arrived last at, their count,
// and its top instances with their reasons, computed when the summary is written from the rank
// folders' timelines with aligned clocks (model/analysis/collectives.h), with what a replay of the
// steps without the rank's delays saves (model/analysis/collectives_replay.h). The advisor turns
// these numbers into the finding, on the folders and on a summary alike.
#include "model/analysis/collectives.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace npuscope::cluster_summary {

// Instances the finding written into a summary shows (as many evidence rows as a stored cluster
// finding keeps), and the few a rank's "late" keeps in the file (its size per rank stays small).
inline constexpr std::size_t kLateTopInstances = 20;
inline constexpr std::size_t kLateKeptInstances = 3;

struct LateInstance {
    std::string collective, group, step, reason;
    int index = 0;
    TimeNs spread = 0, waitCaused = 0, causeNs = 0;
    TimeNs windowEnd = 0; // the late rank's arrival, its file time
};

struct LateRank {
    int rank = -1;
    int lastCount = 0;             // instances it arrived last at (spread ≥ kLateMinSpreadNs)
    TimeNs waitCaused = 0;         // Σ over those of the others' wait
    TimeNs held = 0;               // Σ over those of the arrival spread
    std::vector<LateInstance> top; // the largest spreads first (instance order on ties)
    LateInstance worst;            // the instance of the largest wait caused (the first on ties)
    // The replay without the rank's delays (collectives_replay.h); a summary written before it
    // has none (replayed false), and the finding falls back to the held time.
    bool replayed = false;
    TimeNs replayGainNs = 0;   // Σ over the steps of the shortening of each
    TimeNs stepNs = 0;         // the mean measured step
    TimeNs replayedStepNs = 0; // the mean step replayed without the rank's delays
};

struct LateSummary {
    bool checked = false;
    std::string needs;               // why not, when not checked
    int steps = 1;                   // steps the instances fall in (at least 1)
    std::size_t instances = 0;       // collective instances shared by ≥ 2 ranks
    std::vector<std::string> inputs; // what was read, the clock's status, the matching problems
    std::vector<LateRank> ranks;     // the ranks that arrived last at least once, by rank
    TimeNs replayResidualNs = 0;     // the replay with the measured segments against the measurements
};

// From the analysis of the full folders `s` (r = analyzeCollectives(s)), each rank keeping its
// `top` largest instances, with its replayed gain.
LateSummary lateSummaryOf(const Session& s, const CollectivesResult& r, std::size_t top);

// Loads the summarised rank folders of `doc` together, analyses their collectives and writes
// doc["collectives"] and each late rank's "late" with its kLateKeptInstances largest instances
// (what the rank folders cannot give is said in doc["collectives"]["needs"]). Returns the
// numbers with kLateTopInstances per rank, for the finding written beside them.
LateSummary addLateRanks(nlohmann::json& doc);

// doc's late-rank numbers; false when the summary predates them (version 2 and older).
bool lateFromJson(const nlohmann::json& doc, LateSummary& out);

} // namespace npuscope::cluster_summary
