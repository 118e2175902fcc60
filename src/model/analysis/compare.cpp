#include "model/analysis/compare.h"

#include "model/analysis/overlap.h"
#include "model/analysis/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

namespace npuscope {

double OpDiffRow::ratioPerStep() const
{
    return inBaseline && baselineNsPerStep > 0 ? currentNsPerStep / baselineNsPerStep : kNaN;
}

double OpDiffRow::baselineNs(OpTimes t) const
{
    return t == OpTimes::PerStep && perStepKnown() ? baselineNsPerStep : static_cast<double>(baselineTotal);
}

double OpDiffRow::currentNs(OpTimes t) const
{
    return t == OpTimes::PerStep && perStepKnown() ? currentNsPerStep : static_cast<double>(currentTotal);
}

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

// The steps the step time is computed over (overlap.h): the complete ones.
std::vector<const StepBreakdown*> stepsOfT(const OverlapResult& o)
{
    std::vector<const StepBreakdown*> out;
    for (std::size_t i = 0; i < o.steps.size(); ++i)
        if (i >= o.stats.isPartial.size() || !o.stats.isPartial[i])
            out.push_back(&o.steps[i]);
    return out;
}

// Those steps as spans of the timeline. A step_trace_time.csv row has no times: the timeline's
// ProfilerStep#N span of its number stands for it. Empty when a step has no span.
IntervalSet stepWindows(const OverlapResult& o)
{
    std::vector<Interval> out;
    for (const StepBreakdown* s : stepsOfT(o)) {
        if (s->end > s->begin) {
            out.push_back({s->begin, s->end});
            continue;
        }
        const auto it = std::find_if(o.spans.begin(), o.spans.end(), [s](const auto& span) {
            return !s->step.empty() && (span.first == s->step || span.first == "ProfilerStep#" + s->step);
        });
        if (it == o.spans.end())
            return {};
        out.push_back(it->second);
    }
    return uniteIntervals(std::move(out));
}

bool startsInside(const IntervalSet& set, TimeNs t)
{
    const auto it = std::upper_bound(set.begin(), set.end(), t, [](TimeNs v, const Interval& i) { return v < i.begin; });
    return it != set.begin() && t < std::prev(it)->end;
}

// One rank's operators per step into s.opsPerStep: each row's time inside the steps' spans (a
// task that straddles a step's edge counts with its part inside) and the rows that start inside
// them, divided by the number of steps; the run's total divided by it when the steps have no
// spans.
void addOpsPerStep(const Profile& p, const OverlapResult& ov, const OpStatsResult& stats, CompareSide& s)
{
    const std::size_t steps = std::max<std::size_t>(1, stepsOfT(ov).size());
    const double n = static_cast<double>(steps);
    const IntervalSet windows = stepWindows(ov);
    const bool spans = !windows.empty();
    s.opSteps = std::max(s.opSteps, static_cast<int>(steps));
    const char* basis = spans ? "inside the steps' spans" : "run total / steps";
    if (s.opBasis.empty() || !spans)
        s.opBasis = basis; // one rank without spans makes the whole side an estimate
    for (const OpGroupStats& g : stats.groups) {
        auto& [count, ns] = s.opsPerStep[g.key];
        if (!spans) {
            count += static_cast<double>(g.count) / n;
            ns += static_cast<double>(g.total) / n;
            continue;
        }
        TimeNs inside = 0;
        std::uint64_t started = 0;
        for (const std::uint32_t r : g.rows) {
            const TimeNs start = stats.fromTimeline ? p.slices.start[r] : p.kernels.start[r];
            const TimeNs dur = stats.fromTimeline ? p.slices.dur[r] : p.kernels.dur[r];
            inside += coveredLength(windows, start, start + dur);
            started += startsInside(windows, start);
        }
        count += static_cast<double>(started) / n;
        ns += static_cast<double>(inside) / n;
    }
}

CompareSide summarize(const std::vector<const Profile*>& ranks, const CompareOptions& o)
{
    CompareSide s;
    Mean util, l2, hbmUtil, hbm;
    TimeNs slowest = -1;
    std::vector<StepBreakdown> slowestSteps;
    for (const Profile* p : ranks) {
        const ProfileSummary sum = computeSummary(*p, o.peakHbmGBps);
        OverlapResult ov = computeOverlap(*p);
        OpStatsOptions opt;
        opt.groupBy = o.groupBy;
        opt.peakHbmGBps = sum.hbmPeakGBps;
        const OpStatsResult stats = computeOpStats(*p, opt);
        for (const OpGroupStats& g : stats.groups) {
            auto& [count, total] = s.ops[g.key];
            count += g.count;
            total += g.total;
        }
        addOpsPerStep(*p, ov, stats, s);
        if (sum.step.steps > 0 && sum.step.stepTime > slowest) {
            slowest = sum.step.stepTime;
            slowestSteps = std::move(ov.steps);
            s.stepMs = static_cast<double>(sum.step.stepTime) / 1e6;
            s.computingMs = static_cast<double>(sum.step.computing) / 1e6;
            s.notOverlappedMs = static_cast<double>(sum.step.commNotOverlapped) / 1e6;
            s.freeMs = static_cast<double>(sum.step.free) / 1e6;
        }
        util.add(sum.aicUtil);
        l2.add(sum.l2Hit);
        hbmUtil.add(sum.hbmBwUtil);
        hbm.add(sum.hbmBwGBps);
    }
    if (slowest >= 0) {
        s.steps = std::move(slowestSteps);
        for (const StepBreakdown& b : s.steps)
            s.stepsMs.push_back(static_cast<double>(b.stepTime()) / 1e6);
    }
    s.aicUtil = util.value();
    s.l2Hit = l2.value();
    s.hbmUtil = hbmUtil.value();
    s.hbmGBps = hbm.value();
    return s;
}

// Each operator of the optimized run alone that the mapping has in a window replacing baseline
// operators.
void markReplacements(CompareResult& r)
{
    static const std::string arrow = "→";
    std::set<std::string> fused;
    for (const OpMappingRow& m : r.mapping.rows) {
        if (m.kind != MappingKind::Replaced)
            continue;
        for (std::size_t from = 0;;) {
            const std::size_t at = m.optimized.find(arrow, from);
            fused.insert(m.optimized.substr(from, at == std::string::npos ? std::string::npos : at - from));
            if (at == std::string::npos)
                break;
            from = at + arrow.size();
        }
    }
    for (OpDiffRow& d : r.ops)
        d.replacement = !d.inBaseline && d.inCurrent && fused.count(d.key) > 0;
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

    r.opTimes = o.opTimes;
    // A side without per-step operator times (a cluster summary): its totals over its steps.
    auto perStep = [](const CompareSide& side, int& steps, std::string& basis) {
        if (!side.opsPerStep.empty() || side.ops.empty()) {
            steps = side.opSteps;
            basis = side.opBasis;
            return side.opsPerStep;
        }
        steps = static_cast<int>(std::max<std::size_t>(1, side.stepsMs.size()));
        basis = "run total / steps";
        std::map<std::string, std::pair<double, double>> out;
        for (const auto& [key, v] : side.ops)
            out[key] = {static_cast<double>(v.first) / steps, static_cast<double>(v.second) / steps};
        return out;
    };
    const auto bPerStep = perStep(b, r.baselineOpSteps, r.baselineOpBasis);
    const auto cPerStep = perStep(c, r.currentOpSteps, r.currentOpBasis);
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
    auto lookup = [](const std::map<std::string, std::pair<double, double>>& m, const std::string& key) {
        const auto it = m.find(key);
        return it == m.end() ? std::pair<double, double>{0.0, 0.0} : it->second;
    };
    for (auto& [key, d] : rows) {
        d.delta = d.currentTotal - d.baselineTotal;
        d.ratio = d.inBaseline && d.baselineTotal > 0 ? static_cast<double>(d.currentTotal) / static_cast<double>(d.baselineTotal)
                                                      : kNaN;
        std::tie(d.baselineCountPerStep, d.baselineNsPerStep) = lookup(bPerStep, key);
        std::tie(d.currentCountPerStep, d.currentNsPerStep) = lookup(cPerStep, key);
        r.ops.push_back(d);
    }
    sortOps(r);
    return r;
}

void sortOps(CompareResult& r)
{
    const OpTimes t = r.opTimes;
    std::sort(r.ops.begin(), r.ops.end(), [t](const OpDiffRow& x, const OpDiffRow& y) {
        const double ax = std::abs(x.deltaNs(t)), ay = std::abs(y.deltaNs(t));
        return ax != ay ? ax > ay : x.key < y.key;
    });
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
    if (o.mapOperators) {
        r.mapping = mapOperators(baseline, current, o.sameWithin);
        markReplacements(r);
    }
    if (o.stepSpans)
        alignStepSpans(r, stepSpans(baseline), stepSpans(current));
    r.baselineProblems = inputProblems(baseline);
    r.currentProblems = inputProblems(current);
    return r;
}

CompareResult compareProfiles(const Profile& baseline, const Profile& current, const CompareOptions& o)
{
    CompareResult r = compareSides(summarize({&baseline}, o), summarize({&current}, o), o);
    if (o.mapOperators) {
        r.mapping = mapOperators(baseline, current, o.sameWithin);
        markReplacements(r);
    }
    if (o.stepSpans)
        alignStepSpans(r, stepSpans(baseline), stepSpans(current));
    return r;
}

} // namespace npuscope
