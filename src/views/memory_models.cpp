#include "views/memory_models.h"
#include "views/format.h"

#include "model/analysis/units.h"

#include <QString>

namespace npuscope {

namespace {

QString durText(TimeNs ns) { return QString::fromStdString(formatDuration(ns)); }

// The first line of a call stack ("file.py(12): forward"), the innermost frame.
QString firstFrame(const std::string& stack)
{
    const auto end = stack.find_first_of(";\r\n");
    return qstr(std::string_view(stack).substr(0, end));
}

} // namespace

AliveAllocationsModel::AliveAllocationsModel(QObject* parent) : QAbstractTableModel(parent) {}

void AliveAllocationsModel::setMoment(ProfilePtr profile, TimeNs t)
{
    beginResetModel();
    m_profile = std::move(profile);
    m_t = t;
    m_rows.clear();
    m_total = 0;
    if (m_profile)
        for (auto i : memory::allocationsAliveAt(*m_profile, t)) {
            m_rows.push_back(Row{i, memory::originOf(*m_profile, m_profile->opMemory[i])});
            m_total += m_profile->opMemory[i].bytes;
        }
    endResetModel();
}

void AliveAllocationsModel::clear()
{
    beginResetModel();
    m_profile.reset();
    m_rows.clear();
    m_total = 0;
    endResetModel();
}

int AliveAllocationsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}
int AliveAllocationsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant AliveAllocationsModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o == Qt::Horizontal && role == Qt::InitialSortOrderRole) // sizes and times biggest first
        return int(section == Size || section == Held ? Qt::DescendingOrder : Qt::AscendingOrder);
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Size: return tr("Size");
    case Operator: return tr("Operator");
    case AllocatedAt: return tr("Allocated at");
    case Held: return tr("Held for");
    case PythonOp: return tr("Python op");
    case CallStack: return tr("Call stack");
    default: return {};
    }
}

QVariant AliveAllocationsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_profile || index.row() >= rowCount())
        return {};
    const Row& r = m_rows[std::size_t(index.row())];
    const OpAllocation& a = m_profile->opMemory[r.row];
    const TimeNs held = memory::liveUntil(a, m_profile->end) - a.allocAt;
    if (role == RowRole)
        return QVariant::fromValue(r.row);
    if (role == SortRole) {
        switch (index.column()) {
        case Size: return a.bytes;
        case Operator: return qstr(m_profile->str(a.name));
        case AllocatedAt: return qlonglong(a.allocAt);
        case Held: return qlonglong(held);
        case PythonOp: return QString::fromStdString(r.origin.op);
        case CallStack: return QString::fromStdString(r.origin.callStack);
        default: return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Size: return fmt::bytes(a.bytes);
        case Operator: return qstr(m_profile->str(a.name));
        case AllocatedAt: return tr("%1 ms").arg(double(a.allocAt - m_profile->begin) / 1e6, 0, 'f', 3);
        case Held: return a.released() ? durText(held) : tr("%1 (never freed)").arg(durText(held));
        case PythonOp: return QString::fromStdString(r.origin.op);
        case CallStack: return firstFrame(r.origin.callStack);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        if (index.column() == CallStack && !r.origin.callStack.empty())
            return QString::fromStdString(r.origin.callStack).replace(QStringLiteral(";\r\n"), QStringLiteral("\n"));
        if (index.column() == Size)
            return tr("%1 bytes (operator_memory Size(KB) × 1024)").arg(qlonglong(a.bytes));
        if (index.column() == Operator)
            return qstr(m_profile->str(a.name)); // the whole name, however narrow the column
        if (index.column() == PythonOp)
            return QString::fromStdString(r.origin.op);
    }
    if (role == Qt::TextAlignmentRole && (index.column() == Size || index.column() == AllocatedAt || index.column() == Held))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

OperatorMemoryModel::OperatorMemoryModel(QObject* parent) : QAbstractTableModel(parent) {}

void OperatorMemoryModel::setProfile(const ProfilePtr& profile)
{
    beginResetModel();
    m_ops = profile ? memory::byOperator(*profile) : std::vector<memory::OperatorBytes>{};
    endResetModel();
}

int OperatorMemoryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_ops.size());
}
int OperatorMemoryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant OperatorMemoryModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o == Qt::Horizontal && role == Qt::InitialSortOrderRole) // numbers biggest first
        return int(section == Operator ? Qt::AscendingOrder : Qt::DescendingOrder);
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Operator: return tr("Operator");
    case Bytes: return tr("Allocated");
    case Count: return tr("Allocations");
    case Largest: return tr("Largest");
    case Unreleased: return tr("Never freed");
    case Held: return tr("Held (Σ)");
    default: return {};
    }
}

QVariant OperatorMemoryModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const memory::OperatorBytes& o = m_ops[std::size_t(index.row())];
    if (role == SortRole) {
        switch (index.column()) {
        case Operator: return QString::fromStdString(o.name);
        case Bytes: return o.bytes;
        case Count: return qulonglong(o.count);
        case Largest: return o.maxBytes;
        case Unreleased: return o.unreleasedBytes;
        case Held: return qlonglong(o.heldNs);
        default: return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Operator: return QString::fromStdString(o.name);
        case Bytes: return fmt::bytes(o.bytes);
        case Count: return qulonglong(o.count);
        case Largest: return fmt::bytes(o.maxBytes);
        case Unreleased: return o.unreleased ? tr("%1 in %2").arg(fmt::bytes(o.unreleasedBytes)).arg(o.unreleased) : QString();
        case Held: return durText(o.heldNs);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == Operator)
        return QString::fromStdString(o.name); // the whole name, however narrow the column
    if (role == Qt::TextAlignmentRole && index.column() != Operator)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

} // namespace npuscope
