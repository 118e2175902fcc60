#include "views/operator_instance_model.h"

#include "views/format.h"

#include <cmath>

namespace npuscope {

OperatorInstanceModel::OperatorInstanceModel(QObject* parent) : QAbstractTableModel(parent) {}

void OperatorInstanceModel::setInstances(ProfilePtr profile, std::vector<std::uint32_t> rows, bool rowsAreSlices)
{
    InstanceSet set;
    if (profile) {
        set.origin = profile->begin;
        set.profiles.push_back(std::move(profile));
        set.rankIndex.push_back(0);
        set.rows = std::move(rows);
    }
    set.rowsAreSlices = rowsAreSlices;
    setInstances(std::move(set));
}

void OperatorInstanceModel::setInstances(InstanceSet set)
{
    beginResetModel();
    m_set = std::move(set);
    if (m_set.profiles.empty())
        m_set.rows.clear();
    endResetModel();
}

void OperatorInstanceModel::clear() { setInstances(InstanceSet{}); }

int OperatorInstanceModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_set.rows.size());
}

int OperatorInstanceModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const Profile& OperatorInstanceModel::profileAt(int row) const { return *m_set.profiles[profileIndex(row)]; }

int OperatorInstanceModel::rankIndexAt(int row) const
{
    const std::size_t i = profileIndex(row);
    return i < m_set.rankIndex.size() ? m_set.rankIndex[i] : int(i);
}

TimeNs OperatorInstanceModel::startOf(int row) const
{
    const Profile& p = profileAt(row);
    const auto r = rowAt(row);
    return m_set.rowsAreSlices ? p.slices.start[r] : p.kernels.start[r];
}

TimeNs OperatorInstanceModel::durationOf(int row) const
{
    const Profile& p = profileAt(row);
    const auto r = rowAt(row);
    return m_set.rowsAreSlices ? p.slices.dur[r] : p.kernels.dur[r];
}

QVariant OperatorInstanceModel::raw(int row, int column) const
{
    const Profile& p = profileAt(row);
    const auto r = rowAt(row);
    switch (column) {
    case Start: return qlonglong(startOf(row) - m_set.origin);
    case Duration: return qlonglong(durationOf(row));
    case Name:
        return qstr(m_set.rowsAreSlices ? p.str(p.slices.name[r]) : p.str(p.kernels.name[r]));
    case Stream:
        if (m_set.rowsAreSlices) {
            const auto t = p.slices.track[r];
            return t.valid() && t.v < p.tracks.size() ? qlonglong(p.tracks[t.v].streamId) : qlonglong(-1);
        }
        return qlonglong(p.kernels.streamId[r]);
    case Step:
        return m_set.rowsAreSlices ? qlonglong(-1) : qlonglong(p.kernels.step[r]);
    case Rank:
        return qlonglong(p.rank >= 0 ? p.rank : rankIndexAt(row));
    case Bandwidth:
        return std::size_t(row) < m_set.bandwidthGBps.size() ? m_set.bandwidthGBps[std::size_t(row)] : kNaN;
    default: return {};
    }
}

QVariant OperatorInstanceModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const int row = index.row(), column = index.column();
    switch (role) {
    case Qt::DisplayRole: {
        const QVariant v = raw(row, column);
        if (column == Name)
            return v;
        if (column == Start || column == Duration)
            return fmt::duration(double(v.toLongLong()));
        if (column == Bandwidth)
            return fmt::bandwidth(v.toDouble());
        return v.toLongLong() < 0 ? QStringLiteral("—") : QString::number(v.toLongLong());
    }
    case Qt::ToolTipRole:
        switch (column) {
        case Start: return tr("Start minus the trace's first timestamp (%1 ns after it)").arg(raw(row, column).toLongLong());
        case Duration: return tr("Duration: %1 ns").arg(raw(row, column).toLongLong());
        case Stream: return tr("Stream ID of the task (— for a host thread)");
        case Step: return tr("Step Id of the kernel row (— when the file has none)");
        case Rank: return tr("The rank this instance ran on");
        case Bandwidth: return tr("Transit size / transit time of this collective (communication.json)");
        default: return raw(row, column); // the whole name, however narrow the column
        }
    case Qt::TextAlignmentRole:
        return column == Name ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                              : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case SortRole:
    case RawValueRole: {
        const QVariant v = raw(row, column);
        if (column == Bandwidth && std::isnan(v.toDouble()))
            return -1.0; // unknown sorts below every measured bandwidth
        return v;
    }
    case RowRole:
        return uint(rowAt(row));
    default:
        return {};
    }
}

QVariant OperatorInstanceModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o == Qt::Horizontal && role == Qt::InitialSortOrderRole)
        // Measures biggest first; names, times and ids in their natural order.
        return int(section == Duration || section == Bandwidth ? Qt::DescendingOrder : Qt::AscendingOrder);
    if (o == Qt::Horizontal && role == Qt::DisplayRole) {
        switch (section) {
        case Start: return tr("Start");
        case Duration: return tr("Duration");
        case Name: return tr("Name");
        case Stream: return tr("Stream");
        case Step: return tr("Step");
        case Rank: return tr("Rank");
        case Bandwidth: return tr("Bandwidth");
        default: break;
        }
    }
    return QAbstractTableModel::headerData(section, o, role);
}

} // namespace npuscope
