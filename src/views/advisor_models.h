#pragma once
// Item models of the Advisor dock. FindingsModel is a two-level tree: groups (the action plan,
// one per category of fired findings, then Minor, Not checked, Passed and Disabled / errors)
// whose rows are findings; EvidenceModel is the selected finding's evidence table. Both read an
// AdvisorReport they share ownership of, so a row never outlives the finding it shows.
#include "advisor/advisor.h"

#include <QAbstractItemModel>
#include <QColor>
#include <QString>

#include <memory>
#include <vector>

namespace npuscope {

class FindingsModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Columns { Finding, Severity, Gain, ColumnCount };
    enum Roles {
        FindingIndexRole = Qt::UserRole + 1, // index into report->findings, -1 for a group row
        ExpandedRole,                        // a group row open by default (plan, categories)
        SpannedRole,                         // a group row whose label spans every column
    };

    explicit FindingsModel(QObject* parent = nullptr);

    void setReport(std::shared_ptr<const advisor::AdvisorReport> report);
    const advisor::AdvisorReport* report() const { return m_report.get(); }
    // The row of that finding (its first row: under the plan when the plan names it), or invalid.
    QModelIndex indexOfFinding(int finding) const;
    // The row the list opens at: the plan's first action, else the first fired finding (which
    // may be a minor one, in a closed section).
    QModelIndex initialIndex() const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString label, tooltip, severity, gain, gainTooltip;
        QColor severityColour;
        int finding = -1;
    };
    struct Group {
        Row row;
        bool expanded = false, spanned = false;
        std::vector<Row> children;
    };
    void addPlan();
    void addFindings();
    const Row* rowAt(const QModelIndex& index) const;

    std::shared_ptr<const advisor::AdvisorReport> m_report;
    std::vector<Group> m_groups;
    int m_firstFired = -1; // the first fired finding (minor ones too), set by setReport
};

class EvidenceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // At: the event's time on the timeline's axis and its duration, a column of its own so that
    // no width of the dock cuts it; Where: the rest of the location (rank, stream, operator).
    enum Columns { At, Where, Metrics, Threshold, ColumnCount };

    explicit EvidenceModel(QObject* parent = nullptr);

    // The evidence of `finding` (of a report the caller keeps alive), times counted from `origin`
    // as the timeline's axis counts them; null clears the table.
    void setFinding(const advisor::Finding* finding, TimeNs origin);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString at, where, whereTooltip, metrics, metricsTooltip, threshold;
    };
    std::vector<Row> m_rows;
};

} // namespace npuscope
