#pragma once
// Operators ranked by cost: one row per OP Type (or Op Name) from computeOpStats, or one row
// per collective from computeCommStats for the communication preset. The model keeps the
// analysis result it computed (an immutable value); it never parses.
#include "model/analysis/op_stats.h"
#include "views/selection_controller.h"

#include <QAbstractTableModel>
#include <QFuture>

#include <optional>
#include <vector>

namespace npuscope {

// The `analyze --metric` choices of the command line.
enum class RankingPreset { Duration, MemoryBandwidth, CommunicationDuration };

class OperatorRankingModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Self: Σ self time, shown for generic traces (slices ranked by name, OpStatsResult::genericSlices).
    enum Columns { Name, Count, Total, Share, Avg, Min, Max, P50, P90, P99, AicUtil, L2Hit, ReadBw,
                   WriteBw, Bound, Core, Self, ColumnCount };
    enum Roles {
        SortRole = Qt::UserRole + 1, // raw number (double/qulonglong) or text for Name/Bound/Core
        RawValueRole,                // raw value: ns for times, 0..1 for shares, GB/s; NaN = missing
        KeyRole,                     // the group key (OP Type, Op Name or collective name)
        RowsRole                     // QList<uint>: kernel rows (slice rows when rowsAreSlices())
    };

    explicit OperatorRankingModel(QObject* parent = nullptr);

    // rankIndex is the index into Session::ranks (only used for labels and task references).
    void setProfile(ProfilePtr profile, int rankIndex = 0);
    // "All ranks": every profile of the session aggregated as one population
    // (computeOpStatsAllRanks); a group's rowProfile indexes `profiles` (= Session::ranks).
    void setProfiles(std::vector<ProfilePtr> profiles);
    bool aggregated() const { return m_profiles.size() > 1; }
    int profileCount() const { return int(m_profiles.size()); }
    const std::vector<ProfilePtr>& profiles() const { return m_profiles; }
    // For a session about to be shown: starts computing on a worker the ranking that
    // setProfile(ranks[0]) (one rank) or setProfiles(ranks) (several) will ask for with no
    // range, so that it runs beside the other views' work on the new session; recompute() takes
    // it when profiles and options match, waiting for the rest. Not for the communication preset.
    void prefetch(const std::vector<ProfilePtr>& ranks);
    // True while a prefetched ranking waits to be taken.
    bool prefetchPending() const { return m_prefetch.isValid(); }
    void setGroupBy(GroupBy g);
    void setPreset(RankingPreset p);
    void setRange(std::optional<TimeRange> r);
    // Several profiles: the range is in aligned time, and profile i's tasks are taken over the
    // range + shift[i] of its file time (its clock offset); none: file time for all.
    void setRangeShift(std::vector<TimeNs> shift);

    ProfilePtr profile() const { return m_profile; }
    int rankIndex() const { return m_rankIndex; }
    GroupBy groupBy() const { return m_groupBy; }
    RankingPreset preset() const { return m_preset; }
    std::optional<TimeRange> range() const { return m_range; }

    // Row of a key, -1 when absent.
    int rowForKey(const QString& key) const;
    QString keyAt(int row) const;
    // The group behind a row (nullptr for the communication preset or an invalid row).
    const OpGroupStats* groupAt(int row) const;
    const CommStats* commAt(int row) const;
    bool rowsAreSlices() const { return m_stats.fromTimeline; }
    const OpStatsResult& stats() const { return m_stats; }
    // Σ count over the rows shown (operator instances).
    std::uint64_t instanceCount() const;
    // Σ total over the rows shown.
    TimeNs totalDuration() const;
    // Whether a column carries data in the current preset (the view hides the others).
    bool columnApplies(int column) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    static const char* presetName(RankingPreset p); // "duration", "memory_bandwidth", ...

signals:
    void recomputed();

private:
    void recompute();
    OpStatsOptions statsOptions() const;
    void clearPrefetch();
    // Drops a prefetched ranking that is not of `profiles` (it would keep them alive).
    void dropPrefetchUnlessFor(const std::vector<ProfilePtr>& profiles);
    QVariant rawValue(int row, int column) const;
    QString displayText(int row, int column) const;
    QString toolTip(int row, int column) const;
    QString kernelSource() const;

    ProfilePtr m_profile;
    std::vector<ProfilePtr> m_profiles; // more than one: aggregated
    int m_rankIndex = 0;
    GroupBy m_groupBy = GroupBy::Type;
    RankingPreset m_preset = RankingPreset::Duration;
    std::optional<TimeRange> m_range;
    std::vector<TimeNs> m_rangeShift; // [profile]
    OpStatsResult m_stats;
    QFuture<OpStatsResult> m_prefetch;
    std::vector<ProfilePtr> m_prefetchFor; // the profiles m_prefetch ranks
    GroupBy m_prefetchGroupBy = GroupBy::Type;
    std::vector<CommStats> m_comm;
    TimeNs m_commTotal = 0;
};

} // namespace npuscope
