// The action plan at the top of every report (ADVISOR.md §3b). Findings' gains overlap (one
// MatMul's time is in a fusion window, in CMP-CUBE-MEMBOUND and in MEM-L2), so they are never
// summed; the plan instead picks actions greedily, each on what the earlier ones leave:
//
//   gain_i = gain(finding) × unclaimed(claims) / all(claims)
//
// where the claims are the device tasks the finding's gain comes from (their durations), and
// a task counts as claimed once an earlier action has claimed it. A finding without task claims
// (host gaps, exposed communication, …) claims its category's time as a whole, or the
// category its gain comes from (Finding::gainFrom: a slow link's is communication time): the
// first such action of a category takes it. The gains then add up, and T − Σ gain_i estimates the step
// after the plan, capped so that it never goes below zero.
#include "advisor/rule_context.h"

#include <algorithm>
#include <unordered_set>

namespace npuscope::advisor {

namespace {

constexpr std::size_t kMaxActions = 7;
// Past the first three actions, one that would buy less than this share of the step is left to
// the findings list: a plan is what to do first, not every finding with a gain.
constexpr std::size_t kMinActions = 3;
constexpr double kMinLaterShare = 0.01;
constexpr std::uint64_t kPoolBit = std::uint64_t{1} << 63;

std::uint64_t poolOf(const Finding& f) { return kPoolBit | static_cast<std::uint64_t>(f.gainFrom.value_or(f.category)); }

struct Candidate {
    Finding* f;
    double all = 0; // Σ duration of its claimed tasks (ns); 0 for a pool claim
};

// The duration of the task a claim key names (0 when it names none).
TimeNs durOf(std::uint64_t key, const std::vector<ProfileFacts>& facts)
{
    const std::uint64_t rank = key >> kClaimRankShift;
    const std::uint64_t task = key & ((std::uint64_t{1} << kClaimRankShift) - 1);
    if (rank == 0 || rank > facts.size())
        return 0;
    const auto& tasks = facts[rank - 1].tasks;
    return task < tasks.size() ? tasks[task].dur : 0;
}

// The part of c's claims no earlier action took: a share of its task time, or 1 / 0 for a pool.
double unclaimedShare(const Candidate& c, const std::unordered_set<std::uint64_t>& taken,
                      const std::vector<ProfileFacts>& facts)
{
    if (c.f->claims.empty())
        return taken.count(poolOf(*c.f)) ? 0.0 : 1.0;
    if (!(c.all > 0))
        return 0.0;
    double left = 0;
    for (std::uint64_t k : c.f->claims)
        if (!taken.count(k))
            left += static_cast<double>(durOf(k, facts));
    return left / c.all;
}

} // namespace

void buildPlan(AdvisorReport& rep, const std::vector<ProfileFacts>& facts)
{
    std::vector<Candidate> cands;
    for (auto& f : rep.findings) {
        if (f.status != Status::Fired || !f.gain.estimated || !(f.gain.nsPerStep > 0))
            continue;
        std::sort(f.claims.begin(), f.claims.end());
        f.claims.erase(std::unique(f.claims.begin(), f.claims.end()), f.claims.end());
        Candidate c{&f, 0};
        for (std::uint64_t k : f.claims)
            c.all += static_cast<double>(durOf(k, facts));
        cands.push_back(c);
    }
    std::unordered_set<std::uint64_t> taken;
    std::vector<char> used(cands.size(), 0);
    double sum = 0;
    const double T = rep.T;
    while (rep.plan.size() < kMaxActions && (T <= 0 || sum < T)) {
        std::size_t best = cands.size();
        double bestGain = 0, bestShare = 0;
        for (std::size_t i = 0; i < cands.size(); ++i) {
            if (used[i])
                continue;
            const double share = unclaimedShare(cands[i], taken, facts);
            const double g = cands[i].f->gain.nsPerStep * share;
            if (g > bestGain) { // ties: the earlier finding in report order
                best = i;
                bestGain = g;
                bestShare = share;
            }
        }
        if (best == cands.size() || (rep.plan.size() >= kMinActions && T > 0 && bestGain < kMinLaterShare * T))
            break;
        used[best] = 1;
        Finding& f = *cands[best].f;
        PlanItem item;
        item.findingId = f.id;
        item.title = f.title;
        item.action = f.suggestions.empty() ? f.title : f.suggestions.front();
        const bool capped = T > 0 && sum + bestGain > T;
        const double g = capped ? T - sum : bestGain;
        item.gain.estimated = true;
        item.gain.nsPerStep = g;
        item.gain.shareOfT = T > 0 ? g / T : 0;
        item.gain.formula = "finding gain " + fmtMs(f.gain.nsPerStep) + " × " + fmtPct(bestShare)
                            + (f.claims.empty() ? " of its category's time left" : " of its task time left unclaimed")
                            + " = " + fmtMs(bestGain) + (capped ? ", capped at the step time left: " + fmtMs(g) : std::string());
        if (f.claims.empty()) {
            taken.insert(poolOf(f));
            item.claimed.push_back(poolOf(f));
        } else {
            for (std::uint64_t k : f.claims)
                if (taken.insert(k).second)
                    item.claimed.push_back(k);
            item.tasks = item.claimed.size();
        }
        sum += g;
        f.planItem = static_cast<int>(rep.plan.size());
        rep.plan.push_back(std::move(item));
    }
    rep.planStepNs = std::max(0.0, T - sum);
}

std::string planFormula(const AdvisorReport& r)
{
    double sum = 0;
    for (const auto& p : r.plan)
        sum += p.gain.nsPerStep;
    return "estimated step after the plan = T − Σ gains = " + fmtMs(r.T) + " − " + fmtMs(sum) + " = " + fmtMs(r.planStepNs)
           + " (an estimate: each action's gain is taken on the device time the earlier actions leave, so no task "
             "counts twice; the rules' gain formulas are themselves estimates)"
           + (r.plan.size() < kMinActions && r.planStepNs > 0
                  ? ". Only " + std::to_string(r.plan.size()) + (r.plan.size() == 1 ? " action" : " actions")
                        + ": no other fired finding has an estimated gain on time not already claimed"
                  : std::string());
}

} // namespace npuscope::advisor
