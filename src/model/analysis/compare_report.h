#pragma once
// The compare report as text: what `npuscope compare` prints and the GUI's Compare tab exports.
// Headline (metric, unit, baseline, optimized, delta, ratio, better, verdict) then the operator
// diff, in one of the formats table | csv | json | markdown.
#include "model/analysis/compare.h"

#include <cstddef>
#include <string>

namespace npuscope {

// A change of less than this share of the larger value is run-to-run noise: "same".
inline constexpr double kSameWithin = 0.01;
// "improved", "regressed", "same" (within kSameWithin) or "" when a side is missing.
std::string headlineVerdict(const HeadlineRow& h);
// "both", "baseline only" or "optimized only".
std::string presenceText(const OpDiffRow& d);

// `top` limits the operator rows (0 = all). Unknown formats render as the aligned table.
std::string formatCompareReport(const CompareResult& r, const std::string& baselinePath,
                                const std::string& optimizedPath, const std::string& format, std::size_t top = 0);

} // namespace npuscope
