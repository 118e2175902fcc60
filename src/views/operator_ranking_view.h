#pragma once
// The "Operators" dock: the ranking table with its filter, group-by and metric preset. It
// follows the shared selection (rank, time range, operator) and sets the selected operator.
#include "views/operator_ranking_model.h"

#include <QWidget>

#include <memory>

class QSortFilterProxyModel;
class QTableView;
class QAction;

namespace Ui {
class OperatorRankingView;
}

namespace npuscope {

class SelectionController;

class OperatorRankingView : public QWidget {
    Q_OBJECT
public:
    explicit OperatorRankingView(SelectionController* sel, QWidget* parent = nullptr);
    ~OperatorRankingView() override;

    OperatorRankingModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* tableView() const;
    QString headerText() const;
    GroupBy groupBy() const { return m_model->groupBy(); }
    // Before `session` is shown: its ranking starts on a worker (OperatorRankingModel::prefetch).
    void prefetch(const SessionPtr& session);

    // CSV of the selected rows as shown (display text, visible columns, header line).
    QString selectionAsCsv() const;
    // CSV of every row in view order with raw values (ns, fractions, GB/s). Written to a
    // temporary file and renamed over `path`, so a failed export never leaves half a file.
    bool exportCsv(const QString& path, QString* error = nullptr) const;
    // Export… once a path is chosen: exportCsv, then the export notice, or an error naming the path.
    bool exportCsvWithNotice(const QString& path);

public slots:
    void setGroupBy(npuscope::GroupBy g);
    void setPreset(npuscope::RankingPreset p);
    void setFilterText(const QString& text);
    void copySelection() const;

signals:
    void groupByChanged(npuscope::GroupBy g);

private:
    void reloadProfile();
    void onRangeChanged();
    std::vector<TimeNs> rangeShift() const; // per rank: what the selected range is shifted by for its file time
    void onRecomputed();
    void followOperator(const QString& key);
    void onCurrentRowChanged(const QModelIndex& current);
    void revealRow(const QModelIndex& proxyIndex);
    void exportWithDialog();
    void applyPresetLayout();

    std::unique_ptr<Ui::OperatorRankingView> m_ui;
    SelectionController* m_sel;
    OperatorRankingModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QAction* m_copyAction = nullptr;
    QAction* m_exportAction = nullptr;
    bool m_syncing = false; // true while the view itself changes the selection
};

} // namespace npuscope
