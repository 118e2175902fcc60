#pragma once
// The instances of one operator group: one row per kernel row (or timeline slice: a device task
// when the profile has no kernel table, a collective, a host API call), with its start counted
// from the trace start. With "All ranks" the rows come from every rank, each with its rank.
#include "model/store/profile.h"

#include <QAbstractTableModel>

#include <cstdint>
#include <vector>

namespace npuscope {

// What the instance table lists. `rowProfile[i]` indexes `profiles` for `rows[i]` (empty: all
// rows belong to profiles[0]); `rankIndex[j]` is the index of profiles[j] in Session::ranks.
struct InstanceSet {
    std::vector<ProfilePtr> profiles;
    std::vector<int> rankIndex;
    std::vector<std::uint32_t> rows;
    std::vector<std::uint32_t> rowProfile;
    bool rowsAreSlices = false;
    std::vector<double> bandwidthGBps; // per row, collectives only (NaN when unknown)
    TimeNs origin = 0;                 // what Start counts from (the timeline's trace start)
};

class OperatorInstanceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Start, Duration, Name, Stream, Step, Rank, Bandwidth, ColumnCount };
    enum Roles {
        SortRole = Qt::UserRole + 1, // raw number (ns, id) or text for Name
        RawValueRole,                // start/duration in ns (start relative to the origin)
        RowRole                      // kernel row (slice row when rowsAreSlices())
    };

    explicit OperatorInstanceModel(QObject* parent = nullptr);

    void setInstances(ProfilePtr profile, std::vector<std::uint32_t> rows, bool rowsAreSlices);
    void setInstances(InstanceSet set);
    void clear();

    std::uint32_t rowAt(int row) const { return m_set.rows[std::size_t(row)]; }
    bool rowsAreSlices() const { return m_set.rowsAreSlices; }
    // The profile of a row and its index in Session::ranks.
    const Profile& profileAt(int row) const;
    int rankIndexAt(int row) const;
    bool multiRank() const { return m_set.profiles.size() > 1; }
    TimeNs startOf(int row) const; // absolute ns
    TimeNs durationOf(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::size_t profileIndex(int row) const
    {
        return m_set.rowProfile.empty() ? 0 : m_set.rowProfile[std::size_t(row)];
    }
    QVariant raw(int row, int column) const;

    InstanceSet m_set;
};

} // namespace npuscope
