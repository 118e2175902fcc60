#include "model/cluster_summary/summary_late.h"

#include "model/analysis/collectives_replay.h"
#include "model/formats/loader.h"

#include <algorithm>
#include <map>
#include <set>

namespace npuscope::cluster_summary {

using json = nlohmann::json;

namespace {

LateInstance instanceOf(const CollectiveInstance& i)
{
    LateInstance l;
    l.collective = i.collective;
    l.group = i.group;
    l.step = i.step;
    l.reason = i.reason;
    l.index = i.index;
    l.spread = i.spread;
    l.waitCaused = i.waitCaused;
    l.causeNs = i.causeNs;
    l.windowEnd = i.windowEnd;
    return l;
}

// [collective, group, index, step, spread_ns, wait_caused_ns, cause_ns, window_end_ns, reason]
json instanceJson(const LateInstance& i)
{
    return json::array({i.collective, i.group, i.index, i.step, i.spread, i.waitCaused, i.causeNs, i.windowEnd, i.reason});
}

bool instanceFromJson(const json& j, LateInstance& out)
{
    if (!j.is_array() || j.size() != 9 || !j[0].is_string() || !j[1].is_string() || !j[2].is_number_integer()
        || !j[3].is_string() || !j[8].is_string())
        return false;
    for (std::size_t k = 4; k < 8; ++k)
        if (!j[k].is_number_integer())
            return false;
    out.collective = j[0].get<std::string>();
    out.group = j[1].get<std::string>();
    out.index = j[2].get<int>();
    out.step = j[3].get<std::string>();
    out.spread = j[4].get<TimeNs>();
    out.waitCaused = j[5].get<TimeNs>();
    out.causeNs = j[6].get<TimeNs>();
    out.windowEnd = j[7].get<TimeNs>();
    out.reason = j[8].get<std::string>();
    return true;
}

} // namespace

LateSummary lateSummaryOf(const Session& session, const CollectivesResult& r, std::size_t top)
{
    LateSummary s;
    s.instances = r.instances.size();
    if (r.instances.empty()) {
        s.needs = "needs collectives shared by ≥ 2 ranks (Communication lanes or hcom_ device tasks)";
        return s;
    }
    s.checked = true;
    s.steps = r.steps;
    s.inputs.push_back("collectives on the timelines of " + std::to_string(r.clock.ranks.size()) + " ranks, " + r.clock.status);
    for (const std::string& p : r.problems)
        s.inputs.push_back(p);
    const CollectivesReplay rp = replayCollectives(session, r);
    s.replayResidualNs = rp.residualNs;
    s.inputs.push_back("the steps replayed over " + std::to_string(r.instances.size()) + " collective instances, residual "
                       + std::to_string(rp.residualNs) + " ns");
    for (const std::string& p : rp.problems)
        s.inputs.push_back("replay: " + p);
    for (const RankWaitCaused& w : r.ranks) {
        if (w.lastCount == 0)
            continue;
        LateRank lr;
        lr.rank = w.rank;
        lr.lastCount = w.lastCount;
        lr.waitCaused = w.waitCaused;
        std::vector<const CollectiveInstance*> mine;
        const CollectiveInstance* worst = nullptr;
        for (const CollectiveInstance& i : r.instances) {
            if (i.lastRank != w.rank)
                continue;
            lr.held += i.spread;
            mine.push_back(&i);
            if (!worst || i.waitCaused > worst->waitCaused)
                worst = &i;
        }
        // The order of the finding's evidence: the largest spread first, instance order on ties.
        std::stable_sort(mine.begin(), mine.end(),
                         [](const CollectiveInstance* a, const CollectiveInstance* b) { return a->spread > b->spread; });
        for (std::size_t k = 0; k < mine.size() && k < top; ++k)
            lr.top.push_back(instanceOf(*mine[k]));
        if (worst)
            lr.worst = instanceOf(*worst);
        for (const RankReplayGain& g : rp.ranks)
            if (g.rank == w.rank) {
                lr.replayed = true;
                lr.replayGainNs = g.gainNs;
                lr.stepNs = g.stepNs;
                lr.replayedStepNs = g.replayedStepNs;
            }
        s.ranks.push_back(std::move(lr));
    }
    return s;
}

LateSummary addLateRanks(json& doc)
{
    std::vector<std::string> paths;
    std::set<std::string> seen;
    for (const json& r : doc["ranks"])
        if (r.is_object() && r.contains("path") && r["path"].is_string() && seen.insert(r["path"].get<std::string>()).second)
            paths.push_back(r["path"].get<std::string>());
    LateSummary late;
    if (paths.size() < 2) {
        late.needs = "needs ≥ 2 rank folders with their collectives on the timeline";
    } else {
        // The reasons compare the late and the earliest rank's timelines: the folders are read
        // again, together, and nothing of them but these numbers is kept.
        const LoadResult l = loadSessions(paths);
        if (!l.session || l.session->ranks.size() < 2)
            late.needs = "needs ≥ 2 rank folders with their collectives on the timeline (the folders could not be read "
                         "again"
                         + (l.error.empty() ? std::string() : ": " + l.error) + ")";
        else
            late = lateSummaryOf(*l.session, analyzeCollectives(*l.session), kLateTopInstances);
    }
    json section = {{"checked", late.checked}, {"steps", late.steps}, {"instances", late.instances}, {"inputs", late.inputs}};
    if (!late.checked)
        section["needs"] = late.needs;
    else
        section["replay_residual_ns"] = late.replayResidualNs;
    doc["collectives"] = std::move(section);
    std::map<int, const LateRank*> byRank;
    for (const LateRank& lr : late.ranks)
        byRank[lr.rank] = &lr;
    for (json& r : doc["ranks"]) {
        if (!r.is_object())
            continue;
        const auto it = byRank.find(r.value("rank", -1));
        if (it == byRank.end())
            continue;
        const LateRank& lr = *it->second;
        json top = json::array();
        const std::size_t kept = std::min(lr.top.size(), kLateKeptInstances);
        std::size_t worstAt = kept;
        for (std::size_t k = 0; k < kept; ++k) {
            top.push_back(instanceJson(lr.top[k]));
            if (worstAt == kept && lr.top[k].group == lr.worst.group && lr.top[k].index == lr.worst.index)
                worstAt = k;
        }
        r["late"] = {{"last_count", lr.lastCount},
                     {"wait_caused_ns", lr.waitCaused},
                     {"held_ns", lr.held},
                     {"top", std::move(top)},
                     {"worst", worstAt < kept ? json(worstAt) : instanceJson(lr.worst)}};
        if (lr.replayed)
            r["late"]["replay"] = {
                {"gain_ns", lr.replayGainNs}, {"step_ns", lr.stepNs}, {"replayed_step_ns", lr.replayedStepNs}};
        byRank.erase(it); // a rank id listed twice keeps its numbers once
    }
    return late;
}

bool lateFromJson(const json& doc, LateSummary& out)
{
    out = LateSummary();
    const auto sec = doc.find("collectives");
    if (sec == doc.end() || !sec->is_object())
        return false;
    out.checked = sec->value("checked", false);
    out.needs = sec->value("needs", std::string());
    out.steps = std::max(1, sec->value("steps", 1));
    out.instances = sec->value("instances", std::size_t(0));
    for (const json& i : sec->value("inputs", json::array()))
        if (i.is_string())
            out.inputs.push_back(i.get<std::string>());
    out.replayResidualNs = sec->value("replay_residual_ns", TimeNs{0});
    if (!out.checked && out.needs.empty())
        out.needs = "the summary's late-rank numbers could not be computed";
    for (const json& r : doc.value("ranks", json::array())) {
        const auto late = r.is_object() ? r.find("late") : r.end();
        if (!r.is_object() || late == r.end() || !late->is_object())
            continue;
        LateRank lr;
        lr.rank = r.value("rank", -1);
        lr.lastCount = late->value("last_count", 0);
        lr.waitCaused = late->value("wait_caused_ns", TimeNs{0});
        lr.held = late->value("held_ns", TimeNs{0});
        for (const json& i : late->value("top", json::array())) {
            LateInstance li;
            if (instanceFromJson(i, li))
                lr.top.push_back(std::move(li));
        }
        const json worst = late->value("worst", json());
        if (worst.is_number_unsigned() && worst.get<std::size_t>() < lr.top.size())
            lr.worst = lr.top[worst.get<std::size_t>()];
        else if (!instanceFromJson(worst, lr.worst) && !lr.top.empty())
            lr.worst = lr.top.front();
        // Written before the replay: no "replay", the finding says it falls back to the held time.
        const auto replay = late->find("replay");
        if (replay != late->end() && replay->is_object() && replay->value("gain_ns", json()).is_number_integer()) {
            lr.replayed = true;
            lr.replayGainNs = replay->value("gain_ns", TimeNs{0});
            lr.stepNs = replay->value("step_ns", TimeNs{0});
            lr.replayedStepNs = replay->value("replayed_step_ns", TimeNs{0});
        }
        if (lr.rank >= 0 && lr.lastCount > 0)
            out.ranks.push_back(std::move(lr));
    }
    std::sort(out.ranks.begin(), out.ranks.end(), [](const LateRank& a, const LateRank& b) { return a.rank < b.rank; });
    return true;
}

} // namespace npuscope::cluster_summary
