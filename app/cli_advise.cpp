// npuscope advise PATH [--format text|markdown|json|html|pdf] [-o FILE] [--advisor-config FILE]
// Runs every advisor rule; exit 0 whether or not findings fire, 1 when the input cannot be
// loaded (or the report cannot be written), 2 on usage errors.
#include "app/cli.h"
#include "app/cli_collectives.h"

#include "advisor/advisor.h"
#include "advisor/cluster_summary_advice.h"
#include "model/cluster_summary/cluster_summary.h"
#include "model/analysis/atomic_file.h"
#include "model/formats/loader.h"
#include "model/io/memory_budget.h"
#include "app/qt_parts.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

namespace npuscope::cli {

namespace {

void adviseUsage(std::FILE* out)
{
    std::fputs("Usage: npuscope advise PATH [--format text|markdown|json|html|pdf] [-o FILE] [--advisor-config FILE]\n"
               "       [--prefer text|db] [--run N] [--no-cache] [--clock raw|aligned] [--clock-offset RANK=NS]...\n"
               "  Run the performance advisor on a profiling folder or file, or on a cluster summary\n"
               "  (npuscope cluster-summary): its cluster rules and the ranks' findings.\n"
               "  --format          report format (default text, to stdout)\n"
               "  -o, --output FILE write the report to FILE (required for pdf)\n"
               "  --advisor-config  thresholds override file (merged over the shipped thresholds)\n"
               "  --prefer text|db  which export to read when a folder has both (default text)\n"
               "  --run N           the run to open when PATH holds several unrelated runs ('npuscope info PATH'\n"
               "                    lists them)\n"
               "  --no-cache        read the files, not the session cache, and do not write it\n"
               "  --clock raw|aligned  the ranks' clocks for the cluster rules (CLU-LATE: arrivals, spreads,\n"
               "                    reasons and the replayed gain): each rank's own, or aligned by the ends of\n"
               "                    the collectives (default); a summary's cluster findings stay as written\n"
               "  --clock-offset R=NS  rank R's clock offset (aligned = file time - NS; NS in ns or with a\n"
               "                    unit, e.g. 1=-5.6ms); repeatable; overrides the estimate\n"
               "Exit codes: 0 report written (with or without findings), 1 input problem, 2 usage.\n",
               out);
}

// Writes the report in `format` to `output` (stdout when empty or "-"; a PDF needs a file), a
// file through a temporary and a rename: a failed write never leaves a partial report or spoils
// an old one. Returns the exit code.
int writeAdvice(const advisor::AdvisorReport& report, const std::string& format, const std::string& output)
{
    if (format == "pdf")
        return writeAdvicePdf(report, output);
    std::string text;
    if (format == "text")
        text = advisor::writeText(report);
    else if (format == "markdown" || format == "md")
        text = advisor::writeMarkdown(report);
    else if (format == "json")
        text = advisor::writeJson(report);
    else
        text = advisor::writeHtml(report);
    if (output.empty() || output == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return 0;
    }
    std::string err;
    if (!writeFileAtomically(output, text, &err)) {
        std::fprintf(stderr, "npuscope advise: cannot write %s\n", err.c_str());
        return 1;
    }
    return 0;
}

// The options that depend on each other: a known format, a file for a PDF, a readable config.
// Returns the exit code of the first that is wrong, 0 when none is.
int checkOptions(const std::string& format, const std::string& output, const std::string& config)
{
    if (format != "text" && format != "markdown" && format != "md" && format != "json" && format != "html"
        && format != "pdf") {
        std::fprintf(stderr, "npuscope advise: unknown format '%s' (text, markdown, json, html, pdf)\n", format.c_str());
        return 2;
    }
    if (format == "pdf" && output.empty()) {
        std::fprintf(stderr, "npuscope advise: --format pdf needs -o FILE\n");
        return 2;
    }
    if (!config.empty()) {
        std::ifstream probe(config);
        if (!probe) {
            std::fprintf(stderr, "npuscope advise: cannot read the advisor config %s\n", config.c_str());
            return 1;
        }
    }
    return 0;
}

// --clock raw|aligned or --clock-offset RANK=NS at args[i] (cli_collectives.h): 0 when read, 2
// (the usage exit code, said on stderr) when wrong, -1 when args[i] is neither.
int clockFlag(const Args& args, std::size_t& i, ClockOptions& clock)
{
    std::string why;
    if (!cli::clockFlag(args, i, clock, why))
        return -1;
    if (why.empty())
        return 0;
    std::fprintf(stderr, "npuscope advise: %s\n", why.c_str());
    return 2;
}

} // namespace

int advise(const Args& args)
{
    if (wantsHelp(args)) {
        adviseUsage(stderr);
        return 0;
    }
    std::string path, format = "text", output, config;
    Prefer prefer = Prefer::Auto;
    bool useCache = true;
    std::size_t run = 0;
    ClockOptions clock;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& dst) {
            if (i + 1 >= args.size())
                return false;
            dst = args[++i];
            return true;
        };
        if (a == "--format" || a == "-f") {
            if (!value(format)) {
                std::fprintf(stderr, "npuscope advise: %s needs a value\n", a.c_str());
                return 2;
            }
        } else if (a.rfind("--format=", 0) == 0) {
            format = a.substr(9);
        } else if (a == "-o" || a == "--output") {
            if (!value(output)) {
                std::fprintf(stderr, "npuscope advise: %s needs a file name\n", a.c_str());
                return 2;
            }
        } else if (a == "--advisor-config") {
            if (!value(config)) {
                std::fprintf(stderr, "npuscope advise: --advisor-config needs a file name\n");
                return 2;
            }
        } else if (a == "--no-cache") {
            useCache = false;
        } else if (a == "--prefer") {
            std::string v;
            if (!value(v) || !parsePrefer(v, prefer)) {
                std::fprintf(stderr, "npuscope advise: --prefer needs text or db\n");
                return 2;
            }
        } else if (a == "--run") {
            std::string v;
            if (!value(v) || !parseRun(v, run)) {
                std::fprintf(stderr, "npuscope advise: --run needs a run number from 1 up\n");
                return 2;
            }
        } else if (const int c = clockFlag(args, i, clock); c >= 0) {
            if (c != 0)
                return c;
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "npuscope advise: unknown option '%s'\nTry 'npuscope advise --help'.\n", a.c_str());
            return 2;
        } else if (path.empty()) {
            path = a;
        } else {
            std::fprintf(stderr, "npuscope advise: one PATH only (got '%s' and '%s')\n", path.c_str(), a.c_str());
            return 2;
        }
    }
    if (path.empty()) {
        adviseUsage(stderr);
        return 2;
    }
    if (const int bad = checkOptions(format, output, config))
        return bad;
    if (format == "pdf")
        needQt();

    // The rules reuse the heap memory the load freed (see LoadAllocationScope).
    const LoadAllocationScope heapReuse;
    LoadOptions lo;
    lo.prefer = prefer;
    lo.run = run;
    const LoadResult loaded = loadForVerb("advise", {path}, lo, useCache); // a cluster summary too: a Session of its cluster data
    const bool summary = loaded.session && cluster_summary::isSummarySession(*loaded.session);
    if (!loaded.session || (loaded.session->ranks.empty() && !summary)) {
        printError("advise", "cannot load " + path + ": "
                                 + (loaded.error.empty() ? std::string("no profiling data found") : loaded.error));
        if (!loaded.runs.empty())
            std::fprintf(stderr, "%sChoose one with --run N.\n", runList(loaded.runs).c_str());
        return 1;
    }
    warnInputProblems("advise", *loaded.session);
    advisor::ThresholdsOptions to;
    to.overrideFile = config;
    const advisor::Thresholds th = advisor::Thresholds::load(to);
    for (const auto& w : th.warnings())
        std::fprintf(stderr, "npuscope advise: warning: %s\n", w.c_str());
    const advisor::AdvisorReport report = advisor::adviseSession(*loaded.session, th, nullptr, &clock);

    return writeAdvice(report, format, output);
}

} // namespace npuscope::cli
