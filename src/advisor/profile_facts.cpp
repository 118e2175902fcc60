// ProfileFacts: a rank's facts (RankFacts) and what findings need of them; the helpers the rules
// share.
#include "advisor/rule_context.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace npuscope::advisor {

std::vector<int> metricCols(const KernelTable& k, std::initializer_list<const char*> names)
{
    std::vector<int> out;
    for (const char* n : names) {
        const int i = k.metricIndex(std::string(n));
        if (i >= 0)
            out.push_back(i);
    }
    return out;
}

std::string fmtNum(double v, int decimals)
{
    if (isMissing(v))
        return "n/a";
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
    return b;
}

std::string fmtMs(double ns) { return fmtNum(ns / 1e6, std::abs(ns) >= 1e8 ? 1 : (std::abs(ns) >= 1e5 ? 2 : 3)) + " ms"; }
std::string fmtUs(double ns) { return fmtNum(ns / 1e3, std::abs(ns) >= 1e6 ? 0 : 1) + " µs"; }
std::string fmtPct(double share) { return fmtNum(share * 100.0, 1) + " %"; }
std::string fmtRatio(double v) { return fmtNum(v, 2); }

void sortEvidence(std::vector<Evidence>& ev, int n)
{
    std::stable_sort(ev.begin(), ev.end(), [](const Evidence& a, const Evidence& b) { return a.cost > b.cost; });
    if (n >= 0 && ev.size() > static_cast<std::size_t>(n))
        ev.resize(static_cast<std::size_t>(n));
}

Finding& RuleOut::fire(const std::string& instanceKey)
{
    status = Status::Fired;
    Finding f;
    f.rule = ruleId;
    f.id = ruleId + "/" + instanceKey;
    f.category = category;
    f.status = Status::Fired;
    fired.push_back(std::move(f));
    return fired.back();
}

Locator ProfileFacts::locate(const Task& t) const
{
    Locator l;
    l.rank = rank;
    l.device = t.device;
    l.stream = t.stream;
    l.ts = t.start;
    l.dur = t.dur;
    l.op = str(t.name);
    l.shapes = shapesOf(t);
    return l;
}

std::string ProfileFacts::needsLevel1() const
{
    if (torchNpu)
        return "needs profiler Level1 (torch_npu _ExperimentalConfig(profiler_level=ProfilerLevel.Level1)); "
               "this profile has no CANN (AscendCL@) events";
    return "needs CANN API events (AscendCL@, Node@launch) in the timeline: collect with msprof --task-time=on "
           "(level l1)";
}

} // namespace npuscope::advisor
