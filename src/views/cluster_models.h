#pragma once
// Item models of the Cluster tab's tables, filled from a ClusterAnalysis: the step breakdown per
// rank, the overlap per rank and the overlap per collective. Each model keeps the analysis' rows
// and formats a cell when it is shown; cells sort by the numbers themselves (SortRole;
// NumericSortProxy puts missing values first when ascending); rows of a rank carry its rank id
// (RankRole).
#include "model/analysis/cluster.h"
#include "model/analysis/collectives.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QSortFilterProxyModel>
#include <QString>

#include <vector>

namespace npuscope {

class ClusterTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Roles {
        SortRole = Qt::UserRole + 1, // the cell's number (double), or its text
        RankRole,                    // the row's rank id, -1 for a row that is no rank
    };

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

protected:
    explicit ClusterTableModel(QStringList headers, QObject* parent);
    // A cell as shown: its number (a text cell sorts by its text) and its text, formatted from the
    // subclass's rows when asked for.
    struct Cell {
        QString text;
        double value = kNaN;
        bool numeric = false;
    };
    static Cell number(const QString& text, double v) { return {text, v, true}; }
    static Cell text(const QString& t) { return {t, kNaN, false}; }
    // The subclass's rows changed to `count` rows: set them between these two calls.
    void beginReset() { beginResetModel(); }
    void endReset(std::size_t count);
    virtual Cell cell(std::size_t row, int column) const = 0;
    virtual int rankOf(std::size_t) const { return -1; }
    // The first cell's text colour (a slow rank); invalid for the default.
    virtual QColor colourOf(std::size_t) const { return {}; }

private:
    QStringList m_headers;
    std::size_t m_count = 0;
};

// The step breakdown per rank, in rank order: means per step, the steps and the source.
class RankBreakdownModel : public ClusterTableModel {
    Q_OBJECT
public:
    enum Columns {
        Rank,
        Step,
        Computing,
        CommNotOverlapped,
        Overlapped,
        Communication,
        Free,
        Bubble,
        Steps,
        Source,
        ColumnCount
    };
    explicit RankBreakdownModel(QObject* parent = nullptr);
    // A rank that CLU-SLOWRANK names shows "(slow)" in `slowColour`.
    void setAnalysis(const ClusterAnalysis& a, const QColor& slowColour);

protected:
    Cell cell(std::size_t row, int column) const override;
    int rankOf(std::size_t row) const override { return m_ranks[row].rank; }
    QColor colourOf(std::size_t row) const override { return m_slow[row] ? m_slowColour : QColor(); }

private:
    std::vector<RankBreakdown> m_ranks;
    std::vector<bool> m_slow; // per row: a rank CLU-SLOWRANK names
    QColor m_slowColour;
};

// How much of each rank's communication computation covers.
class RankOverlapModel : public ClusterTableModel {
    Q_OBJECT
public:
    enum Columns { Rank, Collectives, Communication, Covered, Overlap, ColumnCount };
    explicit RankOverlapModel(QObject* parent = nullptr);
    void setAnalysis(const ClusterAnalysis& a);

protected:
    Cell cell(std::size_t row, int column) const override;
    int rankOf(std::size_t row) const override { return m_ranks[row].rank; }

private:
    std::vector<RankOverlap> m_ranks;
};

// The same per collective, with the ranks covering it least and most.
class CollectiveOverlapModel : public ClusterTableModel {
    Q_OBJECT
public:
    enum Columns { Collective, Count, Communication, Covered, Overlap, Lowest, Highest, ColumnCount };
    explicit CollectiveOverlapModel(QObject* parent = nullptr);
    void setAnalysis(const ClusterAnalysis& a);

protected:
    Cell cell(std::size_t row, int column) const override;

private:
    std::vector<CollectiveOverlapStats> m_collectives;
};

// "Why it waits": one row per collective instance with a late rank (collectives.h), the biggest
// wait caused first; RankRole is the late rank.
class WhyWaitsModel : public ClusterTableModel {
    Q_OBJECT
public:
    enum Columns { Collective, Group, Step, LastRank, Spread, WaitCaused, Reason, ColumnCount };
    explicit WhyWaitsModel(QObject* parent = nullptr);
    void setResult(const CollectivesResult& r);
    const CollectiveInstance& instance(std::size_t row) const { return m_rows[row]; }

protected:
    Cell cell(std::size_t row, int column) const override;
    int rankOf(std::size_t row) const override { return m_rows[row].lastRank; }

private:
    std::vector<CollectiveInstance> m_rows;
};

// Sorts by SortRole: numbers as numbers with missing values (NaN) first when ascending, text
// as text.
class NumericSortProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit NumericSortProxy(QObject* parent = nullptr);

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

} // namespace npuscope
