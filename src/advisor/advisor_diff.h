#pragma once
// The advisor findings of a baseline and an optimized run matched by id: fixed (fired before,
// not after), remaining (fired in both, with its cost per step before and after) and new
// (fired only after). Only fired findings count; passed, disabled and not-checked rules are
// neither.
#include "advisor/advisor.h"
#include "model/analysis/compare.h"

#include <vector>

namespace npuscope::advisor {

// Fixed first, then remaining, then new; within each by cost (before for fixed and remaining,
// after for new), descending, then id.
std::vector<AdvisorDiffRow> diffFindings(const AdvisorReport& baseline, const AdvisorReport& optimized);

} // namespace npuscope::advisor
