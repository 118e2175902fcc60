#pragma once
// The window a user lives in (UI.md): menus, toolbar, status bar, the timeline tab with the
// summary strip and utilisation plots, and docks for the advisor, operator ranking and detail,
// problems and files. It wires views to one SelectionController and loads through a
// LoadController; it owns no profile data beyond the current SessionPtr.
#include "model/store/session.h"

#include <QHash>
#include <QMainWindow>
#include <QStringList>

#include <memory>
#include <utility>
#include <vector>

class QComboBox;
class QDockWidget;
class QFrame;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTreeView;

namespace Ui {
class MainWindow;
}

namespace npuscope {

class AdvisorPanel;
class CausalModel;
class WhatIfPanel;
class OperatorRankingView;
class ClusterView;
class CompareView;
class FilesModel;
class LoadController;
class MemoryView;
class ProblemsModel;
class SelectionPanel;
class SelectionController;
class SummaryStrip;
class TimelineView;
class UtilizationPlots;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    // Starts loading `paths` before the window builds its views, so that the reading runs
    // beside the building (the command line's paths): as openPaths(paths) right after.
    explicit MainWindow(const QStringList& paths, QWidget* parent = nullptr);
    ~MainWindow() override;

    SelectionController* selection() const { return m_sel; }
    LoadController* loader() const { return m_loader; }
    TimelineView* timeline() const { return m_timeline; }
    UtilizationPlots* plots() const { return m_plots; }
    SummaryStrip* summary() const { return m_summary; }
    QTabWidget* tabs() const { return m_tabs; }
    SessionPtr session() const;
    QString statusText() const; // the permanent status summary ("… events · … files · …")
    int problemCount() const;   // rows in the Problems dock
    SelectionPanel* selectionPanel() const { return m_selectionPanel; }
    // The idle causes and critical paths of the session (idle_lane.h), the What-if dock, and the
    // "Critical path" toggle (key P).
    CausalModel* causalModel() const { return m_causal; }
    WhatIfPanel* whatIfPanel() const { return m_whatIf; }
    QAction* criticalPathAction() const { return m_criticalPath; }
    // The message of the last failed load ("Could not load PATH: reason…"), "" when none.
    QString lastLoadError() const { return m_lastLoadError; }

    // Put a view into a dock: "advisorDock", "operatorsDock", "operatorDetailDock",
    // "problemsDock", "filesDock". Replaces the placeholder (which is deleted).
    void setDockContent(const QString& objectName, QWidget* w);
    QDockWidget* dock(const QString& objectName) const;
    // The "Cluster" and "Memory" tabs, nullptr while the session has none.
    ClusterView* clusterView() const { return m_clusterView; }
    MemoryView* memoryView() const { return m_memoryView; }
    // The "Compare" tab, nullptr until a comparison was loaded; its loader (the second profile).
    CompareView* compareView() const { return m_compareView; }
    LoadController* compareLoader() const { return m_compareLoader; }
    // The banner over the timeline that says a timeline file was read only in part (hidden
    // otherwise), and its text without markup.
    QFrame* loadBanner() const { return m_banner; }
    QString loadBannerText() const;

public slots:
    // The path every open takes (File menu, recent list, drag and drop, command line).
    void openPaths(const QStringList& paths);
    void reload();
    // File → Compare With…: load `path` in the background as the optimized side against the
    // current session as the baseline, then show the Compare tab (main_window_compare.cpp).
    void compareWith(const QString& path);
    void showShortcuts();
    void showPreferences(); // main_window_preferences.cpp
    // File → Export… once a path is chosen: write, then the export notice or an error naming
    // the path. The advisor report is written when the advisor (run on a worker) is done.
    void exportChromeTraceTo(const QString& path);
    void exportAdvisorReportTo(const QString& path);

signals:
    void sessionLoaded(npuscope::SessionPtr session);
    void loadFailed(const QString& error);
    void compareReady();
    void compareFailed(const QString& error);

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void buildCentral();
    void buildDocks();
    void buildToolbar();
    void buildStatusBar();
    void connectActions();
    void rebuildRecentMenu();
    void onLoadStarted(const QStringList& paths);
    void onLoadProgress(const QString& stage, double fraction);
    void onLoaded(SessionPtr session, const QStringList& paths, qint64 elapsedMs);
    void onLoadFailed(const QString& error, const QStringList& paths);
    // Several unrelated runs below the opened folder: a dialog offers them one by one
    // (main_window_dialogs.cpp); the chosen one is loaded.
    void chooseRun(const QStringList& runs, const QStringList& paths);
    void onLoadEnded();
    // Adds, refreshes or removes the Cluster and Memory tabs for `s`.
    void updateSessionTabs(const SessionPtr& s);
    // Adds a tab after the others ("Cluster", "Memory", "Compare").
    int addCentralTab(QWidget* w, const QString& title);
    void fillProblems(const QString& loadError = {});
    void fillFiles();
    void fillRanks();
    void exportChromeTrace();
    void setupCompare();
    // View → Raw clocks and each rank's clock offset where a cluster's ranks share one axis
    // (main_window_preferences.cpp): the timeline's All ranks, the Every rank curves and the
    // Cluster tab's "Why it waits", all from the same setting.
    void setupClocks();
    void applyClocks();
    std::vector<std::pair<int, TimeNs>> manualClockOffsets() const; // of the open session's root
    void onCompareLoaded(SessionPtr session, const QStringList& paths);
    void onCompareFailed(const QString& error, const QStringList& paths);
    void onCompareComputed();
    void exportAdvisorReport();
    void about();
    // main_window_state.cpp: where the window opens, what a profile leaves behind.
    // Restores the geometry last left on this screen, else UI.md's 1600×1000 or the screen's
    // available area when smaller, and keeps the window inside that area.
    void placeOnScreen();
    void fitIntoScreen();
    QString screenKey() const;
    // The share of the height the bottom docks and the plots take, so that the timeline keeps
    // at least 40 % of a small window's height.
    void sizeDocksAndSplit(bool restored);
    // In a small window, moves height from the plots to the timeline until it has its share.
    void keepTimelineShare();
    // The Compare tab goes with the profile it was computed for; a running comparison stops.
    void closeCompare();
    // Per-profile view state (scroll position, "Curves of:"), kept by the profile's paths.
    void saveViewState();
    void restoreViewState(const QString& key);
    void buildBanner();
    void updateBanner(const SessionPtr& s);

    std::unique_ptr<Ui::MainWindow> m_ui;
    SelectionController* m_sel;
    LoadController* m_loader;
    LoadController* m_compareLoader = nullptr;
    CompareView* m_compareView = nullptr;
    ClusterView* m_clusterView = nullptr;
    MemoryView* m_memoryView = nullptr;
    SessionPtr m_compareBaseline; // the session the running compare load is measured against
    QStringList m_compareBaselinePaths;
    bool m_compareComputing = false; // the Compare tab computes a comparison asked for by compareWith
    QTabWidget* m_tabs = nullptr;
    QSplitter* m_splitter = nullptr;
    SummaryStrip* m_summary = nullptr;
    TimelineView* m_timeline = nullptr;
    UtilizationPlots* m_plots = nullptr;
    QAction* m_rawClocks = nullptr; // View → Raw clocks
    AdvisorPanel* m_advisor = nullptr;
    CausalModel* m_causal = nullptr;
    WhatIfPanel* m_whatIf = nullptr;
    QAction* m_criticalPath = nullptr;
    OperatorRankingView* m_ranking = nullptr;
    SelectionPanel* m_selectionPanel = nullptr;
    QString m_lastLoadError;
    ProblemsModel* m_problemsModel = nullptr;
    FilesModel* m_filesModel = nullptr;
    QTreeView* m_problems = nullptr;
    QTreeView* m_files = nullptr;
    QComboBox* m_rankCombo = nullptr;
    QLineEdit* m_search = nullptr;
    QLabel* m_statusLabel = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QStringList m_paths;
    QSize m_placedSize; // as placeOnScreen() left it: a size set after it is kept
    QFrame* m_banner = nullptr;
    QLabel* m_bannerText = nullptr;
    struct ViewState {
        int scrollY = 0;
        int curvesRank = -1; // UtilizationPlots::kEveryRank
    };
    QHash<QString, ViewState> m_viewStates; // by the profile's paths joined by '\n'
    QString m_viewKey;                       // the open profile's
    QByteArray m_defaultState;
    QList<int> m_defaultSplit; // summary strip, timeline, plots
};

} // namespace npuscope
