#pragma once
// CLU-LATE's finding from its numbers (rules_cluster_late.cpp): the rule on the rank folders and
// the advice on a cluster summary (cluster_summary_advice.cpp) both go through it, so both give
// the same finding.
#include "advisor/rule_context.h"
#include "model/cluster_summary/summary_late.h"

namespace npuscope::advisor {

// Fires one finding per rank holding the others ≥ min_share of T per step, else passes (or is
// not checked, with late.needs). `T` is the median of the ranks' own step times.
void lateRankFinding(const cluster_summary::LateSummary& late, double T, double minShare, RuleOut& out);

} // namespace npuscope::advisor
