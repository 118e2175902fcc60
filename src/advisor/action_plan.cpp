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
#include <map>
#include <optional>
#include <unordered_map>

namespace npuscope::advisor {

namespace {

constexpr std::uint64_t kPoolBit = std::uint64_t{1} << 63;

std::uint64_t poolOf(const Finding& f) { return kPoolBit | static_cast<std::uint64_t>(f.gainFrom.value_or(f.category)); }

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

struct Candidate {
    Finding* f;
    std::vector<std::size_t> atoms; // the atoms naming it; none: it claims its category's pool
    double all = 0;                 // their Σ ns
};

// The state of the greedy choice: which atoms and pools earlier actions took, and by which.
struct Taken {
    std::vector<int> atomBy;               // plan item that took each atom, or -1
    std::map<std::uint64_t, int> poolBy;   // plan item that took each pool
};

// The part of c's claims no earlier action took: a share of its task time, or 1 / 0 for a pool.
double unclaimedShare(const Candidate& c, const Taken& t, const std::vector<ClaimAtom>& atoms)
{
    if (c.atoms.empty())
        return t.poolBy.count(poolOf(*c.f)) ? 0.0 : 1.0;
    if (!(c.all > 0))
        return 0.0;
    double left = 0;
    for (std::size_t a : c.atoms)
        if (t.atomBy[a] < 0)
            left += atoms[a].ns;
    return left / c.all;
}

// The plan item that took most of c's claims (-1 when none did).
int mostlyTakenBy(const Candidate& c, const Taken& t, const std::vector<ClaimAtom>& atoms)
{
    if (c.atoms.empty()) {
        const auto it = t.poolBy.find(poolOf(*c.f));
        return it == t.poolBy.end() ? -1 : it->second;
    }
    std::map<int, double> by;
    for (std::size_t a : c.atoms)
        if (t.atomBy[a] >= 0)
            by[t.atomBy[a]] += atoms[a].ns;
    int best = -1;
    for (const auto& [item, ns] : by)
        if (best < 0 || ns > by[best])
            best = item;
    return best;
}

// Why a candidate was left out of the plan, from the state the plan ended in.
std::string whyNotInPlan(const Candidate& c, const Taken& t, const std::vector<ClaimAtom>& atoms,
                         const AdvisorReport& rep, double sum)
{
    const double share = unclaimedShare(c, t, atoms);
    const double left = c.f->gain.nsPerStep * share;
    const int by = mostlyTakenBy(c, t, atoms);
    const std::string byText = by >= 0 ? "action " + std::to_string(by + 1) + " (" + rep.plan[static_cast<std::size_t>(by)].findingId + ")"
                                       : std::string("earlier actions");
    if (!(left > 0))
        return std::string(c.atoms.empty() ? "the time its gain comes from is already " : "its device tasks are already ")
               + "claimed by " + byText + ", whose gain includes it";
    if (rep.T > 0 && sum >= rep.T)
        return "the plan's gains already reach the step time";
    if (rep.plan.size() >= kPlanMaxActions)
        return "the plan holds its " + std::to_string(kPlanMaxActions) + " actions; on what they leave it gains " + fmtMs(left);
    return "on what the earlier actions leave (" + fmtPct(share) + " of its tasks' time, the rest claimed by " + byText
           + ") it gains " + fmtMs(left) + ", under " + fmtPct(kPlanMinLaterShare) + " of the step";
}

// claimAtoms() when at most 64 findings claim tasks and every claim names a task of the facts:
// each task's claimers as a bit mask over the tasks of every rank laid end to end, which gives
// the same atoms in the same order (by their sorted ids, keys ascending) without sorting every
// (task, finding) pair. Empty otherwise.
std::optional<std::vector<ClaimAtom>> claimAtomsByMask(const AdvisorReport& rep, const std::vector<ProfileFacts>& facts,
                                                       const std::vector<std::string>& names)
{
    if (names.size() > 64)
        return std::nullopt;
    std::vector<std::size_t> base(facts.size() + 1, 0); // rank r's tasks begin at base[r - 1]
    for (std::size_t i = 0; i < facts.size(); ++i)
        base[i + 1] = base[i] + facts[i].tasks.size();
    std::vector<std::uint64_t> mask(base.back(), 0);
    for (const Finding& f : rep.findings) {
        if (f.status != Status::Fired || f.claims.empty())
            continue;
        const auto id = static_cast<unsigned>(std::lower_bound(names.begin(), names.end(), f.id) - names.begin());
        for (std::uint64_t k : f.claims) {
            const std::uint64_t rank = k >> kClaimRankShift;
            const std::uint64_t task = k & ((std::uint64_t{1} << kClaimRankShift) - 1);
            if (rank == 0 || rank > facts.size() || task >= facts[rank - 1].tasks.size())
                return std::nullopt;
            mask[base[rank - 1] + task] |= std::uint64_t{1} << id;
        }
    }
    std::vector<ClaimAtom> atoms;
    std::unordered_map<std::uint64_t, std::size_t> atomOf;
    std::vector<std::vector<std::uint32_t>> idsOf;
    for (std::size_t r = 0; r < facts.size(); ++r)
        for (std::size_t t = 0; t < facts[r].tasks.size(); ++t) {
            const std::uint64_t m = mask[base[r] + t];
            if (!m)
                continue;
            const auto [it, fresh] = atomOf.try_emplace(m, atoms.size());
            if (fresh) {
                atoms.emplace_back();
                idsOf.emplace_back();
                for (std::uint32_t b = 0; b < 64; ++b)
                    if (m >> b & 1)
                        idsOf.back().push_back(b);
            }
            ClaimAtom& a = atoms[it->second];
            ++a.tasks;
            a.ns += static_cast<double>(facts[r].tasks[t].dur);
            a.keys.push_back(((r + 1) << kClaimRankShift) | t);
        }
    std::vector<std::size_t> order(atoms.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return idsOf[a] < idsOf[b]; });
    std::vector<ClaimAtom> out;
    out.reserve(atoms.size());
    for (std::size_t i : order) {
        for (std::uint32_t id : idsOf[i])
            atoms[i].ids.push_back(names[id]);
        out.push_back(std::move(atoms[i]));
    }
    return out;
}

} // namespace

std::vector<ClaimAtom> claimAtoms(const AdvisorReport& rep, const std::vector<ProfileFacts>& facts)
{
    // The claiming findings' distinct ids, sorted: a set of them is a set of indexes, ordered as
    // the ids are.
    std::vector<std::string> names;
    for (const Finding& f : rep.findings)
        if (f.status == Status::Fired && !f.claims.empty())
            names.push_back(f.id);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    if (auto atoms = claimAtomsByMask(rep, facts, names))
        return std::move(*atoms);
    std::vector<std::pair<std::uint64_t, std::uint32_t>> claims; // (key, id index), by key then id
    for (const Finding& f : rep.findings)
        if (f.status == Status::Fired && !f.claims.empty()) {
            const auto id = static_cast<std::uint32_t>(std::lower_bound(names.begin(), names.end(), f.id) - names.begin());
            for (std::uint64_t k : f.claims)
                claims.emplace_back(k, id);
        }
    std::sort(claims.begin(), claims.end());
    claims.erase(std::unique(claims.begin(), claims.end()), claims.end());
    std::map<std::vector<std::uint32_t>, ClaimAtom> atoms;
    std::vector<std::uint32_t> ids;
    for (std::size_t i = 0; i < claims.size();) {
        const std::uint64_t key = claims[i].first;
        ids.clear();
        for (; i < claims.size() && claims[i].first == key; ++i)
            ids.push_back(claims[i].second);
        auto it = atoms.find(ids);
        if (it == atoms.end())
            it = atoms.emplace(ids, ClaimAtom{}).first;
        ClaimAtom& a = it->second;
        ++a.tasks;
        a.ns += static_cast<double>(durOf(key, facts));
        a.keys.push_back(key);
    }
    std::vector<ClaimAtom> out;
    for (auto& [set, a] : atoms) {
        for (std::uint32_t id : set)
            a.ids.push_back(names[id]);
        out.push_back(std::move(a));
    }
    return out;
}

int planItemFor(AdvisorReport& rep, const Finding& f)
{
    const std::string action = f.suggestions.empty() ? f.title : f.suggestions.front();
    auto same = std::find_if(rep.plan.begin(), rep.plan.end(), [&](const PlanItem& p) { return p.action == action; });
    if (same != rep.plan.end())
        return static_cast<int>(same - rep.plan.begin());
    PlanItem item;
    item.findingId = f.id;
    item.title = f.title;
    item.action = action;
    item.gain.estimated = true;
    rep.plan.push_back(std::move(item));
    return static_cast<int>(rep.plan.size()) - 1;
}

void buildPlan(AdvisorReport& rep, const std::vector<ProfileFacts>& facts, std::vector<StepGraph>* graphs)
{
    for (Finding& f : rep.findings) {
        if (!std::is_sorted(f.claims.begin(), f.claims.end())) // mostly claimed in task order already
            std::sort(f.claims.begin(), f.claims.end());
        f.claims.erase(std::unique(f.claims.begin(), f.claims.end()), f.claims.end());
    }
    std::vector<ClaimAtom> atoms = claimAtoms(rep, facts);
    if (!buildPlanByReplay(rep, facts, atoms, kPlanSampleSteps, graphs))
        buildPlanFromAtoms(rep, std::move(atoms));
}

void buildPlanFromAtoms(AdvisorReport& rep, std::vector<ClaimAtom> atoms)
{
    rep.plan.clear();
    std::vector<Candidate> cands;
    for (auto& f : rep.findings) {
        f.planItem = -1;
        f.notInPlan.clear();
        if (f.status != Status::Fired || !f.gain.estimated || !(f.gain.nsPerStep > 0))
            continue;
        Candidate c{&f, {}, 0};
        for (std::size_t a = 0; a < atoms.size(); ++a)
            if (std::binary_search(atoms[a].ids.begin(), atoms[a].ids.end(), f.id)) {
                c.atoms.push_back(a);
                c.all += atoms[a].ns;
            }
        cands.push_back(std::move(c));
    }
    Taken taken;
    taken.atomBy.assign(atoms.size(), -1);
    std::vector<char> used(cands.size(), 0);
    double sum = 0;
    const double T = rep.T;
    while (rep.plan.size() < kPlanMaxActions && (T <= 0 || sum < T)) {
        std::size_t best = cands.size();
        double bestGain = 0, bestShare = 0;
        for (std::size_t i = 0; i < cands.size(); ++i) {
            if (used[i])
                continue;
            const double share = unclaimedShare(cands[i], taken, atoms);
            const double g = cands[i].f->gain.nsPerStep * share;
            if (g > bestGain) { // ties: the earlier finding in report order
                best = i;
                bestGain = g;
                bestShare = share;
            }
        }
        if (best == cands.size() || (rep.plan.size() >= kPlanMinActions && T > 0 && bestGain < kPlanMinLaterShare * T))
            break;
        used[best] = 1;
        Finding& f = *cands[best].f;
        // A finding whose action is one already in the plan adds its gain to that action.
        const int index = planItemFor(rep, f);
        PlanItem& item = rep.plan[static_cast<std::size_t>(index)];
        const bool capped = T > 0 && sum + bestGain > T;
        const double g = capped ? T - sum : bestGain;
        const std::string term = "finding gain " + fmtMs(f.gain.nsPerStep) + " × " + fmtPct(bestShare)
                                 + (cands[best].atoms.empty() ? " of its category's time left" : " of its task time left unclaimed")
                                 + " = " + fmtMs(bestGain) + (capped ? ", capped at the step time left: " + fmtMs(g) : std::string());
        if (item.findingId != f.id) {
            item.alsoFindings.push_back(f.id);
            item.gain.formula += "; + " + f.id + ": " + term;
        } else {
            item.gain.formula = term;
        }
        item.gain.nsPerStep += g;
        item.gain.shareOfT = T > 0 ? item.gain.nsPerStep / T : 0;
        if (cands[best].atoms.empty()) {
            taken.poolBy.emplace(poolOf(f), index);
            item.claimed.push_back(poolOf(f));
        } else {
            for (std::size_t a : cands[best].atoms)
                if (taken.atomBy[a] < 0) {
                    taken.atomBy[a] = index;
                    item.tasks += atoms[a].tasks;
                    item.claimed.insert(item.claimed.end(), atoms[a].keys.begin(), atoms[a].keys.end());
                }
        }
        sum += g;
        f.planItem = index;
    }
    rep.planStepNs = std::max(0.0, T - sum);
    for (std::size_t i = 0; i < cands.size(); ++i)
        if (!used[i])
            cands[i].f->notInPlan = whyNotInPlan(cands[i], taken, atoms, rep, sum);
    for (ClaimAtom& a : atoms)
        a.keys.clear();
    rep.claimAtoms = std::move(atoms);
}

std::string planFormula(const AdvisorReport& r)
{
    double sum = 0;
    bool replayed = false;
    for (const auto& p : r.plan) {
        sum += p.gain.nsPerStep;
        replayed = replayed || p.gain.formula.rfind("replay", 0) == 0 || p.gain.formula.rfind("not a graph change", 0) == 0;
    }
    return "estimated step after the plan = T − Σ gains = " + fmtMs(r.T) + " − " + fmtMs(sum) + " = " + fmtMs(r.planStepNs)
           + (replayed ? std::string(" (one replay of each step's graph with every action applied: each action's gain is "
                                     "the step the replay with it and the earlier actions saves; an action that is not a "
                                     "graph change subtracts its finding's estimate)")
                       : std::string(" (an estimate: each action's gain is taken on the device time the earlier actions "
                                     "leave, so no task counts twice; the rules' gain formulas are themselves estimates)"))
           + (r.plan.size() < kPlanMinActions && r.planStepNs > 0
                  ? ". Only " + std::to_string(r.plan.size()) + (r.plan.size() == 1 ? " action" : " actions")
                        + ": no other fired finding has an estimated gain on time not already claimed"
                  : std::string());
}

} // namespace npuscope::advisor
