#pragma once
// The Performance Advisor: every rule of ADVISOR.md over a loaded Session. No Qt; runs on any
// thread; cancellable between rules.
#include "advisor/finding.h"
#include "advisor/roofline.h"
#include "advisor/thresholds.h"
#include "model/analysis/rank_facts.h"
#include "model/store/input_problems.h"
#include "model/store/session.h"

#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace npuscope::advisor {

struct ReportIdentity {
    std::string name;            // profile (folder) name
    std::string path;            // what was opened
    std::string layout;
    std::vector<int> ranks;
    std::string soc;             // chip, when known
    std::string cannVersion, torchNpuVersion;
    std::string captureTime;     // from the folder name or profiler info, when known
    std::string profilerLevel;
    std::string npuscopeVersion;
};

// One rank's step, averaged over its steps (ns per step).
struct RankSplit {
    int rank = -1;
    double T = 0;
    double computing = 0, commNotOverlapped = 0, free = 0;
    std::vector<SplitPart> computingParts; // FA, Conv, MatMul, Vector, SDMA, other
    std::vector<SplitPart> commParts;      // wait, transmit
    std::string source;                    // "step_trace_time.csv", "timeline (ProfilerStep#)", "timeline (E2E)"
    int steps = 0;
    double stepMin = 0, stepMedian = 0, stepMax = 0;
};

struct Summary {
    double T = 0;                 // step time used for every share (ns), mean over ranks
    std::string tSource;
    int steps = 0;
    double stepMin = 0, stepMedian = 0, stepMax = 0;
    std::vector<RankSplit> ranks;
    int high = 0, medium = 0, low = 0; // fired findings outside the minor group
    int minor = 0;                     // fired below min_share (counted in `fired` too)
    int fired = 0, passed = 0, notChecked = 0, disabled = 0, errors = 0;
    std::vector<std::string> topGains; // ids of the (up to) 3 fired findings with the largest gain
};

// One action of the plan (ADVISOR.md §3b): a finding to act on, with the gain it has on the
// device time the earlier actions leave.
struct PlanItem {
    std::string findingId;
    std::string title;   // the finding's title
    std::string action;  // what to do first: the finding's first suggestion
    Gain gain;           // on what the earlier actions leave; the plan's gains add up
    std::size_t tasks = 0;               // device tasks this action claims (none claimed before)
    std::vector<std::uint64_t> claimed;  // their keys (rank facts index << 40 | task index), or its pool
};

struct AdvisorReport {
    int schemaVersion = 1;
    ReportIdentity identity;
    double T = 0;
    Summary summary;
    // The 3–7 actions to do first, in order; T − Σ gains is the estimated step after them.
    std::vector<PlanItem> plan;
    double planStepNs = 0; // T − Σ plan gains (an estimate)
    // One roofline per rank: its roofs, and a point per op type and shape (costliest first).
    std::vector<RooflineRoofs> roofs;
    std::vector<RooflinePoint> roofline;
    std::vector<Finding> findings; // fired first (by category, severity, gain), then not checked, passed, disabled, error
    std::vector<std::string> warnings;
    std::vector<std::string> inputs;               // appendix: files read (path, kind, records)
    std::vector<InputProblem> inputProblems;       // files read in part or not at all: shown first
    std::vector<Thresholds::Override> overrides;   // appendix: non-default thresholds
    std::string thresholdsSource;
    std::string thresholdsDigest; // the effective thresholds (compact JSON) the report was computed with
    int evidenceRowsPdf = 10, evidenceRowsMd = 5;
    double minShare = 0.01; // below it a fired finding is minor
    bool cancelled = false;
    // The trace start (earliest begin of any rank with a time span), as the GUI measures from:
    // the text, Markdown, HTML and PDF reports write evidence times relative to it ("at
    // 47.483 ms"); JSON keeps the absolute timestamps.
    std::optional<TimeNs> traceStart;

    std::vector<const Finding*> fired() const;
    std::vector<const Finding*> withStatus(Status s) const;
};

AdvisorReport runAdvisor(const Session& session, const Thresholds& thresholds,
                         const std::atomic<bool>* cancel = nullptr);

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

// Formatting shared by the writers.
std::string fmtMs(double ns);        // "18.20 ms"
std::string fmtPct(double share);    // "6.1 %"
std::string fmtNum(double v, int decimals = 2);

} // namespace npuscope::advisor
