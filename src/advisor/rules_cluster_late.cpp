// CLU-LATE: a rank that arrives last at collectives and makes the others wait, with the reason
// of each late arrival (model/analysis/collectives.h).
//
// Held per step: Σ over the instances the rank arrives last at (arrival spread ≥ 10 µs) of the
// spread (last − first arrival), divided by the steps. The others wait in parallel, so their step
// is held up by the spread, not by the sum of their waits; this upper bound of what removing the
// rank's delays saves decides whether the rule fires (≥ min_share of T), and is shown in the
// gain's formula. The sum of the waits over the other ranks is shown beside it.
//
// Cost and gain per step: the replay of the steps without the rank's delays
// (model/analysis/collectives_replay.h): each of its late arrivals moved earlier by the cause's
// share, at most its lateness over the second-last rank, everything after it shifted, the steps'
// shortening summed and divided by the steps. A summary written before the replay has no replayed
// gain: the held time is the gain then, and the formula says so.
//
// The rule reads the rank folders' timelines; a cluster summary keeps the same numbers, computed
// when it was written (model/cluster_summary/summary_late.h), and lateRankFinding turns either
// into the finding.
#include "advisor/rules_cluster_late.h"

#include "advisor/rule_helpers.h"

#include <algorithm>

namespace npuscope::advisor {

using cluster_summary::LateInstance;
using cluster_summary::LateRank;

void lateRankFinding(const cluster_summary::LateSummary& late, double T, double minShare, RuleOut& out)
{
    if (!late.checked)
        return out.notChecked(late.needs);
    for (const std::string& in : late.inputs)
        out.inputs.push_back(in);
    std::string check;
    for (const LateRank& w : late.ranks) {
        if (w.lastCount == 0)
            continue;
        const double held = static_cast<double>(w.held);
        const double perStep = held / late.steps;
        const double gainPerStep = w.replayed ? static_cast<double>(w.replayGainNs) / late.steps : perStep;
        const double waitPerStep = static_cast<double>(w.waitCaused) / late.steps;
        check += (check.empty() ? "" : ", ") + std::string("rank ") + std::to_string(w.rank) + " holds the others "
                 + fmtMs(perStep) + " per step";
        if (!(T > 0) || perStep < minShare * T)
            continue;
        Finding& fd = out.fire("rank" + std::to_string(w.rank));
        fd.gainFrom = Category::Communication; // the others' wait in collectives
        fd.scope.ranks = {w.rank};
        fd.costNs = roundNs(gainPerStep);
        fd.title = "Rank " + std::to_string(w.rank) + " arrives last at " + std::to_string(w.lastCount) + " collective"
                   + (w.lastCount == 1 ? "" : "s") + ": the others wait " + fmtMs(waitPerStep) + " per step";
        fd.description = "Rank " + std::to_string(w.rank) + " starts its collectives after the other ranks, which wait for it ("
                         + fmtMs(perStep) + " of their step, " + fmtPct(perStep / T) + " of T; " + fmtMs(waitPerStep)
                         + " summed over the waiting ranks). Largest: " + w.worst.collective + ": " + w.worst.reason + ".";
        fd.suggestions.push_back("Remove what delays rank " + std::to_string(w.rank)
                                 + " before the collective (the reason of each instance below): balance the work, or "
                                   "move the host work out of the step.");
        const std::string bound = "Σ arrival spread " + fmtMs(held) + " / " + std::to_string(late.steps)
                                  + " steps = " + fmtMs(perStep);
        if (w.replayed && !(gainPerStep > 0))
            noGain(fd, "the replay without rank " + std::to_string(w.rank)
                           + "'s delays saves nothing: its late arrivals show no longer work of its own (later "
                             "starts, or no cause found); upper bound "
                           + bound);
        else if (w.replayed)
            setGain(fd, gainPerStep,
                    "replay without rank " + std::to_string(w.rank) + "'s delays: step "
                        + fmtMs(static_cast<double>(w.stepNs)) + " → " + fmtMs(static_cast<double>(w.replayedStepNs)) + " ("
                        + fmtMs(gainPerStep) + " per step; upper bound " + bound + ")");
        else
            setGain(fd, perStep, bound + " (upper bound: the summary predates the replay of the steps)");
        for (const LateInstance& i : w.top) {
            Evidence e;
            e.at.rank = w.rank;
            e.at.ts = i.windowEnd;
            e.at.op = i.collective;
            e.at.row = i.group + " #" + std::to_string(i.index) + (i.step.empty() ? "" : " step " + i.step) + ": " + i.reason;
            e.metrics = {{"spread", static_cast<double>(i.spread) / 1e6, "ms"},
                         {"wait caused", static_cast<double>(i.waitCaused) / 1e6, "ms"},
                         {"cause", static_cast<double>(i.causeNs) / 1e6, "ms"}};
            e.threshold = "held " + fmtMs(perStep) + " per step ≥ " + fmtPct(minShare) + " of T";
            e.cost = i.spread;
            fd.evidence.push_back(std::move(e));
        }
        sortEvidence(fd.evidence, kMaxEvidence);
    }
    if (out.fired.empty())
        out.pass((check.empty() ? "no rank arrives last by ≥ 10 µs" : check) + " (threshold " + fmtPct(minShare) + " of T)");
}

void lateRank(const RuleCtx& c, RuleOut& out)
{
    // A cluster summary's numbers are read by its advice (cluster_summary_advice.cpp): the
    // session built of a summary has no timelines.
    if (c.session.ranks.size() < 2)
        return out.notChecked("needs ≥ 2 rank folders with their collectives on the timeline, or a cluster summary "
                              "written with them");
    std::vector<double> steps;
    for (const auto& f : c.all)
        if (f.stepTime > 0)
            steps.push_back(f.stepTime);
    std::sort(steps.begin(), steps.end());
    const double T = steps.empty() ? 0 : steps[steps.size() / 2];
    lateRankFinding(cluster_summary::lateSummaryOf(
                        c.session, analyzeCollectives(c.session, c.clock ? *c.clock : ClockOptions{}), kMaxEvidence),
                    T, c.param("min_share"), out);
}

} // namespace npuscope::advisor
