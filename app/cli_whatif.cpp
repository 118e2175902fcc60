// `npuscope whatif PATH [--scale OPTYPE=F]... [--remove CAUSE]... [--overlap-comm]`: each step's
// graph replayed with changed durations (model/analysis/whatif.h), the measured and predicted
// median step and the replayed critical path's time by kind (critical_path.h's kinds) of the
// median complete step. JSON layout:
//   {"measured_step_ns", "predicted_step_ns",
//    "per_step": [{"step", "measured_ns", "predicted_ns", "partial", "replayed_span_ns",
//                  "bound_by": {kind: ns}} (+ "rank" with several ranks)],
//    "bound_by_of": "median complete step", "bound_by_step", "bound_by_span_ns" (+ "bound_by_rank"),
//    "bound_by": {kind: ns, Σ = bound_by_span_ns}, "idle_by_cause": {cause: ns, Σ = its idle},
//    "path_top": [{"kind", "label", "ns", "segments"}] (its heaviest, summed by kind and label),
//    "changes": [..], "notes": [..]}
// With several ranks the shares are the rank's whose median complete step replays longest (the
// one the others wait for).
#include "app/cli.h"

#include "model/analysis/whatif.h"
#include "model/store/safe_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace npuscope::cli {

namespace {

using Json = nlohmann::ordered_json;

void printWhatifHelp()
{
    std::string causes;
    for (const auto& c : whatIfCauses())
        causes += (causes.empty() ? "" : ", ") + c;
    std::printf("Usage: npuscope whatif PATH [--scale OPTYPE=F]... [--remove CAUSE]... [--overlap-comm]\n"
                "       [--format text|json] [--prefer text|db] [--run N] [--no-cache]\n"
                "\n"
                "Replays each step's dependency graph (host launches, stream order, waits, host syncs)\n"
                "with changed durations and prints the measured and the predicted median step, each\n"
                "step's, and the replayed critical path's time by kind (host_python, launch, compute,\n"
                "comm, comm_wait, idle, as analyze --metric critical_path) of the median complete step:\n"
                "the shares add up to that step's replayed span.\n"
                "\n"
                "Options:\n"
                "  --scale OPTYPE=F   device tasks of that op type (kernel Type, else name) take dur x F\n"
                "  --remove CAUSE     the idle time attributed to CAUSE is removed: its host intervals take\n"
                "                     no time, or its wait is cut (%s)\n"
                "  --overlap-comm     compute no longer waits for collectives (they still run)\n"
                "  --format text|json output format (default text)\n"
                "  --prefer text|db   which export to read when a folder has both (default text)\n"
                "  --run N            the run to open when PATH holds several\n"
                "  --no-cache         read the files, not the session cache, and do not write it\n"
                "\n"
                "A single rank's collectives keep their measured duration (their peers are not in the data).\n"
                "Exit codes: 0 ok, 1 input problem, 2 usage.\n",
                causes.c_str());
}

int whatifUsage(const std::string& msg)
{
    printError("whatif", msg);
    std::fputs("Try 'npuscope whatif --help'.\n", stderr);
    return 2;
}

double medianOf(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

std::string ms(double ns)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
    return buf;
}

struct WhatIfOptions {
    std::string path, format = "text";
    Prefer prefer = Prefer::Text;
    std::size_t run = 0;
    bool useCache = true;
    WhatIfChanges changes;
};

// Reads the options into `o`; returns -1, or the exit code of a usage error.
int parseOptions(const Args& args, WhatIfOptions& o)
{
    std::string& path = o.path;
    std::string& format = o.format;
    Prefer& prefer = o.prefer;
    std::size_t& run = o.run;
    bool& useCache = o.useCache;
    WhatIfChanges& changes = o.changes;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& out) {
            if (i + 1 >= args.size())
                return false;
            out = args[++i];
            return true;
        };
        std::string v;
        if (a == "--scale") {
            if (!value(v))
                return whatifUsage("--scale needs OPTYPE=F");
            const auto eq = v.rfind('=');
            char* end = nullptr;
            const double f = eq == std::string::npos ? NAN : std::strtod(v.c_str() + eq + 1, &end);
            if (eq == std::string::npos || eq == 0 || !end || *end || !(f >= 0) || !std::isfinite(f))
                return whatifUsage("--scale takes OPTYPE=F with F a number >= 0, not '" + v + "'");
            changes.scaleTypes.emplace_back(v.substr(0, eq), f);
        } else if (a == "--remove") {
            if (!value(v))
                return whatifUsage("--remove needs a cause");
            if (std::find(whatIfCauses().begin(), whatIfCauses().end(), v) == whatIfCauses().end())
                return whatifUsage("unknown cause '" + v + "' for --remove");
            changes.removeCauses.push_back(v);
        } else if (a == "--overlap-comm") {
            changes.overlapComm = true;
        } else if (a == "--format") {
            if (!value(format) || (format != "text" && format != "json"))
                return whatifUsage("--format takes text or json");
        } else if (a == "--prefer") {
            if (!value(v) || !parsePrefer(v, prefer))
                return whatifUsage("--prefer takes text or db");
        } else if (a == "--run") {
            if (!value(v) || !parseRun(v, run))
                return whatifUsage("--run takes a run number from 1 up");
        } else if (a == "--no-cache") {
            useCache = false;
        } else if (!a.empty() && a[0] == '-') {
            return whatifUsage("unknown option '" + a + "'");
        } else if (path.empty()) {
            path = a;
        } else {
            return whatifUsage("one PATH only");
        }
    }
    if (path.empty())
        return whatifUsage("PATH is required");
    return -1;
}

Json kindsJson(const std::vector<std::pair<std::string, double>>& kinds)
{
    Json o = Json::object();
    for (const auto& [k, v] : kinds)
        o[k] = std::llround(v);
    return o;
}

// The replay whose shares the output shows, and its rank when there are several.
struct Shares {
    const WhatIfResult* r = nullptr;
    int rank = -1;
};

// Writes the result in `format` to stdout.
int writeResult(const std::string& format, double m, double pr, const Json& perStep, const Shares& sh,
                const std::vector<std::string>& changeText, const Json& notes, std::size_t complete)
{
    static const WhatIfResult none;
    const WhatIfResult& b = sh.r ? *sh.r : none;
    if (format == "json") {
        Json out;
        out["measured_step_ns"] = std::llround(m);
        out["predicted_step_ns"] = std::llround(pr);
        out["per_step"] = perStep;
        out["bound_by_of"] = b.boundByOf;
        out["bound_by_step"] = b.boundByStep;
        out["bound_by_span_ns"] = b.boundBySpanNs;
        if (sh.rank >= 0)
            out["bound_by_rank"] = sh.rank;
        out["bound_by"] = kindsJson(b.boundBy);
        out["idle_by_cause"] = kindsJson(b.idleByCause);
        Json top = Json::array();
        for (const auto& t : b.pathTop)
            top.push_back(Json{{"kind", t.kind}, {"label", t.label}, {"ns", std::llround(t.ns)}, {"segments", t.count}});
        out["path_top"] = std::move(top);
        out["changes"] = changeText;
        out["notes"] = notes;
        std::fputs((out.dump(2) + "\n").c_str(), stdout);
        return 0;
    }
    std::printf("measured step  %s (median of %zu complete steps)\n", ms(m).c_str(), complete);
    std::printf("predicted step %s (%+.1f %%)\n", ms(pr).c_str(), m > 0 ? (pr - m) / m * 100.0 : 0.0);
    std::printf("changes:\n");
    if (changeText.empty())
        std::printf("  none\n");
    for (const auto& c : changeText)
        std::printf("  %s\n", text::forTerminal(c).c_str());
    std::printf("per step:\n");
    for (const auto& row : perStep)
        std::printf("  %s%s  measured %s  predicted %s%s\n",
                    row.contains("rank") ? ("rank " + std::to_string(row["rank"].get<int>()) + " ").c_str() : "",
                    text::forTerminal(row["step"].get<std::string>()).c_str(), ms(row["measured_ns"].get<double>()).c_str(),
                    ms(row["predicted_ns"].get<double>()).c_str(),
                    row["partial"].get<bool>() ? "  (partial, not in the median)" : "");
    const double span = static_cast<double>(b.boundBySpanNs);
    const auto share = [&](double v) { return span > 0 ? 100.0 * v / span : 0.0; };
    if (b.boundBy.empty()) {
        std::printf("bound by: no complete step\n");
    } else {
        std::printf("bound by (replayed critical path of the %s, %s%s, %s):\n", b.boundByOf.c_str(),
                    sh.rank >= 0 ? ("rank " + std::to_string(sh.rank) + " ").c_str() : "",
                    text::forTerminal(b.boundByStep).c_str(), ms(span).c_str());
        for (const auto& [k, v] : b.boundBy)
            std::printf("  %-16s %12s %6.1f %%\n", k.c_str(), ms(v).c_str(), share(v));
        if (!b.idleByCause.empty()) {
            std::printf("idle on the path by cause:\n");
            for (const auto& [k, v] : b.idleByCause)
                std::printf("  %-16s %12s %6.1f %%\n", k.c_str(), ms(v).c_str(), share(v));
        }
        if (!b.pathTop.empty()) {
            std::printf("heaviest on the path:\n");
            for (const auto& t : b.pathTop)
                std::printf("  %-12s %-40s %12s %6.1f %%  (%d segments)\n", t.kind.c_str(),
                            text::forTerminal(t.label).c_str(), ms(t.ns).c_str(), share(t.ns), t.count);
        }
    }
    std::printf("notes:\n");
    for (const auto& n : notes)
        std::printf("  %s\n", text::forTerminal(n.get<std::string>()).c_str());
    return 0;
}

} // namespace

int whatif(const Args& args)
{
    if (wantsHelp(args)) {
        printWhatifHelp();
        return 0;
    }
    WhatIfOptions o;
    if (const int code = parseOptions(args, o); code >= 0)
        return code;
    const std::string& path = o.path;
    const std::string& format = o.format;
    const WhatIfChanges& changes = o.changes;

    LoadOptions lo;
    lo.prefer = o.prefer;
    lo.run = o.run;
    const LoadResult loaded = loadForVerb("whatif", {path}, lo, o.useCache);
    if (!loaded.session || loaded.session->ranks.empty()) {
        printError("whatif",
                   "cannot load " + path + ": "
                       + (loaded.error.empty() ? std::string("no profile with a timeline (a cluster summary has none)")
                                               : loaded.error));
        if (!loaded.runs.empty())
            std::fprintf(stderr, "%sChoose one with --run N.\n", runList(loaded.runs).c_str());
        return 1;
    }
    warnInputProblems("whatif", *loaded.session);
    const auto& ranks = loaded.session->ranks;
    const bool multi = ranks.size() > 1;
    Json perStep = Json::array(), notes = Json::array();
    std::vector<double> measured, predicted;
    std::vector<std::string> changeText;
    std::vector<WhatIfResult> results; // one per rank
    results.reserve(ranks.size());
    Shares shares;
    int replayed = 0;
    for (const auto& rp : ranks) {
        const WhatIfResult& r = results.emplace_back(replayWhatIf(*rp, changes));
        const std::string who = multi ? "rank " + std::to_string(rp->rank) + ": " : std::string();
        if (!r.ok) {
            notes.push_back(who + "not replayed: " + r.error);
            if (!r.error.empty() && r.error.rfind("unknown cause", 0) == 0)
                return whatifUsage(r.error);
            continue;
        }
        ++replayed;
        changeText = r.changes;
        for (const auto& s : r.steps) {
            Json row;
            if (multi)
                row["rank"] = rp->rank;
            row["step"] = s.name;
            row["measured_ns"] = std::llround(s.measuredNs);
            row["predicted_ns"] = std::llround(s.predictedNs);
            row["partial"] = s.partial;
            row["replayed_span_ns"] = s.replayedSpanNs;
            Json kinds = Json::object();
            for (const auto& [k, v] : s.boundBy)
                kinds[k] = v;
            row["bound_by"] = kinds;
            perStep.push_back(row);
            if (!s.partial) {
                measured.push_back(s.measuredNs);
                predicted.push_back(s.predictedNs);
            }
        }
        if (!r.boundBy.empty() && (!shares.r || r.boundBySpanNs > shares.r->boundBySpanNs))
            shares = {&r, multi ? rp->rank : -1};
        notes.push_back(who + "measured step times from " + r.stepSource);
        for (const auto& n : r.notes)
            notes.push_back(who + n);
    }
    if (!replayed) {
        printError("whatif",
                   "nothing to replay in " + path + ": " + (notes.empty() ? std::string() : notes.back().get<std::string>()));
        return 1;
    }
    const double m = medianOf(measured);
    const double pr = medianOf(predicted);
    return writeResult(format, m, pr, perStep, shares, changeText, notes, measured.size());
}

} // namespace npuscope::cli
