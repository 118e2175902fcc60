// How ops use the AI cores: ops on the slow AI CPU, block counts that leave cores idle in the
// last wave, long ops bound by no pipe.
#include "advisor/rule_helpers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace npuscope::advisor {

namespace {

// ---- CMP-AICPU -----------------------------------------------------------------------------
void aicpu(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (!f.hasKernels && f.tasks.empty())
        return out.notChecked(needsOps(f));
    const double minDur = c.param("min_dur_us") * 1e3, r = c.param("r");
    const auto indexOps = stringList(c.paramJson("index_ops"));
    const auto argminOps = stringList(c.paramJson("argmin_ops"));
    const auto doubles = stringList(c.paramJson("double_dtypes"));
    const std::string fixedIn = c.paramJson("argmin_fixed_in").is_string() ? c.paramJson("argmin_fixed_in").get<std::string>() : "";
    const std::string cann = f.p.meta.cannVersion;
    // The AI Core dtype list of the newest entry whose version is ≤ CANN; unknown CANN → newest.
    std::vector<std::string> aicoreTypes;
    std::string listFrom;
    const auto& lists = c.paramJson("aicore_dtypes");
    if (lists.is_array())
        for (const auto& l : lists) {
            const std::string from = l.value("from", std::string("0"));
            if ((cann.empty() || compareCannVersion(from, cann) <= 0)
                && (listFrom.empty() || compareCannVersion(from, listFrom) >= 0)) {
                listFrom = from;
                aicoreTypes = stringList(l.value("dtypes", nlohmann::json::array()));
            }
        }
    std::map<std::string, TaskGroup> groups;
    std::size_t n = 0;
    for (const auto& t : f.tasks) {
        if (t.cls != TaskClass::AiCpu)
            continue;
        ++n;
        if (static_cast<double>(t.dur) < minDur)
            continue; // the task's own duration, not the longest op of the profile
        const std::string type = f.str(t.type);
        auto& g = groups[type];
        g.key = g.type = type;
        g.tasks.push_back(&t);
        g.sumDur += static_cast<double>(t.dur);
    }
    out.inputs.push_back(f.kernelFile() + ": AI_CPU tasks (" + std::to_string(n) + "), input dtypes; AI Core dtype list from CANN "
                         + listFrom + (cann.empty() ? " (CANN version unknown: newest list)" : " (CANN " + cann + ")"));
    for (auto& [type, g] : groups) {
        const double cost = f.perStep(g.sumDur);
        std::set<std::string> reasons;
        std::string badType, castFrom, castTo;
        for (const Task* t : g.tasks) {
            if (t->kernel == kNone)
                continue;
            if (castFrom.empty()) {
                castFrom = f.p.str(f.p.kernels.inputDtypes[t->kernel]);
                castTo = f.p.str(f.p.kernels.outputDtypes[t->kernel]);
            }
            for (const auto& d : dtypeTokens(f.p.str(f.p.kernels.inputDtypes[t->kernel]))) {
                if (std::find(doubles.begin(), doubles.end(), d) != doubles.end())
                    reasons.insert("double");
                else if (!aicoreTypes.empty() && std::find(aicoreTypes.begin(), aicoreTypes.end(), d) == aicoreTypes.end()) {
                    reasons.insert("dtype");
                    badType = d;
                }
            }
        }
        if (std::find(indexOps.begin(), indexOps.end(), type) != indexOps.end())
            reasons.insert("index");
        if (std::find(argminOps.begin(), argminOps.end(), type) != argminOps.end() && !cann.empty()
            && compareCannVersion(cann, fixedIn) < 0)
            reasons.insert("argmin");
        Finding& fd = out.fire(type);
        fd.costNs = roundNs(cost);
        fd.minor = cost < c.th.minShare() * f.stepTime;
        fd.title = type + " runs on AI CPU: " + std::to_string(g.tasks.size()) + " tasks ≥ " + fmtNum(minDur / 1e3, 0)
                   + " µs, " + fmtMs(cost) + "/step";
        fd.description = "The AI CPU executes " + type + " (" + std::to_string(g.tasks.size()) + " tasks of at least "
                         + fmtNum(minDur / 1e3, 0) + " µs each, " + fmtMs(cost)
                         + " per step); AI CPU ops are slow and serialise the stream." + minorNote(f, cost, c.th);
        if (lower(type) == "cast" && !castFrom.empty() && !castTo.empty())
            fd.suggestions.push_back("A Cast on the AI CPU means a dtype pair the AI Core Cast does not take (here "
                                     + castFrom + " → " + castTo + "): keep the tensor in a dtype the AI Core supports "
                                     "(e.g. int32/int64, float16/float32) or drop the conversion.");
        if (reasons.count("double"))
            fd.suggestions.push_back("It takes float64 (DOUBLE) inputs, which AI Core does not support: use float32/float16.");
        if (reasons.count("dtype"))
            fd.suggestions.push_back("Input dtype " + badType + " is not on the AI Core list for CANN " + listFrom
                                     + ": cast it to a supported dtype (e.g. int32, float16).");
        if (reasons.count("index"))
            fd.suggestions.push_back("Index/IndexPut/NonZero run on AI CPU: replace them with masks (torch.where, "
                                     "masked_fill) or gather/scatter on fixed shapes.");
        if (reasons.count("argmin"))
            fd.suggestions.push_back("ArgMin runs on AI CPU before CANN " + fixedIn + ": upgrade CANN or use argmax on "
                                     "the negated tensor.");
        fd.suggestions.push_back("Otherwise replace the op with an AI Core equivalent or move it off the training step.");
        setGain(fd, cost * r, "Σdur " + fmtMs(cost) + " × r " + fmtRatio(r) + " = " + fmtMs(cost * r));
        claimTasks(fd, f, g.tasks);
        addLongestTasks(
            fd, f, g.tasks, [](const Task& t) { return std::vector<Metric>{{"duration", static_cast<double>(t.dur) / 1e3, "µs"}}; },
            "dur ≥ " + fmtNum(minDur / 1e3, 0) + " µs");
    }
    if (out.fired.empty())
        out.pass(std::to_string(n) + " AI CPU tasks; none ≥ " + fmtNum(minDur / 1e3, 0) + " µs");
}

// ---- CMP-BLOCKDIM --------------------------------------------------------------------------
void blockDim(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (!f.hasKernels)
        return out.notChecked(needsOps(f) + " with Block Dim");
    if (!f.hasInfo)
        return out.notChecked("needs info.json (device_N/info.json.N in the PROF_* folder: ai_core_num, aiv_num)");
    const double minDur = c.param("min_dur_us") * 1e3;
    const KernelTable& k = f.p.kernels;
    struct G {
        TaskGroup g;
        double lost = 0;
        int b = 0, cores = 0;
    };
    std::map<std::string, G> groups;
    std::size_t total = 0, have = 0;
    // A task type's core kind, found once per distinct type (the last one remembered).
    NameId lastType;
    bool cube = false, mixAic = false;
    for (const TaskGroup& tg : f.opTypes) { // the cube and vector tasks with a kernel row
        G* group = nullptr; // made at the group's first task that loses cores
        const std::vector<const Task*>& tasks = tg.tasks;
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            // A type's tasks lie all over the run: their tasks and kernel rows are fetched ahead.
            if (i + 16 < tasks.size())
                __builtin_prefetch(tasks[i + 16]);
            if (i + 8 < tasks.size())
                __builtin_prefetch(&k.blockDim[tasks[i + 8]->kernel]);
            const Task& t = *tasks[i];
            ++total;
            const std::int64_t b = k.blockDim[t.kernel];
            const DeviceInfo* info = f.p.info(t.device);
            if (b <= 0 || !info)
                continue;
            if (!lastType.valid() || t.taskType != lastType) {
                const std::string_view tt = f.p.str(t.taskType);
                mixAic = tt.find("MIX_AIC") != std::string_view::npos;
                cube = mixAic || tt.find("AI_CORE") != std::string_view::npos;
                lastType = t.taskType;
            }
            const int cores = cube ? info->aiCoreNum : info->aivNum;
            if (cores <= 0)
                continue;
            ++have;
            if (static_cast<double>(t.dur) < minDur || b % cores == 0)
                continue;
            if (mixAic && info->aivNum > 0 && k.mixBlockDim[t.kernel] > 0 && k.mixBlockDim[t.kernel] % info->aivNum == 0)
                continue;
            const double waves = std::ceil(static_cast<double>(b) / cores);
            const double eff = static_cast<double>(b) / (waves * cores);
            if (!group)
                group = &groups[tg.type];
            G& g = *group;
            g.g.key = g.g.type = tg.type;
            g.g.tasks.push_back(&t);
            g.g.sumDur += static_cast<double>(t.dur);
            g.lost += static_cast<double>(t.dur) * (1 - eff);
            g.b = static_cast<int>(b);
            g.cores = cores;
        }
    }
    out.inputs.push_back(f.kernelFile() + ": Block Dim (" + coverage(have, total, "block dims") + "); info.json ai_core_num/aiv_num");
    for (auto& [type, g] : groups) {
        const double cost = f.perStep(g.g.sumDur);
        Finding& fd = out.fire(type);
        fd.costNs = roundNs(cost);
        fd.minor = cost < c.th.minShare() * f.stepTime;
        fd.title = type + " block dim " + std::to_string(g.b) + " not a multiple of " + std::to_string(g.cores) + " cores, "
                   + fmtMs(cost) + "/step";
        fd.description = std::to_string(g.g.tasks.size()) + " " + type + " tasks launch a block count that leaves cores idle "
                         "in the last wave (e.g. " + std::to_string(g.b) + " blocks on " + std::to_string(g.cores)
                         + " cores)." + minorNote(f, cost, c.th);
        fd.suggestions.push_back("Tune the op with AOE (put the top-10 such ops in the tune file).");
        fd.suggestions.push_back("Choose tiling so the block count is a multiple of the core count.");
        const double gain = f.perStep(g.lost);
        setGain(fd, gain, "Σdur·(1 − b/(⌈b/c⌉·c)) = " + fmtMs(gain));
        claimTasks(fd, f, g.g.tasks);
        addLongestTasks(
            fd, f, g.g.tasks,
            [&](const Task& t) { return std::vector<Metric>{{"block dim", static_cast<double>(k.blockDim[t.kernel]), ""}}; },
            "b mod " + std::to_string(g.cores) + " ≠ 0");
    }
    if (out.fired.empty())
        out.pass(std::to_string(have) + " ops with block dims; none ≥ " + fmtNum(minDur / 1e3, 0)
                 + " µs with a partial last wave");
}

// ---- CMP-NOBOUND ---------------------------------------------------------------------------
void noBound(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    if (!f.hasKernels)
        return out.notChecked(needsOps(f) + " with --aic-metrics=PipeUtilization");
    const KernelTable& k = f.p.kernels;
    std::vector<int> cols;
    for (const char* pre : {"aic_", "aiv_", ""})
        for (const char* pipe : {"mac", "vec", "scalar", "mte1", "mte2", "mte3", "fixpipe"}) {
            const int i = k.metricIndex(std::string(pre) + pipe + "_ratio");
            if (i >= 0)
                cols.push_back(i);
        }
    if (cols.empty())
        return out.notChecked("needs " + f.kernelFile() + " with --aic-metrics=PipeUtilization (no *_ratio columns)");
    const double bound = c.param("bound_ratio"), minDur = c.param("min_dur_us") * 1e3;
    struct G {
        TaskGroup g;
        double gain = 0;
        Weighted mx;
    };
    std::vector<G> groups;
    U64Map groupOf; // op type id -> index in groups
    std::size_t total = 0, have = 0;
    for (const TaskGroup& tg : f.opTypes) // the cube and vector tasks with a kernel row
        for (const Task* task : tg.tasks) {
            const Task& t = *task;
            ++total;
            double mx = kNaN;
            for (int ci : cols) {
                const double v = k.metrics[static_cast<std::size_t>(ci)][t.kernel];
                if (!isMissing(v))
                    mx = !isMissing(mx) ? std::max(mx, v) : v;
            }
            if (isMissing(mx))
                continue; // per op: a ratio-less row is not evidence of anything
            ++have;
            if (mx > bound || static_cast<double>(t.dur) <= minDur)
                continue;
            G& g = addToTypeGroup(groups, groupOf, f, t);
            g.gain += static_cast<double>(t.dur) * (1 - mx / bound);
            g.mx.add(static_cast<double>(t.dur), mx);
        }
    out.inputs.push_back(f.kernelFile() + ": pipe ratios (" + coverage(have, total, "ratios") + ")");
    byType(groups);
    for (auto& g : groups) {
        const std::string& type = g.g.type;
        const double cost = f.perStep(g.g.sumDur);
        if (cost < c.th.minShare() * f.stepTime)
            continue;
        Finding& fd = out.fire(type);
        fd.costNs = roundNs(cost);
        fd.title = type + " bound by no pipe: busiest pipe " + fmtRatio(g.mx.mean()) + ", " + fmtMs(cost) + "/step";
        fd.description = std::to_string(g.g.tasks.size()) + " " + type + " tasks longer than " + fmtNum(minDur / 1e3, 0)
                         + " µs keep every pipe below " + fmtRatio(bound)
                         + " busy: latency, synchronisation or a poor tiling, not throughput, limits them.";
        fd.suggestions.push_back("Tune the op with AOE.");
        fd.suggestions.push_back("Revisit the tiling (bigger tiles, double buffering) so one pipe becomes the bound.");
        const double gain = f.perStep(g.gain);
        setGain(fd, gain, "Σdur·(1 − max ratio/" + fmtRatio(bound) + ") = " + fmtMs(gain));
        claimTasks(fd, f, g.g.tasks);
        addLongestTasks(fd, f, g.g.tasks, [](const Task&) { return std::vector<Metric>{}; },
                        "all pipe ratios ≤ " + fmtRatio(bound));
    }
    if (out.fired.empty())
        out.pass(coverage(have, total, "ratios") + "; no op type ≥ " + fmtPct(c.th.minShare()) + " of step with all pipes ≤ "
                 + fmtRatio(bound));
}

} // namespace

void addComputationRulesFreq(std::vector<RuleDef>& out); // rules_computation_freq.cpp

void addCoreUseRules(std::vector<RuleDef>& out)
{
    out.push_back({"CMP-AICPU", Category::Computation, false, "Ops that run on the slow AI CPU", aicpu});
    out.push_back({"CMP-BLOCKDIM", Category::Computation, false, "Block counts that leave AI cores idle in the last wave",
                   blockDim});
    out.push_back({"CMP-NOBOUND", Category::Computation, false, "Long ops bound by no pipe", noBound});
    addComputationRulesFreq(out);
}

} // namespace npuscope::advisor
