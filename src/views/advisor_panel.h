#pragma once
// The Advisor dock: runs every rule on a worker thread when a session arrives, lists findings
// grouped by category (severity in text and colour, sorted by severity then gain), then the
// "Not checked" and "Passed" sections; the selected finding shows its description,
// suggestions, gain formula, inputs and evidence. Clicking an evidence row jumps to the
// event on the timeline (zoomed ±10 %, range selected) or filters the ranking to the operator.
#include "advisor/advisor.h"
#include "views/selection_controller.h"

#include <QFutureWatcher>
#include <QWidget>

#include <atomic>
#include <memory>

class QLabel;
class QModelIndex;
class QPushButton;
class QTableView;
class QTextBrowser;
class QTreeView;

namespace npuscope {

class EvidenceModel;
class FindingsModel;

class AdvisorPanel : public QWidget {
    Q_OBJECT
public:
    explicit AdvisorPanel(SelectionController* sel, QWidget* parent = nullptr);
    ~AdvisorPanel() override;

    // The last finished report (null before the first run completes).
    std::shared_ptr<const advisor::AdvisorReport> report() const { return m_report; }
    // The last report when it is current for this session object and these thresholds (same
    // effective values), else null: exports reuse it instead of running the rules again.
    std::shared_ptr<const advisor::AdvisorReport> reportFor(const SessionPtr& session, const advisor::Thresholds& t) const;
    // Thresholds overrides file used for the next runs ("" = shipped defaults and user config).
    void setOverrideFile(const QString& path);
    QString overrideFile() const { return m_overrideFile; }

    // For tests and the rest of the window.
    QStringList firedTitles() const;
    bool selectFinding(const QString& id);   // selects its row in the list; false when absent
    int evidenceRowCount() const;
    bool activateEvidence(int row);          // as a double-click on that row
    QString detailsText() const;
    // True from a new session until its rules have run (the run starts on the next turn of the
    // event loop), and while a rerun runs.
    bool busy() const { return m_rerunPending || m_watcher.isRunning(); }

public slots:
    void rerun();

signals:
    void reportReady();

private:
    void onSessionChanged();
    void onFinished();
    void fillTree();
    void onCurrentChanged(const QModelIndex& current);
    void showFinding(const advisor::Finding* f);

    SelectionController* m_sel;
    QLabel* m_status = nullptr;
    QPushButton* m_thresholdsButton = nullptr;
    FindingsModel* m_findings = nullptr;
    EvidenceModel* m_evidenceRows = nullptr;
    QTreeView* m_tree = nullptr;
    QTextBrowser* m_details = nullptr;
    QTableView* m_evidence = nullptr;
    QString m_overrideFile;
    std::shared_ptr<const advisor::AdvisorReport> m_report;
    std::weak_ptr<const Session> m_reportSession, m_runSession;
    const advisor::Finding* m_current = nullptr;
    QFutureWatcher<std::shared_ptr<advisor::AdvisorReport>> m_watcher;
    bool m_rerunPending = false;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

} // namespace npuscope
