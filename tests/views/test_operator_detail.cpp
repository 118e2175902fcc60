// The Operator detail beyond one rank's device tasks: "All ranks" on a generated 4-rank cluster
// (every rank's instances, counted as the ranking counts them), a collective and a host API on
// the real level-1 rank 0, the first click on a header, and the detail's histogram and
// instances in sight in the window at 1600×1000.
//
// Expected numbers of the real sample, from its trace_view.json and communication.json with
// python3: 4 "hcom_allReduce__586_*" slices on "Group 0 Communication", Σ dur 105991.878 µs;
// SDMA transit 427.596 MB in 27.3157 ms over the four ops (15.65 GB/s), the first op 28.647 MB in
// 1.81684 ms (15.77 GB/s); 71 "AscendCL@aclCreateTensorDesc" slices on the CANN threads.
// Set NPUSCOPE_SCREENSHOT_DIR to also save the window, the "All ranks", the collective and a tall
// detail as PNG there.
#include "test_main.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"
#include "views/format.h"
#include "views/main_window.h"
#include "views/operator_detail_view.h"
#include "views/operator_instance_model.h"
#include "views/operator_ranking_view.h"
#include "views/selection_controller.h"
#include "views/selection_panel.h"

#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QHeaderView>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>

namespace test_operator_detail {

using namespace npuscope;
using M = OperatorRankingModel;
using I = OperatorInstanceModel;

namespace {

const char* kRank0 = NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";

int proxyRowOf(const OperatorRankingView& v, const QString& key)
{
    for (int r = 0; r < v.proxy()->rowCount(); ++r)
        if (v.proxy()->index(r, 0).data(M::KeyRole).toString() == key)
            return r;
    return -1;
}

void clickRow(OperatorRankingView& v, const QString& key)
{
    const int row = proxyRowOf(v, key);
    QVERIFY2(row >= 0, qPrintable(key));
    v.tableView()->scrollTo(v.proxy()->index(row, 0));
    const QRect rect = v.tableView()->visualRect(v.proxy()->index(row, 0));
    QTest::mouseClick(v.tableView()->viewport(), Qt::LeftButton, {}, rect.center());
}

void clickHeader(QTableView* t, int section)
{
    QHeaderView* h = t->horizontalHeader();
    const int x = h->sectionViewportPosition(section) + h->sectionSize(section) / 2;
    QTest::mouseClick(h->viewport(), Qt::LeftButton, {}, QPoint(x, h->height() / 2));
}

} // namespace

class TestOperatorDetail : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    SessionPtr m_cluster, m_real;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_operator_detail"));
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 4;
        o.steps = 2;
        const synth::SynthResult r = synth::synthesize(m_dir.filePath(QStringLiteral("cluster")).toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
        const LoadResult c = loadSession(m_dir.filePath(QStringLiteral("cluster")).toStdString());
        QVERIFY2(c.session, c.error.c_str());
        QCOMPARE(c.session->ranks.size(), std::size_t(4));
        m_cluster = c.session;
        const LoadResult real = loadSession(kRank0);
        QVERIFY2(real.session, real.error.c_str());
        m_real = real.session;
    }

    // "All ranks": the detail lists every rank's instances, as many as the ranking counts.
    void allRanksDetailCountsEveryRank()
    {
        // Independently: MatMulV2 kernel rows of each rank.
        std::map<int, int> expected;
        int total = 0;
        for (const auto& p : m_cluster->ranks) {
            int n = 0;
            for (std::size_t r = 0; r < p->kernels.size(); ++r)
                n += p->str(p->kernels.type[r]) == "MatMulV2";
            expected[p->rank] = n;
            total += n;
        }
        QVERIFY(total > 0);

        SelectionController sel;
        sel.setSession(m_cluster);
        sel.setCurrentRank(-1);
        QSplitter host;
        auto* ranking = new OperatorRankingView(&sel, &host);
        auto* detail = new OperatorDetailView(&sel, &host);
        QAbstractItemModelTester tester(detail->instanceModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        host.resize(1400, 500);
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        clickRow(*ranking, QStringLiteral("MatMulV2"));
        QCOMPARE(sel.selectedOperator(), QStringLiteral("MatMulV2"));

        const int row = proxyRowOf(*ranking, QStringLiteral("MatMulV2"));
        QCOMPARE(ranking->proxy()->index(row, M::Count).data(M::RawValueRole).toULongLong(), qulonglong(total));
        QCOMPARE(detail->instanceCount(), total);
        QCOMPARE(detail->rankCount(), 4);
        QCOMPARE(detail->fieldText(QStringLiteral("count")), fmt::count(std::uint64_t(total)));
        QVERIFY2(detail->titleText().contains(QStringLiteral("all 4 ranks")), qPrintable(detail->titleText()));
        QVERIFY(!detail->titleText().contains(QStringLiteral("only")));
        // Each instance carries its rank, and each rank has its own count.
        QVERIFY(!detail->instanceTable()->isColumnHidden(I::Rank));
        std::map<int, int> perRank;
        for (int r = 0; r < detail->instanceProxy()->rowCount(); ++r)
            ++perRank[detail->instanceProxy()->index(r, I::Rank).data(I::RawValueRole).toInt()];
        QCOMPARE(perRank, expected);
        // The histogram counts them all too.
        double binned = 0;
        for (double c : detail->histogramCounts())
            binned += c;
        QCOMPARE(binned, double(total));
        const QString dir = qEnvironmentVariable("NPUSCOPE_SCREENSHOT_DIR");
        if (!dir.isEmpty())
            QVERIFY(host.grab().save(QDir(dir).filePath(QStringLiteral("operator-detail-all-ranks.png"))));

        // One rank chosen: that rank's instances only, without a rank column.
        sel.setCurrentRank(2);
        QCOMPARE(detail->instanceCount(), expected[m_cluster->ranks[2]->rank]);
        QVERIFY(detail->instanceTable()->isColumnHidden(I::Rank));
    }

    // The first click on a number puts the biggest first; on a name, A first.
    void firstClickOnANumberSortsDescending()
    {
        SelectionController sel;
        sel.setSession(m_real);
        QSplitter host;
        auto* ranking = new OperatorRankingView(&sel, &host);
        auto* detail = new OperatorDetailView(&sel, &host);
        host.resize(1400, 500);
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        QTableView* t = ranking->tableView();
        clickHeader(t, M::Name);
        QCOMPARE(t->horizontalHeader()->sortIndicatorSection(), int(M::Name));
        QCOMPARE(t->horizontalHeader()->sortIndicatorOrder(), Qt::AscendingOrder);
        clickHeader(t, M::Count);
        QCOMPARE(t->horizontalHeader()->sortIndicatorOrder(), Qt::DescendingOrder);
        // TransData: 57 rows, the most of any type in kernel_details.csv.
        QCOMPARE(ranking->proxy()->index(0, M::Name).data(M::KeyRole).toString(), QStringLiteral("TransData"));
        QCOMPARE(ranking->proxy()->index(0, M::Count).data(M::RawValueRole).toULongLong(), 57ull);
        clickHeader(t, M::Max);
        QCOMPARE(t->horizontalHeader()->sortIndicatorOrder(), Qt::DescendingOrder);
        // ForeachAddList has the longest instance, 706614 ns.
        QCOMPARE(ranking->proxy()->index(0, M::Max).data(M::RawValueRole).toDouble(), 706614.0);

        // Names elide in the middle, whole in the tooltip; every column can be resized.
        QCOMPARE(t->textElideMode(), Qt::ElideMiddle);
        QCOMPARE(t->horizontalHeader()->sectionResizeMode(M::Name), QHeaderView::Interactive);
        QVERIFY(ranking->proxy()->index(0, M::Name).data(Qt::ToolTipRole).toString().contains(QStringLiteral("ForeachAddList")));

        clickRow(*ranking, QStringLiteral("TransData"));
        QTableView* inst = detail->instanceTable();
        QCOMPARE(inst->textElideMode(), Qt::ElideMiddle);
        QCOMPARE(inst->horizontalHeader()->sectionResizeMode(I::Name), QHeaderView::Interactive);
        const QModelIndex name = detail->instanceProxy()->index(0, I::Name);
        QCOMPARE(name.data(Qt::ToolTipRole).toString(), name.data().toString());
        clickHeader(inst, I::Duration);
        QCOMPARE(inst->horizontalHeader()->sortIndicatorOrder(), Qt::DescendingOrder);
        // The longest of the 57 TransData rows first: 70801 ns (the detail's p99 in the real test).
        QCOMPARE(detail->instanceProxy()->index(0, I::Duration).data(I::RawValueRole).toLongLong(), 70801ll);
    }

    // A collective of the Communication ranking: its instances, durations and bandwidth.
    void collectiveDetailIsFilled()
    {
        SelectionController sel;
        sel.setSession(m_real);
        QSplitter host;
        auto* ranking = new OperatorRankingView(&sel, &host);
        auto* detail = new OperatorDetailView(&sel, &host);
        host.resize(1400, 500);
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        ranking->setPreset(RankingPreset::CommunicationDuration);
        clickRow(*ranking, QStringLiteral("hcom_allReduce"));
        QCOMPARE(sel.selectedOperator(), QStringLiteral("hcom_allReduce"));
        QCOMPARE(detail->kind(), DetailKind::Collective);
        const int row = proxyRowOf(*ranking, QStringLiteral("hcom_allReduce"));
        QCOMPARE(ranking->proxy()->index(row, M::Count).data(M::RawValueRole).toULongLong(), 4ull);
        QCOMPARE(detail->instanceCount(), 4);
        QCOMPARE(detail->fieldText(QStringLiteral("count")), QStringLiteral("4"));
        QCOMPARE(detail->fieldText(QStringLiteral("total")), QStringLiteral("106 ms"));
        QCOMPARE(detail->fieldText(QStringLiteral("max")), QStringLiteral("79.1 ms"));
        QCOMPARE(detail->fieldText(QStringLiteral("commVolume")), QStringLiteral("428 MB"));
        QCOMPARE(detail->fieldText(QStringLiteral("commBw")), QStringLiteral("15.7 GB/s"));
        QCOMPARE(detail->histogramCounts().size(), 2); // ceil(sqrt 4)
        QVERIFY(!detail->instanceTable()->isColumnHidden(I::Bandwidth));
        // Sorted by start: the first op, 28.647 MB in 1.81684 ms.
        const double bw = detail->instanceProxy()->index(0, I::Bandwidth).data(I::RawValueRole).toDouble();
        QVERIFY2(std::abs(bw - 28.647232 / 1.81683634375) < 1e-6, qPrintable(QString::number(bw)));
        QCOMPARE(detail->instanceProxy()->index(0, I::Name).data().toString(), QStringLiteral("hcom_allReduce__586_0_1"));
        QVERIFY(!detail->neighbourNames().isEmpty());
        QCoreApplication::processEvents(); // the form's rows were shown and hidden: laid out again
        const QString dir = qEnvironmentVariable("NPUSCOPE_SCREENSHOT_DIR");
        if (!dir.isEmpty())
            QVERIFY(host.grab().save(QDir(dir).filePath(QStringLiteral("operator-detail-collective.png"))));
    }

    // "Show all instances" on a CANN API call: its host calls, not "no device tasks".
    void hostApiListsItsCalls()
    {
        SelectionController sel;
        sel.setSession(m_real);
        OperatorDetailView detail(&sel);
        SelectionPanel panel(&sel);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        // Click one of its calls on a CANN thread, then "Show all instances".
        const Profile& p = *m_real->ranks.front();
        std::uint32_t call = kNone;
        for (std::uint32_t r = 0; r < p.slices.size() && call == kNone; ++r)
            if (p.str(p.slices.name[r]) == "AscendCL@aclCreateTensorDesc")
                call = r;
        QVERIFY(call != kNone);
        QCOMPARE(p.tracks[p.slices.track[call].v].kind, TrackKind::Cann);
        sel.setSelectedTask(TaskRef{0, call});
        auto* button = panel.findChild<QPushButton*>(QStringLiteral("showAllInstances"));
        QVERIFY(button && button->isEnabled());
        QSignalSpy requested(&panel, &SelectionPanel::showInstancesRequested);
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(requested.count(), 1);
        QCOMPARE(sel.selectedOperator(), QStringLiteral("AscendCL@aclCreateTensorDesc"));
        QCOMPARE(detail.kind(), DetailKind::Host);
        QCOMPARE(detail.instanceCount(), 71);
        QCOMPARE(detail.fieldText(QStringLiteral("count")), QStringLiteral("71"));
        QVERIFY2(detail.titleText().contains(QStringLiteral("host API")), qPrintable(detail.titleText()));
        QVERIFY(!detail.titleText().contains(QStringLiteral("no device tasks of")));
        TimeNs sum = 0;
        for (int r = 0; r < detail.instanceCount(); ++r) {
            const QModelIndex i = detail.instanceModel()->index(r, I::Name);
            QCOMPARE(i.data().toString(), QStringLiteral("AscendCL@aclCreateTensorDesc"));
            sum += detail.instanceModel()->index(r, I::Duration).data(I::RawValueRole).toLongLong();
        }
        QCOMPARE(detail.fieldText(QStringLiteral("total")), fmt::duration(double(sum)));
        // Nothing at all of that name: said so.
        sel.setSelectedOperator(QStringLiteral("no-such-operator"));
        QCOMPARE(detail.instanceCount(), 0);
    }

    // In the window at 1600×1000, the detail's histogram and instance rows are in sight.
    void histogramAndInstancesInSight()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openPaths({QString::fromLatin1(kRank0)});
        QVERIFY(loaded.wait(60000));
        w.selection()->setSelectedOperator(QStringLiteral("TransData"));
        QCoreApplication::processEvents();
        auto* detail = w.findChild<OperatorDetailView*>();
        QVERIFY(detail);
        QVERIFY(detail->isVisible());
        QCOMPARE(w.size(), QSize(1600, 1000));
        const QRect plot = detail->histogramPlot()->visibleRegion().boundingRect();
        QVERIFY2(plot.height() >= 80 && plot.width() >= 150,
                 qPrintable(QStringLiteral("histogram %1×%2").arg(plot.width()).arg(plot.height())));
        QTableView* table = detail->instanceTable();
        const QRect rows = table->viewport()->visibleRegion().boundingRect();
        const int rowHeight = table->verticalHeader()->defaultSectionSize();
        QVERIFY2(rows.height() >= 3 * rowHeight, qPrintable(QStringLiteral("instances %1 px high in a %2×%3 window").arg(rows.height()).arg(w.width()).arg(w.height())));
        QCOMPARE(detail->instanceCount(), 57);
        const QString dir = qEnvironmentVariable("NPUSCOPE_SCREENSHOT_DIR");
        if (!dir.isEmpty())
            QVERIFY(w.grab().save(QDir(dir).filePath(QStringLiteral("operator-detail.png"))));
    }

    // A tall, narrow detail (a dock beside the timeline) stacks the panes: all still in sight.
    void tallDetailStacksItsPanes()
    {
        SelectionController sel;
        sel.setSession(m_real);
        OperatorDetailView detail(&sel);
        detail.resize(480, 640);
        detail.show();
        QVERIFY(QTest::qWaitForWindowExposed(&detail));
        sel.setSelectedOperator(QStringLiteral("TransData"));
        QCoreApplication::processEvents();
        QCOMPARE(detail.findChild<QSplitter*>(QStringLiteral("splitter"))->orientation(), Qt::Vertical);
        const QRect plot = detail.histogramPlot()->visibleRegion().boundingRect();
        QVERIFY2(plot.height() >= 100 && plot.width() >= 300,
                 qPrintable(QStringLiteral("histogram %1×%2").arg(plot.width()).arg(plot.height())));
        QTableView* table = detail.instanceTable();
        QVERIFY(table->viewport()->visibleRegion().boundingRect().height() >= 3 * table->verticalHeader()->defaultSectionSize());
        const QString dir = qEnvironmentVariable("NPUSCOPE_SCREENSHOT_DIR");
        if (!dir.isEmpty())
            QVERIFY(detail.grab().save(QDir(dir).filePath(QStringLiteral("operator-detail-tall.png"))));
        detail.resize(1200, 300);
        QCoreApplication::processEvents();
        QCOMPARE(detail.findChild<QSplitter*>(QStringLiteral("splitter"))->orientation(), Qt::Horizontal);
    }
};

NPUSCOPE_TEST_MAIN(TestOperatorDetail)

} // namespace test_operator_detail

#include "test_operator_detail.moc"
