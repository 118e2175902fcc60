#include "model/cluster_summary/summary_clock.h"

#include "model/analysis/clock_align.h"
#include "model/analysis/op_stats.h"

namespace npuscope::cluster_summary {

using json = nlohmann::json;

json collectiveTimesJson(const Profile& p)
{
    const RankCollectives r = rankCollectives(p, 0);
    json out = json::object();
    for (const auto& [lane, ops] : r.groups) {
        json starts = json::array(), ends = json::array(), names = json::array();
        for (const RankCollective& c : ops) {
            starts.push_back(c.start);
            ends.push_back(c.end);
        }
        std::string last;
        std::uint64_t run = 0;
        for (const std::string& n : r.names.at(lane)) {
            const std::string base = commBaseName(n);
            if (run > 0 && base != last) {
                names.push_back({last, run});
                run = 0;
            }
            last = base;
            ++run;
        }
        if (run > 0)
            names.push_back({last, run});
        out[lane] = {{"starts_ns", std::move(starts)}, {"ends_ns", std::move(ends)}, {"names", std::move(names)}};
    }
    return out;
}

void addClockOffsets(json& doc)
{
    std::vector<RankCollectives> ranks;
    std::vector<int> ids;
    for (json& r : doc["ranks"]) {
        if (!r.is_object() || !r.contains("overview")) // a failed rank
            continue;
        RankCollectives rc;
        rc.rank = r.value("rank", -1);
        rc.rankIndex = static_cast<int>(ids.size());
        if (rc.rank < 0)
            rc.rank = rc.rankIndex;
        const json times = r.value("collective_times", json::object());
        for (const auto& [lane, t] : times.items()) {
            const json& starts = t["starts_ns"];
            const json& ends = t["ends_ns"];
            if (!starts.is_array() || !ends.is_array() || starts.size() != ends.size())
                continue;
            auto& ops = rc.groups[lane];
            for (std::size_t i = 0; i < starts.size(); ++i)
                ops.push_back({starts[i].get<TimeNs>(), ends[i].get<TimeNs>(), NameId(), kNone});
            auto& names = rc.names[lane];
            const json runs = t.value("names", json::array());
            for (const json& n : runs)
                if (n.is_array() && n.size() == 2)
                    names.insert(names.end(), n[1].get<std::size_t>(), n[0].get<std::string>());
            names.resize(ops.size());
        }
        r.erase("collective_times");
        ids.push_back(rc.rank);
        ranks.push_back(std::move(rc));
    }
    const ClockAlignment a = alignClocks(ids, matchCollectives(std::move(ranks)));
    json offsets = json::object();
    for (const RankClock& c : a.ranks)
        offsets[std::to_string(c.rank)] = c.offset;
    doc["clock_offsets_ns"] = std::move(offsets);
    doc["clock"] = {
        {"status", a.status}, {"reference_rank", a.reference >= 0 ? json(a.reference) : json()}, {"problems", a.problems}};
}

} // namespace npuscope::cluster_summary
