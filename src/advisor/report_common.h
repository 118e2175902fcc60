#pragma once
// Formatting shared by the report writers (internal).
#include "advisor/advisor.h"

#include <string>
#include <vector>

namespace npuscope::advisor {

std::string metricsText(const Evidence& e);           // "mac ratio 0.35 · mte2 ratio 0.86"
std::string identityLine(const ReportIdentity& id);   // "layout torch_npu · ranks 0,1 · SoC ..."
std::string splitText(const RankSplit& r);            // "Computing 12.3 ms (80.1 %) [MatMul 5.0 ms, ...] · ..."
std::string stepsText(const Summary& s);              // "T = 15.3 ms (step_trace_time.csv, 5 steps; min/median/max ...)"
std::string countsText(const Summary& s);             // findingsHeadline + " · 5 not checked · 14 passed"
// Why nothing fired: "every checked rule passed", or that no rule could be checked at all.
std::string noFindingsReason(const Summary& s);
// The plan's actions as lines: "Fuse it with its producer … (CMP-CUBE-MEMBOUND/MatMulV2): 3.20 ms/step (12.7 %)".
std::vector<std::string> planLines(const AdvisorReport& r);
// "plan action 2", "not in the plan: its device tasks are already claimed by action 1 (…)", or
// empty for a finding without an estimated gain.
std::string planStatus(const Finding& f);
// A top gain: "title (id): 3.20 ms/step (12.7 %) · plan action 2" (or why it is not in the plan).
std::string topGainLine(const Finding& f);
// " · rank 0 · plan action 2": the finding's scope and its action in the plan, each after " · ",
// the parts it lacks left out (empty when it has neither).
std::string scopeTail(const Finding& f);
std::string rankLabel(int rank);                      // "rank 0" or "profile"
const char* categoryTitle(Category c);                // "Computation"
// "Incomplete input: 2 files were read in part or not at all; ..." (empty when input is complete)
std::string incompleteInputHeadline(const AdvisorReport& r);
// The fired findings of one category outside the minor group, in report order.
std::vector<const Finding*> firedIn(const AdvisorReport& r, Category c);
// The minor group: findings whose condition holds below min_share of the step, in report order.
std::vector<const Finding*> minorFindings(const AdvisorReport& r);
const Finding* findingById(const AdvisorReport& r, const std::string& id);
inline constexpr Category kCategories[] = {Category::Computation, Category::Communication, Category::Scheduling,
                                           Category::Memory, Category::Cluster};

} // namespace npuscope::advisor
