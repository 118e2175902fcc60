// The main window on real data, through the same path File → Open takes (MainWindow::openPaths
// -> LoadController on a worker thread): a two-rank torch_npu Level1 run.
#include "views/load_controller.h"
#include "views/load_report_models.h"
#include "views/main_window.h"
#include "views/selection_controller.h"
#include "views/summary_strip.h"
#include "views/timeline_view.h"
#include "views/utilization_plots.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QAbstractItemModelTester>
#include <QTreeView>

using namespace npuscope;

namespace {

const QString kLevel1 = QStringLiteral(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1");

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // QSettings of the test, not the user's
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_main_window"));
    }

    void choosesOneOfSeveralRuns()
    {
        // text/ holds three unrelated two-rank runs (level0, level1, level2): a chooser offers
        // them and the one picked opens as a cluster.
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        QSignalSpy runs(w.loader(), &LoadController::runsFound);
        w.openPaths({QStringLiteral(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text")});
        QVERIFY(runs.wait(60000));
        QDialog* dlg = nullptr;
        QTRY_VERIFY((dlg = w.findChild<QDialog*>(QStringLiteral("runChooser"))) != nullptr);
        auto* list = dlg->findChild<QListWidget*>(QStringLiteral("runList"));
        QVERIFY(list);
        QCOMPARE(list->count(), 3);
        for (int i = 0; i < 3; ++i) {
            const QString line = list->item(i)->text();
            QVERIFY2(line.startsWith(QStringLiteral("cluster (2 ranks, torch_npu), 2 ranks, ")), qPrintable(line));
            QVERIFY2(line.endsWith(QStringLiteral("/level%1").arg(i)), qPrintable(line));
        }
        QVERIFY(!w.session());
        // Pick level1 with the keyboard, open it with the Open button.
        list->setFocus();
        QTest::keyClick(list, Qt::Key_Down);
        QCOMPARE(list->currentRow(), 1);
        QPushButton* open = dlg->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Open);
        QTest::mouseClick(open, Qt::LeftButton);
        QVERIFY(loaded.wait(60000));
        QCOMPARE(w.session()->ranks.size(), std::size_t(2));
        QVERIFY(w.session()->root.ends_with("/level1"));
        QCOMPARE(w.session()->layout, std::string("cluster (2 ranks, torch_npu)"));
    }

    void opensLevel1Folder()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openPaths({kLevel1});
        QVERIFY(loaded.wait(60000));
        const SessionPtr s = w.session();
        QVERIFY(s);
        QCOMPARE(s->ranks.size(), std::size_t(2));

        // Lanes: every (pid, tid) with X events in trace_view.json, 24 per rank, counted with
        // python3 json.load over both trace_view.json files.
        TimelineView* tl = w.timeline();
        QCOMPARE(tl->laneCount(), 48);
        QStringList names = tl->laneNames();
        const QStringList rank0 = names.mid(0, 24);
        QStringList expected = {"Stream 0", "Stream 2", "Stream 3", "Stream 4",
                                "Thread 3096504", "Thread 3099702", "Thread 3099703", "Thread 3105075", // CANN
                                "Group 0 Communication", "Plane 0", "Plane 1", "Plane 2", "Plane 3", "Plane 4",
                                "Plane 5", "Plane 6", "Plane 7",
                                "Computing", "Communication", "Communication(Not Overlapped)", "Free",
                                "Thread 3096504", "Thread 3099702", "Thread 3105075"}; // Python
        QStringList sortedRank0 = rank0;
        sortedRank0.sort();
        expected.sort();
        QCOMPARE(sortedRank0, expected);
        // Python first, then CANN, Ascend Hardware, HCCL, Overlap Analysis.
        // 3 Python threads and 4 CANN threads come first.
        QCOMPARE(rank0.mid(7, 4), (QStringList{"Stream 0", "Stream 2", "Stream 3", "Stream 4"}));
        QCOMPARE(rank0.mid(11, 1), QStringList{"Group 0 Communication"});
        QCOMPARE(rank0.mid(20, 4), (QStringList{"Computing", "Communication", "Communication(Not Overlapped)", "Free"}));

        // Every X event of both ranks is in some lane and intersects the full window:
        // 4384 + 4385 (python3 count of ph == "X" per trace_view.json).
        QCOMPARE(tl->visibleSliceCount(), std::size_t(4384 + 4385));
        QVERIFY(tl->drawnItemCount() > 0);

        const QString status = w.statusText();
        QVERIFY2(status.contains(QStringLiteral(" events · ")), qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("loaded in ")), qPrintable(status));
        QCOMPARE(w.windowTitle(), QStringLiteral("level1 — npuscope"));

        // Rank selector: show rank 1 only.
        w.selection()->setCurrentRank(1);
        QCOMPARE(tl->visibleSliceCount(), std::size_t(4385));
    }

    // The strip above the timeline on a real msprof profile whose host ran 15.6 s before its one
    // kernel (96.2 µs, op_summary): the step is the device's work, as the advisor's, not the
    // Overlap Analysis lanes' span; a missing HBM number is a dash, not "– of peak".
    void summaryStripOnRealProfile()
    {
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openPaths({QStringLiteral(NPUSCOPE_SAMPLES "/ascend-msprof-skill/tests/fixtures/tilelang_design_feedback/"
                                    "candidate_comparability/workload_mismatch_candidate/reports/app/"
                                    "PROF_000001_20260606121448940_RGBHHJGBAJGRQEOB")});
        QVERIFY(loaded.wait(60000));
        auto* strip = w.findChild<SummaryStrip*>();
        QVERIFY(strip);
        // Computed on a worker: it says so until the numbers are in.
        QTRY_VERIFY_WITH_TIMEOUT(!strip->busy(), 30000);
        const QString t = strip->plainText();
        for (const char* part : {": step 96.2 µs (1 step)", "compute 100 %", "comm exposed 0 %", "free 0 %", "HBM –"})
            QVERIFY2(t.contains(QString::fromUtf8(part)), qPrintable(t));
        QVERIFY2(!t.contains(QStringLiteral("of peak")), qPrintable(t));

        w.openPaths({kLevel1});
        QVERIFY(loaded.wait(60000));
        w.selection()->setCurrentRank(0);
        QTRY_VERIFY_WITH_TIMEOUT(!strip->busy(), 30000);
        // rank 0's step_trace_time.csv: one step of 136.581 ms.
        QVERIFY2(strip->plainText().startsWith(QStringLiteral("Rank 0: step 137 ms (1 step)")), qPrintable(strip->plainText()));

        // Problems and Files name files below the opened folder as `info` does; the tooltip
        // has the whole path. level1, per rank: memory_record.csv's empty cells.
        auto* problemsView = w.findChild<QDockWidget*>(QStringLiteral("problemsDock"))->findChild<QTreeView*>();
        QVERIFY(problemsView && problemsView->model());
        const QAbstractItemModel* problems = problemsView->model();
        QAbstractItemModelTester problemsTester(const_cast<QAbstractItemModel*>(problems),
                                                QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(problems->rowCount(), 2);
        QCOMPARE(w.problemCount(), 2);
        QStringList shown;
        for (int i = 0; i < problems->rowCount(); ++i) {
            const QModelIndex file = problems->index(i, ProblemsModel::File);
            shown << file.data().toString();
            QCOMPARE(file.data(Qt::ToolTipRole).toString(), kLevel1 + QLatin1Char('/') + file.data().toString());
        }
        shown.sort();
        QStringList expected;
        for (const char* rank : {"rank0", "rank1"})
            expected << QStringLiteral("%1_ascend_pt/ASCEND_PROFILER_OUTPUT/memory_record.csv").arg(QLatin1String(rank));
        QCOMPARE(shown, expected);
        auto* filesView = w.findChild<QDockWidget*>(QStringLiteral("filesDock"))->findChild<QTreeView*>();
        QVERIFY(filesView && filesView->model());
        QAbstractItemModel* files = filesView->model();
        QAbstractItemModelTester filesTester(files, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(files->rowCount() > 0);
        for (int i = 0; i < files->rowCount(); ++i)
            QVERIFY2(!files->index(i, FilesModel::File).data().toString().startsWith(QLatin1Char('/')),
                     qPrintable(files->index(i, FilesModel::File).data().toString()));
        // Clicking the Bytes header sorts by size, largest first on the second click.
        filesView->sortByColumn(FilesModel::Bytes, Qt::DescendingOrder);
        for (int i = 1; i < files->rowCount(); ++i)
            QVERIFY(files->index(i - 1, FilesModel::Bytes).data(FilesModel::SortRole).toULongLong()
                    >= files->index(i, FilesModel::Bytes).data(FilesModel::SortRole).toULongLong());
    }

    void failedLoadKeepsSession()
    {
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openPaths({kLevel1 + QStringLiteral("/rank0_ascend_pt")});
        QVERIFY(loaded.wait(60000));
        const SessionPtr before = w.session();
        const int problems = w.problemCount();
        QSignalSpy failed(&w, &MainWindow::loadFailed);
        w.openPaths({QStringLiteral("/nonexistent/npuscope/path")});
        QVERIFY(failed.wait(60000));
        QCOMPARE(w.session(), before);
        // The open profile keeps its own problems; the failure is said in a notice.
        QCOMPARE(w.problemCount(), problems);
        QVERIFY(w.lastLoadError().contains(QStringLiteral("/nonexistent/npuscope/path")));
    }

    void docksAndContent()
    {
        MainWindow w;
        for (const char* name : {"advisorDock", "operatorsDock", "operatorDetailDock", "problemsDock", "filesDock", "selectionDock"})
            QVERIFY2(w.dock(QString::fromLatin1(name)), name);
        auto* label = new QLabel(QStringLiteral("ranking"));
        w.setDockContent(QStringLiteral("operatorsDock"), label);
        QCOMPARE(w.dock(QStringLiteral("operatorsDock"))->widget(), label);
        QCOMPARE(w.tabs()->tabText(0), QStringLiteral("Timeline"));
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
