#pragma once
// The "Compare" tab: a baseline profile against an optimized one, as a tuning report opens —
// the headline table (step time, throughput, utilisation, L2, HBM, exposed communication;
// baseline, optimized, delta, ratio and which direction is better), then every operator's
// count and time on both sides, sorted by |Δ total|, with operators found on one side only.
// The numbers come from compareSessions (model/analysis/compare.h), the same engine as
// `npuscope compare`; Export… writes that command's output (formatCompareReport). The "Advice
// checked" page is `compare --validate-advice`'s: the baseline's findings against the optimized
// run (advisor/advice_check.h).
// The comparison runs on a worker thread (QtConcurrent): setProfiles, Swap, the grouping and
// the tokens per step start a computation, resultReady() says when its numbers are shown, and
// cancel() drops a running one and keeps what was shown before.
#include "model/analysis/compare.h"
#include "model/store/session.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QModelIndex;
class QPushButton;
class QSpinBox;
class QSortFilterProxyModel;
class QTableView;
class QTabWidget;

namespace npuscope {

class CompareHeadlineModel;
class OperatorDiffModel;
class OperatorDiffProxy;
class OperatorMappingModel;
class AdvisorDiffModel;
class AdviceCheckModel;
class CompareTimelines;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);
    ~CompareView() override;

    // Both sessions are immutable values; the view keeps them to recompute on Swap or when
    // the grouping changes. Paths are only shown (header, exports). Returns at once: the
    // result follows with resultReady().
    void setProfiles(SessionPtr baseline, const QString& baselinePath, SessionPtr optimized, const QString& optimizedPath);

    // True while a comparison runs on the worker thread.
    bool busy() const { return m_busy; }
    // The shown result and the profiles it was computed from.
    const CompareResult& result() const { return m_result; }
    QString baselinePath() const { return m_shown.baselinePath; }
    QString optimizedPath() const { return m_shown.optimizedPath; }
    SessionPtr baselineSession() const { return m_shown.baseline; }
    SessionPtr optimizedSession() const { return m_shown.optimized; }
    QString headerText() const; // the header as plain text
    CompareHeadlineModel* headlineModel() const { return m_headline; }
    OperatorDiffModel* operatorModel() const { return m_ops; }
    OperatorDiffProxy* operatorProxy() const { return m_proxy; }
    QTableView* headlineTable() const { return m_headlineTable; }
    QTableView* operatorTable() const { return m_opTable; }
    OperatorMappingModel* mappingModel() const { return m_mapping; }
    AdvisorDiffModel* advisorModel() const { return m_advisor; }
    QTableView* mappingTable() const { return m_mappingTable; }
    QTableView* advisorTable() const { return m_advisorTable; }
    QTabWidget* detailTabs() const { return m_details; }
    // "Advice checked": the baseline's findings against the optimized run (advisor/advice_check.h).
    // A click on an operator-level row selects its operators in the Operators table; a double
    // click shows the first of them as a double click on an operator does.
    AdviceCheckModel* adviceCheckModel() const { return m_check; }
    QTableView* adviceCheckTable() const { return m_checkTable; }
    QWidget* adviceCheckPage() const { return m_checkPage; }
    QString adviceCheckNote() const; // the plan against the measured step, as plain text
    CompareTimelines* timelines() const { return m_timelines; }

    // Writes the report in `format` (csv | markdown | json | table | html | pdf) to `path` atomically; on
    // failure returns false and sets *error to a sentence naming the file and why.
    bool exportTo(const QString& path, const QString& format, QString* error) const;

public slots:
    void swap();
    void setGroupBy(npuscope::GroupBy g);
    void setTokensPerStep(int tokens); // 0 = no per-token row
    // A change of less than `percent` % of the larger value shows as the same (default 1).
    void setSameWithinPercent(double percent);
    void setFilterText(const QString& text);
    // The operators' times per step (the default) or over the whole run: what the table shows and
    // sorts by and what Export… writes. Verdicts stay per step; nothing is computed again.
    void setOpTimes(npuscope::OpTimes t);
    void exportWithDialog();
    // Drops the running comparison (its late result is ignored); the view goes back to the
    // profiles and options of the shown result. Nothing happens when none runs.
    void cancel();

signals:
    // The numbers of the latest request are shown.
    void resultReady();
    // A running comparison was dropped by cancel().
    void computationCancelled();
    // Double-click on an operator row: its key (OP Type or Op Name, as grouped).
    void operatorActivated(const QString& key, npuscope::GroupBy groupBy);

private:
    struct Inputs {
        SessionPtr baseline, optimized;
        QString baselinePath, optimizedPath;
        CompareOptions options;
    };
    void recompute();
    void showResult(CompareResult result);
    void syncControls(); // the group-by and tokens controls show m_in.options
    void updateHeader();
    void onOperatorActivated(const QModelIndex& proxyIndex);
    void setupAdvicePage(); // the "Advice checked" page's note, table and their connections
    void onAdviceClicked(const QModelIndex& proxyIndex);
    void onAdviceActivated(const QModelIndex& proxyIndex);

    Inputs m_in;     // what was asked for last
    Inputs m_shown;  // what m_result was computed from
    CompareResult m_result;
    quint64 m_generation = 0; // the computation whose result will be shown
    bool m_busy = false;

    QLabel* m_header;
    QPushButton* m_swap;
    QPushButton* m_export;
    QComboBox* m_groupBy;
    QSpinBox* m_tokens;
    QDoubleSpinBox* m_sameWithin;
    QComboBox* m_show;
    QLineEdit* m_filter;
    QCheckBox* m_wholeRun;
    QLabel* m_opTitle;
    QLabel* m_opNote;
    QLabel* m_opCount;
    CompareHeadlineModel* m_headline;
    OperatorDiffModel* m_ops;
    OperatorDiffProxy* m_proxy;
    QTableView* m_headlineTable;
    QTableView* m_opTable;
    OperatorMappingModel* m_mapping;
    AdvisorDiffModel* m_advisor;
    QSortFilterProxyModel* m_mappingProxy;
    QSortFilterProxyModel* m_advisorProxy;
    QTableView* m_mappingTable;
    QTableView* m_advisorTable;
    AdviceCheckModel* m_check;
    QSortFilterProxyModel* m_checkProxy;
    QTableView* m_checkTable;
    QLabel* m_checkNote;
    QWidget* m_checkPage;
    QTabWidget* m_details;
    CompareTimelines* m_timelines;
};

} // namespace npuscope
