#include "model/analysis/compare_report.h"

#include "model/analysis/text_table.h"
#include "model/analysis/units.h"
#include "model/store/safe_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace npuscope {

std::string headlineVerdict(const HeadlineRow& h, double sameWithin)
{
    if (std::isnan(h.baseline) || std::isnan(h.current))
        return {};
    if (std::abs(h.current - h.baseline) <= sameWithin * std::max(std::abs(h.baseline), std::abs(h.current)))
        return "same";
    return h.improved() ? "improved" : "regressed";
}

std::string opVerdict(const OpDiffRow& d, double sameWithin)
{
    const double larger = static_cast<double>(std::max(d.baselineTotal, d.currentTotal));
    if (std::abs(static_cast<double>(d.delta)) <= sameWithin * larger)
        return "same";
    return d.delta < 0 ? "improved" : "regressed";
}

std::string presenceText(const OpDiffRow& d)
{
    return d.inBaseline && d.inCurrent ? "both" : (d.inBaseline ? "baseline only" : "optimized only");
}

std::string formatCompareReport(const CompareResult& r, const std::string& baselinePath,
                                const std::string& optimizedPath, const std::string& format, std::size_t top)
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

    text::Table ops;
    ops.addColumn("operator_name", false);
    ops.addColumn("baseline_count", true);
    ops.addColumn("optimized_count", true);
    ops.addColumn("baseline_ms", true);
    ops.addColumn("optimized_ms", true);
    ops.addColumn("delta_ms", true);
    ops.addColumn("ratio", true);
    ops.addColumn("baseline_avg_us", true);
    ops.addColumn("optimized_avg_us", true);
    ops.addColumn("present", false);
    ops.addColumn("verdict", false);
    std::size_t n = 0;
    for (const OpDiffRow& d : r.ops) {
        if (top > 0 && n++ >= top)
            break;
        ops.rows.push_back({d.key, std::to_string(d.baselineCount), std::to_string(d.currentCount),
                            nsToMillisText(d.baselineTotal), nsToMillisText(d.currentTotal), nsToMillisText(d.delta),
                            fixed(d.ratio, 4), fixed(d.baselineAvgNs / 1000.0, 3), fixed(d.currentAvgNs / 1000.0, 3),
                            presenceText(d), opVerdict(d, r.sameWithin)});
    }

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
    std::string incomplete;
    if (!problems.empty())
        incomplete = "Incomplete input: " + std::to_string(problems.size())
                     + " file(s) read in part or not at all; the numbers cover only what was read.";
    if (format == "json")
        return "{\"baseline\": " + text::jsonString(baselinePath) + ", \"optimized\": " + text::jsonString(optimizedPath)
               + ", \"speedup\": " + (speedup.empty() ? "null" : speedup) + ", \"same_within_pct\": " + band
               + ",\n\"input_problems\": " + text::dumpJson(problemsJson)
               + ",\n\"headline\": " + head.toJson() + ",\"operators\": " + ops.toJson() + "}\n";
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
               + " % is the same.\n\n" + head.toMarkdown() + "\n## Operators\n\n" + ops.toMarkdown();
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
        return box + head.toCsv() + "\n" + ops.toCsv();
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
           + (speedup.empty() ? "" : "Speedup:   " + speedup + "x\n") + "Same:      a change under " + band + " %\n\n"
           + head.toText() + "\n" + ops.toText();
}

} // namespace npuscope
