// Per-operator aggregates (op_stats.h) on hand-built profiles whose expected numbers are worked
// out in the comments, then on real kernel tables once the readers load them.
#include "test_main.h"
#include "analysis_fixtures.h"
#include "model/analysis/op_stats.h"

#include <QtTest>

#include <cmath>

namespace test_op_stats {

using namespace npuscope;
using namespace npuscope::fixtures;

namespace {

const OpGroupStats* find(const OpStatsResult& r, const std::string& key)
{
    for (const auto& g : r.groups)
        if (g.key == key)
            return &g;
    return nullptr;
}

bool near(double a, double b, double eps = 1e-9) { return std::fabs(a - b) <= eps; }

} // namespace

class TestOpStats : public QObject {
    Q_OBJECT
private slots:
    void countsTotalsPercentiles()
    {
        Profile p;
        p.rank = 3;
        // MatMul: 1..10 µs, one after another; Add: 100 ns and 300 ns.
        for (int i = 1; i <= 10; ++i)
            addKernel(p, "MatMul_" + std::to_string(i), "MatMul", "AI_CORE", i * 20000, i * 1000);
        addKernel(p, "Add_1", "Add", "AI_VECTOR_CORE", 500000, 100);
        addKernel(p, "Add_2", "Add", "AI_VECTOR_CORE", 600000, 300);
        p.finalize();
        const OpStatsResult r = computeOpStats(p);
        QCOMPARE(r.groups.size(), std::size_t(2));
        QCOMPARE(r.groups[0].key, std::string("MatMul")); // sorted by total, descending
        QCOMPARE(r.deviceTotal, TimeNs(55400));
        QVERIFY(!r.fromTimeline);
        const OpGroupStats& m = r.groups[0];
        QCOMPARE(m.count, std::uint64_t(10));
        QCOMPARE(m.total, TimeNs(55000));
        QCOMPARE(m.min, TimeNs(1000));
        QCOMPARE(m.max, TimeNs(10000));
        QCOMPARE(m.avgNs, 5500.0);
        // Nearest rank: p50 = ceil(5.0) = 5th, p90 = 9th, p99 = ceil(9.9) = 10th smallest.
        QCOMPARE(m.p50, TimeNs(5000));
        QCOMPARE(m.p90, TimeNs(9000));
        QCOMPARE(m.p99, TimeNs(10000));
        QVERIFY(near(m.share, 55000.0 / 55400.0));
        QCOMPARE(m.taskType, std::string("AI_CORE"));
        QCOMPARE(m.rank, 3);
        QCOMPARE(m.rows.size(), std::size_t(10));
        QVERIFY(std::isnan(m.aicUtilization)); // no metric columns: missing, not 0
        QVERIFY(std::isnan(m.l2HitRate));
        const OpGroupStats& a = r.groups[1];
        QCOMPARE(a.p50, TimeNs(100)); // ceil(1.0) = 1st of {100, 300}
        QCOMPARE(a.p90, TimeNs(300));

        OpStatsOptions byName;
        byName.groupBy = GroupBy::Name;
        QCOMPARE(computeOpStats(p, byName).groups.size(), std::size_t(12));
    }

    void weightedMeans()
    {
        Profile p;
        addKernel(p, "mm1", "MatMul", "AI_CORE", 0, 1000,
                  {{"cube_utilization(%)", 50}, {"aic_mac_ratio", 0.5}, {"aic_mte2_ratio", 0.2},
                   {"aic_main_mem_read_bw(GB/s)", 100}, {"aiv_main_mem_read_bw(GB/s)", 20},
                   {"aic_main_mem_write_bw(GB/s)", 10}});
        addKernel(p, "mm2", "MatMul", "AI_CORE", 2000, 3000,
                  {{"cube_utilization(%)", 10}, {"aic_mac_ratio", 0.1}, {"aic_mte2_ratio", 0.9},
                   {"aic_main_mem_read_bw(GB/s)", 200}, {"aic_main_mem_write_bw(GB/s)", 30}});
        // No cube_utilization: the dominant pipe ratio stands in.
        addKernel(p, "add", "Add", "AI_VECTOR_CORE", 6000, 2000, {{"aiv_vec_ratio", 0.6}});
        p.finalize();
        const OpStatsResult r = computeOpStats(p);
        const OpGroupStats* m = find(r, "MatMul");
        QVERIFY(m);
        // (0.5·1000 + 0.1·3000) / 4000
        QVERIFY(near(m->aicUtilization, 0.2));
        // read = aic + aiv per row: (120·1000 + 200·3000) / 4000 = 180; write (10·1000 + 30·3000)/4000 = 25
        QVERIFY(near(m->readGBps, 180.0));
        QVERIFY(near(m->writeGBps, 25.0));
        QVERIFY(near(m->macRatio, 0.2));
        QVERIFY(near(m->mte2Ratio, (0.2 * 1000 + 0.9 * 3000) / 4000));
        // mte2 0.725 < 0.8, bandwidth 205/1200 < 0.6, mac < 0.8, avg 2 µs < 20 µs, all ratios <= 0.8
        QCOMPARE(m->bound, BoundType::Latency);
        const OpGroupStats* a = find(r, "Add");
        QVERIFY(a);
        QVERIFY(near(a->aicUtilization, 0.6));
        QVERIFY(r.utilizationSource.find("cube_utilization(%)") != std::string::npos);
        QVERIFY(r.utilizationSource.find("aiv_vec_ratio") != std::string::npos);
    }

    void l2FromCounters()
    {
        Profile p;
        // Row rates 0.8 and 0.1 (mean 0.45), but counters sum to 50 / 150.
        addKernel(p, "c1", "Conv", "AI_CORE", 0, 1000,
                  {{"aic_write_cache_hit", 10}, {"aic_r0_read_cache_hit", 30}, {"aic_write_cache_miss_allocate", 10},
                   {"aic_r0_read_cache_miss_allocate", 0}});
        addKernel(p, "c2", "Conv", "AI_CORE", 1000, 1000,
                  {{"aic_r0_read_cache_hit", 10}, {"aic_r0_read_cache_miss_allocate", 90}});
        // No counters: l2_cache.csv's hit rate, duration-weighted: (0.5·1000 + 0.9·3000)/4000 = 0.8.
        addKernel(p, "g1", "Gelu", "AI_VECTOR_CORE", 3000, 1000, {{"l2_hit_rate", 0.5}});
        addKernel(p, "g2", "Gelu", "AI_VECTOR_CORE", 5000, 3000, {{"l2_hit_rate", 0.9}});
        p.finalize();
        const OpStatsResult r = computeOpStats(p);
        QVERIFY(near(find(r, "Conv")->l2HitRate, 50.0 / 150.0));
        QVERIFY(near(find(r, "Gelu")->l2HitRate, 0.8));
        // Profile-wide: once any row has counters, the counters decide (rates are not mixed in).
        QVERIFY(near(computeOverallStats(p).l2HitRate, 50.0 / 150.0));
    }

    void boundTypes()
    {
        Profile p;
        addKernel(p, "a", "Mem", "AI_CORE", 0, 50000, {{"aic_mac_ratio", 0.3}, {"aic_mte2_ratio", 0.85}});
        addKernel(p, "b", "Comp", "AI_CORE", 0, 50000, {{"aic_mac_ratio", 0.9}, {"aic_mte2_ratio", 0.5}});
        addKernel(p, "c", "Lat", "AI_CORE", 0, 5000,
                  {{"aic_mac_ratio", 0.3}, {"aiv_vec_ratio", 0.2}, {"aic_mte2_ratio", 0.4}});
        addKernel(p, "d", "Unk", "AI_CORE", 0, 50000, {{"aic_mac_ratio", 0.3}, {"aic_mte2_ratio", 0.4}});
        addKernel(p, "e", "NoRatios", "AI_CORE", 0, 1000);
        addKernel(p, "f", "Vec", "AI_VECTOR_CORE", 0, 50000, {{"aiv_vec_ratio", 0.85}, {"aiv_mte2_ratio", 0.1}});
        // Bandwidth share 800/1200 = 0.67 >= 0.6 with mac 0.1 < 0.6.
        addKernel(p, "g", "Bw", "AI_CORE", 0, 50000,
                  {{"aic_mac_ratio", 0.1}, {"aic_mte2_ratio", 0.3}, {"aic_main_mem_read_bw(GB/s)", 800}});
        // Exactly at the thresholds: mte2 0.8 and mac 0.6 is not memory (mac must be < 0.6) ...
        addKernel(p, "h", "Edge", "AI_CORE", 0, 50000, {{"aic_mac_ratio", 0.6}, {"aic_mte2_ratio", 0.8}});
        // ... but mte2 0.8 with mac 0.59 is.
        addKernel(p, "i", "Edge2", "AI_CORE", 0, 50000, {{"aic_mac_ratio", 0.59}, {"aic_mte2_ratio", 0.8}});
        p.finalize();
        const OpStatsResult r = computeOpStats(p);
        QCOMPARE(find(r, "Mem")->bound, BoundType::Memory);
        QCOMPARE(find(r, "Comp")->bound, BoundType::Compute);
        QCOMPARE(find(r, "Lat")->bound, BoundType::Latency);
        QCOMPARE(find(r, "Unk")->bound, BoundType::Unknown);
        QCOMPARE(find(r, "NoRatios")->bound, BoundType::Unknown);
        QCOMPARE(find(r, "Vec")->bound, BoundType::Compute);
        QCOMPARE(find(r, "Bw")->bound, BoundType::Memory);
        QCOMPARE(find(r, "Edge")->bound, BoundType::Unknown);
        QCOMPARE(find(r, "Edge2")->bound, BoundType::Memory);
        QCOMPARE(std::string(boundTypeName(BoundType::Memory)), std::string("memory"));
        // With a 2000 GB/s peak the same 800 GB/s is a 0.4 share: no longer memory-bound.
        OpStatsOptions highPeak;
        highPeak.peakHbmGBps = 2000;
        QCOMPARE(find(computeOpStats(p, highPeak), "Bw")->bound, BoundType::Unknown);
    }

    void rangeClipping()
    {
        Profile p;
        addKernel(p, "a1", "Add", "AI_VECTOR_CORE", 0, 10000, {{"aiv_vec_ratio", 0.2}});
        addKernel(p, "a2", "Add", "AI_VECTOR_CORE", 5000, 10000, {{"aiv_vec_ratio", 0.4}});
        addKernel(p, "a3", "Add", "AI_VECTOR_CORE", 20000, 10000, {{"aiv_vec_ratio", 0.6}});
        addKernel(p, "a4", "Add", "AI_VECTOR_CORE", 40000, 10000, {{"aiv_vec_ratio", 1.0}});
        p.finalize();
        OpStatsOptions o;
        o.rangeBegin = 8000;
        o.rangeEnd = 22000;
        const OpStatsResult r = computeOpStats(p, o);
        QCOMPARE(r.groups.size(), std::size_t(1));
        const OpGroupStats& g = r.groups[0];
        // Clipped: [8,10) 2 µs, [8,15) 7 µs, [20,22) 2 µs; a4 is outside.
        QCOMPARE(g.count, std::uint64_t(3));
        QCOMPARE(g.total, TimeNs(11000));
        QCOMPARE(g.min, TimeNs(2000));
        QCOMPARE(g.max, TimeNs(7000));
        QCOMPARE(r.deviceTotal, TimeNs(11000));
        // Weighted by clipped time: (0.2·2 + 0.4·7 + 0.6·2) / 11
        QVERIFY(near(g.aicUtilization, (0.2 * 2 + 0.4 * 7 + 0.6 * 2) / 11.0));
    }

    void communicationRows()
    {
        Profile p;
        addKernel(p, "mm", "MatMul", "AI_CORE", 0, 1000);
        addKernel(p, "hcom_allReduce__1_0_1", "hcom_allReduce_", "HCCL", 2000, 5000);
        addKernel(p, "x", "AllGather", "COMMUNICATION", 8000, 4000);
        addKernel(p, "hcom_send__2", "hcom_send_", "AI_CPU", 13000, 1000); // type starts with hcom
        p.finalize();
        QCOMPARE(computeOpStats(p).groups.size(), std::size_t(1));
        QCOMPARE(computeOpStats(p).deviceTotal, TimeNs(1000));
        OpStatsOptions o;
        o.includeCommunication = true;
        const OpStatsResult all = computeOpStats(p, o);
        QCOMPARE(all.groups.size(), std::size_t(4));
        QCOMPARE(all.deviceTotal, TimeNs(11000));
        QVERIFY(isCommunicationTask("HCCL", "x"));
        QVERIFY(!isCommunicationTask("AI_CORE", "MatMul"));
    }

    void commBaseNames_data()
    {
        QTest::addColumn<QString>("in");
        QTest::addColumn<QString>("out");
        QTest::newRow("allReduce") << "hcom_allReduce__184_0_1" << "hcom_allReduce";
        QTest::newRow("with group") << "hcom_broadcast__123_1_1@7452643344416017458" << "hcom_broadcast";
        QTest::newRow("single suffix") << "hcom_send_7" << "hcom_send";
        QTest::newRow("no suffix") << "allGather" << "allGather";
        QTest::newRow("all digits") << "123" << "123";
        QTest::newRow("digits inside") << "hcom_all2all_v__5" << "hcom_all2all_v";
    }
    void commBaseNames()
    {
        QFETCH(QString, in);
        QFETCH(QString, out);
        QCOMPARE(QString::fromStdString(commBaseName(in.toStdString())), out);
    }

    void commStatsVolume()
    {
        Profile p;
        p.rank = 1;
        // RDMA 100 + max(SDMA 50, HCCS 30 + PCIE 10 + SIO 5 = 45) = 150 MB
        p.commOps.push_back(commOp(p, "hcom_allReduce__1_0_1@g", 2.5,
                                   {{"RDMA", 100}, {"SDMA", 50}, {"HCCS", 30}, {"PCIE", 10}, {"SIO", 5}}, 1.0, 0.5));
        // max(SDMA 20, HCCS 25) = 25 MB
        p.commOps.push_back(commOp(p, "hcom_allReduce__2_0_1@g", 1.5, {{"SDMA", 20}, {"HCCS", 25}}, 0.25, 0.75));
        p.commOps.push_back(commOp(p, "hcom_broadcast__3_0_1@g", 0.25, {{"HCCS", 4}}));
        p.commOps.push_back(commOp(p, "Total Op Info", 100, {{"SDMA", 1000}}));
        p.finalize();
        const auto s = computeCommStats(p);
        QCOMPARE(s.size(), std::size_t(2));
        QCOMPARE(s[0].key, std::string("hcom_allReduce"));
        QCOMPARE(s[0].count, std::uint64_t(2));
        QCOMPARE(s[0].total, TimeNs(4000000));
        QVERIFY(near(s[0].volumeGB, 0.175));
        QVERIFY(near(s[0].waitMs, 1.25));
        QVERIFY(near(s[0].transitMs, 1.25));
        QCOMPARE(s[0].rank, 1);
        QCOMPARE(s[1].key, std::string("hcom_broadcast"));
        QCOMPARE(s[1].total, TimeNs(250000));
        QVERIFY(near(s[1].volumeGB, 0.004));
    }

    void commStatsFromTimeline()
    {
        Profile p;
        const TrackId g = addTrack(p, 7, 1, TrackKind::CommGroup, "Communication", "Group 0 Communication");
        addSlice(p, g, "hcom_allReduce__1_0_1", "", 1000, 3000);
        addSlice(p, g, "hcom_allReduce__2_0_1", "", 9000, 2000);
        addSlice(p, g, "hcom_broadcast__3_0_1", "", 5000, 500);
        p.finalize();
        const auto s = computeCommStats(p);
        QCOMPARE(s.size(), std::size_t(2));
        QCOMPARE(s[0].key, std::string("hcom_allReduce"));
        QCOMPARE(s[0].count, std::uint64_t(2));
        QCOMPARE(s[0].total, TimeNs(5000));
        QCOMPARE(s[0].volumeGB, 0.0);
    }

    void fromTimelineTasks()
    {
        Profile p;
        const TrackId st = addTrack(p, 5, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2");
        const TrackId cpu = addTrack(p, 9, 1, TrackKind::Python, "Python", "Thread 1");
        addSlice(p, st, "MatMul_1", "AI_CORE", 0, 1000, 1);
        addSlice(p, st, "MatMul_1", "AI_CORE", 2000, 3000, 2);
        addSlice(p, st, "hcom_allReduce__1", "HCCL", 6000, 2000, 3);
        addSlice(p, st, "AddN", "AI_VECTOR_CORE", 9000, 500, 4);
        addSlice(p, cpu, "aten::mm", "cpu_op", 0, 9000);
        p.finalize();
        const OpStatsResult r = computeOpStats(p);
        QVERIFY(r.fromTimeline);
        QCOMPARE(r.groups.size(), std::size_t(2));
        QCOMPARE(r.groups[0].key, std::string("MatMul_1"));
        QCOMPARE(r.groups[0].count, std::uint64_t(2));
        QCOMPARE(r.groups[0].total, TimeNs(4000));
        QCOMPARE(r.groups[0].taskType, std::string("AI_CORE"));
        QCOMPARE(r.deviceTotal, TimeNs(4500));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestOpStats)

} // namespace test_op_stats

#include "test_op_stats.moc"
