#pragma once
// The instances of one operator group: one row per kernel row (or device-task slice when the
// profile has no kernel table), with its start relative to the profile's begin.
#include "model/store/profile.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <vector>

namespace npuscope {

class OperatorInstanceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Start, Duration, Name, Stream, Step, ColumnCount };
    enum Roles {
        SortRole = Qt::UserRole + 1, // raw number (ns, id) or text for Name
        RawValueRole,                // start/duration in ns (start relative to the profile begin)
        RowRole                      // kernel row (slice row when rowsAreSlices())
    };

    explicit OperatorInstanceModel(QObject* parent = nullptr);

    void setInstances(ProfilePtr profile, std::vector<std::uint32_t> rows, bool rowsAreSlices);
    void clear();

    std::uint32_t rowAt(int row) const { return m_rows[std::size_t(row)]; }
    bool rowsAreSlices() const { return m_rowsAreSlices; }
    const ProfilePtr& profile() const { return m_profile; }
    TimeNs startOf(int row) const; // absolute ns
    TimeNs durationOf(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    QVariant raw(int row, int column) const;

    ProfilePtr m_profile;
    std::vector<std::uint32_t> m_rows;
    bool m_rowsAreSlices = false;
};

} // namespace npuscope
