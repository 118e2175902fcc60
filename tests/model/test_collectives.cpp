// Late ranks at collectives (model/analysis/collectives.h): a hand-built three-rank cluster with
// planted clock offsets and a planted delay per step (a longer op, a host stall, an extra op),
// the late rank, its lateness and its cause checked against the plan; a rank missing a
// collective; and the real two-rank run, its arrival spread and clock offset computed here from
// trace_view.json, through the model and through `analyze --metric collectives`.
#include "test_main.h"
#include "real_ranks.h"
#include "model/analysis/collectives.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include "analysis_fixtures.h"
#include "cli_run.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>

namespace test_collectives {

using namespace npuscope;
using namespace npuscope::testing;

namespace {

const std::string kLevel1 = NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1";

constexpr TimeNs kMs = 1'000'000;
constexpr TimeNs kBase = 1'000'000'000;
constexpr TimeNs kStep = 20 * kMs;

// What step k plants on one rank (true time, from the step start).
struct Plan {
    TimeNs matmul = 2 * kMs; // MatMulV2 duration
    TimeNs idle = 0;         // device idle before Add, with the host in log_metrics
    TimeNs extra = 0;        // an extra Cast before Add
    TimeNs arrival() const { return matmul + idle + extra + kMs; }
};

// Three steps; each: MatMulV2, [idle | Cast], Add (1 ms), then the allReduce, which ends at
// step start + 10 ms on every rank. File time = true time + offset.
ProfilePtr makeRank(int rank, TimeNs offset, const std::vector<Plan>& plans, int collectives = -1)
{
    auto p = std::make_shared<Profile>();
    p->rank = rank;
    p->name = "rank " + std::to_string(rank);
    const TrackId py = fixtures::addTrack(*p, 100, 1, TrackKind::Python, "Python", "Thread 1");
    const TrackId st = fixtures::addTrack(*p, 200, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2");
    const TrackId cg = fixtures::addTrack(*p, 300, 0, TrackKind::CommGroup, "Communication", "Group 0 Communication");
    for (std::size_t k = 0; k < plans.size(); ++k) {
        const Plan& pl = plans[k];
        const TimeNs t0 = kBase + static_cast<TimeNs>(k) * kStep + offset;
        fixtures::addSlice(*p, py, "ProfilerStep#" + std::to_string(k + 1), "", t0, kStep - kMs);
        fixtures::addSlice(*p, st, "MatMulV2", "AI_CORE", t0, pl.matmul);
        TimeNs at = t0 + pl.matmul;
        if (pl.idle > 0)
            fixtures::addSlice(*p, py, "log_metrics", "", at, pl.idle);
        if (pl.extra > 0)
            fixtures::addSlice(*p, st, "Cast", "AI_VECTOR_CORE", at, pl.extra);
        at += pl.idle + pl.extra;
        fixtures::addSlice(*p, st, "Add", "AI_VECTOR_CORE", at, kMs);
        at += kMs;
        if (collectives < 0 || static_cast<int>(k) < collectives)
            fixtures::addSlice(*p, cg, "hcom_allReduce__9_" + std::to_string(k) + "_1", "", at, t0 + 10 * kMs - at);
    }
    p->finalize();
    return p;
}

// The "Group 0 Communication" ops of a real rank, (start, end) ns by start.
std::vector<std::pair<TimeNs, TimeNs>> realCollectives(int rank)
{
    std::ifstream in(kLevel1 + "/rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json");
    const nlohmann::json doc = nlohmann::json::parse(in);
    const nlohmann::json& ev = doc.is_array() ? doc : doc["traceEvents"];
    std::map<std::pair<std::int64_t, std::int64_t>, std::string> threads;
    for (const auto& e : ev)
        if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name")
            threads[{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()}] = e["args"]["name"];
    std::vector<std::pair<TimeNs, TimeNs>> ops;
    for (const auto& e : ev) {
        if (e.value("ph", "") != "X")
            continue;
        const auto it = threads.find({e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()});
        if (it != threads.end() && it->second == "Group 0 Communication") {
            const TimeNs ts = usTextToNs(e["ts"]);
            ops.push_back({ts, ts + usTextToNs(e["dur"])});
        }
    }
    std::sort(ops.begin(), ops.end());
    return ops;
}

} // namespace

class TestCollectives : public QObject {
    Q_OBJECT

private slots:
    void plantedLateRanks()
    {
        const std::vector<TimeNs> offsets{0, 2 * kMs, -3 * kMs};
        // Step 1: rank 2's MatMulV2 runs 3.1 ms longer; step 2: rank 1's host stalls 4.2 ms in
        // log_metrics; step 3: rank 0 runs an extra Cast of 2.5 ms.
        std::vector<std::vector<Plan>> plans(3, std::vector<Plan>(3));
        plans[2][0].matmul += 3'100'000;
        plans[1][1].idle = 4'200'000;
        plans[0][2].extra = 2'500'000;
        std::vector<ProfilePtr> ranks;
        for (int r = 0; r < 3; ++r)
            ranks.push_back(makeRank(r, offsets[r], plans[r]));
        Session s;
        s.ranks = ranks;
        const CollectivesResult res = analyzeCollectives(s);
        for (int r = 0; r < 3; ++r)
            QVERIFY(std::llabs(res.clock.ranks[r].offset - offsets[r]) <= 20'000);
        QCOMPARE(res.instances.size(), std::size_t(3));
        QCOMPARE(res.steps, 3);
        const int wantLate[] = {2, 1, 0};
        const char* wantCause[] = {"MatMulV2", "log_metrics", "Cast"};
        const LateCause wantKind[] = {LateCause::LongerOp, LateCause::HostStall, LateCause::ExtraOp};
        std::map<int, TimeNs> caused;
        for (int k = 0; k < 3; ++k) {
            const CollectiveInstance& inst = res.instances[k];
            QCOMPARE(inst.index, k);
            QCOMPARE(inst.step, std::to_string(k + 1));
            QCOMPARE(inst.lastRank, wantLate[k]);
            TimeNs first = plans[0][k].arrival(), last = first, waits = 0;
            for (int r = 0; r < 3; ++r) {
                first = std::min(first, plans[r][k].arrival());
                last = std::max(last, plans[r][k].arrival());
            }
            for (int r = 0; r < 3; ++r)
                waits += last - plans[r][k].arrival();
            QVERIFY(std::llabs(inst.spread - (last - first)) <= 20'000);
            QVERIFY(std::llabs(inst.waitCaused - waits) <= 40'000);
            caused[wantLate[k]] += waits;
            QCOMPARE(inst.cause, wantKind[k]);
            QCOMPARE(inst.causeName, std::string(wantCause[k]));
            QVERIFY2(inst.reason.find("rank " + std::to_string(wantLate[k]) + " arrived") == 0, inst.reason.c_str());
            QVERIFY2(inst.reason.find(wantCause[k]) != std::string::npos, inst.reason.c_str());
            QVERIFY(!inst.causeSlices.empty());
            for (std::uint32_t row : inst.causeSlices)
                QCOMPARE(std::string(s.ranks[inst.lastRankIndex]->str(s.ranks[inst.lastRankIndex]->slices.name[row])),
                         std::string(wantCause[k]));
        }
        QVERIFY(std::llabs(res.instances[0].causeNs - 3'100'000) <= 1'000);
        QVERIFY(std::llabs(res.instances[2].causeNs - 2'500'000) <= 1'000);
        for (const RankWaitCaused& w : res.ranks) {
            QCOMPARE(w.lastCount, 1);
            QVERIFY(std::llabs(w.waitCaused - caused[w.rank]) <= 40'000);
            QVERIFY(std::abs(w.perStep - static_cast<double>(caused[w.rank]) / 3) <= 15'000);
        }
    }

    // The generator's ground truth: clock offsets up to ±5 ms and a late rank per step, by an
    // extra op or a host stall.
    void generatedLateRank_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("op") << "op";
        QTest::newRow("host") << "host";
    }

    void generatedLateRank()
    {
        QFETCH(QString, kind);
        QTemporaryDir dir;
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 4;
        o.steps = 3;
        o.clockOffsets = {{1, 3'000'000}, {2, -5'000'000}, {3, 4'999'000}};
        o.lateRank.rank = 2;
        o.lateRank.collective = 5;
        o.lateRank.us = 2000;
        o.lateRank.kind = kind.toStdString();
        const synth::SynthResult sr = synth::synthesize(dir.path().toStdString(), o);
        QCOMPARE(sr.truth.late.size(), std::size_t(3));
        const LoadResult lr = loadSession(dir.path().toStdString());
        QVERIFY2(lr.session, lr.error.c_str());
        const CollectivesResult res = analyzeCollectives(*lr.session);
        QVERIFY(res.problems.empty());
        QCOMPARE(res.clock.offsetOfRank(0), TimeNs(0));
        for (const auto& [rank, ns] : sr.truth.clockOffsets)
            QVERIFY2(std::llabs(res.clock.offsetOfRank(rank) - ns) <= 20'000,
                     (std::to_string(rank) + ": " + std::to_string(res.clock.offsetOfRank(rank))).c_str());
        for (const synth::LateTruth& lt : sr.truth.late) {
            const auto it = std::find_if(res.instances.begin(), res.instances.end(),
                                         [&](const CollectiveInstance& i) { return i.collective == lt.collective; });
            QVERIFY2(it != res.instances.end(), lt.collective.c_str());
            QCOMPARE(it->lastRank, lt.rank);
            QCOMPARE(it->step, std::to_string(lt.step));
            QCOMPARE(it->causeName, lt.delayedBy);
            QCOMPARE(it->cause, kind == "op" ? LateCause::LongerOp : LateCause::HostStall);
            QVERIFY(it->spread >= lt.arrivalLagNs - 20'000);
            QVERIFY2(std::llabs(it->causeNs - lt.delayNs) <= lt.delayNs / 10, std::to_string(it->causeNs).c_str());
        }
    }

    void missingCollectiveSkipped()
    {
        std::vector<std::vector<Plan>> plans(3, std::vector<Plan>(3));
        plans[1][1].matmul += kMs;
        Session s;
        s.ranks = {makeRank(0, 0, plans[0]), makeRank(1, kMs, plans[1]), makeRank(2, 0, plans[2], 2)};
        const CollectivesResult res = analyzeCollectives(s);
        QCOMPARE(res.problems.size(), std::size_t(1));
        QVERIFY2(res.problems[0].find("rank 2") != std::string::npos, res.problems[0].c_str());
        QCOMPARE(res.instances.size(), std::size_t(3));
        for (const CollectiveInstance& inst : res.instances) {
            QCOMPARE(inst.arrivals.size(), std::size_t(2)); // rank 2 left out, never matched wrongly
            for (const Arrival& a : inst.arrivals)
                QVERIFY(a.rank != 2);
        }
        QCOMPARE(res.instances[1].lastRank, 1);
        QCOMPARE(res.instances[1].causeName, std::string("MatMulV2"));
    }

    void realTwoRankSpread()
    {
        const auto r0 = realCollectives(0), r1 = realCollectives(1);
        QCOMPARE(r0.size(), std::size_t(4));
        QCOMPARE(r1.size(), r0.size());
        std::vector<TimeNs> d;
        for (std::size_t i = 0; i < r0.size(); ++i)
            d.push_back(r1[i].second - r0[i].second);
        std::sort(d.begin(), d.end());
        const double offset = static_cast<double>(d[1] + d[2]) / 2; // the median of four
        const double spread = static_cast<double>(r1[0].first - r0[0].first) - offset;
        QVERIFY(spread > 5.0e6 && spread < 6.0e6); // ≈ 5.6 ms

        const LoadResult lr = loadSession(kLevel1);
        QVERIFY2(lr.session, lr.error.c_str());
        const CollectivesResult res = analyzeCollectives(*lr.session);
        QCOMPARE(res.instances.size(), std::size_t(4));
        const CollectiveInstance& first = res.instances[0];
        QCOMPARE(first.collective, std::string("hcom_allReduce__586_0_1"));
        QCOMPARE(first.lastRank, 1);
        QCOMPARE(first.firstRank, 0);
        QVERIFY2(std::abs(static_cast<double>(first.spread) - spread) <= 2.0, std::to_string(first.spread).c_str());
        QVERIFY(first.cause != LateCause::None);
        QVERIFY2(first.reason.find("rank 1 arrived 5.6") == 0, first.reason.c_str());
        QVERIFY(res.ranks[1].waitCaused >= first.waitCaused);

        // The command line: the same numbers, aligned and raw.
        const CliRun run = runCli({"analyze", "--import", QString::fromStdString(kLevel1), "--metric", "collectives",
                                   "--format", "json", "--top", "0", "--no-cache"});
        QVERIFY2(run.code == 0, qPrintable(run.err));
        const nlohmann::json j = nlohmann::json::parse(run.out.toStdString());
        QCOMPARE(j["rows"].size(), std::size_t(4));
        const nlohmann::json& row = j["rows"][0]; // the largest wait caused first
        QCOMPARE(row["collective"].get<std::string>(), std::string("hcom_allReduce__586_0_1"));
        QCOMPARE(row["last_rank"].get<int>(), 1);
        QVERIFY(std::abs(row["spread_ns"].get<double>() - spread) <= 2.0);
        QVERIFY(std::abs(j["clock_offsets_ns"]["1"].get<double>() - offset) <= 1.0);
        QCOMPARE(j["clock_offsets_ns"]["0"].get<double>(), 0.0);
        const CliRun raw = runCli({"analyze", "--import", QString::fromStdString(kLevel1), "--metric", "collectives",
                                   "--format", "json", "--top", "1", "--no-cache", "--clock", "raw"});
        QVERIFY2(raw.code == 0, qPrintable(raw.err));
        const nlohmann::json jr = nlohmann::json::parse(raw.out.toStdString());
        QCOMPARE(jr["rows"][0]["spread_ns"].get<TimeNs>(), r1[0].first - r0[0].first);
        QCOMPARE(jr["clock_offsets_ns"]["1"].get<TimeNs>(), TimeNs(0));
        const CliRun info = runCli({"info", QString::fromStdString(kLevel1), "--format", "json", "--no-cache"});
        QVERIFY2(info.code == 0, qPrintable(info.err));
        const nlohmann::json ji = nlohmann::json::parse(info.out.toStdString());
        QVERIFY(std::abs(ji["clock_offsets_ns"]["1"].get<double>() - offset) <= 1.0);
        QCOMPARE(ji["clock"]["reference_rank"].get<int>(), 0);
        const CliRun bad = runCli(
            {"analyze", "--import", QString::fromStdString(kLevel1), "--metric", "collectives", "--clock-offset", "1=soon"});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.contains("--clock-offset"));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestCollectives)

} // namespace test_collectives

#include "test_collectives.moc"
