// File → Compare With…: the second profile loads in the background through its own
// LoadController (progress and Cancel in the status bar, shared with the main load), the open
// session is the baseline, the Compare tab computes the comparison on a worker thread (still
// cancellable from the status bar) and the result goes to the "Compare" tab.
#include "views/main_window.h"

#include "ui_main_window.h"

#include "model/cluster_summary/cluster_summary.h"
#include "views/compare_view.h"
#include "views/load_controller.h"
#include "views/operator_ranking_view.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QTabWidget>

namespace npuscope {

void MainWindow::setupCompare()
{
    m_compareLoader = new LoadController(this);
    m_compareLoader->setObjectName(QStringLiteral("compareLoader"));
    connect(this, &MainWindow::sessionLoaded, this, [this] { m_ui->actionCompare->setEnabled(true); });
    connect(m_ui->actionCompare, &QAction::triggered, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Compare with (the optimized profile folder)"));
        if (!dir.isEmpty())
            compareWith(dir);
    });
    connect(m_cancel, &QPushButton::clicked, m_compareLoader, &LoadController::cancel);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (!m_compareComputing || !m_compareView)
            return;
        m_compareComputing = false;
        m_compareView->cancel();
        m_progress->setRange(0, 1000);
        if (!m_loader->busy() && !m_compareLoader->busy())
            onLoadEnded();
        statusBar()->showMessage(tr("Comparison cancelled."), 5000);
    });
    connect(m_compareLoader, &LoadController::started, this, [this](const QStringList& paths) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(0);
        m_progress->setFormat(tr("Loading…"));
        m_progress->show();
        m_cancel->show();
        statusBar()->showMessage(tr("Loading %1 to compare with the open profile").arg(paths.join(QStringLiteral(", "))));
    });
    connect(m_compareLoader, &LoadController::progress, this, &MainWindow::onLoadProgress);
    connect(m_compareLoader, &LoadController::finished, this,
            [this](SessionPtr s, const QStringList& paths, qint64) { onCompareLoaded(std::move(s), paths); });
    connect(m_compareLoader, &LoadController::failed, this, &MainWindow::onCompareFailed);
    connect(m_compareLoader, &LoadController::runsFound, this, [this](const QStringList& runs, const QStringList& paths) {
        onCompareFailed(tr("%1 unrelated runs found below it; compare with the folder of one run:\n%2")
                            .arg(runs.size())
                            .arg(runs.join(QLatin1Char('\n'))),
                        paths);
    });
    connect(m_compareLoader, &LoadController::cancelled, this, [this] {
        if (!m_loader->busy())
            onLoadEnded();
        m_compareBaseline.reset();
        statusBar()->showMessage(tr("Comparison cancelled."), 5000);
    });
}

void MainWindow::compareWith(const QString& path)
{
    if (m_compareComputing && m_compareView) { // a newer comparison replaces a running one
        m_compareComputing = false;
        m_compareView->cancel();
        m_progress->setRange(0, 1000);
    }
    const SessionPtr base = session();
    if (!base) {
        const QString msg = tr("Open the baseline profile first; %1 is compared against it.").arg(path);
        statusBar()->showMessage(msg, 10000);
        emit compareFailed(msg);
        return;
    }
    m_compareBaseline = base;
    m_compareBaselinePaths = m_paths;
    m_compareLoader->load({path});
}

void MainWindow::onCompareLoaded(SessionPtr session, const QStringList& paths)
{
    if (!m_loader->busy())
        onLoadEnded();
    if (!session || (session->ranks.empty() && !cluster_summary::isSummarySession(*session))) {
        onCompareFailed(tr("no profile found there"), paths);
        return;
    }
    if (!m_compareBaseline) { // the baseline went away meanwhile (cannot happen through the UI)
        onCompareFailed(tr("no baseline profile is open"), paths);
        return;
    }
    if (!m_compareView) {
        // The tab is added when the first result is shown (onCompareComputed).
        m_compareView = new CompareView(this);
        m_compareView->hide();
        // Double-click on an operator: show it in the ranking of the open (baseline) profile.
        connect(m_compareView, &CompareView::operatorActivated, this, [this](const QString& key, GroupBy g) {
            auto* ranking = findChild<OperatorRankingView*>();
            if (!ranking)
                return;
            ranking->setGroupBy(g);
            ranking->setFilterText(key);
            dock(QStringLiteral("operatorsDock"))->show();
            dock(QStringLiteral("operatorsDock"))->raise();
        });
        connect(m_compareView, &CompareView::resultReady, this, &MainWindow::onCompareComputed);
    }
    const QString basePaths = m_compareBaselinePaths.join(QStringLiteral(", "));
    m_compareComputing = true;
    m_progress->setRange(0, 0); // busy: the comparison reports no fraction
    m_progress->setFormat(tr("Comparing…"));
    m_progress->show();
    m_cancel->show();
    statusBar()->showMessage(tr("Comparing %1 (baseline) with %2…").arg(basePaths, paths.join(QStringLiteral(", "))));
    m_compareView->setProfiles(m_compareBaseline, basePaths, session, paths.join(QStringLiteral(", ")));
    m_compareBaseline.reset();
}

void MainWindow::onCompareComputed()
{
    if (!m_compareComputing)
        return; // a recomputation inside the tab (Swap, Match by, Tokens/step)
    m_compareComputing = false;
    m_progress->setRange(0, 1000);
    if (!m_loader->busy() && !m_compareLoader->busy())
        onLoadEnded();
    if (m_tabs->indexOf(m_compareView) < 0)
        addCentralTab(m_compareView, tr("Compare"));
    m_tabs->setCurrentWidget(m_compareView);
    statusBar()->showMessage(
        tr("Compared %1 (baseline) with %2").arg(m_compareView->baselinePath(), m_compareView->optimizedPath()), 5000);
    emit compareReady();
}

void MainWindow::onCompareFailed(const QString& error, const QStringList& paths)
{
    if (!m_loader->busy())
        onLoadEnded();
    m_compareBaseline.reset();
    const QString msg = tr("Could not load %1 to compare: %2").arg(paths.join(QStringLiteral(", ")), error);
    statusBar()->showMessage(msg, 10000);
    // Not modal to the application: the window stays usable, the message stays readable.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Compare failed"), msg, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("compareError"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setModal(false);
    box->show();
    emit compareFailed(msg);
}

} // namespace npuscope
