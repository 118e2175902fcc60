#pragma once
// The "Selection" dock (Perfetto's "Current selection"): everything about the slice clicked on
// the timeline, from describeSlice (model/analysis/slice_detail.h): name, track, start relative
// to the trace, duration, self time, every argument, the joined kernel row, flows in and out,
// the host op and call stack that launched a device task, and its neighbours on the stream. A
// flow, host op or neighbour row is a link: one click reveals that slice. Times are as the
// timeline draws them (SelectionController::clockShift): while All ranks shows a rank shifted by
// its clock offset, "Start" gives the aligned and the file time. A selected time range shows its
// duration. The panel owns no data; it follows the SelectionController.
#include "model/analysis/op_stats.h"
#include "views/selection_controller.h"

#include <QWidget>

#include <vector>

class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace npuscope {

class CausalModel;

class SelectionPanel : public QWidget {
    Q_OBJECT
public:
    enum Roles { LinkRole = Qt::UserRole + 1 }; // on link rows: the slice row (uint) to reveal

    explicit SelectionPanel(SelectionController* sel, QWidget* parent = nullptr);

    // The causal model (idle_lane.h): a "Critical path" section says whether the slice is on
    // its step's critical path and its slack.
    void setCausalModel(CausalModel* model);

    QString title() const;
    // Value shown for `field` (the first column's text, e.g. "Name", "Duration", "Self time",
    // "Start", "Track", an argument key or kernel column) under `section` ("Slice",
    // "Arguments", "Kernel row", "Flows in", "Flows out", "Host op", "Call stack",
    // "On its stream", "Critical path", "Range"); "" when absent. With an empty section, any section.
    QString fieldText(const QString& field, const QString& section = {}) const;
    QStringList sections() const;
    QTreeWidget* tree() const { return m_tree; }
    QPushButton* rankingButton() const { return m_rankingButton; }
    QPushButton* instancesButton() const { return m_instancesButton; }
    // The ranking key of the selected slice for the current grouping ("" when none).
    QString operatorKey() const { return m_key; }

public slots:
    void setGroupBy(npuscope::GroupBy g);

signals:
    void revealInRankingRequested(); // after the operator was selected: show the Operators dock
    void showInstancesRequested();   // ... show the Operator detail dock

private:
    void refresh();
    QTreeWidgetItem* section(const QString& title);
    void onItemClicked(QTreeWidgetItem* item);
    void addCriticalPath(const Profile& p, int rankIndex, std::uint32_t row);

    SelectionController* m_sel;
    CausalModel* m_causal = nullptr;
    QLabel* m_title;
    QTreeWidget* m_tree;
    QPushButton* m_rankingButton;
    QPushButton* m_instancesButton;
    GroupBy m_groupBy = GroupBy::Type;
    QString m_key;
    QString m_typeKey, m_nameKey;
};

} // namespace npuscope
