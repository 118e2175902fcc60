#include "views/cluster_models.h"
#include "views/format.h"

#include <algorithm>
#include <cmath>

namespace npuscope {

ClusterTableModel::ClusterTableModel(QStringList headers, QObject* parent)
    : QAbstractTableModel(parent), m_headers(std::move(headers))
{
}

void ClusterTableModel::setRows(std::vector<Row> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int ClusterTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ClusterTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_headers.size());
}

QVariant ClusterTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    const auto column = static_cast<std::size_t>(index.column());
    if (column >= r.cells.size())
        return {};
    const Cell& c = r.cells[column];
    switch (role) {
    case Qt::DisplayRole: return c.text;
    case SortRole: return c.numeric ? QVariant(c.value) : QVariant(c.text);
    case RankRole: return r.rank;
    case Qt::TextAlignmentRole:
        return c.numeric ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        return column == 0 && r.colour.isValid() ? QVariant(r.colour) : QVariant();
    default: return {};
    }
}

QVariant ClusterTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= m_headers.size())
        return {};
    return m_headers[section];
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
    std::vector<Row> rows;
    for (const RankBreakdown& b : a.ranks) {
        Row row;
        row.rank = b.rank;
        const bool slow = std::find(slowRanks.begin(), slowRanks.end(), b.rank) != slowRanks.end();
        row.cells.push_back(number(slow ? tr("%1 (slow)").arg(b.rank) : QString::number(b.rank), b.rank));
        if (slow)
            row.colour = slowColour;
        for (double v : {b.stepTime(), b.computing, b.commNotOverlapped, b.overlapped, b.communication, b.free, b.bubble})
            row.cells.push_back(number(fmt::duration(v), v));
        row.cells.push_back(number(QString::number(b.steps), b.steps));
        row.cells.push_back(text(qstr(b.source)));
        rows.push_back(std::move(row));
    }
    setRows(std::move(rows));
}

RankOverlapModel::RankOverlapModel(QObject* parent)
    : ClusterTableModel({tr("Rank"), tr("Collectives"), tr("Communication"), tr("Covered by computing"), tr("Overlap")}, parent)
{
}

void RankOverlapModel::setAnalysis(const ClusterAnalysis& a)
{
    std::vector<Row> rows;
    for (const RankOverlap& r : a.rankOverlap) {
        Row row;
        row.rank = r.rank;
        const auto communication = static_cast<double>(r.communication), covered = static_cast<double>(r.covered);
        row.cells = {number(QString::number(r.rank), r.rank), number(QString::number(r.collectives), r.collectives),
                     number(fmt::duration(communication), communication), number(fmt::duration(covered), covered),
                     number(fmt::percent(r.ratio()), r.ratio())};
        rows.push_back(std::move(row));
    }
    setRows(std::move(rows));
}

CollectiveOverlapModel::CollectiveOverlapModel(QObject* parent)
    : ClusterTableModel({tr("Collective"), tr("Count"), tr("Communication"), tr("Covered by computing"), tr("Overlap"),
                         tr("Lowest (rank)"), tr("Highest (rank)")},
                        parent)
{
}

void CollectiveOverlapModel::setAnalysis(const ClusterAnalysis& a)
{
    auto extreme = [](int rank, double ratio) {
        return rank < 0 ? QStringLiteral("—") : tr("%1 (%2)").arg(fmt::percent(ratio)).arg(rank);
    };
    std::vector<Row> rows;
    for (const CollectiveOverlapStats& c : a.collectiveOverlap) {
        Row row;
        const auto communication = static_cast<double>(c.communication), covered = static_cast<double>(c.covered);
        row.cells = {text(qstr(c.collective)), number(QString::number(c.count), c.count),
                     number(fmt::duration(communication), communication), number(fmt::duration(covered), covered),
                     number(fmt::percent(c.ratio()), c.ratio()), number(extreme(c.minRank, c.minRatio), c.minRatio),
                     number(extreme(c.maxRank, c.maxRatio), c.maxRatio)};
        rows.push_back(std::move(row));
    }
    setRows(std::move(rows));
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

} // namespace npuscope
