// The main window on real data, through the same path File → Open takes (MainWindow::openPaths
// -> LoadController on a worker thread): a two-rank torch_npu Level1 run.
#include "test_main.h"
#include "model/synth/synth.h"
#include "click_combo.h"
#include "views/advisor_panel.h"
#include "views/compare_view.h"
#include "views/load_controller.h"
#include "views/load_report_models.h"
#include "views/main_window.h"
#include "views/selection_controller.h"
#include "views/selection_panel.h"
#include "views/summary_strip.h"
#include "views/timeline_view.h"
#include "views/utilization_plots.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDirIterator>
#include <QDockWidget>
#include <QFile>
#include <QFrame>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QAbstractItemModelTester>
#include <QTreeView>
#include <QTreeWidget>

namespace test_main_window {

using namespace npuscope;

namespace {

const QString kLevel1 = QStringLiteral(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1");

// Chooses `text` in the window's rank selector as a person does: a click opens its list, a click
// on the item chooses it.
void chooseRank(MainWindow& w, const QString& text)
{
    QComboBox* combo = nullptr;
    for (QComboBox* c : w.findChildren<QComboBox*>())
        if (c->toolTip().startsWith(QStringLiteral("Which rank")))
            combo = c;
    testing::clickComboItem(combo, text);
}

bool openAndWait(MainWindow& w, const QString& path)
{
    QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
    w.openPaths({path});
    return loaded.wait(60000);
}

QString synthesize(const QTemporaryDir& dir, const char* name, const char* scenario, int ranks)
{
    synth::SynthOptions o;
    o.scenario = scenario;
    o.ranks = ranks;
    o.steps = 2;
    const QString out = dir.filePath(QString::fromLatin1(name));
    return synth::synthesize(out.toStdString(), o).ok ? out : QString();
}

// A writable copy of a sample folder (the samples are read-only).
bool copyTree(const QString& from, const QString& to)
{
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString src = it.next();
        const QString dst = to + src.mid(from.size());
        if (!QDir().mkpath(QFileInfo(dst).path()) || !QFile::copy(src, dst))
            return false;
    }
    return true;
}

int tabNamed(const MainWindow& w, const QString& title)
{
    for (int i = 0; i < w.tabs()->count(); ++i)
        if (w.tabs()->tabText(i) == title)
            return i;
    return -1;
}

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

        // The Python and CANN groups open collapsed (their call stacks would push the streams
        // below the fold): the X events of the other processes, 1217 per rank (python3 count of
        // ph == "X" outside the processes named Python and CANN).
        QCOMPARE(tl->visibleSliceCount(), std::size_t(1217 + 1217));
        // Every X event of both ranks is in some lane and intersects the full window:
        // 4384 + 4385 (python3 count of ph == "X" per trace_view.json).
        for (int g = 0; g < static_cast<int>(tl->layout().groups.size()); ++g)
            tl->setGroupCollapsed(g, false);
        QCOMPARE(tl->visibleSliceCount(), std::size_t(4384 + 4385));
        QVERIFY(tl->drawnItemCount() > 0);

        const QString status = w.statusText();
        QVERIFY2(status.contains(QStringLiteral(" events · ")), qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("loaded in ")), qPrintable(status));
        QCOMPARE(w.windowTitle(), QStringLiteral("level1 — npuscope"));

        // Rank selector: show rank 1 only.
        chooseRank(w, QStringLiteral("Rank 1"));
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(w.selection()->currentRank(), 1);
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
        chooseRank(w, QStringLiteral("Rank 0"));
        if (QTest::currentTestFailed())
            return;
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
        QHeaderView* header = filesView->header();
        QVERIFY(header->sectionsClickable());
        const QPoint bytesHeader(header->sectionViewportPosition(FilesModel::Bytes) + header->sectionSize(FilesModel::Bytes) / 2,
                                 header->height() / 2);
        const auto bytesAt = [&](int row) { return files->index(row, FilesModel::Bytes).data(FilesModel::SortRole).toULongLong(); };
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, bytesHeader);
        QCOMPARE(header->sortIndicatorSection(), int(FilesModel::Bytes));
        QCOMPARE(header->sortIndicatorOrder(), Qt::AscendingOrder);
        for (int i = 1; i < files->rowCount(); ++i)
            QVERIFY(bytesAt(i - 1) <= bytesAt(i));
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, bytesHeader);
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
        for (int i = 1; i < files->rowCount(); ++i)
            QVERIFY(bytesAt(i - 1) >= bytesAt(i));
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

    // Another profile opened after a comparison: the Compare tab goes, the window shows the new
    // profile's timeline, and neither the scroll position nor "Curves of:" comes along; both
    // come back with the profile they were set in.
    void resetOnOpen()
    {
        QTemporaryDir dir;
        const QString a = synthesize(dir, "a", "cluster-slowrank", 2);
        const QString b = synthesize(dir, "b", "llama2-optimized", 2);
        const QString c = synthesize(dir, "c", "llama2-baseline", 2);
        QVERIFY(!a.isEmpty() && !b.isEmpty() && !c.isEmpty());
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, a));
        QCOMPARE(w.session()->ranks.size(), std::size_t(2));
        w.plots()->setCurvesRank(1);
        QScrollBar* vb = w.timeline()->verticalScrollBar();
        QVERIFY2(vb->maximum() > 40, qPrintable(QString::number(vb->maximum())));
        vb->setValue(40);

        QSignalSpy compared(&w, &MainWindow::compareReady);
        w.compareWith(b);
        QVERIFY(compared.wait(60000));
        QVERIFY(w.compareView());
        QCOMPARE(w.tabs()->currentIndex(), tabNamed(w, QStringLiteral("Compare")));

        QVERIFY(openAndWait(w, c));
        QCOMPARE(w.session()->root, c.toStdString());
        QVERIFY(!w.compareView());
        QCOMPARE(tabNamed(w, QStringLiteral("Compare")), -1);
        QCOMPARE(w.tabs()->currentIndex(), 0);
        QCOMPARE(w.tabs()->tabText(0), QStringLiteral("Timeline"));
        QCOMPARE(w.plots()->curvesRank(), int(UtilizationPlots::kEveryRank));
        QCOMPARE(vb->value(), 0);

        QVERIFY(openAndWait(w, a));
        QCOMPARE(w.plots()->curvesRank(), 1);
        QCOMPARE(vb->value(), 40);
    }

    // A broken folder after a comparison: the open profile stays, its comparison goes, and the
    // window shows its timeline and the Problems dock.
    void brokenFolderLeavesCompare()
    {
        QTemporaryDir dir;
        const QString a = synthesize(dir, "a", "llama2-baseline", 1);
        const QString b = synthesize(dir, "b", "llama2-optimized", 1);
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("empty"))));
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(openAndWait(w, a));
        QSignalSpy compared(&w, &MainWindow::compareReady);
        w.compareWith(b);
        QVERIFY(compared.wait(60000));
        QSignalSpy failed(&w, &MainWindow::loadFailed);
        w.openPaths({dir.filePath(QStringLiteral("empty"))});
        QVERIFY(failed.wait(60000));
        QCOMPARE(w.session()->root, a.toStdString());
        QVERIFY(!w.compareView());
        QCOMPARE(tabNamed(w, QStringLiteral("Compare")), -1);
        QCOMPARE(w.tabs()->currentIndex(), 0);
    }

    // A copy of the real level-1 trace cut at byte 600000, inside the Python events and before
    // the Python process's metadata (byte 707136): python3's json.raw_decode over the bytes reads
    // 855 complete events, the next one starting at byte 599116.
    void bannerOnTruncation()
    {
        QTemporaryDir dir;
        const QString rank = dir.filePath(QStringLiteral("rank0_ascend_pt"));
        QVERIFY(copyTree(kLevel1 + QStringLiteral("/rank0_ascend_pt"), rank));
        QFile trace(rank + QStringLiteral("/ASCEND_PROFILER_OUTPUT/trace_view.json"));
        QVERIFY(trace.open(QIODevice::ReadWrite));
        QVERIFY(trace.resize(600000));
        trace.close();

        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(openAndWait(w, rank));
        QVERIFY(w.loadBanner()->isVisible());
        const QString text = w.loadBannerText();
        for (const char* part : {"The timeline was read only in part. ASCEND_PROFILER_OUTPUT/trace_view.json (0.6 MB): "
                                 "truncated: the event at byte 599116 is incomplete; 855 complete events kept.",
                                 "side files read whole"})
            QVERIFY2(text.contains(QString::fromLatin1(part)), qPrintable(text));
        // The side files the header's and the Advisor's step and operator numbers come from.
        const QString sides = w.loadBanner()->findChild<QLabel*>(QStringLiteral("loadBannerText"))->toolTip();
        for (const char* file : {"step_trace_time.csv", "kernel_details.csv", "op_statistic.csv"})
            QVERIFY2(sides.contains(QString::fromLatin1(file)), qPrintable(sides));

        // The two Python threads of the 855 events keep their names: their process is Python,
        // not "Process 3096504", though its process_name event came after the cut.
        const TimelineLayout& layout = w.timeline()->layout();
        QStringList groups;
        for (const LaneGroup& g : layout.groups)
            if (!g.rankHeader)
                groups << g.title;
        QCOMPARE(groups, QStringList{QStringLiteral("Python")});
        QCOMPARE(w.timeline()->laneNames(), (QStringList{"Thread 3096504", "Thread 3105075"}));
        QCOMPARE(w.timeline()->visibleSliceCount(), std::size_t(855));

        auto* problems = w.dock(QStringLiteral("problemsDock"));
        problems->hide();
        QTest::mouseClick(w.loadBanner()->findChild<QPushButton*>(QStringLiteral("loadBannerShowProblems")), Qt::LeftButton);
        QVERIFY(problems->isVisible());

        // A whole trace next: no banner.
        QVERIFY(openAndWait(w, kLevel1 + QStringLiteral("/rank0_ascend_pt")));
        QVERIFY(!w.loadBanner()->isVisible());
    }

    // W/S/A/D reach the timeline right after a profile opens, through whatever has the focus.
    void keysWorkRightAfterOpen()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        // The focus elsewhere, as a click in the Operators dock leaves it.
        auto* table = w.dock(QStringLiteral("operatorsDock"))->findChild<QAbstractItemView*>();
        QVERIFY(table);
        table->setFocus();
        QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(table));
        QVERIFY(openAndWait(w, kLevel1 + QStringLiteral("/rank0_ascend_pt")));
        // Still so once the advisor, run on a worker, has filled its panel.
        QTRY_VERIFY_WITH_TIMEOUT(w.findChild<AdvisorPanel*>()->report() != nullptr, 30000);
        QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(w.timeline()));
        const TimeRange full = w.selection()->visibleRange();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_W);
        const TimeRange zoomed = w.selection()->visibleRange();
        const TimeNs width = zoomed.end - zoomed.begin;
        QVERIFY2(std::llabs(width - std::llround(0.8 * static_cast<double>(full.end - full.begin))) <= 1,
                 qPrintable(QString::number(width)));
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_D);
        const TimeRange panned = w.selection()->visibleRange();
        QVERIFY(std::llabs(panned.begin - zoomed.begin - std::llround(0.1 * static_cast<double>(width))) <= 1);
        QCOMPARE(panned.end - panned.begin, width);
    }

    // The real level-1 sample at 1600×1000: rank 0's Python group (3 threads whose call stacks
    // take more rows than the timeline has height) would push the NPU streams below the fold;
    // it opens collapsed, with CANN, and Stream 0 is on screen. The device groups stay expanded.
    void hostGroupsStartCollapsed()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, kLevel1 + QStringLiteral("/rank0_ascend_pt")));
        const TimelineLayout& layout = w.timeline()->layout();
        int pythonRows = 0;
        for (const LaneGroup& g : layout.groups) {
            if (g.rankHeader)
                continue;
            const TrackKind kind = layout.lanes[static_cast<std::size_t>(g.lanes.front())].kind;
            if (kind == TrackKind::Python)
                for (int lane : g.lanes)
                    pythonRows += static_cast<int>(layout.lanes[static_cast<std::size_t>(lane)].levels.size());
            QCOMPARE(g.collapsed, kind == TrackKind::Python || kind == TrackKind::Cann);
        }
        QVERIFY2(pythonRows * TimelineView::kRowHeight > w.timeline()->contentRect().height(), qPrintable(QString::number(pythonRows)));
        bool streamDrawn = false;
        for (int lane : w.timeline()->drawnLanes())
            streamDrawn = streamDrawn || layout.lanes[static_cast<std::size_t>(lane)].name == QStringLiteral("Stream 0");
        QVERIFY(streamDrawn);
    }

    // The Selection panel's title keeps its height whatever it says, so the buttons and fields
    // under it stay where the mouse is: nothing selected (one sentence), a slice with a long
    // name (its name, then its track, start and duration), a range.
    void selectionTitleDoesNotMoveTheFields()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, kLevel1 + QStringLiteral("/rank0_ascend_pt")));
        SelectionPanel* panel = w.selectionPanel();
        auto* title = panel->findChild<QLabel*>(QStringLiteral("selectionTitle"));
        QVERIFY(title);
        QCoreApplication::processEvents();
        const int height = title->height();
        const int treeY = panel->tree()->y();
        const QStringList before = {panel->title()};
        // The slice with the longest name.
        const Profile& p = *w.session()->ranks[0];
        std::uint32_t longest = 0;
        for (std::uint32_t r = 0; r < p.slices.size(); ++r)
            if (p.str(p.slices.name[r]).size() > p.str(p.slices.name[longest]).size())
                longest = r;
        QVERIFY(p.str(p.slices.name[longest]).size() > 40);
        w.selection()->setSelectedTask(TaskRef{0, longest});
        QCoreApplication::processEvents();
        QVERIFY(panel->title() != before.front());
        QCOMPARE(title->height(), height);
        QCOMPARE(panel->tree()->y(), treeY);
        QCOMPARE(title->toolTip(), panel->title()); // the whole title, should it be cut
        w.selection()->setSelectedTask({});
        w.selection()->setSelectedRange(TimeRange{p.begin, p.begin + 1000000});
        QCoreApplication::processEvents();
        QCOMPARE(title->height(), height);
        QCOMPARE(panel->tree()->y(), treeY);
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

NPUSCOPE_TEST_MAIN(TestMainWindow)

} // namespace test_main_window

#include "test_main_window.moc"
