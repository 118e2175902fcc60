// CLU-LATE (rules_cluster_late.cpp) on a generated cluster whose rank 2 is planted late at one
// collective of each step (an extra MatMulV2 of 2 ms): the finding names rank 2, its evidence
// is the planted instances, and its gain per step, from the replay of the steps without rank 2's
// delays, lies between the planted arrival lag (the late rank's start − the latest other rank's,
// from the generator's truth) and that lag plus the spread of the other ranks' arrivals (under
// 0.4 ms in cluster-slowrank).
#include "test_main.h"
#include "advisor/rule_helpers.h"
#include "advisor_fixture.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QTemporaryDir>
#include <QtTest>

#include <set>

namespace test_rule_late {

using namespace npuscope;
using namespace npuscope::advisor;

class TestRuleLate : public QObject {
    Q_OBJECT

private slots:
    void plantedLateRank()
    {
        QTemporaryDir dir;
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 4;
        o.steps = 3;
        o.clockOffsets = {{2, -4'000'000}};
        o.lateRank.rank = 2;
        o.lateRank.collective = 5;
        o.lateRank.us = 2000;
        const synth::SynthResult g = synth::synthesize(dir.path().toStdString(), o);
        QVERIFY2(g.ok, g.error.c_str());
        QCOMPARE(g.truth.late.size(), std::size_t(3));
        std::set<std::string> planted;
        double lag = 0;
        for (const synth::LateTruth& t : g.truth.late) {
            planted.insert(t.collective);
            lag += static_cast<double>(t.arrivalLagNs) / 3;
        }
        const LoadResult lr = loadSession(dir.path().toStdString());
        QVERIFY2(lr.session, lr.error.c_str());
        const auto r = runAdvisor(*lr.session, fixture::defaults());
        const Finding* late = nullptr;
        for (const Finding& f : r.findings)
            if (f.id == "CLU-LATE/rank2")
                late = &f;
        QVERIFY(late);
        QCOMPARE(late->status, Status::Fired);
        QCOMPARE(late->scope.ranks, std::vector<int>{2});
        QCOMPARE(late->evidence.size(), std::size_t(3));
        for (const Evidence& e : late->evidence) {
            QVERIFY2(planted.count(e.at.op), e.at.op.c_str());
            QVERIFY2(e.at.row.find("aclnnMatmul_MatMulCommon_MatMulV2") != std::string::npos, e.at.row.c_str());
        }
        QVERIFY(late->gain.estimated);
        QVERIFY2(late->gain.nsPerStep >= lag - 20'000 && late->gain.nsPerStep <= lag + 400'000,
                 qPrintable(QString("gain %1, lag %2").arg(late->gain.nsPerStep).arg(lag)));
        QCOMPARE(late->costNs, roundNs(late->gain.nsPerStep));
        // The gain is the replay of the steps without rank 2's delays (collectives_replay.h).
        QVERIFY2(late->gain.formula.rfind("replay without rank 2's delays: step ", 0) == 0, late->gain.formula.c_str());
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestRuleLate)

} // namespace test_rule_late

#include "test_rule_late.moc"
