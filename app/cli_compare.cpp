// `npuscope compare BASELINE OPTIMIZED`: headline table (step time, throughput, utilisation,
// L2, HBM, exposed communication) and the per-operator diff.
#include "app/cli.h"
#include "app/cli_table.h"

#include "model/analysis/compare.h"
#include "model/analysis/units.h"
#include "model/formats/loader.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

namespace npuscope::cli {

namespace {

const char* kHelp =
    "Usage: npuscope compare BASELINE OPTIMIZED [options]\n"
    "\n"
    "Compare two profiles: headline numbers (ratio = optimized / baseline, delta = optimized - baseline,\n"
    "with which direction is better), then every operator type's time, sorted by |delta|.\n"
    "\n"
    "  --format F              table (default) | csv | json | markdown\n"
    "  --group-by G            type (default) | name\n"
    "  --top N                 operator rows (default 20, 0 = all)\n"
    "  --tokens-per-step N     adds per-token latency\n"
    "  --peak-hbm-gbps X       peak HBM bandwidth (default: per chip, 1200)\n"
    "  --export FILE           write to FILE instead of stdout (atomically)\n"
    "Exit codes: 0 ok, 1 input problem, 2 usage.\n";

int usage(const std::string& msg)
{
    std::fprintf(stderr, "npuscope compare: %s\nTry 'npuscope compare --help'.\n", msg.c_str());
    return 2;
}

std::string num(double v, int digits) { return fixed(v, digits); }

SessionPtr load(const std::string& path)
{
    LoadOptions lo;
    const bool tty = ::isatty(2) == 1;
    if (tty)
        lo.progress = [](const LoadProgress& p) {
            std::fprintf(stderr, "\r\033[K%s %3.0f%%", p.stage.c_str(), p.fraction * 100.0);
        };
    LoadResult r = loadSession(path, lo);
    if (tty)
        std::fputs("\r\033[K", stderr);
    if (!r.session || r.session->ranks.empty()) {
        std::fprintf(stderr, "npuscope compare: %s\n",
                     !r.error.empty() ? r.error.c_str() : (path + ": no profile found").c_str());
        return nullptr;
    }
    return r.session;
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
    CompareOptions co;
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
        if (is("--format")) {
            if (!take(v) || (v != "table" && v != "csv" && v != "json" && v != "markdown"))
                return usage("--format needs table, csv, json or markdown");
            format = v;
        } else if (is("--group-by")) {
            if (!take(v) || (v != "type" && v != "name"))
                return usage("--group-by needs type or name");
            co.groupBy = v == "name" ? GroupBy::Name : GroupBy::Type;
        } else if (is("--top")) {
            char* end = nullptr;
            if (!take(v) || (top = std::strtol(v.c_str(), &end, 10), v.empty() || *end || top < 0))
                return usage("--top needs a non-negative number");
        } else if (is("--tokens-per-step")) {
            char* end = nullptr;
            if (!take(v) || (co.tokensPerStep = std::strtod(v.c_str(), &end), v.empty() || *end || !(co.tokensPerStep > 0)))
                return usage("--tokens-per-step needs a positive number");
        } else if (is("--peak-hbm-gbps")) {
            char* end = nullptr;
            if (!take(v) || (co.peakHbmGBps = std::strtod(v.c_str(), &end), v.empty() || *end || !(co.peakHbmGBps > 0)))
                return usage("--peak-hbm-gbps needs a positive number");
        } else if (is("--export") || a == "-o") {
            if (!take(exportPath))
                return usage("--export needs a file name");
        } else if (a.size() > 1 && a[0] == '-') {
            return usage("unknown option '" + a + "'");
        } else {
            paths.push_back(a);
        }
    }
    if (paths.size() != 2)
        return usage("give exactly two profiles: BASELINE OPTIMIZED");

    const SessionPtr base = load(paths[0]);
    if (!base)
        return 1;
    const SessionPtr cur = load(paths[1]);
    if (!cur)
        return 1;
    const CompareResult r = compareSessions(*base, *cur, co);

    Table head;
    head.addColumn("metric", false);
    head.addColumn("unit", false);
    head.addColumn("baseline", true);
    head.addColumn("optimized", true);
    head.addColumn("delta", true);
    head.addColumn("ratio", true);
    head.addColumn("better", false);
    head.addColumn("verdict", false);
    for (const HeadlineRow& h : r.headline) {
        std::string verdict;
        if (!std::isnan(h.baseline) && !std::isnan(h.current))
            verdict = h.improved() ? "improved" : (h.baseline == h.current ? "same" : "regressed");
        const int digits = h.unit == "ms" ? 6 : 4;
        head.rows.push_back({h.metric, h.unit, num(h.baseline, digits), num(h.current, digits), num(h.delta, digits),
                             num(h.ratio, 4), h.better == Better::Lower ? "lower" : "higher", verdict});
    }

    Table ops;
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
    std::size_t n = 0;
    for (const OpDiffRow& d : r.ops) {
        if (top > 0 && n++ >= static_cast<std::size_t>(top))
            break;
        ops.rows.push_back({d.key, std::to_string(d.baselineCount), std::to_string(d.currentCount),
                            nsToMillisText(d.baselineTotal), nsToMillisText(d.currentTotal), nsToMillisText(d.delta),
                            num(d.ratio, 4), num(d.baselineAvgNs / 1000.0, 3), num(d.currentAvgNs / 1000.0, 3),
                            d.inBaseline && d.inCurrent ? "both" : (d.inBaseline ? "baseline only" : "optimized only")});
    }

    std::string out;
    const std::string speedup = std::isnan(r.speedup) ? "" : num(r.speedup, 3);
    if (format == "json") {
        out = "{\"baseline\": " + jsonString(paths[0]) + ", \"optimized\": " + jsonString(paths[1])
              + ", \"speedup\": " + (speedup.empty() ? "null" : speedup) + ",\n\"headline\": " + head.toJson()
              + ",\"operators\": " + ops.toJson() + "}\n";
    } else if (format == "markdown") {
        out = "## Headline\n\nBaseline `" + paths[0] + "`, optimized `" + paths[1] + "`"
              + (speedup.empty() ? "" : ", speedup " + speedup + "×") + ".\n\n" + head.toMarkdown()
              + "\n## Operators\n\n" + ops.toMarkdown();
    } else if (format == "csv") {
        out = head.toCsv() + "\n" + ops.toCsv();
    } else {
        out = "Baseline:  " + paths[0] + "\nOptimized: " + paths[1] + "\n"
              + (speedup.empty() ? "" : "Speedup:   " + speedup + "x\n") + "\n" + head.toText() + "\n" + ops.toText();
    }
    return writeOutput("compare", exportPath, out) ? 0 : 1;
}

} // namespace npuscope::cli
