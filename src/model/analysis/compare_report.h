#pragma once
// The compare report as text: what `npuscope compare` prints and the GUI's Compare tab exports.
// Headline (metric, unit, baseline, optimized, delta, ratio, better, verdict) then the operator
// diff, in one of the formats table | csv | json | markdown.
#include "model/analysis/compare.h"
#include "model/analysis/text_table.h"

#include <cstddef>
#include <string>

namespace npuscope {

// "improved", "regressed", "same" (a change of less than `sameWithin` of the larger value) or ""
// when a side is missing.
std::string headlineVerdict(const HeadlineRow& h, double sameWithin = kSameWithin);
// The same for an operator's time per step (its totals when the row has no per-step times): a
// faster operator is improved; one only in the optimized run that replaced baseline operators
// (OpDiffRow::replacement) is "new".
std::string opVerdict(const OpDiffRow& d, double sameWithin = kSameWithin);
// "both", "baseline only" or "optimized only".
std::string presenceText(const OpDiffRow& d);

// One line on the operator mapping: aligned steps, mapped stream pairs, rows of each kind.
std::string mappingNote(const OpMapping& m);
// The operator mapping (kind, baseline ops, optimized ops, shapes, per step, ms per step before and
// after, delta, ratio and its 95 % interval, verdict); `top` limits the rows that are not
// replacements (0 = all).
text::Table mappingTable(const CompareResult& r, std::size_t top = 0);
// The steps side by side (step_diff.h): one row per aligned pair, the anchor pair marked, with
// both step times, the change of the step and of its computing / not overlapped / free split,
// and the three operator types whose time moved most.
text::Table stepPairsTable(const CompareResult& r);
// "baseline ProfilerStep#5 aligned with optimized ProfilerStep#3 (the median step of each); 3 pairs"
std::string stepAlignmentNote(const CompareResult& r);
// The advisor diff: finding id, fixed / remaining / new, title, category, severities, costs.
text::Table advisorTable(const CompareResult& r);
// The advice checked against the optimized run (advisor/advice_check.h): per finding its status
// (fixed, partly, remaining, new), title, predicted gain, what it covers and that time per step
// before and after, and the realised change (ms). Empty without r.adviceChecked.
text::Table adviceCheckTable(const CompareResult& r);
// "plan: estimated step after 11.35 ms (baseline T 52.10 ms); measured optimized step 18.02 ms;
// 5 fixed, 1 partly, 3 remaining, 2 new", or "" without r.adviceChecked.
std::string adviceCheckNote(const CompareResult& r);
// The headline metrics (metric, unit, baseline, optimized, delta, ratio, which is better, verdict).
text::Table headlineTable(const CompareResult& r);
// "Operator times per step: baseline 11 steps (inside the steps' spans), optimized 21 steps (…);
// the verdict is per step", or the same for the whole run.
std::string operatorStepsNote(const CompareResult& r);
// The operators by change in r.opTimes (counts, counts per step, ms per step or ms of the whole
// run, delta, ratio, mean µs, presence, verdict); `allColumns` gives both kinds of times
// (*_ms_per_step with ratio_per_step, and *_ms with ratio). `top` limits the rows (0 = all).
text::Table operatorsTable(const CompareResult& r, std::size_t top = 0, bool allColumns = false);

// `top` limits the operator rows (0 = all). Verdicts use r.sameWithin. JSON and CSV carry the
// operators' times both per step and over the whole run, the other formats those of r.opTimes. Unknown formats render as
// the aligned table.
std::string formatCompareReport(const CompareResult& r, const std::string& baselinePath,
                                const std::string& optimizedPath, const std::string& format, std::size_t top = 0);

} // namespace npuscope
