// Computation rules: memory-bound cube and vector ops, AI CPU ops, block dims, unbound ops,
// fusion chances, frequency drops and dynamic shapes.
#include "advisor/rule_helpers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace npuscope::advisor {

namespace {

const char* kPipeHint = " with --aic-metrics=PipeUtilization (torch_npu: aic_metrics=AiCMetrics.PipeUtilization)";

bool hasFp32(std::string_view dtypes)
{
    for (const auto& t : dtypeTokens(dtypes))
        if (t == "FLOAT" || t == "FLOAT32" || t == "DT_FLOAT")
            return true;
    return false;
}

double hbmPeak(const ProfileFacts& f, const Thresholds& th, int device)
{
    const DeviceInfo* d = f.p.info(device);
    if (d && d->hbmPeakGBps > 0)
        return d->hbmPeakGBps;
    return th.hbmPeakGBps(d ? d->chip : std::string());
}

// Below the cube roof's ridge the shape itself cannot feed the cube (an M = 1 decode GEMV);
// above it the data could be reused and the implementation does not: says which, and what to do.
void describeIntensity(Finding& fd, const OpIntensity& oi)
{
    const bool byShape = oi.intensity < oi.ridge;
    fd.description += " Its arithmetic intensity is " + fmtNum(oi.intensity, 1) + " FLOP/byte (" + fmtNum(oi.flops / 1e9, 3)
                      + " GFLOP over " + fmtNum(oi.bytes / 1e6, 2) + " MB a call), " + (byShape ? "below" : "above")
                      + " the cube roof's ridge at " + fmtNum(oi.ridge, 0) + " FLOP/byte: "
                      + (byShape ? "memory-bound by its shape, whatever the kernel does."
                                 : "the shape reuses its data enough, the kernel does not.");
    if (byShape)
        fd.suggestions.push_back("Memory-bound by shape (an M = 1 GEMV, as in decode): give each call more rows "
                                 "(batch requests or tokens), quantize the weights (W8A16 / W4A16) to cut the bytes "
                                 "it must read, or fuse it with its neighbours.");
    else
        fd.suggestions.push_back("Memory-bound by implementation: its shape allows reuse, so tune the tiling (AOE), "
                                 "give the weights the FRACTAL_NZ format, and keep the reused operand in L2.");
}

// ---- CMP-CUBE-MEMBOUND ---------------------------------------------------------------------

// The kernel table's columns the rule reads; the first present of each list counts.
struct CubeCols {
    std::vector<int> mac, mte2, rd, wr;
    int util = -1; // cube_utilization(%), when aic_mac_ratio is absent
    // The row's mac ratio: aic_mac_ratio, else cube_utilization as a share.
    double macOf(const KernelTable& k, std::uint32_t row) const
    {
        double m = firstMetric(k, mac, row);
        if (isMissing(m) && util >= 0)
            m = k.metric(util, row) / 100.0;
        return m;
    }
};

// One (op type, input shapes, dtypes) group of cube tasks (RankFacts::opShapes) and its
// duration-weighted ratios.
struct CubeGroup {
    const TaskGroup* tg = nullptr;
    Weighted mac, mte2, bw;
    bool fp32 = false;
    int device = -1;
};

struct CubeGroups {
    std::vector<CubeGroup> groups;              // by key
    std::size_t total = 0, withRatio = 0;       // cube tasks with a kernel row; those with a mac ratio
};

// The ratios of the cube groups of the rank's facts.
CubeGroups cubeGroups(const ProfileFacts& f, const CubeCols& cols)
{
    const KernelTable& k = f.p.kernels;
    CubeGroups out;
    for (const TaskGroup& tg : f.opShapes) {
        if (tg.cls != TaskClass::Cube)
            continue;
        CubeGroup& g = out.groups.emplace_back();
        g.tg = &tg;
        g.fp32 = hasFp32(tg.dtypes);
        g.device = tg.tasks.back()->device;
        out.total += tg.tasks.size();
        for (const Task* t : tg.tasks) {
            const double m = cols.macOf(k, t->kernel);
            const double d = static_cast<double>(t->dur);
            g.mac.add(d, m);
            g.mte2.add(d, firstMetric(k, cols.mte2, t->kernel));
            const double r = firstMetric(k, cols.rd, t->kernel), w = firstMetric(k, cols.wr, t->kernel);
            if (!isMissing(r) || !isMissing(w))
                g.bw.add(d, (!isMissing(r) ? r : 0) + (!isMissing(w) ? w : 0));
            if (!isMissing(m))
                ++out.withRatio;
        }
    }
    return out;
}

// The rule's thresholds, and which of the two memory signs a group showed.
struct CubeLimits {
    double macMax, mte2Min, bwMin, rDtype, rFuse;
};
struct CubeHit {
    double mac, mte2, bwShare, peak;
    bool mteHit;
};

// Fires the finding of one memory-bound cube group.
void fireCubeMembound(const RuleCtx& c, RuleOut& out, const std::string& key, const CubeGroup& g, const CubeCols& cols,
                      const CubeLimits& lim, const CubeHit& hit, const RooflineRoofs& roofs, bool minor)
{
    const ProfileFacts& f = *c.f;
    const KernelTable& k = f.p.kernels;
    const double m = hit.mac, r2 = hit.mte2, bwShare = hit.bwShare;
    const bool mteHit = hit.mteHit;
    const double share = mteHit ? r2 : bwShare;
    const double rr = g.fp32 ? lim.rDtype : lim.rFuse;
    const double cost = f.perStep(g.tg->sumDur);
    Finding& fd = out.fire(key);
    fd.family = g.tg->type;
    fd.familyTitle = g.tg->type + " memory-bound";
    fd.costNs = roundNs(cost);
    fd.minor = minor;
    const auto oi = opIntensity(f, g.tg->tasks.front()->kernel, roofs);
    const std::string kind = !oi ? std::string() : oi->intensity < oi->ridge ? " by shape" : " by implementation";
    fd.title = g.tg->type + " memory-bound" + kind + ": " + (mteHit ? "mte2 " + fmtRatio(r2) : "bw " + fmtRatio(bwShare) + " of peak")
               + ", mac " + fmtRatio(m) + ", " + fmtMs(cost) + "/step";
    fd.description = std::to_string(g.tg->tasks.size()) + " " + g.tg->type + " tasks with inputs [" + g.tg->shapes
                      + "] take " + fmtMs(cost) + " per step. Their cube (mac) pipe is busy " + fmtRatio(m)
                      + " of the time (threshold < " + fmtRatio(lim.macMax) + ") while "
                      + (mteHit ? "the MTE2 pipe (loads from global memory) is busy " + fmtRatio(r2) + " (≥ "
                                      + fmtRatio(lim.mte2Min) + ")"
                                : "main-memory traffic runs at " + fmtNum(g.bw.mean(), 0) + " GB/s, "
                                      + fmtRatio(bwShare) + " of the " + fmtNum(hit.peak, 0) + " GB/s HBM peak (≥ "
                                      + fmtRatio(lim.bwMin) + ")")
                      + ": the op waits on memory, not on compute." + minorNote(f, cost, c.th);
    if (oi)
        describeIntensity(fd, *oi);
    if (g.fp32)
        fd.suggestions.push_back("The inputs are 32-bit floats: run this op in fp16/bf16 (torch.autocast / AMP) to "
                                 "halve its memory traffic.");
    fd.suggestions.push_back("Fuse it with its producer or consumer so the intermediate tensor stays on chip.");
    fd.suggestions.push_back("Keep the inner axes multiples of 256 and avoid TransData around it (ND format, "
                             "torch_npu.npu.config.allow_internal_format=False).");
    fd.suggestions.push_back("Tune it with AOE (aoe --job_type=2) for a better tiling.");
    setGain(fd, cost * share * rr,
            "Σdur " + fmtMs(cost) + " × m " + fmtRatio(share) + (mteHit ? " (mte2)" : " (bw share)") + " × r "
                + fmtRatio(rr) + (g.fp32 ? " (32-bit inputs)" : " (fusion)") + " = " + fmtMs(cost * share * rr));
    claimTasks(fd, f, g.tg->tasks);
    TopEvidence top;
    for (const Task* t : g.tg->tasks)
        top.offer(t->dur, [&] {
            return taskEvidence(f, *t,
                                {{"mac ratio", cols.macOf(k, t->kernel), ""},
                                 {"mte2 ratio", firstMetric(k, cols.mte2, t->kernel), ""},
                                 {"main-memory bw", firstMetric(k, cols.rd, t->kernel) + firstMetric(k, cols.wr, t->kernel), "GB/s"}},
                                "mac < " + fmtRatio(lim.macMax) + " and "
                                    + (mteHit ? "mte2 ≥ " + fmtRatio(lim.mte2Min) : "bw share ≥ " + fmtRatio(lim.bwMin)));
        });
    top.moveInto(fd.evidence);
    fd.scope.steps = "all " + std::to_string(f.nSteps) + " steps (aggregate)";
}

void cubeMembound(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    const KernelTable& k = f.p.kernels;
    if (!f.hasKernels)
        return out.notChecked("needs op_summary_*.csv or kernel_details.csv" + std::string(kPipeHint));
    CubeCols cols;
    cols.mac = metricCols(k, {"aic_mac_ratio", "mac_ratio"});
    cols.util = k.metricIndex({"cube_utilization(%)"});
    cols.mte2 = metricCols(k, {"aic_mte2_ratio", "mte2_ratio"});
    cols.rd = metricCols(k, {"aic_main_mem_read_bw(GB/s)", "main_mem_read_bw(GB/s)"});
    cols.wr = metricCols(k, {"aic_main_mem_write_bw(GB/s)", "main_mem_write_bw(GB/s)"});
    if ((cols.mac.empty() && cols.util < 0) || (cols.mte2.empty() && cols.rd.empty() && cols.wr.empty()))
        return out.notChecked("needs " + f.kernelFile() + kPipeHint
                              + " or --aic-metrics=Memory (no aic_mac_ratio/aic_mte2_ratio or main-memory bandwidth columns)");
    const CubeLimits lim{c.param("mac_max"), c.param("mte2_min"), c.param("bw_share_min"), c.param("r_dtype"),
                         c.param("r_fuse")};
    const double minorDur = c.param("min_dur_us") * 1e3;
    const double minTime = c.th.minShare() * f.stepTime;
    const RooflineRoofs roofs = rooflineRoofs(f, c.th);

    const CubeGroups all = cubeGroups(f, cols);
    out.inputs.push_back(f.kernelFile() + ": aic_mac_ratio/cube_utilization, aic_mte2_ratio, main-memory bandwidth ("
                         + coverage(all.withRatio, all.total, "ratios") + ")");
    std::size_t checked = 0;
    double worstMac = kNaN;
    for (const CubeGroup& g : all.groups) {
        const std::string& key = g.tg->key;
        const bool minor = f.perStep(g.tg->sumDur) < minTime;
        if (minor && !worthAMinorFinding(*g.tg, minorDur))
            continue;
        CubeHit hit{g.mac.mean(), g.mte2.mean(), kNaN, hbmPeak(f, c.th, g.device), false};
        hit.bwShare = g.bw.mean() / hit.peak;
        if (isMissing(hit.mac))
            continue;
        ++checked;
        if (isMissing(worstMac) || hit.mac < worstMac)
            worstMac = hit.mac;
        hit.mteHit = !isMissing(hit.mte2) && hit.mte2 >= lim.mte2Min;
        const bool bwHit = !isMissing(hit.bwShare) && hit.bwShare >= lim.bwMin;
        if (hit.mac < lim.macMax && (hit.mteHit || bwHit))
            fireCubeMembound(c, out, key, g, cols, lim, hit, roofs, minor);
    }
    if (out.fired.empty())
        out.pass(std::to_string(checked) + " cube op groups checked (below " + fmtPct(c.th.minShare())
                 + " of the step, those with a task ≥ " + fmtNum(minorDur / 1e3, 0) + " µs)"
                 + (!isMissing(worstMac) ? ", lowest mac " + fmtRatio(worstMac) : std::string())
                 + "; none with mac < " + fmtRatio(lim.macMax) + " and mte2 ≥ " + fmtRatio(lim.mte2Min) + " (or bw share ≥ "
                 + fmtRatio(lim.bwMin) + ")");
}

// ---- CMP-VEC-MEM ---------------------------------------------------------------------------
void vecMem(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    const KernelTable& k = f.p.kernels;
    if (!f.hasKernels)
        return out.notChecked("needs op_summary_*.csv or kernel_details.csv" + std::string(kPipeHint));
    const auto vec = metricCols(k, {"aiv_vec_ratio", "vec_ratio", "aic_vec_ratio"});
    const auto mte2 = metricCols(k, {"aiv_mte2_ratio", "mte2_ratio", "aic_mte2_ratio"});
    const auto mte3 = metricCols(k, {"aiv_mte3_ratio", "mte3_ratio", "aic_mte3_ratio"});
    if (vec.empty() || (mte2.empty() && mte3.empty()))
        return out.notChecked("needs " + f.kernelFile() + kPipeHint + " (no aiv_vec_ratio/aiv_mte2_ratio columns)");
    const double mteMin = c.param("mte_min"), vecMax = c.param("vec_max"), r = c.param("r");
    const double minTime = c.th.minShare() * f.stepTime, minorDur = c.param("min_dur_us") * 1e3;
    struct G {
        const TaskGroup& g;
        Weighted vec, mte;
    };
    std::vector<G> groups; // RankFacts::opTypes' vector groups, by type
    std::size_t total = 0, have = 0;
    for (const TaskGroup& tg : f.opTypes) {
        if (tg.cls != TaskClass::Vector)
            continue;
        G& g = groups.emplace_back(G{tg, {}, {}});
        total += tg.tasks.size();
        for (const Task* t : tg.tasks) {
            const double d = static_cast<double>(t->dur);
            const double v = firstMetric(k, vec, t->kernel);
            const double a = firstMetric(k, mte2, t->kernel), b = firstMetric(k, mte3, t->kernel);
            const double m = isMissing(a) ? b : (isMissing(b) ? a : std::max(a, b));
            g.vec.add(d, v);
            g.mte.add(d, m);
            if (!isMissing(v))
                ++have;
        }
    }
    out.inputs.push_back(f.kernelFile() + ": aiv_vec_ratio, aiv_mte2_ratio, aiv_mte3_ratio (" + coverage(have, total, "ratios")
                         + ")");
    std::size_t checked = 0;
    for (const G& g : groups) {
        const std::string& key = g.g.key;
        const double cost = f.perStep(g.g.sumDur);
        const bool minor = cost < minTime;
        if (minor && !worthAMinorFinding(g.g, minorDur))
            continue;
        const double v = g.vec.mean(), m = g.mte.mean();
        if (isMissing(v) || isMissing(m))
            continue;
        ++checked;
        if (!(m >= mteMin && v < vecMax))
            continue;
        Finding& fd = out.fire(key);
        fd.costNs = roundNs(cost);
        fd.minor = minor;
        fd.title = key + " memory-bound vector op: mte " + fmtRatio(m) + ", vec " + fmtRatio(v) + ", " + fmtMs(cost) + "/step";
        fd.description = std::to_string(g.g.tasks.size()) + " " + key + " tasks take " + fmtMs(cost)
                         + " per step; the vector unit computes only " + fmtRatio(v) + " of the time (< " + fmtRatio(vecMax)
                         + ") while the data movers (max of MTE2 in, MTE3 out) are busy " + fmtRatio(m) + " (≥ "
                         + fmtRatio(mteMin) + "): each element is loaded and stored for little work."
                         + minorNote(f, cost, c.th);
        const std::string lk = lower(key);
        if (lk.find("layernorm") != std::string::npos)
            fd.suggestions.push_back("Fuse the residual add with it: torch_npu.npu_add_layer_norm.");
        else if (lk.find("rms") != std::string::npos)
            fd.suggestions.push_back("Use the fused torch_npu.npu_rms_norm.");
        fd.suggestions.push_back("Fuse it with its neighbours (npu_add_layer_norm, npu_rms_norm, fused optimizers) so "
                                 "intermediates stay in the unified buffer.");
        fd.suggestions.push_back("In graph mode, enable the fusion passes (ATC --fusion_switch_file).");
        setGain(fd, cost * m * r,
                "Σdur " + fmtMs(cost) + " × mte " + fmtRatio(m) + " × r " + fmtRatio(r) + " = " + fmtMs(cost * m * r));
        claimTasks(fd, f, g.g.tasks);
        TopEvidence top;
        for (const Task* t : g.g.tasks)
            top.offer(t->dur, [&] {
                return taskEvidence(f, *t,
                                    {{"vec ratio", firstMetric(k, vec, t->kernel), ""},
                                     {"mte2 ratio", firstMetric(k, mte2, t->kernel), ""},
                                     {"mte3 ratio", firstMetric(k, mte3, t->kernel), ""}},
                                    "mte ≥ " + fmtRatio(mteMin) + " and vec < " + fmtRatio(vecMax));
            });
        top.moveInto(fd.evidence);
        fd.scope.steps = "all " + std::to_string(f.nSteps) + " steps (aggregate)";
    }
    if (out.fired.empty())
        out.pass(std::to_string(checked) + " vector op types checked (below " + fmtPct(c.th.minShare())
                 + " of the step, those with a task ≥ " + fmtNum(minorDur / 1e3, 0) + " µs); none with mte ≥ " + fmtRatio(mteMin) + " and vec < " + fmtRatio(vecMax));
}

} // namespace

void addFusionRules(std::vector<RuleDef>& out);  // rules_fusion.cpp
void addCoreUseRules(std::vector<RuleDef>& out); // rules_core_use.cpp

void addComputationRules(std::vector<RuleDef>& out)
{
    out.push_back({"CMP-CUBE-MEMBOUND", Category::Computation, false,
                   "Cube ops (MatMul, Conv) bound by memory traffic instead of compute", cubeMembound});
    out.push_back({"CMP-VEC-MEM", Category::Computation, false,
                   "Vector ops that mostly move data (LayerNorm, casts, element-wise)", vecMem});
    addFusionRules(out);
    addCoreUseRules(out);
}

} // namespace npuscope::advisor
