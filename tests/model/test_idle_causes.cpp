// Idle causes: on the hand-built rank of causal_fixture.h every planted cause is found with the
// time worked out there; on the real torch_npu samples the causes of each step add up to its
// idle time to the nanosecond and to step_trace_time.csv's Free (read with the test's own CSV
// parser) within 1 %, and the causes of its Preparing to its Preparing; a Level0 export, which
// has no launch flows, says so and attributes the host side to `unknown`. A data loader before
// the step's first launch is the step's Preparing, attributed apart from its Free.
#include "test_main.h"
#include "real_ranks.h"
#include "causal_fixture.h"
#include "cli_run.h"
#include "csv_records.h"
#include "model/analysis/idle_causes.h"
#include "model/formats/loader.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace test_idle_causes {

using namespace npuscope;
using namespace npuscope::testing;
using namespace npuscope::fixtures;

namespace {

// A column (µs) of step_trace_time.csv by step, by its own parser.
std::map<std::string, double> stepColumn(const std::string& dir, const std::string& column)
{
    std::ifstream in(dir + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
    std::stringstream ss;
    ss << in.rdbuf();
    const auto rows = parseCsv(ss.str());
    std::map<std::string, double> out;
    if (rows.empty())
        return out;
    int step = -1, col = -1;
    for (std::size_t c = 0; c < rows[0].size(); ++c) {
        if (rows[0][c] == "Step")
            step = static_cast<int>(c);
        if (rows[0][c] == column)
            col = static_cast<int>(c);
    }
    for (std::size_t r = 1; r < rows.size(); ++r)
        if (step >= 0 && col >= 0 && rows[r].size() > static_cast<std::size_t>(col))
            out[rows[r][static_cast<std::size_t>(step)]] = std::stod(rows[r][static_cast<std::size_t>(col)]);
    return out;
}

// step_trace_time.csv's Free (µs) of each step.
std::map<std::string, double> freeOf(const std::string& dir)
{
    return stepColumn(dir, "Free");
}

TimeNs causeNs(const IdleCauses& c, IdleCause cause)
{
    return c.totals[static_cast<std::size_t>(cause)];
}

TimeNs preparingNs(const IdleCauses& c, IdleCause cause)
{
    return c.preparingTotals[static_cast<std::size_t>(cause)];
}

// The Preparing gaps of each step tile [begin, deviceBegin) exactly, and its per-cause sums are theirs.
void checkPreparing(const StepGraph& g, const IdleCauses& c)
{
    QCOMPARE(c.steps.size(), g.steps.size());
    TimeNs all = 0;
    for (std::size_t si = 0; si < g.steps.size(); ++si) {
        const GraphStep& s = g.steps[si];
        QCOMPARE(c.steps[si].preparingNs, s.deviceBegin - s.begin);
        TimeNs sum = 0;
        for (TimeNs v : c.steps[si].preparingByCause)
            sum += v;
        QCOMPARE(sum, c.steps[si].preparingNs);
        IdleByCause byGap{};
        TimeNs at = s.begin; // the pieces, in order, leave no hole
        for (const IdleGap& gap : c.preparingGaps)
            if (gap.step == static_cast<int>(si)) {
                QVERIFY(gap.preparing);
                QCOMPARE(gap.start, at);
                QVERIFY(gap.end > gap.start);
                at = gap.end;
                byGap[static_cast<std::size_t>(gap.cause)] += gap.dur();
            }
        QCOMPARE(at, s.deviceBegin);
        QVERIFY(byGap == c.steps[si].preparingByCause);
        all += c.steps[si].preparingNs;
    }
    QCOMPARE(c.preparingNs, all);
    for (const IdleGap& gap : c.gaps)
        QVERIFY(!gap.preparing);
}

// The gaps of each step tile its idle set exactly, and the per-cause sums are theirs.
void checkPartition(const StepGraph& g, const IdleCauses& c)
{
    QCOMPARE(c.steps.size(), g.steps.size());
    for (std::size_t si = 0; si < g.steps.size(); ++si) {
        const GraphStep& s = g.steps[si];
        TimeNs sum = 0;
        for (TimeNs v : c.steps[si].byCause)
            sum += v;
        QCOMPARE(sum, s.idleNs);
        QCOMPARE(c.steps[si].idleNs, s.idleNs);
        std::vector<Interval> pieces;
        IdleByCause byGap{};
        for (const IdleGap& gap : c.gaps)
            if (gap.step == static_cast<int>(si)) {
                QVERIFY(gap.end > gap.start);
                pieces.push_back({gap.start, gap.end});
                byGap[static_cast<std::size_t>(gap.cause)] += gap.dur();
            }
        QVERIFY(byGap == c.steps[si].byCause);
        TimeNs piecesNs = 0;
        for (const Interval& iv : pieces)
            piecesNs += iv.end - iv.begin;
        QCOMPARE(piecesNs, s.idleNs); // no overlap: the union has the same length as the sum
        QCOMPARE(totalLength(uniteIntervals(pieces)), s.idleNs);
        QCOMPARE(totalLength(intersectIntervals(uniteIntervals(pieces), s.idle)), s.idleNs);
    }
    checkPreparing(g, c);
}

} // namespace

class TestIdleCauses : public QObject {
    Q_OBJECT
private slots:
    void plantedCauses()
    {
        CausalFixture f;
        const StepGraph g = buildStepGraph(f.p);
        QCOMPARE(g.steps.size(), std::size_t(1));
        QCOMPARE(g.steps[0].deviceBegin, TimeNs(10000));
        QCOMPARE(g.steps[0].deviceEnd, TimeNs(260000));
        // Eight gaps of 20 µs between the nine 10 µs tasks.
        QCOMPARE(g.steps[0].idleNs, TimeNs(8 * 20000));
        const IdleCauses c = idleCauses(f.p, g);
        checkPartition(g, c);
        // Worked out in causal_fixture.h: gap 1 has 16 µs of Python, gap 8 2.5 µs (2 of
        // optimizer_step, 0.5 of Enqueue before its flow leaves).
        QCOMPARE(causeNs(c, IdleCause::HostPython), TimeNs(16000 + 2500));
        QCOMPARE(causeNs(c, IdleCause::Sync), TimeNs(16000));
        QCOMPARE(causeNs(c, IdleCause::Compile), TimeNs(16000));
        QCOMPARE(causeNs(c, IdleCause::DataLoader), TimeNs(16000));
        QCOMPARE(causeNs(c, IdleCause::Unknown), TimeNs(16000));
        QCOMPARE(causeNs(c, IdleCause::Dependency), TimeNs(20000));
        QCOMPARE(causeNs(c, IdleCause::CommWait), TimeNs(20000));
        // Gaps 1-5: the launch call's last 1 µs and 3 µs of dispatch each; gap 8: 14 µs in the
        // task queue (232.5 to 246.5) and 3.5 µs of dispatch.
        QCOMPARE(causeNs(c, IdleCause::Launch), TimeNs(5 * 4000 + 14000 + 3500));
        QCOMPARE(c.idleNs, TimeNs(160000));
        // Preparing [0, 10) µs before T0: nothing recorded to 1 µs, T0's own launch call (aten::empty
        // from 1 µs, its flow leaving at 2 µs), then 8 µs of dispatch.
        QCOMPARE(c.preparingNs, TimeNs(10000));
        QCOMPARE(preparingNs(c, IdleCause::Unknown), TimeNs(1000));
        QCOMPARE(preparingNs(c, IdleCause::Launch), TimeNs(1000 + 8000));

        // The responsible slices.
        const auto gapAt = [&](TimeNs t) -> const IdleGap* {
            for (const IdleGap& gap : c.gaps)
                if (gap.start <= t && t < gap.end)
                    return &gap;
            return nullptr;
        };
        const IdleGap* sync = gapAt(55000);
        QVERIFY(sync);
        QCOMPARE(sync->cause, IdleCause::Sync);
        QCOMPARE(sync->start, TimeNs(50000));
        QCOMPARE(sync->end, TimeNs(66000));
        QCOMPARE(sync->hostSlice, f.row("AscendCL@aclrtSynchronizeStream"));
        QCOMPARE(sync->task, f.row("Mul_T2"));
        QCOMPARE(gapAt(85000)->hostSlice, f.row("AscendCL@aclopCompileAndExecute"));
        QCOMPARE(gapAt(115000)->hostSlice, f.row("torch/utils/data/dataloader.py(630): __next__"));
        QCOMPARE(gapAt(25000)->hostSlice, f.row("python_work"));
        QCOMPARE(gapAt(25000)->cause, IdleCause::HostPython);
        QCOMPARE(gapAt(36500)->cause, IdleCause::Launch);
        QCOMPARE(gapAt(36500)->hostSlice, f.row("aten::add"));
        QCOMPARE(gapAt(145000)->cause, IdleCause::Unknown);
        QVERIFY(idleGapReason(f.p, *gapAt(145000)).find("no recorded work") != std::string::npos);
        QCOMPARE(gapAt(175000)->cause, IdleCause::Dependency);
        QCOMPARE(gapAt(175000)->waitedOn, f.row("EVENT_RECORD"));
        QCOMPARE(gapAt(205000)->cause, IdleCause::CommWait);
        QCOMPARE(gapAt(240000)->cause, IdleCause::Launch);
        QVERIFY(std::string(gapAt(240000)->reason).find("task queue") != std::string::npos);
        QCOMPARE(gapAt(231000)->hostSlice, f.row("optimizer_step"));
        QCOMPARE(gapAt(232200)->hostSlice, f.row("Enqueue"));
        QCOMPARE(gapAt(248000)->hostSlice, f.row("Node@launch"));
    }

    // A data loader before the step's first launch: the device waits from the step's start to its
    // first task, which step_trace_time counts as Preparing, not Free. Step [0, 200) µs; the
    // loader's __next__ [5, 45) µs on the main thread; aten::mm [45, 47) launches MatMul at 46 µs,
    // which runs [60, 70); aten::add [70, 72) launches Add at 71 µs, which runs [90, 100).
    void preparingDataLoader()
    {
        Profile p;
        const TrackId py = addTrack(p, 100, 1, TrackKind::Python, "Python", "Thread 1");
        addTrack(p, 200, 1, TrackKind::Cann, "CANN", "Thread 1");
        const TrackId s2 = addTrack(p, 300, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2");
        const auto flow = [&](TimeNs srcTs, TimeNs dstTs) {
            FlowTable& f = p.flows;
            f.category.push_back(p.strings.intern("async_npu"));
            f.name.push_back(p.strings.intern("async_npu"));
            f.addId(std::to_string(f.size() + 1), p.strings);
            f.srcTs.push_back(srcTs);
            f.dstTs.push_back(dstTs);
            f.srcTrack.push_back(py);
            f.dstTrack.push_back(s2);
        };
        addSlice(p, py, "ProfilerStep#7", "cpu_op", 0, 200000);
        addSlice(p, py, "torch/utils/data/dataloader.py(630): __next__", "python_function", 5000, 40000);
        addSlice(p, py, "aten::mm", "cpu_op", 45000, 2000);
        flow(46000, 60000);
        addSlice(p, s2, "MatMul", "AI_CORE", 60000, 10000);
        addSlice(p, py, "aten::add", "cpu_op", 70000, 2000);
        flow(71000, 90000);
        addSlice(p, s2, "Add", "AI_CORE", 90000, 10000);
        p.finalize();

        const StepGraph g = buildStepGraph(p);
        QCOMPARE(g.steps.size(), std::size_t(1));
        QCOMPARE(g.steps[0].begin, TimeNs(0));
        QCOMPARE(g.steps[0].deviceBegin, TimeNs(60000));
        QCOMPARE(g.steps[0].idleNs, TimeNs(20000)); // Free: [70, 90) between the two tasks
        const IdleCauses c = idleCauses(p, g);
        checkPartition(g, c);
        // Free: the add's launch call [70, 71) and its dispatch [71, 90), nothing of the loader.
        QCOMPARE(causeNs(c, IdleCause::Launch), TimeNs(20000));
        QCOMPARE(causeNs(c, IdleCause::DataLoader), TimeNs(0));
        // Preparing [0, 60): nothing recorded [0, 5), the loader [5, 45), aten::mm's own launch
        // call [45, 46), dispatch [46, 60).
        QCOMPARE(c.steps[0].preparingNs, TimeNs(60000));
        QCOMPARE(preparingNs(c, IdleCause::Unknown), TimeNs(5000));
        QCOMPARE(preparingNs(c, IdleCause::DataLoader), TimeNs(40000));
        QCOMPARE(preparingNs(c, IdleCause::Launch), TimeNs(1000 + 14000));
        QCOMPARE(c.preparingGaps.size(), std::size_t(4));
        const IdleGap& loader = c.preparingGaps[1];
        QCOMPARE(loader.cause, IdleCause::DataLoader);
        QCOMPARE(loader.start, TimeNs(5000));
        QCOMPARE(loader.end, TimeNs(45000));
        QVERIFY(loader.preparing);
        QCOMPARE(p.str(p.slices.name[loader.hostSlice]), std::string_view("torch/utils/data/dataloader.py(630): __next__"));
        QCOMPARE(p.str(p.slices.name[loader.task]), std::string_view("MatMul"));
    }

    void realSamplesAddUpToFree_data()
    {
        QTest::addColumn<QString>("level");
        QTest::addColumn<int>("rank");
        for (const char* level : {"level1", "level2"})
            for (int rank : {0, 1})
                QTest::newRow((std::string(level) + " rank" + std::to_string(rank)).c_str()) << QString(level) << rank;
    }
    void realSamplesAddUpToFree()
    {
        QFETCH(QString, level);
        QFETCH(int, rank);
        const std::string dir = realRankDir(level.toStdString(), rank);
        const LoadResult lr = loadSession(dir);
        QVERIFY2(lr.session && !lr.session->ranks.empty(), (dir + ": " + lr.error).c_str());
        const Profile& p = *lr.session->ranks.front();
        const StepGraph g = buildStepGraph(p);
        const IdleCauses c = idleCauses(p, g);
        checkPartition(g, c);
        const auto free = freeOf(dir);
        QVERIFY2(!free.empty(), (dir + ": no step_trace_time.csv rows").c_str());
        QCOMPARE(c.steps.size(), free.size());
        for (const IdleStep& s : c.steps) {
            QVERIFY2(free.count(s.name), ("step " + s.name + " is not in step_trace_time.csv").c_str());
            const double expected = free.at(s.name) * 1000.0;
            QVERIFY2(std::abs(static_cast<double>(s.idleNs) - expected) <= 0.01 * expected,
                     (s.name + ": " + std::to_string(s.idleNs) + " ns vs Free " + std::to_string(expected)).c_str());
        }
        // These captures have launch flows: most idle time has a host or device cause.
        QVERIFY(g.hasLaunchFlows);
        QVERIFY(causeNs(c, IdleCause::Unknown) < c.idleNs / 2);
        // The step's Preparing (level1 rank0: 17,902.5 µs) is attributed whole: its causes add up
        // to it to the nanosecond (checkPartition), and it is the file's within its µs rounding.
        const auto preparing = stepColumn(dir, "Preparing");
        QCOMPARE(preparing.size(), c.steps.size());
        for (const IdleStep& s : c.steps) {
            const double expected = preparing.at(s.name) * 1000.0;
            QVERIFY(expected > 0);
            QVERIFY2(std::abs(static_cast<double>(s.preparingNs) - expected) <= 1000.0,
                     (s.name + ": " + std::to_string(s.preparingNs) + " ns vs Preparing " + std::to_string(expected)).c_str());
            qInfo("%s step %s: Preparing %lld ns, unknown %lld ns", qPrintable(level), s.name.c_str(),
                  static_cast<long long>(s.preparingNs),
                  static_cast<long long>(s.preparingByCause[static_cast<std::size_t>(IdleCause::Unknown)]));
        }
    }

    // `analyze --metric idle`: the JSON object of the metric on one rank and on two (rank fields),
    // its step's idle time against step_trace_time.csv's Free, the causes and gaps adding up.
    void cliIdleJson()
    {
        const std::string r0 = realRankDir("level1", 0), r1 = realRankDir("level1", 1);
        const CliRun one = runCli(
            {"analyze", "--import", QString::fromStdString(r0), "--metric", "idle", "--format", "json", "--no-cache"});
        QCOMPARE(one.code, 0);
        const auto doc = nlohmann::json::parse(one.out.toStdString());
        QCOMPARE(doc["metric"].get<std::string>(), std::string("idle"));
        QVERIFY(doc["input_problems"].is_array());
        QVERIFY(doc["missing"].is_array());
        QCOMPARE(doc["totals"].size(), kIdleCauseCount);
        TimeNs total = 0;
        for (std::size_t c = 0; c < kIdleCauseCount; ++c)
            total += doc["totals"][idleCauseKey(static_cast<IdleCause>(c))].get<TimeNs>();
        QCOMPARE(doc["steps"].size(), std::size_t(1));
        const auto& step = doc["steps"][0];
        QCOMPARE(step["step"].get<std::string>(), std::string("50"));
        QCOMPARE(step["idle_ns"].get<TimeNs>(), total);
        const double free = freeOf(r0).at("50") * 1000.0;
        QVERIFY(std::abs(static_cast<double>(total) - free) <= 0.01 * free);
        // Preparing apart: every cause key, adding up to the step's preparing_ns, which is the file's.
        QCOMPARE(doc["preparing_totals"].size(), kIdleCauseCount);
        QCOMPARE(step["preparing_causes"].size(), kIdleCauseCount);
        TimeNs prepTotal = 0, prepStep = 0;
        for (std::size_t c = 0; c < kIdleCauseCount; ++c) {
            prepTotal += doc["preparing_totals"][idleCauseKey(static_cast<IdleCause>(c))].get<TimeNs>();
            prepStep += step["preparing_causes"][idleCauseKey(static_cast<IdleCause>(c))].get<TimeNs>();
        }
        QCOMPARE(step["preparing_ns"].get<TimeNs>(), prepStep);
        QCOMPARE(prepTotal, prepStep);
        QVERIFY(std::abs(static_cast<double>(prepStep) - stepColumn(r0, "Preparing").at("50") * 1000.0) <= 1000.0);
        TimeNs gaps = 0, prepGaps = 0, lastStart = 0;
        for (const auto& g : doc["gaps"]) {
            QCOMPARE(g["end_ns"].get<TimeNs>() - g["start_ns"].get<TimeNs>(),
                     g["end_rel_ns"].get<TimeNs>() - g["start_rel_ns"].get<TimeNs>());
            for (const char* key : {"step", "in", "cause", "host_op", "call_stack", "reason"})
                QVERIFY2(g[key].is_string(), key);
            QVERIFY(g["start_ns"].get<TimeNs>() >= lastStart); // in time order
            lastStart = g["start_ns"].get<TimeNs>();
            const std::string in = g["in"].get<std::string>();
            QVERIFY2(in == "free" || in == "preparing", in.c_str());
            (in == "free" ? gaps : prepGaps) += g["end_ns"].get<TimeNs>() - g["start_ns"].get<TimeNs>();
        }
        QCOMPARE(gaps, total);
        QCOMPARE(prepGaps, prepStep);

        const CliRun two = runCli({"analyze", "--import", QString::fromStdString(r0), QString::fromStdString(r1), "--metric",
                                   "idle", "--format", "json", "--no-cache"});
        QCOMPARE(two.code, 0);
        const auto both = nlohmann::json::parse(two.out.toStdString());
        QCOMPARE(both["steps"].size(), std::size_t(2));
        QCOMPARE(both["steps"][0]["rank"].get<int>(), 0);
        QCOMPARE(both["steps"][1]["rank"].get<int>(), 1);
        const double free1 = freeOf(r1).at("50") * 1000.0;
        QVERIFY(std::abs(both["steps"][1]["idle_ns"].get<double>() - free1) <= 0.01 * free1);

        // CSV: one row per step and cause and the step's 'all' in Free, the same in Preparing, then
        // the gaps; the last column says where each lies.
        const CliRun csv = runCli(
            {"analyze", "--import", QString::fromStdString(r0), "--metric", "idle", "--format", "csv", "--no-cache"});
        QCOMPARE(csv.code, 0);
        const auto rows = parseCsv(csv.out.toStdString());
        const std::size_t perPart = kIdleCauseCount + 1;
        QVERIFY(rows.size() > 2 * perPart + 1);
        QCOMPARE(rows[0][0], std::string("row"));
        QCOMPARE(rows[0].back(), std::string("in"));
        QCOMPARE(rows[perPart][3], std::string("all"));
        QCOMPARE(rows[perPart].back(), std::string("free"));
        QCOMPARE(std::stoll(rows[perPart][4]), static_cast<long long>(total));
        QCOMPARE(rows[2 * perPart][3], std::string("all"));
        QCOMPARE(rows[2 * perPart].back(), std::string("preparing"));
        QCOMPARE(std::stoll(rows[2 * perPart][4]), static_cast<long long>(prepStep));
        QCOMPARE(rows.size() - 1 - 2 * perPart, doc["gaps"].size());
        for (std::size_t r = 2 * perPart + 1; r < rows.size(); ++r)
            QCOMPARE(rows[r].back(), doc["gaps"][r - 2 * perPart - 1]["in"].get<std::string>());
    }

    void level0SaysWhatIsMissing()
    {
        const std::string dir = realRankDir("level0", 0);
        const LoadResult lr = loadSession(dir);
        QVERIFY2(lr.session && !lr.session->ranks.empty(), (dir + ": " + lr.error).c_str());
        const Profile& p = *lr.session->ranks.front();
        const StepGraph g = buildStepGraph(p);
        const IdleCauses c = idleCauses(p, g);
        checkPartition(g, c);
        const auto hasSentence = [](const std::vector<std::string>& missing, const char* what) {
            for (const std::string& m : missing)
                if (m.find(what) != std::string::npos)
                    return true;
            return false;
        };
        // Level0 records no CANN layer: its HostToDevice flows have no source slice.
        QVERIFY2(hasSentence(c.missing, "no CANN tracks (Level0 export)"), "the missing CANN layer is not reported");
        QVERIFY(hasSentence(c.missing, "bound to no slice"));
        QCOMPARE(causeNs(c, IdleCause::Compile), TimeNs(0));
        const auto free = freeOf(dir);
        QCOMPARE(c.steps.size(), free.size());
        for (const IdleStep& s : c.steps)
            QVERIFY(std::abs(static_cast<double>(s.idleNs) - free.at(s.name) * 1000.0) <= 0.01 * free.at(s.name) * 1000.0);

        // The same rank without its flows (as an export that records none): the host side cannot
        // be attributed; what is not a device-side wait is unknown, with the reason.
        Profile bare = p;
        bare.flows = FlowTable{};
        const StepGraph gb = buildStepGraph(bare);
        const IdleCauses cb = idleCauses(bare, gb);
        checkPartition(gb, cb);
        QVERIFY(!gb.hasLaunchFlows);
        QVERIFY2(hasSentence(cb.missing, "no launch flows (Level0 export): host causes cannot be attributed"),
                 "the missing launch flows are not reported");
        QCOMPARE(cb.idleNs, c.idleNs);
        for (IdleCause host :
             {IdleCause::HostPython, IdleCause::DataLoader, IdleCause::Sync, IdleCause::Compile, IdleCause::Launch})
            QCOMPARE(causeNs(cb, host), TimeNs(0));
        QVERIFY(causeNs(cb, IdleCause::Unknown) > 0);
        for (const IdleGap& gap : cb.gaps) {
            QVERIFY(gap.cause == IdleCause::Unknown || gap.cause == IdleCause::Dependency || gap.cause == IdleCause::CommWait);
            if (gap.cause == IdleCause::Unknown)
                QVERIFY(idleGapReason(bare, gap).find("no launch flows") != std::string::npos);
        }
    }
};

NPUSCOPE_TEST_APPLESS_MAIN(TestIdleCauses)

} // namespace test_idle_causes

#include "test_idle_causes.moc"
