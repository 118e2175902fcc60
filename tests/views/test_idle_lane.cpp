// The "Idle causes" lane of the timeline, the critical-path toggle and the Selection panel's
// slack, on a generated profile with a planted Python stall (model/synth, its ground truth in
// SynthResult::truth): the lane's gaps add up per cause to what idle_causes() attributes, the
// planted slice is blamed where it starved the device, a click on a gap selects its host op, P
// toggles the critical path, and the cause colours are apart in CIEDE2000 (computed here as in
// test_palette.cpp).
#include "model/analysis/critical_path.h"
#include "model/analysis/idle_causes.h"
#include "model/analysis/overlap.h"
#include "model/analysis/step_graph.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"
#include "views/format.h"
#include "views/idle_lane.h"
#include "views/selection_controller.h"
#include "views/selection_panel.h"
#include "views/summary_strip.h"
#include "views/time_format.h"
#include "views/timeline_view.h"

#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <array>
#include <cmath>

using namespace npuscope;

namespace {

struct Lab {
    double l, a, b;
};

Lab toLab(const QColor& c)
{
    auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    const double r = lin(c.redF()), g = lin(c.greenF()), b = lin(c.blueF());
    const double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    const double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    const double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
    auto f = [](double t) { return t > 216.0 / 24389.0 ? std::cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0; };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

double deg(double rad)
{
    return rad * 180.0 / M_PI;
}
double rad(double d)
{
    return d * M_PI / 180.0;
}

// CIEDE2000 as Sharma, Wu and Dalal (2005) write it, hue means and differences included.
double deltaE2000(const Lab& x, const Lab& y)
{
    const double c1 = std::hypot(x.a, x.b), c2 = std::hypot(y.a, y.b), cBar = (c1 + c2) / 2;
    const double c7 = std::pow(cBar, 7), g = 0.5 * (1 - std::sqrt(c7 / (c7 + std::pow(25.0, 7))));
    const double a1 = (1 + g) * x.a, a2 = (1 + g) * y.a;
    const double cp1 = std::hypot(a1, x.b), cp2 = std::hypot(a2, y.b);
    auto hue = [](double b, double a) {
        if (a == 0 && b == 0)
            return 0.0;
        const double h = deg(std::atan2(b, a));
        return h < 0 ? h + 360 : h;
    };
    const double h1 = hue(x.b, a1), h2 = hue(y.b, a2);
    const double dL = y.l - x.l, dC = cp2 - cp1;
    double dh = 0;
    if (cp1 * cp2 != 0) {
        dh = h2 - h1;
        if (dh > 180)
            dh -= 360;
        else if (dh < -180)
            dh += 360;
    }
    const double dH = 2 * std::sqrt(cp1 * cp2) * std::sin(rad(dh) / 2);
    const double lBar = (x.l + y.l) / 2, cpBar = (cp1 + cp2) / 2;
    double hBar = h1 + h2;
    if (cp1 * cp2 != 0) {
        if (std::abs(h1 - h2) <= 180)
            hBar = (h1 + h2) / 2;
        else
            hBar = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
    }
    const double t = 1 - 0.17 * std::cos(rad(hBar - 30)) + 0.24 * std::cos(rad(2 * hBar))
                     + 0.32 * std::cos(rad(3 * hBar + 6)) - 0.20 * std::cos(rad(4 * hBar - 63));
    const double dTheta = 30 * std::exp(-std::pow((hBar - 275) / 25, 2));
    const double cp7 = std::pow(cpBar, 7), rc = 2 * std::sqrt(cp7 / (cp7 + std::pow(25.0, 7)));
    const double sl = 1 + 0.015 * std::pow(lBar - 50, 2) / std::sqrt(20 + std::pow(lBar - 50, 2));
    const double sc = 1 + 0.045 * cpBar, sh = 1 + 0.015 * cpBar * t;
    const double rt = -std::sin(rad(2 * dTheta)) * rc;
    return std::sqrt(std::pow(dL / sl, 2) + std::pow(dC / sc, 2) + std::pow(dH / sh, 2) + rt * (dC / sc) * (dH / sh));
}


constexpr double kPlantUs = 900;

} // namespace

class TestIdleLane : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    SessionPtr m_session;
    synth::SynthTruth m_truth;

    const Profile& profile() const { return *m_session->ranks.front(); }

    // A view on the session with its causal model ready.
    struct Fixture {
        SelectionController sel;
        TimelineView view{&sel};
        CausalModel model{&sel};
        explicit Fixture(const SessionPtr& s)
        {
            view.resize(1600, 900);
            view.setCausalModel(&model);
            view.show();
            sel.setSession(s);
        }
        bool ready()
        {
            return QTest::qWaitFor([this] { return model.result() != nullptr; }, 60000);
        }
    };

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        synth::SynthOptions o;
        o.scenario = "llama2-baseline";
        o.steps = 3;
        o.plants.push_back({"python_stall", kPlantUs});
        const std::string out = m_dir.filePath(QStringLiteral("planted")).toStdString();
        const synth::SynthResult r = synth::synthesize(out, o);
        QVERIFY2(r.ok, out.c_str());
        m_truth = r.truth;
        LoadResult l = loadSession(out);
        QVERIFY2(l.session && l.session->ranks.size() == 1, l.error.c_str());
        m_session = l.session;
    }

    void causeColoursAreApart()
    {
        for (std::size_t i = 0; i < kIdleCauseCount; ++i)
            for (std::size_t j = i + 1; j < kIdleCauseCount; ++j) {
                const double d = deltaE2000(toLab(idleCauseColor(static_cast<IdleCause>(i))),
                                            toLab(idleCauseColor(static_cast<IdleCause>(j))));
                QVERIFY2(d >= kIdleCauseMinDeltaE, qPrintable(QStringLiteral("%1 vs %2: %3")
                                                                  .arg(idleCauseName(static_cast<IdleCause>(i)),
                                                                       idleCauseName(static_cast<IdleCause>(j)))
                                                                  .arg(d)));
            }
    }

    // Every gap of the lane drawn in the whole range adds up, per cause, to the causes' totals;
    // the planted stall is blamed as host_python for at least the idle it alone explains.
    void laneSumsPerCause()
    {
        Fixture f(m_session);
        QVERIFY(f.ready());
        const Profile& p = profile();
        const StepGraph g = buildStepGraph(p);
        const IdleCauses want = idleCauses(p, g);
        QVERIFY(want.idleNs > 0);
        const int lane = f.view.layout().idleLane(0);
        QVERIFY(lane >= 0);
        QCOMPARE(f.view.layout().lanes[static_cast<std::size_t>(lane)].name, QStringLiteral("Device idle"));
        f.sel.fitAll();
        QVERIFY(f.view.ensureLaneVisible(lane));
        f.view.viewport()->repaint();
        const auto& drawn = f.view.drawnIdleByCause();
        TimeNs sum = 0;
        for (std::size_t c = 0; c < kIdleCauseCount; ++c) {
            QCOMPARE(drawn[c], want.totals[c]);
            sum += drawn[c];
        }
        // The step graph's idle: the device part of each step minus its busy time.
        TimeNs stepIdle = 0;
        for (const GraphStep& s : g.steps)
            stepIdle += s.idleNs;
        QCOMPARE(sum, stepIdle);

        // Ground truth: each planted log_metrics slice starved the device for starvedNs inside
        // the step's device part; those instants are host_python gaps blaming that slice.
        QCOMPARE(m_truth.ranks.size(), std::size_t(1));
        TimeNs starved = 0, blamed = 0;
        for (const synth::StepTruth& st : m_truth.ranks.front().steps)
            for (const synth::PlantedSlice& ps : st.slices) {
                if (ps.plant != "python_stall")
                    continue;
                starved += std::min(ps.starvedNs, ps.freeNs);
                for (const IdleGap& gap : want.gaps)
                    if (gap.cause == IdleCause::HostPython && gap.hostSlice != kNone
                        && p.str(p.slices.name[gap.hostSlice]) == ps.name)
                        blamed += std::max<TimeNs>(0,
                                                   std::min<TimeNs>(gap.end, ps.end) - std::max<TimeNs>(gap.start, ps.start));
            }
        QVERIFY(starved > 0);
        QVERIFY2(blamed >= starved * 9 / 10, qPrintable(QStringLiteral("blamed %1 of %2 ns").arg(blamed).arg(starved)));
    }

    // A click on a gap selects its host op; the Selection panel shows it with its slack.
    void clickSelectsHostOp()
    {
        Fixture f(m_session);
        QVERIFY(f.ready());
        SelectionPanel panel(&f.sel);
        panel.setCausalModel(&f.model);
        const CausalRank* cr = f.model.rank(0);
        QVERIFY(cr);
        const auto& gaps = cr->idle.gaps;
        std::size_t pick = gaps.size();
        for (std::size_t i = 0; i < gaps.size(); ++i)
            if (gaps[i].hostSlice != kNone && (pick == gaps.size() || gaps[i].dur() > gaps[pick].dur()))
                pick = i;
        QVERIFY(pick < gaps.size());
        const IdleGap& gap = gaps[pick];
        f.sel.setVisibleRange({gap.start - gap.dur(), gap.end + gap.dur()});
        QVERIFY(f.view.ensureLaneVisible(f.view.layout().idleLane(0)));
        f.view.viewport()->repaint();
        const QRectF r = f.view.idleGapRect(0, pick);
        QVERIFY(!r.isEmpty());
        QVERIFY(r.width() > 100); // a third of the window
        QTest::mouseClick(f.view.viewport(), Qt::LeftButton, {}, r.center().toPoint());
        QCOMPARE(f.sel.selectedTask(), (TaskRef{0, gap.hostSlice}));
        // The timeline scrolled to the host op's lane.
        const Profile& p = profile();
        const int hostLane = f.view.layout().trackLane[0][p.slices.track[gap.hostSlice].v];
        f.view.viewport()->repaint();
        const auto& drawnLanes = f.view.drawnLanes();
        QVERIFY(std::find(drawnLanes.begin(), drawnLanes.end(), hostLane) != drawnLanes.end());
        // The Selection panel: the host op, with its place on the critical path.
        QCOMPARE(panel.fieldText(QStringLiteral("Name"), QStringLiteral("Slice")), qstr(p.str(p.slices.name[gap.hostSlice])));
        const StepGraph g = buildStepGraph(p);
        const IdleCauses idle = idleCauses(p, g);
        const CriticalPaths paths = criticalPaths(p, g, idle);
        const bool on = onCriticalPath(paths, gap.hostSlice);
        QVERIFY(panel.fieldText(QStringLiteral("On the path"), QStringLiteral("Critical path"))
                    .startsWith(on ? QStringLiteral("yes") : QStringLiteral("no")));
        const TimeNs slack = sliceSlack(p, g, paths, gap.hostSlice);
        QVERIFY(panel.fieldText(QStringLiteral("Slack"), QStringLiteral("Critical path"))
                    .endsWith(QStringLiteral("(%1 ns)").arg(slack)));
        // A slice on the path has no slack.
        QVERIFY(!paths.onPath.empty());
        f.sel.setSelectedTask({0, paths.onPath.front()});
        QVERIFY(
            panel.fieldText(QStringLiteral("On the path"), QStringLiteral("Critical path")).startsWith(QStringLiteral("yes")));
        QVERIFY(panel.fieldText(QStringLiteral("Slack"), QStringLiteral("Critical path")).endsWith(QStringLiteral("(0 ns)")));
    }

    // P outlines the critical path's slices in view, P again stops.
    void keyTogglesCriticalPath()
    {
        Fixture f(m_session);
        QVERIFY(f.ready());
        const CausalRank* cr = f.model.rank(0);
        QVERIFY(cr && !cr->paths.steps.empty());
        // The longest device segment of the steps' paths, shown with room around it.
        const PathSegment* seg = nullptr;
        for (const StepPath& sp : cr->paths.steps)
            for (const PathSegment& s : sp.segments)
                if ((s.kind == PathKind::Compute || s.kind == PathKind::Comm) && s.slice != kNone
                    && (!seg || s.dur() > seg->dur()))
                    seg = &s;
        QVERIFY(seg);
        f.sel.setVisibleRange({seg->begin - seg->dur(), seg->end + seg->dur()});
        const Profile& p = profile();
        QVERIFY(f.view.ensureLaneVisible(f.view.layout().trackLane[0][p.slices.track[seg->slice].v]));
        f.view.setFocus();
        f.view.viewport()->repaint();
        QCOMPARE(f.view.drawnPathItemCount(), std::size_t(0));
        QTest::keyClick(&f.view, Qt::Key_P);
        QVERIFY(f.model.criticalPathShown());
        f.view.viewport()->repaint();
        QVERIFY(f.view.drawnPathItemCount() >= 1);
        QTest::keyClick(&f.view, Qt::Key_P);
        QVERIFY(!f.model.criticalPathShown());
        f.view.viewport()->repaint();
        QCOMPARE(f.view.drawnPathItemCount(), std::size_t(0));
    }

    // The strip names the top cause of the complete steps' idle time.
    void summaryNamesTopCause()
    {
        SelectionController sel;
        SummaryStrip strip(&sel);
        CausalModel model(&sel);
        strip.setCausalModel(&model);
        sel.setSession(m_session);
        QVERIFY(QTest::qWaitFor([&] { return !strip.busy() && model.result(); }, 60000));
        QTRY_VERIFY_WITH_TIMEOUT(strip.plainText().contains(QStringLiteral("Idle: ")), 10000);
        const Profile& p = profile();
        const StepGraph g = buildStepGraph(p);
        const IdleCauses idle = idleCauses(p, g);
        std::vector<double> spans;
        for (const GraphStep& s : g.steps)
            spans.push_back(static_cast<double>(s.span()));
        const StepStats stats = stepStats(spans);
        std::array<TimeNs, kIdleCauseCount> byCause{};
        TimeNs total = 0;
        int n = 0;
        for (const IdleStep& s : idle.steps) {
            if (stats.isPartial[static_cast<std::size_t>(s.step)])
                continue;
            ++n;
            total += s.idleNs;
            for (std::size_t c = 0; c < kIdleCauseCount; ++c)
                byCause[c] += s.byCause[c];
        }
        QVERIFY(n > 0 && total > 0);
        const std::size_t top = static_cast<std::size_t>(std::max_element(byCause.begin(), byCause.end()) - byCause.begin());
        const QString want = QStringLiteral("Idle: %1/step, mostly %2 (%3 %)")
                                 .arg(fmt::duration(static_cast<double>(total) / n),
                                      idleCauseName(static_cast<IdleCause>(top)))
                                 .arg(std::lround(100.0 * static_cast<double>(byCause[top]) / static_cast<double>(total)));
        QVERIFY2(strip.plainText().contains(want), qPrintable(strip.plainText() + QStringLiteral(" / want ") + want));
    }
};

QTEST_MAIN(TestIdleLane)
#include "test_idle_lane.moc"
