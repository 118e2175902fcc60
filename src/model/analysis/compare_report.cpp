#include "model/analysis/compare_report.h"

#include "model/analysis/text_table.h"
#include "model/analysis/units.h"
#include "model/store/safe_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace npuscope {

std::string headlineVerdict(const HeadlineRow& h, double sameWithin)
{
    if (std::isnan(h.baseline) || std::isnan(h.current))
        return {};
    if (std::abs(h.current - h.baseline) <= sameWithin * std::max(std::abs(h.baseline), std::abs(h.current)))
        return "same";
    if (h.ci.valid() && h.ci.low <= 1.0 && h.ci.high >= 1.0)
        return "same"; // within the step-to-step spread
    return h.improved() ? "improved" : "regressed";
}

std::string opVerdict(const OpDiffRow& d, double sameWithin)
{
    if (d.replacement)
        return "new";
    // Per step when known: whole-run totals of runs of different lengths are not comparable.
    const double b = d.baselineNs(OpTimes::PerStep), c = d.currentNs(OpTimes::PerStep);
    if (std::abs(c - b) <= sameWithin * std::max(std::abs(b), std::abs(c)))
        return "same";
    return c < b ? "improved" : "regressed";
}

std::string presenceText(const OpDiffRow& d)
{
    return d.inBaseline && d.inCurrent ? "both" : (d.inBaseline ? "baseline only" : "optimized only");
}


std::string mappingNote(const OpMapping& m)
{
    char buf[300];
    std::snprintf(buf, sizeof buf,
                  "%d aligned steps (%d baseline, %d optimized), %d of %d stream pairs mapped, from the %s; "
                  "%zu replaced, %zu changed, %zu unchanged, %zu removed, %zu added; times per step",
                  m.steps, m.baselineSteps, m.optimizedSteps, m.mappedStreamPairs, m.streamPairs,
                  m.source.empty() ? "kernel table" : m.source.c_str(), m.count(MappingKind::Replaced),
                  m.count(MappingKind::Changed), m.count(MappingKind::Unchanged), m.count(MappingKind::Removed),
                  m.count(MappingKind::Added));
    return buf;
}

text::Table mappingTable(const CompareResult& r, std::size_t top)
{
    using text::fixed;
    text::Table t;
    t.addColumn("mapping", false);
    t.addColumn("baseline_ops", false);
    t.addColumn("optimized_ops", false);
    t.addColumn("input_shapes", false);
    t.addColumn("per_step", true);
    t.addColumn("baseline_ms_per_step", true);
    t.addColumn("optimized_ms_per_step", true);
    t.addColumn("delta_ms", true);
    t.addColumn("ratio", true);
    t.addColumn("ratio_ci_low", true);
    t.addColumn("ratio_ci_high", true);
    t.addColumn("verdict", false);
    const OpMapping& m = r.mapping;
    std::size_t plain = 0;
    for (const OpMappingRow& row : m.rows) {
        // `top` limits the plain rows (changed, unchanged, removed, added); replacements all show.
        if (top > 0 && row.kind != MappingKind::Replaced && plain++ >= top)
            continue;
        const double perStep = m.steps > 0 ? static_cast<double>(row.occurrences) / m.steps : kNaN;
        const double ratio = row.beforeNs > 0 ? row.afterNs / row.beforeNs : kNaN;
        t.rows.push_back({mappingKindName(row.kind), row.baseline, row.optimized, row.shapes, fixed(perStep, 2),
                          fixed(row.beforeNs / 1e6, 6), fixed(row.afterNs / 1e6, 6),
                          fixed((row.afterNs - row.beforeNs) / 1e6, 6), fixed(ratio, 4), fixed(row.ci.low, 4),
                          fixed(row.ci.high, 4), row.verdict});
    }
    return t;
}

text::Table advisorTable(const CompareResult& r)
{
    text::Table t;
    t.addColumn("finding", false);
    t.addColumn("change", false);
    t.addColumn("title", false);
    t.addColumn("category", false);
    t.addColumn("severity_before", false);
    t.addColumn("severity_after", false);
    t.addColumn("cost_before_ms", true);
    t.addColumn("cost_after_ms", true);
    for (const AdvisorDiffRow& a : r.advisor) {
        const bool before = a.change != FindingChange::New, after = a.change != FindingChange::Fixed;
        t.rows.push_back({a.id, findingChangeName(a.change), a.title, a.category, a.severityBefore, a.severityAfter,
                          before ? nsToMillisText(a.costBefore) : "", after ? nsToMillisText(a.costAfter) : ""});
    }
    return t;
}

text::Table adviceCheckTable(const CompareResult& r)
{
    using text::fixed;
    text::Table t;
    t.addColumn("finding", false);
    t.addColumn("status", false);
    t.addColumn("title", false);
    t.addColumn("predicted_gain_ms", true);
    t.addColumn("covered", false);
    t.addColumn("covered_before_ms", true);
    t.addColumn("covered_after_ms", true);
    t.addColumn("realised_ms", true);
    if (!r.adviceChecked)
        return t;
    for (const AdvisorDiffRow& a : r.advisor)
        t.rows.push_back({a.id, a.status, a.title, fixed(a.predictedGainNs / 1e6, 3), a.covered,
                          fixed(a.coveredBeforeNs / 1e6, 3), fixed(a.coveredAfterNs / 1e6, 3),
                          fixed(a.realisedNs / 1e6, 3)});
    return t;
}

std::string adviceCheckNote(const CompareResult& r)
{
    if (!r.adviceChecked)
        return {};
    auto ms = [](double ns) { return std::isnan(ns) ? std::string("unknown") : text::fixed(ns / 1e6, 3) + " ms"; };
    std::map<std::string, int> n;
    for (const AdvisorDiffRow& a : r.advisor)
        ++n[a.status];
    std::string s = "plan's estimated step after " + (std::isnan(r.planStepNs) ? std::string("unknown (no plan)") : ms(r.planStepNs))
                    + " (baseline T " + ms(r.baselineStepNs) + "); measured optimized step T " + ms(r.measuredStepNs);
    if (!std::isnan(r.planStepNs) && !std::isnan(r.measuredStepNs))
        s += " (" + std::string(r.measuredStepNs <= r.planStepNs ? "at or below" : "above") + " the plan by "
             + ms(std::abs(r.measuredStepNs - r.planStepNs)) + ")";
    return s + "; " + std::to_string(n["fixed"]) + " fixed, " + std::to_string(n["partly"]) + " partly, "
           + std::to_string(n["remaining"]) + " remaining, " + std::to_string(n["new"]) + " new";
}

text::Table stepPairsTable(const CompareResult& r)
{
    using text::fixed;
    text::Table t;
    t.addColumn("baseline_step", false);
    t.addColumn("optimized_step", false);
    t.addColumn("aligned", false);
    t.addColumn("baseline_ms", true);
    t.addColumn("optimized_ms", true);
    t.addColumn("delta_ms", true);
    t.addColumn("computing_delta_ms", true);
    t.addColumn("not_overlapped_delta_ms", true);
    t.addColumn("free_delta_ms", true);
    t.addColumn("most_moved", false);
    for (const StepPair& p : r.stepPairs) {
        const StepSpan& a = r.baselineSpans[static_cast<std::size_t>(p.baseline)];
        const StepSpan& b = r.currentSpans[static_cast<std::size_t>(p.optimized)];
        std::string moved;
        for (std::size_t i = 0, n = 0; i < p.ops.size() && n < 3; ++i) {
            if (p.ops[i].delta() == 0)
                break;
            moved += (n++ ? "; " : "") + p.ops[i].type + " " + (p.ops[i].delta() > 0 ? "+" : "")
                     + nsToMillisText(p.ops[i].delta());
        }
        t.rows.push_back({a.step, b.step, p.baseline == r.baselineAnchor ? "yes" : "", nsToMillisText(a.duration()),
                          nsToMillisText(b.duration()), nsToMillisText(p.stepDelta), nsToMillisText(p.computingDelta),
                          nsToMillisText(p.commDelta), nsToMillisText(p.freeDelta), moved});
    }
    return t;
}

std::string stepAlignmentNote(const CompareResult& r)
{
    if (r.baselineAnchor < 0 || r.currentAnchor < 0) {
        const std::string side = r.baselineSpans.empty() && r.currentSpans.empty() ? "either run"
                                 : r.baselineSpans.empty()                         ? "the baseline"
                                                                                   : "the optimized run";
        return "no steps to align: " + side
               + " has no step spans (no device tasks, or a cluster summary whose steps come from "
                 "step_trace_time, which keeps no times)";
    }
    return "baseline " + r.baselineSpans[static_cast<std::size_t>(r.baselineAnchor)].step + " aligned with optimized "
           + r.currentSpans[static_cast<std::size_t>(r.currentAnchor)].step + " (the median step of each); "
           + std::to_string(r.stepPairs.size()) + " step pair" + (r.stepPairs.size() == 1 ? "" : "s")
           + ", times from the device tasks of the first rank";
}

text::Table headlineTable(const CompareResult& r)
{
    using text::fixed;
    text::Table head;
    head.addColumn("metric", false);
    head.addColumn("unit", false);
    head.addColumn("baseline", true);
    head.addColumn("optimized", true);
    head.addColumn("delta", true);
    head.addColumn("ratio", true);
    head.addColumn("better", false);
    head.addColumn("verdict", false);
    for (const HeadlineRow& h : r.headline) {
        const int digits = h.unit == "ms" ? 6 : 4;
        head.rows.push_back({h.metric, h.unit, fixed(h.baseline, digits), fixed(h.current, digits),
                             fixed(h.delta, digits), fixed(h.ratio, 4), h.better == Better::Lower ? "lower" : "higher",
                             headlineVerdict(h, r.sameWithin)});
    }

    return head;
}

std::string operatorStepsNote(const CompareResult& r)
{
    auto side = [](int steps, const std::string& basis) {
        return std::to_string(steps) + (steps == 1 ? " step" : " steps") + (basis.empty() ? "" : " (" + basis + ")");
    };
    const std::string steps = "baseline " + side(r.baselineOpSteps, r.baselineOpBasis) + ", optimized "
                              + side(r.currentOpSteps, r.currentOpBasis);
    return r.opTimes == OpTimes::PerStep ? "Operator times per step: " + steps + "; the verdict is per step"
                                         : "Operator times over the whole run; the verdict is per step: " + steps;
}

text::Table operatorsTable(const CompareResult& r, std::size_t top, bool allColumns)
{
    using text::fixed;
    const bool perStep = allColumns || r.opTimes == OpTimes::PerStep;
    const bool whole = allColumns || r.opTimes == OpTimes::WholeRun;
    text::Table ops;
    ops.addColumn("operator_name", false);
    ops.addColumn("baseline_count", true);
    ops.addColumn("optimized_count", true);
    if (perStep) {
        for (const char* c : {"baseline_per_step", "optimized_per_step", "baseline_ms_per_step", "optimized_ms_per_step",
                              "delta_ms_per_step", allColumns ? "ratio_per_step" : "ratio"})
            ops.addColumn(c, true);
    }
    if (whole) {
        for (const char* c : {"baseline_ms", "optimized_ms", "delta_ms", "ratio"})
            ops.addColumn(c, true);
    }
    ops.addColumn("baseline_avg_us", true);
    ops.addColumn("optimized_avg_us", true);
    ops.addColumn("present", false);
    ops.addColumn("verdict", false);
    std::size_t n = 0;
    for (const OpDiffRow& d : r.ops) {
        if (top > 0 && n++ >= top)
            break;
        std::vector<std::string> row{d.key, std::to_string(d.baselineCount), std::to_string(d.currentCount)};
        if (perStep) {
            const double b = d.baselineNs(OpTimes::PerStep), c = d.currentNs(OpTimes::PerStep);
            for (std::string v : {fixed(d.baselineCountPerStep, 2), fixed(d.currentCountPerStep, 2), fixed(b / 1e6, 6),
                                  fixed(c / 1e6, 6), fixed((c - b) / 1e6, 6), fixed(d.ratioOf(OpTimes::PerStep), 4)})
                row.push_back(std::move(v));
        }
        if (whole) {
            for (std::string v : {nsToMillisText(d.baselineTotal), nsToMillisText(d.currentTotal), nsToMillisText(d.delta),
                                  fixed(d.ratio, 4)})
                row.push_back(std::move(v));
        }
        for (std::string v : {fixed(d.baselineAvgNs / 1000.0, 3), fixed(d.currentAvgNs / 1000.0, 3), presenceText(d),
                              opVerdict(d, r.sameWithin)})
            row.push_back(std::move(v));
        ops.rows.push_back(std::move(row));
    }

    return ops;
}

namespace {

// ", "validation": [{"id", "title", "status", "predicted_gain_ns", "realised_ns", ...}],
// "plan_step_ns": …, "measured_step_ns": …" (null for an unknown number).
std::string validationJson(const CompareResult& r)
{
    auto num = [](double v) { return std::isnan(v) ? nlohmann::ordered_json() : nlohmann::ordered_json(v); };
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const AdvisorDiffRow& a : r.advisor) {
        nlohmann::ordered_json j;
        j["id"] = a.id;
        j["title"] = a.title;
        j["status"] = a.status;
        j["predicted_gain_ns"] = num(a.predictedGainNs);
        j["realised_ns"] = num(a.realisedNs);
        j["covered"] = a.covered;
        j["covered_before_ns"] = num(a.coveredBeforeNs);
        j["covered_after_ns"] = num(a.coveredAfterNs);
        j["covered_grew"] = a.grew;
        rows.push_back(std::move(j));
    }
    return ",\n\"validation\": " + text::dumpJson(rows) + ",\n\"plan_step_ns\": " + text::dumpJson(num(r.planStepNs))
           + ", \"measured_step_ns\": " + text::dumpJson(num(r.measuredStepNs)) + ", \"baseline_step_ns\": "
           + text::dumpJson(num(r.baselineStepNs)) + ", \"validation_note\": " + text::jsonString(adviceCheckNote(r));
}

} // namespace

std::string formatCompareReport(const CompareResult& r, const std::string& baselinePath,
                                const std::string& optimizedPath, const std::string& format, std::size_t top)
{
    using text::fixed;
    const text::Table head = headlineTable(r);
    // JSON and CSV are read by programs: both kinds of operator times, whatever is shown.
    const text::Table ops = operatorsTable(r, top, format == "json" || format == "csv");
    const std::string opNote = operatorStepsNote(r);
    const text::Table map = mappingTable(r, top);
    const text::Table adv = advisorTable(r);
    const text::Table check = adviceCheckTable(r);
    const std::string checkNote = adviceCheckNote(r);
    const text::Table steps = stepPairsTable(r);
    const std::string stepNote = stepAlignmentNote(r);
    const std::string speedup = std::isnan(r.speedup) ? "" : fixed(r.speedup, 3);
    char bandText[32];
    std::snprintf(bandText, sizeof bandText, "%g", r.sameWithin * 100.0); // 1, 2.5
    const std::string band = bandText;
    // Files read in part or not at all, on either side: first in every format.
    std::vector<std::string> problems;
    nlohmann::ordered_json problemsJson = nlohmann::ordered_json::array();
    for (const auto* side : {&r.baselineProblems, &r.currentProblems}) {
        const char* name = side == &r.baselineProblems ? "baseline" : "optimized";
        for (auto j : toJson(*side)) {
            j["side"] = name;
            problemsJson.push_back(std::move(j));
        }
        for (const auto& p : *side)
            problems.push_back(std::string(name) + ": " + describe(p));
    }
    const std::string incomplete = incompleteInputHeadline(problems.size());
    const std::string verdict = r.verdictText();
    const std::string mapNote = mappingNote(r.mapping);
    if (format == "json") {
        const RatioInterval& ci = r.stepRatio;
        auto num = [](double v, int d) { return std::isnan(v) ? std::string("null") : fixed(v, d); };
        return "{\"baseline\": " + text::jsonString(baselinePath) + ", \"optimized\": " + text::jsonString(optimizedPath)
               + ", \"speedup\": " + (speedup.empty() ? "null" : speedup) + ", \"same_within_pct\": " + band
               + ",\n\"input_problems\": " + text::dumpJson(problemsJson)
               + ",\n\"verdict\": " + text::jsonString(verdict) + ", \"step_ratio\": " + num(ci.ratio, 6)
               + ", \"step_ratio_ci95\": [" + num(ci.low, 6) + ", " + num(ci.high, 6) + "], \"baseline_steps\": "
               + std::to_string(ci.baselineSteps) + ", \"optimized_steps\": " + std::to_string(ci.optimizedSteps)
               + ",\n\"headline\": " + head.toJson() + ",\n\"operator_times\": "
               + text::jsonString(r.opTimes == OpTimes::PerStep ? "per_step" : "whole_run")
               + ", \"operator_steps\": {\"baseline\": " + std::to_string(r.baselineOpSteps) + ", \"optimized\": "
               + std::to_string(r.currentOpSteps) + ", \"baseline_basis\": " + text::jsonString(r.baselineOpBasis)
               + ", \"optimized_basis\": " + text::jsonString(r.currentOpBasis) + "}, \"operators\": " + ops.toJson()
               + ",\n\"step_alignment\": " + text::jsonString(stepNote) + ", \"step_pairs\": " + steps.toJson()
               + ",\n\"mapping_steps\": " + std::to_string(r.mapping.steps) + ", \"mapping\": " + map.toJson()
               + ",\n\"advisor_compared\": " + (r.advisorCompared ? "true" : "false") + ", \"advisor\": " + adv.toJson()
               + (r.adviceChecked ? validationJson(r) : std::string()) + "}\n";
    }
    if (format == "markdown") {
        std::string box;
        if (!incomplete.empty()) {
            box = "> **" + incomplete + "**\n>\n";
            for (const auto& p : problems)
                box += "> - " + text::markdownCell(p) + "\n";
            box += "\n";
        }
        return box + "## Headline\n\nBaseline `" + text::markdownCell(baselinePath) + "`, optimized `"
               + text::markdownCell(optimizedPath) + "`"
               + (speedup.empty() ? "" : ", speedup " + speedup + "×") + "; a change under " + band
               + " % is the same.\n\n" + (verdict.empty() ? "" : "Optimized is " + verdict + ".\n\n") + head.toMarkdown()
               + "\n## Steps side by side\n\n" + text::markdownCell(stepNote) + "\n\n" + steps.toMarkdown()
               + "\n## Operators\n\n" + text::markdownCell(opNote) + ".\n\n" + ops.toMarkdown() + "\n## Operator mapping\n\n" + mapNote + "\n\n"
               + map.toMarkdown() + (r.advisorCompared ? "\n## Advisor findings\n\n" + adv.toMarkdown() : "")
               + (r.adviceChecked ? "\n## Advice checked\n\n" + text::markdownCell(checkNote) + ".\n\n" + check.toMarkdown() : "");
    }
    if (format == "csv") {
        // Spreadsheets read one table a line; the problems go first as a table of their own.
        std::string box;
        if (!problems.empty()) {
            text::Table t;
            t.addColumn("incomplete_input", false);
            for (const auto& p : problems)
                t.rows.push_back({p});
            box = t.toCsv() + "\n";
        }
        return box + head.toCsv() + "\n" + steps.toCsv() + "\n" + ops.toCsv() + "\n" + map.toCsv() + (r.advisorCompared ? "\n" + adv.toCsv() : "")
               + (r.adviceChecked ? "\n" + check.toCsv() : "");
    }
    std::string box;
    if (!incomplete.empty()) {
        box = "!! " + incomplete + "\n";
        for (const auto& p : problems)
            box += "!!   " + p + "\n";
        box += "\n";
    }
    return text::plainText(box) + "Baseline:  " + text::forTerminal(baselinePath) + "\nOptimized: "
           + text::forTerminal(optimizedPath) + "\n"
           + (speedup.empty() ? "" : "Speedup:   " + speedup + "x\n") + (verdict.empty() ? "" : "Verdict:   " + verdict + "\n")
           + "Same:      a change under " + band + " %\n\n" + head.toText() + "\nSteps side by side: "
           + text::plainText(stepNote) + "\n" + steps.toText() + "\n" + text::plainText(opNote) + "\n" + ops.toText() + "\nOperator mapping: "
           + text::plainText(mapNote) + "\n" + map.toText() + (r.advisorCompared ? "\nAdvisor findings\n" + adv.toText() : "")
           + (r.adviceChecked ? "\nAdvice checked: " + text::plainText(checkNote) + "\n" + check.toText() : "");
}

} // namespace npuscope
