#pragma once
// Item models of the Compare tab over one CompareResult (model/analysis/compare.h): the
// headline table and the per-operator diff. Conventions of the engine and `npuscope compare`:
// delta = optimized − baseline, ratio = optimized / baseline. Improvements are green, regressions
// red, and always said in text too (never by colour alone).
#include "model/analysis/compare.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QSortFilterProxyModel>

namespace npuscope {

// +1 improved, −1 regressed, 0 same or unknown.
enum class Change { Regressed = -1, Same = 0, Improved = 1 };
// Green / red readable on the current palette (lighter shades on a dark one); invalid for Same.
QColor changeColour(Change c);

class CompareHeadlineModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Metric, Baseline, Optimized, Delta, Ratio, Better, Verdict, ColumnCount };
    enum Roles {
        SortRole = Qt::UserRole + 1, // raw number or text
        RawValueRole,                // raw value in the row's unit (NaN = missing)
        ChangeRole,                  // int(Change) of the row
    };

    explicit CompareHeadlineModel(QObject* parent = nullptr);
    // `sameWithin`: the share of the larger value under which a change is "same".
    void setRows(std::vector<HeadlineRow> rows, double sameWithin = kSameWithin);
    const HeadlineRow& rowAt(int row) const { return m_rows.at(static_cast<std::size_t>(row)); }
    int rowForMetric(const QString& metric) const; // -1 when absent

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::vector<HeadlineRow> m_rows;
    double m_sameWithin = kSameWithin;
};

class OperatorDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // The count and time columns are per step or over the whole run (setOpTimes); Verdict is per
    // step either way, as the headline's.
    // The times, their change and the verdict come first: they are what a narrow window shows.
    enum Columns { Name, Present, BaselineTotal, OptimizedTotal, Delta, Ratio, Verdict, BaselineCount, OptimizedCount,
                   BaselineAvg, OptimizedAvg, ColumnCount };
    enum Roles {
        SortRole = Qt::UserRole + 1, // raw number or text; Delta sorts by |delta|
        RawValueRole,                // ns for times (per step: a double), counts, ratio (NaN = missing)
        KeyRole,                     // the operator key (OP Type or Op Name)
        PresenceRole,                // int(Presence)
        ChangeRole,                  // int(Change) of the per-step verdict: a faster operator is improved
    };
    enum class Presence { Both, BaselineOnly, OptimizedOnly };

    explicit OperatorDiffModel(QObject* parent = nullptr);
    void setRows(std::vector<OpDiffRow> rows, double sameWithin = kSameWithin);
    void setOpTimes(OpTimes t);
    OpTimes opTimes() const { return m_times; }
    const OpDiffRow& rowAt(int row) const { return m_rows.at(static_cast<std::size_t>(row)); }
    int rowForKey(const QString& key) const; // -1 when absent

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    QVariant toolTip(const OpDiffRow& d, int column) const;

    std::vector<OpDiffRow> m_rows;
    double m_sameWithin = kSameWithin;
    OpTimes m_times = OpTimes::PerStep;
};

// Sorts by OperatorDiffModel::SortRole, filters by name (case-insensitive substring) and by
// which side an operator appears on.
class OperatorDiffProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    enum class Show { All, Both, BaselineOnly, OptimizedOnly, OneSideOnly };
    explicit OperatorDiffProxy(QObject* parent = nullptr);
    void setShow(Show s);
    Show show() const { return m_show; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    Show m_show = Show::All;
};

// The operator mapping (CompareResult::mapping): one row per unchanged or changed operator (type
// and shapes), replacement (baseline window ⇒ optimized window), removed or added operator type,
// times per aligned step.
class OperatorMappingModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Columns { Kind, Baseline, Optimized, Shapes, PerStep, Before, After, Delta, Ratio, Interval, Verdict, ColumnCount };
    enum Roles {
        SortRole = Qt::UserRole + 1, // raw number or text
        ChangeRole,                  // int(Change) of the row's verdict
        KindRole,                    // int(MappingKind)
    };
    explicit OperatorMappingModel(QObject* parent = nullptr);
    void setMapping(OpMapping mapping);
    const OpMappingRow& rowAt(int row) const { return m_map.rows.at(static_cast<std::size_t>(row)); }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    OpMapping m_map;
};

// A table of the advisor diff's rows (findings of both runs matched by id); the models below
// show them with their own columns.
class AdvisorDiffRowsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;
    void setRows(std::vector<AdvisorDiffRow> rows);
    const AdvisorDiffRow& rowAt(int row) const { return m_rows.at(static_cast<std::size_t>(row)); }
    int rowForId(const QString& id) const; // -1 when absent
    int rowCount(const QModelIndex& parent = {}) const override;

protected:
    std::vector<AdvisorDiffRow> m_rows;
};

// The advisor findings of both runs matched by id: fixed, remaining, new.
class AdvisorDiffModel : public AdvisorDiffRowsModel {
    Q_OBJECT
public:
    enum Columns { State, Id, Title, SeverityBefore, SeverityAfter, CostBefore, CostAfter, ColumnCount };
    enum Roles {
        SortRole = Qt::UserRole + 1, // raw number or text
        ChangeRole,                  // int(FindingChange)
    };
    explicit AdvisorDiffModel(QObject* parent = nullptr);
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
};

} // namespace npuscope
