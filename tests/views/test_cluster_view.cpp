// The Cluster tab in the real window: a generated four-rank cluster with a planted slow rank
// (3) and slow link (1 -> 2), numbers checked against the files the generator wrote; the
// tab's removal when a single rank is opened; the real two-rank run.
#include "test_main.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"
#include "views/cluster_models.h"
#include "views/cluster_view.h"
#include "views/main_window.h"
#include "views/selection_controller.h"
#include "window_helpers.h"

#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace test_cluster_view {

using namespace npuscope;
using testing::load;
using testing::rankCombo;

namespace {

const QString kLevel1 = QStringLiteral(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1");

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)}); }

// Mean Computing per rank (ns) from cluster_step_trace_time.csv.
// Per rank, the Computing of T's step (the median of the complete steps by Computing +
// Communication(Not Overlapped) + Free; of an even count, the two middle steps' mean in whole ns)
// from cluster_step_trace_time.csv's rank rows. The generated steps are whole: none is partial.
std::map<int, double> medianStepComputing(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    std::map<int, std::vector<std::pair<double, double>>> rows; // rank -> (step, computing)
    auto ns = [](const std::string& us) { return std::round(std::stod(us) * 1000.0); };
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string c;
        while (std::getline(ss, c, ','))
            f.push_back(c);
        if (f.size() > 7 && f[1] == "rank")
            rows[std::stoi(f[2])].push_back({ns(f[3]) + ns(f[4]) + ns(f[7]), ns(f[3])});
    }
    std::map<int, double> out;
    for (auto& [r, v] : rows) {
        std::sort(v.begin(), v.end());
        const std::size_t n = v.size();
        out[r] = n % 2 ? v[n / 2].second : std::floor((v[n / 2 - 1].second + v[n / 2].second) / 2);
    }
    return out;
}

// Σ Transit Size(MB) and Σ Transit Time(ms) of link src-dst in a cluster matrix file.
std::pair<double, double> linkSums(const std::string& path, const std::string& link)
{
    std::ifstream in(path);
    const auto j = nlohmann::json::parse(in);
    double mb = 0, ms = 0;
    for (const auto& [group, steps] : j.items())
        for (const auto& [step, ops] : steps.items())
            for (const auto& [op, links] : ops.items())
                if (links.contains(link)) {
                    mb += links[link]["Transit Size(MB)"].get<double>();
                    ms += links[link]["Transit Time(ms)"].get<double>();
                }
    return {mb, ms};
}

// The Cluster tab once its analysis (run on a worker) is shown; null when there is none.
ClusterView* clusterTab(MainWindow& w)
{
    ClusterView* v = w.clusterView();
    if (v && !QTest::qWaitFor([v] { return !v->analysing(); }, 60000))
        return nullptr;
    return v;
}

} // namespace

class TestClusterView : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string m_out;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_cluster_view"));
        QVERIFY(m_dir.isValid());
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 4;
        o.steps = 2;
        const synth::SynthResult r = synth::synthesize(m_dir.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
        m_out = m_dir.path().toStdString() + "/cluster_analysis_output";
    }

    // Showing the Cluster tab and choosing ranks in it (which rebuilds the utilisation plots)
    // prints no QCustomPlot complaint such as "Axis index out of bounds: 0".
    void noPlotWarnings()
    {
        static QStringList messages;
        messages.clear();
        const QtMessageHandler previous = qInstallMessageHandler([](QtMsgType, const QMessageLogContext&, const QString& m) {
            messages << m;
        });
        {
            MainWindow w;
            w.resize(1600, 1000);
            w.show();
            const bool loaded = load(w, m_dir.path());
            bool reloaded = false;
            ClusterView* v = clusterTab(w);
            if (loaded && v) {
                w.tabs()->setCurrentWidget(v);
                QCoreApplication::processEvents();
                for (int rank : {1, 3, 0}) { // as a click on a bar or a table row does
                    w.selection()->setCurrentRank(rank);
                    QCoreApplication::processEvents();
                }
                v->setSession(w.session()); // a refresh of the tab
                QCoreApplication::processEvents();
                reloaded = load(w, m_dir.path()); // and of everything
                QCoreApplication::processEvents();
            }
            qInstallMessageHandler(previous);
            QVERIFY(loaded);
            QVERIFY(v);
            QVERIFY(reloaded);
        }
        const QStringList axis = messages.filter(QStringLiteral("out of bounds"));
        QVERIFY2(axis.isEmpty(), qPrintable(axis.join(QLatin1Char('\n'))));
    }

    void generatedCluster()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(load(w, m_dir.path()));
        ClusterView* v = clusterTab(w);
        QVERIFY(v);
        w.tabs()->setCurrentWidget(v);

        // Findings: the planted slow rank and link.
        const QString findings = v->findingsText();
        // Rank 3 computes 25 % longer, more than the 5 % gap ratio of CLU-SLOWRANK (test_cluster
        // checks the numbers).
        const SlowRankResult& sr = v->analysis().slowRank;
        QVERIFY(sr.fired());
        QVERIFY2(findings.contains(QStringLiteral("Slow rank 3")), qPrintable(findings));
        QVERIFY2(findings.contains(QStringLiteral("Slow HCCS link on rank 1")), qPrintable(findings));
        QVERIFY2(findings.contains(QStringLiteral("1→2")), qPrintable(findings));

        // Breakdown table: 4 ranks, Computing (column 2) = that of the file's median step (T's).
        QTableView* t = v->breakdownTable();
        QAbstractItemModel* m = t->model();
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(m->rowCount(), 4);
        const auto comp = medianStepComputing(m_out + "/cluster_step_trace_time.csv");
        for (int row = 0; row < 4; ++row) {
            const int rank = m->index(row, 0).data(ClusterTableModel::RankRole).toInt();
            QVERIFY(near(m->index(row, RankBreakdownModel::Computing).data(ClusterTableModel::SortRole).toDouble(), comp.at(rank)));
        }
        QCOMPARE(m->index(3, 0).data(ClusterTableModel::RankRole).toInt(), 3); // rank order
        QCOMPARE(m->index(3, 0).data().toString(), sr.fired() ? QStringLiteral("3 (slow)") : QStringLiteral("3"));
        // Sortable: the first click on Computing's header puts the biggest first, the slow rank;
        // a second click reverses it. A cell's tooltip is its whole text.
        QHeaderView* header = t->horizontalHeader();
        const QPoint computingHeader(header->sectionViewportPosition(RankBreakdownModel::Computing) + 5, header->height() / 2);
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, computingHeader);
        QCOMPARE(header->sortIndicatorSection(), int(RankBreakdownModel::Computing));
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
        QCOMPARE(m->index(0, 0).data(ClusterTableModel::RankRole).toInt(), 3);
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, computingHeader);
        QCOMPARE(m->index(3, 0).data(ClusterTableModel::RankRole).toInt(), 3);
        QCOMPARE(m->index(0, RankBreakdownModel::Computing).data(Qt::ToolTipRole), m->index(0, RankBreakdownModel::Computing).data());
        QCOMPARE(m->headerData(0, Qt::Horizontal, Qt::InitialSortOrderRole).toInt(), int(Qt::AscendingOrder));

        // Stacked bars: five parts over four ranks; the parts sum to the step time.
        QCustomPlot* bars = v->barPlot();
        QCOMPARE(bars->plottableCount(), 5);
        double sum = 0;
        for (int i = 0; i < 5; ++i)
            sum += static_cast<QCPBars*>(bars->plottable(i))->data()->at(3)->value;
        QVERIFY(std::abs(sum * 1e6 - v->analysis().ranks[3].stepTime()) < 1e-3);

        // Matrix: bandwidth of 1 -> 2 as the file gives it, then its size after switching.
        QCOMPARE(v->collectiveCombo()->count(), 2); // All collectives, hcom_allReduce
        const auto [mb, ms] = linkSums(m_out + "/cluster_communication_matrix.json", "1-2");
        QVERIFY(mb > 0 && ms > 0);
        QCOMPARE(v->metricCombo()->currentIndex(), 0);
        QVERIFY(near(v->shownValue(1, 2), mb / ms));
        QVERIFY(near(v->colorMap()->data()->cell(2, 1), mb / ms)); // (x = dst, y = src)
        const auto [mb01, ms01] = linkSums(m_out + "/cluster_communication_matrix.json", "0-1");
        QVERIFY(near(v->shownValue(0, 1), mb01 / ms01));
        QVERIFY(v->shownValue(1, 2) < 0.8 * v->shownValue(0, 1)); // the slow link
        v->metricCombo()->setCurrentIndex(1); // Transit size (MB)
        QVERIFY(near(v->shownValue(1, 2), mb));
        v->metricCombo()->setCurrentIndex(2); // Transit time (ms)
        QVERIFY(near(v->shownValue(1, 2), ms));
        v->metricCombo()->setCurrentIndex(3); // Transport: LOCAL 0, HCCS 1
        QCOMPARE(v->shownValue(1, 2), 1.0);
        QCOMPARE(v->shownValue(2, 2), 0.0);
        v->metricCombo()->setCurrentIndex(0);
        v->collectiveCombo()->setCurrentIndex(1);
        QVERIFY(near(v->shownValue(1, 2), mb / ms)); // the only collective
        const QString tip = v->cellToolTip(1, 2);
        QVERIFY2(tip.contains(QStringLiteral("HCCS")) && tip.contains(QStringLiteral("Slow link")), qPrintable(tip));
        QVERIFY(!v->cellToolTip(0, 1).contains(QStringLiteral("Slow link")));

        // Overlap tables.
        QAbstractItemModelTester rankOverlapTester(v->rankOverlapTable()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester collOverlapTester(v->collectiveOverlapTable()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(v->rankOverlapTable()->model()->rowCount(), 4);
        QCOMPARE(v->collectiveOverlapTable()->model()->rowCount(), 1);
        QCOMPARE(v->collectiveOverlapTable()->model()->index(0, CollectiveOverlapModel::Collective).data().toString(),
                 QStringLiteral("hcom_allReduce"));

        // Clicking a rank row makes it the timeline's rank (index into Session::ranks).
        QTableView* ro = v->rankOverlapTable();
        int row2 = -1;
        for (int r = 0; r < ro->model()->rowCount(); ++r)
            if (ro->model()->index(r, 0).data(ClusterTableModel::RankRole).toInt() == 2)
                row2 = r;
        QVERIFY(row2 >= 0);
        QSignalSpy rankSpy(w.selection(), &SelectionController::currentRankChanged);
        const QRect cell = ro->visualRect(ro->model()->index(row2, RankOverlapModel::Collectives));
        QTest::mouseClick(ro->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(rankSpy.count(), 1);
        const int idx = w.selection()->currentRank();
        QVERIFY(idx >= 0);
        QCOMPARE(w.session()->ranks[static_cast<std::size_t>(idx)]->rank, 2);
        QComboBox* combo = rankCombo(w);
        QVERIFY(combo);
        QCOMPARE(combo->currentText(), QStringLiteral("Rank 2"));

        // Clicking rank 0's bar.
        bars->replot();
        const int x = static_cast<int>(bars->xAxis->coordToPixel(0));
        const int y = static_cast<int>(bars->yAxis->coordToPixel(v->analysis().ranks[0].stepTime() / 2e6));
        QTest::mouseClick(bars, Qt::LeftButton, {}, QPoint(x, y));
        QCOMPARE(w.session()->ranks[static_cast<std::size_t>(w.selection()->currentRank())]->rank, 0);
        QCOMPARE(combo->currentText(), QStringLiteral("Rank 0"));

        // A single rank: the tab goes away.
        QTemporaryDir one;
        synth::SynthOptions o;
        o.steps = 1;
        QVERIFY(synth::synthesize(one.path().toStdString(), o).ok);
        QVERIFY(load(w, one.path()));
        QVERIFY(!clusterTab(w));
        // And comes back on the cluster.
        QVERIFY(load(w, m_dir.path()));
        QVERIFY(clusterTab(w));
        QCOMPARE(clusterTab(w)->breakdownTable()->model()->rowCount(), 4);
    }

    // The matrix's colour scale is the data's own: on the slow-link cluster the slowest link
    // between ranks (from the file) is the scale's dark end and the fastest its bright end; on
    // a cluster whose links differ by under 5 % every link is one colour, with a note; a rank
    // never profiled is hatched, unlike any value.
    void matrixScale()
    {
        struct Link {
            double mb = 0, ms = 0;
            std::string transport;
        };
        auto linksOf = [](const std::string& path) {
            std::ifstream in(path);
            const auto j = nlohmann::json::parse(in);
            std::map<std::pair<int, int>, Link> out;
            for (const auto& [group, steps] : j.items())
                for (const auto& [step, ops] : steps.items())
                    for (const auto& [op, links] : ops.items())
                        for (const auto& [key, l] : links.items()) {
                            const auto dash = key.find('-');
                            Link& a = out[{std::stoi(key.substr(0, dash)), std::stoi(key.substr(dash + 1))}];
                            a.mb += l["Transit Size(MB)"].get<double>();
                            a.ms += l["Transit Time(ms)"].get<double>();
                            a.transport = l["Transport Type"].get<std::string>();
                        }
            return out;
        };
        auto show = [](ClusterView& v, const std::string& dir) {
            const LoadResult lr = loadSession(dir);
            if (!lr.session)
                return false;
            v.setSession(lr.session);
            return QTest::qWaitFor([&v] { return !v.analysing(); }, 60000);
        };
        const QColor darkEnd(0x44, 0x01, 0x54), brightEnd(0xfd, 0xe7, 0x25);

        ClusterView v(nullptr);
        v.resize(1400, 900);
        v.show();
        QVERIFY(show(v, m_dir.path().toStdString()));
        double lo = 1e300, hi = 0;
        std::pair<int, int> slowest, fastest;
        for (const auto& [link, l] : linksOf(m_out + "/cluster_communication_matrix.json")) {
            if (l.transport == "LOCAL")
                continue;
            const double bw = l.mb / l.ms;
            if (bw < lo)
                lo = bw, slowest = link;
            if (bw > hi)
                hi = bw, fastest = link;
        }
        QCOMPARE(slowest, std::make_pair(1, 2)); // the planted slow link
        const ClusterView::MatrixScale s = v.matrixScale();
        QVERIFY(near(s.lo, lo) && near(s.hi, hi));
        QVERIFY(!s.uniform);
        QCOMPARE(v.cellColour(slowest.first, slowest.second), darkEnd);
        QCOMPARE(v.cellColour(fastest.first, fastest.second), brightEnd);
        QVERIFY(v.matrixNote().contains(QStringLiteral("Hatched: no data")));
        QVERIFY(!v.matrixNote().contains(QStringLiteral("one colour")));
        QCOMPARE(v.matrixPlot()->axisRect()->backgroundBrush().style(), Qt::BDiagPattern);

        // The default scenario's links lie within 1 % of each other.
        QTemporaryDir flatDir;
        synth::SynthOptions o;
        o.ranks = 4;
        o.steps = 2;
        QVERIFY(synth::synthesize(flatDir.path().toStdString(), o).ok);
        QVERIFY(show(v, flatDir.path().toStdString()));
        lo = 1e300, hi = 0;
        const auto flat = linksOf(flatDir.path().toStdString() + "/cluster_analysis_output/cluster_communication_matrix.json");
        for (const auto& [link, l] : flat)
            if (l.transport != "LOCAL") {
                lo = std::min(lo, l.mb / l.ms);
                hi = std::max(hi, l.mb / l.ms);
            }
        QVERIFY(hi > lo && (hi - lo) < 0.05 * hi);
        QVERIFY(v.matrixScale().uniform);
        QVERIFY(near(v.matrixScale().lo, lo) && near(v.matrixScale().hi, hi));
        std::set<QRgb> colours;
        for (const auto& [link, l] : flat)
            colours.insert(v.cellColour(link.first, link.second).rgb());
        QCOMPARE(colours.size(), std::size_t(1));
        QVERIFY2(v.matrixNote().contains(QStringLiteral("drawn in one colour")), qPrintable(v.matrixNote()));

        // The real two-rank run's matrix names ranks 0 to 3; 2 and 3 were not profiled.
        QVERIFY(show(v, kLevel1.toStdString()));
        const int i = v.collectiveCombo()->findData(QStringLiteral("allreduce-top1"));
        QVERIFY(i > 0);
        v.collectiveCombo()->setCurrentIndex(i);
        QVERIFY(v.cellColour(0, 1).isValid());
        QVERIFY(!v.cellColour(2, 3).isValid());
        // Drawn: the empty cell shows the hatching (two colours), the filled one a single colour.
        QCustomPlot* plot = v.matrixPlot();
        plot->replot();
        const QImage img = plot->toPixmap().toImage();
        const auto& ranks = v.analysis().matrixRanks;
        auto coloursAt = [&](int src, int dst) {
            const int x = static_cast<int>(std::lower_bound(ranks.begin(), ranks.end(), dst) - ranks.begin());
            const int y = static_cast<int>(std::lower_bound(ranks.begin(), ranks.end(), src) - ranks.begin());
            const QPoint c(static_cast<int>(plot->xAxis->coordToPixel(x)), static_cast<int>(plot->yAxis->coordToPixel(y)));
            std::set<QRgb> seen;
            for (int dy = -6; dy <= 6; ++dy)
                for (int dx = -6; dx <= 6; ++dx)
                    seen.insert(img.pixel(c + QPoint(dx, dy)));
            return seen;
        };
        QCOMPARE(coloursAt(0, 1).size(), std::size_t(1));
        QVERIFY(coloursAt(2, 3).size() >= 2);
        QVERIFY(!coloursAt(2, 3).count(v.cellColour(0, 1).rgb()));
    }

    void realTwoRanks()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(load(w, kLevel1));
        ClusterView* v = clusterTab(w);
        QVERIFY(v);
        QCOMPARE(v->breakdownTable()->model()->rowCount(), 2);
        // rank 0 -> 1 of allreduce-top1 as communication_matrix.json writes it.
        const int i = v->collectiveCombo()->findData(QStringLiteral("allreduce-top1"));
        QVERIFY(i > 0);
        v->collectiveCombo()->setCurrentIndex(i);
        v->metricCombo()->setCurrentIndex(1);
        QCOMPARE(v->shownValue(0, 1), 37.781504);
        v->metricCombo()->setCurrentIndex(2);
        QCOMPARE(v->shownValue(0, 1), 2.153383);
        QVERIFY(std::isnan(v->shownValue(2, 3))); // rank 2 was not profiled
        auto* sources = v->findChild<QLabel*>(QStringLiteral("clusterSources"));
        QVERIFY(sources);
        QVERIFY2(!sources->text().contains(QStringLiteral("no rank id")), qPrintable(sources->text()));
    }

    // Two unrelated real captures opened together (msprof-analyze's test data): numbered in load
    // order, and the tab says so.
    void profilesWithoutRankIds()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        // Opened as two paths: their common folder holds two unrelated runs, which the window
        // offers one at a time.
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openPaths({QStringLiteral(NPUSCOPE_SAMPLES "/msprof-analyze/test/ut/advisor/timeline_advice"),
                     QStringLiteral(NPUSCOPE_SAMPLES "/msprof-analyze/test/ut/advisor/advisor_backend/compute_advice")});
        QVERIFY(loaded.wait(60000));
        ClusterView* v = clusterTab(w);
        QVERIFY(v);
        QCOMPARE(v->breakdownTable()->model()->rowCount(), 2);
        auto* sources = v->findChild<QLabel*>(QStringLiteral("clusterSources"));
        QVERIFY(sources);
        QVERIFY2(sources->text().contains(QStringLiteral("2 of 2 profiles have no rank id and are numbered in load order")),
                 qPrintable(sources->text()));
    }
};

NPUSCOPE_TEST_MAIN(TestClusterView)

} // namespace test_cluster_view

#include "test_cluster_view.moc"
