// The SQLite exports read into the same Profile as the text exports. Expected numbers were
// computed with python3's sqlite3 module over the sample databases, e.g.
//   SELECT count(*), sum(t.endNs - t.startNs) FROM TASK t JOIN COMPUTE_TASK_INFO c USING (globalTaskId)
// and compared with StepTraceTime.computing of analysis.db (equal to the ns in every sample).
#include "model/formats/loader.h"
#include "model/formats/readers.h"
#include "model/formats/sqlite_db.h"
#include "model/io/mapped_file.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>

using namespace npuscope;

namespace {

std::string dbDir(const char* level, int rank)
{
    return std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/db/" + level + "/rank" + std::to_string(rank)
        + "_ascend_pt/ASCEND_PROFILER_OUTPUT/";
}

std::string textDir(const char* level, int rank)
{
    return std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/" + level + "/rank" + std::to_string(rank)
        + "_ascend_pt/ASCEND_PROFILER_OUTPUT/";
}

TimeNs computeSum(const Profile& p)
{
    TimeNs s = 0;
    for (std::size_t i = 0; i < p.kernels.size(); ++i)
        if (p.str(p.kernels.taskType[i]) != "HCCL")
            s += p.kernels.dur[i];
    return s;
}

} // namespace

class TestDbReader : public QObject {
    Q_OBJECT
private slots:
    void levels_data()
    {
        QTest::addColumn<QString>("level");
        QTest::addColumn<int>("rank");
        QTest::addColumn<int>("tasks");
        QTest::addColumn<qint64>("computeNs");
        QTest::addColumn<qint64>("commNs");
        QTest::addColumn<int>("cann");
        QTest::addColumn<int>("python");
        QTest::newRow("level0 rank0") << "level0" << 0 << 550 << qint64(8843910) << qint64(89880576) << 713 << 2460;
        QTest::newRow("level1 rank0") << "level1" << 0 << 552 << qint64(8903431) << qint64(102108100) << 710 << 2460;
        QTest::newRow("level1 rank1") << "level1" << 1 << 552 << qint64(8915634) << qint64(98590190) << 709 << 2460;
        QTest::newRow("level2 rank1") << "level2" << 1 << 552 << qint64(8926368) << qint64(100357525) << 1187 << 2492;
    }
    void levels()
    {
        QFETCH(QString, level);
        QFETCH(int, rank);
        QFETCH(int, tasks);
        QFETCH(qint64, computeNs);
        QFETCH(qint64, commNs);
        QFETCH(int, cann);
        QFETCH(int, python);
        const std::string lv = level.toStdString();
        const std::string dir = dbDir(lv.c_str(), rank);
        Profile p;
        ReadContext ctx;
        ctx.file = dir + "ascend_pytorch_profiler_" + std::to_string(rank) + ".db";
        const FileRecord rec = readers::readProfilerDb(ctx.file, p, ctx);
        QCOMPARE(int(rec.status), int(FileStatus::Loaded));
        ReadContext actx;
        actx.file = dir + "analysis.db";
        const FileRecord arec = readers::readAnalysisDb(actx.file, p, actx);
        QCOMPARE(int(arec.status), int(FileStatus::Loaded));
        p.finalize();

        QCOMPARE(int(p.join.deviceTasks), tasks);
        QCOMPARE(p.kernels.size(), std::size_t(187 + 4)); // compute tasks + one HCCL row per op
        QCOMPARE(qint64(computeSum(p)), computeNs);
        // The same-run check of FORMATS-DB §5: Σ compute = StepTraceTime.computing, Σ comm ops = communication.
        QCOMPARE(p.steps.size(), std::size_t(1));
        QCOMPARE(qint64(*p.steps[0].computing), computeNs);
        QCOMPARE(qint64(*p.steps[0].communication), commNs);
        std::map<TrackKind, int> perKind;
        for (std::size_t i = 0; i < p.slices.size(); ++i)
            ++perKind[p.tracks[p.slices.track[i].v].kind];
        QCOMPARE(perKind[TrackKind::Stream], tasks);
        QCOMPARE(perKind[TrackKind::CommGroup], 4);
        QCOMPARE(perKind[TrackKind::CommPlane], 296);
        QCOMPARE(perKind[TrackKind::Cann], cann);
        QCOMPARE(perKind[TrackKind::Python], python);
        QVERIFY(p.rank == 0 || p.rank == rank); // RANK_DEVICE_MAP
        QCOMPARE(p.deviceInfo.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(p.deviceInfo[0].chip), QStringLiteral("Ascend910B"));
    }

    void sameTypesAsText()
    {
        // Per OP Type counts equal those of the text export of the same level and rank.
        for (const char* level : {"level1", "level2"}) {
            Profile db;
            ReadContext ctx;
            ctx.file = dbDir(level, 0) + "ascend_pytorch_profiler_0.db";
            readers::readProfilerDb(ctx.file, db, ctx);
            Profile text;
            ReadContext tctx;
            tctx.file = textDir(level, 0) + "kernel_details.csv";
            std::string err;
            auto f = MappedFile::open(tctx.file, &err);
            QVERIFY2(f.has_value(), err.c_str());
            readers::readKernelCsv(f->bytes(), text, tctx);
            std::map<std::string, int> a, b;
            for (std::size_t i = 0; i < db.kernels.size(); ++i)
                ++a[std::string(db.str(db.kernels.type[i]))];
            for (std::size_t i = 0; i < text.kernels.size(); ++i)
                ++b[std::string(text.str(text.kernels.type[i]))];
            QCOMPARE(db.kernels.size(), text.kernels.size());
            QCOMPARE(a.size(), b.size());
            QVERIFY(a == b);
            QCOMPARE(a["TransData"], 57);
        }
    }

    void pmuPivot()
    {
        Profile p;
        ReadContext ctx;
        ctx.file = dbDir("level1", 0) + "ascend_pytorch_profiler_0.db";
        readers::readProfilerDb(ctx.file, p, ctx);
        const int vec = p.kernels.metricIndex("aiv_vec_ratio");
        const int aivTime = p.kernels.metricIndex("aiv_time(us)");
        QVERIFY(vec >= 0);
        QVERIFY(aivTime >= 0); // aiv_total_time (ns) becomes aiv_time(us)
        int withRatio = 0;
        for (std::size_t i = 0; i < p.kernels.size(); ++i)
            if (!isMissing(p.kernels.metrics[vec][i]))
                ++withRatio;
        QVERIFY(withRatio > 100);
        // HCCL rows carry no PMU values: missing, never 0.
        for (std::size_t i = 0; i < p.kernels.size(); ++i)
            if (p.str(p.kernels.taskType[i]) == "HCCL")
                QVERIFY(isMissing(p.kernels.metrics[vec][i]));
    }

    void flowsAndCounters()
    {
        Profile p;
        ReadContext ctx;
        ctx.file = dbDir("level1", 0) + "ascend_pytorch_profiler_0.db";
        readers::readProfilerDb(ctx.file, p, ctx);
        p.finalize();
        std::map<std::string, int> cats;
        for (std::size_t i = 0; i < p.flows.size(); ++i) {
            ++cats[std::string(p.str(p.flows.category[i]))];
            QVERIFY(p.flows.srcSlice[i] != kNone);
            QVERIFY(p.flows.dstSlice[i] != kNone);
        }
        QVERIFY(cats["HostToDevice"] > 0);
        QVERIFY(cats["async_npu"] > 0);
        bool freq = false;
        for (const auto& c : p.counters)
            if (p.str(c.process) == "AI Core Freq") {
                freq = true;
                QCOMPARE(c.ts.size(), std::size_t(3));
                QVERIFY(std::is_sorted(c.ts.begin(), c.ts.end())); // unsorted in the table
                QCOMPARE(c.value[0], 1800.0);
            }
        QVERIFY(freq);
        QCOMPARE(p.meta.env.count("ASCEND_GLOBAL_LOG_LEVEL"), std::size_t(1));
    }

    void analysisComm()
    {
        Profile p;
        ReadContext ctx;
        ctx.file = dbDir("level1", 0) + "analysis.db";
        readers::readAnalysisDb(ctx.file, p, ctx);
        QCOMPARE(p.commOps.size(), std::size_t(4));
        const CommOp& op = p.commOps[0];
        QCOMPARE(QString::fromStdString(op.opName), QStringLiteral("hcom_allReduce__210_0_1"));
        QCOMPARE(qint64(*op.start), qint64(1736410576431645200LL));
        QVERIFY(qAbs(op.waitRatio - 3.56889128125 / (3.56889128125 + 0.22856459375)) < 1e-12);
        QCOMPARE(p.commLinks.size(), std::size_t(48));
        bool hccs = false;
        for (const auto& b : op.bandwidth)
            if (p.str(b.transport) == "HCCS") {
                hccs = true;
                QVERIFY(qAbs(b.sizeMB - 28.647232) < 1e-9);
                QCOMPARE(b.sizes.size(), std::size_t(2));
            }
        QVERIFY(hccs);
    }

    void loaderReadsDbOnlyFolders()
    {
        const std::string root = std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/db/level1";
        const LoadResult r = loadSession(root);
        QVERIFY2(r.session, r.error.c_str());
        QCOMPARE(QString::fromStdString(r.session->source), QStringLiteral("db"));
        QCOMPARE(r.session->ranks.size(), std::size_t(2));
        QCOMPARE(r.session->ranks[0]->rank, 0);
        QCOMPARE(r.session->ranks[1]->rank, 1);
        QCOMPARE(int(r.session->ranks[0]->join.deviceTasks), 552);
        QCOMPARE(r.session->ranks[0]->commOps.size(), std::size_t(4));
        QCOMPARE(qint64(computeSum(*r.session->ranks[1])), qint64(8915634));
    }

    void preferTextOrDb()
    {
        // One folder holding both exports: text by default, the db with Prefer::Db.
        namespace fs = std::filesystem;
        QTemporaryDir tmp;
        const fs::path rank = fs::path(tmp.path().toStdString()) / "host_1_20250109074555123_ascend_pt";
        fs::create_directories(rank / "ASCEND_PROFILER_OUTPUT");
        const fs::path text = textDir("level1", 0);
        for (const char* f : {"kernel_details.csv", "step_trace_time.csv"})
            fs::copy_file(text / f, rank / "ASCEND_PROFILER_OUTPUT" / f);
        fs::copy_file(fs::path(dbDir("level1", 0)) / "ascend_pytorch_profiler_0.db",
                      rank / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db");
        fs::copy_file(fs::path(dbDir("level1", 0)) / "analysis.db", rank / "ASCEND_PROFILER_OUTPUT" / "analysis.db");
        for (const auto& e : fs::recursive_directory_iterator(rank))
            fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::add);

        const LoadResult textLoad = loadSession(rank.string());
        QVERIFY2(textLoad.session, textLoad.error.c_str());
        QCOMPARE(QString::fromStdString(textLoad.session->source), QStringLiteral("text"));
        const Profile& t = *textLoad.session->ranks[0];
        QCOMPARE(t.kernels.size(), std::size_t(191));
        QCOMPARE(t.slices.size(), std::size_t(0)); // no timeline in the text part
        bool dbIgnored = false;
        for (const auto& f : t.files)
            if (f.path.find("ascend_pytorch_profiler_0.db") != std::string::npos)
                dbIgnored = f.status == FileStatus::Ignored && f.note.find("--prefer db") != std::string::npos;
        QVERIFY(dbIgnored);

        LoadOptions o;
        o.prefer = Prefer::Db;
        const LoadResult dbLoad = loadSession(rank.string(), o);
        QVERIFY2(dbLoad.session, dbLoad.error.c_str());
        QCOMPARE(QString::fromStdString(dbLoad.session->source), QStringLiteral("db"));
        const Profile& d = *dbLoad.session->ranks[0];
        QCOMPARE(int(d.join.deviceTasks), 552);
        QCOMPARE(qint64(*d.steps.at(0).computing), qint64(8903431));
    }

    void badInput()
    {
        QTemporaryDir tmp;
        const std::string junk = tmp.filePath(QStringLiteral("junk.db")).toStdString();
        {
            std::ofstream(junk) << "this is not a database";
        }
        Profile p;
        ReadContext ctx;
        ctx.file = junk;
        const FileRecord rec = readers::readProfilerDb(junk, p, ctx);
        QCOMPARE(int(rec.status), int(FileStatus::Failed));
        QVERIFY(rec.note.find(junk) != std::string::npos);
        QVERIFY(!p.diagnostics.empty());
        // A database without the profiler tables names what is missing.
        const std::string analysis = dbDir("level1", 0) + "analysis.db";
        Profile q;
        ctx.file = analysis;
        const FileRecord r2 = readers::readProfilerDb(analysis, q, ctx);
        QCOMPARE(int(r2.status), int(FileStatus::Failed));
        QVERIFY(q.diagnostics[0].reason.find("STRING_IDS") != std::string::npos);
        QVERIFY(!db::looksLikeSqlite("SQLite format 2"));
    }
};

QTEST_GUILESS_MAIN(TestDbReader)
#include "test_db_reader.moc"
