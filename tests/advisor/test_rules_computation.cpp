// Computation rules on hand-built profiles: each fires on its fixture with the expected
// severity, evidence and gain (formula values computed by hand in the comments), and stays
// quiet on the clean variant.
#include "test_main.h"
#include "advisor_fixture.h"

#include "model/formats/loader.h"

#include <QtTest>

#include <set>

namespace test_rules_computation {

using namespace npuscope;
using namespace npuscope::advisor;
using fixture::Builder;

class TestRulesComputation : public QObject {
    Q_OBJECT

private:
    // T = 100 ms (one step_trace_time row 90 + 0 + 10); 10 MatMulV2 tasks × 1 ms.
    static Builder cube(double mac, double mte2, const std::string& dtypes)
    {
        Builder b;
        b.step(90, 0, 10);
        for (int i = 0; i < 10; ++i) {
            const auto r = b.kernel("MatMulV2_" + std::to_string(i), "MatMulV2", "AI_CORE", 1000.0 * i, 1000, 2,
                                    "4096,4096;4096,4096", dtypes);
            b.set(r, "aic_mac_ratio", mac);
            b.set(r, "aic_mte2_ratio", mte2);
        }
        return b;
    }

private slots:
    void cubeMemboundFires()
    {
        Builder b = cube(0.35, 0.86, "FLOAT16;FLOAT16");
        const auto s = fixture::session({b.p});
        const auto r = runAdvisor(s, fixture::defaults());
        const Finding* f = fixture::find(r, "CMP-CUBE-MEMBOUND");
        QVERIFY(f);
        QCOMPARE(f->status, Status::Fired);
        QCOMPARE(f->costNs, fixture::ms(10));
        QCOMPARE(f->severity, FindingSeverity::High); // 10 % of T
        QVERIFY(f->title.find("MatMulV2 memory-bound") == 0);
        QVERIFY(f->title.find("mte2 0.86") != std::string::npos);
        QCOMPARE(f->evidence.size(), std::size_t(10));
        // gain = Σdur 10 ms × mte2 0.86 × r_fuse 0.3 = 2.58 ms
        QVERIFY(f->gain.estimated);
        QVERIFY(std::abs(f->gain.nsPerStep - 2.58e6) < 2.58e6 * 0.01);
        QVERIFY(std::abs(f->gain.shareOfT - 0.0258) < 0.0258 * 0.01);
        QVERIFY(f->suggestions.front().find("Fuse") == 0);
    }

    void cubeMemboundFp32UsesDtypeFactor()
    {
        Builder b = cube(0.35, 0.86, "FLOAT;FLOAT");
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        FIXTURE_FINDING(f, r, "CMP-CUBE-MEMBOUND");
        QCOMPARE(f->status, Status::Fired);
        // 10 ms × 0.86 × r_dtype 0.5 = 4.3 ms; first suggestion is the fp16 one
        QVERIFY(std::abs(f->gain.nsPerStep - 4.3e6) < 4.3e6 * 0.01);
        QVERIFY(f->suggestions.front().find("32-bit") != std::string::npos);
    }

    void cubeMemboundPassesWhenComputeBound()
    {
        Builder b = cube(0.70, 0.86, "FLOAT16");
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        FIXTURE_FINDING(cmpCubeMembound, r, "CMP-CUBE-MEMBOUND");
        QCOMPARE(cmpCubeMembound->status, Status::Passed);
        Builder c = cube(0.35, 0.79, "FLOAT16"); // mte2 just under 0.8, no bandwidth columns
        const auto r2 = runAdvisor(fixture::session({c.p}), fixture::defaults());
        FIXTURE_FINDING(cmpCubeMemboundR2, r2, "CMP-CUBE-MEMBOUND");
        QCOMPARE(cmpCubeMemboundR2->status, Status::Passed);
        Builder d = cube(0.35, 0.80, "FLOAT16"); // exactly at the threshold: fires (≥)
        const auto r3 = runAdvisor(fixture::session({d.p}), fixture::defaults());
        FIXTURE_FINDING(cmpCubeMemboundR3, r3, "CMP-CUBE-MEMBOUND");
        QCOMPARE(cmpCubeMemboundR3->status, Status::Fired);
    }

    void cubeMemboundNotCheckedWithoutPipeMetrics()
    {
        Builder b;
        b.step(90, 0, 10);
        b.kernel("MatMulV2", "MatMulV2", "AI_CORE", 0, 1000);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        FIXTURE_FINDING(f, r, "CMP-CUBE-MEMBOUND");
        QCOMPARE(f->status, Status::NotChecked);
        QVERIFY(f->needs.find("PipeUtilization") != std::string::npos);
        QVERIFY(f->needs.find("kernel_details.csv") != std::string::npos);
    }

    void vecMemFires()
    {
        Builder b;
        b.step(90, 0, 10);
        // 5 LayerNorm tasks × 1 ms on the vector core: vec 0.1, mte2 0.8, mte3 0.5
        for (int i = 0; i < 5; ++i) {
            const auto r = b.kernel("LayerNorm", "LayerNorm", "AI_VECTOR_CORE", 2000.0 * i, 1000);
            b.set(r, "aiv_vec_ratio", 0.1);
            b.set(r, "aiv_mte2_ratio", 0.8);
            b.set(r, "aiv_mte3_ratio", 0.5);
        }
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "CMP-VEC-MEM/LayerNorm");
        QVERIFY(f);
        QCOMPARE(f->status, Status::Fired);
        QCOMPARE(f->severity, FindingSeverity::High); // 5 ms of 100 ms = 5.00 %
        // gain = 5 ms × mte 0.8 × r 0.5 = 2 ms
        QVERIFY(std::abs(f->gain.nsPerStep - 2e6) < 2e4);
        QVERIFY(f->suggestions.front().find("npu_add_layer_norm") != std::string::npos);
    }

    void vecMemPassesWhenComputing()
    {
        Builder b;
        b.step(90, 0, 10);
        const auto r0 = b.kernel("LayerNorm", "LayerNorm", "AI_VECTOR_CORE", 0, 5000);
        b.set(r0, "aiv_vec_ratio", 0.5);
        b.set(r0, "aiv_mte2_ratio", 0.8);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        FIXTURE_FINDING(cmpVecMem, r, "CMP-VEC-MEM");
        QCOMPARE(cmpVecMem->status, Status::Passed);
    }

    // Severity edges: AI CPU op cost shares 2.99/3.00/4.99/5.00 % of a 100 ms step.
    void severityEdges_data()
    {
        QTest::addColumn<double>("durMs");
        QTest::addColumn<int>("severity");
        QTest::newRow("2.99%") << 2.99 << int(FindingSeverity::Low);
        QTest::newRow("3.00%") << 3.00 << int(FindingSeverity::Medium);
        QTest::newRow("4.99%") << 4.99 << int(FindingSeverity::Medium);
        QTest::newRow("5.00%") << 5.00 << int(FindingSeverity::High);
    }
    void severityEdges()
    {
        QFETCH(double, durMs);
        QFETCH(int, severity);
        Builder b;
        b.step(90, 0, 10);
        b.kernel("NonZero", "NonZero", "AI_CPU", 0, durMs * 1000, 2, "8,8", "INT64");
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "CMP-AICPU/NonZero");
        QVERIFY(f);
        QCOMPARE(int(f->severity), severity);
        // gain = dur × r 0.8
        QVERIFY(std::abs(f->gain.nsPerStep - durMs * 0.8e6) < durMs * 0.8e4);
        bool indexHint = false;
        for (const auto& s : f->suggestions)
            indexHint = indexHint || s.find("NonZero") != std::string::npos;
        QVERIFY(indexHint);
    }

    void aicpuUsesTheOpsOwnDuration()
    {
        // A long AI Core op must not make a short AI CPU op fire (msprof-analyze pitfall).
        Builder b;
        b.step(90, 0, 10);
        b.kernel("MatMul", "MatMul", "AI_CORE", 0, 50000);
        for (int i = 0; i < 200; ++i)
            b.kernel("Cast", "Cast", "AI_CPU", 60000 + 30.0 * i, 19); // 19 µs each < 20 µs
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        FIXTURE_FINDING(cmpAicpu, r, "CMP-AICPU");
        QCOMPARE(cmpAicpu->status, Status::Passed);
    }

    void aicpuDoubleDtype()
    {
        Builder b;
        b.step(90, 0, 10);
        b.kernel("Mul", "Mul", "AI_CPU", 0, 4000, 2, "8", "DOUBLE");
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "CMP-AICPU/Mul");
        QVERIFY(f);
        QVERIFY(f->suggestions.front().find("DOUBLE") != std::string::npos);
    }

    void blockDimFiresAndNeedsInfo()
    {
        Builder b;
        b.step(90, 0, 10);
        // 20 blocks on 24 cores, 5 ms: gain = 5 ms × (1 − 20/24) = 0.8333 ms
        b.kernel("Add", "Add", "AI_CORE", 0, 5000, 2, "", "", 20);
        auto noInfo = runAdvisor(fixture::session({b.p}), fixture::defaults());
        FIXTURE_FINDING(cmpBlockdimNoInfo, noInfo, "CMP-BLOCKDIM");
        QCOMPARE(cmpBlockdimNoInfo->status, Status::NotChecked);
        QVERIFY(cmpBlockdimNoInfo->needs.find("info.json") != std::string::npos);
        b.info(24, 48);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "CMP-BLOCKDIM/Add");
        QVERIFY(f);
        QVERIFY(std::abs(f->gain.nsPerStep - 5e6 / 6) < 5e6 / 6 * 0.01);
        Builder c;
        c.step(90, 0, 10);
        c.info(24, 48);
        c.kernel("Add", "Add", "AI_CORE", 0, 5000, 2, "", "", 48);
        QCOMPARE(fixture::find(runAdvisor(fixture::session({c.p}), fixture::defaults()), "CMP-BLOCKDIM")->status,
                 Status::Passed);
    }

    // The AI Core Freq counter at 1800 MHz nominal: 900 MHz under the first Zeta, 1200 MHz under
    // Alpha and the second Zeta, full speed under Beta. One finding per op name, each from its
    // own tasks however the names interleave.
    void freqFiresPerOpName()
    {
        Builder b;
        b.step(90, 0, 10);
        b.info(24, 48, 1800);
        b.kernel("Zeta", "Add", "AI_CORE", 0, 1000);
        b.kernel("Alpha", "Add", "AI_CORE", 2000, 1000);
        b.kernel("Zeta", "Add", "AI_CORE", 4000, 1000);
        b.kernel("Beta", "Add", "AI_CORE", 6000, 1000);
        CounterSeries s;
        s.process = s.name = b.p->strings.intern("AI Core Freq");
        s.key = b.p->strings.intern("MHz");
        s.device = 0;
        s.ts = {0, fixture::us(1500), fixture::us(1900), fixture::us(5500)};
        s.value = {900, 1800, 1200, 1800};
        b.p->counters.push_back(s);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* zeta = fixture::find(r, "CMP-FREQ/Zeta");
        const Finding* alpha = fixture::find(r, "CMP-FREQ/Alpha");
        QVERIFY(zeta && alpha);
        QVERIFY(!fixture::find(r, "CMP-FREQ/Beta"));
        // Σ dur·(1 − f/f_max): Zeta 1000 µs × 1/2 + 1000 µs × 1/3, Alpha 1000 µs × 1/3.
        QCOMPARE(zeta->costNs, TimeNs(833333));
        QCOMPARE(alpha->costNs, TimeNs(333333));
        QVERIFY2(zeta->title.find("41.7 % below 1800 MHz (min 900 MHz)") != std::string::npos, zeta->title.c_str());
        QVERIFY2(alpha->title.find("33.3 % below 1800 MHz (min 1200 MHz)") != std::string::npos, alpha->title.c_str());
        QVERIFY(zeta->description.find("While 2 Zeta tasks ran") != std::string::npos);
    }

    void noBoundPerOpWithCoverage()
    {
        Builder b;
        b.step(90, 0, 10);
        // First op has no ratios (the reference checked only it); the second is unbound: max 0.4.
        b.kernel("Gather", "Gather", "AI_VECTOR_CORE", 0, 100);
        const auto r1 = b.kernel("Gather", "Gather", "AI_VECTOR_CORE", 200, 4000);
        b.set(r1, "aiv_vec_ratio", 0.4);
        b.set(r1, "aiv_mte2_ratio", 0.3);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "CMP-NOBOUND/Gather");
        QVERIFY(f);
        // gain = 4 ms × (1 − 0.4/0.8) = 2 ms
        QVERIFY(std::abs(f->gain.nsPerStep - 2e6) < 2e4);
        QVERIFY(f->inputs.front().find("1/2 ops") != std::string::npos);
    }

    void fusePatternFires()
    {
        Builder b;
        b.step(90, 0, 10);
        // 10 × (Add 100 µs, gap 50 µs, LayerNorm 100 µs) on one stream
        for (int i = 0; i < 10; ++i) {
            b.kernel("Add", "Add", "AI_VECTOR_CORE", 1000.0 * i, 100);
            b.kernel("LayerNorm", "LayerNorm", "AI_VECTOR_CORE", 1000.0 * i + 150, 100);
        }
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "CMP-FUSE/Add|AddV2-LayerNorm|LayerNormV3|LayerNormV4");
        QVERIFY(f);
        // gain = Σ inner gaps 10 × 50 µs = 0.5 ms (no PMU ratios)
        QVERIFY(std::abs(f->gain.nsPerStep - 0.5e6) < 0.5e4);
        QVERIFY(f->suggestions.front().find("npu_add_layer_norm") != std::string::npos);
    }

    // CMP-FUSE (b): `reps` repetitions of Mul → Add → Cast (durUs each, gapUs between them) on
    // stream 2, each followed by a MatMul of its own shape, so only the three-op window repeats.
    static Builder fuseWindow(int reps, double durUs, double gapUs, double mte2 = -1)
    {
        Builder b;
        b.step(90, 0, 10); // T = 100 ms
        double t = 0;
        for (int i = 0; i < reps; ++i) {
            for (const char* op : {"Mul", "Add", "Cast"}) {
                const auto r = b.kernel(op, op, "AI_VECTOR_CORE", t, durUs, 2, "1024,1024", "FLOAT16");
                if (mte2 >= 0)
                    b.set(r, "aiv_mte2_ratio", mte2);
                t += durUs + gapUs;
            }
            b.kernel("MatMul", "MatMulV2", "AI_CORE", t, 10, 2, std::to_string(64 + i) + ",64", "FLOAT16");
            t += 500;
        }
        return b;
    }

    void fuseWindowFires()
    {
        // 10 × (3 × 100 µs + 2 × 20 µs gaps): wall 10 × 340 µs = 3.4 ms = 3.4 % of T > 1 %.
        Builder b = fuseWindow(10, 100, 20);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "CMP-FUSE/window:Mul-Add-Cast");
        QVERIFY(f);
        QCOMPARE(f->status, Status::Fired);
        QCOMPARE(f->costNs, fixture::us(3400));
        QCOMPARE(f->severity, FindingSeverity::Medium); // 3.4 %
        QVERIFY(f->title.find("10 times") != std::string::npos);
        QVERIFY(f->title.find("host-bound") == std::string::npos); // Σdur/wall = 300/340 = 0.88
        QCOMPARE(f->evidence.size(), std::size_t(10));
        // gain = Σ inner gaps 10 × 40 µs + (n−1)/n · Σmte 0 = 0.4 ms
        QVERIFY(f->gain.estimated);
        QVERIFY(std::abs(f->gain.nsPerStep - 0.4e6) < 0.4e4);
        QVERIFY(f->gain.formula.find("n = 3") != std::string::npos);
        // Its sub-windows (Mul-Add, Add-Cast) are not reported again.
        int windows = 0;
        for (const auto& x : r.findings)
            windows += x.id.find("CMP-FUSE/window:") == 0;
        QCOMPARE(windows, 1);
    }

    void fuseWindowCountEdge()
    {
        // count must exceed min_count = 5: 5 repetitions pass, 6 fire (wall 6 × 340 µs = 2 %).
        Builder five = fuseWindow(5, 100, 20);
        const auto r5 = runAdvisor(fixture::session({five.p}), fixture::defaults());
        FIXTURE_FINDING(cmpFuseR5, r5, "CMP-FUSE");
        QCOMPARE(cmpFuseR5->status, Status::Passed);
        QVERIFY(cmpFuseR5->check.find("task windows") != std::string::npos);
        Builder six = fuseWindow(6, 100, 20);
        const auto r6 = runAdvisor(fixture::session({six.p}), fixture::defaults());
        QVERIFY(fixture::find(r6, "CMP-FUSE/window:Mul-Add-Cast"));
    }

    void fuseWindowHostBoundEdge_data()
    {
        QTest::addColumn<double>("gapUs");
        QTest::addColumn<bool>("hostBound");
        // Σdur/wall = 300 / (300 + 2·gap) against host_ratio 0.4 (strictly below is host-bound).
        QTest::newRow("0.43") << 200.0 << false;
        QTest::newRow("0.40 exactly") << 225.0 << false;
        QTest::newRow("0.375") << 250.0 << true;
    }
    void fuseWindowHostBoundEdge()
    {
        QFETCH(double, gapUs);
        QFETCH(bool, hostBound);
        Builder b = fuseWindow(10, 100, gapUs);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "CMP-FUSE/window:Mul-Add-Cast");
        QVERIFY(f);
        QCOMPARE(f->title.find("host-bound") != std::string::npos, hostBound);
        QCOMPARE(f->suggestions.front().find("Host-bound") == 0, hostBound);
        // gain = Σ inner gaps 10 × 2 × gap
        QVERIFY(std::abs(f->gain.nsPerStep - 20 * gapUs * 1e3) < 20 * gapUs * 10);
    }

    void fuseWindowMteEdge_data()
    {
        QTest::addColumn<double>("mte2");
        QTest::addColumn<bool>("fires");
        // Short tasks: wall 10 × (3 × 10 + 2 × 5) µs = 0.4 ms = 0.4 % of T, under wall_share;
        // the window fires only when Σmte/Σdur > mte_ratio 0.8.
        QTest::newRow("mte 0.79") << 0.79 << false;
        QTest::newRow("mte 0.80 exactly") << 0.80 << false;
        QTest::newRow("mte 0.90") << 0.90 << true;
    }
    void fuseWindowMteEdge()
    {
        QFETCH(double, mte2);
        QFETCH(bool, fires);
        Builder b = fuseWindow(10, 10, 5, mte2);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "CMP-FUSE/window:Mul-Add-Cast");
        QCOMPARE(f != nullptr, fires);
        if (f) {
            // gain = inner gaps 10 × 2 × 5 µs = 100 µs: no intermediate's bytes are known (no
            // output shapes, no bandwidth metrics), so no HBM round trip is counted; the old
            // share of Σmte is only the upper bound, gaps + 2/3 × Σmte (0.9 × 300 µs) = 280 µs.
            QVERIFY(std::abs(f->gain.nsPerStep - 100e3) < 1e3);
            QVERIFY(f->gain.formula.find("upper bound") != std::string::npos);
            QVERIFY2(f->gain.formula.find("= 0.28") != std::string::npos, f->gain.formula.c_str());
            QVERIFY(f->title.find("mte 0.90") != std::string::npos);
        }
    }

    void fuseWindowDistinctCountIsExact()
    {
        // 5 repetitions of Mul Add Cast MatMul(own shape) on one stream: one run of 20 compute
        // tasks. The check states how many distinct windows of 2..10 tasks were searched;
        // counted here independently over the op-type/shape texts.
        Builder b = fuseWindow(5, 100, 20);
        std::vector<std::string> sigs;
        for (int i = 0; i < 5; ++i) {
            for (const char* op : {"Mul", "Add", "Cast"})
                sigs.push_back(std::string(op) + " 1024,1024 FLOAT16");
            sigs.push_back("MatMulV2 " + std::to_string(64 + i) + ",64 FLOAT16");
        }
        // A window holds at most one GEMM, as its first task (no kernel fuses two GEMMs): a
        // window stops before a MatMul that is not its first task.
        std::set<std::vector<std::string>> distinct;
        for (std::size_t i = 0; i < sigs.size(); ++i)
            for (std::size_t len = 2; len <= 10 && i + len <= sigs.size(); ++len) {
                if (sigs[i + len - 1].rfind("MatMulV2", 0) == 0)
                    break;
                distinct.insert(std::vector<std::string>(sigs.begin() + static_cast<std::ptrdiff_t>(i),
                                                         sigs.begin() + static_cast<std::ptrdiff_t>(i + len)));
            }
        QCOMPARE(distinct.size(), std::size_t(15));
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        FIXTURE_FINDING(cmpFuse, r, "CMP-FUSE");
        const std::string check = cmpFuse->check;
        QVERIFY2(check.find(std::to_string(distinct.size()) + " task windows of 2..10 ops searched") != std::string::npos,
                 check.c_str());
    }

    void fuseWindowInRepeatedRuns()
    {
        // Mul → Add → Cast runs 10 times, each run closed by an HCCL task: ten identical runs
        // (searched once) and an eleventh that differs (Mul → Add only).
        Builder b;
        b.step(90, 0, 10);
        double t = 0;
        for (int i = 0; i < 11; ++i) {
            for (const char* op : {"Mul", "Add", "Cast"}) {
                if (i == 10 && std::string(op) == "Cast")
                    break;
                b.kernel(op, op, "AI_VECTOR_CORE", t, 100, 2, "1024,1024", "FLOAT16");
                t += 120;
            }
            b.kernel("hcom_allReduce_", "hcom_allReduce_", "HCCL", t, 10, 2);
            t += 500;
        }
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "CMP-FUSE/window:Mul-Add-Cast");
        QVERIFY(f);
        QVERIFY2(f->title.find("10 times") != std::string::npos, f->title.c_str());
        QCOMPARE(f->costNs, fixture::us(3400)); // 10 × (3 × 100 + 2 × 20) µs
        QCOMPARE(f->evidence.size(), std::size_t(10));
        // The evidence rows are the ten runs, in time order (equal walls keep their order).
        for (std::size_t i = 0; i < f->evidence.size(); ++i)
            QCOMPARE(f->evidence[i].at.ts, fixture::us(static_cast<double>(i) * (3 * 120 + 500)));
        // Mul-Add occurs 11 times, but the window took ten of them: it is not reported again.
        int windows = 0;
        for (const auto& x : r.findings)
            windows += x.id.find("CMP-FUSE/window:") == 0;
        QCOMPARE(windows, 1);
    }

    void fuseWindowSkipsNamedPatternTasks()
    {
        // The Add → LayerNorm chains of fusePatternFires are reported once, as the pattern.
        Builder b;
        b.step(90, 0, 10);
        for (int i = 0; i < 10; ++i) {
            b.kernel("Add", "Add", "AI_VECTOR_CORE", 1000.0 * i, 100);
            b.kernel("LayerNorm", "LayerNorm", "AI_VECTOR_CORE", 1000.0 * i + 150, 100);
        }
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        QVERIFY(fixture::find(r, "CMP-FUSE/Add|AddV2-LayerNorm|LayerNormV3|LayerNormV4"));
        for (const auto& x : r.findings)
            QVERIFY2(x.id.find("CMP-FUSE/window:") != 0, x.id.c_str());
    }

    void fuseWindowBrokenByAicpuAndComm()
    {
        // An AI CPU task after every Mul and an HCCL task after every Add: no window of two
        // consecutive compute tasks repeats.
        Builder b;
        b.step(90, 0, 10);
        double t = 0;
        for (int i = 0; i < 10; ++i) {
            b.kernel("Mul", "Mul", "AI_VECTOR_CORE", t, 100, 2, "1024", "FLOAT16");
            b.kernel("NonZero", "NonZero", "AI_CPU", t + 110, 10, 2);
            b.kernel("Add", "Add", "AI_VECTOR_CORE", t + 130, 100, 2, "1024", "FLOAT16");
            b.kernel("hcom_allReduce_", "hcom_allReduce_", "HCCL", t + 240, 10, 2);
            t += 300;
        }
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        for (const auto& x : r.findings)
            QVERIFY2(x.id.find("CMP-FUSE/window:") != 0, x.id.c_str());
    }

    // CMP-DYNSHAPE reads OP State wherever it is: msprof's op_summary of a bare ACL app (one
    // dynamic op in the real PROF_* sample) fires it with the ACL remedy, not the PyTorch one;
    // a kernel table without the column, and without CANN events, is not checked.
    void dynshapeOnMsprofOpSummary()
    {
        const std::string prof = std::string(NPUSCOPE_SAMPLES)
                                 + "/ascend-msprof-skill/tests/fixtures/tilelang_design_feedback/candidate_comparability/"
                                   "workload_mismatch_candidate/reports/app/PROF_000001_20260606121448940_RGBHHJGBAJGRQEOB";
        const LoadResult lr = loadSession(prof);
        QVERIFY2(lr.session && lr.session->ranks.size() == 1, lr.error.c_str());
        QCOMPARE(lr.session->ranks[0]->layout.rfind("msprof", 0), std::size_t(0));
        const AdvisorReport rep = runAdvisor(*lr.session, fixture::defaults());
        const Finding* f = fixture::find(rep, "CMP-DYNSHAPE");
        QVERIFY(f);
        QCOMPARE(f->status, Status::Fired);
        QCOMPARE(f->title, std::string("Every op runs as a dynamic-shape op (1/1)"));
        QVERIFY(!f->suggestions.empty());
        QVERIFY2(f->suggestions[0].find("ATC") != std::string::npos, f->suggestions[0].c_str());

        Builder b;
        b.step(1, 0, 0);
        b.kernel("MatMul", "MatMul", "AI_CORE", 0, 100);
        const Session s = fixture::session({b.p});
        const AdvisorReport plain = runAdvisor(s, fixture::defaults());
        const Finding* none = fixture::find(plain, "CMP-DYNSHAPE");
        QVERIFY(none);
        QCOMPARE(none->status, Status::NotChecked);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestRulesComputation)

} // namespace test_rules_computation

#include "test_rules_computation.moc"
