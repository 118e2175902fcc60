// CMP-FREQ (AI Core frequency drops under tasks) and CMP-DYNSHAPE (dynamic shapes, recompiles).
#include "advisor/rule_helpers.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace npuscope::advisor {

namespace {

void freq(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    std::vector<const CounterSeries*> series;
    for (const auto& s : f.p.counters)
        if ((containsCI(f.p.str(s.process), "AI Core Freq") || containsCI(f.p.str(s.name), "AI Core Freq")) && !s.ts.empty())
            series.push_back(&s);
    if (series.empty())
        return out.notChecked("needs the AI Core Freq counter in trace_view.json/msprof_*.json (collected with the "
                              "device hardware metrics, msprof --sys-hardware-mem=on / torch_npu sys_hardware_mem)");
    if (!f.hasInfo)
        return out.notChecked("needs info.json (aic_frequency: the nominal AI Core frequency)");
    const double drop = c.param("drop_ratio");
    struct G {
        TaskGroup g;
        double sumRel = 0, lost = 0;
        double fmin = kNaN, fmax = 0;
    };
    // The groups by name id as the tasks come (few names, many tasks), then by name.
    std::vector<G> byId;
    std::unordered_map<std::uint32_t, std::size_t> slot;
    std::uint32_t lastName = kNone;
    std::size_t lastSlot = 0;
    std::size_t n = 0;
    for (const auto& t : f.tasks) {
        if (t.cls != TaskClass::Cube && t.cls != TaskClass::Vector)
            continue;
        const CounterSeries* s = series.front();
        for (const auto* x : series)
            if (x->device == t.device)
                s = x;
        const DeviceInfo* info = f.p.info(t.device);
        const double fmax = info && info->aicFrequencyMHz > 0 ? info->aicFrequencyMHz : kNaN;
        if (isMissing(fmax))
            continue;
        // The value holding at the start, and every sample inside the task.
        auto it = std::upper_bound(s->ts.begin(), s->ts.end(), t.start);
        std::size_t i = static_cast<std::size_t>(it - s->ts.begin());
        double fi = kNaN;
        if (i > 0)
            fi = s->value[i - 1];
        for (; i < s->ts.size() && s->ts[i] < t.end(); ++i)
            fi = !isMissing(fi) ? std::min(fi, s->value[i]) : s->value[i];
        if (isMissing(fi))
            continue;
        ++n;
        fi = std::min(fi, fmax);
        // A name outside the pool reads as "", id 0's text.
        const std::uint32_t id = t.name.v < f.p.strings.size() ? t.name.v : 0;
        if (id != lastName) {
            const auto [it, added] = slot.try_emplace(id, byId.size());
            if (added) {
                byId.emplace_back();
                byId.back().g.key = byId.back().g.type = f.str(t.name);
            }
            lastName = id;
            lastSlot = it->second;
        }
        G& g = byId[lastSlot];
        g.g.tasks.push_back(&t);
        g.g.sumDur += static_cast<double>(t.dur);
        g.sumRel += (fmax - fi) / fmax;
        g.lost += static_cast<double>(t.dur) * (1 - fi / fmax);
        g.fmin = !isMissing(g.fmin) ? std::min(g.fmin, fi) : fi;
        g.fmax = fmax;
    }
    out.inputs.push_back("timeline AI Core Freq counter; info.json aic_frequency (" + std::to_string(n) + " tasks covered)");
    std::vector<G*> groups;
    for (G& g : byId)
        groups.push_back(&g);
    std::sort(groups.begin(), groups.end(), [](const G* a, const G* b) { return a->g.key < b->g.key; });
    for (G* gp : groups) {
        G& g = *gp;
        const std::string& name = g.g.key;
        const double rel = g.sumRel / static_cast<double>(g.g.tasks.size());
        if (rel < drop)
            continue;
        Finding& fd = out.fire(name);
        fd.costNs = roundNs(f.perStep(g.lost));
        fd.title = name + " runs at reduced AI Core frequency: " + fmtPct(rel) + " below " + fmtNum(g.fmax, 0) + " MHz (min "
                   + fmtNum(g.fmin, 0) + " MHz)";
        fd.description = "While " + std::to_string(g.g.tasks.size()) + " " + name
                         + " tasks ran, the AI Core clock was on average " + fmtPct(rel) + " below its nominal "
                         + fmtNum(g.fmax, 0) + " MHz (threshold " + fmtPct(drop) + "): the chip throttled.";
        fd.suggestions.push_back("Check the device temperature and power cap (npu-smi info), and the cooling.");
        fd.suggestions.push_back("Compare with another card or node running the same job.");
        const double gain = f.perStep(g.lost);
        setGain(fd, gain, "Σdur·(1 − f_i/f_max) = " + fmtMs(gain));
        claimTasks(fd, f, g.g.tasks);
        addLongestTasks(fd, f, g.g.tasks, [](const Task&) { return std::vector<Metric>{}; },
                        "frequency drop ≥ " + fmtPct(drop));
    }
    if (out.fired.empty())
        out.pass(std::to_string(n) + " tasks checked; no op with a mean frequency drop ≥ " + fmtPct(drop));
}

void dynshape(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    const KernelTable& k = f.p.kernels;
    std::size_t dyn = 0, withState = 0;
    for (std::size_t i = 0; i < k.size() && i < k.opState.size(); ++i) {
        const std::string_view s = f.p.str(k.opState[i]);
        if (s.empty() || s == "N/A")
            continue;
        ++withState;
        if (containsCI(s, "dynamic"))
            ++dyn;
    }
    std::vector<std::uint32_t> compiles;
    double compileNs = 0;
    for (const auto& tr : f.p.tracks) {
        if (tr.kind != TrackKind::Cann)
            continue;
        for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i)
            if (containsCI(f.p.str(f.p.slices.name[i]), "aclopCompileAndExecute")) {
                compiles.push_back(i);
                compileNs += static_cast<double>(f.p.slices.dur[i]);
            }
    }
    if (withState == 0 && !f.hasCann)
        return out.notChecked("needs the OP State column (kernel_details.csv of torch_npu ≥ 2.1, or op_summary of msprof) "
                              "or profiler Level1 (aclopCompileAndExecute events)");
    const double share = withState ? static_cast<double>(dyn) / static_cast<double>(withState) : 0;
    const double perStep = static_cast<double>(compiles.size()) / f.nSteps;
    out.inputs.push_back(f.kernelFile() + ": OP State (" + std::to_string(withState) + " ops); timeline "
                         "aclopCompileAndExecute (" + std::to_string(compiles.size()) + " events)");
    const bool allDyn = withState > 0 && share >= c.param("dynamic_share");
    const bool manyCompiles = f.hasCann && perStep >= c.param("compile_count");
    const std::string limits = "dynamic ops " + fmtPct(share) + " (threshold " + fmtPct(c.param("dynamic_share")) + "), "
                               + fmtNum(perStep, 1) + " compiles/step (threshold " + fmtNum(c.param("compile_count"), 0) + ")";
    // Below both limits, dynamic ops or online compiles still are the condition: a minor finding.
    if (!allDyn && !manyCompiles && dyn == 0 && compiles.empty())
        return out.pass(limits);
    const bool minor = !allDyn && !manyCompiles;
    Finding& fd = out.fire(manyCompiles ? "compile" : (allDyn ? "dynamic" : "some-dynamic"));
    fd.costNs = roundNs(f.perStep(compileNs));
    fd.minor = minor;
    fd.title = manyCompiles ? "Operators recompiled every step: " + fmtNum(perStep, 1) + " aclopCompileAndExecute/step, "
                                  + fmtMs(f.perStep(compileNs)) + "/step"
               : allDyn     ? "Every op runs as a dynamic-shape op (" + std::to_string(dyn) + "/" + std::to_string(withState) + ")"
               : dyn > 0    ? "Some ops run as dynamic-shape ops: " + std::to_string(dyn) + "/" + std::to_string(withState)
                                  + " dynamic, " + fmtNum(perStep, 1) + " compiles/step"
                            : "Ops compile online below the limit: " + fmtNum(perStep, 1) + " aclopCompileAndExecute/step, "
                                  + fmtMs(f.perStep(compileNs)) + "/step";
    fd.description = "The run compiles operators online (" + fmtNum(perStep, 1) + " compiles per step) and "
                     + fmtPct(share) + " of the ops are dynamic-shape; online compilation and dynamic kernels cost host and device time."
                     + (minor ? " Both are below the rule's limits (" + limits + "): a minor finding." : std::string());
    // The remedy depends on what drives the device: PyTorch, MindSpore or a bare ACL / graph app.
    if (f.torchNpu) {
        fd.suggestions.push_back("torch_npu.npu.set_compile_mode(jit_compile=False) to use the precompiled binary kernels.");
        fd.suggestions.push_back("torch_npu.npu.config.allow_internal_format = False.");
    } else if (containsCI(f.p.layout, "mindspore")) {
        fd.suggestions.push_back("MindSpore: keep the inputs' shapes fixed across steps (pad to a few bucket sizes) and run in "
                                 "graph mode, so each kernel compiles once.");
    } else {
        fd.suggestions.push_back("An ACL or graph application: give the model static input shapes when it is built (ATC "
                                 "--input_shape with fixed dimensions, or --dynamic_dims gears), so its operators compile "
                                 "once instead of at run time.");
        fd.suggestions.push_back("From PyTorch (torch_npu): torch_npu.npu.set_compile_mode(jit_compile=False).");
    }
    if (compileNs > 0)
        setGain(fd, f.perStep(compileNs), "Σ compile time = " + fmtMs(f.perStep(compileNs)));
    else
        noGain(fd, f.hasCann ? "no aclopCompileAndExecute events: no online compile time to save"
                             : "no aclopCompileAndExecute events to time (profiler Level0)");
    if (minor && compiles.empty() && dyn > 0) {
        Evidence e;
        e.at.rank = f.rank;
        e.at.row = f.kernelFile() + " OP State: " + std::to_string(dyn) + " of " + std::to_string(withState) + " ops dynamic";
        e.metrics.push_back({"dynamic ops", share * 100, "%"});
        e.threshold = "dynamic share " + fmtPct(share) + (allDyn ? " ≥ " : " < ") + fmtPct(c.param("dynamic_share"));
        fd.evidence.push_back(std::move(e));
    }
    for (std::uint32_t i : compiles) {
        Evidence e;
        e.at.rank = f.rank;
        e.at.ts = f.p.slices.start[i];
        e.at.dur = f.p.slices.dur[i];
        e.at.op = f.str(f.p.slices.name[i]);
        e.cost = f.p.slices.dur[i];
        e.threshold = "online compile";
        fd.evidence.push_back(std::move(e));
    }
    sortEvidence(fd.evidence, kMaxEvidence);
}

} // namespace

void addComputationRulesFreq(std::vector<RuleDef>& out)
{
    out.push_back({"CMP-FREQ", Category::Computation, false, "AI Core frequency drops while ops run", freq});
    out.push_back({"CMP-DYNSHAPE", Category::Computation, false, "Dynamic shapes and online operator compilation", dynshape});
}

} // namespace npuscope::advisor
