// Communication, memory and cluster rules on hand-built profiles.
#include "test_main.h"
#include "advisor_fixture.h"

#include <QtTest>

namespace test_rules_communication {

using namespace npuscope;
using namespace npuscope::advisor;
using fixture::Builder;

class TestRulesCommunication : public QObject {
    Q_OBJECT

private slots:
    void exposedFiresOnSerialAllReduce()
    {
        Builder b;
        b.step(80, 8, 12);
        // Compute 0..80 ms; two all-reduces: 80..86 ms fully exposed, 40..44 ms fully overlapped.
        b.kernel("MatMul", "MatMul", "AI_CORE", 0, 80000);
        b.kernel("hcom_allReduce__1_0_1", "hcom_allReduce_", "HCCL", 80000, 6000, 5);
        b.kernel("hcom_allReduce__2_0_1", "hcom_allReduce_", "HCCL", 40000, 4000, 5);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "COM-EXPOSED/critical-path");
        QVERIFY(f);
        QCOMPARE(f->costNs, fixture::ms(6));
        QCOMPARE(f->severity, FindingSeverity::High); // 6 % of 100 ms
        // gain = Σexposed 6 ms × hide 0.5 = 3 ms
        QVERIFY(std::abs(f->gain.nsPerStep - 3e6) < 3e4);
        QCOMPARE(f->evidence.size(), std::size_t(1));
        QVERIFY(f->evidence.front().threshold.find("critical") == 0);
        QCOMPARE(*f->evidence.front().at.ts, fixture::us(80000));
    }

    void exposedPassesWhenOverlapped()
    {
        Builder b;
        b.step(98, 0, 2);
        b.kernel("MatMul", "MatMul", "AI_CORE", 0, 98000);
        b.kernel("hcom_allReduce__1_0_1", "hcom_allReduce_", "HCCL", 40000, 4000, 5);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        FIXTURE_FINDING(comExposed, r, "COM-EXPOSED");
        QCOMPARE(comExposed->status, Status::Passed);
    }

    void exposedFromStepTraceOnly()
    {
        Builder b;
        b.step(90, 5, 5);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "COM-EXPOSED/critical-path");
        QVERIFY(f);
        QCOMPARE(f->costNs, fixture::ms(5));
        QCOMPARE(f->severity, FindingSeverity::High);
    }

    void missingCommunicationJson()
    {
        Builder b(0, "msprof");
        b.step(90, 0, 10);
        b.kernel("MatMul", "MatMul", "AI_CORE", 0, 1000);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        for (const char* rule : {"COM-WAIT", "COM-PACKET", "COM-CONTENTION"}) {
            FIXTURE_FINDING(f, r, rule);
            QCOMPARE(f->status, Status::NotChecked);
            QVERIFY2(f->needs.find("communication.json") != std::string::npos, rule);
        }
    }

    void waitFiresAndEstimatesAcrossRanks()
    {
        Builder a(0), b(1);
        a.step(90, 5, 5);
        b.step(90, 5, 5);
        // rank 0 waits 4 ms (ratio 0.8), rank 1 waits 0.5 ms in the same op: slack 3.5 ms
        a.commOp("hcom_allReduce__1_0_1", 4, 1);
        b.commOp("hcom_allReduce__1_0_1", 0.5, 1);
        const auto r = runAdvisor(fixture::session({a.p, b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "COM-WAIT/wait");
        QVERIFY(f);
        QCOMPARE(f->scope.ranks, std::vector<int>{0});
        QVERIFY(f->gain.estimated);
        QVERIFY(std::abs(f->gain.nsPerStep - 3.5e6) < 3.5e4);
        // rank 1 passed (ratio 0.33 ≥ 0.3 but 0.5 ms < 1 % of T)
        bool rank1Passed = false;
        for (const auto& x : r.findings)
            if (x.rule == "COM-WAIT" && x.status == Status::Passed)
                rank1Passed = x.scope.ranks == std::vector<int>{1};
        QVERIFY(rank1Passed);
    }

    void packetFires()
    {
        Builder b;
        b.step(90, 5, 5);
        auto& op = b.commOp("hcom_allGather__1", 0, 10);
        CommBandwidth bw;
        bw.transport = b.p->strings.intern("SDMA");
        bw.sizeMB = 100;
        bw.timeMs = 10;
        // 30 packets of 1 MB in 3 ms (small), 10 of 16 MB in 8 ms (large: 20 MB/ms)
        bw.sizes = {{"1", 30, 3}, {"16", 10, 8}};
        op.bandwidth.push_back(bw);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "COM-PACKET/SDMA");
        QVERIFY(f);
        // gain = T_small 3 ms − S_small 30 MB / 20 MB/ms = 1.5 ms
        QVERIFY(std::abs(f->gain.nsPerStep - 1.5e6) < 1.5e4);
    }

    void l2Fires()
    {
        Builder b;
        b.step(90, 0, 10);
        // 20 ms of compute with 45 % L2 hits and mte2 0.5:
        // gain = 20 ms × 0.5 × (0.7 − 0.45)/(1 − 0.45) = 4.5454 ms
        for (int i = 0; i < 4; ++i) {
            const auto r = b.kernel("MatMul", "MatMul", "AI_CORE", 5000.0 * i, 5000);
            b.set(r, "aic_r0_read_cache_hit", 45);
            b.set(r, "aic_r0_read_cache_miss_allocate", 55);
            b.set(r, "aic_mte2_ratio", 0.5);
            b.set(r, "aic_mac_ratio", 0.5);
        }
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "MEM-L2/hit-rate");
        QVERIFY(f);
        QVERIFY(f->title.find("45.0 %") != std::string::npos);
        QVERIFY(std::abs(f->gain.nsPerStep - 4.5454e6) < 4.5454e4);
        QCOMPARE(f->evidence.size(), std::size_t(4));
    }

    void l2PassesAndNeedsMetrics()
    {
        Builder b;
        b.step(90, 0, 10);
        const auto r0 = b.kernel("MatMul", "MatMul", "AI_CORE", 0, 5000);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        FIXTURE_FINDING(memL2, r, "MEM-L2");
        QCOMPARE(memL2->status, Status::NotChecked);
        QVERIFY(memL2->needs.find("L2Cache") != std::string::npos);
        b.set(r0, "aic_r0_read_cache_hit", 60);
        b.set(r0, "aic_r0_read_cache_miss_allocate", 40);
        const auto r2 = runAdvisor(fixture::session({b.p}), fixture::defaults());
        FIXTURE_FINDING(memL2R2, r2, "MEM-L2");
        QCOMPARE(memL2R2->status, Status::Passed); // exactly 0.6 is not < 0.6
    }

    void slowRankNamed()
    {
        // rank 1 computes 10 % more (88 vs 80 ms) and waits less in communication.
        Builder a(0), b(1);
        a.step(80, 10, 10);
        b.step(88, 2, 10);
        const auto r = runAdvisor(fixture::session({a.p, b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "CLU-SLOWRANK/computing");
        QVERIFY(f);
        QCOMPARE(f->scope.ranks, std::vector<int>{1});
        QVERIFY(f->title.find("Rank 1") == 0);
        // gain = max 88 − median 84 = 4 ms
        QVERIFY(std::abs(f->gain.nsPerStep - 4e6) < 4e4);
    }

    void equalRanksPass()
    {
        Builder a(0), b(1);
        a.step(80, 10, 10);
        b.step(80, 10, 10);
        const auto r = runAdvisor(fixture::session({a.p, b.p}), fixture::defaults());
        FIXTURE_FINDING(cluSlowrank, r, "CLU-SLOWRANK");
        QCOMPARE(cluSlowrank->status, Status::Passed);
    }

    void singleRankClusterRulesNotChecked()
    {
        Builder a(0);
        a.step(80, 10, 10);
        const auto r = runAdvisor(fixture::session({a.p}), fixture::defaults());
        for (const char* rule : {"CLU-SLOWRANK", "CLU-SLOWLINK", "CLU-RETRANS"}) {
            FIXTURE_FINDING(f, r, rule);
            QCOMPARE(f->status, Status::NotChecked);
            QVERIFY2(f->needs.find("2 ranks") != std::string::npos || f->needs.find("cluster_communication.json") != std::string::npos,
                     rule);
        }
    }

    void slowLinkNamed()
    {
        Builder a(0), b(1), c(2);
        for (Builder* x : {&a, &b, &c}) {
            x->step(80, 10, 10);
            auto& op = x->commOp("hcom_allReduce__1", 0, 10);
            CommBandwidth bw;
            bw.transport = x->p->strings.intern("HCCS");
            bw.sizeMB = x == &c ? 50 : 100; // rank 2: 5 GB/s vs median 10 GB/s
            bw.timeMs = 10;
            op.bandwidth.push_back(bw);
        }
        const auto r = runAdvisor(fixture::session({a.p, b.p, c.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "CLU-SLOWLINK/rank2-HCCS");
        QVERIFY(f);
        // gain = t 10 ms − 50 MB / 10 GB/s = 5 ms
        QVERIFY(std::abs(f->gain.nsPerStep - 5e6) < 5e4);
    }

    void identicalFindingsMergeAcrossRanks()
    {
        Builder a(0), b(1);
        for (Builder* x : {&a, &b}) {
            x->step(90, 0, 10);
            x->kernel("NonZero", "NonZero", "AI_CPU", 0, 4000);
        }
        const auto r = runAdvisor(fixture::session({a.p, b.p}), fixture::defaults());
        int n = 0;
        for (const auto& f : r.findings)
            n += f.id == "CMP-AICPU/NonZero";
        QCOMPARE(n, 1);
        FIXTURE_FINDING(cmpAicpuNonzero, r, "CMP-AICPU/NonZero");
        QCOMPARE(cmpAicpuNonzero->scope.ranks, (std::vector<int>{0, 1}));
        QCOMPARE(cmpAicpuNonzero->evidence.size(), std::size_t(2));
    }

    void absurdValuesKeepTimesInRange()
    {
        // Values no profiler writes but a damaged file can hold (an elapse of 1e300 ms, L2 hit
        // and miss counts of -1e300 and 1e300): every time the advisor derives from them stays
        // a TimeNs within +-kMaxTimeNs (the ASan/UBSan suite fails on a double cast out of range).
        Builder a(0), b(1);
        for (Builder* x : {&a, &b}) {
            x->step(90, 5, 5);
            auto& op = x->commOp("hcom_allReduce__1_0_1", 1e300, 1e300);
            op.start = fixture::ms(1);
            for (int i = 0; i < 4; ++i) {
                const auto r = x->kernel("MatMul", "MatMul", "AI_CORE", 5000.0 * i, 5000);
                // a hit rate of about -1e15: an L2 evidence cost of about 5e21 ns
                x->set(r, "aic_r0_read_cache_hit", -1e300);
                x->set(r, "aic_r0_read_cache_miss_allocate", 1.000000000000001e300);
                x->set(r, "aic_mte2_ratio", 0.5);
            }
        }
        const auto r = runAdvisor(fixture::session({a.p, b.p}), fixture::defaults());
        QVERIFY(fixture::find(r, "MEM-L2/hit-rate"));
        auto inRange = [](TimeNs t) { return t >= -kMaxTimeNs && t <= kMaxTimeNs; };
        for (const auto& f : r.findings) {
            QVERIFY2(inRange(f.costNs), f.id.c_str());
            for (const auto& e : f.evidence) {
                QVERIFY2(inRange(e.cost), f.id.c_str());
                QVERIFY2(!e.at.dur || inRange(*e.at.dur), f.id.c_str());
            }
        }
        QCOMPARE(roundNs(1e300), kMaxTimeNs);
        QCOMPARE(roundNs(-std::numeric_limits<double>::infinity()), -kMaxTimeNs);
        QCOMPARE(roundNs(std::nan("")), TimeNs(0));
        QCOMPARE(roundNs(-2.5), TimeNs(-3));
        QCOMPARE(roundNs(1234.4), TimeNs(1234));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestRulesCommunication)

} // namespace test_rules_communication

#include "test_rules_communication.moc"
