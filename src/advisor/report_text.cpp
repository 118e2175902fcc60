// Plain-text report (the CLI default).
#include "advisor/report_common.h"

#include "model/store/safe_text.h"

#include <algorithm>
#include <cctype>

namespace npuscope::advisor {

namespace {

// One fired finding: severity and title, cost, description, suggestions, gain, evidence rows.
std::string findingText(const Finding& fd, const AdvisorReport& r, std::size_t rows)
{
    const Finding* f = &fd;
    std::string s;
    std::string sev = severityName(f->severity);
    for (auto& ch : sev)
        ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    s += "\n[" + sev + "] " + f->title + "\n";
    s += "  id " + f->id + " · cost " + fmtMs(static_cast<double>(f->costNs)) + "/step (" + fmtPct(f->costShare)
         + " of step)" + scopeTail(*f) + "\n";
    s += "  " + f->description + "\n";
    for (std::size_t i = 0; i < f->suggestions.size(); ++i)
        s += "  " + std::to_string(i + 1) + ". " + f->suggestions[i] + "\n";
    s += "  gain: " + f->gain.text() + "\n";
    if (!f->evidence.empty()) {
        s += "  evidence (" + std::to_string(f->evidence.size()) + " rows):\n";
        for (std::size_t i = 0; i < f->evidence.size() && i < rows; ++i) {
            const auto& e = f->evidence[i];
            const std::string m = metricsText(e);
            s += "    - " + e.at.text(r.traceStart) + (m.empty() ? "" : " | " + m) + (e.threshold.empty() ? "" : " | " + e.threshold) + "\n";
        }
        if (f->evidence.size() > rows)
            s += "    +" + std::to_string(f->evidence.size() - rows) + " more\n";
    }
    for (const auto& in : f->inputs)
        s += "  input: " + in + "\n";
    return s;
}

} // namespace

std::string writeText(const AdvisorReport& r)
{
    std::string s;
    const auto& id = r.identity;
    const auto& sm = r.summary;
    s += "npuscope advisor report: " + id.name + "\n";
    s += "  path: " + id.path + "\n";
    s += "  " + identityLine(id) + "\n";
    s += "  npuscope " + id.npuscopeVersion + "\n\n";
    if (!r.inputProblems.empty()) {
        s += "!! " + incompleteInputHeadline(r) + "\n";
        for (const auto& p : r.inputProblems)
            s += "!!   " + describe(p) + "\n";
        s += "\n";
    }
    s += "Action plan\n";
    const auto plan = planLines(r);
    for (std::size_t i = 0; i < plan.size(); ++i)
        s += "  " + std::to_string(i + 1) + ". " + plan[i] + "\n";
    s += plan.empty() ? "  no action with an estimated gain\n\n" : "  " + planFormula(r) + "\n\n";
    s += "Summary\n";
    s += "  " + stepsText(sm) + "\n";
    for (const auto& rs : sm.ranks)
        s += "  " + rankLabel(rs.rank) + ": " + splitText(rs) + "\n";
    s += "  " + countsText(sm) + "\n";
    if (sm.fired == 0)
        s += "  no findings: " + noFindingsReason(sm) + "\n";
    for (std::size_t i = 0; i < sm.topGains.size(); ++i)
        if (const Finding* f = findingById(r, sm.topGains[i]))
            s += "  top gain " + std::to_string(i + 1) + ": " + topGainLine(*f) + "\n";
    const std::size_t rows = static_cast<std::size_t>(std::max(0, r.evidenceRowsMd));
    for (Category c : kCategories) {
        const auto fs = firedIn(r, c);
        if (fs.empty())
            continue;
        s += "\n== " + std::string(categoryTitle(c)) + " ==\n";
        for (const Finding* f : fs)
            s += findingText(*f, r, rows);
    }
    const auto minor = minorFindings(r);
    if (!minor.empty()) {
        s += "\n== Minor (below min_share " + fmtPct(r.minShare) + " of the step) ==\n";
        for (const Finding* f : minor)
            s += findingText(*f, r, rows);
    }
    auto section = [&](Status st, const char* title) {
        const auto fs = r.withStatus(st);
        if (fs.empty())
            return;
        s += "\n== " + std::string(title) + " ==\n";
        for (const Finding* f : fs) {
            std::string text = st == Status::NotChecked ? f->needs : (st == Status::Error ? f->error : f->check);
            s += "  " + f->rule + (f->scope.ranks.empty() ? "" : " (" + f->scope.text() + ")") + ": " + text + "\n";
        }
    };
    section(Status::NotChecked, "Not checked");
    section(Status::Passed, "Passed");
    section(Status::Disabled, "Disabled");
    section(Status::Error, "Errors");
    s += "\n== Appendix ==\n";
    s += "  thresholds: " + r.thresholdsSource + "\n";
    if (r.overrides.empty())
        s += "  threshold overrides: none\n";
    for (const auto& o : r.overrides)
        s += "  override " + o.key + " = " + o.value + " (default " + (o.defaultValue.empty() ? "none" : o.defaultValue)
             + (o.origin.empty() ? "" : ", from " + o.origin) + ")\n";
    for (const auto& w : r.warnings)
        s += "  warning: " + w + "\n";
    for (const auto& in : r.inputs)
        s += "  input: " + in + "\n";
    if (r.cancelled)
        s += "  the analysis was cancelled: the report is incomplete\n";
    return text::plainText(s);
}

} // namespace npuscope::advisor
