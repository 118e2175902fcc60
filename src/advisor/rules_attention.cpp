// CMP-FA: FlashAttention kernels (FlashAttentionScore and its gradient, the prompt and
// incremental variants) that reach little of the cube roof, or whose head dimension or sequence
// length is not a multiple of the kernels' tile. FLOPs come from the shapes (attentionFlops in
// roofline.cpp) or the fops columns; the pipe ratios say what holds the kernel back.
#include "advisor/roofline.h"
#include "advisor/rule_helpers.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace npuscope::advisor {

namespace {

// B, N, Sq and D of one call (attentionShape), as whole numbers; zeros when the shapes do not
// give them.
struct AttentionDims {
    std::int64_t b = 0, n = 0, sq = 0, d = 0;
};

AttentionDims attentionDims(std::string_view inShapes, std::string_view outShapes, bool grad)
{
    const auto in = parseShapes(inShapes);
    const auto out = parseShapes(outShapes);
    const auto a = in && out ? attentionShape(*in, *out, grad) : std::nullopt;
    const auto whole = [](double v) { return v >= 1 && v < 1e12 ? static_cast<std::int64_t>(v) : std::int64_t{0}; };
    if (!a)
        return {};
    return {whole(a->b), whole(a->n), whole(a->sq), whole(a->d)};
}

struct Group {
    TaskGroup g;
    Weighted mac, mte2, vec, fixpipe;
    AttentionDims dims;
    std::optional<OpIntensity> oi;
    bool grad = false;
};

// The pipe that is busiest, as a phrase for the description, and what to do about it.
std::pair<std::string, std::string> busiestPipe(const Group& g)
{
    struct P {
        const char* name;
        double v;
        const char* advice;
    };
    const P pipes[] = {
        {"MTE2 (loads of Q, K and V from global memory)", g.mte2.mean(),
         "The loads dominate: keep K and V in bf16/fp16 (or int8 KV cache at inference), share K/V heads (GQA), and "
         "give the kernel longer query blocks so each K/V block is reused more."},
        {"vector (the online softmax)", g.vec.mean(),
         "The online softmax on the vector units dominates: a head dimension of 128 balances it against the cube "
         "work; avoid an explicit dropout mask (keep_prob 1 or a generated mask)."},
        {"fixpipe (writing dQ, dK, dV back)", g.grad ? g.fixpipe.mean() : kNaN,
         "Writing the gradients back dominates: accumulate dK/dV in fp32 only where needed, and check that the "
         "layout (BNSD or BSND) needs no transposes after the kernel."},
    };
    const P* best = nullptr;
    for (const P& p : pipes)
        if (!isMissing(p.v) && (!best || p.v > best->v))
            best = &p;
    if (!best)
        return {};
    return {std::string(best->name) + " is the busiest pipe at " + fmtRatio(best->v), best->advice};
}

// The kernel table's pipe-ratio columns the rule reports.
struct AttentionCols {
    std::vector<int> mac, mte2, vec, fixpipe;
};

// The FlashAttention tasks grouped by op type and input shapes, in the order first seen.
std::vector<Group> attentionGroups(const ProfileFacts& f, const AttentionCols& cols, const RooflineRoofs& roofs)
{
    const KernelTable& k = f.p.kernels;
    std::vector<Group> groups;
    std::map<std::string, std::size_t> byKey;
    for (const auto& t : f.tasks) {
        if (t.kernel == kNone)
            continue;
        const std::string type = f.str(t.type);
        if (!isFlashAttention(type))
            continue;
        const std::string shapes(f.p.str(k.inputShapes[t.kernel]));
        const std::string key = type + " [" + shapes + "]";
        const auto [it, added] = byKey.try_emplace(key, groups.size());
        if (added) {
            groups.emplace_back();
            Group& g = groups.back();
            g.g.key = key;
            g.g.type = type;
            g.g.shapes = shapes;
            g.grad = containsCI(type, "grad");
            g.dims = attentionDims(shapes, f.p.str(k.outputShapes[t.kernel]), g.grad);
            g.oi = opIntensity(f, t.kernel, roofs);
        }
        Group& g = groups[it->second];
        g.g.tasks.push_back(&t);
        g.g.sumDur += static_cast<double>(t.dur);
        const double d = static_cast<double>(t.dur);
        g.mac.add(d, firstMetric(k, cols.mac, t.kernel));
        g.mte2.add(d, firstMetric(k, cols.mte2, t.kernel));
        g.vec.add(d, firstMetric(k, cols.vec, t.kernel));
        g.fixpipe.add(d, firstMetric(k, cols.fixpipe, t.kernel));
    }
    return groups;
}

// How one group fares: its efficiency against the roofline, and its dimensions against the
// alignment.
struct AttentionVerdict {
    double achieved = kNaN, attainable = kNaN, eff = kNaN;
    bool slow = false, badD = false, badS = false;
};

struct AttentionLimits {
    double effMin, effTarget;
    std::int64_t align; // 0: not checked
};

// Fires the finding of one group that is slow or unaligned.
void fireAttention(const RuleCtx& c, RuleOut& out, const Group& g, const AttentionCols& cols, const AttentionLimits& lim,
                   const AttentionVerdict& v, double cost, bool minor)
{
    const ProfileFacts& f = *c.f;
    const KernelTable& k = f.p.kernels;
    const std::vector<int>&mac = cols.mac, &mte2 = cols.mte2, &vec = cols.vec;
    const double effMin = lim.effMin, effTarget = lim.effTarget;
    const std::int64_t align = lim.align;
    const double achieved = v.achieved, attainable = v.attainable, eff = v.eff;
    const bool slow = v.slow, badD = v.badD, badS = v.badS;
    Finding& fd = out.fire(g.g.key);
    fd.family = g.g.type;
    fd.familyTitle = g.g.type + (slow ? " below the cube roof" : " with unaligned dimensions");
    fd.costNs = roundNs(cost);
    fd.minor = minor;
    std::string what;
    if (slow)
        what = fmtRatio(eff) + " of the attainable " + fmtNum(attainable / 1e12, 0) + " TFLOP/s";
    if (badD || badS)
        what += (what.empty() ? "" : ", ") + std::string(badD ? "head dim " + std::to_string(g.dims.d) : "")
                + (badD && badS ? " and " : "") + (badS ? "sequence " + std::to_string(g.dims.sq) : "") + " not a multiple of "
                + std::to_string(align);
    fd.title = g.g.type + ": " + what + ", " + fmtMs(cost) + "/step";
    fd.description = std::to_string(g.g.tasks.size()) + " " + g.g.type + " tasks with inputs [" + g.g.shapes + "] take "
                     + fmtMs(cost) + " per step.";
    if (g.dims.d > 0)
        fd.description += " Batch " + std::to_string(g.dims.b) + ", " + std::to_string(g.dims.n) + " heads, query length "
                          + std::to_string(g.dims.sq) + ", head dim " + std::to_string(g.dims.d)
                          + " (from the softmax statistics tensor [B, N, Sq, 8] and the size of q).";
    if (g.oi)
        fd.description += " Each call does " + fmtNum(g.oi->flops / 1e9, 1) + " GFLOP (every block counted: a causal "
                          "mask skipped with a sparse mode halves that, so the efficiency is an upper bound) at "
                          + fmtNum(g.oi->intensity, 0) + " FLOP/byte; the calls reach " + fmtNum(achieved / 1e12, 1)
                          + " TFLOP/s, " + fmtRatio(eff) + " of the " + fmtNum(attainable / 1e12, 0)
                          + " TFLOP/s the roofline allows (threshold < " + fmtRatio(effMin) + ").";
    const auto [pipeText, pipeAdvice] = busiestPipe(g);
    if (!pipeText.empty())
        fd.description += " " + pipeText + ".";
    fd.description += minorNote(f, cost, c.th);
    if (badD || badS)
        fd.suggestions.push_back("Pad the " + std::string(badD ? "head dimension" : "") + (badD && badS ? " and the " : "")
                                 + (badS ? "sequence length" : "") + " to a multiple of " + std::to_string(align)
                                 + ": the kernel tiles by " + std::to_string(align) + " and computes the padding of a partial tile anyway.");
    if (slow && !pipeText.empty())
        fd.suggestions.push_back(pipeAdvice);
    if (slow)
        fd.suggestions.push_back("With a causal mask, pass it as a sparse mode (torch_npu.npu_fusion_attention(..., "
                                 "sparse_mode=2 or 3) with the compressed 2048×2048 mask) so fully masked blocks are skipped "
                                 "instead of computed.");
    if (slow && eff < effTarget)
        setGain(fd, cost * (1 - eff / effTarget),
                "Σdur " + fmtMs(cost) + " × (1 − efficiency " + fmtRatio(eff) + " / target " + fmtRatio(effTarget) + ") = "
                    + fmtMs(cost * (1 - eff / effTarget)));
    else
        noGain(fd, "alignment: the saving depends on how much of the last tile is padding");
    claimTasks(fd, f, g.g.tasks);
    addLongestTasks(
        fd, f, g.g.tasks,
        [&](const Task& t) {
            return std::vector<Metric>{{"mac ratio", firstMetric(k, mac, t.kernel), ""},
                                       {"mte2 ratio", firstMetric(k, mte2, t.kernel), ""},
                                       {"vec ratio", firstMetric(k, vec, t.kernel), ""}};
        },
        slow ? "efficiency < " + fmtRatio(effMin) : "dims multiple of " + std::to_string(align));
    fd.scope.steps = "all " + std::to_string(f.nSteps) + " steps (aggregate)";
}

void flashAttention(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    const KernelTable& k = f.p.kernels;
    if (!f.hasKernels)
        return out.notChecked("needs op_summary_*.csv or kernel_details.csv with Input Shapes");
    const double effMin = c.param("efficiency_min"), effTarget = c.param("efficiency_target");
    const double alignParam = c.param("align");
    const std::int64_t align = alignParam >= 1 && alignParam <= 1 << 20 ? static_cast<std::int64_t>(alignParam) : 0;
    const double minTime = c.th.minShare() * f.stepTime, minorDur = c.param("min_dur_us") * 1e3;
    const AttentionCols cols{metricCols(k, {"aic_mac_ratio", "mac_ratio"}), metricCols(k, {"aic_mte2_ratio", "mte2_ratio"}),
                             metricCols(k, {"aiv_vec_ratio", "vec_ratio"}), metricCols(k, {"aic_fixpipe_ratio", "fixpipe_ratio"})};
    const RooflineRoofs roofs = rooflineRoofs(f, c.th);

    const std::vector<Group> groups = attentionGroups(f, cols, roofs);
    std::size_t withFlops = 0;
    for (const Group& g : groups)
        withFlops += g.oi ? 1 : 0;
    out.inputs.push_back(f.kernelFile() + ": FlashAttention tasks, Input/Output Shapes (FLOPs for " + std::to_string(withFlops)
                         + " of " + std::to_string(groups.size()) + " shape variants), pipe ratios");
    if (groups.empty())
        return out.pass("no FlashAttention kernels");
    if (std::none_of(groups.begin(), groups.end(), [](const Group& g) { return g.oi || g.dims.d > 0; }))
        return out.notChecked("needs FlashAttention rows whose Output Shapes (Input Shapes for the gradient) hold the "
                              "softmax statistics tensor [B, N, Sq, 8], as torch_npu writes them; " + std::to_string(groups.size())
                              + " shape variants have none");
    for (const Group& g : groups) {
        const double cost = f.perStep(g.g.sumDur);
        const bool minor = cost < minTime;
        if (minor && !worthAMinorFinding(g.g, minorDur))
            continue;
        double achieved = kNaN, attainable = kNaN, eff = kNaN;
        if (g.oi && g.g.sumDur > 0 && g.oi->peak > 0) {
            achieved = g.oi->flops * static_cast<double>(g.g.tasks.size()) / (g.g.sumDur * 1e-9);
            attainable = std::min(g.oi->peak, g.oi->intensity * roofs.hbmBytesPerS);
            eff = achieved / attainable;
        }
        const bool slow = !isMissing(eff) && eff < effMin;
        const bool badD = align > 0 && g.dims.d > 0 && g.dims.d % align != 0;
        const bool badS = align > 0 && g.dims.sq > 0 && g.dims.sq % align != 0;
        if (!slow && !badD && !badS)
            continue;
        fireAttention(c, out, g, cols, {effMin, effTarget, align}, {achieved, attainable, eff, slow, badD, badS}, cost, minor);
    }
    if (out.fired.empty())
        out.pass(std::to_string(groups.size()) + " FlashAttention shape variants; none below " + fmtRatio(effMin)
                 + " of the attainable cube FLOP/s or with a head dim or sequence not a multiple of " + std::to_string(align)
                 + (withFlops < groups.size()
                        ? "; " + std::to_string(groups.size() - withFlops)
                              + " of them unchecked: their shapes have no softmax statistics tensor [B, N, Sq, 8]"
                        : std::string()));
}

} // namespace

void addAttentionRules(std::vector<RuleDef>& out)
{
    out.push_back({"CMP-FA", Category::Computation, false,
                   "FlashAttention kernels far below the cube roof, or with unaligned head dim or sequence", flashAttention});
}

} // namespace npuscope::advisor
