#pragma once
// Item models of the Cluster tab's tables, filled from a ClusterAnalysis: the step breakdown per
// rank, the overlap per rank and the overlap per collective. Cells show the analysis' numbers as
// text and sort by the numbers themselves (SortRole; NumericSortProxy puts missing values first
// when ascending); rows of a rank carry its rank id (RankRole).
#include "model/analysis/cluster.h"

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
    struct Cell {
        QString text;
        double value = kNaN; // NaN: a text cell, sorted by its text
        bool numeric = false;
    };
    struct Row {
        std::vector<Cell> cells;
        int rank = -1;
        QColor colour; // the first cell's text colour (a slow rank), invalid for the default
    };
    static Cell number(const QString& text, double v) { return {text, v, true}; }
    static Cell text(const QString& t) { return {t, kNaN, false}; }
    void setRows(std::vector<Row> rows);

private:
    QStringList m_headers;
    std::vector<Row> m_rows;
};

// The step breakdown per rank, in rank order: means per step, the steps and the source.
class RankBreakdownModel : public ClusterTableModel {
    Q_OBJECT
public:
    enum Columns { Rank, Step, Computing, CommNotOverlapped, Overlapped, Communication, Free, Bubble, Steps, Source,
                   ColumnCount };
    explicit RankBreakdownModel(QObject* parent = nullptr);
    // A rank that CLU-SLOWRANK names shows "(slow)" in `slowColour`.
    void setAnalysis(const ClusterAnalysis& a, const QColor& slowColour);
};

// How much of each rank's communication computation covers.
class RankOverlapModel : public ClusterTableModel {
    Q_OBJECT
public:
    enum Columns { Rank, Collectives, Communication, Covered, Overlap, ColumnCount };
    explicit RankOverlapModel(QObject* parent = nullptr);
    void setAnalysis(const ClusterAnalysis& a);
};

// The same per collective, with the ranks covering it least and most.
class CollectiveOverlapModel : public ClusterTableModel {
    Q_OBJECT
public:
    enum Columns { Collective, Count, Communication, Covered, Overlap, Lowest, Highest, ColumnCount };
    explicit CollectiveOverlapModel(QObject* parent = nullptr);
    void setAnalysis(const ClusterAnalysis& a);
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
