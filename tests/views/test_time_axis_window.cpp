// One time axis in the real window: every utilisation plot puts a time at the x where the
// timeline puts it (±1 px) at three zoom levels and two window widths; the legends stay in the
// gutter; W and S zoom about the mouse; --select and --zoom give the same view; the default
// layout leaves the timeline and its plots at least half the window; the plots follow the
// dark theme. On a generated llama2 decode profile (every utilisation series present).
#include "test_main.h"
#include "model/analysis/time_axis.h"
#include "model/synth/synth.h"
#include "views/main_window.h"
#include "views/selection_controller.h"
#include "views/theme.h"
#include "views/timeline_view.h"
#include "views/utilization_plots.h"
#include "window_helpers.h"

#include <QApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include <cmath>
#include <cstdlib>

namespace test_time_axis_window {

using namespace npuscope;
using testing::load;

namespace {

constexpr TimeNs kMs = 1'000'000;

// Lets queued layouts run, then lays the plots out now (a replot places their axes).
void settle(MainWindow& w)
{
    QApplication::processEvents();
    w.plots()->plot()->replot();
}

// Window x of time t on the timeline and on plot i.
double timelineX(MainWindow& w, TimeNs t)
{
    return w.timeline()->viewport()->mapTo(&w, QPointF(w.timeline()->xOf(t), 0)).x();
}
double plotX(MainWindow& w, int i, TimeNs t) { return w.plots()->mapTo(&w, QPointF(w.plots()->xOf(i, t), 0)).x(); }

} // namespace

class TestTimeAxisWindow : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_profile;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_time_axis_window"));
        QSettings().clear(); // the default layout, not one a previous run saved
        QVERIFY(m_dir.isValid());
        synth::SynthOptions o;
        o.steps = 2;
        const synth::SynthResult r = synth::synthesize(m_dir.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
        m_profile = QString::fromStdString(r.rankDirs.front());
    }

    void plotsShareTheTimelineAxis_data()
    {
        QTest::addColumn<int>("width");
        QTest::newRow("1600 px") << 1600;
        QTest::newRow("1100 px") << 1100;
    }
    void plotsShareTheTimelineAxis()
    {
        QFETCH(int, width);
        MainWindow w;
        w.resize(width, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(load(w, m_profile));
        SelectionController* sel = w.selection();
        UtilizationPlots* plots = w.plots();
        QVERIFY2(plots->plotCount() >= 4, qPrintable(plots->seriesNames().join(QLatin1Char(','))));
        const TimeRange full = sel->fullRange();
        const TimeNs length = full.end - full.begin;
        QVERIFY(length > 20 * kMs);
        // The whole trace, a tenth of it, and 20 µs.
        const std::vector<TimeRange> zooms = {
            full,
            {full.begin + length * 3 / 10, full.begin + length * 4 / 10},
            {full.begin + length * 6 / 10, full.begin + length * 6 / 10 + 20'000},
        };
        for (const TimeRange& zoom : zooms) {
            sel->setVisibleRange(zoom);
            QCOMPARE(sel->visibleRange(), zoom);
            settle(w);
            const TimeNs span = zoom.end - zoom.begin;
            for (double f : {0.0, 0.05, 0.37, 0.5, 0.81, 1.0}) {
                const TimeNs t = zoom.begin + static_cast<TimeNs>(static_cast<double>(span) * f);
                const double tx = timelineX(w, t);
                for (int i = 0; i < plots->plotCount(); ++i) {
                    const double px = plotX(w, i, t);
                    QVERIFY2(std::fabs(tx - px) <= 1.0, qPrintable(QStringLiteral("plot %1, window %2 ns, at %3: timeline x %4, plot x %5")
                                                                     .arg(i).arg(span).arg(f).arg(tx).arg(px)));
                }
            }
            // The axis rects span the timeline's slice area exactly, and no legend reaches
            // into them: legends live in the gutter.
            QCustomPlot* plot = plots->plot();
            const QRect cr = w.timeline()->contentRect();
            const int left = w.timeline()->viewport()->mapTo(&w, cr.topLeft()).x();
            for (int i = 0; i < plots->plotCount(); ++i) {
                QCPAxisRect* rect = plot->axisRect(i);
                QCOMPARE(plot->mapTo(&w, rect->topLeft()).x(), left);
                QCOMPARE(rect->width(), cr.width());
                for (int k = 0; k < rect->insetLayout()->elementCount(); ++k) {
                    auto* legend = qobject_cast<QCPLegend*>(rect->insetLayout()->elementAt(k));
                    QVERIFY(legend && legend->visible());
                    QVERIFY(legend->itemCount() >= 1);
                    QVERIFY2(legend->outerRect().right() < rect->left() - 20,
                             qPrintable(QStringLiteral("legend right %1, plot left %2").arg(legend->outerRect().right()).arg(rect->left())));
                    QVERIFY(legend->outerRect().left() >= 0);
                }
            }
            // The bottom axis ticks are the ruler's: multiples of its step, labelled alike.
            QCPAxis* axis = plot->axisRect(plots->plotCount() - 1)->axis(QCPAxis::atBottom);
            const TimeTicks ticks = timeTicks(zoom.begin - full.begin, zoom.end - full.begin, cr.width());
            const QVector<double> at = axis->tickVector();
            const QVector<QString> labels = axis->tickVectorLabels();
            QVERIFY(at.size() >= 2);
            for (qsizetype k = 0; k < at.size(); ++k) {
                const TimeNs offset = roundNs(at[k] * 1e6);
                QCOMPARE(offset % ticks.step, TimeNs(0));
                QCOMPARE(labels[k], QString::fromStdString(formatTimeOffset(offset, ticks.step, ticks.span)));
            }
            QVERIFY(!labels.front().contains(QStringLiteral("µs"))); // 10 ms and more: ms or s, even 20 µs wide
        }
    }

    void wZoomsAboutTheCursor()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(load(w, m_profile));
        SelectionController* sel = w.selection();
        TimelineView* tl = w.timeline();
        const TimeRange full = sel->fullRange();
        sel->setVisibleRange({full.begin + 5 * kMs, full.begin + 15 * kMs});
        const QRect cr = tl->contentRect();
        const QPoint at(cr.left() + cr.width() * 3 / 10, cr.top() + 30);
        QTest::mouseMove(tl->viewport(), at);
        const TimeNs under = tl->timeAt(at.x());
        const double nsPerPx = 10.0 * kMs / cr.width();
        tl->setFocus();
        QTest::keyClick(tl, Qt::Key_W);
        TimeRange v = sel->visibleRange();
        QCOMPARE(v.end - v.begin, TimeNs(8 * kMs));
        QVERIFY(std::fabs(static_cast<double>(tl->timeAt(at.x()) - under)) <= nsPerPx);
        QVERIFY(std::fabs(tl->xOf(under) - at.x()) <= 1.0);
        // The plots follow: the time under the cursor is still above it in every plot.
        settle(w);
        for (int i = 0; i < w.plots()->plotCount(); ++i)
            QVERIFY(std::fabs(plotX(w, i, under) - tl->viewport()->mapTo(&w, at).x()) <= 1.0);
        QTest::keyClick(tl, Qt::Key_W);
        QTest::keyClick(tl, Qt::Key_S);
        v = sel->visibleRange();
        QCOMPARE(v.end - v.begin, TimeNs(8 * kMs));
        QVERIFY(std::fabs(tl->xOf(under) - at.x()) <= 1.0);
        // Once the mouse has left, W zooms about the centre.
        QEvent leave(QEvent::Leave);
        QCoreApplication::sendEvent(tl->viewport(), &leave);
        const TimeNs centre = v.begin + (v.end - v.begin) / 2;
        QTest::keyClick(tl, Qt::Key_W);
        v = sel->visibleRange();
        QVERIFY(std::llabs(v.begin + (v.end - v.begin) / 2 - centre) <= 1);
        QCOMPARE(v.end - v.begin, TimeNs(6'400'000));
    }

    void selectAndZoomGiveTheSameView()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(load(w, m_profile));
        SelectionController* sel = w.selection();
        const TimeNs origin = sel->fullRange().begin;
        sel->selectOffsets(10 * kMs, 14 * kMs);
        QCOMPARE(sel->selectedRange(), std::optional<TimeRange>(TimeRange{origin + 10 * kMs, origin + 14 * kMs}));
        const TimeRange selected = sel->visibleRange();
        QCOMPARE(selected, (TimeRange{origin + 9'600'000, origin + 14'400'000}));
        QCOMPARE(w.timeline()->rangeLabel(), QStringLiteral("↔ 4.00 ms"));
        sel->clearSelection();
        sel->fitAll();
        QCOMPARE(w.timeline()->rangeLabel(), QString());
        sel->zoomToOffsets(9'600'000, 14'400'000);
        QCOMPARE(sel->visibleRange(), selected);
        QVERIFY(!sel->selectedRange());
    }

    void defaultLayoutLeavesTheTimelineHalf_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1600x1000") << QSize(1600, 1000);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void defaultLayoutLeavesTheTimelineHalf()
    {
        QFETCH(QSize, size);
        QSettings().clear();
        MainWindow w;
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(load(w, m_profile));
        settle(w);
        const int timeline = w.timeline()->height(), plots = w.plots()->height();
        QVERIFY2(2 * (timeline + plots) >= w.height(),
                 qPrintable(QStringLiteral("timeline %1 + plots %2 of %3").arg(timeline).arg(plots).arg(w.height())));
        QVERIFY2(timeline > plots, qPrintable(QStringLiteral("timeline %1, plots %2").arg(timeline).arg(plots)));
    }

    // The split between timeline and plots is remembered with the window's layout.
    void splitRemembered()
    {
        QSettings().clear();
        QList<int> sizes;
        {
            MainWindow w;
            w.resize(1600, 1000);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            auto* split = w.findChild<QSplitter*>(QStringLiteral("timelineSplitter"));
            QVERIFY(split);
            sizes = split->sizes();
            sizes[1] -= 100;
            sizes[2] += 100;
            split->setSizes(sizes);
            sizes = split->sizes();
            w.close();
        }
        MainWindow again;
        again.resize(1600, 1000);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        // The restored docks may leave the split a few pixels more or less: the share stays.
        const QList<int> now = again.findChild<QSplitter*>(QStringLiteral("timelineSplitter"))->sizes();
        const double before = double(sizes[2]) / (sizes[1] + sizes[2]), after = double(now[2]) / (now[1] + now[2]);
        QVERIFY2(std::fabs(before - after) < 0.02, qPrintable(QStringLiteral("plots' share %1 then %2").arg(before).arg(after)));
        QVERIFY(std::fabs(after - 1.0 / 3) > 0.05); // not the default split
    }

    void plotsFollowTheDarkTheme()
    {
        applyTheme(Theme::Dark);
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(load(w, m_profile));
        settle(w);
        const QImage img = w.plots()->plot()->toPixmap().toImage();
        // Most of the plots' pixels (backgrounds, gutter) are dark: sampled on a 20 × 10 grid.
        int dark = 0, samples = 0;
        for (int i = 0; i < 20; ++i)
            for (int j = 0; j < 10; ++j, ++samples)
                dark += img.pixelColor(img.width() * (2 * i + 1) / 40, img.height() * (2 * j + 1) / 20).lightnessF() < 0.3;
        QVERIFY2(dark * 10 >= samples * 8, qPrintable(QStringLiteral("%1 of %2 dark").arg(dark).arg(samples)));
        // Axis text: light.
        QVERIFY(w.plots()->plot()->axisRect(0)->axis(QCPAxis::atLeft)->tickLabelColor().lightnessF() > 0.7);
        applyTheme(Theme::Light);
    }
};

NPUSCOPE_TEST_MAIN(TestTimeAxisWindow)

} // namespace test_time_axis_window

#include "test_time_axis_window.moc"
