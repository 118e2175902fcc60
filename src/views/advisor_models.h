#pragma once
// Item models of the Advisor dock. FindingsModel is a two-level tree: groups (the action plan,
// one per category of fired findings, then Minor, Not checked, Passed and Disabled / errors)
// whose rows are findings; EvidenceModel is the selected finding's evidence table. Both read an
// AdvisorReport they share ownership of, so a row never outlives the finding it shows.
#include "advisor/advisor.h"

#include <QAbstractItemModel>
#include <QColor>
#include <QString>
#include <QStringList>

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
    // What a row stands for; its texts are formatted from the report when shown.
    enum class RowKind { Plan, Action, Finding, Category, Section, NothingChecked, NothingCrossed, NoneAboveMinShare };
    struct Row {
        RowKind kind = RowKind::Finding;
        int finding = -1;      // index into report->findings (an action's or a finding's row), else -1
        int item = -1;         // an action's index in report->plan, a section's, a category's value
        std::size_t count = 0; // a section's findings
    };
    struct Group {
        Row row;
        bool expanded = false, spanned = false;
        std::vector<Row> children;
    };
    void addPlan();
    void addFindings();
    const Row* rowAt(const QModelIndex& index) const;
    QString label(const Row& r) const;
    QString tooltip(const Row& r) const;
    QString gain(const Row& r) const;
    QString gainTooltip(const Row& r) const;
    // The finding whose severity a row shows (an action's, a fired finding), else null.
    const advisor::Finding* severityOf(const Row& r) const;

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
    QString at(const advisor::Evidence& e) const;
    QString where(const advisor::Evidence& e) const;
    QString whereTooltip(const advisor::Evidence& e) const;
    QStringList metrics(const advisor::Evidence& e) const;

    std::vector<advisor::Evidence> m_evidence;
    TimeNs m_origin = 0;
};

} // namespace npuscope
