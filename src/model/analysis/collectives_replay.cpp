#include "model/analysis/collectives_replay.h"

#include "model/analysis/intervals.h"
#include "model/analysis/overlap.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>

namespace npuscope {

namespace {

constexpr TimeNs kNever = std::numeric_limits<TimeNs>::min();

// A rank's step spans by step key ("3" of ProfilerStep#3), and its device work's extent (file
// time), read once.
struct RankSpans {
    std::map<std::string, Interval> steps;
    Interval device{0, 0};
    bool hasDevice = false;
};

RankSpans spansOf(const Profile& p)
{
    RankSpans s;
    for (const auto& [name, iv] : profilerSteps(p))
        s.steps.emplace(name.rfind("ProfilerStep#", 0) == 0 ? name.substr(13) : name, iv);
    for (const Track& tr : p.tracks) {
        if (tr.kind != TrackKind::Stream)
            continue;
        for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i) {
            if (p.slices.depth[i] != 0)
                continue;
            const TimeNs b = p.slices.start[i], e = p.slices.end(i);
            s.device = s.hasDevice ? Interval{std::min(s.device.begin, b), std::max(s.device.end, e)} : Interval{b, e};
            s.hasDevice = true;
        }
    }
    return s;
}

TimeNs lastArrival(const CollectiveInstance& i)
{
    TimeNs t = kNever;
    for (const Arrival& a : i.arrivals)
        t = std::max(t, a.arrival);
    return t;
}

struct StepRun {
    TimeNs end = 0;
    TimeNs residual = 0; // the largest |replayed − measured| collective end
    int unordered = 0;   // segments whose previous instance was not replayed yet
};

// One step replayed, the late rank's segment before each instance `li` shortened by cut[li].
StepRun runStep(const CollectivesResult& r, const ReplayStep& st, const std::vector<TimeNs>& cut)
{
    StepRun run;
    std::vector<std::vector<TimeNs>> endOf(st.instances.size());
    for (std::size_t li = 0; li < st.instances.size(); ++li) {
        const CollectiveInstance& inst = r.instances[st.instances[li]];
        std::vector<TimeNs> arrival(inst.arrivals.size());
        TimeNs last = kNever;
        for (std::size_t j = 0; j < inst.arrivals.size(); ++j) {
            const auto [lane, k] = st.at[li][j];
            const ReplayLane& l = st.lanes[lane];
            TimeNs base = l.begin;
            if (k > 0) {
                const auto [pli, pj] = l.order[k - 1];
                if (static_cast<std::size_t>(pli) < li) {
                    base = endOf[pli][pj];
                } else { // another rank ordered them the other way: its measured end
                    base = r.instances[st.instances[pli]].arrivals[pj].end;
                    ++run.unordered;
                }
            }
            TimeNs seg = l.segment[k];
            if (cut[li] > 0 && inst.arrivals[j].rankIndex == inst.lastRankIndex)
                seg -= std::min(cut[li], std::max<TimeNs>(0, seg));
            arrival[j] = base + seg;
            last = std::max(last, arrival[j]);
        }
        const TimeNs measuredLast = lastArrival(inst);
        endOf[li].resize(inst.arrivals.size());
        for (std::size_t j = 0; j < inst.arrivals.size(); ++j) {
            endOf[li][j] = last + (inst.arrivals[j].end - measuredLast);
            run.residual = std::max(run.residual, std::abs(endOf[li][j] - inst.arrivals[j].end));
        }
    }
    run.end = kNever;
    for (const ReplayLane& l : st.lanes) {
        const TimeNs lastEnd = l.order.empty() ? l.begin : endOf[l.order.back().first][l.order.back().second];
        run.end = std::max(run.end, lastEnd + l.tail);
    }
    return run;
}

// The steps of `r`: each instance in its step, each rank's lane cut at its arrivals.
std::vector<ReplayStep> buildSteps(const Session& s, const CollectivesResult& r)
{
    std::map<std::string, std::vector<int>> byStep;
    for (std::size_t i = 0; i < r.instances.size(); ++i)
        byStep[r.instances[i].step].push_back(static_cast<int>(i));
    std::map<int, RankSpans> spans; // by rank index, read on first use
    const auto spanOf = [&](int ri) -> const RankSpans& {
        auto it = spans.find(ri);
        if (it == spans.end())
            it = spans.emplace(ri, spansOf(*s.ranks[ri])).first;
        return it->second;
    };
    std::vector<ReplayStep> steps;
    for (auto& [name, list] : byStep) {
        ReplayStep st;
        st.step = name;
        std::stable_sort(list.begin(), list.end(),
                         [&](int a, int b) { return lastArrival(r.instances[a]) < lastArrival(r.instances[b]); });
        st.instances = list;
        // Each rank's arrivals in the step, by its own arrival.
        std::map<int, std::vector<std::pair<TimeNs, std::pair<int, int>>>> arrivals; // by rank index
        for (std::size_t li = 0; li < list.size(); ++li) {
            const CollectiveInstance& inst = r.instances[list[li]];
            for (std::size_t j = 0; j < inst.arrivals.size(); ++j)
                arrivals[inst.arrivals[j].rankIndex].push_back(
                    {inst.arrivals[j].arrival, {static_cast<int>(li), static_cast<int>(j)}});
        }
        st.at.resize(list.size());
        for (std::size_t li = 0; li < list.size(); ++li)
            st.at[li].resize(r.instances[list[li]].arrivals.size());
        for (auto& [ri, mine] : arrivals) {
            std::stable_sort(mine.begin(), mine.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            ReplayLane l;
            l.rankIndex = ri;
            const TimeNs off = r.clock.offsetOfIndex(ri);
            const std::vector<int>& ids = list; // a structured binding: no lambda may capture it
            const auto endAt = [&](const std::pair<int, int>& o) { return r.instances[ids[o.first]].arrivals[o.second].end; };
            const RankSpans& sp = spanOf(ri);
            const auto named = sp.steps.find(name);
            if (!name.empty() && named != sp.steps.end()) {
                l.begin = named->second.begin - off;
                l.end = named->second.end - off;
            } else if (name.empty() && sp.steps.empty() && sp.hasDevice) {
                l.begin = sp.device.begin - off;
                l.end = sp.device.end - off;
            } else { // no span of its own: from its first arrival to its last collective's end
                l.begin = mine.front().first;
                l.end = kNever;
                for (const auto& m : mine)
                    l.end = std::max(l.end, endAt(m.second));
            }
            TimeNs prev = l.begin;
            for (const auto& [arrival, at] : mine) {
                st.at[at.first][at.second] = {static_cast<int>(st.lanes.size()), static_cast<int>(l.order.size())};
                l.order.push_back(at);
                l.segment.push_back(arrival - prev);
                prev = endAt(at);
            }
            l.tail = l.end - prev;
            st.lanes.push_back(std::move(l));
        }
        st.begin = std::numeric_limits<TimeNs>::max();
        st.measuredEnd = kNever;
        for (const ReplayLane& l : st.lanes) {
            st.begin = std::min(st.begin, l.begin);
            st.measuredEnd = std::max(st.measuredEnd, l.end);
        }
        steps.push_back(std::move(st));
    }
    std::stable_sort(steps.begin(), steps.end(), [](const ReplayStep& a, const ReplayStep& b) { return a.begin < b.begin; });
    return steps;
}

std::vector<TimeNs> cutsOf(const CollectivesResult& r, const ReplayStep& st, const std::vector<char>& removed)
{
    std::vector<TimeNs> cut(st.instances.size(), 0);
    for (std::size_t li = 0; li < st.instances.size(); ++li)
        if (removed[st.instances[li]])
            cut[li] = removableDelay(r.instances[st.instances[li]]);
    return cut;
}

} // namespace

TimeNs removableDelay(const CollectiveInstance& inst)
{
    // A later start (the rank's previous collective ended later) is no local work of its own:
    // the replay keeps each rank's end of the previous collective, so there is nothing to remove.
    if (inst.lastRankIndex < 0 || inst.arrivals.size() < 2 || inst.cause == LateCause::LaterStart)
        return 0;
    TimeNs last = kNever, second = kNever;
    for (const Arrival& a : inst.arrivals) {
        if (a.arrival > last) {
            second = last;
            last = a.arrival;
        } else if (a.arrival > second) {
            second = a.arrival;
        }
    }
    return std::max<TimeNs>(0, std::min(inst.causeNs, last - second));
}

TimeNs replayGainWithout(const CollectivesResult& r, const CollectivesReplay& rp, const std::vector<int>& removed)
{
    std::vector<char> mark(r.instances.size(), 0);
    for (int i : removed)
        if (i >= 0 && static_cast<std::size_t>(i) < mark.size())
            mark[i] = 1;
    TimeNs gain = 0;
    for (const ReplayStep& st : rp.steps) {
        const std::vector<TimeNs> cut = cutsOf(r, st, mark);
        if (std::any_of(cut.begin(), cut.end(), [](TimeNs c) { return c > 0; }))
            gain += st.replayedEnd - runStep(r, st, cut).end;
    }
    return gain;
}

CollectivesReplay replayCollectives(const Session& s, const CollectivesResult& r)
{
    CollectivesReplay rp;
    rp.steps = buildSteps(s, r);
    int unordered = 0;
    TimeNs measuredStepsNs = 0;
    for (ReplayStep& st : rp.steps) {
        const StepRun run = runStep(r, st, std::vector<TimeNs>(st.instances.size(), 0));
        st.replayedEnd = run.end;
        rp.residualNs = std::max({rp.residualNs, run.residual, std::abs(run.end - st.measuredEnd)});
        unordered += run.unordered;
        measuredStepsNs += st.measuredEnd - st.begin;
    }
    if (unordered > 0)
        rp.problems.push_back(std::to_string(unordered)
                              + " segments follow a collective that other ranks reached later: replayed from its "
                                "measured end");
    const int nSteps = std::max(1, r.steps);
    const TimeNs meanStep = rp.steps.empty() ? 0 : measuredStepsNs / static_cast<TimeNs>(rp.steps.size());
    for (const RankWaitCaused& w : r.ranks) {
        if (w.lastCount == 0)
            continue;
        RankReplayGain g;
        g.rank = w.rank;
        std::vector<int> mine;
        for (std::size_t i = 0; i < r.instances.size(); ++i)
            if (r.instances[i].lastRankIndex == w.rankIndex) {
                mine.push_back(static_cast<int>(i));
                g.delayNs += removableDelay(r.instances[i]);
            }
        g.removed = static_cast<int>(mine.size());
        g.gainNs = replayGainWithout(r, rp, mine);
        g.perStep = static_cast<double>(g.gainNs) / nSteps;
        g.stepNs = meanStep;
        g.replayedStepNs = rp.steps.empty() ? 0 : meanStep - g.gainNs / static_cast<TimeNs>(rp.steps.size());
        rp.ranks.push_back(g);
    }
    return rp;
}

} // namespace npuscope
