// `analyze --metric collectives` and the clock options of the cluster verbs (app/cli_collectives.h).
#include "app/cli_collectives.h"

#include "model/analysis/collectives.h"
#include "model/analysis/units.h"
#include "model/store/safe_text.h"

#include <algorithm>
#include <cstdio>

namespace npuscope::cli {

std::string parseClockOption(const std::string& flag, const std::string& value, ClockOptions& o)
{
    if (flag == "--clock") {
        if (value != "raw" && value != "aligned")
            return "unknown clock '" + value + "' (raw, aligned)";
        o.raw = value == "raw";
        return {};
    }
    int rank = -1;
    TimeNs ns = 0;
    if (!parseClockOffset(value, rank, ns))
        return "--clock-offset needs RANK=NS (ns, or with a unit: 1=-5.6ms), not '" + value + "'";
    o.manual.emplace_back(rank, ns);
    return {};
}

bool clockFlag(const std::vector<std::string>& args, std::size_t& i, ClockOptions& clock, std::string& why)
{
    const std::string& a = args[i];
    const std::string flag = a.substr(0, a.find('='));
    if (flag != "--clock" && flag != "--clock-offset")
        return false;
    if (a.size() > flag.size())
        why = parseClockOption(flag, a.substr(flag.size() + 1), clock);
    else if (i + 1 < args.size())
        why = parseClockOption(flag, args[++i], clock);
    else
        why = flag + " needs a value";
    return true;
}

nlohmann::ordered_json clockOffsetsJson(const ClockAlignment& a)
{
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const RankClock& c : a.ranks)
        j[std::to_string(c.rank)] = c.offset;
    return j;
}

nlohmann::ordered_json clockJson(const ClockAlignment& a)
{
    nlohmann::ordered_json j;
    j["status"] = a.status;
    j["reference_rank"] = a.reference >= 0 ? nlohmann::ordered_json(a.reference) : nlohmann::ordered_json();
    nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
    for (const RankClock& c : a.ranks)
        ranks.push_back({{"rank", c.rank},
                         {"offset_ns", c.offset},
                         {"estimated", c.estimated},
                         {"manual", c.manual},
                         {"shared_collectives", c.shared},
                         {"spread_ns", c.spread},
                         {"threshold_ns", c.threshold},
                         {"via_rank", c.via >= 0 ? nlohmann::ordered_json(c.via) : nlohmann::ordered_json()},
                         {"group", c.group},
                         {"note", c.note}});
    j["ranks"] = ranks;
    j["problems"] = a.problems;
    return j;
}

std::string clockText(const ClockAlignment& a)
{
    std::string out = "clocks: " + a.status + "\n";
    if (a.ranks.size() < 2)
        return out;
    for (const RankClock& c : a.ranks) {
        out += "  rank " + std::to_string(c.rank) + ": offset " + std::to_string(c.offset) + " ns";
        if (c.estimated && c.shared > 0)
            out += " (" + std::to_string(c.shared) + " collectives, spread " + formatDuration(c.spread) + ")";
        if (!c.note.empty())
            out += " " + c.note;
        out += "\n";
    }
    for (const std::string& p : a.problems)
        out += "  " + p + "\n";
    return out;
}

std::string collectivesReport(const Session& s, const ClockOptions& clock, text::Table t, const std::string& format,
                              long top, bool ascending, const std::vector<InputProblem>& problems)
{
    const CollectivesResult r = analyzeCollectives(s, clock);
    for (const std::string& p : r.problems)
        std::fprintf(stderr, "npuscope analyze: warning: %s\n", text::forTerminal(p).c_str());
    std::vector<const CollectiveInstance*> rows;
    for (const CollectiveInstance& i : r.instances)
        rows.push_back(&i);
    std::stable_sort(rows.begin(), rows.end(), [&](const CollectiveInstance* a, const CollectiveInstance* b) {
        return ascending ? a->waitCaused < b->waitCaused : a->waitCaused > b->waitCaused;
    });
    if (top > 0 && rows.size() > static_cast<std::size_t>(top))
        rows.resize(static_cast<std::size_t>(top));
    for (const CollectiveInstance* i : rows) {
        TimeNs firstAt = 0, lastAt = 0;
        for (const Arrival& a : i->arrivals) {
            if (a.rank == i->firstRank)
                firstAt = a.arrival;
            if (a.wait == 0)
                lastAt = a.arrival;
        }
        const bool late = i->lastRank >= 0;
        t.rows.push_back({i->collective, i->group, i->step, std::to_string(i->spread),
                          late ? std::to_string(i->lastRank) : std::string(), std::to_string(i->waitCaused), i->reason,
                          std::to_string(i->index), std::to_string(i->firstRank), std::to_string(firstAt),
                          std::to_string(lastAt), lateCauseName(i->cause), std::to_string(i->causeNs)});
    }
    if (r.instances.empty())
        std::fprintf(stderr, "npuscope analyze: no collective shared by two ranks (a cluster's CommGroup lanes or "
                             "hcom_ device tasks)\n");
    if (format == "csv")
        return t.render("csv");
    if (format == "json") {
        nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
        for (const RankWaitCaused& w : r.ranks)
            ranks.push_back({{"rank", w.rank},
                             {"last_count", w.lastCount},
                             {"wait_caused_ns", w.waitCaused},
                             {"wait_caused_per_step_ns", w.perStep}});
        return "{\"metric\": \"collectives\",\n\"input_problems\": " + text::dumpJson(toJson(problems)) + ",\n\"steps\": "
               + std::to_string(r.steps) + ",\n\"clock_offsets_ns\": " + text::dumpJson(clockOffsetsJson(r.clock))
               + ",\n\"clock\": " + text::dumpJson(clockJson(r.clock)) + ",\n\"ranks\": " + text::dumpJson(ranks)
               + ",\n\"rows\": " + t.toJson() + "}\n";
    }
    std::string out = t.render(format);
    out += "\n" + clockText(r.clock);
    out += "waiting caused (" + std::to_string(r.steps) + " step" + (r.steps == 1 ? "" : "s") + "):\n";
    for (const RankWaitCaused& w : r.ranks)
        out += "  rank " + std::to_string(w.rank) + ": last at " + std::to_string(w.lastCount) + " collective"
               + (w.lastCount == 1 ? "" : "s") + ", caused " + formatDuration(static_cast<TimeNs>(w.perStep))
               + " of waiting on others per step\n";
    return out;
}

} // namespace npuscope::cli
