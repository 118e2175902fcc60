// The action plan by replay (ADVISOR.md §3b): each candidate action is a change of the step
// graph (model/analysis/whatif.h) and the plan's numbers are replays, not sums of estimates:
//  - a finding that names its change (Finding::replay: CMP-FUSE's fused tasks) uses it;
//  - communication not overlapped (COM-EXPOSED): compute no longer waits for collectives;
//  - host and dependency idle time (SCH-IDLE, SCH-SYNC, SCH-DATALOADER, CMP-DYNSHAPE): the idle
//    time idle_causes attributes to its causes is removed;
//  - a finding with task claims (op-level compute and memory findings): its tasks are scaled by
//    its own estimate, 1 − gain / Σ their duration;
//  - anything else keeps its estimated gain, subtracted as it is (said in its formula).
// Candidates are taken by their gain alone, largest first; each one's gain in the plan is the
// step the replay with it and the earlier actions saves over the replay without it, so the
// gains add up to T minus the replayed step after the plan. A rank of more complete steps than
// kPlanSampleSteps is replayed over that many, chosen evenly over the run, the replay without
// changes too, so that the gains compare like with like; the formulas say it. Each rank's model
// takes its facts' step breakdown instead of computing it again.
#include "advisor/rule_context.h"

#include "model/analysis/step_graph.h"
#include "model/io/parallel.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <iterator>
#include <map>
#include <optional>

namespace npuscope::advisor {

namespace {

using RankChanges = std::map<std::size_t, WhatIfChanges>; // facts index → changes

std::string joinCauses(const std::vector<std::string>& causes)
{
    std::string s;
    for (const auto& c : causes)
        s += (s.empty() ? "" : ", ") + c;
    return s;
}

// The idle causes a scheduling finding's time comes from (idle_causes.h keys).
std::vector<std::string> causesOf(const Finding& f)
{
    if (f.rule == "SCH-IDLE")
        return {"dependency", "launch", "host_python"};
    if (f.rule == "SCH-SYNC")
        return {"sync"};
    if (f.rule == "SCH-DATALOADER")
        return {"dataloader"};
    if (f.rule == "CMP-DYNSHAPE")
        return {"compile"};
    return {};
}

std::size_t rankIndexOf(const Finding& f, const std::vector<ProfileFacts>& facts)
{
    for (int r : f.scope.ranks)
        for (std::size_t i = 0; i < facts.size(); ++i)
            if (facts[i].rank == r)
                return i;
    return 0;
}

// Replays `c` on every rank: the median of every rank's complete predicted steps together.
struct Replayer {
    std::vector<std::optional<WhatIfModel>> models;
    double base = 0; // the replay without changes
    bool ok = false;

    std::string sample; // "; replayed over K of N complete steps" when a rank is sampled, else ""

    // Each rank's model reuses its facts' step breakdown (and its step graph, when `graphs` holds
    // one per rank) and covers at most `sampleSteps` complete steps (0: all). The ranks' models
    // are built side by side.
    Replayer(const std::vector<ProfileFacts>& facts, std::size_t sampleSteps, std::vector<StepGraph>* graphs)
    {
        const bool given = graphs && graphs->size() == facts.size();
        models.resize(facts.size());
        std::vector<std::exception_ptr> failed(facts.size());
        parallelFor(facts.size(), 0, [&](std::size_t i) {
            WhatIfOptions o;
            o.maxSteps = sampleSteps;
            o.overlap = &facts[i].overlap;
            o.graph = given ? &(*graphs)[i] : nullptr;
            try {
                models[i].emplace(facts[i].p, o);
            } catch (...) { // out of memory: thrown here, as when the models were built one by one
                failed[i] = std::current_exception();
            }
        });
        for (const auto& e : failed)
            if (e)
                std::rethrow_exception(e);
        std::size_t replayed = 0, complete = 0;
        bool any = false;
        for (const auto& model : models) {
            const WhatIfModel& m = *model;
            any = any || m.sampled();
            replayed += m.sampled() ? m.replayedSteps() : m.completeSteps();
            complete += m.completeSteps();
        }
        if (any)
            sample = "; replayed over " + std::to_string(replayed) + " of " + std::to_string(complete)
                     + " complete steps, chosen evenly over the run";
        const auto b = step({});
        ok = b.has_value();
        base = b.value_or(0);
    }
    std::optional<double> step(const RankChanges& c) const
    {
        static const WhatIfChanges none;
        std::vector<double> all;
        for (std::size_t i = 0; i < models.size(); ++i) {
            const auto it = c.find(i);
            // The steps' times alone: the plan reads no critical path of the replay.
            const WhatIfResult r = models[i]->run(it == c.end() ? none : it->second, WhatIfModel::Detail::StepsOnly);
            if (!r.ok)
                continue;
            for (const auto& s : r.steps)
                if (!s.partial)
                    all.push_back(s.predictedNs);
        }
        if (all.empty())
            return std::nullopt;
        std::sort(all.begin(), all.end());
        const std::size_t n = all.size();
        return n % 2 ? all[n / 2] : (all[n / 2 - 1] + all[n / 2]) / 2.0;
    }
};

// The graph change of a finding, and how it was derived; empty when it names none.
// Row changes are kept only where the rank's model replays them (a sample's steps), so that
// each replay copies and reads no more than it uses.
RankChanges changesOf(const Finding& f, const std::vector<ProfileFacts>& facts, const Replayer& rp, std::string& how)
{
    RankChanges out;
    if (!f.replay.empty()) {
        const std::size_t ri = rankIndexOf(f, facts);
        out[ri] = ri < rp.models.size() ? rp.models[ri]->narrowed(f.replay) : f.replay;
        how = "its tasks fused as the finding says";
        return out;
    }
    if (f.rule == "COM-EXPOSED") {
        for (std::size_t i = 0; i < facts.size(); ++i)
            out[i].overlapComm = true;
        how = "compute no longer waits for the collectives";
        return out;
    }
    if (const auto causes = causesOf(f); !causes.empty()) {
        for (std::size_t i = 0; i < facts.size(); ++i)
            out[i].removeCauses = causes;
        how = "the idle time attributed to " + joinCauses(causes) + " removed";
        return out;
    }
    if (!f.claims.empty()) {
        double dur = 0;
        std::map<std::size_t, std::vector<std::uint32_t>> rows;
        for (std::uint64_t k : f.claims) {
            const std::uint64_t rank = k >> kClaimRankShift;
            const std::uint64_t task = k & ((std::uint64_t{1} << kClaimRankShift) - 1);
            if (rank == 0 || rank > facts.size() || task >= facts[rank - 1].tasks.size())
                continue;
            const Task& t = facts[rank - 1].tasks[task];
            dur += static_cast<double>(t.dur);
            if (t.slice != kNone) {
                auto& rs = rows[rank - 1];
                if (rank - 1 < rp.models.size() && rp.models[rank - 1]->covers(t.slice))
                    rs.push_back(t.slice);
            }
        }
        const double steps = facts.empty() ? 1.0 : static_cast<double>(facts[rankIndexOf(f, facts)].nSteps);
        if (!(dur > 0) || rows.empty())
            return out;
        const double factor = std::clamp(1.0 - f.gain.nsPerStep * steps / dur, 0.0, 1.0);
        for (const auto& [ri, rs] : rows) {
            WhatIfChanges& ch = out[ri]; // a rank's change even when the sample holds none of its tasks
            std::vector<RowValues<double>::Entry> scaled;
            scaled.reserve(rs.size());
            for (std::uint32_t row : rs)
                scaled.emplace_back(row, factor);
            ch.scaleRows.merge(std::move(scaled), [](double, double b) { return b; });
        }
        how = "its " + std::to_string(f.claims.size()) + " tasks scaled by " + fmtNum(factor, 3)
              + " (1 − its gain / their time)";
    }
    return out;
}

struct Cand {
    Finding* f = nullptr;
    RankChanges changes;
    std::string how;
    double gain = 0; // alone: replayed, or the finding's estimate when it names no change
    bool replayed = false;
};

} // namespace

bool buildPlanByReplay(AdvisorReport& rep, const std::vector<ProfileFacts>& facts, std::vector<ClaimAtom>& atoms,
                       std::size_t sampleSteps, std::vector<StepGraph>* graphs)
{
    if (facts.empty() || !(rep.T > 0))
        return false;
    const Replayer rp(facts, sampleSteps, graphs);
    if (!rp.ok)
        return false;
    rep.plan.clear();
    const double T = rep.T;
    std::vector<Cand> cands;
    for (Finding& f : rep.findings) {
        f.planItem = -1;
        f.notInPlan.clear();
        if (f.status != Status::Fired || !f.gain.estimated || !(f.gain.nsPerStep > 0))
            continue;
        Cand c;
        c.f = &f;
        cands.push_back(std::move(c));
    }
    // Each candidate's change on its own (millions of claimed tasks each at 10 GB): side by side.
    parallelFor(cands.size(), 0, [&](std::size_t i) { cands[i].changes = changesOf(*cands[i].f, facts, rp, cands[i].how); });
    // Each candidate's replay alone, independent of the others: side by side.
    std::vector<std::optional<double>> alone(cands.size());
    parallelFor(cands.size(), 0, [&](std::size_t i) {
        if (!cands[i].changes.empty())
            alone[i] = rp.step(cands[i].changes);
    });
    for (std::size_t i = 0; i < cands.size(); ++i) {
        Cand& c = cands[i];
        Finding& f = *c.f;
        if (!c.changes.empty()) {
            if (const auto& s = alone[i]) {
                c.replayed = true;
                c.gain = rp.base - *s;
                // The finding's own gain, where its rule names the change, is the replay's.
                if (!f.replay.empty()) {
                    f.gain.formula = "replayed: step " + fmtMs(rp.base) + " → " + fmtMs(*s) + " (" + c.how + rp.sample
                                     + ") = " + fmtMs(std::max(0.0, c.gain)) + "; the rule's estimate: " + f.gain.formula;
                    f.gain.nsPerStep = std::max(0.0, c.gain);
                    f.gain.shareOfT = f.gain.nsPerStep / T;
                }
            }
        }
        if (!c.replayed)
            c.gain = f.gain.nsPerStep;
    }
    std::stable_sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) { return a.gain > b.gain; });

    RankChanges applied;
    double current = rp.base, linear = 0;
    // A finding without task claims takes its category's time (or the one its gain comes from):
    // the first such action of a category takes it for the plan.
    std::map<int, int> poolBy;
    std::vector<std::uint64_t> claimedKeys; // sorted: the tasks the actions so far named
    for (Cand& c : cands) {
        Finding& f = *c.f;
        const int pool = static_cast<int>(f.gainFrom.value_or(f.category));
        if (f.claims.empty() && f.replay.empty()) {
            if (const auto it = poolBy.find(pool); it != poolBy.end()) {
                f.notInPlan = "the time its gain comes from is already claimed by action " + std::to_string(it->second + 1)
                              + " (" + rep.plan[static_cast<std::size_t>(it->second)].findingId + "), whose gain includes it";
                continue;
            }
        }
        if (rep.plan.size() >= kPlanMaxActions) {
            f.notInPlan = "the plan holds its " + std::to_string(kPlanMaxActions) + " actions";
            continue;
        }
        double g = 0;
        std::string term;
        RankChanges next; // the earlier actions and this one (copied only for a replay)
        if (c.replayed) {
            next = applied;
            for (const auto& [ri, ch] : c.changes)
                next[ri].add(ch);
            const double s = rp.step(next).value_or(current);
            g = current - s;
            term = "replay with it and the earlier actions " + fmtMs(s) + " vs " + fmtMs(current) + " without it (" + c.how
                   + rp.sample + ")";
        } else {
            g = f.gain.nsPerStep;
            term = "not a graph change: the finding's estimate " + fmtMs(g) + ", subtracted as it is";
        }
        const double stepNow = current - (c.replayed ? g : 0) - linear - (c.replayed ? 0 : g);
        if (!(g > 0)) {
            f.notInPlan = "replayed after the earlier actions it saves nothing more (" + term + ")";
            continue;
        }
        if (rep.plan.size() >= kPlanMinActions && g < kPlanMinLaterShare * T) {
            f.notInPlan = "after the earlier actions it saves " + fmtMs(g) + ", under " + fmtPct(kPlanMinLaterShare)
                          + " of the step";
            continue;
        }
        if (stepNow < 0) {
            f.notInPlan = "the plan's gains already reach the step time";
            continue;
        }
        if (c.replayed) {
            applied = std::move(next);
            current -= g;
        } else {
            linear += g;
        }
        const int index = planItemFor(rep, f);
        PlanItem& item = rep.plan[static_cast<std::size_t>(index)];
        if (item.findingId != f.id) {
            item.alsoFindings.push_back(f.id);
            item.gain.formula += "; + " + f.id + ": " + term + " = " + fmtMs(g);
        } else {
            item.gain.formula = term + " = " + fmtMs(g);
        }
        item.gain.nsPerStep += g;
        item.gain.shareOfT = item.gain.nsPerStep / T;
        // The tasks no earlier action named (f.claims is sorted and unique: buildPlan; made so here
        // otherwise).
        {
            std::vector<std::uint64_t> copy, fresh;
            const bool increasing = std::adjacent_find(f.claims.begin(), f.claims.end(), std::greater_equal<>())
                                    == f.claims.end();
            if (!increasing) {
                copy = f.claims;
                std::sort(copy.begin(), copy.end());
                copy.erase(std::unique(copy.begin(), copy.end()), copy.end());
            }
            const std::vector<std::uint64_t>& mine = increasing ? f.claims : copy;
            std::set_difference(mine.begin(), mine.end(), claimedKeys.begin(), claimedKeys.end(), std::back_inserter(fresh));
            item.claimed.insert(item.claimed.end(), fresh.begin(), fresh.end());
            item.tasks += fresh.size();
            const auto mid = claimedKeys.insert(claimedKeys.end(), fresh.begin(), fresh.end());
            std::inplace_merge(claimedKeys.begin(), mid, claimedKeys.end());
        }
        f.planItem = index;
        if (f.claims.empty() && f.replay.empty())
            poolBy.emplace(pool, index);
    }
    double sum = 0;
    for (const auto& p : rep.plan)
        sum += p.gain.nsPerStep;
    rep.planStepNs = std::max(0.0, T - sum);
    for (ClaimAtom& a : atoms)
        a.keys.clear();
    rep.claimAtoms = std::move(atoms);
    return true;
}

} // namespace npuscope::advisor
