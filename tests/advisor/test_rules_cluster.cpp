// Cluster rules and inputs: the last-arriver test of CLU-SLOWRANK (Dixon's Q at 99.5 % up to
// 100 ranks, 3σ above) at its edges, stale or inconsistent cluster_analysis_output recomputed
// from the ranks, and the per-rank rules on picked ranks over the rank budget.
#include "test_main.h"
#include "advisor/rule_helpers.h"
#include "advisor_fixture.h"
#include "model/formats/file_kinds.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

namespace test_rules_cluster {

using namespace npuscope;
using namespace npuscope::advisor;
using fixture::Builder;

namespace {

// n values 10.00, 10.01, … with the given outliers appended.
std::vector<double> spread(std::size_t n, std::initializer_list<double> outliers = {})
{
    std::vector<double> v;
    for (std::size_t i = 0; i < n; ++i)
        v.push_back(10.0 + 0.01 * static_cast<double>(i));
    v.insert(v.end(), outliers.begin(), outliers.end());
    return v;
}

std::vector<std::size_t> idx(std::initializer_list<std::size_t> v) { return v; }

// A cluster of ranks with step rows (ms) and collectives "c0".."c{n-1}" of the given elapse (ms).
struct Cluster {
    std::vector<Builder> ranks;
    void add(double comp, double comm, double free, const std::vector<double>& elapse)
    {
        Builder b(static_cast<int>(ranks.size()));
        b.step(comp, comm, free);
        for (std::size_t i = 0; i < elapse.size(); ++i)
            b.commOp("hcom_allReduce_c" + std::to_string(i), 0, elapse[i]);
        ranks.push_back(b);
    }
    Session session()
    {
        Session s = fixture::session({});
        for (auto& b : ranks) {
            b.p->finalize();
            s.ranks.push_back(b.p);
        }
        return s;
    }
};

void touch(const std::string& path, std::filesystem::file_time_type t)
{
    std::ofstream(path) << "x\n";
    std::filesystem::last_write_time(path, t);
}

} // namespace

class TestRulesCluster : public QObject {
    Q_OBJECT

private slots:
    void dixonEdges()
    {
        // n = 3, r10 = (x2 − x1)/(x3 − x1) against 0.994: exactly at the critical value is no outlier.
        QCOMPARE(lastArrivers({0, 0.994, 1}), idx({}));
        QCOMPARE(lastArrivers({0.995, 1, 0}), idx({2}));
        QCOMPARE(lastArrivers({100, 1, 100.5}), idx({1}));   // 99/99.5 = 0.99497
        QCOMPARE(lastArrivers({100, 1, 100.6}), idx({}));    // 99/99.6 = 0.99398
        QCOMPARE(lastArrivers({1, 2}), idx({}));             // too few
        QCOMPARE(lastArrivers({5, 5, 5, 5}), idx({}));       // no spread
        std::string method;
        lastArrivers({100, 1, 100.5}, &method);
        QVERIFY(method.find("Dixon r10") == 0);
    }

    void dixonEightRanks()
    {
        // r11 = (x2 − x1)/(x7 − x1), critical 0.723.
        QCOMPARE(lastArrivers(spread(7, {1.0})), idx({7}));     // (10 − 1)/(10.05 − 1)
        QCOMPARE(lastArrivers(spread(8)), idx({}));             // 0.01/0.06
        // Two late ranks mask each other: (1.5 − 1)/(10.04 − 1) = 0.055.
        QCOMPARE(lastArrivers(spread(6, {1.0, 1.5})), idx({}));
        std::string method;
        lastArrivers(spread(8), &method);
        QVERIFY(method.find("Dixon r11") == 0);
    }

    void dixonSixtyFourRanks()
    {
        // r22 = (x3 − x1)/(x62 − x1), critical 0.382: with two outliers x3 is a normal rank, so the
        // earliest-flagged (shortest) one is named.
        QCOMPARE(lastArrivers(spread(63, {1.0})), idx({63}));
        QCOMPARE(lastArrivers(spread(62, {1.0, 1.2})), idx({62}));
        QCOMPARE(lastArrivers(spread(64)), idx({}));
        std::string method;
        lastArrivers(spread(64), &method);
        QVERIFY(method.find("Dixon r22") == 0);
        QVERIFY(method.find("0.382") != std::string::npos);
    }

    void threeSigmaAboveHundredRanks()
    {
        // 128 ranks: every value below mean − 3σ is a last arriver.
        QCOMPARE(lastArrivers(spread(127, {1.0})), idx({127}));
        QCOMPARE(lastArrivers(spread(126, {1.0, 1.2})), idx({126, 127}));
        QCOMPARE(lastArrivers(spread(128)), idx({}));
        std::string method;
        lastArrivers(spread(128), &method);
        QVERIFY(method.find("3σ") != std::string::npos);
        // 100 ranks still use Dixon.
        lastArrivers(spread(100), &method);
        QVERIFY(method.find("Dixon r22") == 0);
    }

    void slowRankNamesTheLastArriver()
    {
        // Communication(NO) spread 6 % of the step; rank 1 has the least, but in every collective
        // rank 2's time is the Dixon outlier: rank 2 is named.
        Cluster c;
        c.add(80, 10, 10, {10.0, 10.05, 10.1, 10.0});
        c.add(80, 4, 16, {10.0, 10.05, 10.1, 10.02});
        c.add(80, 5, 15, {0.04, 0.03, 0.05, 0.04}); // r10 ≥ (10.0 − 0.04)/(10.02 − 0.04) = 0.998 > 0.994
        const auto r = runAdvisor(c.session(), fixture::defaults());
        const Finding* f = fixture::find(r, "CLU-SLOWRANK/communication");
        QVERIFY(f);
        QCOMPARE(f->scope.ranks, std::vector<int>({2}));
        QVERIFY2(f->description.find("rank 2 is the last arriver in 4 of 4 collectives (Dixon's Q test at 99.5 %)")
                     != std::string::npos,
                 f->description.c_str());
        bool counted = false;
        for (const auto& e : f->evidence)
            for (const auto& m : e.metrics)
                counted = counted || (e.at.rank == 2 && m.name == "last arriver in" && m.value == 4);
        QVERIFY(counted);
    }

    void slowRankEqualRanksPass()
    {
        Cluster c;
        for (int i = 0; i < 3; ++i)
            c.add(80, 10, 10, {10.0, 10.02, 10.04});
        const auto r = runAdvisor(c.session(), fixture::defaults());
        FIXTURE_FINDING(f, r, "CLU-SLOWRANK");
        QCOMPARE(f->status, Status::Passed);
        QVERIFY2(f->check.find("no rank is a significant last arriver in 3 collectives") != std::string::npos, f->check.c_str());
    }

    // Profiles without rank ids (two unrelated captures opened together) are no ranks of one run:
    // no "Rank -1 slow", whatever their times.
    void slowRankNeedsRankIds()
    {
        Cluster c;
        c.add(80, 10, 10, {});
        c.add(10, 300, 100, {});
        for (auto& b : c.ranks)
            b.p->rank = -1;
        const auto r = runAdvisor(c.session(), fixture::defaults());
        const Finding* f = fixture::find(r, "CLU-SLOWRANK");
        QVERIFY(f);
        QCOMPARE(f->status, Status::NotChecked);
        QVERIFY2(f->needs.find("2 of the profiles have no rank id of their own") != std::string::npos, f->needs.c_str());
    }

    // cluster_step_trace_time.csv names rank 1 slow, the ranks' own files are equal.
    static Session withClusterFile(Cluster& c)
    {
        for (int i = 0; i < 2; ++i)
            c.add(90, 5, 5, {});
        Session s = c.session();
        for (int rank = 0; rank < 2; ++rank) {
            StepRow row;
            row.step = "1";
            row.type = "rank";
            row.index = std::to_string(rank);
            row.computing = fixture::ms(rank == 1 ? 99 : 90);
            row.commNotOverlapped = fixture::ms(5);
            row.free = fixture::ms(5);
            s.cluster.stepTrace.push_back(row);
        }
        return s;
    }

    void clusterOutputInconsistentIsRecomputed()
    {
        Cluster c;
        Session s = withClusterFile(c);
        const auto r = runAdvisor(s, fixture::defaults());
        FIXTURE_FINDING(f, r, "CLU-SLOWRANK");
        QCOMPARE(f->status, Status::Passed); // from the ranks: equal
        bool said = false;
        for (const auto& in : f->inputs)
            said = said || (in.find("gives rank 1 Computing 99.00 ms/step") != std::string::npos
                            && in.find("recomputed from the ranks") != std::string::npos);
        QVERIFY(said);
    }

    void clusterOutputStaleIsRecomputed()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        const auto now = std::filesystem::file_time_type::clock::now();
        // Consistent values, so only the dates decide.
        auto build = [&](bool stale) {
            Cluster c;
            Session s = withClusterFile(c);
            s.cluster.stepTrace[1].computing = fixture::ms(90);
            for (int rank = 0; rank < 2; ++rank) {
                const std::string path = root + "/rank" + std::to_string(rank) + "_step_trace_time.csv";
                touch(path, now);
                FileRecord fr;
                fr.path = path;
                fr.kind = "step_trace_time";
                fr.roles = layout::kindRoles(fr.kind);
                c.ranks[rank].p->files.push_back(fr);
            }
            const std::string cpath = root + "/cluster_step_trace_time.csv";
            touch(cpath, stale ? now - std::chrono::hours(3) : now + std::chrono::seconds(5));
            FileRecord fr;
            fr.path = cpath;
            fr.kind = "cluster_step_trace_time";
            fr.roles = layout::kindRoles(fr.kind);
            s.files.push_back(fr);
            return s;
        };
        auto inputsOf = [](const AdvisorReport& r) {
            // A missing finding is a text the checks below fail on, naming it.
            const Finding* slow = fixture::find(r, "CLU-SLOWRANK");
            if (!slow)
                return std::string("no CLU-SLOWRANK finding");
            std::string all;
            for (const auto& in : slow->inputs)
                all += in + "\n";
            return all;
        };
        const auto fresh = runAdvisor(build(false), fixture::defaults());
        QVERIFY2(inputsOf(fresh).find("cluster_step_trace_time.csv (2 ranks)") != std::string::npos, inputsOf(fresh).c_str());
        QVERIFY(inputsOf(fresh).find("stale") == std::string::npos);
        const auto stale = runAdvisor(build(true), fixture::defaults());
        const std::string in = inputsOf(stale);
        QVERIFY2(in.find("cluster_analysis_output is stale: cluster_step_trace_time.csv was written 3.0 h before") != std::string::npos,
                 in.c_str());
        QVERIFY(in.find("each rank's step breakdown (2 ranks)") != std::string::npos);
    }

    void slowLinkCostOnTheGeneratedCluster()
    {
        // cluster-slowrank plants one slow link (rank 1 -> 2 at 40 %). By hand from its
        // cluster_communication.json: per transport and rank ΣTransit Size(MB) / ΣTransit Time(ms),
        // the median over ranks, and for the slow rank the time lost against the median,
        // Σt − ΣMB/median, per step. At the CLI default (3 steps, seed 1) rank 1 moves 1207.96 MB in
        // 181.12 ms over HCCS (6.67 GB/s, median 9.98 GB/s): 20.04 ms/step lost, while its whole
        // transit time is 60.37 ms/step, more than its 41.4 ms of communication per step.
        QTemporaryDir dir;
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.steps = 2;
        o.seed = 7;
        const synth::SynthResult g = synth::synthesize(dir.path().toStdString(), o);
        QVERIFY2(g.ok, g.error.c_str());
        std::ifstream in(dir.path().toStdString() + "/cluster_analysis_output/cluster_communication.json");
        const nlohmann::json j = nlohmann::json::parse(in);
        std::map<std::string, std::map<int, std::pair<double, double>>> acc; // transport -> rank -> (MB, ms)
        std::size_t steps = 0;
        for (const auto& [group, bySteps] : j.items()) {
            steps = std::max(steps, bySteps.size());
            for (const auto& [step, ops] : bySteps.items())
                for (const auto& [op, ranks] : ops.items()) {
                    if (op == "Total Op Info")
                        continue;
                    for (const auto& [rank, info] : ranks.items())
                        for (const auto& [t, b] : info["Communication Bandwidth Info"].items()) {
                            const double mb = b["Transit Size(MB)"], ms = b["Transit Time(ms)"];
                            if (mb > 0 && ms > 0) {
                                acc[t][std::stoi(rank)].first += mb;
                                acc[t][std::stoi(rank)].second += ms;
                            }
                        }
                }
        }
        QCOMPARE(steps, std::size_t(2));
        std::map<std::string, double> want; // finding id -> ns per step lost
        for (const auto& [t, ranks] : acc) {
            std::vector<double> bw;
            for (const auto& [r, a] : ranks)
                bw.push_back(a.first / a.second);
            std::sort(bw.begin(), bw.end());
            const double med = bw.size() % 2 ? bw[bw.size() / 2] : (bw[bw.size() / 2 - 1] + bw[bw.size() / 2]) / 2;
            for (const auto& [r, a] : ranks)
                if (a.first / a.second < 0.8 * med)
                    want["CLU-SLOWLINK/rank" + std::to_string(r) + "-" + t] = (a.second - a.first / med) * 1e6 / 2;
        }
        QCOMPARE(want.size(), std::size_t(2)); // rank 1 over HCCS and over SDMA (HCCS is carried by SDMA)
        const LoadResult lr = loadSession(dir.path().toStdString());
        QVERIFY2(lr.session, lr.error.c_str());
        const auto r = runAdvisor(*lr.session, fixture::defaults());
        int found = 0;
        for (const Finding& f : r.findings) {
            if (f.rule != "CLU-SLOWLINK" || f.status != Status::Fired)
                continue;
            ++found;
            QVERIFY2(want.count(f.id), f.id.c_str());
            const double lost = want.at(f.id);
            QVERIFY(lost > 15e6 && lost < 25e6); // about 20 ms per step
            QVERIFY2(std::abs(static_cast<double>(f.costNs) - lost) <= 1.0,
                     qPrintable(QString("%1: cost %2 ns, by hand %3 ns").arg(QString::fromStdString(f.id)).arg(f.costNs).arg(lost)));
            QVERIFY(std::abs(f.gain.nsPerStep - lost) <= 1.0);
            QCOMPARE(f.evidence.front().cost, f.costNs);
        }
        QCOMPARE(found, 2);
    }

    void reportIsTheSameOnEveryRun()
    {
        // Rules and ranks run on all cores; the report is merged in rule order, so it does not
        // depend on which thread finished first.
        QTemporaryDir dir;
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.steps = 2;
        o.seed = 3;
        const synth::SynthResult g = synth::synthesize(dir.path().toStdString(), o);
        QVERIFY2(g.ok, g.error.c_str());
        const LoadResult lr = loadSession(dir.path().toStdString());
        QVERIFY2(lr.session, lr.error.c_str());
        QVERIFY(lr.session->ranks.size() >= 4);
        const std::string first = writeJson(runAdvisor(*lr.session, fixture::defaults()));
        for (int i = 0; i < 4; ++i)
            QCOMPARE(writeJson(runAdvisor(*lr.session, fixture::defaults())), first);
    }

    void rankRulesRunOnPickedRanksOverBudget()
    {
        // 4 ranks, budget 2: rank 3 has the most Free (scheduling/memory), rank 1 the most
        // Computing (computation). Only the picked ranks are analysed by the rank rules.
        Cluster c;
        c.add(80, 5, 15, {});
        c.add(95, 5, 0, {});
        c.add(80, 5, 15, {});
        c.add(70, 5, 25, {});
        auto th = fixture::defaults();
        th.merge(nlohmann::json::parse(R"({"cluster":{"rank_budget":2}})"), "test");
        const auto r = runAdvisor(c.session(), th);
        const Finding* idle = fixture::find(r, "SCH-IDLE/idle");
        QVERIFY(idle);
        QCOMPARE(idle->scope.ranks, std::vector<int>({3}));
        bool said = false;
        for (const auto& in : idle->inputs)
            said = said || in.find("picked rank 3: most Free of 4 ranks, over the budget of 2") == 0;
        QVERIFY(said);
        QVERIFY(!r.warnings.empty());
        QVERIFY(r.warnings.back().find("computation: rank 1 (most Computing") != std::string::npos);
        // Within budget every rank is analysed: ranks 0, 2 and 3 are over the 10 % free threshold.
        const auto all = runAdvisor(c.session(), fixture::defaults());
        FIXTURE_FINDING(schIdleIdleAll, all, "SCH-IDLE/idle");
        QCOMPARE(schIdleIdleAll->scope.ranks, std::vector<int>({0, 2, 3}));
    }

    void rankPickFallsBackToLowestRankWhenEven()
    {
        Cluster c;
        for (int i = 0; i < 4; ++i)
            c.add(80, 5, 15 + 0.1 * i, {}); // Free differs by < 5 % of its mean
        auto th = fixture::defaults();
        th.merge(nlohmann::json::parse(R"({"cluster":{"rank_budget":2}})"), "test");
        const auto r = runAdvisor(c.session(), th);
        FIXTURE_FINDING(schIdleIdle, r, "SCH-IDLE/idle");
        QCOMPARE(schIdleIdle->scope.ranks, std::vector<int>({0}));
        QVERIFY(r.warnings.back().find("scheduling: rank 0 (Free within 5.0 % across ranks: lowest rank") != std::string::npos);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestRulesCluster)

} // namespace test_rules_cluster

#include "test_rules_cluster.moc"
