// The ranking and detail docks on a real torch_npu profile (msinsight level1 rank0).
// Expected numbers were computed independently from its kernel_details.csv with python3:
//   rows = csv.DictReader(open('kernel_details.csv'))
//   skip communication (Accelerator Core HCCL/COMMUNICATION or Type starting with "hcom"),
//   ns = int(Decimal(row['Duration(us)'].strip()) * 1000), grouped by row['Type'].
// Set NPUSCOPE_SCREENSHOT_DIR to also save both views as PNG there.
#include "test_main.h"
#include "model/formats/loader.h"
#include "views/operator_detail_view.h"
#include "views/operator_ranking_view.h"
#include "views/selection_controller.h"

#include <QDir>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTest>

namespace test_operator_views_real {

using namespace npuscope;
using M = OperatorRankingModel;

namespace {
const char* kRank0 = NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";
}

class TestOperatorViewsReal : public QObject {
    Q_OBJECT

    SessionPtr m_session;

    static int proxyRowOf(const OperatorRankingView& v, const QString& key)
    {
        for (int r = 0; r < v.proxy()->rowCount(); ++r)
            if (v.proxy()->index(r, 0).data(M::KeyRole).toString() == key)
                return r;
        return -1;
    }

private slots:
    void initTestCase()
    {
        const LoadResult r = loadSession(kRank0);
        QVERIFY2(r.session, r.error.c_str());
        QVERIFY(!r.session->ranks.empty());
        m_session = r.session;
    }

    void rankingMatchesKernelDetails()
    {
        SelectionController sel;
        sel.setSession(m_session);
        OperatorRankingView ranking(&sel);
        const auto* model = ranking.model();
        QCOMPARE(model->rowCount(), 33);               // distinct compute Types
        QCOMPARE(model->instanceCount(), 187ull);      // 191 rows minus 4 hcom_allReduce_
        QCOMPARE(model->stats().deviceTotal, TimeNs(8873737));
        // Top by total: ForeachAddList, 3 rows, 624152 + 628313 + 706614 ns.
        QCOMPARE(ranking.proxy()->index(0, 0).data(M::KeyRole).toString(), QStringLiteral("ForeachAddList"));
        QCOMPARE(ranking.proxy()->index(0, M::Count).data(M::RawValueRole).toULongLong(), 3ull);
        QCOMPARE(ranking.proxy()->index(0, M::Total).data(M::RawValueRole).toDouble(), 1959079.0);
        QCOMPARE(ranking.proxy()->index(0, M::Max).data(M::RawValueRole).toDouble(), 706614.0);
        const int td = proxyRowOf(ranking, QStringLiteral("TransData"));
        QCOMPARE(td, 1);
        QCOMPARE(ranking.proxy()->index(td, M::Count).data(M::RawValueRole).toULongLong(), 57ull);
        QCOMPARE(ranking.proxy()->index(td, M::Total).data(M::RawValueRole).toDouble(), 1423202.0);
        const int mm = proxyRowOf(ranking, QStringLiteral("MatMulV2"));
        QCOMPARE(ranking.proxy()->index(mm, M::Count).data(M::RawValueRole).toULongLong(), 8ull);
        QCOMPARE(ranking.proxy()->index(mm, M::Total).data(M::RawValueRole).toDouble(), 921498.0);
        QCOMPARE(ranking.proxy()->index(mm, M::Core).data(M::RawValueRole).toString(), QStringLiteral("AI_CORE"));
    }

    void detailOfTransData()
    {
        SelectionController sel;
        sel.setSession(m_session);
        QSplitter host;
        auto* ranking = new OperatorRankingView(&sel, &host);
        auto* detail = new OperatorDetailView(&sel, &host);
        host.resize(1500, 650);
        host.setSizes({620, 880});
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));

        const int td = proxyRowOf(*ranking, QStringLiteral("TransData"));
        const QRect rect = ranking->tableView()->visualRect(ranking->proxy()->index(td, M::Count));
        QTest::mouseClick(ranking->tableView()->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(sel.selectedOperator(), QStringLiteral("TransData"));
        QCOMPARE(detail->instanceCount(), 57);
        QCOMPARE(detail->fieldText(QStringLiteral("count")), QStringLiteral("57"));
        QCOMPARE(detail->fieldText(QStringLiteral("core")), QStringLiteral("AI_VECTOR_CORE"));
        // Nearest-rank percentiles of the 57 durations: 29th, 52nd, 57th smallest.
        QCOMPARE(detail->fieldText(QStringLiteral("p50")), QStringLiteral("21.4 µs"));
        QCOMPARE(detail->fieldText(QStringLiteral("p90")), QStringLiteral("43.5 µs"));
        QCOMPARE(detail->fieldText(QStringLiteral("p99")), QStringLiteral("70.8 µs"));
        // ceil(sqrt 57) = 8 bins over [6540, 70801] ns: bin = (d - 6540)·8 // 64261.
        QCOMPARE(detail->histogramCounts(), (QVector<double>{11, 20, 13, 6, 2, 4, 0, 1}));

        const QString dir = qEnvironmentVariable("NPUSCOPE_SCREENSHOT_DIR");
        if (!dir.isEmpty()) {
            QTest::qWait(50);
            QVERIFY(host.grab().save(QDir(dir).filePath(QStringLiteral("ranking.png"))));
        }
    }
};

NPUSCOPE_TEST_MAIN(TestOperatorViewsReal)

} // namespace test_operator_views_real

#include "test_operator_views_real.moc"
