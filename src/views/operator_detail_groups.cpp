#include "views/operator_detail_groups.h"

#include "views/format.h"

#include <algorithm>
#include <functional>
#include <cmath>
#include <unordered_map>

namespace npuscope {

namespace {

// Slices of `profiles` on tracks `wanted` accepts whose name `match` accepts, in one group.
template <class TrackPred, class NamePred>
DetailGroup collectSlices(const std::vector<ProfilePtr>& profiles, const std::string& key, TrackPred wanted, NamePred match)
{
    DetailGroup d;
    d.rowsAreSlices = true;
    d.stats.key = key;
    std::vector<TimeNs> durs;
    for (std::size_t i = 0; i < profiles.size(); ++i) {
        if (!profiles[i])
            continue;
        const Profile& p = *profiles[i];
        for (const Track& t : p.tracks) {
            if (!wanted(t))
                continue;
            for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r) {
                d.shareOf += p.slices.dur[r];
                if (!match(p.str(p.slices.name[r])))
                    continue;
                d.stats.rows.push_back(r);
                if (profiles.size() > 1)
                    d.stats.rowProfile.push_back(std::uint32_t(i));
                durs.push_back(p.slices.dur[r]);
            }
        }
    }
    fillDurationStats(d.stats, std::move(durs));
    return d;
}

// Transit size (MB) and time (ms) of one op over the transports that carried it, as
// computeCommStats counts the size: RDMA, plus SDMA or the links (HCCS + PCIE + SIO), whichever
// moved more (SDMA already counts what went over the links).
std::pair<double, double> transit(const Profile& p, const CommOp& op)
{
    double rdma[2] = {0, 0}, sdma[2] = {0, 0}, links[2] = {0, 0};
    for (const CommBandwidth& b : op.bandwidth) {
        const double mb = std::isnan(b.sizeMB) ? 0 : b.sizeMB, ms = std::isnan(b.timeMs) ? 0 : b.timeMs;
        const std::string_view t = p.str(b.transport);
        double* into = t == "RDMA" ? rdma : t == "SDMA" ? sdma : (t == "HCCS" || t == "PCIE" || t == "SIO") ? links : nullptr;
        if (into) {
            into[0] += mb;
            into[1] += ms;
        }
    }
    const double* local = sdma[0] >= links[0] ? sdma : links;
    return {rdma[0] + local[0], rdma[1] + local[1]};
}

// "value" or "value (+N other)" for the most frequent of `counts`; "—" when empty.
template <class Key>
QString mostFrequentOf(const std::map<Key, std::uint64_t>& counts, const std::function<QString(const Key&)>& text)
{
    if (counts.empty())
        return QStringLiteral("—");
    auto best = std::max_element(counts.begin(), counts.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    QString t = text(best->first);
    if (counts.size() > 1)
        t += QStringLiteral(" (+%1 other)").arg(counts.size() - 1);
    return t;
}

} // namespace

void fillDurationStats(OpGroupStats& g, std::vector<TimeNs> durs)
{
    std::sort(durs.begin(), durs.end());
    g.count = durs.size();
    g.total = 0;
    for (TimeNs d : durs)
        g.total += d;
    g.self = g.total;
    g.min = durs.empty() ? 0 : durs.front();
    g.max = durs.empty() ? 0 : durs.back();
    g.avgNs = durs.empty() ? 0.0 : double(g.total) / double(durs.size());
    g.p50 = nearestRank(durs, 50);
    g.p90 = nearestRank(durs, 90);
    g.p99 = nearestRank(durs, 99);
}

std::optional<DetailGroup> findCollective(const std::vector<ProfilePtr>& profiles, const std::string& key)
{
    DetailGroup d = collectSlices(
        profiles, key, [](const Track& t) { return t.kind == TrackKind::CommGroup; },
        [&key](std::string_view name) { return commBaseName(name) == key; });
    d.kind = DetailKind::Collective;
    d.stats.taskType = "HCCL";
    // Each instance's transit size over its transit time, from its op in communication.json.
    double volumeMB = 0, transitTime = 0, wait = 0;
    bool anyTransit = false, anyWait = false;
    std::vector<std::unordered_map<std::string, double>> bandwidthByName(profiles.size());
    for (std::size_t i = 0; i < profiles.size(); ++i) {
        if (!profiles[i])
            continue;
        const Profile& p = *profiles[i];
        for (const CommOp& op : p.commOps) {
            if (op.totalInfo || commBaseName(op.opName.empty() ? op.fullName : op.opName) != key)
                continue;
            ++d.commOps;
            const auto [mb, ms] = transit(p, op);
            volumeMB += mb;
            transitTime += ms;
            anyTransit = anyTransit || ms > 0;
            if (!std::isnan(op.waitMs)) {
                wait += op.waitMs;
                anyWait = true;
            }
            if (ms > 0)
                bandwidthByName[i][op.opName] = mb / ms; // MB/ms = GB/s
        }
    }
    if (d.stats.rows.empty() && d.commOps == 0)
        return std::nullopt;
    d.volumeGB = volumeMB / 1000.0;
    d.transitMs = anyTransit ? transitTime : kNaN;
    d.waitMs = anyWait ? wait : kNaN;
    d.bandwidthGBps.reserve(d.stats.rows.size());
    for (std::size_t j = 0; j < d.stats.rows.size(); ++j) {
        const std::size_t i = d.stats.rowProfile.empty() ? 0 : d.stats.rowProfile[j];
        const Profile& p = *profiles[i];
        const auto it = bandwidthByName[i].find(std::string(p.str(p.slices.name[d.stats.rows[j]])));
        d.bandwidthGBps.push_back(it == bandwidthByName[i].end() ? kNaN : it->second);
    }
    return d;
}

std::optional<DetailGroup> findHostCalls(const std::vector<ProfilePtr>& profiles, const std::string& key)
{
    auto host = [](const Track& t) {
        return t.kind == TrackKind::Cann || t.kind == TrackKind::Python || t.kind == TrackKind::Other;
    };
    DetailGroup d = collectSlices(profiles, key, host, [&key](std::string_view name) { return name == key; });
    if (d.stats.rows.empty())
        return std::nullopt;
    d.kind = DetailKind::Host;
    d.stats.taskType = "host";
    d.shownBy = GroupBy::Name;
    return d;
}

std::vector<GroupPart> partsOf(const std::vector<ProfilePtr>& profiles, const OpGroupStats& g)
{
    std::vector<GroupPart> parts;
    for (const auto& p : profiles)
        parts.push_back({p.get(), {}});
    for (std::size_t i = 0; i < g.rows.size(); ++i) {
        const std::size_t pi = g.rowProfile.empty() ? 0 : g.rowProfile[i];
        if (pi < parts.size())
            parts[pi].rows.push_back(g.rows[i]);
    }
    return parts;
}

// Most frequent value of a kernel NameId column over the parts' rows (by text: ids are per rank).
QString mostCommon(const std::vector<GroupPart>& parts, std::vector<NameId> KernelTable::*col)
{
    std::map<std::string, std::uint64_t> counts;
    for (const GroupPart& part : parts) {
        const auto& c = part.p->kernels.*col;
        for (auto r : part.rows)
            if (r < c.size())
                ++counts[std::string(part.p->str(c[r]))];
    }
    return mostFrequentOf<std::string>(counts, [](const std::string& v) {
        return v.empty() ? QStringLiteral("—") : qstr(v);
    });
}

QString mostCommonInt(const std::vector<GroupPart>& parts, std::vector<std::int64_t> KernelTable::*col)
{
    std::map<std::int64_t, std::uint64_t> counts;
    for (const GroupPart& part : parts) {
        const auto& c = part.p->kernels.*col;
        for (auto r : part.rows)
            if (r < c.size())
                ++counts[c[r]];
    }
    return mostFrequentOf<std::int64_t>(counts, [](const std::int64_t& v) {
        return v < 0 ? QStringLiteral("—") : QString::number(v);
    });
}

// Duration-weighted mean of the first present metric column of `names` over the parts' rows;
// NaN if none.
double weightedMetric(const std::vector<GroupPart>& parts, std::initializer_list<const char*> names, QString* column)
{
    double sum = 0, weight = 0, plain = 0;
    std::uint64_t n = 0;
    for (const GroupPart& part : parts) {
        const KernelTable& k = part.p->kernels;
        const int m = k.metricIndex(names);
        if (m < 0)
            continue;
        if (column && column->isEmpty())
            *column = QString::fromStdString(k.metricNames[std::size_t(m)]);
        for (auto r : part.rows) {
            const double v = k.metric(m, r);
            if (std::isnan(v))
                continue;
            sum += v * double(k.dur[r]);
            weight += double(k.dur[r]);
            plain += v;
            ++n;
        }
    }
    if (n == 0)
        return kNaN;
    return weight > 0 ? sum / weight : plain / double(n);
}

QString mostFrequentText(const std::map<std::string, std::uint64_t>& counts)
{
    return mostFrequentOf<std::string>(counts, [](const std::string& v) { return v.empty() ? QStringLiteral("—") : qstr(v); });
}

} // namespace npuscope
