#include "model/analysis/compare.h"

#include "model/analysis/overlap.h"
#include "model/analysis/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace npuscope {

bool HeadlineRow::improved() const
{
    if (std::isnan(baseline) || std::isnan(current) || baseline == current)
        return false;
    return better == Better::Lower ? current < baseline : current > baseline;
}

namespace {

// Mean of the present values.
struct Mean {
    double sum = 0;
    int n = 0;
    void add(double v)
    {
        if (!std::isnan(v)) {
            sum += v;
            ++n;
        }
    }
    double value() const { return n ? sum / n : kNaN; }
};

CompareSide summarize(const std::vector<const Profile*>& ranks, const CompareOptions& o)
{
    CompareSide s;
    Mean util, l2, hbmUtil, hbm;
    TimeNs slowest = -1;
    const Profile* slowestRank = nullptr;
    for (const Profile* p : ranks) {
        const ProfileSummary sum = computeSummary(*p, o.peakHbmGBps);
        if (sum.steps > 0 && sum.stepTime > slowest) {
            slowest = sum.stepTime;
            slowestRank = p;
            s.stepMs = static_cast<double>(sum.stepTime) / 1e6;
            s.computingMs = static_cast<double>(sum.computing) / 1e6;
            s.notOverlappedMs = static_cast<double>(sum.commNotOverlapped) / 1e6;
            s.freeMs = static_cast<double>(sum.free) / 1e6;
        }
        util.add(sum.aicUtil);
        l2.add(sum.l2Hit);
        hbmUtil.add(sum.hbmBwUtil);
        hbm.add(sum.hbmBwGBps);
        OpStatsOptions opt;
        opt.groupBy = o.groupBy;
        opt.peakHbmGBps = sum.hbmPeakGBps;
        for (const OpGroupStats& g : computeOpStats(*p, opt).groups) {
            auto& [count, total] = s.ops[g.key];
            count += g.count;
            total += g.total;
        }
    }
    if (slowestRank) {
        s.steps = computeOverlap(*slowestRank).steps;
        for (const StepBreakdown& b : s.steps)
            s.stepsMs.push_back(static_cast<double>(b.stepTime()) / 1e6);
    }
    s.aicUtil = util.value();
    s.l2Hit = l2.value();
    s.hbmUtil = hbmUtil.value();
    s.hbmGBps = hbm.value();
    return s;
}

HeadlineRow row(std::string metric, std::string unit, double b, double c, Better better)
{
    HeadlineRow r;
    r.metric = std::move(metric);
    r.unit = std::move(unit);
    r.baseline = b;
    r.current = c;
    r.better = better;
    if (!std::isnan(b) && !std::isnan(c)) {
        r.delta = c - b;
        r.ratio = b != 0 ? c / b : kNaN;
    }
    return r;
}

} // namespace

CompareResult compareSides(const CompareSide& b, const CompareSide& c, const CompareOptions& o)
{
    CompareResult r;
    r.sameWithin = o.sameWithin;
    auto pct = [](double v) { return std::isnan(v) ? v : v * 100.0; };
    auto inv = [](double ms) { return std::isnan(ms) || ms <= 0 ? kNaN : 1000.0 / ms; };
    r.baselineSteps = b.steps;
    r.currentSteps = c.steps;
    r.baselineStepsMs = b.stepsMs;
    r.currentStepsMs = c.stepsMs;
    r.stepRatio = bootstrapRatio(b.stepsMs, c.stepsMs);
    RatioInterval inverse = r.stepRatio; // throughput: the ratio of the inverse
    inverse.ratio = 1.0 / r.stepRatio.ratio;
    inverse.low = 1.0 / r.stepRatio.high;
    inverse.high = 1.0 / r.stepRatio.low;
    r.headline.push_back(row("Step time", "ms", b.stepMs, c.stepMs, Better::Lower));
    r.headline.back().ci = r.stepRatio;
    if (o.tokensPerStep > 0) {
        r.headline.push_back(row("Per-token latency", "ms", b.stepMs / o.tokensPerStep, c.stepMs / o.tokensPerStep,
                                 Better::Lower));
        r.headline.back().ci = r.stepRatio;
    }
    r.headline.push_back(row("Throughput", "steps/s", inv(b.stepMs), inv(c.stepMs), Better::Higher));
    r.headline.back().ci = inverse;
    r.headline.push_back(row("Computing", "ms", b.computingMs, c.computingMs, Better::Lower));
    r.headline.push_back(
        row("Communication not overlapped", "ms", b.notOverlappedMs, c.notOverlappedMs, Better::Lower));
    r.headline.push_back(row("Free", "ms", b.freeMs, c.freeMs, Better::Lower));
    r.headline.push_back(row("AI Core utilization", "%", pct(b.aicUtil), pct(c.aicUtil), Better::Higher));
    r.headline.push_back(row("L2 hit rate", "%", pct(b.l2Hit), pct(c.l2Hit), Better::Higher));
    r.headline.push_back(row("HBM bandwidth", "GB/s", b.hbmGBps, c.hbmGBps, Better::Higher));
    r.headline.push_back(row("HBM bandwidth utilization", "%", pct(b.hbmUtil), pct(c.hbmUtil), Better::Higher));
    if (!std::isnan(b.stepMs) && !std::isnan(c.stepMs) && c.stepMs > 0)
        r.speedup = b.stepMs / c.stepMs;

    std::map<std::string, OpDiffRow> rows;
    for (const auto& [key, v] : b.ops) {
        OpDiffRow& d = rows[key];
        d.key = key;
        d.inBaseline = true;
        d.baselineCount = v.first;
        d.baselineTotal = v.second;
        d.baselineAvgNs = v.first ? static_cast<double>(v.second) / static_cast<double>(v.first) : kNaN;
    }
    for (const auto& [key, v] : c.ops) {
        OpDiffRow& d = rows[key];
        d.key = key;
        d.inCurrent = true;
        d.currentCount = v.first;
        d.currentTotal = v.second;
        d.currentAvgNs = v.first ? static_cast<double>(v.second) / static_cast<double>(v.first) : kNaN;
    }
    for (auto& [key, d] : rows) {
        d.delta = d.currentTotal - d.baselineTotal;
        d.ratio = d.inBaseline && d.baselineTotal > 0 ? static_cast<double>(d.currentTotal) / static_cast<double>(d.baselineTotal)
                                                      : kNaN;
        r.ops.push_back(d);
    }
    std::sort(r.ops.begin(), r.ops.end(), [](const OpDiffRow& x, const OpDiffRow& y) {
        const TimeNs ax = x.delta < 0 ? -x.delta : x.delta, ay = y.delta < 0 ? -y.delta : y.delta;
        return ax != ay ? ax > ay : x.key < y.key;
    });
    return r;
}

void alignStepSpans(CompareResult& r, std::vector<StepSpan> baseline, std::vector<StepSpan> current)
{
    r.baselineSpans = std::move(baseline);
    r.currentSpans = std::move(current);
    r.baselineAnchor = medianStep(r.baselineSpans);
    r.currentAnchor = medianStep(r.currentSpans);
    r.stepPairs = pairSteps(r.baselineSpans, r.currentSpans, r.baselineAnchor, r.currentAnchor);
}

const char* findingChangeName(FindingChange c)
{
    switch (c) {
    case FindingChange::Fixed: return "fixed";
    case FindingChange::Remaining: return "remaining";
    case FindingChange::New: return "new";
    }
    return "";
}

std::string CompareResult::verdictText() const
{
    const RatioInterval& ci = stepRatio;
    if (std::isnan(ci.ratio) || ci.ratio <= 0)
        return {};
    const std::string verdict = intervalVerdict(ci, sameWithin);
    char buf[200];
    const bool faster = ci.ratio < 1.0;
    // Speed-up (or slow-down) factor and its interval, both ≥ 1 for the direction said.
    const double f = faster ? 1.0 / ci.ratio : ci.ratio;
    const double lo = faster ? 1.0 / ci.high : ci.low, hi = faster ? 1.0 / ci.low : ci.high;
    // A factor that rounds to 1.00 is neither faster nor slower.
    const bool even = std::abs(f - 1.0) < 0.005;
    const char* what = verdict == "same" ? (even ? "the same within noise (" : faster ? "the same within noise (faster by " : "the same within noise (slower by ")
                                         : (faster ? "faster by " : "slower by ");
    std::snprintf(buf, sizeof buf, "%s%.2f× (95 %% CI %.2f–%.2f, %d vs %d steps)%s", what, f, lo, hi,
                  ci.baselineSteps, ci.optimizedSteps, verdict == "same" ? ")" : "");
    return buf;
}

CompareSide compareSide(const Session& s, const CompareOptions& o)
{
    std::vector<const Profile*> ranks;
    for (const auto& p : s.ranks)
        ranks.push_back(p.get());
    return summarize(ranks, o);
}

CompareResult compareSessions(const Session& baseline, const Session& current, const CompareOptions& o)
{
    std::vector<const Profile*> b, c;
    for (const auto& p : baseline.ranks)
        b.push_back(p.get());
    for (const auto& p : current.ranks)
        c.push_back(p.get());
    CompareResult r = compareSides(summarize(b, o), summarize(c, o), o);
    if (o.mapOperators)
        r.mapping = mapOperators(baseline, current, o.sameWithin);
    if (o.stepSpans)
        alignStepSpans(r, stepSpans(baseline), stepSpans(current));
    r.baselineProblems = inputProblems(baseline);
    r.currentProblems = inputProblems(current);
    return r;
}

CompareResult compareProfiles(const Profile& baseline, const Profile& current, const CompareOptions& o)
{
    CompareResult r = compareSides(summarize({&baseline}, o), summarize({&current}, o), o);
    if (o.mapOperators)
        r.mapping = mapOperators(baseline, current, o.sameWithin);
    if (o.stepSpans)
        alignStepSpans(r, stepSpans(baseline), stepSpans(current));
    return r;
}

} // namespace npuscope
