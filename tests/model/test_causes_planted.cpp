// The idle-cause attribution and the what-if replay against runs whose cause the generator
// planted, with its ground truth (synth/truth.h): each planted cause's attributed idle time is
// within 5 % of the idle the planted host slices cover inside the steps' device part (where
// step_trace_time counts Free) while no launched task waited (a data loader before the step's
// first launch: of the loader's time in the steps' Preparing, attributed apart), and the replay
// of a baseline with an op type sped up predicts the median step of the run generated with that
// speedup within 5 %. The generated step_trace_time.csv is the profiler's: its Free is the idle
// the analysis measures, its Stage the device part and its Preparing the time before it.
#include "test_main.h"
#include "csv_records.h"
#include "model/analysis/collectives.h"
#include "model/analysis/idle_causes.h"
#include "model/analysis/step_graph.h"
#include "model/analysis/whatif.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace test_causes_planted {

using namespace npuscope;
using namespace npuscope::synth;

namespace {

SynthOptions options()
{
    SynthOptions o;
    o.steps = 3;
    return o;
}

// The truth's idle per attribution cause (rank 0): the idle under the planted slices when no
// launched task was waiting either (a launched task held by its own gap is a device-side wait),
// inside the steps' device part. The mid-step plants lie inside it.
std::map<std::string, TimeNs> truthFree(const SynthTruth& t)
{
    std::map<std::string, TimeNs> out;
    for (const auto& st : t.ranks.at(0).steps)
        for (const auto& ps : st.slices)
            out[ps.cause] += std::min(ps.freeNs, ps.starvedNs);
    return out;
}

// The truth's Preparing per cause (rank 0): the planted slices' time inside each step's
// Preparing, [its start, its first device work), where the device is idle throughout.
TimeNs truthPreparing(const SynthTruth& t, const std::string& cause)
{
    TimeNs out = 0;
    for (const auto& st : t.ranks.at(0).steps)
        for (const auto& ps : st.slices)
            if (ps.cause == cause)
                out += std::max<TimeNs>(0, std::min(ps.end, st.deviceBegin) - std::max(ps.start, st.start));
    return out;
}

// The generated step_trace_time.csv's rows, by its header, read with the test's own parser.
std::vector<std::map<std::string, double>> stepTraceRows(const std::string& rankDir)
{
    std::ifstream in(rankDir + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
    std::stringstream ss;
    ss << in.rdbuf();
    const auto rows = parseCsv(ss.str());
    std::vector<std::map<std::string, double>> out;
    for (std::size_t r = 1; r < rows.size(); ++r) {
        std::map<std::string, double> row;
        for (std::size_t c = 0; c < rows[0].size() && c < rows[r].size(); ++c)
            row[rows[0][c]] = std::stod(rows[r][c]);
        out.push_back(std::move(row));
    }
    return out;
}

std::string describe(const IdleByCause& by)
{
    std::string s;
    for (std::size_t i = 0; i < kIdleCauseCount; ++i)
        s += std::string(idleCauseKey(static_cast<IdleCause>(i))) + "=" + std::to_string(by[i]) + " ";
    return s;
}

TimeNs attributed(const IdleCauses& ic, const std::string& cause)
{
    for (std::size_t i = 0; i < kIdleCauseCount; ++i)
        if (cause == idleCauseKey(static_cast<IdleCause>(i)))
            return ic.totals[i];
    return -1;
}

bool within(double got, double want, double share)
{
    return std::fabs(got - want) <= std::fabs(want) * share;
}

} // namespace

class TestCausesPlanted : public QObject {
    Q_OBJECT
private slots:
    void plantedCause_data();
    void plantedCause();
    void dataloaderIsPreparing();
    void whatIfSpeedup_data();
    void whatIfSpeedup();
    void clocksAndLateRank_data();
    void clocksAndLateRank();
};

void TestCausesPlanted::plantedCause_data()
{
    QTest::addColumn<QString>("plant");
    QTest::addColumn<QString>("format");
    QTest::newRow("python_stall") << "python_stall"
                                  << "text";
    QTest::newRow("sync") << "sync"
                          << "text";
    QTest::newRow("compile") << "compile"
                             << "text";
    // the same slices read from the SQLite export
    QTest::newRow("python_stall db") << "python_stall"
                                     << "db";
    QTest::newRow("sync db") << "sync"
                             << "db";
    QTest::newRow("compile db") << "compile"
                                << "db";
}

void TestCausesPlanted::plantedCause()
{
    QFETCH(QString, plant);
    QFETCH(QString, format);
    QTemporaryDir dir;
    SynthOptions o = options();
    o.format = format.toStdString();
    o.plants.push_back({plant.toStdString(), 0});
    const SynthResult res = synthesize(dir.path().toStdString(), o);
    QVERIFY2(res.ok, res.error.c_str());
    const LoadResult lr = loadSession(res.rankDirs[0]);
    QVERIFY2(lr.session, lr.error.c_str());
    QCOMPARE(QString::fromStdString(lr.session->source), format);
    QVERIFY2(lr.session, lr.error.c_str());
    const Profile& p = *lr.session->ranks.front();
    const StepGraph g = buildStepGraph(p);
    const IdleCauses ic = idleCauses(p, g);
    QCOMPARE(ic.steps.size(), res.truth.ranks[0].steps.size());
    // the step's Free as the generator measured it
    for (std::size_t i = 0; i < ic.steps.size(); ++i)
        QVERIFY2(std::llabs(ic.steps[i].idleNs - res.truth.ranks[0].steps[i].freeNs) <= 1000 * 64,
                 (std::to_string(ic.steps[i].idleNs) + " vs " + std::to_string(res.truth.ranks[0].steps[i].freeNs)).c_str());
    // The generated step_trace_time.csv as the profiler writes it: Free is the idle of the step's
    // device part, Stage that part (= Computing + Communication(Not Overlapped) + Free), Preparing
    // the step's start to its first device work; µs sums of floats, to the ns.
    if (format == "text") {
        const auto rows = stepTraceRows(res.rankDirs[0]);
        QCOMPARE(rows.size(), g.steps.size());
        const auto ns = [](double us) { return static_cast<TimeNs>(std::llround(us * 1000.0)); };
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto& r = rows[i];
            const GraphStep& s = g.steps[i];
            const std::string msg = "step " + s.name + ": Free " + std::to_string(r.at("Free")) + " µs, idle "
                                    + std::to_string(s.idleNs) + " ns; Stage " + std::to_string(r.at("Stage"))
                                    + " µs, device part " + std::to_string(s.deviceEnd - s.deviceBegin) + " ns";
            QVERIFY2(std::llabs(ns(r.at("Free")) - s.idleNs) <= 1, msg.c_str());
            QVERIFY2(std::llabs(ns(r.at("Stage")) - (s.deviceEnd - s.deviceBegin)) <= 1, msg.c_str());
            QVERIFY2(std::llabs(ns(r.at("Preparing")) - s.preparing()) <= 1, msg.c_str());
            QVERIFY2(
                std::llabs(ns(r.at("Computing") + r.at("Communication(Not Overlapped)") + r.at("Free")) - ns(r.at("Stage")))
                    <= 2,
                msg.c_str());
        }
    }
    const auto truth = truthFree(res.truth);
    QVERIFY(!truth.empty());
    for (const auto& [cause, ns] : truth) {
        QVERIFY(ns > 0);
        const TimeNs got = attributed(ic, cause);
        const std::string msg = cause + ": attributed " + std::to_string(got) + " ns, planted " + std::to_string(ns)
                                + " ns; " + describe(ic.totals);
        qInfo("%s", msg.c_str());
        QVERIFY2(within(static_cast<double>(got), static_cast<double>(ns), 0.05), msg.c_str());
    }
}

// A data loader before the step's first launch idles the device before its first task: the
// step's Preparing, not its Free, where idle_causes attributes it apart.
void TestCausesPlanted::dataloaderIsPreparing()
{
    QTemporaryDir dir;
    SynthOptions o = options();
    o.plants.push_back({"dataloader", 0});
    const SynthResult res = synthesize(dir.path().toStdString(), o);
    QVERIFY2(res.ok, res.error.c_str());
    const LoadResult lr = loadSession(res.rankDirs[0]);
    QVERIFY2(lr.session, lr.error.c_str());
    const Profile& p = *lr.session->ranks.front();
    const StepGraph g = buildStepGraph(p);
    QCOMPARE(g.steps.size(), res.truth.ranks[0].steps.size());
    for (std::size_t i = 0; i < g.steps.size(); ++i) {
        const StepTruth& st = res.truth.ranks[0].steps[i];
        QCOMPARE(g.steps[i].begin, st.start);
        QVERIFY(std::llabs(g.steps[i].deviceBegin - st.deviceBegin) <= 1000);
        TimeNs planted = 0;
        for (const auto& ps : st.slices)
            planted += ps.idleNs - ps.freeNs;
        QVERIFY(planted > 0);
        // Preparing holds the loader's idle and the first launch after it
        QVERIFY2(g.steps[i].preparing() >= planted && g.steps[i].preparing() <= planted + 100000,
                 (std::to_string(g.steps[i].preparing()) + " vs " + std::to_string(planted)).c_str());
    }
    const IdleCauses ic = idleCauses(p, g);
    const auto truth = truthFree(res.truth);
    QVERIFY(within(static_cast<double>(attributed(ic, "dataloader")), static_cast<double>(truth.at("dataloader")), 0.05)
            || std::llabs(attributed(ic, "dataloader") - truth.at("dataloader")) <= 1000);
    // The Preparing causes: the loader's idle is there, within 5 % of the truth's (the planted
    // loader slices' time between each step's start and its first device work).
    const TimeNs want = truthPreparing(res.truth, "dataloader");
    QVERIFY(want >= 1'000'000 * static_cast<TimeNs>(res.truth.ranks[0].steps.size()));
    const TimeNs got = ic.preparingTotals[static_cast<std::size_t>(IdleCause::DataLoader)];
    TimeNs prep = 0;
    for (std::size_t i = 0; i < g.steps.size(); ++i)
        prep += g.steps[i].preparing();
    QCOMPARE(ic.preparingNs, prep);
    const std::string msg = "preparing dataloader: attributed " + std::to_string(got) + " ns, planted "
                            + std::to_string(want) + " ns; " + describe(ic.preparingTotals);
    qInfo("%s", msg.c_str());
    QVERIFY2(within(static_cast<double>(got), static_cast<double>(want), 0.05), msg.c_str());
}

void TestCausesPlanted::whatIfSpeedup_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<double>("factor");
    QTest::newRow("MatMulV2 x2") << "MatMulV2" << 2.0;
    QTest::newRow("LayerNorm x2") << "LayerNorm" << 2.0;
}

void TestCausesPlanted::whatIfSpeedup()
{
    QFETCH(QString, type);
    QFETCH(double, factor);
    QTemporaryDir a, b;
    SynthOptions o = options();
    const SynthResult base = synthesize(a.path().toStdString(), o);
    o.speedups = {{type.toStdString(), factor}};
    const SynthResult fast = synthesize(b.path().toStdString(), o);
    QVERIFY2(base.ok && fast.ok, (base.error + fast.error).c_str());
    const LoadResult lr = loadSession(base.rankDirs[0]);
    QVERIFY2(lr.session, lr.error.c_str());
    WhatIfChanges c;
    c.scaleTypes = {{type.toStdString(), 1.0 / factor}};
    const WhatIfResult w = replayWhatIf(*lr.session->ranks.front(), c);
    QVERIFY2(w.ok, w.error.c_str());
    QVERIFY(within(w.measuredStepNs, static_cast<double>(base.truth.medianStepNs), 0.01));
    const double want = static_cast<double>(fast.truth.medianStepNs);
    const std::string msg = "predicted " + std::to_string(w.predictedStepNs) + " ns, generated " + std::to_string(want)
                            + " ns, baseline " + std::to_string(base.truth.medianStepNs) + " ns";
    qInfo("%s", msg.c_str());
    QVERIFY2(within(w.predictedStepNs, want, 0.05), msg.c_str());
}

void TestCausesPlanted::clocksAndLateRank_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("cause");
    // one more MatMulV2 than on the others: the same kernel ran longer in the late rank's window
    QTest::newRow("extra op") << "op"
                              << "longer_op";
    QTest::newRow("host stall") << "host"
                                << "host_stall";
}

// Four ranks with skewed clocks and rank 2 late at the middle collective of every step: the
// clock alignment finds each offset, and the collectives analysis names rank 2, its lag and why.
void TestCausesPlanted::clocksAndLateRank()
{
    QFETCH(QString, kind);
    QFETCH(QString, cause);
    QTemporaryDir dir;
    SynthOptions o = options();
    o.ranks = 4;
    o.clockOffsets = {{1, 3'000'000}, {2, -1'250'000}, {3, 250'000}};
    o.lateRank.rank = 2;
    o.lateRank.kind = kind.toStdString();
    const SynthResult res = synthesize(dir.path().toStdString(), o);
    QVERIFY2(res.ok, res.error.c_str());
    const LoadResult lr = loadSession(dir.path().toStdString());
    QVERIFY2(lr.session, lr.error.c_str());
    const CollectivesResult c = analyzeCollectives(*lr.session);
    for (const RankTruth& rt : res.truth.ranks) {
        const TimeNs got = c.clock.offsetOfRank(rt.rank) - c.clock.offsetOfRank(0);
        QVERIFY2(std::llabs(got - rt.clockOffsetNs) <= 2000,
                 ("rank " + std::to_string(rt.rank) + ": " + std::to_string(got) + " vs " + std::to_string(rt.clockOffsetNs))
                     .c_str());
    }
    QCOMPARE(res.truth.late.size(), std::size_t(3));
    for (const LateTruth& lt : res.truth.late) {
        const auto it = std::find_if(c.instances.begin(), c.instances.end(),
                                     [&](const CollectiveInstance& ci) { return ci.collective == lt.collective; });
        QVERIFY2(it != c.instances.end(), lt.collective.c_str());
        QCOMPARE(it->lastRank, lt.rank);
        TimeNs late = 0, others = 0;
        for (const Arrival& a : it->arrivals)
            if (a.rank == lt.rank)
                late = a.arrival;
            else
                others = std::max(others, a.arrival);
        QVERIFY2(std::llabs((late - others) - lt.arrivalLagNs) <= 2000,
                 (std::to_string(late - others) + " vs " + std::to_string(lt.arrivalLagNs)).c_str());
        qInfo("%s: rank %d late by %lld ns (planted %lld ns): %s", lt.collective.c_str(), lt.rank,
              static_cast<long long>(late - others), static_cast<long long>(lt.delayNs), it->reason.c_str());
        QCOMPARE(QString::fromLatin1(lateCauseName(it->cause)), cause);
        QCOMPARE(it->causeName, lt.delayedBy);
    }
}

NPUSCOPE_TEST_GUILESS_MAIN(TestCausesPlanted)

} // namespace test_causes_planted

#include "test_causes_planted.moc"
