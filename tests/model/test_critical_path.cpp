// The critical path: on the hand-built rank of causal_fixture.h, the walk back from the last
// task through its task-queue launch, worked out by hand; on the real samples, segments that
// tile each step span exactly and end the device part at its last busy instant.
#include "test_main.h"
#include "causal_fixture.h"
#include "cli_run.h"
#include "model/analysis/critical_path.h"
#include "model/formats/loader.h"
#include "real_ranks.h"
#include "two_stream_fixture.h"

#include <QtTest>

#include <nlohmann/json.hpp>

namespace test_critical_path {

using namespace npuscope;
using namespace npuscope::testing;
using namespace npuscope::fixtures;

namespace {

void checkTiling(const StepGraph& g, const CriticalPaths& c)
{
    QCOMPARE(c.steps.size(), g.steps.size());
    for (std::size_t si = 0; si < g.steps.size(); ++si) {
        const StepPath& sp = c.steps[si];
        const GraphStep& st = g.steps[si];
        QVERIFY(!sp.cut);
        QVERIFY(!sp.segments.empty());
        QCOMPARE(sp.segments.front().begin, st.begin);
        QCOMPARE(sp.segments.back().end, st.end);
        TimeNs sum = 0;
        for (std::size_t i = 0; i < sp.segments.size(); ++i) {
            QVERIFY(sp.segments[i].end > sp.segments[i].begin);
            if (i > 0)
                QCOMPARE(sp.segments[i].begin, sp.segments[i - 1].end);
            sum += sp.segments[i].dur();
        }
        QCOMPARE(sum, st.span());
        QCOMPARE(sp.length, st.span());
        TimeNs bound = 0;
        for (TimeNs v : sp.boundBy)
            bound += v;
        QCOMPARE(bound, st.span());
    }
}

} // namespace

class TestCriticalPath : public QObject {
    Q_OBJECT
private slots:
    void plantedPath()
    {
        CausalFixture f;
        const StepGraph g = buildStepGraph(f.p);
        const IdleCauses idle = idleCauses(f.p, g);
        const CriticalPaths c = criticalPaths(f.p, g, idle);
        checkTiling(g, c);
        const auto& seg = c.steps[0].segments;
        // From the end: idle after the last device work [260 µs, 1 ms), T8 [250, 260), the wait
        // for its dispatch [246.5, 250), Node@launch [246, 246.5), the Dequeue [245, 246), the
        // task queue [232.5, 245) (idle, cause launch), the Enqueue [232, 232.5).
        const auto at = [&](TimeNs t) -> const PathSegment& {
            for (const PathSegment& s : seg)
                if (s.begin <= t && t < s.end)
                    return s;
            return seg.front();
        };
        QCOMPARE(seg.back().kind, PathKind::Idle);
        QCOMPARE(seg.back().begin, TimeNs(260000));
        QCOMPARE(at(255000).kind, PathKind::Compute);
        QCOMPARE(at(255000).slice, f.row("Gelu_T8"));
        QCOMPARE(at(255000).begin, TimeNs(250000));
        QCOMPARE(at(248000).kind, PathKind::Idle);
        QCOMPARE(at(248000).idleCause, IdleCause::Launch);
        QCOMPARE(at(246200).kind, PathKind::Launch);
        QCOMPARE(at(246200).slice, f.row("Node@launch"));
        QCOMPARE(at(246200).begin, TimeNs(246000));
        QCOMPARE(at(246200).end, TimeNs(246500));
        QCOMPARE(at(245500).slice, f.row("Dequeue@aten::gelu"));
        QCOMPARE(at(245500).kind, PathKind::Launch);
        QCOMPARE(at(240000).kind, PathKind::Idle);
        QCOMPARE(at(240000).begin, TimeNs(232500));
        QCOMPARE(at(232200).slice, f.row("Enqueue"));
        QCOMPARE(at(232200).begin, TimeNs(232000));
        QCOMPARE(at(230000).slice, f.row("optimizer_step"));
        QCOMPARE(c.steps[0].boundBy[static_cast<std::size_t>(PathKind::Compute)], TimeNs(10000));
        QCOMPARE(c.steps[0].boundBy[static_cast<std::size_t>(PathKind::Launch)], TimeNs(500 + 1000 + 500));

        // On the path: slack 0. Conv_T3 [100, 110) is followed on its stream by Relu_T4 at 130.
        QVERIFY(onCriticalPath(c, f.row("Gelu_T8")));
        QCOMPARE(sliceSlack(f.p, g, c, f.row("Gelu_T8")), TimeNs(0));
        QVERIFY(!onCriticalPath(c, f.row("Conv_T3")));
        QCOMPARE(sliceSlack(f.p, g, c, f.row("Conv_T3")), TimeNs(20000));
        // The Python thread's ops chain back from the Enqueue: aten::add is on the path.
        QVERIFY(onCriticalPath(c, f.row("aten::add")));
        QCOMPARE(sliceSlack(f.p, g, c, f.row("aten::add")), TimeNs(0));
        // The synchronize [45, 66) µs on the CANN thread is followed there by the compile at 75.
        QVERIFY(!onCriticalPath(c, f.row("AscendCL@aclrtSynchronizeStream")));
        QCOMPARE(sliceSlack(f.p, g, c, f.row("AscendCL@aclrtSynchronizeStream")), TimeNs(9000));
        // The compile is the thread's last slice: it could end as late as the step end.
        QCOMPARE(sliceSlack(f.p, g, c, f.row("AscendCL@aclopCompileAndExecute")), TimeNs(1000000 - 96000));
    }

    // `analyze --metric critical_path --format json`: per step, segments tiling the span of
    // ProfilerStep#50 (its "dur" in the trace, 155985.8 µs on rank 0) and bound_by adding up.
    // No event recorded (two_stream_fixture.h): the walk goes C1 ← A1 ← C0 along the inferred
    // waits, so compute + comm on the path is the device's busy time, and the 5 µs between A1's
    // end and C1's start is idle waiting on the communication.
    void inferredWaitPath()
    {
        TwoStreamFixture f;
        const StepGraph g = buildStepGraph(f.p);
        const IdleCauses idle = idleCauses(f.p, g);
        const CriticalPaths c = criticalPaths(f.p, g, idle);
        checkTiling(g, c);
        // Busy: the union of the stream tasks' intervals, from the rows.
        std::vector<std::pair<TimeNs, TimeNs>> iv;
        for (const TrackId t : {f.s2, f.s4}) {
            const Track& tr = f.p.tracks[t.v];
            for (std::uint32_t r = tr.sliceBegin; r < tr.sliceEnd; ++r)
                iv.emplace_back(f.p.slices.start[r], f.p.slices.end(r));
        }
        std::sort(iv.begin(), iv.end());
        TimeNs busy = 0, curB = iv[0].first, curE = iv[0].second;
        for (const auto& [b, e] : iv) {
            if (b > curE) {
                busy += curE - curB;
                curB = b;
            }
            curE = std::max(curE, e);
        }
        busy += curE - curB;
        QCOMPARE(busy, TimeNs(160000));
        const StepPath& sp = c.steps[0];
        const auto by = [&](PathKind k) { return sp.boundBy[static_cast<std::size_t>(k)]; };
        QCOMPARE(by(PathKind::Compute) + by(PathKind::Comm), busy);
        QCOMPARE(by(PathKind::Comm), f.p.slices.dur[f.row("hcom_allReduce__A1", f.s4)]);
        QVERIFY(onCriticalPath(c, f.row("MatMul_C0", f.s2)));
        QVERIFY(onCriticalPath(c, f.row("hcom_allReduce__A1", f.s4)));
        QVERIFY(onCriticalPath(c, f.row("Add_C1", f.s2)));
        QVERIFY(!onCriticalPath(c, f.row("hcom_broadcast__A0", f.s4)));
        // [120, 125) µs: the device's only Free time, waiting on the collective.
        QCOMPARE(g.steps[0].idleNs, TimeNs(5000));
        QCOMPARE(idle.steps[0].byCause[static_cast<std::size_t>(IdleCause::CommWait)], TimeNs(5000));
        bool waited = false;
        for (const PathSegment& s : sp.segments)
            if (s.kind == PathKind::Idle && s.begin == 120000 && s.end == 125000)
                waited = s.idleCause == IdleCause::CommWait;
        QVERIFY(waited);
    }

    void cliCriticalPathJson()
    {
        const QString dir = QString::fromStdString(std::string(NPUSCOPE_SAMPLES)
                                                   + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");
        QFile trace(dir + "/ASCEND_PROFILER_OUTPUT/trace_view.json");
        QVERIFY(trace.open(QIODevice::ReadOnly));
        const QJsonDocument events = QJsonDocument::fromJson(trace.readAll());
        double stepDur = -1;
        for (const QJsonValue& v : events.isArray() ? events.array() : events.object().value("traceEvents").toArray())
            if (v.toObject().value("name").toString() == "ProfilerStep#50") {
                const QJsonValue d = v.toObject().value("dur");
                stepDur = (d.isString() ? d.toString().toDouble() : d.toDouble()) * 1000.0;
            }
        QVERIFY(stepDur > 0);
        const CliRun r = runCli({"analyze", "--import", dir, "--metric", "critical_path", "--format", "json", "--no-cache"});
        QCOMPARE(r.code, 0);
        const auto doc = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(doc["metric"].get<std::string>(), std::string("critical_path"));
        QCOMPARE(doc["steps"].size(), std::size_t(1));
        const auto& step = doc["steps"][0];
        const TimeNs length = step["length_ns"].get<TimeNs>();
        QVERIFY(std::abs(static_cast<double>(length) - stepDur) < 2);
        TimeNs bound = 0, segs = 0, total = 0;
        for (std::size_t k = 0; k < kPathKindCount; ++k) {
            bound += step["bound_by"][pathKindKey(static_cast<PathKind>(k))].get<TimeNs>();
            total += doc["bound_by"][pathKindKey(static_cast<PathKind>(k))].get<TimeNs>();
        }
        TimeNs prevEnd = -1;
        for (const auto& s : step["segments"]) {
            if (prevEnd >= 0)
                QCOMPARE(s["begin_ns"].get<TimeNs>(), prevEnd);
            prevEnd = s["end_ns"].get<TimeNs>();
            segs += s["dur_ns"].get<TimeNs>();
        }
        QCOMPARE(bound, length);
        QCOMPARE(segs, length);
        QCOMPARE(total, length);
    }

    void realSamplesTile_data() { addRealRankRows(); }
    void realSamplesTile()
    {
        QFETCH(QString, dir);
        const LoadResult lr = loadSession(dir.toStdString());
        QVERIFY2(lr.session && !lr.session->ranks.empty(), lr.error.c_str());
        const Profile& p = *lr.session->ranks.front();
        const StepGraph g = buildStepGraph(p);
        const IdleCauses idle = idleCauses(p, g);
        const CriticalPaths c = criticalPaths(p, g, idle);
        checkTiling(g, c);
        for (std::size_t si = 0; si < g.steps.size(); ++si) {
            const GraphStep& st = g.steps[si];
            const StepPath& sp = c.steps[si];
            // The device work ends the path's device part: a compute or comm segment ends there.
            bool endsAtDeviceEnd = false;
            for (const PathSegment& s : sp.segments)
                endsAtDeviceEnd = endsAtDeviceEnd
                                  || ((s.kind == PathKind::Compute || s.kind == PathKind::Comm) && s.end == st.deviceEnd);
            QVERIFY(endsAtDeviceEnd);
            QVERIFY(sp.boundBy[static_cast<std::size_t>(PathKind::Compute)]
                        + sp.boundBy[static_cast<std::size_t>(PathKind::Comm)]
                    > 0);
            for (const PathSegment& s : sp.segments)
                if (s.slice != kNone) {
                    QVERIFY(onCriticalPath(c, s.slice));
                    QCOMPARE(sliceSlack(p, g, c, s.slice), TimeNs(0));
                }
        }
    }
};

NPUSCOPE_TEST_APPLESS_MAIN(TestCriticalPath)

} // namespace test_critical_path

#include "test_critical_path.moc"
