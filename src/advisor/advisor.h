#pragma once
// The Performance Advisor: every rule of ADVISOR.md over a loaded Session. No Qt; runs on any
// thread; cancellable between rules.
#include "advisor/report.h"
#include "advisor/thresholds.h"
#include "model/store/session.h"

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

namespace npuscope {
struct ClockOptions; // model/analysis/clock_align.h
} // namespace npuscope

namespace npuscope::advisor {

// `clock`: the ranks' clocks for the rules that compare them across ranks (CLU-LATE), as
// `--clock` / `--clock-offset` give them; null: aligned by the collectives.
AdvisorReport runAdvisor(const Session& session, const Thresholds& thresholds,
                         const std::atomic<bool>* cancel = nullptr, const ClockOptions* clock = nullptr);

struct RuleInfo {
    std::string id;
    Category category;
    std::string summary; // one line: what it checks
};
// Every rule, in report order.
std::vector<RuleInfo> ruleCatalog();

// Report writers (UTF-8 text). HTML is self-contained: inline CSS and SVG, no external URL.
// The fired findings with an estimated gain, largest gain first (ties in report order), at most
// `n`: the "top gains" chart of the HTML and PDF reports.
std::vector<const Finding*> topGains(const AdvisorReport& r, std::size_t n);

// "estimated step after the plan = T − Σ gains = 25.10 ms − 6.20 ms = 18.90 ms (an estimate: …)"
std::string planFormula(const AdvisorReport& r);

std::string writeText(const AdvisorReport& r);
std::string writeMarkdown(const AdvisorReport& r);
std::string writeJson(const AdvisorReport& r);
std::string writeHtml(const AdvisorReport& r);
// The HTML body pieces shared with the PDF writer (Qt rich text subset: no SVG, no <details>).
struct HtmlOptions {
    bool forPdf = false;     // tables instead of <details>, charts left to the caller
    int evidenceRows = -1;   // -1 = all
};
std::string writeHtmlBody(const AdvisorReport& r, const HtmlOptions& o);

// "22 findings: 13 high, 2 medium, 6 low, 1 minor": the parts add up to the total (the minor
// group, below min_share of the step, is counted apart from the low ones).
std::string findingsHeadline(const Summary& s);

} // namespace npuscope::advisor
