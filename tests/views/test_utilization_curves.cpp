// The utilisation plots of the real window on a generated 4-rank cluster: "Curves of:" draws one
// curve per rank (equal to the model's utilizationSeries of each rank, read for the visible
// window) or one rank's curves, and follows the toolbar; each plot can be hidden from its
// right-click menu or View → Curves, the others keep the timeline's time axis (±1 px), a new
// window starts with it hidden, and Reset Layout shows every plot again.
// On the real level-1 sample, the curves follow the zoom: at three zooms every bin is at most two
// pixels of time wide (exact task edges when zoomed in), a kernel's utilisation there equals what
// its rows say, and its step starts at the kernel; a range selection shades every plot; the time
// axis has its ticks from the first replot.
#include "test_main.h"
#include "model/analysis/op_stats.h"
#include "model/analysis/time_axis.h"
#include "model/analysis/utilization.h"
#include "model/synth/synth.h"
#include "views/main_window.h"
#include "views/selection_controller.h"
#include "views/timeline_view.h"
#include "views/utilization_plots.h"
#include "window_helpers.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include <cmath>
#include <set>

namespace test_utilization_curves {

using namespace npuscope;
using testing::load;

namespace {

void settle(MainWindow& w)
{
    QApplication::processEvents();
    w.plots()->plot()->replot();
}

// The toolbar's rank combo (the one offering "All ranks").
QComboBox* toolbarRanks(MainWindow& w)
{
    for (auto* c : w.findChildren<QComboBox*>())
        if (c->findText(QStringLiteral("All ranks")) >= 0)
            return c;
    return nullptr;
}

// A rank's AI Core utilisation series as the model computes it.
const Series* aicSeries(const std::vector<Series>& all)
{
    for (const Series& s : all)
        if (s.name.starts_with("AI Core utilization") && !s.t.empty())
            return &s;
    return nullptr;
}

// The graph's samples are the series' over the visible window, at the plots' bin width (a few of
// them compared): x in ms since the trace start, y in % of the plot.
void compareCurve(const QCPGraph* g, const Series& s, TimeNs origin, const UtilizationPlots* plots, TimeRange visible)
{
    QVERIFY(s.pyramid);
    const CurveWindow w = s.pyramid->window(s.quantity, visible.begin, visible.end, plots->curveMaxBinNs());
    const auto data = g->data();
    QCOMPARE(data->size(), static_cast<int>(w.t.size()));
    const double scale = s.unit == "%" ? 1.0 : 100.0;
    for (const std::size_t i : { std::size_t(0), w.t.size() / 3, w.t.size() / 2, w.t.size() - 1 }) {
        const auto it = data->at(static_cast<int>(i));
        QCOMPARE(it->key, static_cast<double>(w.t[i] - origin) / 1e6);
        QCOMPARE(it->value, w.v[i] * scale);
    }
}

// Window x of time t on the timeline and on plot i.
double timelineX(MainWindow& w, TimeNs t)
{
    return w.timeline()->viewport()->mapTo(&w, QPointF(w.timeline()->xOf(t), 0)).x();
}
double plotX(MainWindow& w, int i, TimeNs t)
{
    return w.plots()->mapTo(&w, QPointF(w.plots()->xOf(i, t), 0)).x();
}

void checkAligned(MainWindow& w)
{
    settle(w);
    const TimeRange v = w.selection()->visibleRange();
    for (double f : { 0.0, 0.25, 0.5, 0.9, 1.0 }) {
        const TimeNs t = v.begin + static_cast<TimeNs>(static_cast<double>(v.end - v.begin) * f);
        for (int i = 0; i < w.plots()->plotCount(); ++i)
            QVERIFY2(std::fabs(timelineX(w, t) - plotX(w, i, t)) <= 1.0,
                qPrintable(QStringLiteral("plot %1 at %2: timeline %3, plot %4")
                               .arg(i)
                               .arg(f)
                               .arg(timelineX(w, t))
                               .arg(plotX(w, i, t))));
    }
}

int plotIndexOf(UtilizationPlots* plots, const QString& kind)
{
    for (int i = 0; i < plots->plotCount(); ++i)
        if (plots->plotKindAt(i) == kind)
            return i;
    return -1;
}

const QString kLevel1Rank0 = QStringLiteral(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");

// A kernel row's AI Core utilisation as kernel_details.csv says it (0..1): cube_utilization(%),
// else the larger of the cube and vector pipe ratios; NaN for a row that does not count.
double rowUtil(const Profile& p, std::size_t r)
{
    const KernelTable& k = p.kernels;
    if (k.dur[r] <= 0 || isCommunicationTask(p.str(k.taskType[r]), p.str(k.type[r])))
        return kNaN;
    const double cube = k.metric(k.metricIndex({ "cube_utilization(%)" }), r);
    if (!std::isnan(cube))
        return cube / 100;
    const double mac = k.metric(k.metricIndex({ "aic_mac_ratio" }), r), vec = k.metric(k.metricIndex({ "aiv_vec_ratio" }), r);
    return std::isnan(mac) ? vec : (std::isnan(vec) ? mac : std::max(mac, vec));
}

// The AI Core utilisation (%) over [a, b) from every kernel row: Σ u·overlap / (b − a), at most 100 %.
double utilOver(const Profile& p, TimeNs a, TimeNs b)
{
    double sum = 0;
    for (std::size_t r = 0; r < p.kernels.size(); ++r) {
        const double u = rowUtil(p, r);
        const TimeNs ov = std::min(b, p.kernels.start[r] + p.kernels.dur[r]) - std::max(a, p.kernels.start[r]);
        if (!std::isnan(u) && ov > 0)
            sum += u * static_cast<double>(ov);
    }
    return std::min(1.0, sum / static_cast<double>(b - a)) * 100;
}

// The plot's curve as drawn: (start ns, value) of each piece, and where the last one ends.
std::vector<std::pair<TimeNs, double>> pieces(const QCPGraph* g, TimeNs origin)
{
    std::vector<std::pair<TimeNs, double>> out;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        out.emplace_back(origin + std::llround(it->key * 1e6), it->value);
    return out;
}

} // namespace

class TestUtilizationCurves : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // QSettings of the test, not the user's
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_utilization_curves"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 4;
        o.steps = 1;
        const synth::SynthResult r = synth::synthesize(m_dir.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.rankDirs.size(), std::size_t(4));
    }

    void init() { QSettings().clear(); }

    void everyRankDrawsOneCurvePerRank()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(load(w, m_dir.path()));
        const SessionPtr s = w.session();
        QCOMPARE(s->ranks.size(), std::size_t(4));
        UtilizationPlots* plots = w.plots();
        QComboBox* curvesOf = plots->curvesSelector();
        QVERIFY(curvesOf->isVisible());
        QCOMPARE(curvesOf->count(), 5);
        QCOMPARE(curvesOf->itemText(0), QStringLiteral("Every rank"));
        for (int r = 0; r < 4; ++r)
            QCOMPARE(
                curvesOf->itemText(r + 1), QStringLiteral("Rank %1").arg(s->ranks[static_cast<std::size_t>(r)]->rank));
        // All ranks in the toolbar: every rank's curves by default.
        QCOMPARE(w.selection()->currentRank(), -1);
        QCOMPARE(curvesOf->currentText(), QStringLiteral("Every rank"));
        QCOMPARE(plots->curvesRank(), UtilizationPlots::kEveryRank);
        QCOMPARE(plots->rankNote(), QStringLiteral("One curve per rank in each plot (4 ranks)"));

        QCOMPARE(plots->plotKindAt(0), QStringLiteral("util"));
        QCPAxisRect* rect = plots->plot()->axisRect(0);
        QCOMPARE(rect->graphs().size(), 4);
        const TimeNs origin = w.selection()->fullRange().begin;
        std::set<QRgb> colours;
        for (int r = 0; r < 4; ++r) {
            const std::vector<Series> model = utilizationSeries(*s->ranks[static_cast<std::size_t>(r)], 0);
            const Series* aic = aicSeries(model);
            QVERIFY(aic);
            const QCPGraph* g = rect->graphs()[r];
            QCOMPARE(g->name(), QString::fromStdString(aic->name) + QStringLiteral(" (derived) · rank %1").arg(r));
            compareCurve(g, *aic, origin, plots, w.selection()->visibleRange());
            if (QTest::currentTestFailed())
                return;
            colours.insert(g->pen().color().rgb());
        }
        QCOMPARE(colours.size(), std::size_t(4)); // one colour per rank
        // Every other plot: at most one curve per rank, each named after its rank, all of one
        // counter (every rank has the same counters here), the one with the highest peak.
        for (int i = 1; i < plots->plotCount(); ++i) {
            std::set<QString> ranks, counters;
            double highest = -1, drawnPeak = -1;
            for (const QCPGraph* g : plots->plot()->axisRect(i)->graphs()) {
                ranks.insert(g->name().section(QStringLiteral(" · "), -1));
                counters.insert(g->name().section(QStringLiteral(" · "), 0, -2));
                for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
                    drawnPeak = std::max(drawnPeak, it->value);
            }
            QCOMPARE(static_cast<int>(ranks.size()), plots->plot()->axisRect(i)->graphs().size());
            QVERIFY(ranks.size() <= 4);
            QCOMPARE(counters.size(), std::size_t(1));
            if (plots->plotKindAt(i) != QStringLiteral("mem"))
                continue;
            for (std::size_t r = 0; r < 4; ++r)
                for (const Series& ser : utilizationSeries(*s->ranks[r], 0))
                    if (ser.unit == "MB" && ser.t.size() >= 2)
                        for (double v : ser.v)
                            highest = std::max(highest, v);
            QCOMPARE(drawnPeak, highest);
        }
        // The legend names the two highest, then "+2 more (hover)"; the readout names all four.
        settle(w);
        QCPLegend* legend = qobject_cast<QCPLegend*>(rect->insetLayout()->elementAt(0));
        QVERIFY(legend);
        QCOMPARE(legend->itemCount(), 3);
        const QPointF mid(rect->left() + rect->width() / 2.0, rect->top() + rect->height() / 2.0);
        const QStringList lines = plots->readoutAt(mid).split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 5);
        for (int r = 0; r < 4; ++r)
            QCOMPARE(lines.filter(QStringLiteral(" · rank %1: ").arg(r)).size(), 1);
        checkAligned(w);
        w.grab().save(QDir::temp().filePath(QStringLiteral("npuscope-every-rank.png")));
    }

    void chosenRankAndTheToolbar()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(load(w, m_dir.path()));
        const SessionPtr s = w.session();
        UtilizationPlots* plots = w.plots();
        QComboBox* curvesOf = plots->curvesSelector();
        const TimeNs origin = w.selection()->fullRange().begin;
        // "Rank 2" with the keyboard: the last entry, then one up.
        curvesOf->setFocus();
        QTest::keyClick(curvesOf, Qt::Key_End);
        QTest::keyClick(curvesOf, Qt::Key_Up);
        QCOMPARE(curvesOf->currentText(), QStringLiteral("Rank 2"));
        QCOMPARE(plots->curvesRank(), 2);
        QCOMPARE(w.selection()->currentRank(), -1); // the toolbar keeps All ranks
        const std::vector<Series> rank2 = utilizationSeries(*s->ranks[2], 0);
        QCPAxisRect* rect = plots->plot()->axisRect(0);
        QCOMPARE(plots->plotKindAt(0), QStringLiteral("util"));
        QCOMPARE(rect->graphs().size(), 1);
        compareCurve(rect->graphs()[0], *aicSeries(rank2), origin, plots, w.selection()->visibleRange());
        QCOMPARE(
            rect->graphs()[0]->name(), QString::fromStdString(aicSeries(rank2)->name) + QStringLiteral(" (derived)"));
        QCOMPARE(plots->rankNote(), QStringLiteral("Curves of rank 2 only; the rest of the window shows all ranks"));
        // Every curve of rank 2 is drawn, once.
        int curves = 0;
        for (int i = 0; i < plots->plotCount(); ++i)
            curves += plots->plot()->axisRect(i)->graphs().size();
        int nonEmpty = 0;
        for (const Series& ser : rank2)
            nonEmpty += !ser.t.empty();
        QCOMPARE(curves, nonEmpty);

        // The toolbar picks rank 1: the selector follows.
        QComboBox* toolbar = toolbarRanks(w);
        QVERIFY(toolbar);
        toolbar->setFocus();
        QTest::keyClick(toolbar, Qt::Key_Home);
        QTest::keyClick(toolbar, Qt::Key_Down);
        QTest::keyClick(toolbar, Qt::Key_Down);
        QCOMPARE(w.selection()->currentRank(), 1);
        QCOMPARE(curvesOf->currentText(), QStringLiteral("Rank 1"));
        QCOMPARE(plots->curvesRank(), 1);
        QCOMPARE(plots->rankNote(), QStringLiteral("Curves of rank 1"));
        compareCurve(plots->plot()->axisRect(0)->graphs()[0], *aicSeries(utilizationSeries(*s->ranks[1], 0)), origin,
                     plots, w.selection()->visibleRange());
        // Back to All ranks: the selector keeps rank 1, and says the rest shows all ranks.
        QTest::keyClick(toolbar, Qt::Key_Home);
        QCOMPARE(w.selection()->currentRank(), -1);
        QCOMPARE(curvesOf->currentText(), QStringLiteral("Rank 1"));
        QCOMPARE(plots->rankNote(), QStringLiteral("Curves of rank 1 only; the rest of the window shows all ranks"));
        // Every rank while the toolbar shows rank 3.
        w.selection()->setCurrentRank(3);
        curvesOf->setFocus();
        QTest::keyClick(curvesOf, Qt::Key_Home);
        QCOMPARE(plots->curvesRank(), UtilizationPlots::kEveryRank);
        QCOMPARE(plots->plot()->axisRect(0)->graphs().size(), 4);
        QCOMPARE(plots->rankNote(),
            QStringLiteral("One curve per rank in each plot (4 ranks); the rest of the window shows rank 3"));
        checkAligned(w);
    }

    void hiddenPlotGivesWayAndIsRemembered()
    {
        int before = 0;
        {
            MainWindow w;
            w.resize(1600, 1000);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(load(w, m_dir.path()));
            UtilizationPlots* plots = w.plots();
            settle(w);
            before = plots->plotCount();
            QVERIFY2(before >= 4, qPrintable(plots->seriesNames().join(QLatin1Char(','))));
            const int l2 = plotIndexOf(plots, QStringLiteral("l2"));
            QVERIFY(l2 >= 0);
            const int heightBefore = plots->plot()->axisRect(0)->height();

            // Right-click the L2 plot: "Hide L2 hit rate".
            QCustomPlot* plot = plots->plot();
            const QPoint at = plot->axisRect(l2)->rect().center();
            QContextMenuEvent click(QContextMenuEvent::Mouse, at, plot->mapToGlobal(at));
            QApplication::sendEvent(plot, &click);
            QMenu* menu = nullptr;
            QTRY_VERIFY((menu = plots->findChild<QMenu*>(QStringLiteral("plotsContextMenu"))) && menu->isVisible());
            QAction* hide = nullptr;
            for (QAction* a : menu->actions())
                if (a->text() == QStringLiteral("Hide L2 hit rate"))
                    hide = a;
            QVERIFY(hide);
            QVERIFY(menu->actions().contains(plots->showAllPlotsAction()));
            QSignalSpy changed(plots, &UtilizationPlots::hiddenPlotsChanged);
            hide->trigger();
            menu->close();
            QCOMPARE(changed.size(), 1);
            QCOMPARE(plots->plotCount(), before - 1);
            QCOMPARE(plotIndexOf(plots, QStringLiteral("l2")), -1);
            QCOMPARE(plots->hiddenPlots(), QStringList { QStringLiteral("l2") });
            QVERIFY(plots->showAllPlotsAction()->isEnabled());
            // View → Curves shows it unchecked.
            auto* curves = w.findChild<QMenu*>(QStringLiteral("menuCurves"));
            QVERIFY(curves);
            QAction* l2Action = nullptr;
            for (QAction* a : curves->actions())
                if (a->text() == QStringLiteral("L2 hit rate"))
                    l2Action = a;
            QVERIFY(l2Action && l2Action->isCheckable() && !l2Action->isChecked());
            // The others take its height and keep the timeline's time axis.
            settle(w);
            QVERIFY2(plots->plot()->axisRect(0)->height() > heightBefore,
                qPrintable(QStringLiteral("%1 then %2").arg(heightBefore).arg(plots->plot()->axisRect(0)->height())));
            checkAligned(w);
            const TimeRange full = w.selection()->fullRange();
            w.selection()->setVisibleRange(
                { full.begin + (full.end - full.begin) / 3, full.begin + (full.end - full.begin) / 2 });
            checkAligned(w);

            // View → Curves hides the frequency plot too, and shows it again.
            QAction* freq = nullptr;
            for (QAction* a : curves->actions())
                if (a->text() == QStringLiteral("AI Core frequency"))
                    freq = a;
            QVERIFY(freq && freq->isEnabled() && freq->isChecked());
            freq->trigger();
            QCOMPARE(plots->plotCount(), before - 2);
            QCOMPARE(plots->hiddenPlots(), (QStringList { QStringLiteral("l2"), QStringLiteral("freq") }));
            freq->trigger();
            QCOMPARE(plots->plotCount(), before - 1);
            w.close();
        }
        // A new window with the same settings starts with L2 hidden.
        MainWindow again;
        again.resize(1600, 1000);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QCOMPARE(again.plots()->hiddenPlots(), QStringList { QStringLiteral("l2") });
        QVERIFY(load(again, m_dir.path()));
        QCOMPARE(again.plots()->plotCount(), before - 1);
        QCOMPARE(plotIndexOf(again.plots(), QStringLiteral("l2")), -1);
        checkAligned(again);
        again.grab().save(QDir::temp().filePath(QStringLiteral("npuscope-plot-hidden.png")));
        // "Show all plots" brings it back, and the settings forget it.
        again.plots()->showAllPlotsAction()->trigger();
        QCOMPARE(again.plots()->plotCount(), before);
        QVERIFY(QSettings().value(QStringLiteral("window/hiddenPlots")).toStringList().isEmpty());
        // View → Reset Layout shows every plot too.
        again.plots()->setPlotHidden(QStringLiteral("bw"), true);
        QCOMPARE(again.plots()->plotCount(), before - 1);
        auto* reset = again.findChild<QAction*>(QStringLiteral("actionResetLayout"));
        QVERIFY(reset);
        reset->trigger();
        QCOMPARE(again.plots()->plotCount(), before);
        QVERIFY(again.plots()->hiddenPlots().isEmpty());
    }

    // Every plot hidden: a note says how to bring them back.
    void everyPlotHidden()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(load(w, m_dir.path()));
        w.plots()->setHiddenPlots(UtilizationPlots::plotKinds());
        QCOMPARE(w.plots()->plotCount(), 0);
        auto* note = qobject_cast<QCPTextElement*>(w.plots()->plot()->plotLayout()->elementAt(0));
        QVERIFY(note);
        QVERIFY2(note->text().contains(QStringLiteral("View → Curves")), qPrintable(note->text()));
        QVERIFY(std::isnan(w.plots()->xOf(0, w.selection()->fullRange().begin)));
        w.plots()->setHiddenPlots({});
        QVERIFY(w.plots()->plotCount() >= 4);
    }

    // The curves are read again at every zoom: the whole trace, a twentieth of it, and four times
    // a kernel's length around it.
    void curvesFollowTheZoom()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(load(w, kLevel1Rank0));
        const Profile& p = *w.session()->ranks[0];
        UtilizationPlots* plots = w.plots();
        const int util = plotIndexOf(plots, QStringLiteral("util"));
        QVERIFY(util >= 0);
        QCPAxisRect* rect = plots->plot()->axisRect(util);
        QCOMPARE(rect->graphs().size(), 1);
        const QCPGraph* g = rect->graphs()[0];
        const TimeNs origin = w.selection()->fullRange().begin;
        // The longest kernel with a utilisation above 0: a MatMul-sized task.
        std::size_t kernel = p.kernels.size();
        for (std::size_t r = 0; r < p.kernels.size(); ++r)
            if (rowUtil(p, r) > 0 && (kernel == p.kernels.size() || p.kernels.dur[r] > p.kernels.dur[kernel]))
                kernel = r;
        QVERIFY(kernel < p.kernels.size());
        const TimeNs start = p.kernels.start[kernel], dur = p.kernels.dur[kernel];
        QVERIFY2(dur > 50'000, qPrintable(QString::number(dur)));

        const TimeRange full = w.selection()->fullRange();
        const TimeNs length = full.end - full.begin;
        const std::vector<TimeRange> zooms = {
            full,
            { start - length / 40, start + length / 40 },
            { start - dur * 3 / 2, start + dur * 5 / 2 },
        };
        std::vector<TimeNs> bins;
        for (const TimeRange& zoom : zooms) {
            w.selection()->setVisibleRange(zoom);
            QCOMPARE(w.selection()->visibleRange(), zoom);
            settle(w);
            // Two pixels' worth of time on the plot as laid out.
            const TimeNs twoPx = (zoom.end - zoom.begin) * 2 / rect->width();
            QVERIFY2(plots->curveBinNs() >= 0 && plots->curveBinNs() <= twoPx,
                     qPrintable(QStringLiteral("bins of %1 ns, two pixels %2 ns").arg(plots->curveBinNs()).arg(twoPx)));
            QVERIFY(plots->curveMaxBinNs() <= twoPx);
            bins.push_back(plots->curveBinNs());
            const auto drawn = pieces(g, origin);
            QVERIFY(drawn.size() >= 2);
            QVERIFY(drawn.front().first <= std::max(zoom.begin, p.begin) && drawn.back().first >= std::min(zoom.end, p.end));
            // Every piece: a bin of the stated width, or (binNs 0) a stretch between task edges;
            // its value is the rows' over it.
            for (std::size_t i = 0; i + 1 < drawn.size(); ++i) {
                const TimeNs a = drawn[i].first, b = drawn[i + 1].first;
                if (plots->curveBinNs() > 0)
                    QCOMPARE(b - a, plots->curveBinNs());
                if (b < zoom.begin || a > zoom.end)
                    continue;
                QVERIFY2(std::fabs(drawn[i].second - utilOver(p, a, b)) < 1e-9,
                         qPrintable(QStringLiteral("[%1, %2): drawn %3, rows %4").arg(a).arg(b).arg(drawn[i].second).arg(utilOver(p, a, b))));
            }
            // The piece holding the kernel's start begins within one bin of it.
            const auto at = std::upper_bound(drawn.begin(), drawn.end(), start,
                                             [](TimeNs t, const auto& piece) { return t < piece.first; });
            QVERIFY(at != drawn.begin());
            const TimeNs stepAt = std::prev(at)->first;
            QVERIFY2(start - stepAt < std::max<TimeNs>(1, plots->curveBinNs()),
                     qPrintable(QStringLiteral("kernel at %1, its step at %2").arg(start).arg(stepAt)));
        }
        // The whole trace in bins, the closest zoom between the tasks' own edges: the kernel's step
        // is at its start, and holds its utilisation.
        QVERIFY2(bins[0] > 0 && bins[1] <= bins[0], qPrintable(QStringLiteral("%1 %2").arg(bins[0]).arg(bins[1])));
        QCOMPARE(bins[2], TimeNs(0));
        const auto drawn = pieces(g, origin);
        const auto step = std::find_if(drawn.begin(), drawn.end(), [&](const auto& piece) { return piece.first == start; });
        QVERIFY(step != drawn.end());
        QVERIFY(step->second >= rowUtil(p, kernel) * 100 - 1e-9);
        w.grab().save(QDir::temp().filePath(QStringLiteral("npuscope-curves-zoomed.png")));
    }

    // A range selected with Shift+drag in the last plot is shaded in every plot, each over its
    // own height; and the time axis reads the ruler's ticks from its first replot.
    void selectionShadesEveryPlot()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(load(w, kLevel1Rank0));
        UtilizationPlots* plots = w.plots();
        settle(w);
        QVERIFY(plots->plotCount() >= 3);
        QCustomPlot* plot = plots->plot();
        const QImage before = plot->toPixmap().toImage();
        QCPAxisRect* last = plot->axisRect(plots->plotCount() - 1);
        const int y = last->rect().center().y();
        const QPoint a(last->left() + last->width() / 4, y), b(last->left() + last->width() / 2, y);
        QTest::mousePress(plot, Qt::LeftButton, Qt::ShiftModifier, a);
        QMouseEvent move(QEvent::MouseMove, QPointF(b), plot->mapToGlobal(QPointF(b)), Qt::NoButton, Qt::LeftButton,
                         Qt::ShiftModifier);
        QApplication::sendEvent(plot, &move);
        QTest::mouseRelease(plot, Qt::LeftButton, Qt::ShiftModifier, b);
        const auto selected = w.selection()->selectedRange();
        QVERIFY(selected);
        QCOMPARE(plots->highlightedRange(), selected);
        settle(w);
        const QImage after = plot->toPixmap().toImage();
        const int inside = (a.x() + b.x()) / 2, outside = last->left() + last->width() * 3 / 4;
        for (int i = 0; i < plots->plotCount(); ++i) {
            const QRect r = plot->axisRect(i)->rect();
            int shaded = 0, elsewhere = 0;
            for (int yy = r.top() + 1; yy < r.bottom(); ++yy) {
                shaded += before.pixel(inside, yy) != after.pixel(inside, yy);
                elsewhere += before.pixel(outside, yy) != after.pixel(outside, yy);
            }
            // The band covers the plot's height (its rows all change), and nothing outside it changes.
            QVERIFY2(shaded >= r.height() - 3, qPrintable(QStringLiteral("plot %1: %2 of %3 rows shaded").arg(i).arg(shaded).arg(r.height())));
            QCOMPARE(elsewhere, 0);
        }

        // A new plots widget on the same session: its first replot already has the ruler's ticks.
        SelectionController sel;
        UtilizationPlots fresh(&sel);
        fresh.resize(1400, 400);
        sel.setSession(w.session());
        sel.setVisibleRange(w.selection()->fullRange());
        fresh.plot()->replot();
        QCPAxis* axis = fresh.plot()->axisRect(fresh.plotCount() - 1)->axis(QCPAxis::atBottom);
        const int width = 1400 - UtilizationPlots::kGutter;
        const TimeRange v = sel.visibleRange();
        const TimeTicks ticks = timeTicks(0, v.end - v.begin, width);
        const QVector<double> at = axis->tickVector();
        QVERIFY2(at.size() >= 5, qPrintable(axis->tickVectorLabels().join(QLatin1Char(','))));
        QCOMPARE(at[1] - at[0], static_cast<double>(ticks.step) / 1e6);
        QCOMPARE(axis->tickVectorLabels().size(), at.size());
    }
};

NPUSCOPE_TEST_MAIN(TestUtilizationCurves)

} // namespace test_utilization_curves

#include "test_utilization_curves.moc"
