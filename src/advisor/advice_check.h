#pragma once
// The baseline's advice checked against the optimized run (`npuscope compare --validate-advice`
// and the Compare tab's "Advice checked" page). Each finding of the advisor diff (matched by its
// id, "RULE/subject") gets the time it covers in both runs, from the comparison's own numbers:
//  - an operator-level finding (computation and memory findings whose evidence names operators
//    of the comparison) covers those operators' time per step (OpDiffRow::baselineNsPerStep /
//    currentNsPerStep), with every operator of the replaced windows (the operator mapping's)
//    that held any of them, on both sides;
//  - any other finding covers a part of the median complete step (the headline's Computing,
//    Communication not overlapped or Free, of its category: communication, scheduling,
//    computation and memory; a cluster finding the whole step).
// realised = covered before − covered after. The status of a baseline finding:
//  - fixed: absent in the optimized run, or realised ≥ 80 % of its predicted gain;
//  - partly: still present and realised ≥ 20 % of the predicted gain;
//  - remaining: otherwise (also every present finding without an estimated gain);
// and a finding only in the optimized run is new.
#include "advisor/report.h"
#include "model/analysis/compare.h"
#include "model/store/session.h"

#include <string>
#include <vector>

namespace npuscope::advisor {

// Shares of the predicted gain the covered time must fall by: fixed, partly.
inline constexpr double kFixedShare = 0.8, kPartlyShare = 0.2;

// The status of one baseline finding by the rule above ("fixed", "partly", "remaining").
std::string adviceStatus(bool presentAfter, double predictedGainNs, double realisedNs);

// Fills the status, predicted gain and covered times of every row of r.advisor, which must be
// diffFindings(baseline, optimized), and r.planStepNs / measuredStepNs / baselineStepNs. The
// sessions (either may be null) resolve the operator names of the evidence to the comparison's
// keys (grouped by `groupBy`, as the comparison was).
void checkAdvice(CompareResult& r, const AdvisorReport& baseline, const AdvisorReport& optimized,
                 const Session* baselineSession, const Session* optimizedSession, GroupBy groupBy = GroupBy::Type);

// diffFindings and checkAdvice in one: sets r.advisor, r.advisorCompared and r.adviceChecked.
void compareAdvice(CompareResult& r, const AdvisorReport& baseline, const AdvisorReport& optimized,
                   const Session* baselineSession, const Session* optimizedSession, GroupBy groupBy = GroupBy::Type);

// Why the optimized run regressed (`--fail-if-regressed`): its step time is worse than the
// baseline's beyond the headline's noise band (the Step time row's verdict is "regressed"), or
// a baseline finding's covered time grew by more than r.sameWithin of the larger value. One
// sentence each; empty when neither.
std::vector<std::string> adviceRegressions(const CompareResult& r);

} // namespace npuscope::advisor
