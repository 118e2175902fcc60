// `npuscope synth`: writes a realistic synthetic profile (see src/model/synth/synth.h).
#include "app/cli.h"

#include "model/synth/planted.h"
#include "model/synth/synth.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

namespace npuscope::cli {

namespace {

void printSynthHelp(std::FILE* out)
{
    std::fputs(
        "Usage: npuscope synth OUT_DIR [options]\n"
        "\n"
        "Writes a synthetic Ascend profile modelled on a LLaMA-2 7B decode step (32 layers),\n"
        "byte-compatible with real torch_npu / msprof output. Deterministic for a seed.\n"
        "\n"
        "Options:\n"
        "  --scenario NAME     llama2-baseline (default): ~52 ms/step, AI Core ~38 %, L2 hit ~45 %,\n"
        "                        HBM ~62 % of 1200 GB/s, memory-bound MatMul, unfused LayerNorm,\n"
        "                        exposed AllReduce, dependency gaps\n"
        "                      llama2-optimized: ~18 ms/step, ~78 %, ~72 %, ~85 %, fused ops,\n"
        "                        AllReduce overlapped with compute\n"
        "                      cluster-slowrank: 4 ranks (default), one rank computes 25 % longer,\n"
        "                        one link at 40 % bandwidth\n"
        "                      llama2-leak: llama2-baseline that keeps a 48 MiB aten::clone every step\n"
        "                        and never frees it (device memory grows each step)\n"
        "  torch_npu profiles of natural size (no --target-mb) and llama2-leak carry the memory\n"
        "  files of profile_memory=True: operator_memory.csv, memory_record.csv, npu_module_mem.csv\n"
        "  (db: OP_MEMORY, MEMORY_RECORD, NPU_MODULE_MEM)\n"
        "  --layout L          torch_npu (default) or msprof\n"
        "  --level N           torch_npu profiler level: 0 (device tasks only: no CANN API slices,\n"
        "                        operator types, PMU columns, statistics or communication files),\n"
        "                        1 (default: CANN API, PMU, communication) or 2 (adds the runtime API)\n"
        "  --with-stack        with_stack=True: Python call stacks (\"Call stack\" args, operator_details\n"
        "                        Call Stack) and python_function slices\n"
        "  --compact-json      JSON with \",\" and \":\" separators instead of Python's \", \" and \": \" (not\n"
        "                        what torch_npu writes; to compare the readers on both)\n"
        "  --shape NAME        how the timeline JSON is ordered and mixed (torch_npu text only):\n"
        "                        real (default: the CANN block sorted by time), process-ordered (the\n"
        "                        Ascend Hardware block before CANN: every HostToDevice f before its s),\n"
        "                        starts-first / ends-first (each step's flow starts / ends en bloc),\n"
        "                        device-heavy (3 device tasks per Python op), level1-dense (level 1,\n"
        "                        device-heavy and process-ordered)\n"
        "  --format F          text (default), db (torch_npu SQLite export: ascend_pytorch_profiler_N.db\n"
        "                        and analysis.db) or both (the same data in both exports)\n"
        "  --ranks N           ranks (1..512; cluster-slowrank default 4; above 64, TP groups of 8)\n"
        "  --steps N           profiled steps (default 3)\n"
        "  --seed N            random seed (default 1); same seed, same bytes\n"
        "  --target-mb N       repeat steps until each timeline JSON reaches about N MiB\n"
        "  --slow-rank R       cluster-slowrank: the slow rank (default: last)\n"
        "  --slow-link S-D     cluster-slowrank: the slow link (default 1-2)\n"
        "  --plant CAUSE[=US]  plant a host cause in every step (repeatable; torch_npu layout):\n"
        "                        python_stall (a Python slice log_metrics mid-step, default 900 us),\n"
        "                        dataloader (enumerate(DataLoader)#...__next__ before the first launch,\n"
        "                        1500 us), sync (aten::item with aclrtSynchronizeStream mid-step, which\n"
        "                        waits for the device to drain, then 200 us of Python), compile\n"
        "                        (aclopCompileAndExecute with opCompile before one op, 1200 us); the\n"
        "                        launch queue then holds at most 2 tasks, so that a stall reaches the device\n"
        "  --speedup TYPE=F    divide that op type's device durations by F (repeatable); the same\n"
        "                        random draws and host timeline, so a pair of runs differs only there\n"
        "  --clock-offset R=NS rank R writes every timestamp shifted by NS ns (repeatable, may be < 0)\n"
        "  --late-rank R[:I[:US[:KIND]]]\n"
        "                      rank R arrives late at collective I of each step (default the middle\n"
        "                        one) by US us (default 600): KIND op (an extra MatMulV2, default) or\n"
        "                        host (a Python stall log_metrics before the collective's launch)\n"
        "  --truth FILE        write what was planted and what it did (device idle per step and\n"
        "                        cause, the planted slices, the median step, offsets, late rank) as JSON\n"
        "  --quiet             no progress and summary output\n"
        "  -h, --help          this help\n"
        "\n"
        "Exit codes: 0 ok, 1 cannot write, 2 usage.\n",
        out);
}

int synthUsage(const std::string& msg)
{
    std::fprintf(stderr, "npuscope synth: %s\nTry 'npuscope synth --help'.\n", msg.c_str());
    return 2;
}

template <typename T>
bool parseNumber(const std::string& s, T& out)
{
    const char* b = s.data();
    const char* e = s.data() + s.size();
    auto r = std::from_chars(b, e, out);
    return r.ec == std::errc() && r.ptr == e;
}

// The options that depend on each other; cluster-slowrank defaults to four ranks. Returns the
// exit code of the first that is wrong, 0 when none is.
int checkOptions(synth::SynthOptions& o, bool ranksGiven)
{
    if (o.format != "text" && o.layout == "msprof")
        return synthUsage("--format db|both writes the torch_npu layout only");
    if (o.layout == "msprof" && (o.level != 1 || o.withStack || o.compactJson))
        return synthUsage("--level, --with-stack and --compact-json apply to the torch_npu layout");
    if ((o.processOrdered || o.flowOrder != "time" || o.devicePerPyOp != 1) && (o.layout != "torch_npu" || o.format != "text"))
        return synthUsage("--shape applies to the torch_npu layout's text export");
    if (o.scenario == "cluster-slowrank" && !ranksGiven)
        o.ranks = 4;
    if (o.scenario == "cluster-slowrank" && o.ranks < 2)
        return synthUsage("cluster-slowrank needs --ranks >= 2");
    const int ranks = o.ranks;
    if (o.slowRank >= ranks || o.slowLinkSrc >= ranks || o.slowLinkDst >= ranks)
        return synthUsage("--slow-rank/--slow-link outside 0.." + std::to_string(ranks - 1));
    return 0;
}

// What was written, and rank 0's headline numbers.
void printResult(const synth::SynthResult& r, const std::string& outDir, double secs)
{
    std::printf("wrote %zu rank folder(s) in %s: %.1f MB in %.2f s (%.0f MB/s), %llu device tasks, %d steps\n",
                r.rankDirs.size(), outDir.c_str(), static_cast<double>(r.bytesWritten) / 1e6, secs,
                secs > 0 ? static_cast<double>(r.bytesWritten) / 1e6 / secs : 0.0,
                static_cast<unsigned long long>(r.deviceTasks), r.steps);
    std::printf("rank 0: step %.3f ms, AI Core utilisation %.2f %%, L2 hit %.2f %%, HBM %.2f %% of %.0f GB/s, "
                "exposed communication %.1f %%\n",
                r.stepMs, r.aicUtil, r.l2Hit * 100, r.hbmUtil * 100, r.hbmPeakGBps, r.exposedCommShare * 100);
    for (const auto& d : r.rankDirs)
        std::printf("  %s\n", d.c_str());
}

// "SRC-DST": two different ranks.
bool parseLink(const std::string& v, int& src, int& dst)
{
    const auto dash = v.find('-');
    return dash != std::string::npos && parseNumber(v.substr(0, dash), src) && parseNumber(v.substr(dash + 1), dst)
           && src >= 0 && dst >= 0 && src != dst;
}

// "NAME=VALUE" split at the last '='; false without one or with an empty side.
bool splitPair(const std::string& v, std::string& name, std::string& value)
{
    const auto eq = v.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
        return false;
    name = v.substr(0, eq);
    value = v.substr(eq + 1);
    return true;
}

// --plant CAUSE[=US]
bool parsePlant(const std::string& v, synth::PlantSpec& p)
{
    std::string us;
    if (v.find('=') == std::string::npos) {
        p.cause = v;
        p.us = 0;
    } else if (!splitPair(v, p.cause, us) || !parseNumber(us, p.us) || !(p.us > 0) || p.us > 1e7) {
        return false;
    }
    const auto names = synth::plantNames();
    return std::find(names.begin(), names.end(), p.cause) != names.end();
}

// --late-rank R[:I[:US[:KIND]]]
bool parseLate(const std::string& v, synth::LateRankSpec& l)
{
    std::vector<std::string> parts;
    std::size_t from = 0;
    for (;;) {
        const auto colon = v.find(':', from);
        parts.push_back(v.substr(from, colon == std::string::npos ? std::string::npos : colon - from));
        if (colon == std::string::npos)
            break;
        from = colon + 1;
    }
    if (parts.size() > 4 || !parseNumber(parts[0], l.rank) || l.rank < 0)
        return false;
    if (parts.size() > 1 && !parts[1].empty() && (!parseNumber(parts[1], l.collective) || l.collective < 0))
        return false;
    if (parts.size() > 2 && !parts[2].empty() && (!parseNumber(parts[2], l.us) || !(l.us > 0) || l.us > 1e7))
        return false;
    if (parts.size() > 3)
        l.kind = parts[3];
    return l.kind == "op" || l.kind == "host";
}

// The options of planted causes and their truth (synth/truth.h): 0, or the usage exit code.
int plantOption(const std::string& a, const std::string& v, synth::SynthOptions& o, std::string& truthFile)
{
    if (a == "--plant") {
        synth::PlantSpec p;
        if (!parsePlant(v, p))
            return synthUsage("--plant needs python_stall, dataloader, sync or compile, optionally =US (> 0)");
        o.plants.push_back(p);
    } else if (a == "--speedup") {
        std::string type, f;
        double factor = 0;
        if (!splitPair(v, type, f) || !parseNumber(f, factor) || !(factor > 0) || factor > 1e6)
            return synthUsage("--speedup needs OPTYPE=F with F > 0, e.g. MatMulV2=2");
        o.speedups.emplace_back(type, factor);
    } else if (a == "--clock-offset") {
        std::string rank, ns;
        int r = 0;
        std::int64_t off = 0;
        if (!splitPair(v, rank, ns) || !parseNumber(rank, r) || r < 0 || !parseNumber(ns, off)
            || off < -1000000000000000LL || off > 1000000000000000LL)
            return synthUsage("--clock-offset needs RANK=NS, e.g. 1=-250000");
        o.clockOffsets.emplace_back(r, off);
    } else if (a == "--late-rank") {
        if (!parseLate(v, o.lateRank))
            return synthUsage("--late-rank needs RANK[:COLLECTIVE[:US[:op|host]]], e.g. 2:16:600:op");
    } else if (a == "--truth") {
        if (v.empty())
            return synthUsage("--truth needs a file name");
        truthFile = v;
    }
    return 0;
}

// Writes the truth file; false with a message on failure.
bool writeTruth(const synth::SynthResult& r, const std::string& path)
{
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::fprintf(stderr, "npuscope synth: cannot write %s\n", path.c_str());
        return false;
    }
    const std::string text = synth::truthJson(r.truth);
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !ok) {
        std::fprintf(stderr, "npuscope synth: write failed: %s\n", path.c_str());
        return false;
    }
    return true;
}

// Writes the profile, with progress and the summary unless quiet.
int run(synth::SynthOptions& o, const std::string& outDir, bool quiet, const std::string& truthFile)
{
    int lastPct = -1;
    if (!quiet)
        o.progress = [&lastPct](double f) {
            const int pct = static_cast<int>(f * 100);
            if (pct / 5 != lastPct / 5) {
                lastPct = pct;
                std::fprintf(stderr, "\rsynth: %3d %%", pct);
            }
        };
    const auto t0 = std::chrono::steady_clock::now();
    const synth::SynthResult r = synth::synthesize(outDir, o);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!quiet)
        std::fputc('\n', stderr);
    if (!r.ok) {
        std::fprintf(stderr, "npuscope synth: %s\n", r.error.c_str());
        return 1;
    }
    if (!truthFile.empty() && !writeTruth(r, truthFile))
        return 1;
    if (!quiet)
        printResult(r, outDir, secs);
    return 0;
}

} // namespace

int synth(const Args& args)
{
    if (wantsHelp(args)) {
        printSynthHelp(stdout);
        return 0;
    }
    synth::SynthOptions o;
    std::string outDir;
    bool quiet = false;
    bool ranksGiven = false;
    std::string truthFile;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& v) {
            if (i + 1 >= args.size())
                return false;
            v = args[++i];
            return true;
        };
        std::string v;
        if (a == "--quiet" || a == "-q") {
            quiet = true;
        } else if (a == "--scenario") {
            if (!value(o.scenario))
                return synthUsage("--scenario needs a value");
            const auto names = synth::scenarioNames();
            if (std::find(names.begin(), names.end(), o.scenario) == names.end())
                return synthUsage("unknown scenario '" + o.scenario + "'");
        } else if (a == "--layout") {
            if (!value(o.layout))
                return synthUsage("--layout needs a value");
            if (o.layout != "torch_npu" && o.layout != "msprof")
                return synthUsage("unknown layout '" + o.layout + "' (torch_npu or msprof)");
        } else if (a == "--level") {
            if (!value(v) || (v != "0" && v != "1" && v != "2"))
                return synthUsage("--level needs 0, 1 or 2");
            o.level = v[0] - '0';
        } else if (a == "--shape") {
            if (!value(v) || !synth::applyShape(v, o))
                return synthUsage("--shape needs one of real, process-ordered, starts-first, ends-first, device-heavy, "
                             "level1-dense");
        } else if (a == "--with-stack") {
            o.withStack = true;
        } else if (a == "--compact-json") {
            o.compactJson = true;
        } else if (a == "--format") {
            if (!value(o.format))
                return synthUsage("--format needs a value");
            if (o.format != "text" && o.format != "db" && o.format != "both")
                return synthUsage("unknown format '" + o.format + "' (text, db or both)");
        } else if (a == "--ranks") {
            if (!value(v) || !parseNumber(v, o.ranks) || o.ranks < 1 || o.ranks > 512)
                return synthUsage("--ranks needs a number 1..512");
            ranksGiven = true;
        } else if (a == "--steps") {
            if (!value(v) || !parseNumber(v, o.steps) || o.steps < 1 || o.steps > 1000000)
                return synthUsage("--steps needs a number >= 1");
        } else if (a == "--seed") {
            if (!value(v) || !parseNumber(v, o.seed))
                return synthUsage("--seed needs a non-negative integer");
        } else if (a == "--target-mb") {
            if (!value(v) || !parseNumber(v, o.targetMB) || o.targetMB < 0 || o.targetMB > 1e6)
                return synthUsage("--target-mb needs a size in MiB");
        } else if (a == "--slow-rank") {
            if (!value(v) || !parseNumber(v, o.slowRank) || o.slowRank < 0)
                return synthUsage("--slow-rank needs a rank number");
        } else if (a == "--slow-link") {
            if (!value(v) || !parseLink(v, o.slowLinkSrc, o.slowLinkDst))
                return synthUsage("--slow-link needs SRC-DST, e.g. 1-2");
        } else if (a == "--plant" || a == "--speedup" || a == "--clock-offset" || a == "--late-rank" || a == "--truth") {
            if (!value(v))
                return synthUsage(a + " needs a value");
            if (const int bad = plantOption(a, v, o, truthFile))
                return bad;
        } else if (!a.empty() && a[0] == '-') {
            return synthUsage("unknown option '" + a + "'");
        } else if (outDir.empty()) {
            outDir = a;
        } else {
            return synthUsage("more than one OUT_DIR given");
        }
    }
    if (outDir.empty())
        return synthUsage("missing OUT_DIR");
    if (const int bad = checkOptions(o, ranksGiven))
        return bad;
    return run(o, outDir, quiet, truthFile);
}

} // namespace npuscope::cli
