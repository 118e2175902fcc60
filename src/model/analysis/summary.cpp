#include "model/analysis/summary.h"

#include "model/analysis/op_stats.h"
#include <algorithm>
#include <cmath>

namespace npuscope {

double chipHbmPeakGBps(const std::string& chip)
{
    if (chip.rfind("Ascend910B", 0) == 0)
        return 1600.0;
    if (chip == "Ascend910" || chip == "Ascend910A" || chip == "Ascend910ProA" || chip == "Ascend910PremiumA")
        return 1200.0;
    return kNaN;
}

double hbmPeakFor(const Profile& p, double overrideGBps, std::string* source)
{
    auto say = [&](const char* s) {
        if (source)
            *source = s;
    };
    if (!std::isnan(overrideGBps) && overrideGBps > 0) {
        say("given");
        return overrideGBps;
    }
    for (const DeviceInfo& d : p.deviceInfo)
        if (!std::isnan(d.hbmPeakGBps) && d.hbmPeakGBps > 0) {
            say("profile");
            return d.hbmPeakGBps;
        }
    for (const DeviceInfo& d : p.deviceInfo)
        if (const double v = chipHbmPeakGBps(d.chip); !std::isnan(v)) {
            say("chip default");
            return v;
        }
    say("generic default");
    return kDefaultHbmPeakGBps;
}

StepSplit stepSplit(const OverlapResult& o)
{
    StepSplit m;
    m.steps = o.stats.steps;
    m.partial = o.stats.partial;
    m.source = o.stepTimeSource;
    m.stepTime = o.stepTime;
    if (o.stats.complete() > 0) {
        m.computing = o.typical.computing;
        m.commNotOverlapped = o.typical.commNotOverlapped;
        m.free = o.typical.free;
        m.min = o.stats.min;
        m.median = o.stats.median;
        m.max = o.stats.max;
    }
    return m;
}

StepSplit stepSplit(std::vector<StepBreakdown> steps, std::string source)
{
    OverlapResult o;
    o.steps = std::move(steps);
    o.stepTimeSource = std::move(source);
    finishSteps(o);
    return stepSplit(o);
}

std::string StepSplit::countText() const
{
    if (steps == 1)
        return "1 step";
    StepStats st;
    st.steps = steps;
    st.partial = partial;
    return "median of " + stepCountText(st);
}

ProfileSummary computeSummary(const Profile& p, double peakHbmGBps)
{
    ProfileSummary s;
    s.hbmPeakGBps = hbmPeakFor(p, peakHbmGBps, &s.hbmPeakSource);

    s.step = stepSplit(computeOverlap(p));
    if (s.step.stepTime > 0) {
        const double t = static_cast<double>(s.step.stepTime);
        s.computeShare = static_cast<double>(s.step.computing) / t;
        s.commExposedShare = static_cast<double>(s.step.commNotOverlapped) / t;
        s.freeShare = static_cast<double>(s.step.free) / t;
    }

    OpStatsOptions opt;
    opt.peakHbmGBps = s.hbmPeakGBps;
    const OpGroupStats all = computeOverallStats(p, opt, &s.utilizationSource);
    s.aicUtil = all.aicUtilization;
    s.l2Hit = all.l2HitRate;
    s.readGBps = all.readGBps;
    s.writeGBps = all.writeGBps;
    if (!std::isnan(s.readGBps) || !std::isnan(s.writeGBps))
        s.hbmBwGBps = (std::isnan(s.readGBps) ? 0 : s.readGBps) + (std::isnan(s.writeGBps) ? 0 : s.writeGBps);
    if (!std::isnan(s.hbmBwGBps) && s.hbmPeakGBps > 0)
        s.hbmBwUtil = s.hbmBwGBps / s.hbmPeakGBps;
    s.deviceBusy = all.total;
    s.taskCount = all.count;
    return s;
}

RankSpread rankSpread(std::vector<double> values)
{
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }), values.end());
    RankSpread r;
    r.count = static_cast<int>(values.size());
    if (values.empty())
        return r;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    r.min = values.front();
    r.max = values.back();
    r.median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
    return r;
}

} // namespace npuscope
