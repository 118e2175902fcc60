#pragma once
// The advisor's part of a cluster summary (docs/CLUSTER-SUMMARY.md): per rank, its step split
// and fired findings; over all ranks, the cluster analysis (breakdown, slow rank, slow link,
// communication matrix, every rank's COM-WAIT) and the cluster rules' findings.
#include "advisor/advisor.h"
#include "model/store/session.h"

#include <nlohmann/json.hpp>

namespace npuscope::cluster_summary {
struct LateSummary;
}

namespace npuscope::advisor {

// {"advisor_split": {...}, "findings": [...]} for a Session of one rank folder.
nlohmann::json rankAdvice(const Session& rank, const Thresholds& th);

// The "cluster" section from the Session built of the gathered summaries
// (cluster_summary::sessionFromSummary). With `summary` (the gathered document), CLU-LATE is
// computed from the late-rank numbers `late` (cluster_summary::addLateRanks), else from those
// the document keeps.
nlohmann::json clusterSection(const Session& summarySession, const Thresholds& th, const nlohmann::json* summary = nullptr,
                              const cluster_summary::LateSummary* late = nullptr);

// A finding as the summary stores it: the headline (rank findings) or, with `detail`, also its
// description, suggestions, inputs, gain formula and first evidence rows (cluster findings).
nlohmann::json findingJson(const Finding& f, bool detail);
// The inverse of findingJson; `T` (the report's step time) gives the gain's share of the step.
Finding findingFromJson(const nlohmann::json& j, double T);

// The advisor's report on a cluster summary: runAdvisor on the Session built from it (identity,
// inputs, the step time), with the cluster rules' findings as the summary stored them (computed
// on every rank's communication ops when it was made) and the ranks' fired findings, merged by
// id and title. A warning says so when `th` differs from the thresholds the summary was made with.
AdvisorReport adviseSummary(const Session& summarySession, const nlohmann::json& summary, const Thresholds& th,
                            const std::atomic<bool>* cancel = nullptr);

// runAdvisor, or adviseSummary when `session` was read from a cluster summary (Session::source
// "summary"; its file is read again). Every report on a loaded session goes through here.
// `clock` (--clock, --clock-offset) reaches the rules of a folder's session; a summary's cluster
// findings stay as written (aligned), and the report says so when another clock was asked for.
AdvisorReport adviseSession(const Session& session, const Thresholds& th, const std::atomic<bool>* cancel = nullptr,
                            const ClockOptions* clock = nullptr);

} // namespace npuscope::advisor
