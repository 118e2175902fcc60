// The what-if replay on hand-built ranks: a scaled op type on a device-bound chain shortens the
// step by exactly its saving; on a host-bound chain it changes nothing; a synchronize moves the
// step end (and without it the host's last work holds it); a backwards flow is dropped and
// reported; no change replays every step as measured. The replay's bound-by is the critical
// path's walk on the replayed times: without changes it is criticalPaths()' to the ns on planted,
// generated and real ranks; a scaled compute type takes exactly its saving off the path's
// compute; the shares add up to the replayed span (on the real level-1 rank, to its
// ProfilerStep's duration in the trace). Expected values are worked out from the planted rows,
// the generator or the trace file, not from the replay.
#include "test_main.h"
#include "real_ranks.h"
#include "analysis_fixtures.h"
#include "causal_fixture.h"
#include "model/analysis/critical_path.h"
#include "model/analysis/whatif.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

namespace test_whatif {

using namespace npuscope;
using namespace npuscope::testing;
using namespace npuscope::fixtures;

namespace {

struct Chain {
    Profile p;
    TrackId py, cann, s2;
    TimeNs stepEnd = 0, matmulNs = 0, deviceEnd = 0;
    int flows = 0;

    void flow(TrackId src, TimeNs srcTs, TimeNs dstTs)
    {
        FlowTable& f = p.flows;
        f.category.push_back(p.strings.intern("async_npu"));
        f.name.push_back(p.strings.intern("async_npu"));
        f.addId(std::to_string(++flows), p.strings);
        f.srcTs.push_back(srcTs);
        f.dstTs.push_back(dstTs);
        f.srcTrack.push_back(src);
        f.dstTrack.push_back(s2);
    }
    // n tasks of 50 µs, MatMul and Add alternating. Device-bound: all launched at the start, each
    // 1 µs after its predecessor. Host-bound: each launched 100 µs after the previous one and
    // starting 5 µs after its launch. Then, with `sync`, a synchronize until the device drains
    // (+5 µs) and 20 µs of Python after it; without, 20 µs of Python ending `tail` after the device.
    Chain(int n, bool hostBound, bool sync, TimeNs tail = 10000)
    {
        py = addTrack(p, 100, 1, TrackKind::Python, "Python", "Thread 1");
        cann = addTrack(p, 200, 1, TrackKind::Cann, "CANN", "Thread 1");
        s2 = addTrack(p, 300, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2");
        TimeNs dev = 10000, host = 1000;
        for (int i = 0; i < n; ++i) {
            const bool mm = i % 2 == 0;
            const TimeNs launch = hostBound ? 1000 + 100000 * i : host;
            addSlice(p, py, mm ? "aten::mm" : "aten::add", "cpu_op", launch, 2000);
            host = launch + 3000;
            const TimeNs start = hostBound ? launch + 1000 + 5000 : std::max(dev + 1000, launch + 1000 + 5000);
            flow(py, launch + 1000, start);
            addSlice(p, s2, mm ? "MatMul_" + std::to_string(i) : "Add_" + std::to_string(i), "AI_CORE", start, 50000);
            if (mm)
                matmulNs += 50000;
            dev = start + 50000;
        }
        deviceEnd = dev;
        if (sync) {
            addSlice(p, cann, "AscendCL@aclrtSynchronizeStream", "", host, dev + 5000 - host);
            addSlice(p, py, "sample_tokens", "python_function", dev + 6000, 20000);
            stepEnd = dev + 30000;
        } else {
            addSlice(p, py, "sample_tokens", "python_function", dev + tail - 20000, 20000);
            stepEnd = dev + tail + 4000;
        }
        addSlice(p, py, "ProfilerStep#1", "cpu_op", 0, stepEnd);
        p.finalize();
    }
};

WhatIfChanges scale(const char* type, double f)
{
    WhatIfChanges c;
    c.scaleTypes.emplace_back(type, f);
    return c;
}

TimeNs sum(const std::vector<std::pair<std::string, TimeNs>>& v)
{
    TimeNs t = 0;
    for (const auto& kv : v)
        t += kv.second;
    return t;
}

double sum(const std::vector<std::pair<std::string, double>>& v)
{
    double t = 0;
    for (const auto& kv : v)
        t += kv.second;
    return t;
}

TimeNs kindOf(const WhatIfStep& s, PathKind k)
{
    for (const auto& [key, ns] : s.boundBy)
        if (key == pathKindKey(k))
            return ns;
    return -1;
}

// A replay without changes: every step's bound-by is the measured critical path's, kind by kind,
// and adds up to the step span. Returns the number of steps compared.
std::size_t sameAsCriticalPath(const Profile& p)
{
    const StepGraph g = buildStepGraph(p);
    const IdleCauses idle = idleCauses(p, g);
    const CriticalPaths c = criticalPaths(p, g, idle);
    const WhatIfResult r = replayWhatIf(p, {});
    if (!r.ok || r.steps.size() != c.steps.size()) {
        qWarning("replay failed or step count differs: %s", r.error.c_str());
        return 0;
    }
    for (std::size_t si = 0; si < c.steps.size(); ++si) {
        const WhatIfStep& ws = r.steps[si];
        if (ws.boundBy.size() != kPathKindCount)
            return 0;
        for (std::size_t k = 0; k < kPathKindCount; ++k)
            if (ws.boundBy[k].first != pathKindKey(static_cast<PathKind>(k))
                || ws.boundBy[k].second != c.steps[si].boundBy[k]) {
                qWarning("step %s, %s: replay %lld, critical path %lld", ws.name.c_str(), ws.boundBy[k].first.c_str(),
                         static_cast<long long>(ws.boundBy[k].second), static_cast<long long>(c.steps[si].boundBy[k]));
                return 0;
            }
        if (sum(ws.boundBy) != ws.replayedSpanNs || ws.replayedSpanNs != g.steps[si].span())
            return 0;
    }
    return c.steps.size();
}

QString level1Rank0()
{
    return QString::fromStdString(std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");
}

bool noted(const WhatIfResult& r, const char* text)
{
    for (const auto& n : r.notes)
        if (n.find(text) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestWhatIf : public QObject {
    Q_OBJECT
private slots:
    void noChangeReplaysAsMeasured()
    {
        CausalFixture f;
        const WhatIfResult r = replayWhatIf(f.p, {});
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.steps.size(), std::size_t(1));
        QCOMPARE(r.steps[0].measuredNs, 1000000.0);
        QCOMPARE(r.steps[0].predictedNs, r.steps[0].measuredNs);
        QCOMPARE(r.predictedStepNs, r.measuredStepNs);
        Chain c(8, false, true);
        const WhatIfResult r2 = replayWhatIf(c.p, {});
        QCOMPARE(r2.predictedStepNs, static_cast<double>(c.stepEnd));
    }

    void scaledOpOnDeviceBoundChain()
    {
        Chain c(8, false, true);
        const WhatIfResult r = replayWhatIf(c.p, scale("MatMul_0", 0.5));
        QVERIFY(r.ok);
        // One task scaled by half: the chain and the sync end 25 µs earlier.
        QCOMPARE(r.predictedStepNs, static_cast<double>(c.stepEnd) - 25000.0);
        // Every MatMul (matched by name, no kernel rows) at 0.4: Σ of their 0.6 · dur.
        WhatIfChanges all;
        for (int i = 0; i < 8; i += 2)
            all.scaleTypes.emplace_back("matmul_" + std::to_string(i), 0.4);
        const WhatIfResult r2 = replayWhatIf(c.p, all);
        QCOMPARE(r2.predictedStepNs, static_cast<double>(c.stepEnd) - 0.6 * static_cast<double>(c.matmulNs));
        QCOMPARE(r2.measuredStepNs, static_cast<double>(c.stepEnd));
        double bound = 0;
        for (const auto& [kind, ns] : r2.boundBy)
            bound += ns;
        QVERIFY(bound > 0);
    }

    void hostBoundChainDoesNotChange()
    {
        Chain c(6, true, false, 60000);
        QVERIFY(c.deviceEnd < c.stepEnd);
        const WhatIfResult r = replayWhatIf(c.p, scale("MatMul_2", 0.1));
        QVERIFY(r.ok);
        QCOMPARE(r.predictedStepNs, r.measuredStepNs);
        QCOMPARE(r.measuredStepNs, static_cast<double>(c.stepEnd));
    }

    void syncMovesTheStepEnd()
    {
        // The Python after the sync ends 30 µs after the device; without the sync it ends 10 µs
        // after the device and does not wait for it.
        Chain withSync(4, false, true), without(4, false, false, 10000);
        const WhatIfChanges c = scale("MatMul_2", 0.2); // saves 40 µs, more than the 10 µs tail
        const WhatIfResult a = replayWhatIf(withSync.p, c), b = replayWhatIf(without.p, c);
        QCOMPARE(a.predictedStepNs, static_cast<double>(withSync.stepEnd) - 40000.0);
        QCOMPARE(b.predictedStepNs, static_cast<double>(without.stepEnd));
    }

    void cycleIsBrokenAndReported()
    {
        CausalFixture f; // holds a launch flow drawn backwards in time
        const WhatIfResult r = replayWhatIf(f.p, scale("AI_CORE", 1.0));
        QVERIFY(r.ok);
        QVERIFY(noted(r, "back in time"));
        QCOMPARE(r.predictedStepNs, r.measuredStepNs);
    }

    void noChangeBoundByIsTheCriticalPath()
    {
        CausalFixture f;
        QCOMPARE(sameAsCriticalPath(f.p), std::size_t(1));
        for (const bool hostBound : {false, true})
            for (const bool sync : {false, true}) {
                Chain c(6, hostBound, sync, 60000);
                QCOMPARE(sameAsCriticalPath(c.p), std::size_t(1));
            }
        // Generated ranks of several steps, with collectives.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        synth::SynthOptions o;
        o.steps = 5;
        const synth::SynthResult truth = synth::synthesize(dir.filePath("run").toStdString(), o);
        QVERIFY2(truth.ok, truth.error.c_str());
        const LoadResult lr = loadSession(dir.filePath("run").toStdString());
        QVERIFY2(lr.session && !lr.session->ranks.empty(), lr.error.c_str());
        for (const auto& rank : lr.session->ranks)
            QVERIFY(sameAsCriticalPath(*rank) >= std::size_t(truth.steps));
    }

    void noChangeBoundByOnRealSamples_data() { addRealRankRows(); }
    void noChangeBoundByOnRealSamples()
    {
        QFETCH(QString, dir);
        const LoadResult lr = loadSession(dir.toStdString());
        QVERIFY2(lr.session && !lr.session->ranks.empty(), lr.error.c_str());
        QVERIFY(sameAsCriticalPath(*lr.session->ranks.front()) >= std::size_t(1));
    }

    void scaledComputeLeavesThePath()
    {
        // Device-bound: every task waits for its stream predecessor, so all 8 are on the path
        // before and after; MatMul at 0.4 takes 0.6 of the planted MatMul time off its compute.
        Chain c(8, false, true);
        const StepGraph g = buildStepGraph(c.p);
        const CriticalPaths measured = criticalPaths(c.p, g, idleCauses(c.p, g));
        const TimeNs compute0 = measured.steps[0].boundBy[static_cast<std::size_t>(PathKind::Compute)];
        QCOMPARE(compute0, TimeNs(8 * 50000)); // the 8 planted tasks of 50 µs
        WhatIfChanges all;
        for (int i = 0; i < 8; i += 2)
            all.scaleTypes.emplace_back("MatMul_" + std::to_string(i), 0.4);
        const WhatIfResult r = replayWhatIf(c.p, all);
        QVERIFY(r.ok);
        const TimeNs saved = roundNs(0.6 * static_cast<double>(c.matmulNs));
        QCOMPARE(kindOf(r.steps[0], PathKind::Compute), compute0 - saved);
        QCOMPARE(r.steps[0].replayedSpanNs, c.stepEnd - saved);
        QCOMPARE(sum(r.steps[0].boundBy), r.steps[0].replayedSpanNs);
        // The result's shares are that (only, so median) step's, the critical path's six kinds.
        QCOMPARE(r.boundByStep, g.steps[0].name);
        QCOMPARE(r.boundBySpanNs, c.stepEnd - saved);
        QCOMPARE(r.boundBy.size(), kPathKindCount);
        QCOMPARE(sum(r.boundBy), static_cast<double>(r.boundBySpanNs));
        double compute = -1;
        for (const auto& [k, v] : r.boundBy)
            if (k == "compute")
                compute = v;
        QCOMPARE(compute, static_cast<double>(compute0 - saved));
        // The idle split by cause adds up to the idle share.
        double idle = 0;
        for (const auto& [k, v] : r.boundBy)
            if (k == "idle")
                idle = v;
        QCOMPARE(sum(r.idleByCause), idle);
    }

    void sharesSumToReplayedSpan()
    {
        // Generated steps with one op type halved and comm overlapped: every step's path adds up
        // to its replayed span, and the result's shares to the median complete step's.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        synth::SynthOptions o;
        o.steps = 5;
        QVERIFY(synth::synthesize(dir.filePath("run").toStdString(), o).ok);
        const LoadResult lr = loadSession(dir.filePath("run").toStdString());
        QVERIFY(lr.session && !lr.session->ranks.empty());
        WhatIfChanges ch = scale("MatMulV2", 0.5);
        ch.overlapComm = true;
        const WhatIfResult r = replayWhatIf(*lr.session->ranks.front(), ch);
        QVERIFY2(r.ok, r.error.c_str());
        std::vector<TimeNs> spans;
        for (const WhatIfStep& s : r.steps) {
            QCOMPARE(sum(s.boundBy), s.replayedSpanNs);
            if (!s.partial)
                spans.push_back(s.replayedSpanNs);
        }
        QVERIFY(!spans.empty());
        std::sort(spans.begin(), spans.end());
        QCOMPARE(r.boundBySpanNs, spans[(spans.size() - 1) / 2]);
        QCOMPARE(sum(r.boundBy), static_cast<double>(r.boundBySpanNs));
        QCOMPARE(r.boundByOf, std::string("median complete step"));
    }

    void realLevel1SharesSumToItsStep()
    {
        // ProfilerStep#50's "dur" in the trace (µs with decimals) is the step the shares tile.
        const QString dir = level1Rank0();
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
        const LoadResult lr = loadSession(dir.toStdString());
        QVERIFY2(lr.session && !lr.session->ranks.empty(), lr.error.c_str());
        const Profile& p = *lr.session->ranks.front();
        const WhatIfResult r = replayWhatIf(p, {});
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.boundBy.size(), kPathKindCount);
        QVERIFY(std::abs(static_cast<double>(r.boundBySpanNs) - stepDur) < 2);
        QCOMPARE(sum(r.boundBy), static_cast<double>(r.boundBySpanNs));
        for (const auto& [k, v] : r.boundBy)
            QVERIFY2(v >= 0 && v <= stepDur + 2, k.c_str());
        // Halving the rank's most frequent compute type: still a tiling of the replayed step.
        const StepGraph g = buildStepGraph(p);
        std::map<std::string, int> types;
        for (std::uint32_t row : g.deviceByStart)
            if (g.role[row] == NodeRole::Compute)
                ++types[std::string(p.str(p.slices.name[row]))];
        QVERIFY(!types.empty());
        const auto top = std::max_element(types.begin(), types.end(),
                                          [](const auto& a, const auto& b) { return a.second < b.second; });
        const WhatIfResult r2 = replayWhatIf(p, scale(top->first.c_str(), 0.5));
        QVERIFY(r2.ok);
        for (const WhatIfStep& s : r2.steps)
            QCOMPARE(sum(s.boundBy), s.replayedSpanNs);
        QCOMPARE(sum(r2.boundBy), static_cast<double>(r2.boundBySpanNs));
        QVERIFY(r2.boundBySpanNs <= r.boundBySpanNs);
    }

    void badChangesAreRefused()
    {
        Chain c(2, false, true);
        WhatIfChanges bad;
        bad.removeCauses.push_back("no-such-cause");
        const WhatIfResult r = replayWhatIf(c.p, bad);
        QVERIFY(!r.ok);
        QVERIFY(r.error.find("unknown cause") != std::string::npos);
        const WhatIfResult r2 = replayWhatIf(c.p, scale("MatMul_0", -1));
        QVERIFY(!r2.ok);
        Profile empty;
        empty.finalize();
        QVERIFY(!replayWhatIf(empty, {}).ok);
    }

    // Rows in a few ascending runs are merged, in many runs sorted: either way as a stable sort.
    void sortRunsIsAStableSort()
    {
        for (const std::size_t runs : {1, 2, 3, 5, 16, 17, 40}) {
            std::vector<std::pair<std::uint32_t, int>> v;
            std::uint32_t x = 12345;
            for (std::size_t r = 0; r < runs; ++r) {
                std::uint32_t row = (x = x * 1103515245u + 12345u) % 50;
                for (int i = 0; i < 30; ++i, row += (x = x * 1103515245u + 12345u) % 3) // repeats within a run
                    v.emplace_back(row, static_cast<int>(v.size()));
            }
            auto want = v;
            const auto byRow = [](const auto& a, const auto& b) { return a.first < b.first; };
            std::stable_sort(want.begin(), want.end(), byRow);
            stableSortByRuns(v, byRow);
            QCOMPARE(v, want);
        }
    }

    // Changes compose row by row whatever order their rows come in: scales multiply, savings
    // add, fused rows unite; a row of one side only keeps its value.
    void changesComposeByRow()
    {
        WhatIfChanges a, b;
        a.scaleRows.merge({{7, 0.5}, {3, 0.8}}, [](double, double y) { return y; });
        a.saveRows.merge({{9, 100}, {2, 40}, {9, 5}}, [](TimeNs x, TimeNs y) { return x + y; });
        a.fusedRows.insert({12, 4, 12});
        b.scaleRows.merge({{3, 0.5}, {1, 0.25}}, [](double, double y) { return y; });
        b.saveRows.merge({{2, 60}}, [](TimeNs x, TimeNs y) { return x + y; });
        b.fusedRows.insert({4, 6});
        a.add(b);
        QCOMPARE(a.scaleRows.size(), std::size_t(3));
        QCOMPARE(*a.scaleRows.find(1), 0.25);
        QCOMPARE(*a.scaleRows.find(3), 0.4);
        QCOMPARE(*a.scaleRows.find(7), 0.5);
        QVERIFY(a.scaleRows.find(2) == nullptr);
        QCOMPARE(*a.saveRows.find(9), TimeNs(105));
        QCOMPARE(*a.saveRows.find(2), TimeNs(100));
        QCOMPARE(std::vector<std::uint32_t>(a.fusedRows.begin(), a.fusedRows.end()), (std::vector<std::uint32_t>{4, 6, 12}));
        QVERIFY(a.fusedRows.contains(6) && !a.fusedRows.contains(5));
        const auto odd = a.saveRows.filtered([](std::uint32_t r) { return r % 2 == 1; });
        QCOMPARE(odd.size(), std::size_t(1));
        QCOMPARE(odd.begin()->first, 9u);
        const std::vector<std::string> said = a.describe();
        QVERIFY(std::find(said.begin(), said.end(), "shorten 2 tasks by 0.000 ms in all (HBM round trips saved)")
                != said.end());
        QVERIFY(std::find(said.begin(), said.end(), "fuse 3 tasks into their stream predecessors (no gap, no launch)")
                != said.end());
    }
};

NPUSCOPE_TEST_APPLESS_MAIN(TestWhatIf)

} // namespace test_whatif

#include "test_whatif.moc"
