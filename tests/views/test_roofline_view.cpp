// The Roofline tab on the real level-1 rank, whose shape-based estimates put several points
// above their roof: those are drawn as crossed circles, never like measured points, the summary
// counts them and their tooltips say why; the names of the costliest points never overlap
// each other or another point, before and after a zoom.
#include "test_main.h"
#include "advisor/advisor.h"
#include "advisor/thresholds.h"
#include "model/formats/loader.h"
#include "views/roofline_view.h"
#include "views/selection_controller.h"

#include <QTest>
#include <qcustomplot.h>

#include <cmath>
#include <set>

namespace test_roofline_view {

using namespace npuscope;

namespace {

const std::string kRank0 = NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";

} // namespace

class TestRooflineView : public QObject {
    Q_OBJECT
    SessionPtr m_session;
    std::shared_ptr<const advisor::AdvisorReport> m_report;

    // Names placed: pairwise apart, inside the plot, and clear of every other point's marker
    // (its diameter 6 + 22 · √(time / the largest time) px, as the view draws it).
    void checkLabels(const RooflineView& view)
    {
        const auto& shown = view.shownPoints();
        const auto& rects = view.labelRects();
        const auto& owners = view.labelledPoints();
        QCOMPARE(rects.size(), owners.size());
        QCustomPlot* plot = view.plot();
        const QRectF area = plot->axisRect()->rect();
        double tMax = 0;
        for (const auto* p : shown)
            tMax = std::max(tMax, p->timeNs);
        std::set<int> named;
        for (std::size_t a = 0; a < rects.size(); ++a) {
            QVERIFY(area.contains(rects[a]));
            QVERIFY(named.insert(owners[a]).second);
            QVERIFY(owners[a] < 8);
            for (std::size_t b = a + 1; b < rects.size(); ++b)
                QVERIFY2(!rects[a].intersects(rects[b]), qPrintable(QStringLiteral("names %1 and %2 overlap").arg(a).arg(b)));
            for (std::size_t j = 0; j < shown.size(); ++j) {
                if (static_cast<int>(j) == owners[a])
                    continue;
                const QPointF c(plot->xAxis->coordToPixel(shown[j]->intensity), plot->yAxis->coordToPixel(shown[j]->achievedFlops / 1e12));
                const double r = (6 + 22 * std::sqrt(shown[j]->timeNs / tMax)) / 2;
                QVERIFY(!rects[a].intersects(QRectF(c - QPointF(r, r), QSizeF(2 * r, 2 * r))));
            }
        }
    }

private slots:
    void initTestCase()
    {
        const LoadResult lr = loadSession(kRank0);
        QVERIFY(lr.session);
        m_session = lr.session;
        m_report = std::make_shared<advisor::AdvisorReport>(advisor::runAdvisor(*m_session, advisor::Thresholds::load({})));
    }

    void aboveRoofIsFlagged()
    {
        SelectionController sel;
        sel.setSession(m_session);
        RooflineView view(&sel);
        view.resize(1600, 1000);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setReport(m_report);
        const auto& shown = view.shownPoints();
        QVERIFY(shown.size() >= 10);
        int above = 0;
        for (std::size_t i = 0; i < shown.size(); ++i) {
            auto* g = qobject_cast<QCPGraph*>(view.plot()->plottable(static_cast<int>(i) + 2)); // after the two roofs
            QVERIFY(g);
            QCOMPARE(g->data()->at(0)->key, shown[i]->intensity);
            const bool crossed = g->scatterStyle().shape() == QCPScatterStyle::ssCrossCircle;
            QCOMPARE(crossed, shown[i]->aboveRoof);
            QCOMPARE(g->scatterStyle().brush().style() == Qt::NoBrush, shown[i]->aboveRoof);
            const QString tip = view.pointToolTip(static_cast<int>(i));
            QCOMPARE(tip.contains(QStringLiteral("Not a real measurement")), shown[i]->aboveRoof);
            if (shown[i]->aboveRoof) {
                ++above;
                QVERIFY(tip.contains(QString::fromStdString(shown[i]->aboveRoofWhy).toHtmlEscaped()));
            }
        }
        QVERIFY(above >= 8);
        QVERIFY2(view.summaryText().contains(QStringLiteral("%1 above their roof").arg(above)), qPrintable(view.summaryText()));
        // One legend entry says what a crossed circle is.
        int legendAbove = 0;
        for (int k = 0; k < view.plot()->legend->itemCount(); ++k)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(view.plot()->legend->item(k)))
                legendAbove += item->plottable()->name().contains(QStringLiteral("above its roof"));
        QCOMPARE(legendAbove, 1);
    }

    void labelsNeverOverlap()
    {
        SelectionController sel;
        sel.setSession(m_session);
        RooflineView view(&sel);
        view.resize(1280, 720);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setReport(m_report);
        QVERIFY(view.labelRects().size() >= 3);
        checkLabels(view);
        // Zoomed out 30 times the points crowd together: names are thinned, never stacked.
        const std::size_t before = view.labelRects().size();
        QCustomPlot* plot = view.plot();
        plot->xAxis->scaleRange(30);
        plot->yAxis->scaleRange(30);
        QTRY_VERIFY(view.labelRects().size() < before);
        checkLabels(view);
        // A click on a name picks its point.
        const int owner = view.labelledPoints().front();
        QTest::mouseClick(plot, Qt::LeftButton, {}, view.labelRects().front().center().toPoint());
        QCOMPARE(sel.selectedOperator(), QString::fromStdString(view.shownPoints()[static_cast<std::size_t>(owner)]->opType));
    }
};

NPUSCOPE_TEST_MAIN(TestRooflineView)

} // namespace test_roofline_view

#include "test_roofline_view.moc"
