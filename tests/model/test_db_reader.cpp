// The SQLite exports read into the same Profile as the text exports. Expected numbers were
// computed with python3's sqlite3 module over the sample databases, e.g.
//   SELECT count(*), sum(t.endNs - t.startNs) FROM TASK t JOIN COMPUTE_TASK_INFO c USING (globalTaskId)
// and compared with StepTraceTime.computing of analysis.db (equal to the ns in every sample).
#include "test_main.h"
#include "model/analysis/chrome_export.h"
#include "model/formats/loader.h"
#include "model/formats/readers.h"
#include "model/formats/sqlite_db.h"
#include "model/io/mapped_file.h"
#include "model/synth/synth.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace test_db_reader {

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

// One integer selected with SQL straight from the database (not through the reader).
qint64 sqlInt(const std::string& path, const std::string& sql)
{
    std::string err;
    auto d = db::Database::open(path, &err);
    if (!d)
        qFatal("%s", err.c_str());
    auto st = d->prepare(sql, &err);
    if (!st.valid())
        qFatal("%s: %s", sql.c_str(), err.c_str());
    if (!st.step())
        return -1;
    return st.int64(0).value_or(0);
}

// Flows the profiler database implies (FORMATS-DB §4), counted in SQL.
const char* const kTargetsCte = "WITH targets(conn) AS (SELECT connectionId FROM TASK WHERE connectionId <> 4294967295 "
                                "UNION ALL SELECT connectionId FROM COMMUNICATION_OP WHERE connectionId <> 4294967295), "
                                "py(conn) AS (SELECT ci.connectionId FROM PYTORCH_API p JOIN CONNECTION_IDS ci "
                                "ON ci.id = p.connectionId) ";

qint64 sqlFlows(const std::string& path)
{
    const std::string cte = kTargetsCte;
    const qint64 hostToDevice =
        sqlInt(path, cte + "SELECT count(*) FROM targets WHERE conn IN (SELECT connectionId FROM CANN_API)");
    const qint64 asyncNpu = sqlInt(path, cte + "SELECT count(*) FROM py JOIN targets t ON t.conn = py.conn");
    const qint64 pairs = sqlInt(path, cte + "SELECT count(*) FROM (SELECT conn FROM py WHERE conn NOT IN "
                                            "(SELECT conn FROM targets) GROUP BY conn HAVING count(*) = 2)");
    return hostToDevice + asyncNpu + pairs;
}

const Diagnostic* diagWith(const Profile& p, const std::string& text)
{
    for (const auto& d : p.diagnostics)
        if (d.reason.find(text) != std::string::npos)
            return &d;
    return nullptr;
}

// A writable copy of a sample database in dir.
std::string copyOf(const QTemporaryDir& dir, const std::string& from, const char* name)
{
    const std::string to = dir.filePath(QString::fromLatin1(name)).toStdString();
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::permissions(to, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::add);
    return to;
}

// The level0 rank0 profiler db, changed by `sql` first.
std::string alteredLevel0(const QTemporaryDir& dir, const std::string& sql)
{
    const std::string path = copyOf(dir, dbDir("level0", 0) + "ascend_pytorch_profiler_0.db", "altered_0.db");
    std::string err;
    auto w = db::Writer::openExisting(path, &err);
    if (!w || !w->exec(sql))
        qFatal("%s", w ? w->error().c_str() : err.c_str());
    w->close();
    return path;
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
        // wait / (wait + transit) = 0.93976..., rounded to 4 decimals as communication.json writes it
        QCOMPARE(op.waitRatio, 0.9398);
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
        // The profiler's config lists both exports, text first: the source named is the one read.
        std::ofstream(rank / "profiler_info_0.json")
            << R"({"rank_id": 0, "config": {"experimental_config": {"_export_type": ["text", "db"]}}})";

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

    void chromeTraceRoundTrip_data()
    {
        QTest::addColumn<QString>("level");
        QTest::addColumn<int>("rank");
        QTest::newRow("level0 rank1") << "level0" << 1;
        QTest::newRow("level1 rank0") << "level1" << 0;
        QTest::newRow("level2 rank0") << "level2" << 0;
    }
    void chromeTraceRoundTrip()
    {
        // Flows and communication ops read from a database survive the Chrome trace export and
        // the timeline reader; the expected numbers are selected with SQL from the database.
        QFETCH(QString, level);
        QFETCH(int, rank);
        const std::string lv = level.toStdString();
        const std::string path = dbDir(lv.c_str(), rank) + "ascend_pytorch_profiler_" + std::to_string(rank) + ".db";
        const qint64 flows = sqlFlows(path);
        const qint64 commOps = sqlInt(path, "SELECT count(*) FROM COMMUNICATION_OP");
        const qint64 commNs = sqlInt(path, "SELECT sum(endNs - startNs) FROM COMMUNICATION_OP");
        QVERIFY(flows > 100);
        QCOMPARE(commOps, qint64(4));

        auto p = std::make_shared<Profile>();
        ReadContext ctx;
        ctx.file = path;
        readers::readProfilerDb(path, *p, ctx);
        p->finalize();
        QCOMPARE(qint64(p->flows.size()), flows);

        Session s;
        s.ranks.push_back(p);
        const std::string json = chromeTraceJson(s);
        Profile again;
        ReadContext jctx;
        jctx.file = "export.json";
        const FileRecord rec = readers::readTimelineJson(json, again, jctx);
        QCOMPARE(int(rec.status), int(FileStatus::Loaded));
        again.finalize();
        QCOMPARE(qint64(again.flows.size()), flows);
        std::map<std::string, int> before, after;
        for (std::size_t i = 0; i < p->flows.size(); ++i)
            ++before[std::string(p->str(p->flows.category[i]))];
        for (std::size_t i = 0; i < again.flows.size(); ++i) {
            ++after[std::string(again.str(again.flows.category[i]))];
            QVERIFY(again.flows.srcSlice[i] != kNone);
            QVERIFY(again.flows.dstSlice[i] != kNone);
        }
        QVERIFY(before == after);
        qint64 ops = 0, opNs = 0;
        for (std::size_t i = 0; i < again.slices.size(); ++i)
            if (again.tracks[again.slices.track[i].v].kind == TrackKind::CommGroup) {
                ++ops;
                opNs += again.slices.dur[i];
            }
        QCOMPARE(ops, commOps);
        QCOMPARE(opNs, commNs);
        QCOMPARE(again.slices.size(), p->slices.size());
    }

    void corruptDatabase()
    {
        // Random bytes with a .db name: a clear failure naming the file, and the folder's other
        // files still load (here analysis.db: the step row).
        namespace fs = std::filesystem;
        QTemporaryDir tmp;
        const fs::path out = fs::path(tmp.path().toStdString()) / "r_ascend_pt" / "ASCEND_PROFILER_OUTPUT";
        fs::create_directories(out);
        std::mt19937 rng(7);
        {
            std::ofstream f(out / "ascend_pytorch_profiler_0.db", std::ios::binary);
            for (int i = 0; i < 8192; ++i)
                f.put(static_cast<char>(rng() & 0xff));
        }
        copyOf(tmp, dbDir("level1", 0) + "analysis.db", "r_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db");
        const LoadResult r = loadSession(out.parent_path().string());
        QVERIFY2(r.session, r.error.c_str());
        const Profile& p = *r.session->ranks.at(0);
        const std::string bad = (out / "ascend_pytorch_profiler_0.db").string();
        bool failed = false;
        for (const auto& f : p.files)
            if (f.path == bad)
                failed = f.status == FileStatus::Failed && f.note.find(bad) != std::string::npos;
        QVERIFY(failed);
        QCOMPARE(p.steps.size(), std::size_t(1));
        QCOMPARE(qint64(*p.steps[0].computing), qint64(8903431));
    }

    void truncatedDatabase()
    {
        // The first 40 % of a database: its schema is gone with the rest, so the file fails
        // with a message naming it and SQLite's reason; nothing crashes.
        QTemporaryDir tmp;
        const std::string src = dbDir("level1", 1) + "ascend_pytorch_profiler_1.db";
        const std::string path = tmp.filePath(QStringLiteral("ascend_pytorch_profiler_1.db")).toStdString();
        {
            std::ifstream in(src, std::ios::binary);
            std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            bytes.resize(bytes.size() * 2 / 5 / 4096 * 4096);
            std::ofstream(path, std::ios::binary) << bytes;
        }
        Profile p;
        ReadContext ctx;
        ctx.file = path;
        const FileRecord rec = readers::readProfilerDb(path, p, ctx);
        QVERIFY(rec.status != FileStatus::Loaded);
        QVERIFY(!p.diagnostics.empty());
        QCOMPARE(p.diagnostics[0].file, path);
        QVERIFY2(p.diagnostics[0].reason.find("malformed") != std::string::npos, p.diagnostics[0].reason.c_str());
    }

    void damagedTable()
    {
        // One table's root page overwritten: that table is named with SQLite's reason, the file
        // is Partial and every other table still loads.
        QTemporaryDir tmp;
        const std::string path = copyOf(tmp, dbDir("level0", 0) + "ascend_pytorch_profiler_0.db", "damaged_0.db");
        const qint64 root = sqlInt(path, "SELECT rootpage FROM sqlite_master WHERE name = 'PYTORCH_API'");
        const qint64 pageSize = sqlInt(path, "PRAGMA page_size");
        QVERIFY(root > 1 && pageSize >= 512);
        {
            std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp((root - 1) * pageSize);
            const std::string junk(static_cast<std::size_t>(pageSize), '\xab');
            f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
        }
        Profile p;
        ReadContext ctx;
        ctx.file = path;
        const FileRecord rec = readers::readProfilerDb(path, p, ctx);
        QCOMPARE(int(rec.status), int(FileStatus::Partial));
        const Diagnostic* d = diagWith(p, "table PYTORCH_API");
        QVERIFY(d);
        QCOMPARE(d->file, path);
        QVERIFY2(d->reason.find("malformed") != std::string::npos, d->reason.c_str());
        QCOMPARE(int(p.join.deviceTasks), 550);
        QCOMPARE(p.kernels.size(), std::size_t(191));
    }

    void lockedDatabase()
    {
        // Another connection holds an exclusive lock: the file is read as it is on disk, with a
        // warning naming it.
        QTemporaryDir tmp;
        const std::string path = alteredLevel0(tmp, "PRAGMA journal_mode=DELETE");
        std::string err;
        auto holder = db::Writer::openExisting(path, &err);
        QVERIFY2(holder, err.c_str());
        QVERIFY2(holder->exec("BEGIN EXCLUSIVE"), holder->error().c_str());
        QVERIFY2(holder->exec("UPDATE META_DATA SET value = value"), holder->error().c_str());
        Profile p;
        ReadContext ctx;
        ctx.file = path;
        const FileRecord rec = readers::readProfilerDb(path, p, ctx);
        QCOMPARE(int(rec.status), int(FileStatus::Loaded));
        const Diagnostic* d = diagWith(p, "locked");
        QVERIFY(d);
        QCOMPARE(d->file, path);
        QCOMPARE(int(p.join.deviceTasks), 550);
        QVERIFY(holder->exec("ROLLBACK"));
    }

    void missingTable()
    {
        QTemporaryDir tmp;
        const std::string path = alteredLevel0(tmp, "DROP TABLE COMPUTE_TASK_INFO");
        Profile p;
        ReadContext ctx;
        ctx.file = path;
        const FileRecord rec = readers::readProfilerDb(path, p, ctx);
        QCOMPARE(int(rec.status), int(FileStatus::Loaded));
        const Diagnostic* d = diagWith(p, "table COMPUTE_TASK_INFO missing");
        QVERIFY(d);
        QCOMPARE(d->file, path);
        QCOMPARE(int(p.join.deviceTasks), 550); // every TASK row still loads
        QCOMPARE(p.kernels.size(), std::size_t(4)); // only the communication ops have kernel rows
    }

    void unknownSchemaVersion()
    {
        QTemporaryDir tmp;
        const std::string path = alteredLevel0(tmp, "UPDATE META_DATA SET value = '2.1.0' WHERE name = 'SCHEMA_VERSION'");
        Profile p;
        ReadContext ctx;
        ctx.file = path;
        const FileRecord rec = readers::readProfilerDb(path, p, ctx);
        QCOMPARE(int(rec.status), int(FileStatus::Loaded));
        const Diagnostic* d = diagWith(p, "SCHEMA_VERSION 2.1.0");
        QVERIFY(d);
        QCOMPARE(d->file, path);
        QVERIFY(d->reason.find("table META_DATA") != std::string::npos);
        QCOMPARE(int(p.join.deviceTasks), 550);
        QCOMPARE(p.kernels.size(), std::size_t(191));
    }

    void communicationAnalyzerDb()
    {
        // msprof --analyze's communication_analyzer.db in PROF_*/analyze/ fills commOps and
        // commLinks like communication.json / communication_matrix.json. Built here from the
        // CommAnalyzer* tables of a torch_npu analysis.db (the same tables).
        namespace fs = std::filesystem;
        QTemporaryDir tmp;
        const fs::path prof = fs::path(tmp.path().toStdString()) / "PROF_000001_20250109074555123_ABCDEFGHIJKLMNOP";
        fs::create_directories(prof / "analyze");
        copyOf(tmp, dbDir("level1", 1) + "ascend_pytorch_profiler_1.db",
               (prof.filename() / "msprof_20250109074601.db").string().c_str());
        const std::string analysis = dbDir("level1", 1) + "analysis.db";
        const std::string comm = (prof / "analyze" / "communication_analyzer.db").string();
        {
            std::string err;
            auto w = db::Writer::create(comm, &err);
            QVERIFY2(w, err.c_str());
            QVERIFY2(w->exec("ATTACH DATABASE 'file:" + analysis + "?mode=ro&immutable=1' AS a"), w->error().c_str());
            for (const char* t : {"CommAnalyzerTime", "CommAnalyzerBandwidth", "CommAnalyzerMatrix"})
                QVERIFY2(w->exec(std::string("CREATE TABLE ") + t + " AS SELECT * FROM a." + t), w->error().c_str());
            QVERIFY(w->close());
        }
        const qint64 ops = sqlInt(comm, "SELECT count(*) FROM CommAnalyzerTime");
        const qint64 links = sqlInt(comm, "SELECT count(*) FROM CommAnalyzerMatrix");
        const qint64 elapseNs = sqlInt(comm, "SELECT CAST(round(sum(elapse_time) * 1e6) AS INTEGER) FROM CommAnalyzerTime");
        const qint64 hccsBytes = sqlInt(comm, "SELECT CAST(round(sum(DISTINCT transit_size) * 1e6) AS INTEGER) "
                                              "FROM CommAnalyzerBandwidth WHERE transport_type = 'HCCS'");
        QCOMPARE(ops, qint64(4));

        const LoadResult r = loadSession(prof.string());
        QVERIFY2(r.session, r.error.c_str());
        const Profile& p = *r.session->ranks.at(0);
        QCOMPARE(QString::fromStdString(r.session->source), QStringLiteral("db"));
        QCOMPARE(qint64(p.commOps.size()), ops);
        QCOMPARE(qint64(p.commLinks.size()), links);
        double elapse = 0, hccs = 0;
        for (const auto& op : p.commOps) {
            elapse += op.elapseMs;
            for (const auto& b : op.bandwidth)
                if (p.str(b.transport) == "HCCS")
                    hccs += b.sizeMB;
        }
        QCOMPARE(qint64(std::llround(elapse * 1e6)), elapseNs);
        QCOMPARE(qint64(std::llround(hccs * 1e6)), hccsBytes);
        QCOMPARE(int(p.join.deviceTasks), 552);

        // A text communication.json beside it, with a text timeline: the text is preferred and
        // the database is listed as ignored.
        fs::create_directories(prof / "mindstudio_profiler_output");
        fs::copy_file(fs::path(textDir("level1", 1)) / "trace_view.json",
                      prof / "mindstudio_profiler_output" / "msprof_20250109074601.json");
        fs::copy_file(fs::path(textDir("level1", 1)) / "communication.json", prof / "analyze" / "communication.json");
        const LoadResult t = loadSession(prof.string());
        QVERIFY2(t.session, t.error.c_str());
        QCOMPARE(QString::fromStdString(t.session->source), QStringLiteral("text"));
        const Profile& tp = *t.session->ranks.at(0);
        bool ignored = false;
        for (const auto& f : tp.files)
            if (f.path == comm)
                ignored = f.status == FileStatus::Ignored;
        QVERIFY(ignored);
        QVERIFY(!tp.commOps.empty());
    }

    void synthDbMatchesText()
    {
        // The generator's db and text exports of the same rank load to the same Profile numbers.
        namespace fs = std::filesystem;
        QTemporaryDir tmp;
        synth::SynthOptions o;
        o.format = "both";
        o.steps = 2;
        const synth::SynthResult r = synth::synthesize(tmp.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
        const fs::path out = fs::path(r.rankDirs.at(0)) / "ASCEND_PROFILER_OUTPUT";
        QVERIFY(fs::exists(out / "ascend_pytorch_profiler_0.db"));
        QVERIFY(fs::exists(out / "analysis.db"));
        QVERIFY(fs::exists(out / "trace_view.json"));
        LoadOptions lt, ld;
        lt.prefer = Prefer::Text;
        ld.prefer = Prefer::Db;
        const LoadResult t = loadSession(r.rankDirs[0], lt);
        const LoadResult d = loadSession(r.rankDirs[0], ld);
        QVERIFY2(t.session && d.session, (t.error + d.error).c_str());
        const Profile& a = *t.session->ranks.at(0);
        const Profile& b = *d.session->ranks.at(0);
        bool dbRead = false;
        for (const auto& f : b.files)
            if (f.path.find("ascend_pytorch_profiler_0.db") != std::string::npos)
                dbRead = f.status == FileStatus::Loaded;
        QVERIFY(dbRead);
        QCOMPARE(b.join.deviceTasks, std::uint64_t(r.deviceTasks));
        QCOMPARE(b.join.deviceTasks, a.join.deviceTasks);
        QCOMPARE(b.kernels.size(), a.kernels.size());
        auto sumDur = [](const Profile& p) {
            TimeNs s = 0;
            for (auto v : p.kernels.dur)
                s += v;
            return s;
        };
        QCOMPARE(qint64(sumDur(b)), qint64(sumDur(a)));
        QCOMPARE(qint64(computeSum(b)), qint64(computeSum(a)));
        auto perKind = [](const Profile& p) {
            std::map<TrackKind, std::pair<int, TimeNs>> m;
            for (std::size_t i = 0; i < p.slices.size(); ++i) {
                auto& e = m[p.tracks[p.slices.track[i].v].kind];
                ++e.first;
                e.second += p.slices.dur[i];
            }
            return m;
        };
        const auto ka = perKind(a), kb = perKind(b);
        for (TrackKind k : {TrackKind::Stream, TrackKind::CommGroup, TrackKind::Cann, TrackKind::Python,
                            TrackKind::Overlap}) {
            QCOMPARE(kb.at(k).first, ka.at(k).first);
            QCOMPARE(qint64(kb.at(k).second), qint64(ka.at(k).second));
        }
        std::map<std::string, int> fa, fb;
        for (std::size_t i = 0; i < a.flows.size(); ++i)
            ++fa[std::string(a.str(a.flows.category[i]))];
        for (std::size_t i = 0; i < b.flows.size(); ++i)
            ++fb[std::string(b.str(b.flows.category[i]))];
        QVERIFY(fa == fb);
        QCOMPARE(b.steps.size(), a.steps.size());
        for (std::size_t i = 0; i < a.steps.size(); ++i) {
            QCOMPARE(qint64(*b.steps[i].computing), qint64(*a.steps[i].computing));
            QCOMPARE(qint64(*b.steps[i].communication), qint64(*a.steps[i].communication));
        }
        const int util = b.kernels.metricIndex("aic_mac_ratio");
        QVERIFY(util >= 0);

        // --format db writes no text export beside the databases.
        QTemporaryDir only;
        o.format = "db";
        const synth::SynthResult r2 = synth::synthesize(only.path().toStdString(), o);
        QVERIFY2(r2.ok, r2.error.c_str());
        const fs::path out2 = fs::path(r2.rankDirs.at(0)) / "ASCEND_PROFILER_OUTPUT";
        QVERIFY(fs::exists(out2 / "ascend_pytorch_profiler_0.db"));
        QVERIFY(!fs::exists(out2 / "trace_view.json"));
        QVERIFY(!fs::exists(out2 / "kernel_details.csv"));
        const LoadResult d2 = loadSession(r2.rankDirs[0]);
        QVERIFY2(d2.session, d2.error.c_str());
        QCOMPARE(d2.session->ranks.at(0)->join.deviceTasks, a.join.deviceTasks);
    }

    void pytorchCallStacks()
    {
        // PYTORCH_API.callchainId -> PYTORCH_CALLCHAINS frames, stored as the "Call stack" arg the
        // way trace_view.json writes it (frames joined by ";\r\n", innermost first).
        const std::string path = dbDir("level1", 0) + "ascend_pytorch_profiler_0.db";
        const qint64 withStack = sqlInt(path, "SELECT count(*) FROM PYTORCH_API WHERE callchainId IS NOT NULL");
        QCOMPARE(withStack, qint64(316)); // trace_view.json of the text run also has 316 "Call stack" args
        std::string err;
        auto d = db::Database::open(path, &err);
        QVERIFY2(d, err.c_str());
        auto st = d->prepare("SELECT c.id, s.value FROM PYTORCH_CALLCHAINS c JOIN STRING_IDS s ON s.id = c.stack "
                             "WHERE c.id = (SELECT callchainId FROM PYTORCH_API WHERE callchainId IS NOT NULL "
                             "ORDER BY CAST(startNs AS INTEGER) LIMIT 1) ORDER BY c.stackDepth",
                             &err);
        QVERIFY2(st.valid(), err.c_str());
        std::string expected;
        while (st.step())
            expected += (expected.empty() ? "" : ";\r\n") + std::string(st.text(1));
        QVERIFY(expected.find("main.py(") != std::string::npos);

        Profile p;
        ReadContext ctx;
        ctx.file = path;
        readers::readProfilerDb(path, p, ctx);
        p.finalize();
        int stacks = 0;
        std::string first;
        TimeNs firstStart = 0;
        for (std::size_t i = 0; i < p.slices.size(); ++i) {
            if (p.slices.args[i] == kNone || p.tracks[p.slices.track[i].v].kind != TrackKind::Python)
                continue;
            QCOMPARE(QString::fromStdString(std::string(p.str(p.slices.category[i]))), QStringLiteral("cpu_op"));
            const auto r = p.args.rows[p.slices.args[i]];
            QCOMPARE(p.str(p.args.key(r.begin)), std::string_view("Sequence number"));
            for (std::uint32_t j = r.begin; j < r.begin + r.count; ++j)
                if (p.str(p.args.key(j)) == "Call stack") {
                    ++stacks;
                    if (first.empty() || p.slices.start[i] < firstStart) {
                        first = std::string(p.args.value(j, p.strings));
                        firstStart = p.slices.start[i];
                    }
                }
        }
        QCOMPARE(qint64(stacks), withStack);
        QCOMPARE(first, expected);
        // Input Dims hold shapes (the samples keep them in inputDtypes), Input type the dtypes.
        bool dims = false;
        for (std::size_t i = 0; i < p.args.args.size(); ++i)
            if (p.str(p.args.key(i)) == "Input type" && p.args.value(i, p.strings) == "float")
                dims = true;
        QVERIFY(dims);
    }

    void damagedTimes()
    {
        // Rows whose times cannot make a span are skipped, counted and named by table and
        // reason: a time beyond +-4e18 ns (an endNs - startNs that would overflow among them), an
        // end before the start, an unreadable time, a counter sample without a usable timestamp.
        const std::string original = dbDir("level0", 0) + "ascend_pytorch_profiler_0.db";
        Profile base;
        ReadContext ctx;
        ctx.file = original;
        QCOMPARE(readers::readProfilerDb(original, base, ctx).skipped, std::uint64_t(0));

        QTemporaryDir tmp;
        const std::string path = alteredLevel0(
            tmp, "UPDATE CANN_API SET startNs = -9223372036854775807 WHERE rowid = (SELECT min(rowid) FROM CANN_API);"
                 "UPDATE CANN_API SET endNs = 9223372036854775807 WHERE rowid = (SELECT max(rowid) FROM CANN_API);"
                 "UPDATE TASK SET endNs = startNs - 5 WHERE rowid IN (SELECT rowid FROM TASK WHERE globalTaskId "
                 "NOT IN (SELECT globalTaskId FROM COMMUNICATION_TASK_INFO) LIMIT 2);"
                 "UPDATE PYTORCH_API SET startNs = 'soon' WHERE rowid = (SELECT min(rowid) FROM PYTORCH_API);"
                 "UPDATE MEMORY_RECORD SET timestamp = NULL WHERE rowid = (SELECT min(rowid) FROM MEMORY_RECORD);"
                 "UPDATE NPU_MEM SET timestampNs = 1e300 WHERE rowid = (SELECT min(rowid) FROM NPU_MEM);"
                 "UPDATE AICORE_FREQ SET timestampNs = 5e18 WHERE rowid = (SELECT min(rowid) FROM AICORE_FREQ);");
        Profile p;
        ctx.file = path;
        const FileRecord rec = readers::readProfilerDb(path, p, ctx);
        QCOMPARE(int(rec.status), int(FileStatus::Partial));
        QCOMPARE(rec.skipped, std::uint64_t(8));
        QCOMPARE(p.slices.size(), base.slices.size() - 5);
        QCOMPARE(int(p.join.deviceTasks), 548);
        const std::pair<const char*, int> expected[] = {
            {"CANN_API row with a time beyond 4e18 ns skipped", 2},
            {"TASK row with endNs before startNs skipped", 2},
            {"PYTORCH_API row without a readable startNs and endNs skipped", 1},
            {"MEMORY_RECORD sample without a readable timestamp skipped", 1},
            {"NPU_MEM sample without a readable timestamp skipped", 1}, // a REAL beyond int64
            {"AICORE_FREQ sample with a time beyond 4e18 ns skipped", 1},
        };
        for (const auto& [reason, count] : expected) {
            const Diagnostic* d = diagWith(p, reason);
            QVERIFY2(d, reason);
            QCOMPARE(d->file, path);
            QCOMPARE(int(d->count), count);
        }
        // Every kept span is well formed.
        for (std::size_t i = 0; i < p.slices.size(); ++i)
            QVERIFY(p.slices.dur[i] >= 0);
    }

    void damagedDeviceIds()
    {
        // A device id beyond 0..65535 (here 2^32, which an int cast would wrap to 0, the real
        // device) reads as unknown and is reported once with its count; the tasks stay.
        const std::string original = dbDir("level0", 0) + "ascend_pytorch_profiler_0.db";
        Profile base;
        ReadContext ctx;
        ctx.file = original;
        readers::readProfilerDb(original, base, ctx);
        QTemporaryDir tmp;
        const std::string path = alteredLevel0(
            tmp, "UPDATE TASK SET deviceId = 4294967296 WHERE rowid IN (SELECT rowid FROM TASK WHERE globalTaskId "
                 "IN (SELECT globalTaskId FROM COMPUTE_TASK_INFO) LIMIT 3);"
                 "UPDATE AICORE_FREQ SET deviceId = -7 WHERE rowid = (SELECT min(rowid) FROM AICORE_FREQ);");
        Profile p;
        ctx.file = path;
        const FileRecord rec = readers::readProfilerDb(path, p, ctx);
        QCOMPARE(rec.skipped, std::uint64_t(0));
        QCOMPARE(p.slices.size(), base.slices.size());
        QCOMPARE(p.kernels.size(), base.kernels.size());
        const Diagnostic* d = diagWith(p, "device id beyond 0..65535 read as unknown");
        QVERIFY(d);
        QCOMPARE(int(d->count), 4);
        QCOMPARE(d->file, path);
        QVERIFY(!diagWith(base, "device id beyond"));
        QCOMPARE(std::count(p.kernels.device.begin(), p.kernels.device.end(), -1)
                     - std::count(base.kernels.device.begin(), base.kernels.device.end(), -1),
                 std::ptrdiff_t(3));

        // analysis.db's StepTraceTime: the same, reported once; -1 (unknown as written) is not.
        const std::string analysis = copyOf(tmp, dbDir("level1", 0) + "analysis.db", "altered_analysis.db");
        {
            std::string err;
            auto w = db::Writer::openExisting(analysis, &err);
            QVERIFY2(w, err.c_str());
            // The samples' StepTraceTime has no deviceId column (newer exports do).
            QVERIFY2(w->exec("ALTER TABLE StepTraceTime ADD COLUMN deviceId INTEGER;"
                             "INSERT INTO StepTraceTime SELECT * FROM StepTraceTime;" // a second step row
                             "UPDATE StepTraceTime SET deviceId = 70000;"
                             "UPDATE StepTraceTime SET deviceId = -1 WHERE rowid = (SELECT min(rowid) FROM StepTraceTime)"),
                     w->error().c_str());
            w->close();
        }
        Profile a;
        ctx.file = analysis;
        readers::readAnalysisDb(analysis, a, ctx);
        QCOMPARE(a.steps.size(), std::size_t(2));
        for (const StepRow& r : a.steps)
            QCOMPARE(r.device, -1);
        const Diagnostic* s = diagWith(a, "StepTraceTime: device id beyond 0..65535 read as unknown");
        QVERIFY(s);
        QCOMPARE(s->count, std::uint64_t(a.steps.size() - 1));
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
        const std::string analysis = dbDir("level1", 1) + "analysis.db";
        Profile q;
        ctx.file = analysis;
        const FileRecord r2 = readers::readProfilerDb(analysis, q, ctx);
        QCOMPARE(int(r2.status), int(FileStatus::Failed));
        QVERIFY(q.diagnostics[0].reason.find("STRING_IDS") != std::string::npos);
        QVERIFY(!db::looksLikeSqlite("SQLite format 2"));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestDbReader)

} // namespace test_db_reader

#include "test_db_reader.moc"
