// GitHub-flavoured Markdown report for tickets: no images.
#include "advisor/report_common.h"

#include "model/store/safe_text.h"

#include <algorithm>
#include <cctype>

namespace npuscope::advisor {

namespace {

std::string cell(const std::string& s) { return text::markdownCell(s); }

// One fired finding under a heading of level `h`: cost, description, suggestions, gain, the
// first `rows` evidence rows.
std::string findingMarkdown(const Finding& fd, const AdvisorReport& r, std::size_t rows, const char* h)
{
    const Finding* f = &fd;
    std::string s;
    s += std::string(h) + " [" + std::string(severityName(f->severity)) + "] " + cell(f->title) + "\n\n";
    s += "`" + f->id + "` · cost " + fmtMs(static_cast<double>(f->costNs)) + "/step (" + fmtPct(f->costShare)
         + " of step)" + scopeTail(*f) + "\n\n";
    s += f->description + "\n\n";
    for (std::size_t i = 0; i < f->suggestions.size(); ++i)
        s += std::to_string(i + 1) + ". " + f->suggestions[i] + "\n";
    s += "\n**Gain:** " + f->gain.text() + "\n\n";
    if (!f->evidence.empty()) {
        s += "| Where | Metrics | Threshold |\n|-|-|-|\n";
        for (std::size_t i = 0; i < f->evidence.size() && i < rows; ++i) {
            const auto& e = f->evidence[i];
            s += "| " + cell(e.at.text(r.traceStart)) + " | " + cell(metricsText(e)) + " | " + cell(e.threshold) + " |\n";
        }
        if (f->evidence.size() > rows)
            s += "\n+" + std::to_string(f->evidence.size() - rows) + " more\n";
        s += "\n";
    }
    if (!f->inputs.empty())
        s += "Inputs: " + cell(f->inputs.front()) + "\n\n";
    return s;
}

} // namespace

std::string writeMarkdown(const AdvisorReport& r)
{
    std::string s;
    const auto& id = r.identity;
    const auto& sm = r.summary;
    s += "# npuscope advisor report: " + cell(id.name) + "\n\n";
    s += "- Path: `" + id.path + "`\n";
    s += "- " + identityLine(id) + "\n";
    s += "- npuscope " + id.npuscopeVersion + "\n\n";
    if (!r.inputProblems.empty()) {
        s += "> **" + incompleteInputHeadline(r) + "**\n>\n";
        for (const auto& p : r.inputProblems)
            s += "> - " + cell(describe(p)) + "\n";
        s += "\n";
    }
    s += "## Action plan\n\n";
    const auto plan = planLines(r);
    for (std::size_t i = 0; i < plan.size(); ++i)
        s += std::to_string(i + 1) + ". " + cell(plan[i]) + "\n";
    s += plan.empty() ? "No action with an estimated gain.\n\n" : "\n" + cell(planFormula(r)) + "\n\n";
    s += "## Summary\n\n" + stepsText(sm) + "\n\n";
    s += "| Rank | Step | Computing | Comm (not overlapped) | Free |\n|-|-|-|-|-|\n";
    for (const auto& rs : sm.ranks) {
        const double T = rs.T() > 0 ? rs.T() : 1;
        const double comp = static_cast<double>(rs.split.computing), comm = static_cast<double>(rs.split.commNotOverlapped),
                     free = static_cast<double>(rs.split.free);
        s += "| " + rankLabel(rs.rank) + " | " + fmtMs(rs.T()) + " | " + fmtMs(comp) + " (" + fmtPct(comp / T) + ") | "
             + fmtMs(comm) + " (" + fmtPct(comm / T) + ") | " + fmtMs(free) + " (" + fmtPct(free / T) + ") |\n";
    }
    s += "\n" + countsText(sm) + "\n\n";
    if (sm.fired == 0)
        s += "**No findings**: " + noFindingsReason(sm) + ".\n\n";
    if (!sm.topGains.empty()) {
        s += "Top gains:\n\n";
        for (std::size_t i = 0; i < sm.topGains.size(); ++i)
            if (const Finding* f = findingById(r, sm.topGains[i]))
                s += std::to_string(i + 1) + ". " + cell(topGainLine(*f)) + "\n";
        s += "\n";
    }
    const std::size_t rows = static_cast<std::size_t>(std::max(0, r.evidenceRowsMd));
    for (Category c : kCategories) {
        const auto fs = firedIn(r, c);
        if (fs.empty())
            continue;
        s += "## " + std::string(categoryTitle(c)) + "\n\n";
        for (const Finding* f : fs)
            s += findingMarkdown(*f, r, rows, "###");
    }
    const auto minor = minorFindings(r);
    if (!minor.empty()) {
        s += "## Minor (below min_share " + fmtPct(r.minShare) + " of the step)\n\n";
        for (const Finding* f : minor)
            s += findingMarkdown(*f, r, rows, "###");
    }
    const auto nc = r.withStatus(Status::NotChecked);
    if (!nc.empty()) {
        s += "## Not checked\n\n";
        for (const Finding* f : nc)
            s += "- `" + f->rule + "`" + (f->scope.ranks.empty() ? "" : " (" + f->scope.text() + ")") + ": " + f->needs + "\n";
        s += "\n";
    }
    const auto ps = r.withStatus(Status::Passed);
    if (!ps.empty()) {
        s += "## Passed\n\n";
        for (const Finding* f : ps)
            s += "- `" + f->rule + "`: " + f->check + "\n";
        s += "\n";
    }
    const auto ds = r.withStatus(Status::Disabled);
    for (const Finding* f : ds)
        s += "- `" + f->rule + "`: disabled\n";
    for (const Finding* f : r.withStatus(Status::Error))
        s += "- `" + f->rule + "`: error: " + f->error + "\n";
    s += "\n## Appendix\n\nThresholds: `" + r.thresholdsSource + "`\n\n";
    if (r.overrides.empty())
        s += "Threshold overrides: none\n";
    else {
        s += "| Threshold | Value | Default | From |\n|-|-|-|-|\n";
        for (const auto& o : r.overrides)
            s += "| `" + o.key + "` | " + cell(o.value) + " | " + cell(o.defaultValue) + " | " + cell(o.origin) + " |\n";
    }
    for (const auto& w : r.warnings)
        s += "\n> warning: " + w + "\n";
    return text::plainText(s);
}

} // namespace npuscope::advisor
