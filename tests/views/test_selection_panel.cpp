// The main window driven as a user would: a click on a timeline slice fills the Selection dock,
// its links and buttons lead on; "All ranks" on a generated 4-rank cluster aggregates every
// rank; search says "k of N"; a failed load says why and keeps the open profile.
#include "test_main.h"
#include "model/analysis/op_stats.h"
#include "model/analysis/summary.h"
#include "views/main_window.h"
#include "views/operator_ranking_view.h"
#include "views/selection_controller.h"
#include "views/selection_panel.h"
#include "views/summary_strip.h"
#include "views/format.h"
#include "views/time_format.h"
#include "views/timeline_view.h"
#include "views/utilization_plots.h"

#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

namespace test_selection_panel {

using namespace npuscope;

namespace {

const QString kRank0 = QStringLiteral(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");

bool openAndWait(MainWindow& w, const QStringList& paths)
{
    QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
    w.openPaths(paths);
    return loaded.wait(120000);
}

TimeNs traceStart(const Session& s)
{
    TimeNs b = std::numeric_limits<TimeNs>::max();
    for (const auto& p : s.ranks)
        if (p->end > p->begin)
            b = std::min(b, p->begin);
    return b;
}

QString msText(TimeNs rel) { return QString::number(static_cast<double>(rel) / 1e6, 'f', 3) + QStringLiteral(" ms"); }

QTreeWidgetItem* itemOf(QTreeWidget* tree, const QString& section, const QString& field)
{
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem* s = tree->topLevelItem(i);
        if (s->text(0) != section)
            continue;
        for (int c = 0; c < s->childCount(); ++c)
            if (s->child(c)->text(0) == field)
                return s->child(c);
    }
    return nullptr;
}

void clickItem(QTreeWidget* tree, QTreeWidgetItem* item)
{
    tree->scrollToItem(item);
    const QRect r = tree->visualItemRect(item);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, QPoint(r.left() + tree->columnWidth(0) + 20, r.center().y()));
}

} // namespace

class TestSelectionPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_selection_panel"));
    }

    void clickOnSliceFillsPanel()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, {kRank0}));
        const SessionPtr s = w.session();
        const Profile& p = *s->ranks[0];
        // The longest device task joined to a kernel row that has a task after it on its stream.
        std::uint32_t task = kNone;
        for (const Track& t : p.tracks) {
            if (t.kind != TrackKind::Stream)
                continue;
            for (std::uint32_t r = t.sliceBegin; r + 1 < t.sliceEnd; ++r)
                if (p.slices.kernel[r] != kNone && (task == kNone || p.slices.dur[r] > p.slices.dur[task]))
                    task = r;
        }
        QVERIFY(task != kNone);
        const TimeNs b = p.slices.start[task], d = p.slices.dur[task];
        w.selection()->setVisibleRange({b - d / 10, b + d + d / 10});
        TimelineView* tl = w.timeline();
        int lane = -1;
        for (std::size_t i = 0; i < tl->layout().lanes.size(); ++i)
            if (tl->layout().lanes[i].rank == 0 && tl->layout().lanes[i].track == p.slices.track[task])
                lane = static_cast<int>(i);
        QVERIFY(lane >= 0);
        QVERIFY(tl->ensureLaneVisible(lane));
        QCoreApplication::processEvents();
        // Click down the column at the task's middle until the click lands on it.
        const int x = static_cast<int>(std::lround(tl->xOf(b + d / 2)));
        bool hit = false;
        for (int y = TimelineView::kRulerHeight + 2; y < tl->viewport()->height() && !hit; y += TimelineView::kRowHeight / 2) {
            QTest::mouseClick(tl->viewport(), Qt::LeftButton, {}, QPoint(x, y));
            hit = w.selection()->selectedTask() == TaskRef{0, task};
        }
        QVERIFY2(hit, "no click landed on the task");

        SelectionPanel* panel = w.selectionPanel();
        QVERIFY(panel->isVisible());
        const std::uint32_t k = p.slices.kernel[task];
        const QString name = QString::fromUtf8(p.str(p.slices.name[task]));
        QCOMPARE(panel->fieldText(QStringLiteral("Name"), QStringLiteral("Slice")), name);
        QVERIFY(panel->title().contains(name.toHtmlEscaped()));
        QCOMPARE(panel->fieldText(QStringLiteral("Start"), QStringLiteral("Slice")), msText(b - traceStart(*s)));
        QCOMPARE(panel->fieldText(QStringLiteral("Duration"), QStringLiteral("Slice")),
                 QStringLiteral("%1 (%2 ns)").arg(fmt::duration(d)).arg(d));
        QCOMPARE(panel->fieldText(QStringLiteral("Self time"), QStringLiteral("Slice")),
                 QStringLiteral("%1 (%2 ns)").arg(fmt::duration(d)).arg(d)); // device tasks do not nest
        QVERIFY(panel->fieldText(QStringLiteral("Track"), QStringLiteral("Slice")).startsWith(QStringLiteral("Ascend Hardware · Stream")));
        QCOMPARE(panel->fieldText(QStringLiteral("Task Id"), QStringLiteral("Arguments")), QString::number(p.slices.taskId[task]));
        QCOMPARE(panel->fieldText(QStringLiteral("Type"), QStringLiteral("Kernel row")), QString::fromUtf8(p.str(p.kernels.type[k])));
        QCOMPARE(panel->fieldText(QStringLiteral("Input Shapes"), QStringLiteral("Kernel row")),
                 QString::fromUtf8(p.str(p.kernels.inputShapes[k])));
        QVERIFY(panel->sections().contains(QStringLiteral("Flows in")));
        QVERIFY(panel->sections().contains(QStringLiteral("Host op")));

        // A click on "Next" follows the stream to the next task.
        QTreeWidgetItem* next = itemOf(panel->tree(), QStringLiteral("On its stream"), QStringLiteral("Next"));
        QVERIFY(next);
        clickItem(panel->tree(), next);
        QCOMPARE(w.selection()->selectedTask(), (TaskRef{0, task + 1}));
        QCOMPARE(panel->fieldText(QStringLiteral("Name"), QStringLiteral("Slice")),
                 QString::fromUtf8(p.str(p.slices.name[task + 1])));

        // Back to the task, then "Reveal in ranking" selects its OP Type in the Operators dock.
        w.selection()->setSelectedTask({0, task});
        QTest::mouseClick(panel->rankingButton(), Qt::LeftButton);
        const QString type = QString::fromUtf8(p.str(p.kernels.type[k]));
        QCOMPARE(w.selection()->selectedOperator(), type);
        auto* ranking = w.dock(QStringLiteral("operatorsDock"))->findChild<OperatorRankingView*>();
        QVERIFY(ranking);
        QCOMPARE(ranking->tableView()->currentIndex().data(OperatorRankingModel::KeyRole).toString(), type);

        // A range: its duration shows in the panel.
        const TimeRange range{b, b + 2'500'000};
        w.selection()->setSelectedRange(range);
        QCOMPARE(panel->fieldText(QStringLiteral("Duration"), QStringLiteral("Range")),
                 QStringLiteral("%1 (%2 ns)").arg(fmt::duration(2'500'000)).arg(2'500'000));
        w.grab().save(QDir::temp().filePath(QStringLiteral("npuscope-selection-panel.png")));
    }

    // Arguments kept in the trace file (a large file's; forced here for the sample) show as
    // stored ones do; once the file changed, the panel says they were not read and why.
    void lazyArgumentsInThePanel()
    {
        QTemporaryDir dir;
        const std::string copy = dir.filePath(QStringLiteral("rank0_ascend_pt")).toStdString();
        std::filesystem::copy(kRank0.toStdString(), copy, std::filesystem::copy_options::recursive);
        qputenv("NPUSCOPE_LAZY_ARGS_FROM", "0");
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const bool opened = openAndWait(w, {QString::fromStdString(copy)});
        qunsetenv("NPUSCOPE_LAZY_ARGS_FROM");
        QVERIFY(opened);
        const Profile& p = *w.session()->ranks[0];
        QVERIFY(p.args.args.empty());
        QCOMPARE(p.args.files.size(), std::size_t(1));
        std::uint32_t op = kNone;
        std::string stack;
        for (std::uint32_t i = 0; i < p.slices.size() && op == kNone; ++i)
            if (stack = p.args.find(p.slices.args[i], "Call stack", p.strings); !stack.empty())
                op = i;
        QVERIFY(op != kNone);
        w.selection()->setSelectedTask({0, op});
        SelectionPanel* panel = w.selectionPanel();
        QCOMPARE(panel->fieldText(QStringLiteral("Call stack"), QStringLiteral("Arguments")), QString::fromStdString(stack));

        std::ofstream(p.args.files.front().path, std::ios::binary | std::ios::app) << "\n";
        w.selection()->setSelectedTask({0, op + 1});
        w.selection()->setSelectedTask({0, op});
        QVERIFY(panel->fieldText(QStringLiteral("Call stack"), QStringLiteral("Arguments")).isEmpty());
        const QString why = panel->fieldText(QStringLiteral("(not read)"), QStringLiteral("Arguments"));
        QVERIFY2(why.contains(QStringLiteral("trace_view.json changed after it was read")), qPrintable(why));
        w.grab().save(QDir::temp().filePath(QStringLiteral("npuscope-lazy-args.png")));
    }

    void allRanksAggregateEveryRank()
    {
        QTemporaryDir dir;
        QProcess synth;
        synth.start(QStringLiteral(NPUSCOPE_BINARY),
                    {QStringLiteral("synth"), dir.path(), QStringLiteral("--ranks"), QStringLiteral("4"),
                     QStringLiteral("--scenario"), QStringLiteral("cluster-slowrank"), QStringLiteral("--steps"),
                     QStringLiteral("1"), QStringLiteral("--quiet")});
        QVERIFY(synth.waitForFinished(120000));
        QVERIFY2(synth.exitCode() == 0, synth.readAllStandardError().constData());

        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(openAndWait(w, {dir.path()}));
        const SessionPtr s = w.session();
        QCOMPARE(s->ranks.size(), std::size_t(4));
        // Choose "All ranks" in the toolbar's combo, as a user would.
        QComboBox* combo = nullptr;
        for (auto* c : w.findChildren<QComboBox*>())
            if (c->findText(QStringLiteral("All ranks")) >= 0)
                combo = c;
        QVERIFY(combo);
        w.selection()->setCurrentRank(1);
        QTest::keyClick(combo, Qt::Key_Home);
        QCOMPARE(combo->currentText(), QStringLiteral("All ranks"));
        QCOMPARE(w.selection()->currentRank(), -1);

        auto* ranking = w.dock(QStringLiteral("operatorsDock"))->findChild<OperatorRankingView*>();
        OperatorRankingModel* m = ranking->model();
        QVERIFY(m->aggregated());
        QVERIFY(ranking->headerText().contains(QStringLiteral("all 4 ranks")));
        // Independently: each rank's kernel rows (no communication), grouped by OP Type.
        std::map<QString, std::vector<TimeNs>> durations;
        for (const auto& p : s->ranks) {
            const KernelTable& kt = p->kernels;
            for (std::size_t r = 0; r < kt.size(); ++r) {
                const auto type = p->str(kt.type[r]);
                if (isCommunicationTask(p->str(kt.taskType[r]), type.empty() ? p->str(kt.name[r]) : type))
                    continue;
                durations[QString::fromUtf8(type)].push_back(kt.dur[r]);
            }
        }
        QVERIFY(durations.size() > 3);
        QCOMPARE(m->rowCount(), static_cast<int>(durations.size()));
        std::uint64_t instances = 0;
        for (auto& [key, ds] : durations) {
            const int row = m->rowForKey(key);
            QVERIFY2(row >= 0, qPrintable(key));
            const OpGroupStats* g = m->groupAt(row);
            std::sort(ds.begin(), ds.end());
            TimeNs total = 0;
            for (TimeNs x : ds)
                total += x;
            QCOMPARE(g->count, static_cast<std::uint64_t>(ds.size()));
            QCOMPARE(g->total, total);
            const auto nearest = [&sorted = ds](double pct) { // clang before 16 captures no structured binding
                const auto r = std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(pct / 100 * double(sorted.size()))), 1, sorted.size());
                return sorted[r - 1];
            };
            QCOMPARE(g->p50, nearest(50));
            QCOMPARE(g->p99, nearest(99));
            QCOMPARE(g->max, ds.back());
            instances += ds.size();
        }
        QCOMPARE(m->instanceCount(), instances);

        // The summary strip: step time min / median / max over the ranks.
        std::vector<TimeNs> steps;
        for (const auto& p : s->ranks)
            steps.push_back(computeSummary(*p).step.stepTime);
        std::sort(steps.begin(), steps.end());
        QTRY_VERIFY_WITH_TIMEOUT(!w.summary()->busy(), 30000);
        const QString strip = w.summary()->plainText();
        QVERIFY2(strip.startsWith(QStringLiteral("All 4 ranks (min / median / max): step %1 / %2 / %3")
                                      .arg(fmt::duration(steps[0]), fmt::duration(roundNs((steps[1] + steps[2]) / 2.0)),
                                           fmt::duration(steps[3]))),
                 qPrintable(strip));
        // The plots say whose curves they draw: rank 1's, chosen before All ranks was.
        QCOMPARE(w.plots()->rankNote(), QStringLiteral("Curves of rank 1 only; the rest of the window shows all ranks"));

        // One rank chosen: the ranking is that rank's alone.
        w.selection()->setCurrentRank(2);
        QVERIFY(!m->aggregated());
        QVERIFY(ranking->headerText().contains(QStringLiteral("rank 2")));
        QTRY_VERIFY_WITH_TIMEOUT(!w.summary()->busy(), 30000);
        QVERIFY(w.summary()->plainText().startsWith(QStringLiteral("Rank 2")));
        w.selection()->setCurrentRank(-1);
        w.grab().save(QDir::temp().filePath(QStringLiteral("npuscope-all-ranks.png")));
    }

    void searchSaysKofN()
    {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, {kRank0}));
        const Profile& p = *w.session()->ranks[0];
        // Slices whose name contains "matmul" (any case), or whose kernel row's OP Type does.
        auto has = [](std::string_view v) {
            return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size())).contains(QStringLiteral("matmul"), Qt::CaseInsensitive);
        };
        int n = 0;
        for (const Track& t : p.tracks)
            for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r) {
                const std::uint32_t k = p.slices.kernel[r];
                n += has(p.str(p.slices.name[r])) || (k != kNone && has(p.str(p.kernels.type[k])));
            }
        QVERIFY(n > 2);
        auto* box = w.findChild<QLineEdit*>(QStringLiteral("searchBox"));
        auto* label = w.findChild<QLabel*>(QStringLiteral("searchMatches"));
        QVERIFY(box && label);
        QTest::keyClicks(box, QStringLiteral("MatMul"));
        QCOMPARE(label->text().trimmed(), QStringLiteral("%1 matches").arg(n));
        QTest::keyClick(box, Qt::Key_Return);
        QCOMPARE(label->text().trimmed(), QStringLiteral("1 of %1").arg(n));
        QTest::keyClick(box, Qt::Key_Return);
        QCOMPARE(label->text().trimmed(), QStringLiteral("2 of %1").arg(n));
        QVERIFY(w.selection()->selectedTask().valid());
    }

    // A generic Chrome trace (no device tasks): the Operators dock ranks slices by name.
    void chromeTraceRankedByName()
    {
        const QString path = QStringLiteral(NPUSCOPE_SAMPLES "/chrome-trace/catapult/tracing/test_data/big_trace.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        // Independently: B/E pairs per thread (the file has no other phases).
        std::map<QString, std::pair<std::uint64_t, std::int64_t>> byName; // count, Σ dur ns
        std::map<std::pair<qint64, qint64>, std::vector<std::pair<QString, std::int64_t>>> open;
        for (const QJsonValue v : QJsonDocument::fromJson(f.readAll()).array()) {
            const QJsonObject e = v.toObject();
            auto& st = open[{e[QStringLiteral("pid")].toInteger(), e[QStringLiteral("tid")].toInteger()}];
            const std::int64_t ts = e[QStringLiteral("ts")].toInteger() * 1000;
            if (e[QStringLiteral("ph")].toString() == QStringLiteral("B")) {
                st.emplace_back(e[QStringLiteral("name")].toString(), ts);
            } else if (!st.empty()) {
                auto& agg = byName[st.back().first];
                ++agg.first;
                agg.second += ts - st.back().second;
                st.pop_back();
            }
        }
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, {path}));
        auto* ranking = w.dock(QStringLiteral("operatorsDock"))->findChild<OperatorRankingView*>();
        OperatorRankingModel* m = ranking->model();
        QVERIFY(m->stats().genericSlices);
        QVERIFY(ranking->headerText().startsWith(QStringLiteral("All slices by name")));
        QCOMPARE(m->rowCount(), static_cast<int>(byName.size()));
        for (const auto& [name, agg] : byName) {
            const int row = m->rowForKey(name);
            QVERIFY2(row >= 0, qPrintable(name));
            QCOMPARE(m->groupAt(row)->count, agg.first);
            QCOMPARE(m->groupAt(row)->total, agg.second);
        }
        QVERIFY(!ranking->tableView()->isColumnHidden(OperatorRankingModel::Self));
        QVERIFY(ranking->tableView()->isColumnHidden(OperatorRankingModel::AicUtil));
    }

    void failedLoadSaysWhyAndKeepsProfile()
    {
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, {kRank0}));
        const SessionPtr before = w.session();
        const int problems = w.problemCount();
        const QString status = w.statusText();
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("broken_trace.json"));
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("this is not a profile");
        }
        QSignalSpy failed(&w, &MainWindow::loadFailed);
        w.openPaths({bad});
        QVERIFY(failed.wait(60000));
        const QString reason = failed.first().first().toString();
        QVERIFY(!reason.isEmpty());
        auto* notice = w.findChild<QMessageBox*>(QStringLiteral("loadErrorNotice"));
        QVERIFY(notice);
        QVERIFY(notice->isVisible());
        QVERIFY2(notice->text().contains(bad), qPrintable(notice->text()));
        QVERIFY2(notice->text().contains(reason), qPrintable(notice->text()));
        QVERIFY(notice->text().contains(QStringLiteral("stays open")));
        // The open profile, its problems and the status line are those from before.
        QCOMPARE(w.session(), before);
        QCOMPARE(w.problemCount(), problems);
        QCOMPARE(w.statusText(), status);
        QVERIFY(w.dock(QStringLiteral("problemsDock"))->windowTitle().contains(QStringLiteral("(%1)").arg(problems)));
        notice->close();
    }
};

NPUSCOPE_TEST_MAIN(TestSelectionPanel)

} // namespace test_selection_panel

#include "test_selection_panel.moc"
