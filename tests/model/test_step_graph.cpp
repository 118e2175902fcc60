// The step graph: on the hand-built rank of causal_fixture.h, every planted edge, role and
// order link, and the backwards flow dropped and counted; on the real level-1 sample, the step
// span and its device part against the trace's ProfilerStep#50 event (read with Qt's JSON
// parser) and step_trace_time.csv's Preparing and Stage, and every slice's parent.
#include "test_main.h"
#include "causal_fixture.h"
#include "csv_records.h"
#include "two_stream_fixture.h"
#include "model/analysis/step_graph.h"
#include "model/formats/loader.h"

#include <QtTest>

#include <fstream>
#include <sstream>

namespace test_step_graph {

using namespace npuscope;
using namespace npuscope::fixtures;

namespace {

const std::string kLevel1 = std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";

std::string readText(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A "ts"/"dur" as written (a string or a number, µs) in ns.
double usToNs(const QJsonValue& v)
{
    return (v.isString() ? v.toString().toDouble() : v.toDouble()) * 1000.0;
}

} // namespace

class TestStepGraph : public QObject {
    Q_OBJECT
private slots:
    void plantedEdges()
    {
        CausalFixture f;
        const StepGraph g = buildStepGraph(f.p);
        QCOMPARE(g.stepSource, std::string("ProfilerStep#N spans"));
        QCOMPARE(g.steps.size(), std::size_t(1));
        QCOMPARE(g.steps[0].name, std::string("1"));
        QCOMPARE(g.steps[0].begin, TimeNs(0));
        QCOMPARE(g.steps[0].end, TimeNs(1000000));
        QCOMPARE(g.stepAt(500000), 0);
        QCOMPARE(g.stepAt(2000000), -1);

        // 8 async_npu flows and 1 HostToDevice flow launch tasks; the backwards async_npu flow
        // of aten::late is dropped and counted.
        QCOMPARE(g.counts.edges[static_cast<int>(EdgeKind::Launch)], std::uint64_t(9));
        QCOMPARE(g.counts.edges[static_cast<int>(EdgeKind::TaskQueue)], std::uint64_t(1));
        QCOMPARE(g.counts.edges[static_cast<int>(EdgeKind::EventWait)], std::uint64_t(1));
        QCOMPARE(g.counts.edges[static_cast<int>(EdgeKind::HostSync)], std::uint64_t(1));
        QCOMPARE(g.counts.edges[static_cast<int>(EdgeKind::Collective)], std::uint64_t(0));
        QCOMPARE(g.counts.brokenEdges, std::uint64_t(1));
        QCOMPARE(g.counts.unboundFlows, std::uint64_t(0));
        QCOMPARE(g.counts.waitsNearest, std::uint64_t(1));
        QCOMPARE(g.edges.size(), std::size_t(12));
        QVERIFY(g.hasLaunchFlows);
        QVERIFY(g.hasHost);
        bool saidBroken = false;
        for (const std::string& m : g.missing)
            saidBroken = saidBroken || m.find("1 edges pointed back in time") != std::string::npos;
        QVERIFY(saidBroken);
        QVERIFY(std::is_sorted(g.edges.begin(), g.edges.end(),
                               [](const GraphEdge& a, const GraphEdge& b) { return a.dst < b.dst; }));

        // T8: launched by Node@launch (HostToDevice) at 246.5 µs; the Dequeue fed by the Enqueue.
        const auto into = g.edgesInto(f.row("Gelu_T8"));
        QCOMPARE(into.size(), std::size_t(1));
        QCOMPARE(into[0].src, f.row("Node@launch"));
        QCOMPARE(into[0].at, TimeNs(246500));
        QCOMPARE(into[0].kind, EdgeKind::Launch);
        const auto fromEnqueue = g.edgesFrom(f.row("Enqueue"));
        QCOMPARE(fromEnqueue.size(), std::size_t(1));
        QCOMPARE(fromEnqueue[0]->dst, f.row("Dequeue@aten::gelu"));
        QCOMPARE(fromEnqueue[0]->kind, EdgeKind::TaskQueue);
        // The wait on stream 2 matched to the record on stream 3 (no event id: nearest).
        const auto wait = g.edgesInto(f.row("EVENT_WAIT"));
        QCOMPARE(wait.size(), std::size_t(1));
        QCOMPARE(wait[0].src, f.row("EVENT_RECORD"));
        QVERIFY(!wait[0].byId);
        // The synchronize [45, 66) µs waited for T1, which ended at 50 µs inside it.
        const auto sync = g.edgesInto(f.row("AscendCL@aclrtSynchronizeStream"));
        QCOMPARE(sync.size(), std::size_t(1));
        QCOMPARE(sync[0].src, f.row("Add_T1"));
        QCOMPARE(sync[0].kind, EdgeKind::HostSync);

        // Order links and roles.
        QCOMPARE(g.streamPrev(f.row("Div_T6")), f.row("EVENT_WAIT"));
        QCOMPARE(g.streamNext(f.row("MatMul_T0")), f.row("Add_T1"));
        QCOMPARE(g.streamPrev(f.row("MatMul_T0")), kNone);
        QCOMPARE(g.hostPrev(f.row("Enqueue")), f.row("optimizer_step"));
        QCOMPARE(g.parent[f.row("aten::add")], f.row("ProfilerStep#1"));
        QCOMPARE(g.kind[f.row("ProfilerStep#1")], NodeKind::None);
        QCOMPARE(g.kind[f.row("aten::add")], NodeKind::Python);
        QCOMPARE(g.kind[f.row("Node@launch")], NodeKind::Cann);
        QCOMPARE(g.kind[f.row("Gelu_T8")], NodeKind::DeviceTask);
        QCOMPARE(g.role[f.row("AscendCL@aclrtSynchronizeStream")], NodeRole::Sync);
        QCOMPARE(g.role[f.row("AscendCL@aclopCompileAndExecute")], NodeRole::Compile);
        QCOMPARE(g.role[f.row("torch/utils/data/dataloader.py(630): __next__")], NodeRole::DataLoader);
        QCOMPARE(g.role[f.row("Enqueue")], NodeRole::Enqueue);
        QCOMPARE(g.role[f.row("Dequeue@aten::gelu")], NodeRole::Dequeue);
        QCOMPARE(g.role[f.row("Node@launch")], NodeRole::Launch);
        QCOMPARE(g.role[f.row("MatMul_T0")], NodeRole::Compute);
        QCOMPARE(g.role[f.row("hcom_allReduce__1_T7")], NodeRole::Comm);
        QCOMPARE(g.role[f.row("EVENT_WAIT")], NodeRole::EventWait);
        QCOMPARE(g.role[f.row("EVENT_RECORD")], NodeRole::EventRecord);
        QCOMPARE(g.deviceStartingAt(190000).size(), std::size_t(1));
        QCOMPARE(g.deviceStartingAt(190000)[0], f.row("Div_T6"));
    }

    // Without ProfilerStep#N slices: one step over the device span, named after the
    // step_trace_time row when there is one, and said so.
    void stepsWithoutSpans()
    {
        for (const bool withStepTrace : {true, false}) {
            Profile p;
            const TrackId s2 = addTrack(p, 300, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2");
            addSlice(p, s2, "MatMul", "AI_CORE", 5000, 1000);
            addSlice(p, s2, "Add", "AI_CORE", 9000, 3000);
            if (withStepTrace) {
                StepRow row;
                row.step = "7";
                row.computing = 4000;
                p.steps.push_back(row);
            }
            p.finalize();
            const StepGraph g = buildStepGraph(p);
            QCOMPARE(g.steps.size(), std::size_t(1));
            QCOMPARE(g.steps[0].begin, TimeNs(5000));
            QCOMPARE(g.steps[0].end, TimeNs(12000));
            QCOMPARE(g.steps[0].idleNs, TimeNs(3000)); // [6, 9) µs
            QCOMPARE(g.steps[0].name, std::string(withStepTrace ? "7" : ""));
            QVERIFY(g.stepSource.rfind(withStepTrace ? "step_trace_time (no span" : "device span", 0) == 0);
            // No host at all: said, and the one gap is unknown.
            bool said = false;
            for (const std::string& m : g.missing)
                said = said || m.find("no host timeline") != std::string::npos;
            QVERIFY(said);
        }
    }

    void emptyProfile()
    {
        Profile p;
        p.finalize();
        const StepGraph g = buildStepGraph(p);
        QVERIFY(g.steps.empty());
        QVERIFY(!g.missing.empty());
    }

    void realLevel1Steps()
    {
        const LoadResult lr = loadSession(kLevel1);
        QVERIFY2(lr.session && !lr.session->ranks.empty(), lr.error.c_str());
        const Profile& p = *lr.session->ranks.front();
        const StepGraph g = buildStepGraph(p);

        // The ProfilerStep#50 event of the trace, by Qt's parser.
        const QJsonDocument doc = QJsonDocument::fromJson(
            QByteArray::fromStdString(readText(kLevel1 + "/ASCEND_PROFILER_OUTPUT/trace_view.json")));
        const QJsonArray events = doc.isArray() ? doc.array() : doc.object().value("traceEvents").toArray();
        double stepTs = -1, stepDur = -1;
        int h2dStarts = 0, queueStarts = 0;
        for (const QJsonValue& v : events) {
            const QJsonObject e = v.toObject();
            if (e.value("name").toString() == "ProfilerStep#50" && e.value("ph").toString() == "X") {
                stepTs = usToNs(e.value("ts"));
                stepDur = usToNs(e.value("dur"));
            }
            if (e.value("ph").toString() == "s") {
                h2dStarts += e.value("cat").toString() == "HostToDevice";
                queueStarts += e.value("cat").toString() == "async_task_queue";
            }
        }
        QVERIFY(stepDur > 0);
        QCOMPARE(g.steps.size(), std::size_t(1));
        const GraphStep& s = g.steps[0];
        QCOMPARE(s.name, std::string("50"));
        QVERIFY(std::abs(static_cast<double>(s.span()) - stepDur) < 2);
        QVERIFY(std::abs(static_cast<double>(s.begin) - stepTs) < 1000); // µs text through a double

        // step_trace_time.csv: Preparing is the time to the first device work, Stage the device part.
        const auto rows = parseCsv(readText(kLevel1 + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv"));
        QVERIFY(rows.size() >= 2);
        std::map<std::string, double> row;
        for (std::size_t c = 0; c < rows[0].size() && c < rows[1].size(); ++c)
            row[rows[0][c]] = std::stod(rows[1][c].empty() ? "0" : rows[1][c]);
        const double preparing = row.at("Preparing") * 1000.0, stage = row.at("Stage") * 1000.0;
        QVERIFY2(std::abs(static_cast<double>(s.preparing()) - preparing) <= 0.01 * preparing,
                 std::to_string(s.preparing()).c_str());
        QVERIFY2(std::abs(static_cast<double>(s.deviceEnd - s.deviceBegin) - stage) <= 0.01 * stage,
                 std::to_string(s.deviceEnd - s.deviceBegin).c_str());

        // Every task-queue flow starts on a Python Enqueue and becomes an edge, bound or counted.
        const auto queue = g.counts.edges[static_cast<int>(EdgeKind::TaskQueue)];
        QVERIFY(queue <= static_cast<std::uint64_t>(queueStarts));
        QVERIFY(queue + g.counts.unboundFlows + g.counts.brokenEdges >= static_cast<std::uint64_t>(queueStarts));
        // Launches: at most one per async_npu and HostToDevice flow start.
        QVERIFY(g.counts.edges[static_cast<int>(EdgeKind::Launch)] > 0);
        QVERIFY(g.counts.edges[static_cast<int>(EdgeKind::Launch)] <= static_cast<std::uint64_t>(h2dStarts) * 2);
        // The edges in (dst, src) order, and bySrc every edge once in (src, dst) order, so that
        // edgesInto() and edgesFrom() find all of a row's edges.
        const auto byDst = [](const GraphEdge& a, const GraphEdge& b) {
            return a.dst < b.dst || (a.dst == b.dst && a.src < b.src);
        };
        QVERIFY(std::is_sorted(g.edges.begin(), g.edges.end(), byDst));
        QCOMPARE(g.bySrc.size(), g.edges.size());
        std::vector<char> seen(g.edges.size(), 0);
        for (std::size_t i = 0; i < g.bySrc.size(); ++i) {
            QVERIFY(g.bySrc[i] < g.edges.size() && !seen[g.bySrc[i]]);
            seen[g.bySrc[i]] = 1;
            if (i) {
                const GraphEdge &a = g.edges[g.bySrc[i - 1]], &b = g.edges[g.bySrc[i]];
                QVERIFY(a.src < b.src || (a.src == b.src && a.dst <= b.dst));
            }
        }
        for (const GraphEdge& e : g.edges) {
            bool into = false, from = false;
            for (const GraphEdge& o : g.edgesInto(e.dst))
                into = into || &o == &e;
            for (const GraphEdge* o : g.edgesFrom(e.src))
                from = from || o == &e;
            QVERIFY(into && from);
        }
        // The Group 0 Communication ops hold their tasks on the communication stream.
        QVERIFY(g.counts.collectiveNodes > 0);
        QVERIFY(g.counts.edges[static_cast<int>(EdgeKind::Collective)] > 0);
        for (const GraphEdge& e : g.edges) {
            QVERIFY(e.src < p.slices.size() && e.dst < p.slices.size());
            if (e.kind == EdgeKind::Collective) {
                QCOMPARE(g.kind[e.src], NodeKind::Collective);
                QVERIFY(p.slices.start[e.dst] >= p.slices.start[e.src]);
                QVERIFY(p.slices.end(e.dst) <= p.slices.end(e.src) + kEdgeTolerance);
            }
            if (e.kind == EdgeKind::Launch)
                QCOMPARE(g.kind[e.dst], NodeKind::DeviceTask);
            if (e.kind == EdgeKind::TaskQueue) {
                QCOMPARE(g.role[e.src], NodeRole::Enqueue);
                QCOMPARE(g.role[e.dst], NodeRole::Dequeue);
            }
            // The sample records its waits: an inferred one never doubles a recorded one nor
            // follows a wait task, and goes forward in time from another stream.
            if (e.kind == EdgeKind::InferredWait) {
                for (const GraphEdge& o : g.edgesInto(e.dst))
                    QVERIFY(o.kind != EdgeKind::EventWait && o.kind != EdgeKind::NotifyWait);
                const std::uint32_t prev = g.streamPrev(e.dst);
                QVERIFY(prev == kNone || g.role[prev] != NodeRole::EventWait);
                QVERIFY(p.slices.track[e.src] != p.slices.track[e.dst]);
                QCOMPARE(e.at, p.slices.end(e.src));
                QVERIFY(e.at <= p.slices.start[e.dst]);
            }
        }
    }

    // No event recorded: the compute → collective and collective → compute waits are inferred
    // from timing (two_stream_fixture.h, worked out by hand).
    // Each row's parent in the real sample, found by looking back along its track for the
    // nearest slice one level up, against the graph's two-byte column.
    void realLevel1Parents()
    {
        const LoadResult lr = loadSession(kLevel1);
        QVERIFY2(lr.session && !lr.session->ranks.empty(), lr.error.c_str());
        const Profile& p = *lr.session->ranks.front();
        const StepGraph g = buildStepGraph(p);
        QCOMPARE(g.parent.size(), p.slices.size());
        std::size_t nested = 0;
        for (const Track& t : p.tracks) {
            const bool node = t.kind == TrackKind::Python || t.kind == TrackKind::Cann || t.kind == TrackKind::Stream
                              || t.kind == TrackKind::CommGroup;
            for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r) {
                std::uint32_t want = kNone;
                if (node && p.slices.depth[r] > 0)
                    for (std::uint32_t q = r; q > t.sliceBegin && want == kNone;)
                        if (--q, p.slices.depth[q] + 1 == p.slices.depth[r])
                            want = q;
                QCOMPARE(g.parent[r], want);
                nested += want != kNone;
            }
        }
        QVERIFY(nested > 1000);
    }

    // The compact per-row columns: parents near (a row count back) and far (looked up, set in
    // any order), steps in two bytes and, past 65534 steps, in four; an edge's packed fields.
    void compactColumns()
    {
        RowParents parents;
        parents.assign(200000);
        parents.set(10, 3);
        parents.set(65544, 10); // 65534 back: the last near one
        parents.set(150000, 1); // far
        parents.set(120000, 2); // far, set after a later row
        parents.set(70000, kNone);
        parents.finish();
        QCOMPARE(parents[10], std::uint32_t(3));
        QCOMPARE(parents[65544], std::uint32_t(10));
        QCOMPARE(parents[150000], std::uint32_t(1));
        QCOMPARE(parents[120000], std::uint32_t(2));
        QCOMPARE(parents[70000], kNone);
        QCOMPARE(parents[11], kNone);

        RowSteps steps;
        steps.assign(5, 3);
        steps.set(2, 1);
        QCOMPARE(steps[2], 1);
        QCOMPARE(steps[0], -1);
        QCOMPARE(steps.size(), std::size_t(5));
        steps.assign(5, 70000);
        steps.set(1, 69999);
        QCOMPARE(steps[1], 69999);
        QCOMPARE(steps[0], -1);
        QCOMPARE(steps[2], -1);

        GraphEdge e;
        e.src = 7;
        e.dst = kMaxGraphRows - 1;
        e.kind = EdgeKind::InferredWait;
        e.byId = false;
        e.at = -5;
        QCOMPARE(std::uint32_t(e.dst), std::uint32_t(kMaxGraphRows - 1));
        QCOMPARE(e.kind, EdgeKind::InferredWait);
        QCOMPARE(bool(e.byId), false);
        QCOMPARE(e.at, TimeNs(-5));
        QCOMPARE(e.src, std::uint32_t(7));
    }

    void inferredWaits()
    {
        TwoStreamFixture f;
        const StepGraph g = buildStepGraph(f.p);
        const std::uint32_t c0 = f.row("MatMul_C0", f.s2), c1 = f.row("Add_C1", f.s2);
        const std::uint32_t a0 = f.row("hcom_broadcast__A0", f.s4), a1 = f.row("hcom_allReduce__A1", f.s4);
        const std::uint32_t op = f.row("hcom_allReduce__A1", f.group);
        QVERIFY(c0 != kNone && c1 != kNone && a0 != kNone && a1 != kNone && op != kNone);
        QCOMPARE(std::string(edgeKindName(EdgeKind::InferredWait)), std::string("inferred_wait"));
        QCOMPARE(g.counts.edges[static_cast<int>(EdgeKind::Launch)], std::uint64_t(4));
        QCOMPARE(g.counts.edges[static_cast<int>(EdgeKind::Collective)], std::uint64_t(1));
        QCOMPARE(g.counts.edges[static_cast<int>(EdgeKind::EventWait)], std::uint64_t(0));
        // A1 started at 60 µs when C0 ended, after A0 (40 µs) and its launch (6 µs); C1 at 125 µs,
        // after A1 ended at 120 µs, later than C0 (60 µs) and its launch (8 µs).
        QCOMPARE(g.counts.edges[static_cast<int>(EdgeKind::InferredWait)], std::uint64_t(2));
        const auto inferredInto = [&](std::uint32_t row) {
            const GraphEdge* found = nullptr;
            for (const GraphEdge& e : g.edgesInto(row))
                if (e.kind == EdgeKind::InferredWait)
                    found = &e;
            return found;
        };
        const GraphEdge* intoA1 = inferredInto(a1);
        QVERIFY(intoA1);
        QCOMPARE(intoA1->src, c0);
        QCOMPARE(intoA1->at, TimeNs(60000));
        const GraphEdge* intoC1 = inferredInto(c1);
        QVERIFY(intoC1);
        QCOMPARE(intoC1->src, a1);
        QCOMPARE(intoC1->at, TimeNs(120000));
        // The first tasks of their streams and the only op of its group have no predecessor to
        // be later than: nothing inferred.
        QVERIFY(!inferredInto(c0));
        QVERIFY(!inferredInto(a0));
        QVERIFY(!inferredInto(op));
        QVERIFY(std::is_sorted(g.edges.begin(), g.edges.end(), [](const GraphEdge& a, const GraphEdge& b) {
            return a.dst < b.dst || (a.dst == b.dst && a.src < b.src);
        }));
        const auto from = g.edgesFrom(a1);
        QCOMPARE(from.size(), std::size_t(1));
        QCOMPARE(from[0]->dst, c1);
        bool said = false;
        for (const std::string& m : g.steps[0].missing)
            said = said || m == "2 cross-stream waits inferred from timing (no event recorded)";
        QVERIFY(said);
    }
};

NPUSCOPE_TEST_APPLESS_MAIN(TestStepGraph)

} // namespace test_step_graph

#include "test_step_graph.moc"
