#include "views/operator_ranking_model.h"

#include "views/format.h"

#if __has_include("views/palette.h")
#include "views/palette.h"
#define NPUSCOPE_HAVE_PALETTE 1
#endif

#include <QColor>
#include <QFileInfo>
#include <QList>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <limits>

namespace npuscope {

namespace {

bool isTimeColumn(int c)
{
    using M = OperatorRankingModel;
    return c == M::Total || c == M::Avg || c == M::Min || c == M::Max || c == M::P50 || c == M::P90
        || c == M::P99 || c == M::Self;
}

bool isTextColumn(int c)
{
    using M = OperatorRankingModel;
    return c == M::Name || c == M::Bound || c == M::Core;
}

double bandwidthSum(const OpGroupStats& g)
{
    const double r = std::isnan(g.readGBps) ? 0.0 : g.readGBps;
    const double w = std::isnan(g.writeGBps) ? 0.0 : g.writeGBps;
    return (std::isnan(g.readGBps) && std::isnan(g.writeGBps)) ? kNaN : r + w;
}

} // namespace

OperatorRankingModel::OperatorRankingModel(QObject* parent) : QAbstractTableModel(parent) {}

const char* OperatorRankingModel::presetName(RankingPreset p)
{
    switch (p) {
    case RankingPreset::Duration: return "duration";
    case RankingPreset::MemoryBandwidth: return "memory_bandwidth";
    case RankingPreset::CommunicationDuration: return "communication_duration";
    }
    return "duration";
}

void OperatorRankingModel::setProfile(ProfilePtr profile, int rankIndex)
{
    // A new session tells its views twice (the session, then its rank): one pass over its tasks.
    if (profile && profile == m_profile && m_profiles.size() == 1 && rankIndex == m_rankIndex)
        return;
    m_profile = std::move(profile);
    m_profiles.clear();
    if (m_profile)
        m_profiles.push_back(m_profile);
    m_rankIndex = rankIndex;
    dropPrefetchUnlessFor(m_profiles);
    recompute();
}

void OperatorRankingModel::setProfiles(std::vector<ProfilePtr> profiles)
{
    if (profiles.size() > 1 && profiles == m_profiles && m_rankIndex == -1)
        return;
    m_profiles = std::move(profiles);
    m_profile = m_profiles.empty() ? nullptr : m_profiles.front();
    m_rankIndex = m_profiles.size() > 1 ? -1 : 0;
    dropPrefetchUnlessFor(m_profiles);
    recompute();
}

void OperatorRankingModel::clearPrefetch()
{
    m_prefetch = {};
    m_prefetchFor.clear();
}

void OperatorRankingModel::prefetch(const std::vector<ProfilePtr>& ranks)
{
    clearPrefetch();
    if (ranks.empty() || m_preset == RankingPreset::CommunicationDuration)
        return;
    m_prefetchFor = ranks.size() > 1 ? ranks : std::vector<ProfilePtr>{ranks.front()};
    m_prefetchGroupBy = m_groupBy;
    OpStatsOptions o = statsOptions();
    o.rangeBegin.reset(); // a new session starts with no range selected
    o.rangeEnd.reset();
    m_prefetch = QtConcurrent::run([profiles = m_prefetchFor, o] {
        return profiles.size() > 1 ? computeOpStatsAllRanks(profiles, o) : computeOpStats(*profiles.front(), o);
    });
}

void OperatorRankingModel::dropPrefetchUnlessFor(const std::vector<ProfilePtr>& profiles)
{
    if (m_prefetch.isValid() && profiles != m_prefetchFor)
        clearPrefetch();
}

OpStatsOptions OperatorRankingModel::statsOptions() const
{
    OpStatsOptions o;
    o.groupBy = m_groupBy;
    if (m_range) {
        o.rangeBegin = m_range->begin;
        o.rangeEnd = m_range->end;
        o.rangeShift = m_rangeShift;
    }
    o.rankGenericSlices = true;
    return o;
}

void OperatorRankingModel::setGroupBy(GroupBy g)
{
    if (g == m_groupBy)
        return;
    m_groupBy = g;
    recompute();
}

void OperatorRankingModel::setPreset(RankingPreset p)
{
    if (p == m_preset)
        return;
    m_preset = p;
    recompute();
}

void OperatorRankingModel::setRange(std::optional<TimeRange> r)
{
    if (r && r->empty())
        r.reset();
    if (r == m_range)
        return;
    m_range = r;
    recompute();
}

void OperatorRankingModel::setRangeShift(std::vector<TimeNs> shift)
{
    if (shift == m_rangeShift)
        return;
    m_rangeShift = std::move(shift);
    if (m_range && aggregated())
        recompute();
}

void OperatorRankingModel::recompute()
{
    beginResetModel();
    m_stats = {};
    m_comm.clear();
    m_commTotal = 0;
    if (m_profile) {
        if (m_preset == RankingPreset::CommunicationDuration) {
            // computeCommStats has no time range: the communication ranking always covers the
            // whole profile (the view's header says so).
            if (aggregated()) {
                // One row per collective over every rank: counts, totals and volumes add up.
                for (const auto& p : m_profiles) {
                    for (CommStats& c : computeCommStats(*p)) {
                        auto it = std::find_if(m_comm.begin(), m_comm.end(), [&](const CommStats& x) { return x.key == c.key; });
                        if (it == m_comm.end()) {
                            c.rank = -1;
                            m_comm.push_back(std::move(c));
                            continue;
                        }
                        it->count += c.count;
                        it->total += c.total;
                        it->volumeGB += c.volumeGB;
                        it->waitMs += c.waitMs;
                        it->transitMs += c.transitMs;
                    }
                }
            } else {
                m_comm = computeCommStats(*m_profile);
            }
            std::stable_sort(m_comm.begin(), m_comm.end(),
                             [](const CommStats& a, const CommStats& b) { return a.total > b.total; });
            for (const auto& c : m_comm)
                m_commTotal += c.total;
        } else {
            if (m_prefetch.isValid() && !m_range && m_groupBy == m_prefetchGroupBy && m_profiles == m_prefetchFor) {
                m_stats = m_prefetch.result(); // computed beside the other views' work
                clearPrefetch();
            } else {
                const OpStatsOptions o = statsOptions();
                m_stats = aggregated() ? computeOpStatsAllRanks(m_profiles, o) : computeOpStats(*m_profile, o);
            }
            if (m_preset == RankingPreset::MemoryBandwidth) {
                // Highest read+write main-memory bandwidth first; groups without the metric last.
                std::stable_sort(m_stats.groups.begin(), m_stats.groups.end(),
                                 [](const OpGroupStats& a, const OpGroupStats& b) {
                                     const double x = bandwidthSum(a), y = bandwidthSum(b);
                                     if (std::isnan(x) != std::isnan(y))
                                         return std::isnan(y);
                                     return !std::isnan(x) && x > y;
                                 });
            }
        }
    }
    endResetModel();
    emit recomputed();
}

int OperatorRankingModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid())
        return 0;
    return m_preset == RankingPreset::CommunicationDuration ? int(m_comm.size())
                                                           : int(m_stats.groups.size());
}

int OperatorRankingModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const OpGroupStats* OperatorRankingModel::groupAt(int row) const
{
    if (m_preset == RankingPreset::CommunicationDuration || row < 0 || row >= int(m_stats.groups.size()))
        return nullptr;
    return &m_stats.groups[std::size_t(row)];
}

const CommStats* OperatorRankingModel::commAt(int row) const
{
    if (m_preset != RankingPreset::CommunicationDuration || row < 0 || row >= int(m_comm.size()))
        return nullptr;
    return &m_comm[std::size_t(row)];
}

QString OperatorRankingModel::keyAt(int row) const
{
    if (const auto* g = groupAt(row))
        return QString::fromStdString(g->key);
    if (const auto* c = commAt(row))
        return QString::fromStdString(c->key);
    return {};
}

int OperatorRankingModel::rowForKey(const QString& key) const
{
    const std::string k = key.toStdString();
    for (int r = 0, n = rowCount(); r < n; ++r) {
        if (const auto* g = groupAt(r); g && g->key == k)
            return r;
        if (const auto* c = commAt(r); c && c->key == k)
            return r;
    }
    return -1;
}

std::uint64_t OperatorRankingModel::instanceCount() const
{
    std::uint64_t n = 0;
    for (const auto& g : m_stats.groups)
        n += g.count;
    for (const auto& c : m_comm)
        n += c.count;
    return n;
}

TimeNs OperatorRankingModel::totalDuration() const
{
    TimeNs t = 0;
    for (const auto& g : m_stats.groups)
        t += g.total;
    for (const auto& c : m_comm)
        t += c.total;
    return t;
}

bool OperatorRankingModel::columnApplies(int column) const
{
    if (m_preset != RankingPreset::CommunicationDuration) {
        if (column == Self)
            return m_stats.genericSlices;
        // A generic trace has no hardware metrics.
        if (m_stats.genericSlices && (column == AicUtil || column == L2Hit || column == ReadBw || column == WriteBw || column == Bound))
            return false;
        return column >= 0 && column < ColumnCount;
    }
    // computeCommStats gives count and total per collective, nothing per instance.
    return column == Name || column == Count || column == Total || column == Share || column == Avg;
}

QVariant OperatorRankingModel::rawValue(int row, int column) const
{
    if (const auto* c = commAt(row)) {
        switch (column) {
        case Name: return QString::fromStdString(c->key);
        case Count: return qulonglong(c->count);
        case Total: return double(c->total);
        case Share: return m_commTotal > 0 ? double(c->total) / double(m_commTotal) : kNaN;
        case Avg: return c->count ? double(c->total) / double(c->count) : kNaN;
        default: return {};
        }
    }
    const auto* g = groupAt(row);
    if (!g)
        return {};
    switch (column) {
    case Name: return QString::fromStdString(g->key);
    case Count: return qulonglong(g->count);
    case Total: return double(g->total);
    case Share: return g->share;
    case Avg: return g->avgNs;
    case Min: return double(g->min);
    case Max: return double(g->max);
    case P50: return double(g->p50);
    case P90: return double(g->p90);
    case P99: return double(g->p99);
    case AicUtil: return g->aicUtilization;
    case L2Hit: return g->l2HitRate;
    case ReadBw: return g->readGBps;
    case WriteBw: return g->writeGBps;
    case Bound: return QString::fromLatin1(boundTypeName(g->bound));
    case Core: return QString::fromStdString(g->taskType);
    case Self: return double(g->self);
    default: return {};
    }
}

QString OperatorRankingModel::displayText(int row, int column) const
{
    const QVariant v = rawValue(row, column);
    if (!v.isValid())
        return {};
    if (isTextColumn(column))
        return v.toString();
    if (column == Count)
        return fmt::count(v.toULongLong());
    const double d = v.toDouble();
    if (isTimeColumn(column))
        return fmt::duration(d);
    if (column == Share || column == AicUtil || column == L2Hit)
        return fmt::percent(d);
    if (column == ReadBw || column == WriteBw)
        return fmt::bandwidth(d);
    return fmt::number(d);
}

QString OperatorRankingModel::kernelSource() const
{
    if (!m_profile)
        return {};
    for (const auto& f : m_profile->files)
        if (f.has(FileRole::Kernels))
            return QFileInfo(QString::fromStdString(f.path)).fileName();
    return QStringLiteral("the kernel table");
}

QString OperatorRankingModel::toolTip(int row, int column) const
{
    const QString key = keyAt(row);
    if (m_preset == RankingPreset::CommunicationDuration) {
        const QString src = QStringLiteral("communication ops (communication.json, or HCCL tasks)");
        switch (column) {
        case Name: return QStringLiteral("Collective %1: op name before '@' without its numeric suffix, from %2").arg(key, src);
        case Count: return QStringLiteral("Number of %1 ops in %2").arg(key, src);
        case Total: return QStringLiteral("Σ elapse time of %1 in %2").arg(key, src);
        case Share: return QStringLiteral("Total of %1 / Σ total of all collectives listed").arg(key);
        case Avg: return QStringLiteral("Total / count of %1").arg(key);
        default: return {};
        }
    }
    const auto* g = groupAt(row);
    if (!g)
        return {};
    const QString ranksText = aggregated() ? QStringLiteral(" over all %1 ranks").arg(m_profiles.size()) : QString();
    const QString rowsText = m_stats.genericSlices
        ? QStringLiteral("%1 slices of the timeline named %2 (no device tasks)%3").arg(g->count).arg(key, ranksText)
        : m_stats.fromTimeline
        ? QStringLiteral("%1 device tasks on Stream tracks of the timeline (no kernel table)").arg(g->count)
        : QStringLiteral("%1 rows of %2%3").arg(g->count).arg(kernelSource(), ranksText);
    const QString durCol = m_stats.fromTimeline ? QStringLiteral("slice dur")
        : kernelSource().startsWith(QLatin1String("op_summary")) ? QStringLiteral("'Task Duration(us)'")
                                                                 : QStringLiteral("'Duration(us)'");
    const QString clip = m_range ? QStringLiteral(", only tasks overlapping the selected range") : QString();
    const QString what = m_groupBy == GroupBy::Type ? QStringLiteral("OP Type") : QStringLiteral("Op Name");
    switch (column) {
    case Name: return QStringLiteral("%1 %2: %3%4").arg(what, key, rowsText, clip);
    case Count: return QStringLiteral("Number of %1%2").arg(rowsText, clip);
    case Total: return QStringLiteral("Σ %1 of %2%3").arg(durCol, rowsText, clip);
    case Share: return QStringLiteral("Total / Σ %1 of all device tasks counted (%2)")
                    .arg(durCol, fmt::duration(double(m_stats.deviceTotal)));
    case Avg: return QStringLiteral("Total / count (%1)").arg(durCol);
    case Min: return QStringLiteral("Shortest %1 of the group").arg(durCol);
    case Max: return QStringLiteral("Longest %1 of the group").arg(durCol);
    case P50: case P90: case P99:
        return QStringLiteral("%1th percentile of %2 over the group's instances")
            .arg(column == P50 ? 50 : column == P90 ? 90 : 99).arg(durCol);
    case AicUtil:
        if (std::isnan(g->aicUtilization))
            return QStringLiteral("No AI Core utilisation metric in %1").arg(kernelSource());
        return QStringLiteral("Duration-weighted mean over the group's rows of cube_utilization(%)/100, "
                              "else the larger of aic_mac_ratio and aiv_vec_ratio (this profile: %1)")
            .arg(QString::fromStdString(m_stats.utilizationSource));
    case L2Hit:
        return QStringLiteral("Σ hits / (Σ hits + Σ misses) of the group's rows, else l2_cache.csv 'Hit Rate' (duration-weighted)");
    case ReadBw:
        return QStringLiteral("Duration-weighted mean of aic + aiv '*_main_mem_read_bw(GB/s)' from %1").arg(kernelSource());
    case WriteBw:
        return QStringLiteral("Duration-weighted mean of aic + aiv '*_main_mem_write_bw(GB/s)' from %1").arg(kernelSource());
    case Bound:
        return QStringLiteral("Compute / memory / latency bound, derived from pipe ratios and bandwidth");
    case Core:
        return QStringLiteral("Dominant 'Accelerator Core' / 'Task Type' of the group's rows");
    case Self:
        return QStringLiteral("Σ self time (duration minus the time of nested slices) of %1%2").arg(rowsText, clip);
    default: return {};
    }
}

QVariant OperatorRankingModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const int row = index.row(), column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return displayText(row, column);
    case Qt::ToolTipRole:
        return toolTip(row, column);
    case Qt::TextAlignmentRole:
        return isTextColumn(column) ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                                    : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
#ifdef NPUSCOPE_HAVE_PALETTE
    case Qt::DecorationRole:
        if (column == Name)
            return colorFor(keyAt(row).toStdString());
        return {};
#endif
    case SortRole: {
        const QVariant v = rawValue(row, column);
        if (!v.isValid())
            return std::numeric_limits<double>::lowest();
        // Missing metrics (NaN) sort below every real number instead of comparing unordered.
        if (v.typeId() == QMetaType::Double && std::isnan(v.toDouble()))
            return std::numeric_limits<double>::lowest();
        return v;
    }
    case RawValueRole:
        return rawValue(row, column);
    case KeyRole:
        return keyAt(row);
    case RowsRole: {
        QList<uint> rows;
        if (const auto* g = groupAt(row)) {
            rows.reserve(qsizetype(g->rows.size()));
            for (auto r : g->rows)
                rows.push_back(r);
        }
        return QVariant::fromValue(rows);
    }
    default:
        return {};
    }
}

QVariant OperatorRankingModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, o, role);
    static const char* const names[ColumnCount] = {
        "Name", "Count", "Total", "Share", "Avg", "Min", "Max", "P50", "P90", "P99",
        "AIC util", "L2 hit", "Read BW", "Write BW", "Bound", "Core", "Self"};
    if (role == Qt::InitialSortOrderRole) // the first click on a number puts the biggest first
        return int(isTextColumn(section) ? Qt::AscendingOrder : Qt::DescendingOrder);
    if (role == Qt::DisplayRole) {
        if (section == Name && m_stats.genericSlices && m_preset != RankingPreset::CommunicationDuration)
            return QStringLiteral("Slice name");
        if (section == Name)
            return m_preset == RankingPreset::CommunicationDuration ? QStringLiteral("Collective")
                : m_groupBy == GroupBy::Type                         ? QStringLiteral("OP Type")
                                                                     : QStringLiteral("Op Name");
        return QString::fromLatin1(names[section]);
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Share: return QStringLiteral("Share of the total device time counted");
        case AicUtil: return QStringLiteral("AI Core (cube) utilisation");
        case L2Hit: return QStringLiteral("L2 cache hit rate");
        case ReadBw: return QStringLiteral("Main memory read bandwidth");
        case WriteBw: return QStringLiteral("Main memory write bandwidth");
        case Self: return QStringLiteral("Self time: duration minus nested children");
        default: return {};
        }
    }
    return QAbstractTableModel::headerData(section, o, role);
}

} // namespace npuscope
