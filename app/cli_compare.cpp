// `npuscope compare BASELINE OPTIMIZED`: headline table (step time, throughput, utilisation,
// L2, HBM, exposed communication) and the per-operator diff; with --validate-advice the baseline's
// findings checked against the optimized run (advisor/advice_check.h).
#include "app/cli.h"
#include "app/cli_collectives.h"
#include "app/cli_table.h"
#include "app/qt_parts.h"

#include "advisor/advice_check.h"
#include "advisor/advisor.h"
#include "advisor/advisor_diff.h"
#include "advisor/cluster_summary_advice.h"
#include "model/analysis/compare.h"
#include "model/analysis/compare_report.h"
#include "model/cluster_summary/cluster_summary.h"
#include "model/formats/loader.h"
#include "model/io/memory_budget.h"
#include "model/store/safe_text.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

#include <unistd.h>

namespace npuscope::cli {

namespace {

const char* kHelp =
    "Usage: npuscope compare BASELINE OPTIMIZED [options]\n"
    "\n"
    "Compare two profiles: headline numbers (ratio = optimized / baseline, delta = optimized - baseline,\n"
    "with which direction is better), then every operator type's time per step, sorted by |delta|: its\n"
    "time inside the steps the step time is computed over, divided by their number (the run's total\n"
    "divided by the steps when they have no spans), so that runs of different lengths compare. A change\n"
    "of less than 1 % (--same-within) of the larger value is 'same', neither improved nor regressed, and\n"
    "so is a change inside the 95 % bootstrap interval of the per-step values; an operator's verdict is\n"
    "per step, and one only in the optimized run that replaced baseline operators is 'new'. JSON and CSV\n"
    "carry both the per-step and the whole-run times. Then the operator mapping\n"
    "(unchanged, changed, and replaced windows such as BatchMatMul->SoftmaxV2->BatchMatMul =>\n"
    "FlashAttentionScore, from a sequence diff of the per-step operators) and the advisor findings\n"
    "of both runs matched by id: fixed, remaining, new.\n"
    "Either side may be a cluster summary (npuscope cluster-summary): its slowest rank's steps, the op\n"
    "types of all ranks and the cluster and rank findings stand for the run; the operator mapping and\n"
    "the operator names need the folders and are left out.\n"
    "\n"
    "  --format F              table (default) | csv | json | markdown | html | pdf\n"
    "  --group-by G            type (default) | name\n"
    "  --top N                 operator rows (default 20, 0 = all)\n"
    "  --per-step              operator times per step (default)\n"
    "  --whole-run             operator times over the whole run (sorted by them; verdicts stay per step)\n"
    "  --tokens-per-step N     adds per-token latency\n"
    "  --peak-hbm-gbps X       peak HBM bandwidth (default: per chip, 1200)\n"
    "  --same-within PCT       a change under PCT % is 'same' (default 1; 0 to 50)\n"
    "  --no-advisor            skip the advisor diff (faster on large profiles)\n"
    "  --clock raw|aligned     the ranks' clocks of both runs for the advisor's cluster rules (CLU-LATE):\n"
    "                          each rank's own, or aligned by the ends of the collectives (default)\n"
    "  --clock-offset R=NS     rank R's clock offset in both runs (aligned = file time - NS; NS in ns or\n"
    "                          with a unit, e.g. 1=-5.6ms); repeatable; overrides the estimate\n"
    "  --validate-advice       check the baseline's findings against the optimized run: each one's\n"
    "                          status (fixed: absent, or the time it covers fell by >= 80 % of its\n"
    "                          predicted gain; partly: present and fell by >= 20 %; remaining:\n"
    "                          otherwise; new: only in the optimized run), its predicted gain beside\n"
    "                          the realised change of the time it covers (its operators' time per step,\n"
    "                          or its part of the median step: computing, communication not overlapped,\n"
    "                          free), and the plan's estimated step beside the measured one\n"
    "  --fail-if-regressed     exit 3 when the optimized step time is worse beyond the noise band\n"
    "                          (the Step time verdict is 'regressed') or a baseline finding's covered\n"
    "                          time grew beyond it\n"
    "  -o, --export FILE       write to FILE instead of stdout (atomically; required for pdf)\n"
    "  --no-cache              read the files, not the session cache, and do not write it\n"
    "Exit codes: 0 ok, 1 input problem, 2 usage, 3 regressed (--fail-if-regressed).\n";

int compareUsage(const std::string& msg)
{
    std::fprintf(stderr, "npuscope compare: %s\nTry 'npuscope compare --help'.\n", msg.c_str());
    return 2;
}

// One side: a loaded profile folder or a cluster summary (a Session of its cluster data).
SessionPtr load(const std::string& path, bool useCache)
{
    LoadOptions lo;
    const bool tty = ::isatty(2) == 1;
    if (tty)
        lo.progress = [](const LoadProgress& p) {
            std::fprintf(stderr, "\r\033[K%s %3.0f%%", p.stage.c_str(), p.fraction * 100.0);
        };
    LoadResult r = loadForVerb("compare", {path}, lo, useCache);
    if (tty)
        std::fputs("\r\033[K", stderr);
    if (!r.session || (r.session->ranks.empty() && !cluster_summary::isSummarySession(*r.session))) {
        printError("compare", !r.error.empty() ? r.error : path + ": no profile found");
        return nullptr;
    }
    warnInputProblems("compare", *r.session);
    return r.session;
}

// Writes the comparison in `format` to `exportPath` (stdout when empty or "-"; a PDF needs a
// file). Returns the exit code.
int writeComparison(const CompareResult& r, const std::string& baseline, const std::string& optimized,
                    const std::string& format, const std::string& exportPath, std::size_t top)
{
    if (format == "html" || format == "pdf")
        return writeDrawnComparison(r, baseline, optimized, format, exportPath);
    return writeOutput("compare", exportPath, formatCompareReport(r, baseline, optimized, format, top)) ? 0 : 1;
}

struct AdviceFlags {
    bool off = false;             // --no-advisor
    bool validate = false;        // --validate-advice
    bool failIfRegressed = false; // --fail-if-regressed
    ClockOptions clock;           // --clock, --clock-offset
};

// The advisor diff of both runs into r (unless --no-advisor) and, for --validate-advice or
// --fail-if-regressed, the baseline's advice checked against the optimized run
// (advisor/advice_check.h); only --validate-advice shows it. Returns why the optimized run
// regressed when --fail-if-regressed asks (empty otherwise).
std::vector<std::string> addAdvice(CompareResult& r, const Session& base, const Session& cur, GroupBy groupBy,
                                   const AdviceFlags& f)
{
    if (!f.off) {
        const advisor::Thresholds th = advisor::Thresholds::load();
        const advisor::AdvisorReport rb = advisor::adviseSession(base, th, nullptr, &f.clock),
                                     rc = advisor::adviseSession(cur, th, nullptr, &f.clock);
        if (f.validate || f.failIfRegressed) {
            advisor::compareAdvice(r, rb, rc, &base, &cur, groupBy);
        } else {
            r.advisor = advisor::diffFindings(rb, rc);
            r.advisorCompared = true;
        }
    }
    std::vector<std::string> regressed = f.failIfRegressed ? advisor::adviceRegressions(r) : std::vector<std::string>{};
    r.adviceChecked = r.adviceChecked && f.validate;
    return regressed;
}

// --fail-if-regressed: each reason on stderr; the exit code 3.
int reportRegressions(const std::vector<std::string>& reasons)
{
    for (const std::string& why : reasons)
        std::fprintf(stderr, "npuscope compare: regressed: %s\n", text::forTerminal(why).c_str());
    return 3;
}

// An option compare() does not read itself: --clock raw|aligned or --clock-offset RANK=NS (its
// value after '=' or next, through `take`), read by the parser `analyze` uses. "" when read,
// else the usage message (an unknown option's too).
std::string clockOrUnknown(const std::string& a, const std::function<bool(std::string&)>& take, ClockOptions& clock)
{
    const std::string flag = a.substr(0, a.find('='));
    if (flag != "--clock" && flag != "--clock-offset")
        return "unknown option '" + a + "'";
    std::string v;
    return take(v) ? parseClockOption(flag, v, clock) : flag + " needs a value";
}

} // namespace

int compare(const Args& args)
{
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            std::fputs(kHelp, stdout);
            return 0;
        }
    std::vector<std::string> paths;
    std::string format = "table", exportPath;
    long top = 20;
    AdviceFlags advice;
    CompareOptions co;
    bool useCache = true;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto take = [&](std::string& out) {
            const auto eq = a.find('=');
            if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
                out = a.substr(eq + 1);
                return true;
            }
            if (i + 1 >= args.size())
                return false;
            out = args[++i];
            return true;
        };
        auto is = [&](const char* f) { return a == f || a.rfind(std::string(f) + "=", 0) == 0; };
        std::string v;
        if (a == "--no-cache") {
            useCache = false;
        } else if (is("--format")) {
            if (!take(v) || (v != "table" && v != "csv" && v != "json" && v != "markdown" && v != "html" && v != "pdf"))
                return compareUsage("--format needs table, csv, json, markdown, html or pdf");
            format = v;
        } else if (is("--group-by")) {
            if (!take(v) || (v != "type" && v != "name"))
                return compareUsage("--group-by needs type or name");
            co.groupBy = v == "name" ? GroupBy::Name : GroupBy::Type;
        } else if (is("--top")) {
            char* end = nullptr;
            if (!take(v) || (top = std::strtol(v.c_str(), &end, 10), v.empty() || *end || top < 0))
                return compareUsage("--top needs a non-negative number");
        } else if (is("--tokens-per-step")) {
            char* end = nullptr;
            if (!take(v) || (co.tokensPerStep = std::strtod(v.c_str(), &end), v.empty() || *end || !(co.tokensPerStep > 0)))
                return compareUsage("--tokens-per-step needs a positive number");
        } else if (is("--peak-hbm-gbps")) {
            char* end = nullptr;
            if (!take(v) || (co.peakHbmGBps = std::strtod(v.c_str(), &end), v.empty() || *end || !(co.peakHbmGBps > 0)))
                return compareUsage("--peak-hbm-gbps needs a positive number");
        } else if (is("--same-within")) {
            char* end = nullptr;
            double pct = 0;
            if (!take(v) || (pct = std::strtod(v.c_str(), &end), v.empty() || *end || !(pct >= 0 && pct <= 50)))
                return compareUsage("--same-within needs a percentage from 0 to 50");
            co.sameWithin = pct / 100.0;
        } else if (a == "--per-step" || a == "--whole-run") {
            co.opTimes = a == "--per-step" ? OpTimes::PerStep : OpTimes::WholeRun;
        } else if (a == "--no-advisor" || a == "--validate-advice" || a == "--fail-if-regressed") {
            (a == "--no-advisor" ? advice.off : a == "--validate-advice" ? advice.validate : advice.failIfRegressed) = true;
        } else if (is("--export") || is("--output") || a == "-o") {
            if (!take(exportPath))
                return compareUsage("--export needs a file name");
        } else if (a.size() > 1 && a[0] == '-') {
            if (const std::string why = clockOrUnknown(a, take, advice.clock); !why.empty())
                return compareUsage(why);
        } else {
            paths.push_back(a);
        }
    }
    if (paths.size() != 2)
        return compareUsage("give exactly two profiles: BASELINE OPTIMIZED");
    if (advice.validate && advice.off)
        return compareUsage("--validate-advice needs the advisor: drop --no-advisor");
    if (format == "pdf" && (exportPath.empty() || exportPath == "-"))
        return compareUsage("--format pdf needs -o FILE");
    if (format == "html" || format == "pdf")
        needQt();

    const SessionPtr base = load(paths[0], useCache);
    if (!base)
        return 1;
    const SessionPtr cur = load(paths[1], useCache);
    if (!cur)
        return 1;
    if ((cluster_summary::isSummarySession(*base) || cluster_summary::isSummarySession(*cur)) && co.groupBy == GroupBy::Name)
        std::fprintf(stderr, "npuscope compare: warning: a cluster summary keeps op types, not names: operators are "
                             "compared by type\n");
    // The passes over two large sessions get the heap a load of their size gets.
    const LoadAllocationScope analysis(base->loadedBytes() + cur->loadedBytes());
    std::string error;
    CompareResult r = cluster_summary::compareRuns(*base, *cur, co, &error);
    if (!error.empty()) {
        printError("compare", error);
        return 1;
    }
    const std::vector<std::string> regressed = addAdvice(r, *base, *cur, co.groupBy, advice);
    const int written = writeComparison(r, paths[0], paths[1], format, exportPath, static_cast<std::size_t>(top));
    return written == 0 && !regressed.empty() ? reportRegressions(regressed) : written;
}

} // namespace npuscope::cli
