#include "model/analysis/clock_align.h"

#include "model/analysis/op_stats.h"
#include "model/analysis/time_axis.h"
#include "model/analysis/units.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

namespace npuscope {

namespace {

// One rank's collectives per group name, by start.
std::map<std::string, std::vector<RankCollective>> rankGroups(const Profile& p)
{
    std::map<std::string, std::vector<RankCollective>> out;
    for (const Track& tr : p.tracks) {
        if (tr.kind != TrackKind::CommGroup)
            continue;
        auto& v = out[std::string(p.str(tr.thread))];
        for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i)
            if (p.slices.depth[i] == 0)
                v.push_back({p.slices.start[i], p.slices.end(i), p.slices.name[i], i});
    }
    if (out.empty()) {
        // No collective lanes: the communication tasks of the device streams, one group.
        std::vector<RankCollective> v;
        for (const Track& tr : p.tracks) {
            if (tr.kind != TrackKind::Stream)
                continue;
            for (std::uint32_t i = tr.sliceBegin; i < tr.sliceEnd; ++i) {
                const std::string_view nm = p.str(p.slices.name[i]);
                if (p.slices.depth[i] == 0 && nm.rfind("hcom_", 0) == 0)
                    v.push_back({p.slices.start[i], p.slices.end(i), p.slices.name[i], i});
            }
        }
        if (!v.empty())
            out["communication tasks"] = std::move(v);
    }
    for (auto& [name, v] : out)
        std::stable_sort(v.begin(), v.end(),
                         [](const RankCollective& a, const RankCollective& b) { return a.start < b.start; });
    return out;
}

std::string rankName(int rank)
{
    return "rank " + std::to_string(rank);
}

// Rank `mem`'s offset from the ends it shares with the aligned `base`; false (with the reason in
// c.note) when they disagree by more than the threshold.
bool estimate(const GroupMember& mem, const GroupMember& base, const std::string& group, TimeNs baseOffset, RankClock& c)
{
    std::vector<double> d, durs;
    for (std::size_t i = 0; i < mem.ops.size(); ++i) {
        d.push_back(static_cast<double>(mem.ops[i].end - base.ops[i].end));
        durs.push_back(static_cast<double>(base.ops[i].end - base.ops[i].start));
    }
    std::sort(d.begin(), d.end());
    std::sort(durs.begin(), durs.end());
    const double med = percentileSorted(d, 50);
    std::vector<double> res;
    for (double x : d)
        res.push_back(x - med);
    const double spread = percentileSorted(res, 95) - percentileSorted(res, 5);
    const double thr = std::max<double>(kClockSpreadFloorNs,
                                        std::min<double>(kClockSpreadCapNs, kClockSpreadShare * percentileSorted(durs, 50)));
    c.shared = static_cast<int>(d.size());
    c.spread = static_cast<TimeNs>(std::llround(spread));
    c.threshold = static_cast<TimeNs>(std::llround(thr));
    c.via = base.rank;
    c.group = group;
    if (spread > thr) {
        c.note = "not aligned: the ends of its " + std::to_string(d.size()) + " collectives with rank "
                 + std::to_string(base.rank) + " in " + group + " disagree by " + formatDuration(c.spread)
                 + " (p5-p95), above " + formatDuration(c.threshold);
        return false;
    }
    c.offset = baseOffset + static_cast<TimeNs>(std::llround(med));
    c.estimated = true;
    return true;
}

// The status line, and the reason of the ranks left unaligned.
void finish(ClockAlignment& a, const std::vector<bool>& done)
{
    int aligned = 0;
    for (RankClock& c : a.ranks) {
        if (done[c.rankIndex])
            ++aligned;
        else if (c.note.empty())
            c.note = "not aligned: shares no collective with an aligned rank";
    }
    a.status = "aligned " + std::to_string(aligned) + " of " + std::to_string(a.ranks.size()) + " ranks to rank "
               + std::to_string(a.reference) + " by the ends of their collectives";
}

} // namespace

double percentileSorted(const std::vector<double>& v, double p)
{
    if (v.empty())
        return 0;
    const double pos = p / 100.0 * static_cast<double>(v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(v.size() - 1, lo + 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

RankCollectives rankCollectives(const Profile& p, int rankIndex)
{
    RankCollectives r;
    r.rank = p.rank >= 0 ? p.rank : rankIndex;
    r.rankIndex = rankIndex;
    r.groups = rankGroups(p);
    for (const auto& [name, ops] : r.groups) {
        auto& names = r.names[name];
        for (const RankCollective& c : ops)
            names.emplace_back(p.str(c.name));
    }
    return r;
}

CollectiveMatch matchCollectives(const Session& s)
{
    std::vector<RankCollectives> ranks;
    for (std::size_t ri = 0; ri < s.ranks.size(); ++ri)
        ranks.push_back(rankCollectives(*s.ranks[ri], static_cast<int>(ri)));
    return matchCollectives(std::move(ranks));
}

CollectiveMatch matchCollectives(std::vector<RankCollectives> ranks)
{
    CollectiveMatch m;
    std::map<std::string, std::vector<std::pair<GroupMember, const std::vector<std::string>*>>> byGroup;
    for (RankCollectives& r : ranks) {
        for (auto& [name, ops] : r.groups) {
            GroupMember g;
            g.rank = r.rank;
            g.rankIndex = r.rankIndex;
            g.ops = std::move(ops);
            byGroup[name].push_back({std::move(g), &r.names[name]});
        }
    }
    for (auto& [name, members] : byGroup) {
        // The count most ranks have (ties: the lowest rank's).
        std::map<std::size_t, int> counts;
        for (const auto& [g, p] : members)
            ++counts[g.ops.size()];
        std::size_t count = members.front().first.ops.size();
        for (const auto& [c, n] : counts)
            if (n > counts[count])
                count = c;
        CollectiveGroup grp;
        grp.name = name;
        std::vector<std::string> bases;
        for (auto& [g, p] : members) {
            if (g.ops.size() != count) {
                m.problems.push_back(rankName(g.rank) + ": " + name + " has " + std::to_string(g.ops.size())
                                     + " collectives where the other ranks have " + std::to_string(count)
                                     + "; the group is skipped for this rank");
                continue;
            }
            std::vector<std::string> mine;
            mine.reserve(count);
            for (std::size_t i = 0; i < count; ++i)
                mine.push_back(i < p->size() ? commBaseName((*p)[i]) : std::string());
            if (bases.empty()) {
                bases = mine;
                grp.opNames = *p;
                grp.opNames.resize(count);
            } else if (mine != bases) {
                std::size_t i = 0;
                while (i < count && mine[i] == bases[i])
                    ++i;
                m.problems.push_back(rankName(g.rank) + ": " + name + " collective #" + std::to_string(i) + " is " + mine[i]
                                     + " where another rank has " + bases[i] + "; the group is skipped for this rank");
                continue;
            }
            grp.members.push_back(std::move(g));
        }
        if (!grp.members.empty() && count > 0)
            m.groups.push_back(std::move(grp));
    }
    return m;
}

TimeNs ClockAlignment::offsetOfIndex(int rankIndex) const
{
    return rankIndex >= 0 && rankIndex < static_cast<int>(ranks.size()) ? ranks[rankIndex].offset : 0;
}

TimeNs ClockAlignment::offsetOfRank(int rank) const
{
    for (const RankClock& r : ranks)
        if (r.rank == rank)
            return r.offset;
    return 0;
}

ClockAlignment alignClocks(const Session& s, const CollectiveMatch& m, const ClockOptions& o)
{
    std::vector<int> ids;
    for (std::size_t ri = 0; ri < s.ranks.size(); ++ri)
        ids.push_back(s.ranks[ri]->rank >= 0 ? s.ranks[ri]->rank : static_cast<int>(ri));
    return alignClocks(ids, m, o);
}

ClockAlignment alignClocks(const std::vector<int>& rankIds, const CollectiveMatch& m, const ClockOptions& o)
{
    ClockAlignment a;
    a.problems = m.problems;
    for (std::size_t ri = 0; ri < rankIds.size(); ++ri) {
        RankClock c;
        c.rankIndex = static_cast<int>(ri);
        c.rank = rankIds[ri];
        a.ranks.push_back(c);
    }
    const auto applyManual = [&] {
        for (const auto& [rank, ns] : o.manual) {
            bool found = false;
            for (RankClock& c : a.ranks)
                if (c.rank == rank) {
                    c.offset = ns;
                    c.manual = true;
                    c.note = "manual offset";
                    found = true;
                }
            if (!found)
                a.problems.push_back("--clock-offset names rank " + std::to_string(rank) + ", which is not loaded");
        }
    };
    if (o.raw) {
        for (RankClock& c : a.ranks)
            c.note = "raw clock";
        a.status = "raw clocks (no alignment)";
        applyManual();
        return a;
    }
    if (rankIds.size() < 2) {
        if (!a.ranks.empty())
            a.ranks[0].note = "single rank: no alignment";
        a.status = "single rank: no alignment";
        applyManual();
        return a;
    }
    // The reference: the lowest rank of the largest group.
    const CollectiveGroup* largest = nullptr;
    for (const CollectiveGroup& g : m.groups)
        if (!largest || g.members.size() > largest->members.size())
            largest = &g;
    if (!largest || largest->members.size() < 2) {
        for (RankClock& c : a.ranks)
            c.note = "shares no collective with another rank";
        a.status = "not aligned: the ranks share no collective";
        applyManual();
        return a;
    }
    const GroupMember* refMember = &largest->members.front();
    for (const GroupMember& g : largest->members)
        if (g.rank < refMember->rank)
            refMember = &g;
    a.reference = refMember->rank;
    std::vector<bool> done(a.ranks.size(), false);
    RankClock& ref = a.ranks[refMember->rankIndex];
    ref.estimated = true;
    ref.note = "reference";
    done[refMember->rankIndex] = true;
    // Groups largest first; repeated until no rank is added (chains across groups).
    std::vector<const CollectiveGroup*> order;
    for (const CollectiveGroup& g : m.groups)
        order.push_back(&g);
    std::stable_sort(order.begin(), order.end(), [](const CollectiveGroup* x, const CollectiveGroup* y) {
        return x->members.size() > y->members.size();
    });
    for (bool added = true; added;) {
        added = false;
        for (const CollectiveGroup* g : order) {
            // The aligned member to measure against: the reference when in the group, else the lowest.
            const GroupMember* base = nullptr;
            for (const GroupMember& mem : g->members)
                if (done[mem.rankIndex]
                    && (!base || mem.rank == a.reference || (base->rank != a.reference && mem.rank < base->rank)))
                    base = &mem;
            if (!base)
                continue;
            for (const GroupMember& mem : g->members) {
                if (done[mem.rankIndex])
                    continue;
                RankClock& c = a.ranks[mem.rankIndex];
                if (!estimate(mem, *base, g->name, a.ranks[base->rankIndex].offset, c))
                    continue;
                c.note = base->rank == a.reference ? "" : "chained through rank " + std::to_string(base->rank);
                done[mem.rankIndex] = true;
                added = true;
            }
        }
    }
    finish(a, done);
    applyManual();
    return a;
}

ClockAlignment alignClocks(const Session& s, const ClockOptions& o)
{
    return alignClocks(s, matchCollectives(s), o);
}

bool parseClockOffset(const std::string& text, int& rank, TimeNs& ns)
{
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 >= text.size())
        return false;
    char* end = nullptr;
    const std::string r = text.substr(0, eq);
    const long rv = std::strtol(r.c_str(), &end, 10);
    if (*end || rv < 0 || rv > 1'000'000)
        return false;
    std::string v = text.substr(eq + 1);
    bool negative = false;
    if (v[0] == '-' || v[0] == '+') {
        negative = v[0] == '-';
        v = v.substr(1);
    }
    if (v.empty())
        return false;
    TimeNs t = 0;
    if (v.find_first_not_of("0123456789") == std::string::npos) {
        if (v.size() > 18)
            return false;
        t = std::strtoll(v.c_str(), nullptr, 10);
    } else if (!parseTimeText(v, &t, nullptr)) {
        return false;
    }
    rank = static_cast<int>(rv);
    ns = negative ? -t : t;
    return true;
}

} // namespace npuscope
