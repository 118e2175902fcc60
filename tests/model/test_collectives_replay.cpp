// The replay of a cluster's steps over its collectives (model/analysis/collectives_replay.h),
// against the generator's ground truth: a cluster generated with a planted late rank and the
// same cluster without the plant (same seed). Replayed with its measured segments, the planted
// run gives back its collective ends and step ends (residual ≤ 1 µs); replayed without the late
// rank's delays, its steps shorten by what the run without the plant measures, within 10 %. The
// step times of both runs are read here from the ProfilerStep#N rows of the ranks' timelines.
#include "test_main.h"
#include "model/analysis/collectives_replay.h"
#include "model/analysis/intervals.h"
#include "model/cluster_summary/summary_late.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include "cli_run.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>
#include <map>

namespace test_collectives_replay {

using namespace npuscope;

namespace {

// Per step number, its span over the ranks (the earliest start to the latest end, true time: the
// generator's clock offsets taken off), read from the ProfilerStep#N slice rows.
std::map<std::string, Interval> stepSpans(const Session& s, const std::map<int, TimeNs>& offsets)
{
    std::map<std::string, Interval> out;
    for (const auto& p : s.ranks) {
        const auto off = offsets.find(p->rank);
        const TimeNs o = off == offsets.end() ? 0 : off->second;
        for (std::uint32_t i = 0; i < p->slices.size(); ++i) {
            const std::string name(p->str(p->slices.name[i]));
            if (name.rfind("ProfilerStep#", 0) != 0)
                continue;
            const Interval iv{p->slices.start[i] - o, p->slices.end(i) - o};
            auto [it, fresh] = out.try_emplace(name.substr(13), iv);
            if (!fresh)
                it->second = {std::min(it->second.begin, iv.begin), std::max(it->second.end, iv.end)};
        }
    }
    return out;
}

struct Run {
    std::unique_ptr<QTemporaryDir> dir;
    synth::SynthResult result;
    SessionPtr session;
};

Run generate(synth::SynthOptions o)
{
    Run r;
    r.dir = std::make_unique<QTemporaryDir>();
    r.result = synth::synthesize(r.dir->path().toStdString(), o);
    if (r.result.ok) {
        LoadResult l = loadSession(r.dir->path().toStdString());
        r.session = l.session;
    }
    return r;
}

} // namespace

class TestCollectivesReplay : public QObject {
    Q_OBJECT

private slots:
    void plantedAgainstUnplanted_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("lateRank");
        QTest::addColumn<int>("collective");
        QTest::addColumn<double>("us");
        QTest::addColumn<bool>("slow"); // the planted rank is the scenario's slow rank, late everywhere
        QTest::newRow("op 2 ms, 4 ranks") << "op" << 4 << 2 << 5 << 2000.0 << false;
        QTest::newRow("op 0.8 ms, 8 ranks") << "op" << 8 << 6 << 20 << 800.0 << false;
        QTest::newRow("host 2 ms, 4 ranks") << "host" << 4 << 0 << 9 << 2000.0 << false;
        QTest::newRow("op 3 ms on the slow rank") << "op" << 4 << 3 << 12 << 3000.0 << true;
    }

    void plantedAgainstUnplanted()
    {
        QFETCH(QString, kind);
        QFETCH(int, ranks);
        QFETCH(int, lateRank);
        QFETCH(int, collective);
        QFETCH(double, us);
        QFETCH(bool, slow);
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = ranks;
        o.steps = 3;
        o.seed = 7;
        o.clockOffsets = {{1, 2'000'000}, {lateRank, -3'000'000}};
        const Run base = generate(o);
        o.lateRank.rank = lateRank;
        o.lateRank.collective = collective;
        o.lateRank.us = us;
        o.lateRank.kind = kind.toStdString();
        const Run late = generate(o);
        QVERIFY2(base.result.ok && late.result.ok, (base.result.error + late.result.error).c_str());
        QVERIFY(base.session && late.session);
        QCOMPARE(late.result.truth.late.size(), std::size_t(3));

        std::map<int, TimeNs> offsets;
        for (const auto& [rank, ns] : late.result.truth.clockOffsets)
            offsets[rank] = ns;
        const auto baseSteps = stepSpans(*base.session, offsets);
        const auto lateSteps = stepSpans(*late.session, offsets);
        QCOMPARE(baseSteps.size(), std::size_t(3));
        QCOMPARE(lateSteps.size(), baseSteps.size());
        TimeNs longer = 0; // Σ over the steps of planted − unplanted step time
        for (const auto& [step, iv] : lateSteps)
            longer += (iv.end - iv.begin) - (baseSteps.at(step).end - baseSteps.at(step).begin);
        QVERIFY2(longer > 0, qPrintable(QString::number(longer)));

        const CollectivesResult r = analyzeCollectives(*late.session);
        QVERIFY(r.problems.empty());
        QCOMPARE(r.steps, 3);
        const CollectivesReplay rp = replayCollectives(*late.session, r);
        QVERIFY2(rp.problems.empty(), rp.problems.empty() ? "" : rp.problems.front().c_str());
        QCOMPARE(rp.steps.size(), std::size_t(3));
        qInfo("replay residual %lld ns; planted run longer by %lld ns over 3 steps", static_cast<long long>(rp.residualNs),
              static_cast<long long>(longer));
        QVERIFY2(rp.residualNs <= 1'000, qPrintable(QString::number(rp.residualNs)));
        // The replayed step ends are the measured ones: the latest ProfilerStep#N end over the ranks,
        // aligned by the estimated offsets.
        for (const ReplayStep& st : rp.steps) {
            TimeNs end = std::numeric_limits<TimeNs>::min();
            for (const auto& p : late.session->ranks)
                for (std::uint32_t i = 0; i < p->slices.size(); ++i)
                    if (p->str(p->slices.name[i]) == "ProfilerStep#" + st.step)
                        end = std::max(end, p->slices.end(i) - r.clock.offsetOfRank(p->rank));
            QVERIFY2(std::llabs(st.replayedEnd - end) <= 1'000, st.step.c_str());
        }

        const auto g = std::find_if(rp.ranks.begin(), rp.ranks.end(),
                                    [&](const RankReplayGain& x) { return x.rank == lateRank; });
        QVERIFY(g != rp.ranks.end());
        qInfo("replayed gain %lld ns (%d delays removed, %lld ns)", static_cast<long long>(g->gainNs), g->removed,
              static_cast<long long>(g->delayNs));
        // The rank's gain takes out all its delays: the plant's alone, unless it is the slow rank,
        // whose own lateness at every collective is in both runs (its gain then exceeds the plant's).
        if (!slow)
            QVERIFY2(std::llabs(g->gainNs - longer) <= longer / 10,
                     qPrintable(QString("gain %1, measured %2").arg(g->gainNs).arg(longer)));
        else
            QVERIFY2(g->gainNs > longer + longer / 10, qPrintable(QString("gain %1, measured %2").arg(g->gainNs).arg(longer)));
        QVERIFY(std::abs(g->perStep - static_cast<double>(g->gainNs) / 3) < 1);
        QVERIFY(g->replayedStepNs < g->stepNs);
        // The planted instances alone give the same gain, each its own step's part of it.
        std::vector<int> planted;
        TimeNs eachSum = 0;
        for (const synth::LateTruth& t : late.result.truth.late)
            for (std::size_t i = 0; i < r.instances.size(); ++i)
                if (r.instances[i].collective == t.collective) {
                    planted.push_back(static_cast<int>(i));
                    eachSum += replayGainWithout(r, rp, {static_cast<int>(i)});
                }
        QCOMPARE(planted.size(), std::size_t(3));
        const TimeNs plantedGain = replayGainWithout(r, rp, planted);
        qInfo("replayed gain of the planted instances %lld ns", static_cast<long long>(plantedGain));
        QVERIFY2(std::llabs(plantedGain - longer) <= longer / 10, qPrintable(QString::number(plantedGain)));
        QCOMPARE(eachSum, plantedGain);
    }

    // A cluster summary keeps each late rank's replayed gain, read back as written; a summary
    // written before the replay reads without it (the finding then falls back to the held time).
    void summaryKeepsTheReplay()
    {
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 4;
        o.steps = 3;
        o.lateRank.rank = 1;
        o.lateRank.collective = 7;
        o.lateRank.us = 1500;
        const Run late = generate(o);
        QVERIFY(late.session && late.result.rankDirs.size() == 4);
        const CollectivesResult r = analyzeCollectives(*late.session);
        const CollectivesReplay rp = replayCollectives(*late.session, r);
        nlohmann::json doc = {{"ranks", nlohmann::json::array()}};
        for (const auto& p : late.session->ranks)
            doc["ranks"].push_back({{"rank", p->rank}, {"path", late.result.rankDirs[static_cast<std::size_t>(p->rank)]}});
        const cluster_summary::LateSummary written = cluster_summary::addLateRanks(doc);
        QVERIFY(written.checked);
        cluster_summary::LateSummary read;
        QVERIFY(cluster_summary::lateFromJson(doc, read));
        QCOMPARE(read.replayResidualNs, rp.residualNs);
        QCOMPARE(read.ranks.size(), rp.ranks.size());
        for (std::size_t k = 0; k < rp.ranks.size(); ++k) {
            QCOMPARE(read.ranks[k].rank, rp.ranks[k].rank);
            QVERIFY(read.ranks[k].replayed);
            QCOMPARE(read.ranks[k].replayGainNs, rp.ranks[k].gainNs);
            QCOMPARE(read.ranks[k].stepNs, rp.ranks[k].stepNs);
            QCOMPARE(read.ranks[k].replayedStepNs, rp.ranks[k].replayedStepNs);
        }
        for (auto& rank : doc["ranks"])
            if (rank.contains("late"))
                rank["late"].erase("replay");
        QVERIFY(cluster_summary::lateFromJson(doc, read));
        QCOMPARE(read.ranks.size(), rp.ranks.size());
        for (const cluster_summary::LateRank& lr : read.ranks) {
            QVERIFY(!lr.replayed);
            QVERIFY(lr.held > 0);
        }
    }

    // `advise --clock raw|aligned` and `--clock-offset` reach CLU-LATE: aligned (the default, or
    // the generator's offsets given by hand), its gain per step is the replay's computed here;
    // raw, the ranks' own clocks (rank 1 runs 3 ms ahead) make other arrivals late.
    void adviseTakesTheClock()
    {
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 4;
        o.steps = 3;
        o.clockOffsets = {{1, 3'000'000}, {2, -2'000'000}};
        o.lateRank.rank = 2;
        o.lateRank.collective = 5;
        o.lateRank.us = 2000;
        const Run late = generate(o);
        QVERIFY(late.session);
        const CollectivesResult r = analyzeCollectives(*late.session);
        const CollectivesReplay rp = replayCollectives(*late.session, r);
        const auto g = std::find_if(rp.ranks.begin(), rp.ranks.end(), [](const RankReplayGain& x) { return x.rank == 2; });
        QVERIFY(g != rp.ranks.end());
        const auto lateFindings = [&](const QStringList& extra) {
            const CliRun run = runCli(QStringList{"advise", late.dir->path(), "--format", "json", "--no-cache"} + extra);
            std::map<std::string, nlohmann::json> out;
            if (run.code != 0) {
                qWarning("advise: %d %s", run.code, qPrintable(run.err));
                return out;
            }
            const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
            for (const auto& f : doc["findings"])
                if (f.value("rule", std::string()) == "CLU-LATE")
                    out[f.value("id", std::string())] = f;
            return out;
        };
        for (const QStringList& aligned : {QStringList{}, QStringList{"--clock", "aligned"},
                                           QStringList{"--clock-offset", "1=3ms", "--clock-offset=2=-2000000"}}) {
            const auto found = lateFindings(aligned);
            QVERIFY2(found.count("CLU-LATE/rank2"), qPrintable(aligned.join(' ') + " " + QString::number(found.size())));
            const nlohmann::json& f = found.at("CLU-LATE/rank2");
            QVERIFY(std::abs(f["gain"]["ns_per_step"].get<double>() - g->perStep) <= 1);
            QVERIFY(f["gain"]["formula"].get<std::string>().rfind("replay without rank 2's delays", 0) == 0);
        }
        const auto raw = lateFindings({"--clock", "raw"});
        QVERIFY(!raw.empty());
        for (const auto& [id, f] : raw) {
            QVERIFY2(f["inputs"][0].get<std::string>().find("raw clock") != std::string::npos, f.dump().c_str());
            QVERIFY(id != "CLU-LATE/rank2" || std::abs(f["gain"].value("ns_per_step", 0.0) - g->perStep) > 1);
        }
        for (const QStringList& bad :
             {QStringList{"--clock", "bogus"}, QStringList{"--clock-offset", "1"}, QStringList{"--clock"}}) {
            const CliRun run = runCli(QStringList{"advise", late.dir->path()} + bad);
            QCOMPARE(run.code, 2);
            QVERIFY2(run.err.contains("--clock") || run.err.contains("clock"), qPrintable(run.err));
        }
        const CliRun cmp = runCli({"compare", late.dir->path(), late.dir->path(), "--clock", "raw", "--format", "json"});
        QCOMPARE(cmp.code, 0);
        QCOMPARE(runCli({"compare", late.dir->path(), late.dir->path(), "--clock-offset", "x"}).code, 2);
    }

    // Without a plant nobody is held long: whatever the replay removes is small against a step.
    void unplantedGainsAreSmall()
    {
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 4;
        o.steps = 3;
        const Run base = generate(o);
        QVERIFY(base.session);
        const CollectivesResult r = analyzeCollectives(*base.session);
        const CollectivesReplay rp = replayCollectives(*base.session, r);
        QVERIFY(rp.residualNs <= 1'000);
        for (const RankReplayGain& g : rp.ranks) {
            QVERIFY(g.gainNs >= 0);
            QVERIFY2(g.gainNs <= g.delayNs, qPrintable(QString("%1 > %2").arg(g.gainNs).arg(g.delayNs)));
        }
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestCollectivesReplay)

} // namespace test_collectives_replay

#include "test_collectives_replay.moc"
