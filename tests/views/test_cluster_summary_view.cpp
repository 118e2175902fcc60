// A cluster summary in the real window: File -> Open of the summary shows the Cluster tab with
// every rank's breakdown from the file; double-clicking a rank opens its full folder when it is
// there, and says where it lives when it is not.
#include "test_main.h"
#include "../model/cli_run.h"

#include "views/cluster_models.h"
#include "views/cluster_view.h"
#include "views/compare_timelines.h"
#include "views/compare_view.h"
#include "views/main_window.h"
#include "views/overview_lanes.h"
#include "window_helpers.h"

#include <nlohmann/json.hpp>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>

namespace test_cluster_summary_view {

using namespace npuscope;
using testing::load;

namespace {

// The Cluster tab once its analysis (run on a worker) is shown; null when there is none.
ClusterView* clusterTab(MainWindow& w)
{
    ClusterView* v = w.clusterView();
    if (v && !QTest::qWaitFor([v] { return !v->analysing(); }, 60000))
        return nullptr;
    return v;
}

// The breakdown table's row of rank `rank`, or -1.
int rowOf(QTableView* t, int rank)
{
    for (int r = 0; r < t->model()->rowCount(); ++r)
        if (t->model()->index(r, 0).data(ClusterTableModel::RankRole).toInt() == rank)
            return r;
    return -1;
}

void doubleClickRow(QTableView* t, int row)
{
    const QRect rect = t->visualRect(t->model()->index(row, 0));
    // A double click counts on the item the press was on, as a user's does.
    QTest::mousePress(t->viewport(), Qt::LeftButton, {}, rect.center());
    QTest::mouseRelease(t->viewport(), Qt::LeftButton, {}, rect.center());
    QTest::mouseDClick(t->viewport(), Qt::LeftButton, {}, rect.center());
}

} // namespace

class TestClusterSummaryView : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_root, m_summary;
    nlohmann::json m_doc;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_cluster_summary_view"));
        QVERIFY(m_dir.isValid());
        m_root = m_dir.filePath("cluster");
        QCOMPARE(runCli({"synth", m_root, "--scenario", "cluster-slowrank", "--ranks", "4", "--steps", "2", "--quiet"}).code, 0);
        QVERIFY(QDir(m_root + "/cluster_analysis_output").removeRecursively());
        m_summary = m_dir.filePath("job.summary.json");
        const CliRun r = runCli({"cluster-summary", m_root, "-o", m_summary, "--quiet"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile f(m_summary);
        QVERIFY(f.open(QIODevice::ReadOnly));
        m_doc = nlohmann::json::parse(f.readAll().toStdString());
        QCOMPARE(m_doc["ranks"].size(), std::size_t(4));
    }

    void openSummaryThenARank()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(load(w, m_summary));
        QVERIFY(w.session());
        QCOMPARE(w.session()->ranks.size(), std::size_t(0)); // the folders are not read
        ClusterView* v = clusterTab(w);
        QVERIFY(v);
        QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(v)); // shown first
        QCoreApplication::processEvents();

        // Every rank's breakdown, as the summary gives it.
        QTableView* t = v->breakdownTable();
        QCOMPARE(t->model()->rowCount(), 4);
        for (const auto& r : m_doc["ranks"]) {
            const int rank = r["rank"].get<int>();
            const auto& b = *std::find_if(v->analysis().ranks.begin(), v->analysis().ranks.end(),
                                          [&](const RankBreakdown& x) { return x.rank == rank; });
            QVERIFY(std::abs(static_cast<double>(b.split.computing) - r["advisor_split"]["computing_ns"].get<double>()) <= 0.5);
            QCOMPARE(b.split.steps, r["advisor_split"]["steps"].get<int>());
        }
        // The planted slow rank (the last, 3) is named.
        QCOMPARE(v->analysis().slowRank.dimensions[0].slowRank, 3);
        QVERIFY(v->findingsText().contains(QStringLiteral("3")));

        // A rank whose folder is gone: the tab says where it lived.
        const std::string folder2 = m_doc["ranks"][2]["path"].get<std::string>();
        const QString moved = QString::fromStdString(folder2) + ".away";
        QVERIFY(QDir().rename(QString::fromStdString(folder2), moved));
        const int row2 = rowOf(t, 2);
        QVERIFY(row2 >= 0);
        doubleClickRow(t, row2);
        QVERIFY2(v->rankNote().contains(QString::fromStdString(folder2)), qPrintable(v->rankNote()));
        QVERIFY(v->rankNote().contains(QStringLiteral("does not reach")));
        QCOMPARE(w.session()->ranks.size(), std::size_t(0));
        QVERIFY(QDir().rename(moved, QString::fromStdString(folder2)));

        // A reachable rank: its full folder loads.
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        doubleClickRow(t, rowOf(t, 1));
        QVERIFY(loaded.wait(60000));
        QCOMPARE(w.session()->ranks.size(), std::size_t(1));
        QCOMPARE(w.session()->ranks[0]->rank, 1);
        // Its communication, summed per transport, is what the summary kept of it.
        std::map<std::string, double> mb;
        for (const auto& o : w.session()->ranks[0]->commOps)
            if (!o.totalInfo)
                for (const auto& b : o.bandwidth)
                    if (b.sizeMB > 0 && b.timeMs > 0)
                        mb[std::string(w.session()->ranks[0]->str(b.transport))] += b.sizeMB;
        QCOMPARE(mb.size(), m_doc["ranks"][1]["comm_transport"].size());
        for (const auto& t : m_doc["ranks"][1]["comm_transport"])
            QVERIFY(std::abs(mb.at(t["transport"].get<std::string>()) - t["size_mb"].get<double>()) <= 1e-9 * t["size_mb"].get<double>());
    }

    // Compare With… a summary: the cluster's folders against their own summary change nothing
    // (the slowest rank's mean step on both sides), the advisor diff reads the summary's stored
    // findings, and the Timelines page says the summary's timeline stays in its folders.
    void compareWithASummary()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(load(w, m_root));
        QCOMPARE(w.session()->ranks.size(), std::size_t(4));
        QSignalSpy ready(&w, &MainWindow::compareReady);
        QSignalSpy failed(&w, &MainWindow::compareFailed);
        w.compareWith(m_summary);
        QVERIFY(ready.wait(60000));
        QCOMPARE(failed.count(), 0);
        CompareView* v = w.compareView();
        QVERIFY(v);
        QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(v));
        const CompareResult& r = v->result();
        double slowestT = 0;
        for (const auto& rank : m_doc["ranks"])
            slowestT = std::max(slowestT, rank["advisor_split"]["T_ns"].get<double>());
        QVERIFY(!r.headline.empty());
        QCOMPARE(r.headline[0].metric, std::string("Step time"));
        QVERIFY2(std::abs(r.headline[0].current - slowestT / 1e6) < 1e-6, qPrintable(QString::number(r.headline[0].current)));
        QVERIFY(std::abs(r.headline[0].baseline - r.headline[0].current) < 1e-6 * r.headline[0].current);
        QVERIFY2(v->headerText().contains(QStringLiteral("Same speed 1.00×")) && !v->headerText().contains(QStringLiteral("slower")),
                 qPrintable(v->headerText()));
        QVERIFY(r.advisorCompared);
        bool clusterRemains = false;
        for (const AdvisorDiffRow& d : r.advisor)
            clusterRemains = clusterRemains || (d.change == FindingChange::Remaining && d.id.rfind("CLU-SLOWRANK", 0) == 0);
        QVERIFY(clusterRemains);
        // The summary's steps (their ranges from the rank's ProfilerStep spans) pair with the folder's.
        QVERIFY(v->timelines()->optimizedStepBox()->count() >= 2);
        QCOMPARE(v->timelines()->optimizedStepBox()->count(), v->timelines()->baselineStepBox()->count());
        QVERIFY(!v->timelines()->pairs().empty());
        bool said = false;
        for (const QLabel* l : v->timelines()->findChildren<QLabel*>())
            said = said || l->text().contains(QStringLiteral("cluster summary"));
        QVERIFY(said);
    }

    // The overview lanes: every rank's streams from the file, each lane's shading the mean of
    // its buckets (decoded here from the file's text), hover text, double click to open.
    void overviewLanesOfEveryRank()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(load(w, m_summary));
        ClusterView* v = clusterTab(w);
        QVERIFY(v);
        OverviewLanes* lanes = v->overviewLanes();
        QVERIFY(lanes);
        QVERIFY(lanes->isVisibleTo(v));
        QVERIFY(QTest::qWaitForWindowExposed(&w));

        int expected = 0;
        std::int64_t begin = 0, end = 0;
        bool first = true;
        for (const auto& r : m_doc["ranks"]) {
            const auto& ov = r["overview"];
            const std::int64_t b = ov["begin_ns"].get<std::int64_t>(), e = ov["end_ns"].get<std::int64_t>();
            begin = first ? b : std::min(begin, b);
            end = first ? e : std::max(end, e);
            first = false;
            for (const auto& st : ov["streams"]) {
                // The lane's mean busy share over its whole span, from the file's pairs.
                // One letter a bucket ('A' idle … 'y' saturated, steps of 20 ‰), then the run's length.
                const std::string levels = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxy";
                const std::string text = st["busy"].get<std::string>();
                double sum = 0;
                std::int64_t n = 0;
                for (std::size_t i = 0; i < text.size();) {
                    const double permille = 20.0 * static_cast<double>(levels.find(text[i++]));
                    std::int64_t run = 0;
                    while (i < text.size() && text[i] >= '0' && text[i] <= '9')
                        run = run * 10 + (text[i++] - '0');
                    run = std::max<std::int64_t>(run, 1);
                    sum += permille * static_cast<double>(run);
                    n += run;
                }
                QCOMPARE(n, ov["buckets"].get<std::int64_t>());
                QCOMPARE(lanes->laneLabel(expected),
                         QStringLiteral("rank %1 · %2").arg(r["rank"].get<int>()).arg(QString::fromStdString(st["thread"].get<std::string>())));
                const double share = lanes->busyShare(expected, b, e);
                QVERIFY2(std::abs(share - sum / 1000.0 / static_cast<double>(n)) < 1e-9, qPrintable(QString::number(share)));
                ++expected;
            }
        }
        QVERIFY(expected >= 4);
        QCOMPARE(lanes->laneCount(), expected);
        QCOMPARE(lanes->begin(), begin);
        QCOMPARE(lanes->end(), end);

        // A point on the second rank's first lane: its label, time and busy share.
        int lane = 0;
        while (lane < lanes->laneCount() && !lanes->laneLabel(lane).startsWith(QStringLiteral("rank 1 ")))
            ++lane;
        QVERIFY(lane < lanes->laneCount());
        const QPoint at(OverviewLanes::kLabelWidth + (lanes->viewport()->width() - OverviewLanes::kLabelWidth) / 2,
                        OverviewLanes::kAxisHeight + lane * OverviewLanes::kRowHeight + OverviewLanes::kRowHeight / 2);
        QCOMPARE(lanes->laneAt(at), lane);
        const QString tip = lanes->toolTipAt(at);
        QVERIFY2(tip.startsWith(lanes->laneLabel(lane)) && tip.contains(QStringLiteral("busy")), qPrintable(tip));

        // A double click on it opens rank 1's folder.
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        QTest::mouseDClick(lanes->viewport(), Qt::LeftButton, {}, at);
        QVERIFY(loaded.wait(60000));
        QCOMPARE(w.session()->ranks.size(), std::size_t(1));
        QCOMPARE(w.session()->ranks[0]->rank, 1);
    }
};

NPUSCOPE_TEST_MAIN(TestClusterSummaryView)

} // namespace test_cluster_summary_view

#include "test_cluster_summary_view.moc"
