#include "model/analysis/step_diff.h"

#include "model/analysis/op_mapping.h"
#include "model/analysis/overlap.h"

#include <algorithm>
#include <map>

namespace npuscope {

std::vector<StepSpan> stepSpans(const Profile& p)
{
    const DeviceIntervals dev = deviceIntervals(p);
    std::vector<std::pair<std::string, Interval>> spans;
    for (const auto& [name, span] : profilerSteps(p))
        if (span.end > span.begin)
            spans.push_back({name, span});
    if (spans.empty() && dev.last > dev.first)
        spans.push_back({"device span", {dev.first, dev.last}});
    std::vector<StepSpan> steps;
    for (const StepBreakdown& b : splitSpans(dev, spans)) {
        StepSpan s;
        static_cast<StepBreakdown&>(s) = b;
        s.free = std::max<TimeNs>(0, b.free);
        steps.push_back(std::move(s));
    }
    if (steps.empty())
        return steps;

    // Operator types by the step their start falls in (the last step starting at or before it;
    // operators before the first step or after the last one's end are left out).
    std::vector<std::map<std::string, TimeNs>> types(steps.size());
    for (const auto& step : mappingSequences(p))
        for (const auto& stream : step)
            for (const MappedOp& op : stream) {
                auto it = std::upper_bound(steps.begin(), steps.end(), op.start,
                                           [](TimeNs t, const StepSpan& s) { return t < s.begin; });
                if (it == steps.begin())
                    continue;
                --it;
                if (op.start >= it->end)
                    continue;
                types[static_cast<std::size_t>(it - steps.begin())][op.type] += op.dur;
            }
    for (std::size_t i = 0; i < steps.size(); ++i) {
        steps[i].opTypes.assign(types[i].begin(), types[i].end());
        std::stable_sort(steps[i].opTypes.begin(), steps[i].opTypes.end(),
                         [](const auto& a, const auto& b) { return a.second > b.second; });
    }
    return steps;
}

std::vector<StepSpan> stepSpans(const Session& s)
{
    return s.ranks.empty() ? std::vector<StepSpan>{} : stepSpans(*s.ranks.front());
}

int medianStep(const std::vector<StepSpan>& steps)
{
    if (steps.empty())
        return -1;
    std::vector<int> order(steps.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&steps](int a, int b) {
        return steps[static_cast<std::size_t>(a)].duration() < steps[static_cast<std::size_t>(b)].duration();
    });
    return order[(order.size() - 1) / 2];
}

std::vector<StepPair> pairSteps(const std::vector<StepSpan>& baseline, const std::vector<StepSpan>& optimized,
                                int anchorBaseline, int anchorOptimized)
{
    std::vector<StepPair> pairs;
    const int nb = static_cast<int>(baseline.size()), no = static_cast<int>(optimized.size());
    if (anchorBaseline < 0 || anchorBaseline >= nb || anchorOptimized < 0 || anchorOptimized >= no)
        return pairs;
    for (int i = 0; i < nb; ++i) {
        const int j = i - anchorBaseline + anchorOptimized;
        if (j < 0 || j >= no)
            continue;
        const StepSpan& a = baseline[static_cast<std::size_t>(i)];
        const StepSpan& b = optimized[static_cast<std::size_t>(j)];
        StepPair p;
        p.baseline = i;
        p.optimized = j;
        p.stepDelta = b.duration() - a.duration();
        p.computingDelta = b.computing - a.computing;
        p.commDelta = b.commNotOverlapped - a.commNotOverlapped;
        p.freeDelta = b.free - a.free;
        std::map<std::string, OpTypeDelta> ops;
        for (const auto& [type, t] : a.opTypes)
            ops[type] = {type, t, 0};
        for (const auto& [type, t] : b.opTypes) {
            OpTypeDelta& d = ops[type];
            d.type = type;
            d.after = t;
        }
        for (auto& [type, d] : ops)
            p.ops.push_back(std::move(d));
        std::stable_sort(p.ops.begin(), p.ops.end(), [](const OpTypeDelta& x, const OpTypeDelta& y) {
            const TimeNs ax = x.delta() < 0 ? -x.delta() : x.delta(), ay = y.delta() < 0 ? -y.delta() : y.delta();
            return ax > ay;
        });
        pairs.push_back(std::move(p));
    }
    return pairs;
}

} // namespace npuscope
