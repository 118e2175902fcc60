#include "views/operator_instance_model.h"

#include "views/format.h"

namespace npuscope {

OperatorInstanceModel::OperatorInstanceModel(QObject* parent) : QAbstractTableModel(parent) {}

void OperatorInstanceModel::setInstances(ProfilePtr profile, std::vector<std::uint32_t> rows, bool rowsAreSlices)
{
    beginResetModel();
    m_profile = std::move(profile);
    m_rows = std::move(rows);
    m_rowsAreSlices = rowsAreSlices;
    endResetModel();
}

void OperatorInstanceModel::clear() { setInstances(nullptr, {}, false); }

int OperatorInstanceModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_profile ? 0 : int(m_rows.size());
}

int OperatorInstanceModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

TimeNs OperatorInstanceModel::startOf(int row) const
{
    const auto r = m_rows[std::size_t(row)];
    return m_rowsAreSlices ? m_profile->slices.start[r] : m_profile->kernels.start[r];
}

TimeNs OperatorInstanceModel::durationOf(int row) const
{
    const auto r = m_rows[std::size_t(row)];
    return m_rowsAreSlices ? m_profile->slices.dur[r] : m_profile->kernels.dur[r];
}

QVariant OperatorInstanceModel::raw(int row, int column) const
{
    const Profile& p = *m_profile;
    const auto r = m_rows[std::size_t(row)];
    switch (column) {
    case Start: return qlonglong(startOf(row) - p.begin);
    case Duration: return qlonglong(durationOf(row));
    case Name:
        return QString::fromUtf8(m_rowsAreSlices ? p.str(p.slices.name[r]) : p.str(p.kernels.name[r]));
    case Stream:
        if (m_rowsAreSlices) {
            const auto t = p.slices.track[r];
            return t.valid() && t.v < p.tracks.size() ? qlonglong(p.tracks[t.v].streamId) : qlonglong(-1);
        }
        return qlonglong(p.kernels.streamId[r]);
    case Step:
        return m_rowsAreSlices ? qlonglong(-1) : qlonglong(p.kernels.step[r]);
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
        return v.toLongLong() < 0 ? QStringLiteral("—") : QString::number(v.toLongLong());
    }
    case Qt::ToolTipRole:
        switch (column) {
        case Start: return tr("Start minus the profile's first timestamp (%1 ns after it)").arg(raw(row, column).toLongLong());
        case Duration: return tr("Task duration: %1 ns").arg(raw(row, column).toLongLong());
        case Stream: return tr("Stream ID of the task");
        case Step: return tr("Step Id of the kernel row (— when the file has none)");
        default: return raw(row, column);
        }
    case Qt::TextAlignmentRole:
        return column == Name ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                              : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case SortRole:
    case RawValueRole:
        return raw(row, column);
    case RowRole:
        return uint(m_rows[std::size_t(row)]);
    default:
        return {};
    }
}

QVariant OperatorInstanceModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o == Qt::Horizontal && role == Qt::DisplayRole) {
        switch (section) {
        case Start: return tr("Start");
        case Duration: return tr("Duration");
        case Name: return tr("Name");
        case Stream: return tr("Stream");
        case Step: return tr("Step");
        default: break;
        }
    }
    return QAbstractTableModel::headerData(section, o, role);
}

} // namespace npuscope
