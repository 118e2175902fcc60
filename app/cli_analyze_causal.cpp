// `analyze --metric idle` and `analyze --metric critical_path` (cli_analyze_causal.h).
#include "app/cli_analyze_causal.h"

#include "model/analysis/critical_path.h"
#include "model/analysis/idle_causes.h"
#include "model/analysis/step_graph.h"
#include "model/store/safe_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace npuscope::cli {

namespace {

using Json = nlohmann::ordered_json;

std::string num(TimeNs v)
{
    return std::to_string(v);
}

// The graph, idle causes and critical paths of one rank.
struct RankCausal {
    const Profile& p;
    StepGraph graph;
    IdleCauses idle;
    explicit RankCausal(const Profile& profile)
        : p(profile), graph(buildStepGraph(profile)), idle(idleCauses(profile, graph))
    {
    }
};

Json causeObject(const IdleByCause& ns)
{
    Json o = Json::object();
    for (std::size_t c = 0; c < kIdleCauseCount; ++c)
        o[idleCauseKey(static_cast<IdleCause>(c))] = ns[c];
    return o;
}

Json missingJson(const std::vector<std::string>& missing, int rank, bool multi)
{
    Json a = Json::array();
    for (const std::string& m : missing)
        a.push_back(multi ? "rank " + std::to_string(rank) + ": " + m : m);
    return a;
}

// CSV and tables carry no `missing`: its sentences go to standard error, as do those of an input
// without a step (which JSON gives too, beside its empty lists).
void warnMissing(const Json& missing, bool json, bool anyStep)
{
    if (json && anyStep)
        return;
    for (const auto& m : missing)
        std::fprintf(stderr, "npuscope analyze: %s\n", m.get<std::string>().c_str());
}

// A call stack as a table cell: its innermost frame and how many more there are (the whole
// stack is in the csv and json outputs; a table is read on a terminal).
std::string stackCell(const std::string& stack)
{
    std::size_t frames = 0, firstEnd = std::string::npos;
    for (std::size_t at = 0; at < stack.size();) {
        std::size_t end = stack.find(';', at);
        if (end == std::string::npos)
            end = stack.size();
        const auto b = stack.find_first_not_of(" \n\r\t", at);
        if (b != std::string::npos && b < end) {
            if (++frames == 1)
                firstEnd = end;
        }
        at = end + 1;
    }
    if (frames <= 1)
        return stack;
    const auto b = stack.find_first_not_of(" \n\r\t");
    return stack.substr(b, firstEnd - b) + " (+" + std::to_string(frames - 1) + " frames)";
}

} // namespace

std::string idleReport(const Session& s, text::Table t, const std::string& format, const std::vector<InputProblem>& problems)
{
    const bool multi = s.ranks.size() > 1;
    const bool json = format == "json";
    IdleByCause totals{}, preparingTotals{};
    Json steps = Json::array(), gaps = Json::array(), missing = Json::array();
    for (const ProfilePtr& pp : s.ranks) {
        const RankCausal rc(*pp);
        const Profile& p = *pp;
        for (const auto& m : missingJson(rc.idle.missing, p.rank, multi))
            missing.push_back(m);
        for (std::size_t c = 0; c < kIdleCauseCount; ++c) {
            totals[c] += rc.idle.totals[c];
            preparingTotals[c] += rc.idle.preparingTotals[c];
        }
        for (const IdleStep& st : rc.idle.steps) {
            if (json) {
                steps.push_back(Json{{"rank", p.rank},
                                     {"step", st.name},
                                     {"idle_ns", st.idleNs},
                                     {"causes", causeObject(st.byCause)},
                                     {"preparing_ns", st.preparingNs},
                                     {"preparing_causes", causeObject(st.preparingByCause)}});
                continue;
            }
            // the Free rows, then the Preparing rows of the step
            for (const bool prep : {false, true}) {
                const IdleByCause& by = prep ? st.preparingByCause : st.byCause;
                for (std::size_t c = 0; c <= kIdleCauseCount; ++c) {
                    const bool all = c == kIdleCauseCount;
                    t.rows.push_back({"step", std::to_string(p.rank), st.name,
                                      all ? "all" : idleCauseKey(static_cast<IdleCause>(c)),
                                      num(all ? (prep ? st.preparingNs : st.idleNs) : by[c]), "", "", "", "", "", "", "",
                                      prep ? "preparing" : "free"});
                }
            }
        }
        // the Preparing and Free pieces in time order (neither overlaps the other)
        std::vector<const IdleGap*> ordered;
        ordered.reserve(rc.idle.gaps.size() + rc.idle.preparingGaps.size());
        for (const auto* list : {&rc.idle.preparingGaps, &rc.idle.gaps})
            for (const IdleGap& g : *list)
                ordered.push_back(&g);
        std::stable_sort(ordered.begin(), ordered.end(),
                         [](const IdleGap* a, const IdleGap* b) { return a->start < b->start; });
        for (const IdleGap* gp : ordered) {
            const IdleGap& g = *gp;
            const std::string step = g.step >= 0 ? rc.graph.steps[static_cast<std::size_t>(g.step)].name : "";
            const std::string host = g.hostSlice != kNone ? std::string(p.str(p.slices.name[g.hostSlice])) : "";
            const std::string stack = g.hostSlice != kNone ? hostCallStack(p, rc.graph, g.hostSlice) : "";
            const std::string reason = idleGapReason(p, g);
            const char* in = g.preparing ? "preparing" : "free";
            if (json) {
                gaps.push_back(Json{{"rank", p.rank},
                                    {"step", step},
                                    {"in", in},
                                    {"start_ns", g.start},
                                    {"end_ns", g.end},
                                    {"start_rel_ns", g.start - p.begin},
                                    {"end_rel_ns", g.end - p.begin},
                                    {"cause", idleCauseKey(g.cause)},
                                    {"host_op", host},
                                    {"call_stack", stack},
                                    {"reason", reason}});
                continue;
            }
            t.rows.push_back({"gap", std::to_string(p.rank), step, idleCauseKey(g.cause), num(g.dur()), num(g.start),
                              num(g.end), num(g.start - p.begin), num(g.end - p.begin), host,
                              format == "table" ? stackCell(stack) : stack, reason, in});
        }
    }
    warnMissing(missing, json, !steps.empty() || !t.rows.empty());
    if (!json)
        return t.render(format);
    Json out;
    out["metric"] = "idle";
    out["input_problems"] = toJson(problems);
    out["totals"] = causeObject(totals);
    out["preparing_totals"] = causeObject(preparingTotals);
    out["steps"] = std::move(steps);
    out["gaps"] = std::move(gaps);
    out["missing"] = std::move(missing);
    return text::dumpJson(out, 1) + "\n";
}

std::string criticalPathReport(const Session& s, text::Table t, const std::string& format,
                               const std::vector<InputProblem>& problems)
{
    const bool multi = s.ranks.size() > 1;
    const bool json = format == "json";
    std::array<TimeNs, kPathKindCount> totals{};
    Json steps = Json::array(), missing = Json::array();
    const auto kinds = [](const std::array<TimeNs, kPathKindCount>& ns) {
        Json o = Json::object();
        for (std::size_t k = 0; k < kPathKindCount; ++k)
            o[pathKindKey(static_cast<PathKind>(k))] = ns[k];
        return o;
    };
    for (const ProfilePtr& pp : s.ranks) {
        const Profile& p = *pp;
        const RankCausal rc(p);
        const CriticalPaths cp = criticalPaths(p, rc.graph, rc.idle);
        for (const auto& m : missingJson(rc.graph.missing, p.rank, multi))
            missing.push_back(m);
        for (std::size_t k = 0; k < kPathKindCount; ++k)
            totals[k] += cp.boundBy[k];
        for (const StepPath& sp : cp.steps) {
            if (sp.cut)
                missing.push_back((multi ? "rank " + std::to_string(p.rank) + ": " : std::string()) + "step " + sp.name
                                  + ": the walk back stopped at its safety bound; the path's start is idle");
            Json segs = Json::array();
            for (const PathSegment& g : sp.segments) {
                const std::string cause = g.kind == PathKind::Idle ? idleCauseKey(g.idleCause) : "";
                if (json)
                    segs.push_back(Json{{"kind", pathKindKey(g.kind)},
                                        {"begin_ns", g.begin},
                                        {"end_ns", g.end},
                                        {"begin_rel_ns", g.begin - p.begin},
                                        {"dur_ns", g.dur()},
                                        {"label", g.label},
                                        {"idle_cause", cause}});
                else
                    t.rows.push_back({"segment", std::to_string(p.rank), sp.name, pathKindKey(g.kind), num(g.dur()),
                                      num(g.begin), num(g.begin - p.begin), num(g.end), g.label, cause});
            }
            if (json) {
                steps.push_back(Json{{"rank", p.rank},
                                     {"step", sp.name},
                                     {"length_ns", sp.length},
                                     {"bound_by", kinds(sp.boundBy)},
                                     {"segments", std::move(segs)}});
                continue;
            }
            for (std::size_t k = 0; k < kPathKindCount; ++k)
                t.rows.push_back({"bound_by", std::to_string(p.rank), sp.name, pathKindKey(static_cast<PathKind>(k)),
                                  num(sp.boundBy[k]), "", "", "", "", ""});
        }
    }
    warnMissing(missing, json, !steps.empty() || !t.rows.empty());
    if (!json)
        return t.render(format);
    Json out;
    out["metric"] = "critical_path";
    out["input_problems"] = toJson(problems);
    out["bound_by"] = kinds(totals);
    out["steps"] = std::move(steps);
    out["missing"] = std::move(missing);
    return text::dumpJson(out, 1) + "\n";
}

} // namespace npuscope::cli
