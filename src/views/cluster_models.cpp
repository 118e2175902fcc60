#include "views/cluster_models.h"
#include "views/format.h"

#include <algorithm>
#include <cmath>

namespace npuscope {

ClusterTableModel::ClusterTableModel(QStringList headers, QObject* parent)
    : QAbstractTableModel(parent), m_headers(std::move(headers))
{
}

void ClusterTableModel::endReset(std::size_t count)
{
    m_count = count;
    endResetModel();
}

int ClusterTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_count);
}

int ClusterTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_headers.size());
}

QVariant ClusterTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto row = static_cast<std::size_t>(index.row());
    switch (role) {
    case RankRole: return rankOf(row);
    case Qt::ForegroundRole: {
        const QColor colour = index.column() == 0 ? colourOf(row) : QColor();
        return colour.isValid() ? QVariant(colour) : QVariant();
    }
    case Qt::DisplayRole:
    case Qt::ToolTipRole: // the whole text of a cell the column elides
    case SortRole:
    case Qt::TextAlignmentRole: break;
    default: return {};
    }
    const Cell c = cell(row, index.column());
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole)
        return c.text;
    if (role == SortRole)
        return c.numeric ? QVariant(c.value) : QVariant(c.text);
    return c.numeric ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
}

QVariant ClusterTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || section < 0 || section >= m_headers.size())
        return {};
    if (role == Qt::InitialSortOrderRole) // the first click on a measure puts the biggest first
        return int(section > 0 && m_count > 0 && cell(0, section).numeric ? Qt::DescendingOrder : Qt::AscendingOrder);
    return role == Qt::DisplayRole ? QVariant(m_headers[section]) : QVariant();
}

RankBreakdownModel::RankBreakdownModel(QObject* parent)
    : ClusterTableModel({tr("Rank"), tr("Step time"), tr("Computing"), tr("Comm. not overlapped"), tr("Overlapped"),
                         tr("Communication"), tr("Free"), tr("Bubble"), tr("Steps"), tr("Source")},
                        parent)
{
}

void RankBreakdownModel::setAnalysis(const ClusterAnalysis& a, const QColor& slowColour)
{
    std::vector<int> slowRanks;
    for (const auto& d : a.slowRank.dimensions)
        if (d.fired)
            slowRanks.push_back(d.slowRank);
    beginReset();
    m_ranks = a.ranks;
    m_slow.clear();
    for (const RankBreakdown& b : m_ranks)
        m_slow.push_back(std::find(slowRanks.begin(), slowRanks.end(), b.rank) != slowRanks.end());
    m_slowColour = slowColour;
    endReset(m_ranks.size());
}

ClusterTableModel::Cell RankBreakdownModel::cell(std::size_t row, int column) const
{
    const RankBreakdown& b = m_ranks[row];
    auto time = [](double v) { return number(fmt::duration(v), v); };
    switch (column) {
    case Rank: return number(m_slow[row] ? tr("%1 (slow)").arg(b.rank) : QString::number(b.rank), b.rank);
    case Step: return time(b.stepTime());
    case Computing: return time(static_cast<double>(b.split.computing));
    case CommNotOverlapped: return time(static_cast<double>(b.split.commNotOverlapped));
    case Overlapped: return time(b.overlapped);
    case Communication: return time(b.communication);
    case Free: return time(static_cast<double>(b.split.free));
    case Bubble: return time(b.bubble);
    case Steps: return number(QString::number(b.split.steps), b.split.steps);
    case Source: return text(qstr(b.source));
    default: return {};
    }
}

RankOverlapModel::RankOverlapModel(QObject* parent)
    : ClusterTableModel({tr("Rank"), tr("Collectives"), tr("Communication"), tr("Covered by computing"), tr("Overlap")}, parent)
{
}

void RankOverlapModel::setAnalysis(const ClusterAnalysis& a)
{
    beginReset();
    m_ranks = a.rankOverlap;
    endReset(m_ranks.size());
}

ClusterTableModel::Cell RankOverlapModel::cell(std::size_t row, int column) const
{
    const RankOverlap& r = m_ranks[row];
    const auto communication = static_cast<double>(r.communication), covered = static_cast<double>(r.covered);
    switch (column) {
    case Rank: return number(QString::number(r.rank), r.rank);
    case Collectives: return number(QString::number(r.collectives), r.collectives);
    case Communication: return number(fmt::duration(communication), communication);
    case Covered: return number(fmt::duration(covered), covered);
    case Overlap: return number(fmt::percent(r.ratio()), r.ratio());
    default: return {};
    }
}

CollectiveOverlapModel::CollectiveOverlapModel(QObject* parent)
    : ClusterTableModel({tr("Collective"), tr("Count"), tr("Communication"), tr("Covered by computing"), tr("Overlap"),
                         tr("Lowest (rank)"), tr("Highest (rank)")},
                        parent)
{
}

void CollectiveOverlapModel::setAnalysis(const ClusterAnalysis& a)
{
    beginReset();
    m_collectives = a.collectiveOverlap;
    endReset(m_collectives.size());
}

ClusterTableModel::Cell CollectiveOverlapModel::cell(std::size_t row, int column) const
{
    auto extreme = [](int rank, double ratio) {
        const QString shown = rank < 0 ? QStringLiteral("—") : tr("%1 (%2)").arg(fmt::percent(ratio)).arg(rank);
        return number(shown, ratio);
    };
    const CollectiveOverlapStats& c = m_collectives[row];
    const auto communication = static_cast<double>(c.communication), covered = static_cast<double>(c.covered);
    switch (column) {
    case Collective: return text(qstr(c.collective));
    case Count: return number(QString::number(c.count), c.count);
    case Communication: return number(fmt::duration(communication), communication);
    case Covered: return number(fmt::duration(covered), covered);
    case Overlap: return number(fmt::percent(c.ratio()), c.ratio());
    case Lowest: return extreme(c.minRank, c.minRatio);
    case Highest: return extreme(c.maxRank, c.maxRatio);
    default: return {};
    }
}

NumericSortProxy::NumericSortProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(ClusterTableModel::SortRole);
}

bool NumericSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    const QVariant l = left.data(sortRole()), r = right.data(sortRole());
    if (l.typeId() == QMetaType::Double && r.typeId() == QMetaType::Double) {
        const double a = l.toDouble(), b = r.toDouble();
        if (std::isnan(a) || std::isnan(b))
            return std::isnan(a) && !std::isnan(b); // missing values first when ascending
        return a < b;
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

WhyWaitsModel::WhyWaitsModel(QObject* parent)
    : ClusterTableModel(
        {tr("Collective"), tr("Group"), tr("Step"), tr("Last rank"), tr("Spread"), tr("Wait caused"), tr("Reason")}, parent)
{
}

void WhyWaitsModel::setResult(const CollectivesResult& r)
{
    beginReset();
    m_rows.clear();
    for (const CollectiveInstance& i : r.instances)
        if (i.lastRank >= 0)
            m_rows.push_back(i);
    std::stable_sort(m_rows.begin(), m_rows.end(),
                     [](const CollectiveInstance& a, const CollectiveInstance& b) { return a.waitCaused > b.waitCaused; });
    endReset(m_rows.size());
}

ClusterTableModel::Cell WhyWaitsModel::cell(std::size_t row, int column) const
{
    const CollectiveInstance& i = m_rows[row];
    auto time = [](TimeNs v) { return number(fmt::duration(static_cast<double>(v)), static_cast<double>(v)); };
    switch (column) {
    case Collective: return text(qstr(i.collective));
    case Group: return text(qstr(i.group));
    case Step: return text(qstr(i.step));
    case LastRank: return number(QString::number(i.lastRank), i.lastRank);
    case Spread: return time(i.spread);
    case WaitCaused: return time(i.waitCaused);
    case Reason: return text(qstr(i.reason));
    default: return text({});
    }
}

} // namespace npuscope
