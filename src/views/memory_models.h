#pragma once
// Item models of the Memory tab: the operator allocations alive at one moment (largest first,
// with the Python op and call stack that made each where the profile has them), and the
// operators by bytes allocated.
#include "model/analysis/memory.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <vector>

namespace npuscope {

class AliveAllocationsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Size, Operator, AllocatedAt, Held, PythonOp, CallStack, ColumnCount };
    enum Roles {
        SortRole = Qt::UserRole + 1, // raw number (bytes, ns) or text
        RowRole                      // row in Profile::opMemory
    };

    explicit AliveAllocationsModel(QObject* parent = nullptr);

    // The allocations of `profile` alive at t (memory::allocationsAliveAt).
    void setMoment(ProfilePtr profile, TimeNs t);
    void clear();
    TimeNs moment() const { return m_t; }
    double totalBytes() const { return m_total; }
    std::uint32_t rowAt(int row) const { return m_rows[std::size_t(row)].row; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        std::uint32_t row;
        memory::AllocationOrigin origin;
    };
    ProfilePtr m_profile;
    std::vector<Row> m_rows;
    TimeNs m_t = 0;
    double m_total = 0;
};

class OperatorMemoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Operator, Bytes, Count, Largest, Unreleased, Held, ColumnCount };
    enum Roles { SortRole = Qt::UserRole + 1 };

    explicit OperatorMemoryModel(QObject* parent = nullptr);

    void setProfile(const ProfilePtr& profile); // memory::byOperator, most bytes first
    const memory::OperatorBytes& operatorAt(int row) const { return m_ops[std::size_t(row)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::vector<memory::OperatorBytes> m_ops;
};

} // namespace npuscope
