#pragma once
// The "Cluster" tab (UI.md): for a session of several ranks, which rank is slow, which link is
// slow and how much communication hides behind computation. A findings strip, the step
// breakdown per rank (stacked bars and a sortable table), the communication matrix heatmap
// (src rank × dst rank; bandwidth, size, time or transport; all collectives or one) and the
// overlap per rank and per collective. All numbers come from model/analysis/cluster.h.
// Clicking a rank (a bar or a table row) makes it the current rank of the SelectionController.
// The analysis runs on a worker thread (analysing() until analysisReady()); the tables are item
// models (cluster_models.h).
#include "model/analysis/cluster.h"
#include "model/analysis/collectives.h"
#include "model/store/session.h"

#include <QColor>
#include <QFutureWatcher>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPBars;
class QCPColorMap;
class QCPColorScale;
class QLabel;
class QTableView;

namespace npuscope {

class CollectiveOverlapModel;
class WhyWaitsModel;
class OverviewLanes;
class RankBreakdownModel;
class RankOverlapModel;
class SelectionController;

class ClusterView : public QWidget {
    Q_OBJECT
public:
    explicit ClusterView(SelectionController* sel, QWidget* parent = nullptr);

    ~ClusterView() override;

    // Recompute everything for `s` (nullptr clears) on a worker; the view shows the result when
    // it is done (analysisReady), and a newer session's result replaces an older one's.
    void setSession(SessionPtr s);
    bool analysing() const { return m_pending; }
    const ClusterAnalysis& analysis() const { return m_a; }

    // Whether a session gets a Cluster tab: ≥ 2 ranks, or cluster files.
    static bool wanted(const Session& s);

    // The parts, for tests and screenshots.
    QCustomPlot* barPlot() const { return m_bars; }
    QCustomPlot* matrixPlot() const { return m_matrix; }
    QCPColorMap* colorMap() const { return m_map; }
    QTableView* breakdownTable() const { return m_breakdown; }
    QTableView* rankOverlapTable() const { return m_rankOverlap; }
    QTableView* collectiveOverlapTable() const { return m_collOverlap; }
    QComboBox* metricCombo() const { return m_metric; }
    QComboBox* collectiveCombo() const { return m_collective; }
    OverviewLanes* overviewLanes() const { return m_overview; }
    QLabel* findingsLabel() const { return m_findings; }
    // "Why it waits" (cluster_view_late.cpp): the late rank of each collective, in aligned time
    // unless "Raw clocks" is checked; its own worker (collectivesReady()).
    QTableView* whyWaitsTable() const { return m_whyWaits; }
    WhyWaitsModel* whyWaitsModel() const { return m_whyModel; }
    QCheckBox* rawClocksCheck() const { return m_rawClocks; }
    // The manual clock offsets (rank id, ns) of Preferences → Clock offsets; matched again when
    // they change.
    void setManualClockOffsets(std::vector<std::pair<int, TimeNs>> manual);
    QLabel* lateSummaryLabel() const { return m_lateSummary; }
    const CollectivesResult& collectives() const { return m_late; }
    bool collectivesPending() const { return m_latePending; }
    // Opens the late rank's timeline at a "Why it waits" row (a source row of whyWaitsModel()):
    // its rank current, its window selected, the reason's slice selected.
    void openWaitRow(int sourceRow);
    QString findingsText() const;
    // The hover text of matrix cell (src, dst) of the shown collective, "" when there is none.
    QString cellToolTip(int src, int dst) const;
    // The heatmap's cell (src, dst) value as drawn (NaN when empty).
    double shownValue(int src, int dst) const;
    // The heatmap's colour scale: the shown metric's own range over the links between ranks
    // (LOCAL copies clip at its top), one colour when they lie within 5 % of the largest.
    struct MatrixScale {
        double lo = kNaN, hi = kNaN;
        bool uniform = false;
    };
    MatrixScale matrixScale() const { return m_matrixScale; }
    // The colour cell (src, dst) is filled with; invalid for a cell without data (drawn hatched).
    QColor cellColour(int src, int dst) const;
    // What the colours mean: "no data" hatched, and a spread too small to colour.
    QString matrixNote() const;

    // A cluster summary's rank (a rank id): opens its full folder when this machine reaches it
    // (rankFolderRequested), else says where it lives (rankNote()). cluster_view_summary.cpp.
    void openRankFolder(int rank);
    QString rankNote() const;

signals:
    void analysisReady();
    void rankActivated(int rankIndex);
    void rankFolderRequested(const QString& path);
    void collectivesReady();
    void timelineRequested(); // show the timeline (a "Why it waits" row was opened)

private:
    void buildUi();
    void showAnalysis();
    QWidget* buildBreakdownPane();
    QWidget* buildMatrixPane();
    QWidget* buildOverlapTabs();
    QWidget* buildWhyWaitsPane();
    void runCollectives();
    void showCollectives();
    void fillFindings();
    void fillBars();
    void fillBreakdown();
    void fillMatrix();
    void fillOverlap();
    void activateRank(int rank); // a rank id
    void showCellTip(const QPoint& pos);
    const CommMatrix* shownMatrix() const;

    SelectionController* m_sel;
    SessionPtr m_session;
    ClusterAnalysis m_a;
    QFutureWatcher<ClusterAnalysis> m_watcher; // follows the newest setSession's analysis only
    bool m_pending = false;                    // an analysis not shown yet
    QLabel* m_findings = nullptr;
    QLabel* m_sources = nullptr;
    QLabel* m_rankNote = nullptr; // where a summary's rank lives, when it cannot be opened
    QCustomPlot* m_bars = nullptr;
    RankBreakdownModel* m_breakdownModel = nullptr;
    RankOverlapModel* m_rankOverlapModel = nullptr;
    CollectiveOverlapModel* m_collOverlapModel = nullptr;
    QTableView* m_breakdown = nullptr;
    QCustomPlot* m_matrix = nullptr;
    QCPColorMap* m_map = nullptr;
    QCPColorScale* m_scale = nullptr;
    QLabel* m_matrixNote = nullptr;
    MatrixScale m_matrixScale;
    QComboBox* m_metric = nullptr;
    QComboBox* m_collective = nullptr;
    QTableView* m_rankOverlap = nullptr;
    QTableView* m_collOverlap = nullptr;
    std::vector<int> m_barRanks; // rank id per bar position
    QWidget* m_overviewBox = nullptr;
    OverviewLanes* m_overview = nullptr;
    // "Why it waits".
    CollectivesResult m_late;
    QFutureWatcher<CollectivesResult> m_lateWatcher;
    bool m_latePending = false;
    WhyWaitsModel* m_whyModel = nullptr;
    QTableView* m_whyWaits = nullptr;
    QCheckBox* m_rawClocks = nullptr;
    QLabel* m_lateSummary = nullptr;
    std::vector<std::pair<int, TimeNs>> m_manualClocks;
};

} // namespace npuscope
