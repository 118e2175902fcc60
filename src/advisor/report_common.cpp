#include "advisor/report_common.h"

#include <algorithm>

namespace npuscope::advisor {

std::string metricsText(const Evidence& e)
{
    std::string s;
    for (const auto& m : e.metrics) {
        if (isMissing(m.value))
            continue;
        if (!s.empty())
            s += " · ";
        const double a = m.value < 0 ? -m.value : m.value;
        s += m.name + " " + fmtNum(m.value, a >= 100 ? 0 : (a >= 10 ? 1 : 2)) + (m.unit.empty() ? "" : " " + m.unit);
    }
    return s;
}

std::string identityLine(const ReportIdentity& id)
{
    std::string s = "layout " + (id.layout.empty() ? std::string("unknown") : id.layout);
    if (!id.ranks.empty()) {
        s += " · ranks ";
        for (std::size_t i = 0; i < id.ranks.size(); ++i)
            s += (i ? "," : "") + std::to_string(id.ranks[i]);
    }
    if (!id.soc.empty())
        s += " · SoC " + id.soc;
    if (!id.cannVersion.empty())
        s += " · CANN " + id.cannVersion;
    if (!id.torchNpuVersion.empty())
        s += " · torch_npu " + id.torchNpuVersion;
    if (!id.profilerLevel.empty())
        s += " · profiler " + id.profilerLevel;
    if (!id.captureTime.empty())
        s += " · captured " + id.captureTime;
    return s;
}

std::string splitText(const RankSplit& r)
{
    const double T = r.T() > 0 ? r.T() : 1;
    const double computing = static_cast<double>(r.split.computing);
    const double commNotOverlapped = static_cast<double>(r.split.commNotOverlapped);
    const double free = static_cast<double>(r.split.free);
    std::string s = "Computing " + fmtMs(computing) + " (" + fmtPct(computing / T) + ")";
    std::string parts;
    for (const auto& p : r.computingParts)
        if (p.ns > 0)
            parts += (parts.empty() ? "" : ", ") + p.name + " " + fmtMs(p.ns);
    if (!parts.empty())
        s += " [" + parts + "]";
    s += " · Comm(Not Overlapped) " + fmtMs(commNotOverlapped) + " (" + fmtPct(commNotOverlapped / T) + ")";
    parts.clear();
    for (const auto& p : r.commParts)
        parts += (parts.empty() ? "" : ", ") + p.name + " " + fmtMs(p.ns);
    if (!parts.empty())
        s += " [" + parts + "]";
    s += " · Free " + fmtMs(free) + " (" + fmtPct(free / T) + ")";
    return s;
}

std::string stepsText(const Summary& s)
{
    if (s.T <= 0 && s.steps == 0)
        return "T: no step time (" + (s.tSource.empty() ? std::string("no time data") : s.tSource) + ")";
    StepStats st;
    st.steps = s.steps;
    st.partial = s.partial;
    const std::string range = "min " + fmtMs(s.stepMin) + ", median " + fmtMs(s.stepMedian) + ", max " + fmtMs(s.stepMax);
    const std::string counted = s.steps == 1 ? std::string("1 step") : "median of " + stepCountText(st);
    if (s.ranks.size() > 1) // every rank's complete steps together
        return "T = " + fmtMs(s.T) + " per step (" + s.tSource + ", " + counted + " over " + std::to_string(s.ranks.size())
               + " ranks; " + range + ")";
    return "T = " + fmtMs(s.T) + " per step (" + s.tSource + ", " + counted + "; " + range + ")";
}

std::string noFindingsReason(const Summary& s)
{
    return s.passed > 0 ? "every checked rule passed"
                        : "no rule could be checked, the profile holds nothing the rules read (see Not checked)";
}

std::string findingsHeadline(const Summary& s)
{
    return (s.fired == 1 ? std::string("1 finding: ") : std::to_string(s.fired) + " findings: ") + std::to_string(s.high)
           + " high, " + std::to_string(s.medium) + " medium, " + std::to_string(s.low) + " low, " + std::to_string(s.minor)
           + " minor";
}

std::string countsText(const Summary& s)
{
    return findingsHeadline(s) + " · " + std::to_string(s.notChecked) + " not checked · " + std::to_string(s.passed) + " passed"
           + (s.disabled ? " · " + std::to_string(s.disabled) + " disabled" : std::string())
           + (s.errors ? " · " + std::to_string(s.errors) + " errors" : std::string());
}

std::vector<std::string> planLines(const AdvisorReport& r)
{
    std::vector<std::string> out;
    for (const auto& p : r.plan)
    {
        std::string also;
        for (const auto& id : p.alsoFindings)
            also += (also.empty() ? "; also " : ", ") + id;
        out.push_back(p.action + " (" + p.findingId + ": " + p.title + also + "): " + fmtMs(p.gain.nsPerStep) + "/step ("
                      + fmtPct(p.gain.shareOfT) + " of step)");
    }
    return out;
}

std::string planStatus(const Finding& f)
{
    if (f.planItem >= 0)
        return "plan action " + std::to_string(f.planItem + 1);
    return f.notInPlan.empty() ? std::string() : "not in the plan: " + f.notInPlan;
}

std::string topGainLine(const Finding& f)
{
    const std::string plan = planStatus(f);
    return f.title + " (" + f.id + "): " + fmtMs(f.gain.nsPerStep) + "/step (" + fmtPct(f.gain.shareOfT) + ")"
           + (plan.empty() ? std::string() : " · " + plan);
}

std::string scopeTail(const Finding& f)
{
    const std::string scope = f.scope.text();
    return (scope.empty() ? std::string() : " · " + scope)
           + (f.planItem >= 0 ? " · plan action " + std::to_string(f.planItem + 1) : std::string());
}

std::string rankLabel(int rank) { return rank >= 0 ? "rank " + std::to_string(rank) : std::string("profile"); }

const char* categoryTitle(Category c)
{
    switch (c) {
    case Category::Computation: return "Computation";
    case Category::Communication: return "Communication";
    case Category::Scheduling: return "Scheduling (host)";
    case Category::Memory: return "Memory";
    case Category::Cluster: return "Cluster";
    }
    return "";
}

std::vector<const Finding*> firedIn(const AdvisorReport& r, Category c)
{
    std::vector<const Finding*> out;
    for (const auto& f : r.findings)
        if (f.status == Status::Fired && !f.minor && f.category == c)
            out.push_back(&f);
    return out;
}

std::vector<const Finding*> minorFindings(const AdvisorReport& r)
{
    std::vector<const Finding*> out;
    for (const auto& f : r.findings)
        if (f.status == Status::Fired && f.minor)
            out.push_back(&f);
    return out;
}

std::vector<const Finding*> topGains(const AdvisorReport& r, std::size_t n)
{
    std::vector<const Finding*> fs;
    for (const auto& f : r.findings)
        if (f.status == Status::Fired && f.gain.estimated && !f.minor) // as Summary::topGains
            fs.push_back(&f);
    std::stable_sort(fs.begin(), fs.end(), [](const Finding* a, const Finding* b) { return a->gain.nsPerStep > b->gain.nsPerStep; });
    if (fs.size() > n)
        fs.resize(n);
    return fs;
}

const Finding* findingById(const AdvisorReport& r, const std::string& id)
{
    for (const auto& f : r.findings)
        if (f.id == id)
            return &f;
    return nullptr;
}

std::string incompleteInputHeadline(const AdvisorReport& r)
{
    return npuscope::incompleteInputHeadline(r.inputProblems.size());
}

} // namespace npuscope::advisor
