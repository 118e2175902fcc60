#include "advisor/advice_check.h"

#include "advisor/advisor_diff.h"
#include "model/analysis/compare_report.h"
#include "model/analysis/text_table.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace npuscope::advisor {

namespace {

// "Add→MatMulV2", "Cast→LayerNorm|LayerNormV3→Cast": the operators of a window, each of its
// alternatives.
std::vector<std::string> opTokens(const std::string& s)
{
    static const std::string arrow = "→";
    std::vector<std::string> out;
    std::string cur;
    for (std::size_t i = 0; i < s.size();) {
        if (s.compare(i, arrow.size(), arrow) == 0 || s[i] == '|') {
            if (!cur.empty())
                out.push_back(std::move(cur));
            cur.clear();
            i += s[i] == '|' ? 1 : arrow.size();
            continue;
        }
        cur += s[i++];
    }
    if (!cur.empty())
        out.push_back(std::move(cur));
    return out;
}

// Operator name -> the comparison's key (its type, or the name itself), from the kernel tables.
void addNameKeys(const Session* s, GroupBy g, std::unordered_map<std::string, std::string>& out)
{
    if (!s || g == GroupBy::Name)
        return;
    for (const ProfilePtr& p : s->ranks) {
        if (!p)
            continue;
        const KernelTable& k = p->kernels;
        for (std::size_t r = 0; r < k.size(); ++r) {
            const std::string_view type = p->str(k.type[r]);
            if (!type.empty())
                out.emplace(std::string(p->str(k.name[r])), std::string(type));
        }
    }
}

struct Context {
    const CompareResult& r;
    std::map<std::string, const OpDiffRow*> ops;
    std::unordered_map<std::string, std::string> nameKey;
};

// The operators an operator-level finding covers: its evidence's operators that the comparison
// has, and the operators of the replaced windows that held any of them.
std::vector<std::string> coveredOps(const Context& c, const Finding& f)
{
    if (f.category != Category::Computation && f.category != Category::Memory)
        return {};
    std::set<std::string> keys;
    for (const Evidence& e : f.evidence)
        for (const std::string& t : opTokens(e.at.op)) {
            if (c.ops.count(t)) {
                keys.insert(t);
            } else if (const auto it = c.nameKey.find(t); it != c.nameKey.end() && c.ops.count(it->second)) {
                keys.insert(it->second);
            }
        }
    if (keys.empty())
        return {};
    // A replaced window that holds any of them joins whole, on both sides (BatchMatMul→SoftmaxV2→
    // BatchMatMul ⇒ FlashAttentionScore: a finding on SoftmaxV2 covers all four), until no other
    // window touches the set.
    for (bool grew = true; grew;) {
        grew = false;
        for (const OpMappingRow& m : c.r.mapping.rows) {
            if (m.kind != MappingKind::Replaced)
                continue;
            const std::vector<std::string> before = opTokens(m.baseline);
            if (std::none_of(before.begin(), before.end(), [&](const std::string& t) { return keys.count(t) > 0; }))
                continue;
            for (const std::vector<std::string>& side : {before, opTokens(m.optimized)})
                for (const std::string& t : side)
                    if (c.ops.count(t) && keys.insert(t).second)
                        grew = true;
        }
    }
    return {keys.begin(), keys.end()};
}

// The headline row of the part of the step a step-level finding covers.
const char* stepPart(const Finding& f)
{
    switch (f.gainFrom.value_or(f.category)) {
    case Category::Communication: return "Communication not overlapped";
    case Category::Scheduling: return "Free";
    case Category::Cluster: return "Step time";
    case Category::Computation:
    case Category::Memory: break;
    }
    return "Computing";
}

void cover(const Context& c, const Finding& f, AdvisorDiffRow& row)
{
    row.coveredOps = coveredOps(c, f);
    if (!row.coveredOps.empty()) {
        double before = 0, after = 0;
        for (const std::string& k : row.coveredOps) {
            const OpDiffRow& d = *c.ops.at(k);
            if (!d.perStepKnown()) {
                before = after = kNaN;
                break;
            }
            before += d.baselineNsPerStep;
            after += d.currentNsPerStep;
        }
        row.coveredBeforeNs = before;
        row.coveredAfterNs = after;
        std::string names;
        for (const std::string& k : row.coveredOps)
            names += (names.empty() ? "" : ", ") + k;
        row.covered = "operators " + names;
        return;
    }
    const std::string part = stepPart(f);
    row.covered = part;
    for (const HeadlineRow& h : c.r.headline)
        if (h.metric == part) {
            row.coveredBeforeNs = h.baseline * 1e6;
            row.coveredAfterNs = h.current * 1e6;
        }
}

} // namespace

std::string adviceStatus(bool presentAfter, double predictedGainNs, double realisedNs)
{
    if (!presentAfter)
        return "fixed";
    if (std::isnan(predictedGainNs) || !(predictedGainNs > 0) || std::isnan(realisedNs))
        return "remaining";
    if (realisedNs >= kFixedShare * predictedGainNs)
        return "fixed";
    if (realisedNs >= kPartlyShare * predictedGainNs)
        return "partly";
    return "remaining";
}

void checkAdvice(CompareResult& r, const AdvisorReport& baseline, const AdvisorReport& optimized,
                 const Session* baselineSession, const Session* optimizedSession, GroupBy groupBy)
{
    Context c{r, {}, {}};
    for (const OpDiffRow& d : r.ops)
        c.ops.emplace(d.key, &d);
    addNameKeys(baselineSession, groupBy, c.nameKey);
    addNameKeys(optimizedSession, groupBy, c.nameKey);
    std::map<std::string, const Finding*> before, after;
    for (const Finding* f : baseline.fired())
        before.emplace(f->id, f);
    for (const Finding* f : optimized.fired())
        after.emplace(f->id, f);
    for (AdvisorDiffRow& row : r.advisor) {
        if (row.change == FindingChange::New) {
            row.status = "new";
            if (const auto it = after.find(row.id); it != after.end())
                cover(c, *it->second, row);
            continue;
        }
        const auto it = before.find(row.id);
        if (it == before.end())
            continue; // not a row of these reports
        const Finding& f = *it->second;
        if (f.gain.estimated)
            row.predictedGainNs = f.gain.nsPerStep;
        cover(c, f, row);
        row.realisedNs = row.coveredBeforeNs - row.coveredAfterNs;
        row.status = adviceStatus(row.change != FindingChange::Fixed, row.predictedGainNs, row.realisedNs);
        const double larger = std::max(std::abs(row.coveredBeforeNs), std::abs(row.coveredAfterNs));
        row.grew = !std::isnan(row.realisedNs) && row.realisedNs < 0 && -row.realisedNs > r.sameWithin * larger;
    }
    r.baselineStepNs = baseline.T > 0 ? baseline.T : kNaN;
    r.planStepNs = !baseline.plan.empty() && baseline.planStepNs > 0 ? baseline.planStepNs : kNaN;
    r.measuredStepNs = optimized.T > 0 ? optimized.T : kNaN;
    r.adviceChecked = true;
}

void compareAdvice(CompareResult& r, const AdvisorReport& baseline, const AdvisorReport& optimized,
                   const Session* baselineSession, const Session* optimizedSession, GroupBy groupBy)
{
    r.advisor = diffFindings(baseline, optimized);
    r.advisorCompared = true;
    checkAdvice(r, baseline, optimized, baselineSession, optimizedSession, groupBy);
}

std::vector<std::string> adviceRegressions(const CompareResult& r)
{
    std::vector<std::string> out;
    for (const HeadlineRow& h : r.headline)
        if (h.metric == "Step time" && headlineVerdict(h, r.sameWithin) == "regressed")
            out.push_back("the step time rose from " + text::fixed(h.baseline, 3) + " ms to " + text::fixed(h.current, 3)
                          + " ms, beyond the noise band");
    for (const AdvisorDiffRow& a : r.advisor)
        if (a.grew)
            out.push_back(a.id + ": the time it covers (" + a.covered + ") grew from " + text::fixed(a.coveredBeforeNs / 1e6, 3)
                          + " ms to " + text::fixed(a.coveredAfterNs / 1e6, 3) + " ms per step");
    return out;
}

} // namespace npuscope::advisor
