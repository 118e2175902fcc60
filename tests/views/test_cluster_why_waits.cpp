// The Cluster tab's "Why it waits" pane on the real two-rank run: its rows are the model's late
// instances (collectives.h, checked against trace_view.json in tests/model/test_collectives),
// biggest wait first; "Raw clocks" recomputes without the offsets; a row opens the late rank's
// timeline at its window with the reason's slice selected (All ranks stays shown; a rank shown
// alone gives way to the late rank).
#include "test_main.h"
#include "model/formats/loader.h"
#include "views/cluster_models.h"
#include "views/cluster_view.h"
#include "views/selection_controller.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

namespace test_cluster_why_waits {

using namespace npuscope;

class TestClusterWhyWaits : public QObject {
    Q_OBJECT

private slots:
    void realTwoRanks()
    {
        const LoadResult lr = loadSession(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1");
        QVERIFY2(lr.session, lr.error.c_str());
        SelectionController sel;
        sel.setSession(lr.session);
        ClusterView view(&sel);
        QAbstractItemModelTester tester(view.whyWaitsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy ready(&view, &ClusterView::collectivesReady);
        view.setSession(lr.session);
        QVERIFY(ready.wait(20000));
        QVERIFY(!view.collectivesPending());

        const CollectivesResult want = analyzeCollectives(*lr.session);
        int late = 0;
        TimeNs biggest = 0;
        for (const CollectiveInstance& i : want.instances)
            if (i.lastRank >= 0) {
                ++late;
                biggest = std::max(biggest, i.waitCaused);
            }
        QVERIFY(late >= 1);
        WhyWaitsModel* m = view.whyWaitsModel();
        QCOMPARE(m->rowCount(), late);
        QCOMPARE(m->instance(0).waitCaused, biggest);
        QCOMPARE(m->index(0, WhyWaitsModel::LastRank).data(ClusterTableModel::RankRole).toInt(), m->instance(0).lastRank);
        QVERIFY(m->index(0, WhyWaitsModel::Reason).data().toString().startsWith("rank 1 arrived"));
        QVERIFY2(view.lateSummaryLabel()->text().contains("rank 1 caused"), qPrintable(view.lateSummaryLabel()->text()));

        // Opening a row: the late rank, its window and the reason's first slice.
        QSignalSpy timeline(&view, &ClusterView::timelineRequested);
        view.openWaitRow(0);
        QCOMPARE(timeline.count(), 1);
        const CollectiveInstance& top = m->instance(0);
        QCOMPARE(sel.currentRank(), -1);
        QVERIFY(sel.selectedRange().has_value());
        QCOMPARE(sel.selectedRange()->begin, top.windowBegin);
        QCOMPARE(sel.selectedRange()->end, top.windowEnd);
        QVERIFY(!top.causeSlices.empty());
        QCOMPARE(sel.selectedTask().slice, top.causeSlices.front());
        sel.setCurrentRank(top.lastRankIndex == 0 ? 1 : 0); // the other rank alone
        view.openWaitRow(0);
        QCOMPARE(sel.currentRank(), top.lastRankIndex);
        QCOMPARE(sel.selectedRange()->begin, top.windowBegin);

        // Raw clocks: the spread of the raw file times.
        ClockOptions raw;
        raw.raw = true;
        const CollectivesResult wantRaw = analyzeCollectives(*lr.session, raw);
        view.rawClocksCheck()->setChecked(true);
        QVERIFY(ready.wait(20000));
        TimeNs rawBiggest = 0;
        for (const CollectiveInstance& i : wantRaw.instances)
            if (i.lastRank >= 0)
                rawBiggest = std::max(rawBiggest, i.waitCaused);
        QCOMPARE(m->instance(0).waitCaused, rawBiggest);
        QVERIFY(view.lateSummaryLabel()->text().contains("raw clocks"));
    }
};

NPUSCOPE_TEST_MAIN(TestClusterWhyWaits)

} // namespace test_cluster_why_waits

#include "test_cluster_why_waits.moc"
