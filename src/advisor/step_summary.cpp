// The report's step time: each rank's T and split (RankFacts, from computeOverlap's typical
// step), and the report's T over the ranks, the median of their complete steps taken together.
// A cluster summary without its folders gives the same from its step rows.
#include "advisor/rule_context.h"

#include <algorithm>
#include <map>

namespace npuscope::advisor {

void poolSteps(Summary& sm, std::vector<double> complete)
{
    std::sort(complete.begin(), complete.end());
    const std::size_t n = complete.size();
    if (n == 0)
        return;
    sm.stepMin = complete.front();
    sm.stepMax = complete.back();
    sm.stepMedian = n % 2 ? complete[n / 2] : (complete[n / 2 - 1] + complete[n / 2]) / 2.0;
    // One rank's T is its typical step's rounded split; the pooled median is the report's.
    sm.T = sm.ranks.size() == 1 && sm.ranks.front().T() > 0 ? sm.ranks.front().T() : sm.stepMedian;
}

namespace {

// The complete steps of a session without rank folders (a cluster summary): each rank's rows of
// its cluster step table, in order, with the partial ones left out (stepStats).
std::vector<double> clusterCompleteSteps(const ClusterData& cl, Summary& sm)
{
    std::map<std::string, std::vector<double>> perRank;
    for (const auto& row : cl.stepTrace)
        if (row.type == "rank" && row.computing)
            perRank[row.index].push_back(
                static_cast<double>(*row.computing + row.commNotOverlapped.value_or(0) + row.free.value_or(0)));
    std::vector<double> complete;
    for (const auto& [rank, durations] : perRank) {
        const StepStats st = stepStats(durations);
        sm.steps += st.steps;
        sm.partial += st.partial;
        for (std::size_t i = 0; i < durations.size(); ++i)
            if (!st.isPartial[i])
                complete.push_back(durations[i]);
    }
    return complete;
}

} // namespace

void summarizeSteps(const Session& session, const std::vector<ProfileFacts>& facts, AdvisorReport& rep)
{
    Summary& sm = rep.summary;
    std::vector<double> complete;
    for (const auto& f : facts) {
        RankSplit rs;
        rs.rank = f.rank;
        rs.split = stepSplit(f.overlap);
        rs.split.source = f.stepSource;
        rs.computingParts = f.computingParts;
        rs.commParts = f.commParts;
        for (const RankStep& s : f.steps)
            if (!s.partial)
                complete.push_back(static_cast<double>(s.split.stepTime()));
        sm.steps += rs.split.steps;
        sm.partial += rs.split.partial;
        sm.ranks.push_back(rs);
        if (sm.tSource.empty())
            sm.tSource = f.stepSource;
    }
    if (facts.empty())
        complete = clusterCompleteSteps(session.cluster, sm);
    poolSteps(sm, std::move(complete));
    rep.T = sm.T;
}

} // namespace npuscope::advisor
