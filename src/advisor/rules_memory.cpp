// Memory rules: L2 cache hit rate, memory allocation API time and allocator growth (MEM-PEAK:
// rules_memory_peak.cpp).
#include "advisor/rule_helpers.h"
#include "model/analysis/memory.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace npuscope::advisor {

namespace {

// ---- MEM-L2 --------------------------------------------------------------------------------

// The L2 counter columns of the kernel table: *_cache_hit and *_miss_allocate.
struct L2Cols {
    std::vector<int> hit, miss;
    bool present() const { return !hit.empty() && !miss.empty(); }
};

L2Cols l2Cols(const KernelTable& k)
{
    L2Cols cols;
    for (std::size_t i = 0; i < k.metricNames.size(); ++i) {
        const auto& n = k.metricNames[i];
        if (n.find("cache_hit") != std::string::npos)
            cols.hit.push_back(static_cast<int>(i));
        else if (n.find("miss_allocate") != std::string::npos)
            cols.miss.push_back(static_cast<int>(i));
    }
    return cols;
}

// Per kernel row hit rate: Σhits/(Σhits+Σmisses) of the counters (never an average of rates), else
// l2_cache Hit Rate joined by (stream, task id) in occurrence order (task ids repeat). NaN where
// unknown; `source` names where they come from.
std::vector<double> l2HitRates(const ProfileFacts& f, const L2Cols& cols, std::string& source)
{
    const KernelTable& k = f.p.kernels;
    std::vector<double> hitOf(k.size(), kNaN);
    if (cols.present()) {
        source = f.kernelFile() + ": *_cache_hit / *_miss_allocate counters";
        for (std::size_t r = 0; r < k.size(); ++r) {
            double h = 0, m = 0;
            bool any = false;
            for (int ci : cols.hit)
                if (double v = k.metrics[static_cast<std::size_t>(ci)][r]; !isMissing(v)) {
                    h += v;
                    any = true;
                }
            for (int ci : cols.miss)
                if (double v = k.metrics[static_cast<std::size_t>(ci)][r]; !isMissing(v)) {
                    m += v;
                    any = true;
                }
            if (any && h + m > 0)
                hitOf[r] = h / (h + m);
        }
        return hitOf;
    }
    source = "l2_cache.csv Hit Rate";
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::size_t>> rows;
    for (std::size_t r = 0; r < k.size(); ++r)
        rows[{k.streamId[r], k.taskId[r]}].push_back(r);
    for (auto& [key, v] : rows)
        std::sort(v.begin(), v.end(), [&](std::size_t a, std::size_t b) { return k.start[a] < k.start[b]; });
    std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> used;
    for (const auto& l : f.p.l2) {
        const auto key = std::make_pair(l.streamId, l.taskId);
        auto it = rows.find(key);
        if (it == rows.end())
            continue;
        std::size_t& u = used[key];
        if (u < it->second.size() && !isMissing(l.hitRate))
            hitOf[it->second[u]] = l.hitRate;
        ++u;
    }
    return hitOf;
}

void l2(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    const KernelTable& k = f.p.kernels;
    const L2Cols cols = l2Cols(k);
    if (!f.hasKernels || (!cols.present() && f.p.l2.empty()))
        return out.notChecked("needs " + f.kernelFile() + " with --aic-metrics=L2Cache (torch_npu aic_metrics=AiCMetrics.L2Cache), "
                              "or l2_cache.csv");
    std::string source;
    const std::vector<double> hitOf = l2HitRates(f, cols, source);
    const auto mte2 = metricCols(k, {"aic_mte2_ratio", "aiv_mte2_ratio", "mte2_ratio"});
    Weighted hit, m;
    double sumDur = 0;
    std::size_t total = 0, have = 0;
    std::vector<const Task*> covered;
    for (const auto& t : f.tasks) {
        if ((t.cls != TaskClass::Cube && t.cls != TaskClass::Vector) || t.kernel == kNone)
            continue;
        ++total;
        const double h = hitOf[t.kernel];
        if (isMissing(h))
            continue;
        ++have;
        const double d = static_cast<double>(t.dur);
        hit.add(d, h);
        m.add(d, firstMetric(k, mte2, t.kernel));
        sumDur += d;
        covered.push_back(&t);
    }
    out.inputs.push_back(source + " (" + coverage(have, total, "hit rates") + ")");
    if (have == 0)
        return out.notChecked("needs L2 hit counters on compute ops (" + f.kernelFile() + " with --aic-metrics=L2Cache)");
    const double h = hit.mean();
    const double hitMin = c.param("hit_min"), ht = c.param("hit_target");
    if (!(h < hitMin))
        return out.pass("L2 hit rate " + fmtPct(h) + " (threshold < " + fmtPct(hitMin) + ", " + coverage(have, total, "hit rates") + ")");
    const bool haveM = m.n > 0;
    const double mm = haveM ? m.mean() : c.param("mem_frac");
    const double gain = h < 1 ? f.perStep(sumDur) * mm * (ht - h) / (1 - h) : 0;
    Finding& fd = out.fire("hit-rate");
    fd.costNs = roundNs(std::max(0.0, gain));
    fd.title = "L2 cache hit rate " + fmtPct(h) + " (threshold " + fmtPct(hitMin) + "), " + fmtMs(gain) + "/step to win";
    fd.description = "Weighted by duration, " + fmtPct(h) + " of the L2 accesses of " + std::to_string(have)
                     + " compute ops hit (target " + fmtPct(ht) + "): data is fetched from HBM again instead of being reused.";
    fd.suggestions.push_back("Check the data layout: NHWC / channels_last where the op prefers it, contiguous tensors "
                             "(avoid strided views feeding kernels).");
    fd.suggestions.push_back("Tile for reuse: keep the working set of consecutive ops within L2.");
    setGain(fd, gain,
            "Σdur " + fmtMs(f.perStep(sumDur)) + " × m " + fmtRatio(mm) + (haveM ? " (mte2)" : " (mem_frac)") + " × (h_t "
                + fmtRatio(ht) + " − h " + fmtRatio(h) + ")/(1 − h) = " + fmtMs(gain));
    claimTasks(fd, f, covered);
    TopEvidence top;
    for (const Task* t : covered)
        if (hitOf[t->kernel] < hitMin)
            top.offer(roundNs(static_cast<double>(t->dur) * (1 - hitOf[t->kernel])), [&] {
                return taskEvidence(f, *t, {{"L2 hit rate", hitOf[t->kernel] * 100, "%"}}, "hit < " + fmtPct(hitMin));
            });
    top.moveInto(fd.evidence);
    fd.scope.steps = "all " + std::to_string(f.nSteps) + " steps (aggregate)";
}

// ---- MEM-ALLOC -----------------------------------------------------------------------------

// The caching allocator's reserved memory grows each time it has to ask the runtime for a new
// segment: memory_record shows how often that happened. Fires when it did too often; returns
// what was checked.
std::string reserveGrowth(const RuleCtx& c, RuleOut& out, const memory::ComponentCurve& fw)
{
    const ProfileFacts& f = *c.f;
    const auto& r = fw.reserved;
    std::vector<std::size_t> grows;
    double grown = 0;
    for (std::size_t i = 1; i < r.ts.size(); ++i)
        if (r.value[i] > r.value[i - 1]) {
            grows.push_back(i);
            grown += r.value[i] - r.value[i - 1];
        }
    const double perStep = f.perStep(static_cast<double>(grows.size()));
    const double maxGrows = c.param("max_reserve_grows");
    out.inputs.push_back("memory_record " + fw.component + " Total Reserved (" + std::to_string(r.ts.size()) + " samples)");
    const std::string check = fw.component + " reserved grew " + std::to_string(grows.size()) + " times ("
                              + fmtNum(grown / 1048576.0, 1) + " MiB), " + fmtNum(perStep, 1) + "/step (threshold "
                              + fmtNum(maxGrows, 0) + "/step)";
    if (perStep < maxGrows)
        return check;
    Finding& fd = out.fire("reserve-growth");
    fd.title = "The caching allocator reserves new device memory " + fmtNum(perStep, 1) + " times per step";
    fd.description = "The " + fw.component + " reserved total grows " + std::to_string(grows.size())
                     + " times in the capture (" + fmtNum(grown / 1048576.0, 1) + " MiB): each growth is a "
                     "runtime allocation (aclrtMalloc) the cached blocks could not serve, usually because "
                     "free blocks are fragmented.";
    fd.suggestions.push_back("PYTORCH_NPU_ALLOC_CONF=expandable_segments:True.");
    fd.suggestions.push_back("Remove torch.npu.empty_cache() from the loop.");
    fd.suggestions.push_back("Keep tensor shapes stable between steps (pad to buckets) so blocks are reused.");
    noGain(fd, "the growth events carry no duration in memory_record");
    for (auto i : grows) {
        Evidence e;
        e.at.rank = f.rank;
        e.at.device = fw.device;
        e.at.ts = r.ts[i];
        e.at.op = fw.component + " reserved";
        e.metrics.push_back({"growth", (r.value[i] - r.value[i - 1]) / 1048576.0, "MB"});
        e.metrics.push_back({"reserved", r.value[i] / 1048576.0, "MB"});
        e.cost = static_cast<TimeNs>(r.value[i] - r.value[i - 1]);
        fd.evidence.push_back(std::move(e));
    }
    sortEvidence(fd.evidence, kMaxEvidence);
    return check;
}

void alloc(const RuleCtx& c, RuleOut& out)
{
    const ProfileFacts& f = *c.f;
    const Profile& p = f.p;
    const memory::Summary mem = memory::summarize(p);
    const memory::ComponentCurve* fw = mem.frameworkCurve();
    if (!f.hasCann && !(fw && !fw->reserved.empty()))
        return out.notChecked(f.needsLevel1() + " (aclMallocMemInner / aclrtFree events), or memory_record.csv "
                                                "(profile_memory=True)");
    const std::string growCheck = fw && !fw->reserved.empty() ? reserveGrowth(c, out, *fw) : std::string();
    if (!f.hasCann) {
        if (out.fired.empty())
            out.pass(growCheck + "; allocation API time not checked: " + f.needsLevel1());
        return;
    }
    std::map<std::string, std::vector<std::uint32_t>> perApi;
    for (const auto& tr : p.tracks)
        if (tr.kind == TrackKind::Cann)
            for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i) {
                const auto n = p.str(p.slices.name[i]);
                if (n.find("aclMallocMemInner") != std::string::npos || n.find("aclrtFree") != std::string::npos)
                    perApi[std::string(n)].push_back(i);
            }
    out.inputs.push_back("timeline CANN allocation APIs (" + std::to_string(perApi.size()) + " APIs)");
    const double maxNs = c.param("max_total_us") * 1e3;
    std::string check;
    for (const auto& [api, rows] : perApi) {
        double total = 0;
        for (auto i : rows)
            total += static_cast<double>(p.slices.dur[i]);
        const double ps = f.perStep(total);
        check += (check.empty() ? "" : ", ") + api + " " + fmtMs(ps) + "/step";
        if (ps < maxNs)
            continue;
        Finding& fd = out.fire(api);
        fd.costNs = roundNs(ps);
        fd.title = api + " takes " + fmtMs(ps) + "/step (" + std::to_string(rows.size()) + " calls)";
        fd.description = "Device memory is allocated or freed through the runtime " + std::to_string(rows.size())
                         + " times, " + fmtMs(ps) + " per step (threshold " + fmtUs(maxNs) + "): the caching allocator misses.";
        fd.suggestions.push_back("PYTORCH_NPU_ALLOC_CONF=expandable_segments:True.");
        fd.suggestions.push_back("Remove torch.npu.empty_cache() from the loop.");
        fd.suggestions.push_back("Lower the batch size if memory is near the limit.");
        setGain(fd, ps, "Σ flagged = " + fmtMs(ps));
        for (auto i : rows) {
            Evidence e;
            e.at.rank = f.rank;
            e.at.ts = p.slices.start[i];
            e.at.dur = p.slices.dur[i];
            e.at.op = api;
            e.cost = p.slices.dur[i];
            e.threshold = "Σ ≥ " + fmtUs(maxNs) + "/step";
            fd.evidence.push_back(std::move(e));
        }
        sortEvidence(fd.evidence, kMaxEvidence);
    }
    if (out.fired.empty())
        out.pass((check.empty() ? "no allocation API calls" : check + " (threshold " + fmtUs(maxNs) + "/step)")
                 + (growCheck.empty() ? "" : "; " + growCheck));
}

} // namespace

void addMemoryRules(std::vector<RuleDef>& out)
{
    out.push_back({"MEM-L2", Category::Memory, false, "Low L2 cache hit rate", l2});
    out.push_back({"MEM-ALLOC", Category::Memory, false, "Time in device memory allocation APIs", alloc});
    out.push_back({"MEM-PEAK", Category::Memory, false, "What holds device memory at its peak", memoryPeakRule});
}

} // namespace npuscope::advisor
