#include "model/synth/planted.h"

#include "model/synth/comm_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace npuscope::synth {

namespace {

// The launch queue's depth per rank with a host plant: shallow enough that a host stall drains
// the device within a few tasks, as in a host-bound run (without plants the host runs ahead
// unbounded, and a stall would hide behind the queued work).
constexpr int kPlantQueueDepth = 2;

bool hostPlants(const SynthOptions& o)
{
    return !o.plants.empty() || (o.lateRank.rank >= 0 && o.lateRank.kind == "host");
}

int collectivesPerStep(const Scenario& sc)
{
    int n = 0;
    for (const auto& op : sc.ops)
        n += op.core == Core::Comm ? 1 : 0;
    return n * sc.layers;
}

std::int64_t overlapNs(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d)
{
    return std::max<std::int64_t>(0, std::min(b, d) - std::max(a, c));
}

using Spans = std::vector<std::pair<std::int64_t, std::int64_t>>;

Spans merged(Spans v)
{
    std::sort(v.begin(), v.end());
    Spans out;
    for (const auto& iv : v) {
        if (!out.empty() && iv.first <= out.back().second)
            out.back().second = std::max(out.back().second, iv.second);
        else
            out.push_back(iv);
    }
    return out;
}

// |[a, b) − ∪ spans| (spans merged)
std::int64_t uncovered(std::int64_t a, std::int64_t b, const Spans& spans)
{
    std::int64_t n = std::max<std::int64_t>(0, b - a);
    for (const auto& iv : spans)
        n -= overlapNs(a, b, iv.first, iv.second);
    return n;
}

} // namespace

std::vector<std::string> plantNames()
{
    return {"python_stall", "dataloader", "sync", "compile"};
}

double plantDefaultUs(const std::string& cause)
{
    if (cause == "python_stall")
        return 900;
    if (cause == "dataloader")
        return 1500;
    if (cause == "sync")
        return 200;
    if (cause == "compile")
        return 1200;
    return 0;
}

bool plantsGiven(const SynthOptions& o)
{
    return !o.plants.empty() || !o.speedups.empty() || !o.clockOffsets.empty() || o.lateRank.rank >= 0;
}

std::string checkPlants(const SynthOptions& o, const Scenario& sc, int ranks)
{
    std::set<std::string> seen;
    for (const auto& p : o.plants) {
        if (plantDefaultUs(p.cause) == 0)
            return "unknown plant '" + p.cause + "' (python_stall, dataloader, sync or compile)";
        if (!seen.insert(p.cause).second)
            return "plant '" + p.cause + "' given twice";
        if (!(p.us >= 0) || p.us > 1e7)
            return "plant '" + p.cause + "': duration must be 0 < US <= 10000000";
        if ((p.cause == "sync" || p.cause == "compile") && o.level == 0)
            return "plant '" + p.cause + "' writes CANN API slices: needs --level 1 or 2";
    }
    const LateRankSpec& l = o.lateRank;
    if (l.rank >= 0) {
        if (ranks < 2)
            return "--late-rank needs 2 or more ranks";
        if (l.rank >= ranks)
            return "--late-rank: rank outside 0.." + std::to_string(ranks - 1);
        if (l.kind != "op" && l.kind != "host")
            return "--late-rank: kind must be op or host";
        if (!(l.us > 0) || l.us > 1e7)
            return "--late-rank: delay must be 0 < US <= 10000000";
        if (l.collective >= collectivesPerStep(sc))
            return "--late-rank: collective index outside 0.." + std::to_string(collectivesPerStep(sc) - 1);
    }
    if (hostPlants(o)) {
        if (o.layout != "torch_npu")
            return "planted host slices are written in the torch_npu layout only";
        if (o.processOrdered || o.flowOrder != "time" || o.devicePerPyOp != 1)
            return "planted host slices are written with the default shape only";
    }
    for (const auto& [type, f] : o.speedups) {
        if (!(f > 0) || !std::isfinite(f))
            return "--speedup " + type + ": factor must be > 0";
        const std::string& name = type; // (a lambda may not capture a structured binding before C++20's clang 16)
        const bool known = std::any_of(sc.ops.begin(), sc.ops.end(),
                                       [&](const OpKind& k) { return k.core != Core::Comm && k.type == name; });
        if (!known)
            return "--speedup: no op type '" + type + "' in scenario " + o.scenario;
    }
    std::set<int> offRanks;
    for (const auto& [rank, ns] : o.clockOffsets) {
        (void)ns;
        if (rank < 0 || rank >= ranks)
            return "--clock-offset: rank outside 0.." + std::to_string(ranks - 1);
        if (!offRanks.insert(rank).second)
            return "--clock-offset: rank " + std::to_string(rank) + " given twice";
    }
    return {};
}

PlantConfig plantConfig(const SynthOptions& o, const Scenario& sc)
{
    PlantConfig c;
    c.seed = o.seed;
    for (auto p : o.plants) {
        if (p.us <= 0)
            p.us = plantDefaultUs(p.cause);
        c.plants.push_back(p);
    }
    if (!o.speedups.empty()) {
        c.speed.assign(sc.ops.size(), 1.0);
        for (const auto& [type, f] : o.speedups)
            for (std::size_t i = 0; i < sc.ops.size(); ++i)
                if (sc.ops[i].type == type)
                    c.speed[i] = f;
    }
    c.late = o.lateRank;
    if (c.late.rank >= 0 && c.late.collective < 0)
        c.late.collective = collectivesPerStep(sc) / 2;
    c.queueDepth = hostPlants(o) ? kPlantQueueDepth : 0;
    return c;
}

std::vector<std::int64_t> rankOffsets(const SynthOptions& o, int ranks)
{
    std::vector<std::int64_t> offs(static_cast<std::size_t>(ranks), 0);
    for (const auto& [rank, ns] : o.clockOffsets)
        if (rank >= 0 && rank < ranks)
            offs[static_cast<std::size_t>(rank)] = ns;
    return offs;
}

namespace {

void shiftRank(RankStep& rs, std::int64_t off)
{
    for (Task& t : rs.tasks) {
        t.start += off;
        t.aclStart += off;
        t.nodeStart += off;
        t.pyStart += off;
        t.transferStart += off;
    }
    for (HostSlice& h : rs.extra)
        h.start += off;
    rs.syncStart += off;
}

} // namespace

StepPlan shiftPlan(const StepPlan& plan, const std::vector<std::int64_t>& offs)
{
    StepPlan p = plan;
    for (std::size_t r = 0; r < p.ranks.size() && r < offs.size(); ++r)
        shiftRank(p.ranks[r], offs[r]);
    return p;
}

StepPlan rankView(const StepPlan& plan, std::int64_t off)
{
    StepPlan p;
    p.index = plan.index;
    p.start = plan.start + off;
    p.end = plan.end + off;
    p.late = plan.late;
    return p;
}

TruthBuilder::TruthBuilder(const SynthOptions& o, const Scenario& sc, int ranks, const PlantConfig& cfg) : m_sc(sc)
{
    m_t.plants = cfg.plants;
    m_t.speedups = o.speedups;
    m_t.clockOffsets = o.clockOffsets;
    const auto offs = rankOffsets(o, ranks);
    for (int r = 0; r < ranks; ++r) {
        RankTruth rt;
        rt.rank = r;
        rt.clockOffsetNs = offs[static_cast<std::size_t>(r)];
        m_t.ranks.push_back(std::move(rt));
    }
}

void TruthBuilder::step(const StepPlan& plan)
{
    m_spans.push_back(plan.end - plan.start);
    for (std::size_t r = 0; r < m_t.ranks.size() && r < plan.ranks.size(); ++r) {
        RankTruth& rt = m_t.ranks[r];
        const RankStep& rs = plan.ranks[r];
        const std::int64_t off = rt.clockOffsetNs;
        // ∪ device busy inside the span; with the waits of launched tasks, ∪ held
        Spans busy, held;
        busy.reserve(rs.tasks.size());
        for (const Task& t : rs.tasks) {
            const std::int64_t a = std::max(t.start, plan.start), b = std::min(t.start + t.dur, plan.end);
            if (b > a)
                busy.emplace_back(a, b);
            const std::int64_t launched = t.nodeStart + t.nodeDur;
            if (t.start > launched)
                held.emplace_back(launched, t.start);
        }
        busy = merged(std::move(busy));
        held.insert(held.end(), busy.begin(), busy.end());
        held = merged(std::move(held));
        std::int64_t busyNs = 0;
        for (const auto& iv : busy)
            busyNs += iv.second - iv.first;
        StepTruth st;
        st.index = plan.index;
        st.start = plan.start + off;
        st.end = plan.end + off;
        st.idleNs = (plan.end - plan.start) - busyNs;
        const std::int64_t dev0 = busy.empty() ? plan.start : busy.front().first;
        const std::int64_t dev1 = busy.empty() ? plan.start : busy.back().second;
        st.deviceBegin = dev0 + off;
        st.deviceEnd = dev1 + off;
        st.freeNs = (dev1 - dev0) - busyNs;
        for (const HostSlice& h : rs.extra) {
            if (h.plant.empty())
                continue;
            PlantedSlice ps;
            ps.plant = h.plant;
            ps.cause = h.cause;
            ps.name = h.name;
            ps.start = h.start + off;
            ps.end = h.start + h.dur + off;
            const std::int64_t a = std::max(h.start, plan.start), b = std::min(h.start + h.dur, plan.end);
            const std::int64_t covered = uncovered(a, b, busy);
            ps.idleNs = covered;
            ps.starvedNs = uncovered(a, b, held);
            ps.freeNs = uncovered(std::max(a, dev0), std::min(b, dev1), busy);
            auto it = std::find_if(rt.causeIdleNs.begin(), rt.causeIdleNs.end(),
                                   [&](const auto& kv) { return kv.first == ps.cause; });
            if (it == rt.causeIdleNs.end())
                rt.causeIdleNs.emplace_back(ps.cause, covered);
            else
                it->second += covered;
            st.slices.push_back(std::move(ps));
        }
        rt.steps.push_back(std::move(st));
    }
    const LateStep& late = plan.late;
    if (late.rank < 0 || static_cast<std::size_t>(late.rank) >= plan.ranks.size())
        return;
    const auto& lateTasks = plan.ranks[static_cast<std::size_t>(late.rank)].tasks;
    if (late.task >= lateTasks.size())
        return;
    const Task& t = lateTasks[late.task];
    LateTruth lt;
    lt.step = plan.index;
    lt.collective = commOpName(t);
    lt.rank = late.rank;
    lt.delayedBy = late.delayedBy;
    lt.delayNs = late.delayNs;
    std::int64_t othersLatest = 0;
    for (std::size_t r = 0; r < plan.ranks.size(); ++r) {
        if (static_cast<int>(r) == late.rank)
            continue;
        for (const Task& o : plan.ranks[r].tasks)
            if (!o.links.empty() && o.commIndex == t.commIndex) {
                othersLatest = std::max(othersLatest, o.start);
                break;
            }
    }
    lt.arrivalLagNs = t.start - othersLatest;
    m_t.late.push_back(std::move(lt));
}

SynthTruth TruthBuilder::finish()
{
    if (!m_spans.empty()) {
        auto v = m_spans;
        std::sort(v.begin(), v.end());
        const std::size_t n = v.size();
        m_t.medianStepNs = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
    return std::move(m_t);
}

std::string truthJson(const SynthTruth& t)
{
    using J = nlohmann::ordered_json;
    J j;
    j["median_step_ns"] = t.medianStepNs;
    J plants = J::array();
    for (const auto& p : t.plants)
        plants.push_back({{"cause", p.cause}, {"us", p.us}});
    j["plants"] = plants;
    J speed = J::array();
    for (const auto& [type, f] : t.speedups)
        speed.push_back({{"op_type", type}, {"factor", f}});
    j["speedups"] = speed;
    J offs = J::array();
    for (const auto& [rank, ns] : t.clockOffsets)
        offs.push_back({{"rank", rank}, {"offset_ns", ns}});
    j["clock_offsets"] = offs;
    J ranks = J::array();
    for (const auto& rt : t.ranks) {
        J r;
        r["rank"] = rt.rank;
        r["clock_offset_ns"] = rt.clockOffsetNs;
        J causes = J::object();
        for (const auto& [c, ns] : rt.causeIdleNs)
            causes[c] = ns;
        r["cause_idle_ns"] = causes;
        J steps = J::array();
        for (const auto& st : rt.steps) {
            J s;
            s["step"] = st.index;
            s["start_ns"] = st.start;
            s["end_ns"] = st.end;
            s["idle_ns"] = st.idleNs;
            s["device_begin_ns"] = st.deviceBegin;
            s["device_end_ns"] = st.deviceEnd;
            s["free_ns"] = st.freeNs;
            J slices = J::array();
            for (const auto& ps : st.slices)
                slices.push_back({{"plant", ps.plant},
                                  {"cause", ps.cause},
                                  {"name", ps.name},
                                  {"start_ns", ps.start},
                                  {"end_ns", ps.end},
                                  {"idle_ns", ps.idleNs},
                                  {"starved_ns", ps.starvedNs},
                                  {"free_ns", ps.freeNs}});
            s["planted"] = slices;
            steps.push_back(std::move(s));
        }
        r["steps"] = std::move(steps);
        ranks.push_back(std::move(r));
    }
    j["ranks"] = std::move(ranks);
    J late = J::array();
    for (const auto& l : t.late)
        late.push_back({{"step", l.step},
                        {"collective", l.collective},
                        {"rank", l.rank},
                        {"delayed_by", l.delayedBy},
                        {"delay_ns", l.delayNs},
                        {"arrival_lag_ns", l.arrivalLagNs}});
    j["late_rank"] = late;
    return j.dump(2) + "\n";
}

} // namespace npuscope::synth
