#pragma once
// The advisor's part of a cluster summary (docs/CLUSTER-SUMMARY.md): per rank, its step split
// and fired findings; over all ranks, the cluster analysis (breakdown, slow rank, slow link,
// communication matrix, every rank's COM-WAIT) and the cluster rules' findings.
#include "advisor/advisor.h"
#include "model/store/session.h"

#include <nlohmann/json.hpp>

namespace npuscope::advisor {

// {"advisor_split": {...}, "findings": [...]} for a Session of one rank folder.
nlohmann::json rankAdvice(const Session& rank, const Thresholds& th);

// The "cluster" section from the Session built of the gathered summaries
// (cluster_summary::sessionFromSummary).
nlohmann::json clusterSection(const Session& summarySession, const Thresholds& th);

// A finding as the summary stores it.
nlohmann::json findingJson(const Finding& f);

// The fired per-rank findings a summary stores, back as Findings (no evidence: the summary
// keeps the headline numbers only), merged with `report`'s own so a report on a summary holds
// the ranks' findings beside the cluster ones.
void addRankFindings(const nlohmann::json& summary, AdvisorReport& report);

} // namespace npuscope::advisor
