// op_summary / kernel_details readers on the real samples. Expected numbers were computed with
// python3's csv module (utf-8-sig, rows with as many cells as the header) and Decimal µs -> ns
// (round half up), independent of the C++ readers.
#include "test_main.h"
#include "model/formats/readers.h"

#include <QtTest>

#include <fstream>
#include <sstream>

namespace test_kernel_csv {

using namespace npuscope;

namespace {

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

const std::string kSamples = NPUSCOPE_SAMPLES;
const std::string kSK = kSamples +
                        "/ascend-msprof-skill/tests/fixtures/tilelang_design_feedback/candidate_comparability/"
                        "workload_mismatch_candidate/reports/app/PROF_000001_20260606121448940_RGBHHJGBAJGRQEOB/"
                        "mindstudio_profiler_output/";
const std::string kMA = kSamples + "/msprof-analyze/test/ut/advisor/";
const std::string kMI = kSamples + "/msinsight/server/src/test/test_data/";
const std::string kAP = kMI + "test_rank_0/ASCEND_PROFILER_OUTPUT/";

FileRecord load(const std::string& path, Profile& p, int device = -1)
{
    const std::string bytes = slurp(path);
    ReadContext ctx;
    ctx.file = path;
    ctx.device = device;
    return readers::readKernelCsv(bytes, p, ctx);
}

TimeNs sumDur(const Profile& p)
{
    TimeNs s = 0;
    for (auto d : p.kernels.dur)
        s += d;
    return s;
}

void checkAligned(const Profile& p)
{
    const auto& K = p.kernels;
    const std::size_t n = K.size();
    QCOMPARE(K.device.size(), n);
    QCOMPARE(K.step.size(), n);
    QCOMPARE(K.modelId.size(), n);
    QCOMPARE(K.streamId.size(), n);
    QCOMPARE(K.taskId.size(), n);
    QCOMPARE(K.contextId.size(), n);
    QCOMPARE(K.dur.size(), n);
    QCOMPARE(K.wait.size(), n);
    QCOMPARE(K.name.size(), n);
    QCOMPARE(K.type.size(), n);
    QCOMPARE(K.taskType.size(), n);
    QCOMPARE(K.opState.size(), n);
    QCOMPARE(K.inputShapes.size(), n);
    QCOMPARE(K.outputFormats.size(), n);
    QCOMPARE(K.blockDim.size(), n);
    QCOMPARE(K.mixBlockDim.size(), n);
    QCOMPARE(K.slice.size(), n);
    for (const auto& m : K.metrics)
        QCOMPARE(m.size(), n);
    for (const auto& e : K.extra)
        QCOMPARE(e.size(), n);
}

int countNaN(const MetricColumn& v)
{
    int n = 0;
    for (std::size_t r = 0; r < v.size(); ++r)
        n += std::isnan(v[r]) ? 1 : 0;
    return n;
}

} // namespace

class TestKernelCsv : public QObject {
    Q_OBJECT
private slots:
    void skOpSummary()
    {
        Profile p;
        const FileRecord rec = load(kSK + "op_summary_20260606121516.csv", p);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QVERIFY(rec.kind.empty()); // the loader names the file, from the FileKind table
        QCOMPARE(rec.records, std::uint64_t(1));
        checkAligned(p);
        const auto& K = p.kernels;
        QCOMPARE(K.start[0], TimeNs(1780748105187895870LL)); // "1780748105187895.870\t", exact
        QCOMPARE(K.dur[0], TimeNs(96160));
        QCOMPARE(K.wait[0], TimeNs(0));
        QCOMPARE(K.device[0], 0);
        QCOMPARE(K.modelId[0], std::int64_t(-1)); // 4294967295
        QCOMPARE(K.taskId[0], std::int64_t(0));
        QCOMPARE(K.streamId[0], std::int64_t(212));
        QCOMPARE(K.contextId[0], std::int64_t(0));
        QCOMPARE(K.blockDim[0], std::int64_t(32));
        QCOMPARE(K.mixBlockDim[0], std::int64_t(64));
        QCOMPARE(p.str(K.name[0]), std::string_view("main_kernel"));
        QCOMPARE(p.str(K.taskType[0]), std::string_view("MIX_AIC"));
        QCOMPARE(p.str(K.opState[0]), std::string_view("dynamic"));
        QCOMPARE(p.str(K.inputShapes[0]), std::string_view("N/A"));
        // 46 columns: 20 typed, HF32 Eligible kept as text, 25 metrics from aicore_time(us) on.
        QCOMPARE(K.metricNames.size(), std::size_t(25));
        QCOMPARE(K.extraNames, std::vector<std::string>{"HF32 Eligible"});
        QCOMPARE(p.str(K.extra[0][0]), std::string_view("NO"));
        QCOMPARE(K.metric(K.metricIndex("cube_utilization(%)"), 0), 28.719);
        QCOMPARE(K.metric(K.metricIndex("aic_total_cycles"), 0), 1193021.0);
        QCOMPARE(K.metric(K.metricIndex("aic_mac_ratio"), 0), 0.247);
        QCOMPARE(K.metricNames.front(), std::string("aicore_time(us)"));
    }

    void maQuotedTab()
    {
        Profile p;
        const FileRecord rec = load(kMA + "compute_advice/data/kernel_details.csv", p, 0);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QVERIFY(rec.kind.empty());
        QCOMPARE(rec.records, std::uint64_t(29));
        checkAligned(p);
        const auto& K = p.kernels;
        QCOMPARE(sumDur(p), TimeNs(10061159));
        QCOMPARE(K.start[0], TimeNs(1736413971558972912LL)); // "\"1736413971558972.912\t\""
        QCOMPARE(K.step[0], std::int64_t(19));
        QCOMPARE(K.taskId[0], std::int64_t(61653));
        QCOMPARE(K.device[0], 0); // no Device_id column: the context's device
        QCOMPARE(p.str(K.opState[0]), std::string_view("dynamic"));
        QCOMPARE(p.str(K.inputShapes[0]), std::string_view("\"81920,4096;8192,512\""));
        QCOMPARE(K.metricNames.size(), std::size_t(25)); // 46 columns: 21 typed or text, 25 PMU
        QVERIFY(K.metricIndex("cube_utilization(%)") >= 0);
    }

    void maHcclRows()
    {
        Profile p;
        const FileRecord rec = load(kMA + "advisor_backend/compute_advice/kernel_details.csv", p);
        QCOMPARE(rec.records, std::uint64_t(591));
        QCOMPARE(rec.skipped, std::uint64_t(0));
        checkAligned(p);
        const auto& K = p.kernels;
        QCOMPARE(sumDur(p), TimeNs(396807040));
        int naTasks = 0, hccl = 0;
        for (std::size_t i = 0; i < K.size(); ++i) {
            naTasks += K.taskId[i] < 0 ? 1 : 0;
            hccl += p.str(K.taskType[i]) == "HCCL" ? 1 : 0;
        }
        QCOMPARE(naTasks, 19); // python: Task ID == "N/A"
        QCOMPARE(hccl, 19);
        QVERIFY(K.extraNames.empty()); // no HF32 Eligible in this version
        const int fops = K.metricIndex("aic_cube_fops");
        QVERIFY(fops >= 0);
        QCOMPARE(countNaN(K.metrics[fops]) >= 19, true);
        QCOMPARE(K.device[0], -1);
    }

    void apTripleQuotes()
    {
        Profile p;
        const FileRecord rec = load(kAP + "kernel_details.csv", p);
        // Row on line 17 has 31 cells for a 32-column header: skipped and reported.
        QCOMPARE(rec.records, std::uint64_t(20));
        QCOMPARE(rec.skipped, std::uint64_t(1));
        QCOMPARE(rec.status, FileStatus::Partial);
        QCOMPARE(p.diagnostics.size(), std::size_t(1));
        QCOMPARE(p.diagnostics[0].line, std::int64_t(17));
        QCOMPARE(p.diagnostics[0].reason, std::string("row has 31 cells, header has 32"));
        checkAligned(p);
        const auto& K = p.kernels;
        QCOMPARE(sumDur(p), TimeNs(37369125));
        // Row 4 (Cast): """2,8193""" -> "2,8193" with its quotes, start with one fraction digit.
        QCOMPARE(p.str(K.name[3]), std::string_view("Cast"));
        QCOMPARE(p.str(K.inputShapes[3]), std::string_view("\"2,8193\""));
        QCOMPARE(K.start[3], TimeNs(1695115378722946000LL));
        QCOMPARE(K.dur[3], TimeNs(5799)); // 5.7985 µs rounds half away from zero
        // HCCL row: N/A ids.
        QCOMPARE(p.str(K.taskType[1]), std::string_view("HCCL"));
        QCOMPARE(K.taskId[1], std::int64_t(-1));
        QCOMPARE(K.streamId[1], std::int64_t(-1));
        QCOMPARE(K.start[1], TimeNs(1695115378715400200LL));
        QCOMPARE(K.mixBlockDim[1], std::int64_t(-1));
    }

    void hybridHeader()
    {
        // test_kernel_parse/op_summary_1.csv: "Op Name" and "Task Duration(us)" with "Start Time(us)".
        Profile p;
        const FileRecord rec = load(kMI + "test_kernel_parse/op_summary_1.csv", p);
        QCOMPARE(rec.records, std::uint64_t(20));
        QCOMPARE(rec.skipped, std::uint64_t(1));
        QCOMPARE(sumDur(p), TimeNs(37369125));
        QCOMPARE(p.kernels.start[0], TimeNs(1695115378713661000LL));
        QCOMPARE(p.str(p.kernels.name[0]), std::string_view("ZerosLike"));
        QCOMPARE(p.kernels.step[0], std::int64_t(2));
    }

    void torchLevels_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<qint64>("sumDur");
        QTest::addColumn<int>("naTasks");
        QTest::addColumn<int>("metrics");
        // python: rows 191 in each; Σ Duration(us) in ns; count of Task ID == "N/A".
        QTest::newRow("level0 rank0") << "level0/rank0" << qint64(94344340) << 0 << 0;
        QTest::newRow("level0 rank1") << "level0/rank1" << qint64(77418862) << 0 << 0;
        QTest::newRow("level1 rank0") << "level1/rank0" << qint64(114865613) << 4 << 25;
        QTest::newRow("level1 rank1") << "level1/rank1" << qint64(109253559) << 4 << 25;
        QTest::newRow("level2 rank0") << "level2/rank0" << qint64(108841491) << 4 << 25;
        QTest::newRow("level2 rank1") << "level2/rank1" << qint64(106357602) << 4 << 25;
    }
    // A table of hundreds of metric columns is coded in blocks of fewer rows (a block holds at
    // most 16 MiB: 6990 rows of 300 columns): every cell reads back, across the blocks' edge.
    void manyColumnsAcrossBlocks()
    {
        constexpr int kColumns = 300, kRows = 7200;
        std::string text = "Op Name,Task Start Time(us),Task Duration(us)";
        for (int c = 0; c < kColumns; ++c)
            text += ",m" + std::to_string(c) + "(us)";
        text += "\n";
        const auto value = [](int r, int c) { return double(r % 97) + 0.5 * c; }; // exact in text and double
        for (int r = 0; r < kRows; ++r) {
            text += "op" + std::to_string(r % 7) + "," + std::to_string(1000 + r) + ",2";
            for (int c = 0; c < kColumns; ++c)
                text += "," + std::to_string(r % 97 + c / 2) + (c % 2 ? ".5" : "");
            text += "\n";
        }
        Profile p;
        ReadContext ctx;
        ctx.file = "kernel_details.csv";
        const FileRecord rec = readers::readKernelCsv(text, p, ctx);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QCOMPARE(rec.records, std::uint64_t(kRows));
        checkAligned(p);
        const auto& K = p.kernels;
        QCOMPARE(int(K.metricNames.size()), kColumns);
        int wrong = 0;
        for (int c = 0; c < kColumns; ++c) {
            const int m = K.metricIndex("m" + std::to_string(c) + "(us)");
            QVERIFY(m >= 0);
            for (int r = 0; r < kRows; ++r)
                wrong += K.metric(m, std::size_t(r)) == value(r, c) ? 0 : 1;
        }
        QCOMPARE(wrong, 0);
        QCOMPARE(K.start[6990], TimeNs(1000 + 6990) * 1000);
    }

    void torchLevels()
    {
        QFETCH(QString, dir);
        QFETCH(qint64, sumDur);
        QFETCH(int, naTasks);
        QFETCH(int, metrics);
        Profile p;
        const FileRecord rec = load(kSamples + "/msinsight/test/data/pytorch/text/" + dir.toStdString() +
                                        "_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
                                    p);
        QCOMPARE(rec.status, FileStatus::Loaded);
        QCOMPARE(rec.records, std::uint64_t(191));
        checkAligned(p);
        QCOMPARE(test_kernel_csv::sumDur(p), TimeNs(sumDur));
        int na = 0;
        for (auto t : p.kernels.taskId)
            na += t < 0 ? 1 : 0;
        if (naTasks == 0 && metrics == 0)
            QCOMPARE(na, 191); // level 0 has no Task ID column at all
        else
            QCOMPARE(na, naTasks);
        QCOMPARE(int(p.kernels.metricNames.size()), metrics);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestKernelCsv)

} // namespace test_kernel_csv

#include "test_kernel_csv.moc"
