#include "views/main_window.h"
#include "views/format.h"

#include "ui_main_window.h"

#include "model/analysis/chrome_export.h"
#include "model/io/memory_budget.h"
#include "views/advisor_panel.h"
#include "views/roofline_view.h"
#include "views/app_settings.h"
#include "views/cluster_view.h"
#include "views/memory_view.h"
#include "views/load_controller.h"
#include "views/load_report_models.h"
#include "views/operator_detail_view.h"
#include "views/operator_ranking_view.h"
#include "views/export_notice.h"
#include "views/idle_lane.h"
#include "views/selection_panel.h"
#include "views/selection_controller.h"
#include "views/summary_strip.h"
#include "views/time_format.h"
#include "views/timeline_view.h"
#include "views/utilization_plots.h"
#include "views/whatif_panel.h"

#include <QApplication>
#include <QCloseEvent>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QKeySequence>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <QMenu>
#include <QGuiApplication>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

namespace npuscope {

MainWindow::MainWindow(QWidget* parent) : MainWindow(QStringList(), parent) {}

MainWindow::MainWindow(const QStringList& paths, QWidget* parent)
    : QMainWindow(parent), m_ui(std::make_unique<Ui::MainWindow>()), m_sel(new SelectionController(this)),
      m_loader(new LoadController(this))
{
    // The loader's thread reports through queued calls, which arrive once the event loop runs:
    // by then every view below is built and connected. Only `started` comes at once (below).
    if (!paths.isEmpty())
        m_loader->load(paths);
    m_ui->setupUi(this);
    buildCentral();
    buildDocks();
    buildToolbar();
    setupClocks();
    buildStatusBar();
    connectActions();
    rebuildRecentMenu();
    m_plots->setHiddenPlots(AppSettings::hiddenPlots());
    connect(m_plots, &UtilizationPlots::hiddenPlotsChanged, this,
            [](const QStringList& kinds) { AppSettings::setHiddenPlots(kinds); });
    m_defaultState = saveState(AppSettings::kWindowStateVersion);
    placeOnScreen();
    const bool restored = restoreState(AppSettings::windowState(), AppSettings::kWindowStateVersion);
    // Size the docks and the split once the window has its geometry (resizeDocks before the
    // first show is ignored).
    QTimer::singleShot(0, this, [this, restored] { sizeDocksAndSplit(restored); });
    connect(m_loader, &LoadController::started, this, &MainWindow::onLoadStarted);
    connect(m_loader, &LoadController::progress, this, &MainWindow::onLoadProgress);
    connect(m_loader, &LoadController::finished, this, &MainWindow::onLoaded);
    connect(m_loader, &LoadController::failed, this, &MainWindow::onLoadFailed);
    connect(m_loader, &LoadController::runsFound, this, &MainWindow::chooseRun);
    connect(m_loader, &LoadController::cancelled, this, [this] {
        onLoadEnded();
        statusBar()->showMessage(tr("Loading cancelled; the previous session stays open."), 5000);
    });
    setupCompare();
    if (!paths.isEmpty())
        onLoadStarted(paths);
}

MainWindow::~MainWindow() = default;

SessionPtr MainWindow::session() const { return m_sel->session(); }
QString MainWindow::statusText() const { return m_statusLabel->text().remove(QRegularExpression(QStringLiteral("<[^>]*>"))); }
int MainWindow::problemCount() const { return m_problemsModel->rowCount(); }

void MainWindow::buildCentral()
{
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_splitter = new QSplitter(Qt::Vertical);
    m_splitter->setObjectName(QStringLiteral("timelineSplitter"));
    m_summary = new SummaryStrip(m_sel);
    // A cluster's strip (min / median / max of every number) is longer than the timeline is
    // wide: it is cut at the right (its tooltip says it all) rather than widen the window past
    // the screen.
    m_summary->setSizePolicy(QSizePolicy::Ignored, m_summary->sizePolicy().verticalPolicy());
    m_timeline = new TimelineView(m_sel);
    m_plots = new UtilizationPlots(m_sel);
    m_plots->alignTo(m_timeline); // one time axis: the plots' x is the timeline's
    m_splitter->addWidget(m_summary);
    m_splitter->addWidget(m_timeline);
    m_splitter->addWidget(m_plots);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 3);
    m_splitter->setStretchFactor(2, 1);
    m_splitter->setSizes({28, 560, 260});
    // The timeline's page: the banner of a partial load over the strip, timeline and plots.
    auto* page = new QWidget;
    page->setObjectName(QStringLiteral("timelinePage"));
    auto* pageLayout = new QVBoxLayout(page);
    pageLayout->setContentsMargins(0, 0, 0, 0);
    pageLayout->setSpacing(0);
    buildBanner();
    pageLayout->addWidget(m_banner);
    pageLayout->addWidget(m_splitter, 1);
    m_tabs->addTab(page, tr("Timeline"));
    setCentralWidget(m_tabs);
    delete m_ui->centralwidget;
    m_ui->centralwidget = nullptr;
}

void MainWindow::buildDocks()
{
    m_advisor = new AdvisorPanel(m_sel);
    setDockContent(QStringLiteral("advisorDock"), m_advisor);
    // The roofline comes with the advisor's report, as a tab beside the timeline.
    auto* roofline = new RooflineView(m_sel);
    roofline->setObjectName(QStringLiteral("rooflineView"));
    m_tabs->addTab(roofline, tr("Roofline"));
    connect(m_advisor, &AdvisorPanel::reportReady, roofline, [this, roofline] { roofline->setReport(m_advisor->report()); });
    auto* ranking = new OperatorRankingView(m_sel);
    m_ranking = ranking;
    auto* detail = new OperatorDetailView(m_sel);
    connect(ranking, &OperatorRankingView::groupByChanged, detail, &OperatorDetailView::setGroupBy);
    setDockContent(QStringLiteral("operatorsDock"), ranking);
    // The detail form is tall: scroll it rather than let it set the bottom docks' height.
    auto* detailScroll = new QScrollArea;
    detailScroll->setWidget(detail);
    detailScroll->setWidgetResizable(true);
    detailScroll->setFrameShape(QFrame::NoFrame);
    setDockContent(QStringLiteral("operatorDetailDock"), detailScroll);
    // The clicked slice, under the Advisor on the right.
    m_selectionPanel = new SelectionPanel(m_sel);
    // The causal model feeds the timeline's Idle causes lanes, the strip and the Selection panel.
    m_causal = new CausalModel(m_sel, this);
    m_timeline->setCausalModel(m_causal);
    m_summary->setCausalModel(m_causal);
    m_selectionPanel->setCausalModel(m_causal);
    connect(ranking, &OperatorRankingView::groupByChanged, m_selectionPanel, &SelectionPanel::setGroupBy);
    connect(m_selectionPanel, &SelectionPanel::revealInRankingRequested, this, [this] {
        dock(QStringLiteral("operatorsDock"))->show();
        dock(QStringLiteral("operatorsDock"))->raise();
    });
    connect(m_selectionPanel, &SelectionPanel::showInstancesRequested, this, [this] {
        dock(QStringLiteral("operatorDetailDock"))->show();
        dock(QStringLiteral("operatorDetailDock"))->raise();
    });
    setDockContent(QStringLiteral("selectionDock"), m_selectionPanel);
    splitDockWidget(dock(QStringLiteral("advisorDock")), dock(QStringLiteral("selectionDock")), Qt::Vertical);
    // Advisor and Selection share the right column evenly (once the window has its height).
    QTimer::singleShot(0, this, [this] {
        if (dock(QStringLiteral("selectionDock"))->height() < height() / 4)
            resizeDocks({dock(QStringLiteral("advisorDock")), dock(QStringLiteral("selectionDock"))}, {height() / 3, height() / 3}, Qt::Vertical);
    });

    // Problems and Files: item models behind a sorting proxy (numbers sort as numbers).
    auto sortedView = [this](QAbstractItemModel* model, int sortRole) {
        auto* proxy = new QSortFilterProxyModel(this);
        proxy->setSourceModel(model);
        proxy->setSortRole(sortRole);
        auto* view = new QTreeView;
        view->setModel(proxy);
        view->setRootIsDecorated(false);
        view->setUniformRowHeights(true);
        view->setSortingEnabled(true);
        view->sortByColumn(-1, Qt::AscendingOrder); // the models' own order until a header is clicked
        view->setAlternatingRowColors(true);
        return view;
    };
    m_problemsModel = new ProblemsModel(this);
    m_problems = sortedView(m_problemsModel, ProblemsModel::SortRole);
    m_problems->setTextElideMode(Qt::ElideMiddle);
    m_problems->header()->setStretchLastSection(false); // the reason takes the room, not the count
    m_problems->header()->setSectionResizeMode(ProblemsModel::Reason, QHeaderView::Stretch);
    setDockContent(QStringLiteral("problemsDock"), m_problems);

    m_filesModel = new FilesModel(this);
    m_files = sortedView(m_filesModel, FilesModel::SortRole);
    setDockContent(QStringLiteral("filesDock"), m_files);

    // Bottom: ranking | detail side by side, Problems and Files tabbed with the ranking.
    splitDockWidget(dock(QStringLiteral("operatorsDock")), dock(QStringLiteral("operatorDetailDock")), Qt::Horizontal);
    tabifyDockWidget(dock(QStringLiteral("operatorsDock")), dock(QStringLiteral("problemsDock")));
    tabifyDockWidget(dock(QStringLiteral("problemsDock")), dock(QStringLiteral("filesDock")));
    dock(QStringLiteral("operatorsDock"))->raise();
    // What-if: its form scrolled; placed beside the Advisor once the window knows its size
    // (sizeDocksAndSplit), hidden until then.
    auto* whatIfDock = new QDockWidget(tr("What-if"), this);
    whatIfDock->setObjectName(QStringLiteral("whatIfDock"));
    whatIfDock->hide();
    m_whatIf = new WhatIfPanel(m_sel);
    auto* whatIfScroll = new QScrollArea;
    whatIfScroll->setWidget(m_whatIf);
    whatIfScroll->setWidgetResizable(true);
    whatIfScroll->setFrameShape(QFrame::NoFrame);
    whatIfScroll->setFocusPolicy(Qt::NoFocus); // its boxes take the focus, not the frame
    setDockContent(QStringLiteral("whatIfDock"), whatIfScroll);
    resizeDocks({dock(QStringLiteral("advisorDock"))}, {380}, Qt::Horizontal);
    resizeDocks({dock(QStringLiteral("operatorsDock"))}, {280}, Qt::Vertical);

    for (QDockWidget* d : findChildren<QDockWidget*>())
        m_ui->menuView->addAction(d->toggleViewAction());
    m_ui->menuView->addSeparator();
    // The utilisation plots, one by one (also on their right-click menu).
    QMenu* curves = m_ui->menuView->addMenu(tr("&Curves"));
    curves->setObjectName(QStringLiteral("menuCurves"));
    curves->addActions(m_plots->plotActions());
    curves->addSeparator();
    curves->addAction(m_plots->showAllPlotsAction());
    m_ui->menuView->addSeparator();
    m_ui->menuView->addAction(m_ui->actionResetLayout);
}

QDockWidget* MainWindow::dock(const QString& objectName) const { return findChild<QDockWidget*>(objectName); }

void MainWindow::setDockContent(const QString& objectName, QWidget* w)
{
    QDockWidget* d = dock(objectName);
    if (!d)
        return;
    QWidget* old = d->widget();
    d->setWidget(w);
    if (old && old != w)
        old->deleteLater();
}

int MainWindow::addCentralTab(QWidget* w, const QString& title)
{
    // A wide page (the Cluster tab's tables side by side) is laid out in the width there is
    // rather than widen the window past the screen: the timeline's page sets the window's minimum.
    w->setMinimumWidth(1);
    return m_tabs->addTab(w, title);
}

void MainWindow::buildToolbar()
{
    QToolBar* tb = m_ui->mainToolBar;
    tb->addSeparator();
    tb->addWidget(new QLabel(tr(" Rank ")));
    m_rankCombo = new QComboBox;
    m_rankCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_rankCombo->setToolTip(tr("Which rank the timeline, summary and plots show"));
    tb->addWidget(m_rankCombo);
    connect(m_rankCombo, &QComboBox::activated, this, [this](int i) { m_sel->setCurrentRank(m_rankCombo->itemData(i).toInt()); });
    connect(m_sel, &SelectionController::currentRankChanged, m_rankCombo, [this](int rank) {
        if (const int i = m_rankCombo->findData(rank); i >= 0)
            m_rankCombo->setCurrentIndex(i); // follow a rank chosen elsewhere (Cluster tab)
    });
    tb->addSeparator();
    m_search = new QLineEdit;
    m_search->setObjectName(QStringLiteral("searchBox"));
    m_search->setPlaceholderText(tr("Find operator (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_search->setMaximumWidth(280);
    m_search->setToolTip(m_ui->actionFind->toolTip());
    tb->addWidget(m_search);
    connect(m_search, &QLineEdit::textChanged, m_timeline, &TimelineView::setSearchText);
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        if (QGuiApplication::keyboardModifiers() & Qt::ShiftModifier)
            m_timeline->previousMatch();
        else
            m_timeline->nextMatch();
    });
    auto* matches = new QLabel;
    matches->setObjectName(QStringLiteral("searchMatches"));
    tb->addWidget(matches);
    // "N matches" until Enter steps to one, then "k of N".
    auto showMatches = [this, matches] {
        const int n = static_cast<int>(m_timeline->matchCount());
        const int k = m_timeline->currentMatch();
        if (m_search->text().isEmpty())
            matches->clear();
        else if (k < 0 || n == 0)
            matches->setText(n == 1 ? tr(" 1 match") : tr(" %1 matches").arg(n));
        else
            matches->setText(tr(" %1 of %2").arg(k + 1).arg(n));
    };
    connect(m_timeline, &TimelineView::searchResultsChanged, matches, showMatches);
    connect(m_timeline, &TimelineView::currentMatchChanged, matches, showMatches);
    tb->addSeparator();
    m_criticalPath = tb->addAction(tr("Critical path"));
    m_criticalPath->setObjectName(QStringLiteral("actionCriticalPath"));
    m_criticalPath->setCheckable(true);
    m_criticalPath->setShortcut(QKeySequence(Qt::Key_P));
    m_criticalPath->setToolTip(tr("Outline the slices on each step's critical path and dim the others (P)"));
    connect(m_criticalPath, &QAction::toggled, m_causal, &CausalModel::setCriticalPathShown);
    connect(m_causal, &CausalModel::criticalPathShownChanged, m_criticalPath, &QAction::setChecked);
    m_ui->menuView->addAction(m_criticalPath);
}

void MainWindow::buildStatusBar()
{
    m_statusLabel = new QLabel(tr("No profile open"));
    m_statusLabel->setTextFormat(Qt::RichText);
    connect(m_statusLabel, &QLabel::linkActivated, this, [this] {
        dock(QStringLiteral("problemsDock"))->show();
        dock(QStringLiteral("problemsDock"))->raise();
    });
    statusBar()->addPermanentWidget(m_statusLabel, 1);
    // The permanent summary takes the bar's width; it steps aside while a message shows, so
    // that "Loading…", "Could not load…" and "Wrote…" are seen.
    connect(statusBar(), &QStatusBar::messageChanged, m_statusLabel, [this](const QString& m) { m_statusLabel->setVisible(m.isEmpty()); });
    m_progress = new QProgressBar;
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(260);
    m_progress->setTextVisible(true);
    m_progress->hide();
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("loadCancel"));
    m_cancel->hide();
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, m_loader, &LoadController::cancel);
}

void MainWindow::connectActions()
{
    connect(m_ui->actionOpenFolder, &QAction::triggered, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open profiling folder"));
        if (!dir.isEmpty())
            openPaths({dir});
    });
    connect(m_ui->actionOpenFile, &QAction::triggered, this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(
            this, tr("Open profiling file"), {}, tr("Profiling data (*.json *.csv *.db);;All files (*)"));
        if (!files.isEmpty())
            openPaths(files);
    });
    connect(m_ui->actionReload, &QAction::triggered, this, &MainWindow::reload);
    m_ui->actionReload->setEnabled(false);
    m_ui->actionCompare->setEnabled(false); // until a baseline is open (setupCompare)
    connect(m_ui->actionExportChrome, &QAction::triggered, this, &MainWindow::exportChromeTrace);
    connect(m_ui->actionExportReport, &QAction::triggered, this, &MainWindow::exportAdvisorReport);
    m_ui->actionExportChrome->setEnabled(false);
    m_ui->actionExportReport->setEnabled(false);
    connect(m_ui->actionQuit, &QAction::triggered, this, &QWidget::close);
    connect(m_ui->actionResetLayout, &QAction::triggered, this, [this] {
        restoreState(m_defaultState, AppSettings::kWindowStateVersion);
        m_splitter->setSizes(m_defaultSplit);
        m_plots->setHiddenPlots({});
        for (QDockWidget* d : findChildren<QDockWidget*>())
            d->show();
    });
    connect(m_ui->actionFind, &QAction::triggered, this, [this] {
        m_search->setFocus(Qt::ShortcutFocusReason);
        m_search->selectAll();
    });
    connect(m_ui->actionShortcuts, &QAction::triggered, this, &MainWindow::showShortcuts);
    connect(m_ui->actionPreferences, &QAction::triggered, this, &MainWindow::showPreferences);
    connect(m_ui->actionAbout, &QAction::triggered, this, &MainWindow::about);
}

void MainWindow::rebuildRecentMenu()
{
    QMenu* menu = m_ui->menuRecent;
    menu->clear();
    const QStringList recent = AppSettings::recentPaths();
    for (const QString& entry : recent) {
        const QStringList paths = entry.split(QLatin1Char('\n'));
        QAction* a = menu->addAction(paths.size() == 1 ? paths.front() : tr("%1 (+%2 more)").arg(paths.front()).arg(paths.size() - 1));
        connect(a, &QAction::triggered, this, [this, paths] { openPaths(paths); });
    }
    if (!recent.isEmpty()) {
        menu->addSeparator();
        connect(menu->addAction(tr("Clear Recent")), &QAction::triggered, this, [this] {
            AppSettings::clearRecent();
            rebuildRecentMenu();
        });
    }
    menu->setEnabled(!recent.isEmpty());
}

void MainWindow::openPaths(const QStringList& paths)
{
    if (paths.isEmpty())
        return;
    m_loader->load(paths);
}

void MainWindow::reload()
{
    if (!m_paths.isEmpty())
        openPaths(m_paths);
}

void MainWindow::onLoadStarted(const QStringList& paths)
{
    m_progress->setValue(0);
    m_progress->setFormat(tr("Loading…"));
    m_progress->show();
    m_cancel->show();
    statusBar()->showMessage(tr("Loading %1").arg(paths.join(QStringLiteral(", "))));
}

void MainWindow::onLoadProgress(const QString& stage, double fraction)
{
    m_progress->setValue(static_cast<int>(fraction * 1000));
    m_progress->setFormat(QStringLiteral("%1 %p%").arg(stage));
}

void MainWindow::onLoadEnded()
{
    m_progress->hide();
    m_cancel->hide();
}

void MainWindow::onLoaded(SessionPtr session, const QStringList& paths, qint64 elapsedMs)
{
    const QString key = paths.join(QLatin1Char('\n'));
    const bool sameProfile = key == m_viewKey; // a reload
    saveViewState();
    if (!sameProfile)
        closeCompare();
    onLoadEnded();
    statusBar()->clearMessage();
    m_paths = paths;
    AppSettings::addRecent(paths);
    rebuildRecentMenu();
    // The views' passes over a large session (layout, curves, ranking) get the heap its load got.
    const LoadAllocationScope views(session->loadedBytes());
    m_ranking->prefetch(session); // beside the timeline's layout and the curves
    m_sel->setSession(session);
    restoreViewState(key);
    fillRanks();
    fillProblems();
    fillFiles();
    m_ui->actionReload->setEnabled(true);
    m_ui->actionExportChrome->setEnabled(true);
    m_ui->actionExportReport->setEnabled(true);
    setWindowTitle(tr("%1 — npuscope").arg(QFileInfo(paths.front()).fileName()));

    std::uint64_t events = 0, files = 0;
    for (const auto& p : session->ranks) {
        events += p->slices.size() + p->flows.size();
        for (const auto& c : p->counters)
            events += c.ts.size();
        for (const auto& f : p->files)
            files += wasRead(f);
    }
    for (const auto& f : session->files)
        files += wasRead(f);
    QStringList parts;
    parts << tr("%1 events").arg(formatCount(events));
    parts << tr("%n file(s)", "", static_cast<int>(files));
    const std::uint64_t skipped = session->skippedTotal();
    if (skipped > 0)
        parts << tr("%1 rows skipped (<a href=\"problems\">details</a>)").arg(formatCount(skipped));
    else if (problemCount() > 0)
        parts << tr("%n problem(s) (<a href=\"problems\">details</a>)", "", problemCount());
    parts << tr("loaded in %1 s").arg(QString::number(static_cast<double>(elapsedMs) / 1000.0, 'f', 1));
    m_statusLabel->setText(parts.join(QStringLiteral(" · ")));
    if (!sameProfile)
        m_tabs->setCurrentIndex(0); // another profile opens on its timeline
    updateSessionTabs(session);
    updateBanner(session);
    QTimer::singleShot(0, this, [this] { keepTimelineShare(); }); // once the page has its new layout
    // The timeline's keys (W/S/A/D, arrows) work at once, unless a text field is being typed in.
    if (m_tabs->currentIndex() == 0 && !qobject_cast<QLineEdit*>(QApplication::focusWidget()))
        m_timeline->setFocus(Qt::OtherFocusReason);
    emit sessionLoaded(session);
}

void MainWindow::updateSessionTabs(const SessionPtr& s)
{
    // A tab the new session does not get goes away (its view is deleted once its events are done).
    auto drop = [this](auto*& view) {
        if (!view)
            return;
        if (m_tabs->currentWidget() == view)
            m_tabs->setCurrentIndex(0); // not the neighbour the tab bar would pick
        m_tabs->removeTab(m_tabs->indexOf(view));
        view->deleteLater();
        view = nullptr;
    };
    if (s && ClusterView::wanted(*s)) {
        if (!m_clusterView) {
            m_clusterView = new ClusterView(m_sel);
            addCentralTab(m_clusterView, tr("Cluster"));
            connect(m_clusterView, &ClusterView::rankFolderRequested, this, [this](const QString& path) { openPaths({path}); });
            connect(m_clusterView, &ClusterView::timelineRequested, this, [this] { m_tabs->setCurrentIndex(0); });
            m_clusterView->rawClocksCheck()->setChecked(m_rawClocks->isChecked());
            connect(m_clusterView->rawClocksCheck(), &QCheckBox::toggled, m_rawClocks, &QAction::setChecked,
                    Qt::UniqueConnection);
        }
        m_clusterView->setManualClockOffsets(manualClockOffsets());
        m_clusterView->setSession(s);
        if (s->ranks.empty()) // a cluster summary, or cluster files alone: the tab is all there is
            m_tabs->setCurrentWidget(m_clusterView);
    } else {
        drop(m_clusterView);
    }
    // The Memory view follows the selection's session and rank itself: it was redrawn already.
    if (s && MemoryView::wanted(*s)) {
        if (!m_memoryView) {
            m_memoryView = new MemoryView(m_sel);
            m_memoryView->setObjectName(QStringLiteral("memoryView"));
            addCentralTab(m_memoryView, tr("Memory"));
        }
    } else {
        drop(m_memoryView);
    }
}

void MainWindow::onLoadFailed(const QString& error, const QStringList& paths)
{
    onLoadEnded();
    const QString what = paths.join(QStringLiteral(", "));
    m_lastLoadError = tr("Could not load %1: %2").arg(what, error);
    statusBar()->showMessage(m_lastLoadError, 15000);
    // Another profile was asked for: the comparison of the one open goes, and the window shows
    // the timeline with the Problems dock rather than a tab about something else.
    closeCompare();
    m_tabs->setCurrentIndex(0);
    if (session()) {
        // The previous profile stays open with its own problems; the failure is said here.
        fillProblems();
        m_lastLoadError += tr("\n\nThe profile that was open (%1) stays open.").arg(m_paths.join(QStringLiteral(", ")));
    } else {
        fillProblems(error);
        dock(QStringLiteral("problemsDock"))->show();
        dock(QStringLiteral("problemsDock"))->raise();
    }
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Could not load"), m_lastLoadError, QMessageBox::Close, this);
    box->setObjectName(QStringLiteral("loadErrorNotice"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->setWindowModality(Qt::NonModal);
    box->show();
    emit loadFailed(error);
}

void MainWindow::fillRanks()
{
    m_rankCombo->clear();
    const SessionPtr s = session();
    if (!s)
        return;
    if (s->ranks.size() > 1)
        m_rankCombo->addItem(tr("All ranks"), -1);
    for (std::size_t i = 0; i < s->ranks.size(); ++i) {
        const Profile& p = *s->ranks[i];
        m_rankCombo->addItem(p.rank >= 0 ? tr("Rank %1").arg(p.rank) : qstr(p.name), static_cast<int>(i));
    }
    m_rankCombo->setEnabled(s->ranks.size() > 1);
}

void MainWindow::fillProblems(const QString& loadError)
{
    m_problemsModel->setSession(session(), loadError, m_loader->currentPaths().join(QStringLiteral(", ")));
    for (int c : {ProblemsModel::Severity, ProblemsModel::File, ProblemsModel::Where, ProblemsModel::Count})
        m_problems->resizeColumnToContents(c);
    // A long path takes at most a sixth of the window's width (the dock's own is not laid out
    // while it is a hidden tab), elided in the middle, so that the reason shows.
    const int maxFile = std::max(200, width() / 6);
    if (m_problems->columnWidth(ProblemsModel::File) > maxFile)
        m_problems->setColumnWidth(ProblemsModel::File, maxFile);
    dock(QStringLiteral("problemsDock"))->setWindowTitle(tr("Problems (%1)").arg(m_problemsModel->rowCount()));
}

void MainWindow::fillFiles()
{
    m_filesModel->setSession(session());
    m_files->resizeColumnToContents(FilesModel::Kind);
    m_files->resizeColumnToContents(FilesModel::Status);
}

void MainWindow::exportChromeTrace()
{
    const SessionPtr s = session();
    if (!s)
        return;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Chrome trace"), QStringLiteral("trace.json"),
                                                      tr("Chrome trace (*.json)"));
    if (!path.isEmpty())
        exportChromeTraceTo(path);
}

void MainWindow::exportChromeTraceTo(const QString& path)
{
    const SessionPtr s = session();
    if (!s)
        return;
    std::string error;
    if (npuscope::exportChromeTrace(*s, path.toStdString(), &error)) {
        statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
        showExportNotice(this, path);
    } else {
        showExportError(this, path, qstr(error));
    }
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    AppSettings::setWindow(screenKey(), saveGeometry(), saveState(AppSettings::kWindowStateVersion), m_splitter->saveState());
    m_loader->cancel();
    QMainWindow::closeEvent(e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e)
{
    if (e->mimeData()->hasUrls())
        e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e)
{
    QStringList paths;
    for (const QUrl& u : e->mimeData()->urls())
        if (u.isLocalFile())
            paths << u.toLocalFile();
    if (!paths.isEmpty()) {
        e->acceptProposedAction();
        openPaths(paths);
    }
}

} // namespace npuscope
