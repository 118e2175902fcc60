// Self-contained HTML report: inline CSS and SVG, no external URL; evidence collapsible; rows
// link npuscope:// so the app can jump to them. writeHtmlBody() is shared with the PDF writer.
#include "advisor/report_common.h"

#include "model/store/safe_text.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>

namespace npuscope::advisor {

namespace {

std::string esc(const std::string& s) { return text::htmlEscape(s); }

std::string sevBadge(FindingSeverity s)
{
    std::string label = severityName(s);
    for (auto& ch : label)
        ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return "<span class=\"sev\" style=\"background:" + std::string(severityColour(s)) + "\"><font color=\"#ffffff\" "
           "style=\"background-color:" + severityColour(s) + "\">&nbsp;" + label + "&nbsp;</font></span>";
}

// `caption`, when given, is the table's first header row: a PDF page break then never leaves it
// alone at the bottom of a page (the header rows go with the first data row, and repeat on the
// next page when the table is cut).
std::string evidenceTable(const Finding& f, std::size_t maxRows, bool links, std::optional<TimeNs> origin,
                          const std::string& caption = {})
{
    std::string s = "<table class=\"ev\" border=\"1\" cellspacing=\"0\" cellpadding=\"3\" width=\"100%\"><thead>";
    if (!caption.empty())
        s += "<tr><th colspan=\"3\" align=\"left\">" + caption + "</th></tr>";
    s += "<tr><th>Where</th><th>Metrics</th><th>Threshold</th></tr></thead>";
    for (std::size_t i = 0; i < f.evidence.size() && i < maxRows; ++i) {
        const auto& e = f.evidence[i];
        const std::string url = e.at.url();
        const std::string where = links && !url.empty() ? "<a href=\"" + esc(url) + "\">" + esc(e.at.text(origin)) + "</a>"
                                                        : esc(e.at.text(origin));
        s += "<tr><td>" + where + "</td><td>" + esc(metricsText(e)) + "</td><td>" + esc(e.threshold) + "</td></tr>";
    }
    s += "</table>";
    if (f.evidence.size() > maxRows)
        s += "<p class=\"more\">+" + std::to_string(f.evidence.size() - maxRows) + " more</p>";
    return s;
}

// One fired finding: severity badge and title, cost, description, suggestions, gain, evidence.
std::string findingHtml(const Finding& fd, const AdvisorReport& r, const HtmlOptions& o, std::size_t rows)
{
    const Finding* f = &fd;
    std::string s;
    s += "<div class=\"finding\"><h3>" + sevBadge(f->severity) + " " + esc(f->title) + "</h3>";
    s += "<p class=\"meta\"><code>" + esc(f->id) + "</code> · severity " + severityName(f->severity) + " · cost "
         + fmtMs(static_cast<double>(f->costNs)) + "/step (" + fmtPct(f->costShare) + " of step)"
         + esc(scopeTail(*f)) + "</p>";
    s += "<p>" + esc(f->description) + "</p><ol>";
    for (const auto& sg : f->suggestions)
        s += "<li>" + esc(sg) + "</li>";
    s += "</ol><p><b>Gain:</b> " + esc(f->gain.text()) + "</p>";
    if (!f->evidence.empty()) {
        if (o.forPdf)
            s += evidenceTable(*f, rows, false, r.traceStart, "Evidence (" + std::to_string(f->evidence.size()) + " rows)");
        else
            s += "<details><summary>Evidence (" + std::to_string(f->evidence.size()) + " rows)</summary>"
                 + evidenceTable(*f, rows, true, r.traceStart) + "</details>";
    }
    for (const auto& in : f->inputs)
        s += "<p class=\"in\">Input: " + esc(in) + "</p>";
    s += "</div>";
    return s;
}

} // namespace

std::string writeHtmlBody(const AdvisorReport& r, const HtmlOptions& o)
{
    const auto& id = r.identity;
    const auto& sm = r.summary;
    std::string s;
    if (!o.forPdf) {
        s += "<h1>npuscope advisor report: " + esc(id.name) + "</h1>";
        s += "<p class=\"id\">" + esc(id.path) + "<br>" + esc(identityLine(id)) + "<br>npuscope " + esc(id.npuscopeVersion)
             + "</p>";
    }
    if (!r.inputProblems.empty()) {
        s += "<table class=\"incomplete\" border=\"1\" cellspacing=\"0\" cellpadding=\"6\" width=\"100%\">"
             "<tr><td bgcolor=\"#fff3cd\"><b>"
             + esc(incompleteInputHeadline(r)) + "</b><ul>";
        for (const auto& p : r.inputProblems)
            s += "<li>" + esc(describe(p)) + "</li>";
        s += "</ul></td></tr></table>";
    }
    s += "<h2>Action plan</h2>";
    const auto plan = planLines(r);
    if (plan.empty())
        s += "<p>No action with an estimated gain.</p>";
    else {
        s += "<ol class=\"plan\">";
        for (const auto& line : plan)
            s += "<li>" + esc(line) + "</li>";
        s += "</ol><p>" + esc(planFormula(r)) + "</p>";
    }
    s += "<h2>Summary</h2><p>" + esc(stepsText(sm)) + "</p>";
    s += "<table class=\"sum\" border=\"1\" cellspacing=\"0\" cellpadding=\"3\"><tr><th>Rank</th><th>Step</th>"
         "<th>Computing</th><th>Comm (not overlapped)</th><th>Free</th><th>Computing split</th></tr>";
    for (const auto& rs : sm.ranks) {
        const double T = rs.T() > 0 ? rs.T() : 1;
        const double comp = static_cast<double>(rs.split.computing), comm = static_cast<double>(rs.split.commNotOverlapped),
                     free = static_cast<double>(rs.split.free);
        std::string parts;
        for (const auto& p : rs.computingParts)
            if (p.ns > 0)
                parts += (parts.empty() ? "" : ", ") + p.name + " " + fmtMs(p.ns);
        s += "<tr><td>" + esc(rankLabel(rs.rank)) + "</td><td>" + fmtMs(rs.T()) + "</td><td>" + fmtMs(comp) + " ("
             + fmtPct(comp / T) + ")</td><td>" + fmtMs(comm) + " (" + fmtPct(comm / T) + ")</td><td>" + fmtMs(free) + " ("
             + fmtPct(free / T) + ")</td><td>" + esc(parts) + "</td></tr>";
    }
    s += "</table>";
    s += "<p>" + esc(countsText(sm)) + "</p>";
    if (sm.fired == 0)
        s += "<p><b>No findings</b>: " + esc(noFindingsReason(sm)) + ".</p>";
    if (!sm.topGains.empty()) {
        s += "<p>Top gains:</p><ol>";
        for (const auto& g : sm.topGains)
            if (const Finding* f = findingById(r, g))
                s += "<li>" + esc(topGainLine(*f)) + "</li>";
        s += "</ol>";
    }
    s += "<!--charts-->";
    const std::size_t rows = o.evidenceRows < 0 ? static_cast<std::size_t>(-1) : static_cast<std::size_t>(o.evidenceRows);
    for (Category c : kCategories) {
        const auto fs = firedIn(r, c);
        if (fs.empty())
            continue;
        s += "<h2>" + esc(categoryTitle(c)) + "</h2>";
        for (const Finding* f : fs)
            s += findingHtml(*f, r, o, rows);
    }
    const auto minor = minorFindings(r);
    if (!minor.empty()) {
        const std::string head = "Minor (" + std::to_string(minor.size()) + ", below min_share " + fmtPct(r.minShare) + " of the step)";
        s += o.forPdf ? "<h2>" + esc(head) + "</h2>" : "<details class=\"minor\"><summary><b>" + esc(head) + "</b></summary>";
        for (const Finding* f : minor)
            s += findingHtml(*f, r, o, rows);
        if (!o.forPdf)
            s += "</details>";
    }
    const auto nc = r.withStatus(Status::NotChecked);
    if (!nc.empty()) {
        s += "<h2>Not checked</h2><ul>";
        for (const Finding* f : nc)
            s += "<li><code>" + esc(f->rule) + "</code>" + (f->scope.ranks.empty() ? "" : " (" + esc(f->scope.text()) + ")")
                 + ": " + esc(f->needs) + "</li>";
        s += "</ul>";
    }
    const auto ps = r.withStatus(Status::Passed);
    if (!ps.empty()) {
        s += "<h2>Passed</h2><ul>";
        for (const Finding* f : ps)
            s += "<li><code>" + esc(f->rule) + "</code>: " + esc(f->check) + "</li>";
        s += "</ul>";
    }
    const auto ds = r.withStatus(Status::Disabled);
    const auto es = r.withStatus(Status::Error);
    if (!ds.empty() || !es.empty()) {
        s += "<h2>Disabled and errors</h2><ul>";
        for (const Finding* f : ds)
            s += "<li><code>" + esc(f->rule) + "</code>: disabled</li>";
        for (const Finding* f : es)
            s += "<li><code>" + esc(f->rule) + "</code>: error: " + esc(f->error) + "</li>";
        s += "</ul>";
    }
    s += "<h2>Appendix</h2><p>Thresholds: " + esc(r.thresholdsSource) + "</p>";
    if (r.overrides.empty()) {
        s += "<p>Threshold overrides: none</p>";
    } else {
        s += "<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\"><tr><th>Threshold (overridden)</th><th>Value</th>"
             "<th>Default</th><th>From</th></tr>";
        for (const auto& ov : r.overrides)
            s += "<tr><td>" + esc(ov.key) + "</td><td>" + esc(ov.value) + "</td><td>" + esc(ov.defaultValue) + "</td><td>"
                 + esc(ov.origin) + "</td></tr>";
        s += "</table>";
    }
    if (!r.warnings.empty()) {
        s += "<ul>";
        for (const auto& w : r.warnings)
            s += "<li>warning: " + esc(w) + "</li>";
        s += "</ul>";
    }
    if (!r.inputs.empty()) {
        s += "<p>Inputs:</p><ul>";
        for (const auto& in : r.inputs)
            s += "<li>" + esc(in) + "</li>";
        s += "</ul>";
    }
    return s;
}

namespace {

std::string splitChartSvg(const AdvisorReport& r)
{
    const auto& ranks = r.summary.ranks;
    const int rowH = 22, left = 70, width = 520;
    const int h = static_cast<int>(ranks.size()) * rowH + 40;
    std::string s = "<svg width=\"" + std::to_string(left + width + 20) + "\" height=\""
                    + std::to_string(h) + "\" role=\"img\" aria-label=\"E2E split per rank\">";
    double maxT = 0;
    for (const auto& rs : ranks)
        maxT = std::max(maxT, static_cast<double>(rs.split.computing + rs.split.commNotOverlapped + rs.split.free));
    int y = 4;
    for (const auto& rs : ranks) {
        s += "<text x=\"0\" y=\"" + std::to_string(y + 14) + "\" font-size=\"12\">" + esc(rankLabel(rs.rank)) + "</text>";
        double x = left;
        const double parts[3] = {static_cast<double>(rs.split.computing), static_cast<double>(rs.split.commNotOverlapped),
                                 static_cast<double>(rs.split.free)};
        const char* colours[3] = {"#4e79a7", "#e15759", "#bab0ac"};
        for (int i = 0; i < 3; ++i) {
            const double w = maxT > 0 ? parts[i] / maxT * width : 0;
            s += "<rect x=\"" + fmtNum(x, 1) + "\" y=\"" + std::to_string(y) + "\" width=\"" + fmtNum(w, 1)
                 + "\" height=\"16\" fill=\"" + colours[i] + "\"/>";
            x += w;
        }
        y += rowH;
    }
    s += "<rect x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(y + 4) + "\" width=\"10\" height=\"10\" fill=\"#4e79a7\"/>"
         "<text x=\"" + std::to_string(left + 14) + "\" y=\"" + std::to_string(y + 13) + "\" font-size=\"11\">Computing</text>"
         "<rect x=\"" + std::to_string(left + 90) + "\" y=\"" + std::to_string(y + 4) + "\" width=\"10\" height=\"10\" fill=\"#e15759\"/>"
         "<text x=\"" + std::to_string(left + 104) + "\" y=\"" + std::to_string(y + 13) + "\" font-size=\"11\">Comm (not overlapped)</text>"
         "<rect x=\"" + std::to_string(left + 250) + "\" y=\"" + std::to_string(y + 4) + "\" width=\"10\" height=\"10\" fill=\"#bab0ac\"/>"
         "<text x=\"" + std::to_string(left + 264) + "\" y=\"" + std::to_string(y + 13) + "\" font-size=\"11\">Free</text>";
    s += "</svg>";
    return s;
}

std::string gainChartSvg(const AdvisorReport& r)
{
    const std::vector<const Finding*> fs = topGains(r, 10);
    if (fs.empty())
        return "<p>No estimated gains.</p>";
    const int rowH = 20, left = 260, width = 300;
    std::string s = "<svg width=\"" + std::to_string(left + width + 150) + "\" height=\""
                    + std::to_string(static_cast<int>(fs.size()) * rowH + 8) + "\" role=\"img\" aria-label=\"Top gains\">";
    const double mx = fs.front()->gain.nsPerStep;
    int y = 4;
    for (const Finding* f : fs) {
        std::string label = f->id;
        if (label.size() > 40)
            label = label.substr(0, 38) + "…";
        const double w = mx > 0 ? f->gain.nsPerStep / mx * width : 0;
        s += "<text x=\"0\" y=\"" + std::to_string(y + 12) + "\" font-size=\"11\">" + esc(label) + "</text>";
        s += "<rect x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(y) + "\" width=\"" + fmtNum(w, 1)
             + "\" height=\"14\" fill=\"" + severityColour(f->severity) + "\"/>";
        s += "<text x=\"" + fmtNum(left + w + 4, 1) + "\" y=\"" + std::to_string(y + 12) + "\" font-size=\"11\">"
             + fmtMs(f->gain.nsPerStep) + " · " + severityName(f->severity) + "</text>";
        y += rowH;
    }
    s += "</svg>";
    return s;
}

} // namespace

std::string writeHtml(const AdvisorReport& r)
{
    std::string body = writeHtmlBody(r, HtmlOptions{false, -1});
    const std::string charts = "<h2>Step split per rank</h2>" + splitChartSvg(r) + "<h2>Top gains by severity</h2>"
                               + gainChartSvg(r);
    const auto pos = body.find("<!--charts-->");
    if (pos != std::string::npos)
        body.replace(pos, 13, charts);
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>npuscope advisor: " + esc(r.identity.name)
           + "</title><style>"
             "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}"
             "h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:1.5em}h3{font-size:1.05em;margin:.4em 0}"
             ".sev{color:#fff;border-radius:3px;padding:1px 6px;font-size:.8em;font-weight:bold}"
             ".finding{border-left:4px solid #ddd;padding:.2em .8em;margin:1em 0}"
             "table{border-collapse:collapse;font-size:.85em}th{background:#f2f2f2;text-align:left}"
             "td,th{border:1px solid #ddd;padding:3px 6px}.meta,.in,.id{color:#555;font-size:.85em}"
             "summary{cursor:pointer;color:#345}a{color:#2a5d9f}code{background:#f4f4f4;padding:0 3px}"
             "</style></head><body>\n"
           + body + "\n</body></html>\n";
}

} // namespace npuscope::advisor
