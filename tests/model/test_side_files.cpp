// Statistics, step, memory, l2 CSVs and the JSON side files on the real samples. Expected numbers
// come from python3 (csv.DictReader / json.load, Decimal µs -> ns), independent of the readers.
#include "test_main.h"
#include "file_bytes.h"
#include "model/formats/readers.h"

#include <QtTest>

#include <set>

namespace test_side_files {

using namespace npuscope;

namespace {

const std::string kSamples = NPUSCOPE_SAMPLES;
const std::string kMI = kSamples + "/msinsight/server/src/test/test_data/";
const std::string kAP = kMI + "test_rank_0/ASCEND_PROFILER_OUTPUT/";
const std::string kTorch = kSamples + "/msinsight/test/data/pytorch/text/";

using ProfileReader = FileRecord (*)(std::string_view, Profile&, const ReadContext&);
using ClusterReader = FileRecord (*)(std::string_view, ClusterData&, std::vector<Diagnostic>&, const ReadContext&);

FileRecord load(ProfileReader f, const std::string& path, Profile& p)
{
    const std::string bytes = fileBytes(path);
    ReadContext ctx;
    ctx.file = path;
    return f(bytes, p, ctx);
}

FileRecord loadCluster(ClusterReader f, const std::string& path, ClusterData& c)
{
    const std::string bytes = fileBytes(path);
    std::vector<Diagnostic> diags;
    ReadContext ctx;
    ctx.file = path;
    const FileRecord rec = f(bytes, c, diags, ctx);
    return rec;
}

const CommOp* findOp(const std::vector<CommOp>& ops, const std::string& full, int rank = -1)
{
    for (const auto& o : ops)
        if (o.fullName == full && o.rank == rank)
            return &o;
    return nullptr;
}

std::uint64_t samples(const Profile& p)
{
    std::uint64_t n = 0;
    for (const auto& c : p.counters)
        n += c.ts.size();
    return n;
}

} // namespace

class TestSideFiles : public QObject {
    Q_OBJECT
private slots:
    void apCommunication()
    {
        Profile p;
        const FileRecord rec = load(readers::readCommunicationJson, kAP + "communication.json", p);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QCOMPARE(rec.records, std::uint64_t(30)); // python: 2 p2p + 28 collective (2 Total Op Info)
        QCOMPARE(p.commOps.size(), std::size_t(30));
        double elapse = 0;
        int totals = 0;
        for (const auto& o : p.commOps) {
            elapse += o.elapseMs;
            totals += o.totalInfo ? 1 : 0;
            QCOMPARE(o.step, std::string("step2"));
            QVERIFY(o.kind == "p2p" || o.kind == "collective");
            QCOMPARE(o.start.has_value(), !o.totalInfo);
        }
        QCOMPARE(totals, 2);
        QVERIFY(std::abs(elapse - 304.509867398) < 1e-6);
        const CommOp* send = findOp(p.commOps, "hcom_send__822_0@13337953553061386822");
        QVERIFY(send);
        QCOMPARE(send->opName, std::string("hcom_send__822_0"));
        QCOMPARE(send->group, std::string("13337953553061386822"));
        QCOMPARE(send->kind, std::string("p2p"));
        QCOMPARE(*send->start, TimeNs(1695115378810042500LL));
        QCOMPARE(send->transitMs, 0.86381540625);
        QCOMPARE(send->bandwidth.size(), std::size_t(4));
        const auto& rdma = send->bandwidth[0];
        QCOMPARE(p.str(rdma.transport), std::string_view("RDMA"));
        QCOMPARE(rdma.bandwidthGBps, 24.2778);
        QCOMPARE(rdma.largePacketRatio, 1.0);
        QCOMPARE(rdma.sizes.size(), std::size_t(1));
        QCOMPARE(rdma.sizes[0].sizeMB, std::string("20.97152"));
        QCOMPARE(rdma.sizes[0].count, 1.0);
        // Total Op Info (collective): bandwidth computed as size / time, ratio missing.
        const CommOp* total = nullptr;
        for (const auto& o : p.commOps)
            if (o.totalInfo && o.kind == "collective")
                total = &o;
        QVERIFY(total);
        QVERIFY(!total->start);
        for (const auto& b : total->bandwidth) {
            QVERIFY(std::isnan(b.largePacketRatio));
            if (p.str(b.transport) == "HCCS")
                QVERIFY(std::abs(b.bandwidthGBps - 1321.321036 / 70.17399478125) < 1e-9);
            if (p.str(b.transport) == "PCIE")
                QCOMPARE(b.bandwidthGBps, 0.0); // 0 MB in 0 ms
        }
        // "4e-06" size keys are kept as written.
        bool tiny = false;
        for (const auto& o : p.commOps)
            for (const auto& b : o.bandwidth)
                for (const auto& s : b.sizes)
                    tiny = tiny || s.sizeMB == "4e-06";
        QVERIFY(tiny);
    }

    void exactStartText()
    {
        // 1736408883811334.8 µs is 1736408883811334.75 as a double: only the raw text is exact.
        Profile p;
        load(readers::readCommunicationJson,
             kTorch + "level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json", p);
        QCOMPARE(p.commOps.size(), std::size_t(5));
        std::set<TimeNs> starts;
        for (const auto& o : p.commOps)
            if (o.start)
                starts.insert(*o.start);
        QVERIFY(starts.count(1736408883811334800LL));
        QVERIFY(starts.count(1736408883732241500LL));
        QCOMPARE(p.commOps.front().step, std::string("step50"));
        QCOMPARE(p.commOps.front().kind, std::string("collective"));
    }

    void apMatrix()
    {
        Profile p;
        const FileRecord rec = load(readers::readCommunicationMatrixJson, kAP + "communication_matrix.json", p);
        QCOMPARE(rec.records, std::uint64_t(122)); // python: objects holding "Transport Type"
        double size = 0;
        for (const auto& l : p.commLinks)
            size += l.sizeMB;
        QVERIFY(std::abs(size - 13429.305784) < 1e-6);
        const CommLink& first = p.commLinks.front();
        QCOMPARE(p.str(first.step), std::string_view("step2"));
        QCOMPARE(p.str(first.kind), std::string_view("p2p"));
        QCOMPARE(p.str(first.opName), std::string_view("hcom_send__822_0"));
        QCOMPARE(p.str(first.fullName).substr(0, 17), std::string_view("hcom_send__822_0@"));
        QCOMPARE(p.str(first.group), p.str(first.fullName).substr(17));
        QVERIFY(!p.str(first.group).empty());
        QCOMPARE(first.src, 0);
        QCOMPARE(first.dst, 0);
        QCOMPARE(p.str(first.transport), std::string_view("LOCAL"));
        const CommLink& second = p.commLinks[1];
        QCOMPARE(second.dst, 8);
        QCOMPARE(p.str(second.transport), std::string_view("RDMA"));
    }

    void clusterFiles()
    {
        ClusterData c;
        FileRecord rec = loadCluster(readers::readClusterStepTraceCsv,
                                     kMI + "cluster_analysis_output/cluster_step_trace_time.csv", c);
        QCOMPARE(rec.records, std::uint64_t(18)); // python: 16 rank rows + 2 stage rows
        TimeNs stage = 0, bubble = 0;
        int stages = 0;
        for (const auto& s : c.stepTrace) {
            stage += s.stage.value_or(0);
            bubble += s.bubble.value_or(0);
            stages += s.type == "stage" ? 1 : 0;
        }
        QCOMPARE(stages, 2);
        QCOMPARE(stage, TimeNs(4458861277LL));
        QCOMPARE(bubble, TimeNs(1648158489LL));
        QCOMPARE(c.stepTrace[0].index, std::string("0"));
        QCOMPARE(*c.stepTrace[0].computing, TimeNs(75174575)); // 75174.57464453117 µs

        rec = loadCluster(readers::readClusterCommunicationMatrixJson,
                          kMI + "cluster_analysis_output/cluster_communication_matrix.json", c);
        QCOMPARE(rec.records, std::uint64_t(10)); // python: 6 p2p + 4 "(0, 1, 2, 3, 4, 5, 6, 7)"
        int p2p = 0;
        for (const auto& l : c.links)
            p2p += c.strings.view(l.kind) == "p2p" ? 1 : 0;
        QCOMPARE(p2p, 6);
        QCOMPARE(c.links[1].src, 0);
        QCOMPARE(c.links[1].dst, 8);
        QCOMPARE(c.strings.view(c.links[1].transport), std::string_view("RDMA"));
        QCOMPARE(c.strings.view(c.links[1].step), std::string_view("step2"));

        rec = loadCluster(readers::readClusterCommunicationJson,
                          kSamples + "/msprof-analyze/test/resource/advisor/cluster_analysis_output/"
                                     "cluster_communication.json",
                          c);
        QCOMPARE(rec.records, std::uint64_t(4)); // 2 ops x ranks 0, 1
        const CommOp* op = findOp(c.comm, "hcom_broadcast__501_0@6297232067196334501", 1);
        QVERIFY(op);
        QCOMPARE(op->kind, std::string("(0, 1)"));
        QCOMPARE(op->step, std::string("step"));
        QCOMPARE(*op->start, TimeNs(1695054582707330200LL));
        double elapse = 0;
        for (const auto& o : c.comm)
            elapse += o.elapseMs;
        QVERIFY(std::abs(elapse - 187.011181765625) < 1e-9);
    }

    void infoAndMetadata()
    {
        Profile p;
        FileRecord rec = load(readers::readInfoJson,
                              kSamples + "/msprof/test/msprof_python/ut/testcase/msconfig/info.json", p);
        QCOMPARE(rec.records, std::uint64_t(1));
        QCOMPARE(p.deviceInfo.size(), std::size_t(1));
        QCOMPARE(p.deviceInfo[0].device, 0);
        QCOMPARE(p.deviceInfo[0].aiCoreNum, 8);
        QCOMPARE(p.deviceInfo[0].aivNum, 0);
        QCOMPARE(p.deviceInfo[0].aicFrequencyMHz, 1150.0); // "1150", a string

        rec = load(readers::readProfilerInfoJson, kMI + "test_rank_0/profiler_info_0.json", p);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QCOMPARE(p.rank, 0);
        QCOMPARE(p.meta.profilerLevel, std::string("Level1"));
        QVERIFY(p.meta.profilerInfo.contains("config"));

        Profile q;
        load(readers::readProfilerInfoJson, kTorch + "level2/rank1_ascend_pt/profiler_info_1.json", q);
        QCOMPARE(q.rank, 1);
        QCOMPARE(q.meta.profilerLevel, std::string("Level2"));
        QCOMPARE(q.meta.exportType, std::string("text"));

        Profile m;
        rec = load(readers::readProfilerMetadataJson, kMI + "metadata/profiler_metadata.json", m);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QCOMPARE(m.meta.groups.size(), std::size_t(21)); // python: len(parallel_group_info)
        QCOMPARE(m.meta.env.size(), std::size_t(9));
        QCOMPARE(m.rank, 0); // distributed_args.rank
        bool tp = false;
        for (const auto& g : m.meta.groups)
            if (g.groupName == "tp")
                tp = g.ranks == std::vector<int>{0, 1};
        QVERIFY(tp);
    }

    void apTables()
    {
        Profile p;
        FileRecord rec = load(readers::readStepTraceCsv, kAP + "step_trace_time.csv", p);
        QCOMPARE(rec.records, std::uint64_t(1));
        QCOMPARE(p.steps[0].step, std::string("2"));
        QCOMPARE(*p.steps[0].computing, TimeNs(75174575));
        QCOMPARE(*p.steps[0].free, TimeNs(69909504)); // 69909.50350390615
        QVERIFY(!p.steps[0].preparing);

        rec = load(readers::readMemoryCsv, kAP + "memory_record.csv", p);
        QVERIFY(rec.kind.empty()); // the loader names the file, from the FileKind table
        QCOMPARE(rec.records, std::uint64_t(11));
        QCOMPARE(samples(p), std::uint64_t(20)); // python: non-empty Total* cells
        QCOMPARE(p.counters.size(), std::size_t(7)); // distinct (Component, column)
        QCOMPARE(p.str(p.counters[0].process), std::string_view("memory_record"));
        QCOMPARE(p.counters[0].device, 0);
        bool info = false;
        for (const auto& d : p.diagnostics)
            info = info || (d.severity == Severity::Info && d.count == 2);
        QVERIFY(info); // the 2 empty Total Allocated cells

        Profile m;
        rec = load(readers::readMemoryCsv, kAP + "npu_module_mem.csv", m); // CRLF + TAB
        QVERIFY(rec.kind.empty());
        QCOMPARE(rec.records, std::uint64_t(78));
        QCOMPARE(samples(m), std::uint64_t(78));
        QCOMPARE(m.counters.size(), std::size_t(23));
        QCOMPARE(m.counters[0].ts[0], TimeNs(1724670453385978290LL));
        QCOMPARE(m.str(m.counters[0].key), std::string_view("Total Reserved(MB)"));
        QCOMPARE(m.str(m.counters[0].process), std::string_view("npu_module_mem"));

        // operator_memory holds allocation intervals: one OpAllocation per row (older columns,
        // without Active* and Stream Ptr). First row: cann::Graph_70,192,1695115378723902.5,
        // 1695115378723939.2,36.73,0.25,242.0,0.0625,242.0,NPU:0.
        rec = load(readers::readMemoryCsv, kAP + "operator_memory.csv", m);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QVERIFY(rec.kind.empty());
        QCOMPARE(rec.records, std::uint64_t(28)); // wc -l: 29 lines with the header
        QCOMPARE(m.opMemory.size(), std::size_t(28));
        const OpAllocation& a = m.opMemory[0];
        QCOMPARE(m.str(a.name), std::string_view("cann::Graph_70"));
        QCOMPARE(a.bytes, 192.0 * 1024);
        QCOMPARE(a.allocAt, TimeNs(1695115378723902500LL));
        QCOMPARE(*a.releaseAt, TimeNs(1695115378723939200LL));
        QCOMPARE(*a.duration, TimeNs(36730));
        QVERIFY(!a.activeReleaseAt);
        QCOMPARE(a.allocTotalAllocated, 0.25 * 1048576);
        QCOMPARE(a.allocTotalReserved, 242.0 * 1048576);
        QCOMPARE(a.releaseTotalAllocated, 0.0625 * 1048576);
        QVERIFY(std::isnan(a.allocTotalActive));
        QCOMPARE(a.streamPtr, std::int64_t(-1));
        QCOMPARE(a.device, 0);
    }

    void torchFolders_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<int>("level");
        QTest::addColumn<qint64>("computing");  // step_trace Computing, ns
        QTest::addColumn<int>("memRows");       // memory_record rows
        QTest::addColumn<int>("memSamples");    // non-empty Total* cells
        QTest::addColumn<int>("moduleRows");    // npu_module_mem rows (= samples)
        QTest::addColumn<int>("apiRows");
        QTest::addColumn<qint64>("apiTime");    // Σ Time(us), ns
        QTest::addColumn<int>("apiCount");
        QTest::addColumn<qint64>("opTotal");    // op_statistic Σ Total Time(us), ns
        QTest::addColumn<double>("commElapse"); // communication.json Σ Elapse Time(ms)
        QTest::addColumn<int>("links");         // communication_matrix.json links
        QTest::newRow("level0 rank0") << "level0/rank0" << 0 << qint64(8827473) << 1003 << 2869 << 1001 << 0 << qint64(0) << 0 << qint64(0) << 0.0 << 0;
        QTest::newRow("level0 rank1") << "level0/rank1" << 0 << qint64(8813173) << 1003 << 2869 << 1001 << 0 << qint64(0) << 0 << qint64(0) << 0.0 << 0;
        QTest::newRow("level1 rank0") << "level1/rank0" << 1 << qint64(8873756) << 1004 << 2870 << 1078 << 57 << qint64(123965130) << 707 << qint64(8873751) << 211.983755438 << 48;
        QTest::newRow("level1 rank1") << "level1/rank1" << 1 << qint64(8878295) << 1004 << 2870 << 1078 << 57 << qint64(120842880) << 708 << qint64(8878293) << 200.750570938 << 48;
        QTest::newRow("level2 rank0") << "level2/rank0" << 2 << qint64(8868240) << 1003 << 2869 << 1001 << 75 << qint64(210407540) << 1134 << qint64(8868233) << 199.946554875 << 48;
        QTest::newRow("level2 rank1") << "level2/rank1" << 2 << qint64(8902301) << 1004 << 2870 << 1078 << 75 << qint64(208274170) << 1139 << qint64(8902294) << 194.910654250 << 48;
    }
    void torchFolders()
    {
        QFETCH(QString, dir);
        QFETCH(int, level);
        QFETCH(qint64, computing);
        QFETCH(int, memRows);
        QFETCH(int, memSamples);
        QFETCH(int, moduleRows);
        QFETCH(int, apiRows);
        QFETCH(qint64, apiTime);
        QFETCH(int, apiCount);
        QFETCH(qint64, opTotal);
        QFETCH(double, commElapse);
        QFETCH(int, links);
        const std::string root = kTorch + dir.toStdString() + "_ascend_pt/";
        const std::string out = root + "ASCEND_PROFILER_OUTPUT/";
        Profile p;
        FileRecord rec = load(readers::readStepTraceCsv, out + "step_trace_time.csv", p);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QCOMPARE(p.steps.size(), std::size_t(1));
        QCOMPARE(p.steps[0].step, std::string("50"));
        QCOMPARE(*p.steps[0].computing, TimeNs(computing));
        QVERIFY(p.steps[0].preparing.has_value());

        rec = load(readers::readMemoryCsv, out + "memory_record.csv", p);
        QCOMPARE(rec.records, std::uint64_t(memRows));
        QCOMPARE(samples(p), std::uint64_t(memSamples));
        QCOMPARE(p.counters.size(), std::size_t(9)); // python: distinct (Component, column)
        rec = load(readers::readMemoryCsv, out + "npu_module_mem.csv", p);
        QCOMPARE(rec.records, std::uint64_t(moduleRows));
        QCOMPARE(samples(p), std::uint64_t(memSamples + moduleRows));
        QCOMPARE(p.counters.size(), std::size_t(9 + 77));
        rec = load(readers::readMemoryCsv, out + "operator_memory.csv", p);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QCOMPARE(rec.records, std::uint64_t(184)); // wc -l - 1 in every folder
        QCOMPARE(p.opMemory.size(), std::size_t(184));
        QVERIFY(p.opMemory[0].streamPtr > 0); // the newer columns
        QVERIFY(!p.opMemory[0].released());  // aten::empty_strided, held past the capture

        rec = load(readers::readL2CacheCsv, out + "l2_cache.csv", p);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QCOMPARE(rec.records, std::uint64_t(179)); // python: 179 rows in every folder
        for (const auto& r : p.l2)
            QVERIFY(std::isnan(r.hitRate)); // every Hit Rate is N/A here
        QVERIFY(!std::isnan(p.l2[0].victimRate));

        const std::string infoName = "profiler_info_" + std::string(dir.endsWith(QLatin1String("1")) ? "1" : "0") + ".json";
        rec = load(readers::readProfilerInfoJson, root + infoName, p);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QCOMPARE(p.rank, dir.endsWith(QLatin1String("1")) ? 1 : 0);
        QCOMPARE(p.meta.profilerLevel, "Level" + std::to_string(level));
        rec = load(readers::readProfilerMetadataJson, root + "profiler_metadata.json", p);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QCOMPARE(p.meta.env.size(), std::size_t(8));

        if (level == 0) // level 0 has no statistics and no communication files
            return;
        rec = load(readers::readApiStatisticCsv, out + "api_statistic.csv", p);
        QCOMPARE(rec.records, std::uint64_t(apiRows));
        TimeNs t = 0;
        std::uint64_t n = 0;
        for (const auto& s : p.stats) {
            QCOMPARE(s.kind, std::string("api_statistic"));
            t += s.total;
            n += s.count;
        }
        QCOMPARE(t, TimeNs(apiTime));
        QCOMPARE(n, std::uint64_t(apiCount));

        rec = load(readers::readOpStatisticCsv, out + "op_statistic.csv", p);
        QCOMPARE(rec.records, std::uint64_t(33));
        t = 0;
        n = 0;
        for (const auto& s : p.stats)
            if (s.kind == "op_statistic") {
                t += s.total;
                n += s.count;
            }
        QCOMPARE(t, TimeNs(opTotal));
        QCOMPARE(n, std::uint64_t(187));

        rec = load(readers::readCommunicationJson, out + "communication.json", p);
        QCOMPARE(rec.records, std::uint64_t(5));
        double e = 0;
        for (const auto& o : p.commOps)
            e += o.elapseMs;
        QVERIFY(std::abs(e - commElapse) < 1e-6);
        rec = load(readers::readCommunicationMatrixJson, out + "communication_matrix.json", p);
        QCOMPARE(rec.records, std::uint64_t(links));
    }

    void msprofInlineTables()
    {
        // Shapes of FORMATS.md §2 with no sample in the tree: task_time, communication_statistic,
        // npu_mem, l2_cache with percentages.
        Profile p;
        ReadContext ctx;
        ctx.file = "task_time_1.csv";
        FileRecord rec = readers::readTaskTimeCsv(
            "Device_id,kernel_name,kernel_type,stream_id,task_id,task_time(us),task_start(us),task_stop(us)\n"
            "0,MatMul,KERNEL_AICORE,3,17,10.5,1780748105187895.870,1780748105187906.370\n"
            "1,Add,KERNEL_AIVEC,3,18,2,100.000,102.000\n"
            "0,Mul,KERNEL_AICORE,3,19,N/A,200,201.25\n",
            p, ctx);
        QCOMPARE(rec.records, std::uint64_t(3));
        QCOMPARE(p.tracks.size(), std::size_t(2)); // stream 3 on devices 0 and 1
        for (const auto& t : p.tracks) {
            QCOMPARE(t.kind, TrackKind::Stream);
            QCOMPARE(t.streamId, std::int64_t(3));
            QCOMPARE(p.str(t.process), std::string_view("Ascend Hardware"));
            QCOMPARE(p.str(t.thread), std::string_view("Stream 3"));
        }
        QCOMPARE(p.slices.start[0], TimeNs(1780748105187895870LL));
        QCOMPARE(p.slices.dur[0], TimeNs(10500));
        QCOMPARE(p.slices.taskId[0], 17u);
        QCOMPARE(p.slices.dur[2], TimeNs(1250)); // task_time N/A: stop - start
        QCOMPARE(p.tracks[p.slices.track[1].v].device, 1);

        ctx.file = "communication_statistic_1.csv";
        rec = readers::readCommStatisticCsv("Device_id,OP Type,Count,Total Time(us),Min Time(us),Avg Time(us),"
                                            "Max Time(us),Ratio(%)\n0,hcom_allReduce_,4,100.5,20,25.125,30,87.5\n",
                                            p, ctx);
        QCOMPARE(rec.records, std::uint64_t(1));
        QCOMPARE(p.stats[0].kind, std::string("communication_statistic"));
        QCOMPARE(p.stats[0].count, std::uint64_t(4));
        QCOMPARE(p.stats[0].total, TimeNs(100500));
        QCOMPARE(p.stats[0].avg, TimeNs(25125));
        QCOMPARE(p.stats[0].ratio, 87.5);

        ctx.file = "npu_mem_1.csv";
        rec = readers::readMemoryCsv("Device_id,event,ddr(KB),hbm(KB),memory(KB),timestamp(us)\n"
                                     "0,app,0,1024,1024,100.5\n0,device,,2048,2048,101\n",
                                     p, ctx);
        QVERIFY(rec.kind.empty());
        QCOMPARE(rec.records, std::uint64_t(2));
        std::uint64_t n = 0;
        for (const auto& c : p.counters)
            if (p.str(c.process) == "npu_mem")
                n += c.ts.size();
        QCOMPARE(n, std::uint64_t(5)); // 6 cells, one empty

        ctx.file = "l2_cache_1.csv";
        rec = readers::readL2CacheCsv("Device_id,Stream Id,Task Id,Hit Rate,Victim Rate,Op Name\n"
                                      "0,3,17,87.5,0.1,MatMul\n0,3,18,0.25,N/A,Add\n",
                                      p, ctx);
        QCOMPARE(rec.records, std::uint64_t(2));
        QCOMPARE(p.l2[0].hitRate, 0.875); // > 1 means %
        QCOMPARE(p.l2[1].hitRate, 0.25);
        QVERIFY(std::isnan(p.l2[1].victimRate));
        QCOMPARE(p.str(p.l2[0].opName), std::string_view("MatMul"));
    }

    void truncatedJson()
    {
        Profile p;
        ReadContext ctx;
        ctx.file = "communication.json";
        const std::string text = fileBytes(kAP + "communication.json");
        const FileRecord rec = readers::readCommunicationJson(std::string_view(text).substr(0, text.size() / 2), p, ctx);
        QCOMPARE(rec.status, FileStatus::Partial);
        QCOMPARE(rec.skipped, std::uint64_t(1));
        QVERIFY(rec.records > 0); // the complete ops before the cut are kept
        QVERIFY(!p.diagnostics.empty());
        QVERIFY(p.diagnostics[0].byteOffset > 0);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestSideFiles)

} // namespace test_side_files

#include "test_side_files.moc"
