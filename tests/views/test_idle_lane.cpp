// The "Idle causes" lane of the timeline, the critical-path toggle and the Selection panel's
// slack, on a generated profile with a planted Python stall (model/synth, its ground truth in
// SynthResult::truth): the lane's gaps add up per cause to what idle_causes() attributes, the
// planted slice is blamed where it starved the device, a click on a gap selects its host op, P
// toggles the critical path, and the cause colours are apart in CIEDE2000 (colour_distance.h).
#include "test_main.h"
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
#include "colour_distance.h"

#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <array>
#include <cmath>

namespace test_idle_lane {

using namespace npuscope;
using namespace npuscope::testing;

namespace {

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

NPUSCOPE_TEST_MAIN(TestIdleLane)

} // namespace test_idle_lane

#include "test_idle_lane.moc"
