// The synthetic profile generator: layouts, well-formed files, determinism, and the modelled
// truths re-measured here from the written CSV/JSON (independently of the generator's own sums).
#include "test_main.h"
#include "csv_records.h"
#include "file_bytes.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace test_synth {

using namespace npuscope::synth;

namespace {

struct Table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    int col(const std::string& name) const
    {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == name)
                return static_cast<int>(i);
        return -1;
    }
};

Table readCsv(const QString& path)
{
    Table t;
    auto rows = parseCsv(fileBytes(path));
    if (rows.empty())
        return t;
    t.header = rows.front();
    t.rows.assign(rows.begin() + 1, rows.end());
    return t;
}

double num(const std::string& s)
{
    std::size_t end = s.find_last_not_of(" \t");
    return std::stod(s.substr(0, end + 1));
}

QStringList filesUnder(const QString& dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << QDir(dir).relativeFilePath(it.next());
    out.sort();
    return out;
}

QString findOne(const QString& dir, const QString& pattern)
{
    QDirIterator it(dir, {pattern}, QDir::Files, QDirIterator::Subdirectories);
    return it.hasNext() ? it.next() : QString();
}

// The modelled truths as a reader would compute them from kernel_details + step_trace_time.
struct Measured {
    double util = 0, l2 = 0, hbm = 0, stepMs = 0;
    int computeRows = 0, commRows = 0;
};

Measured measure(const QString& out)
{
    Measured m;
    const Table k = readCsv(out + "/kernel_details.csv");
    const int core = k.col("Accelerator Core"), dur = k.col("Duration(us)"), util = k.col("cube_utilization(%)");
    std::vector<int> hits, misses, bws;
    for (std::size_t i = 0; i < k.header.size(); ++i) {
        const auto& h = k.header[i];
        if (h.find("cache_hit") != std::string::npos)
            hits.push_back(static_cast<int>(i));
        if (h.find("cache_miss_allocate") != std::string::npos)
            misses.push_back(static_cast<int>(i));
        if (h.find("main_mem_") != std::string::npos && h.find("_bw(GB/s)") != std::string::npos)
            bws.push_back(static_cast<int>(i));
    }
    double ud = 0, d = 0, bd = 0, hit = 0, miss = 0;
    for (const auto& r : k.rows) {
        if (r[static_cast<std::size_t>(core)] == "HCCL") {
            ++m.commRows;
            continue;
        }
        ++m.computeRows;
        const double du = num(r[static_cast<std::size_t>(dur)]);
        d += du;
        ud += num(r[static_cast<std::size_t>(util)]) * du;
        for (int c : bws)
            bd += num(r[static_cast<std::size_t>(c)]) * du;
        for (int c : hits)
            hit += num(r[static_cast<std::size_t>(c)]);
        for (int c : misses)
            miss += num(r[static_cast<std::size_t>(c)]);
    }
    m.util = ud / d;
    m.hbm = bd / d / 1200.0;
    m.l2 = hit / (hit + miss);
    const Table s = readCsv(out + "/step_trace_time.csv");
    double total = 0;
    for (const auto& r : s.rows) {
        const double step = num(r[static_cast<std::size_t>(s.col("Computing"))])
                            + num(r[static_cast<std::size_t>(s.col("Communication(Not Overlapped)"))])
                            + num(r[static_cast<std::size_t>(s.col("Free"))]);
        total += step;
    }
    m.stepMs = total / static_cast<double>(s.rows.size()) / 1000.0;
    return m;
}

} // namespace

class TestSynth : public QObject {
    Q_OBJECT

private:
    SynthResult gen(const QString& dir, SynthOptions o)
    {
        SynthResult r = synthesize(dir.toStdString(), o);
        if (!r.ok)
            qWarning("synthesize failed: %s", r.error.c_str());
        return r;
    }

private slots:
    void torchLayoutIsWellFormed()
    {
        QTemporaryDir tmp;
        SynthOptions o;
        o.steps = 2;
        const SynthResult r = gen(tmp.path(), o);
        QVERIFY(r.ok);
        QCOMPARE(r.rankDirs.size(), std::size_t(1));
        const QString rank = QString::fromStdString(r.rankDirs[0]);
        QVERIFY(QFileInfo(rank).fileName().endsWith("_ascend_pt"));
        const QString out = rank + "/ASCEND_PROFILER_OUTPUT";
        for (const char* f : {"trace_view.json", "kernel_details.csv", "op_statistic.csv", "step_trace_time.csv",
                              "communication.json", "communication_matrix.json", "api_statistic.csv"})
            QVERIFY2(QFile::exists(out + "/" + f), f);
        // every JSON parses, every CSV has one column count
        for (const QString& rel : filesUnder(rank)) {
            const QString path = rank + "/" + rel;
            if (rel.endsWith(".json") || rel.contains("info.json.")) {
                try {
                    const auto j = nlohmann::json::parse(fileBytes(path));
                    QVERIFY(!j.is_null());
                } catch (const std::exception& e) {
                    QFAIL(qPrintable(rel + ": " + e.what()));
                }
            } else if (rel.endsWith(".csv")) {
                const auto rows = parseCsv(fileBytes(path));
                QVERIFY2(rows.size() >= 2, qPrintable(rel));
                for (const auto& row : rows)
                    QVERIFY2(row.size() == rows.front().size(), qPrintable(rel));
            }
        }
        const auto info = nlohmann::json::parse(fileBytes(rank + "/profiler_info_0.json"));
        QCOMPARE(info["rank_id"].get<int>(), 0);
        QCOMPARE(info["config"]["experimental_config"]["_profiler_level"].get<std::string>(), std::string("Level1"));
        QCOMPARE(info["config"]["experimental_config"]["_export_type"].get<std::string>(), std::string("text"));
        const auto meta = nlohmann::json::parse(fileBytes(rank + "/profiler_metadata.json"));
        QCOMPARE(meta["ENV_VARIABLES"]["ASCEND_GLOBAL_LOG_LEVEL"].get<std::string>(), std::string("1"));
        QVERIFY(meta.contains("parallel_group_info"));
        const auto devInfo = nlohmann::json::parse(fileBytes(findOne(rank, "info.json.0")));
        QCOMPARE(devInfo["DeviceInfo"][0]["ai_core_num"].get<int>(), 24);
        QCOMPARE(devInfo["DeviceInfo"][0]["aic_frequency"].get<std::string>(), std::string("1800"));

        // real quirks: TAB after the start time, CRLF, Block Dim
        const std::string kd = fileBytes(out + "/kernel_details.csv");
        QVERIFY(kd.find("\t,") != std::string::npos);
        QVERIFY(kd.find("\r\n") != std::string::npos);
        QVERIFY(kd.find(",Block Dim,Mix Block Dim,") != std::string::npos);
        QVERIFY(kd.find(",N/A,N/A,") != std::string::npos);
    }

    void timelineMatchesKernelDetails()
    {
        QTemporaryDir tmp;
        SynthOptions o;
        o.steps = 2;
        const SynthResult r = gen(tmp.path(), o);
        QVERIFY(r.ok);
        const QString out = QString::fromStdString(r.rankDirs[0]) + "/ASCEND_PROFILER_OUTPUT";
        const auto trace = nlohmann::json::parse(fileBytes(out + "/trace_view.json"));
        QVERIFY(trace.is_array());
        std::map<std::int64_t, std::string> procs;
        for (const auto& e : trace)
            if (e["ph"] == "M" && e["name"] == "process_name")
                procs[e["pid"].get<std::int64_t>()] = e["args"]["name"].get<std::string>();
        std::set<std::string> names;
        for (const auto& p : procs)
            names.insert(p.second);
        for (const char* p : {"Python", "CANN", "Ascend Hardware", "Communication", "Overlap Analysis",
                              "AI Core Freq", "HBM"})
            QVERIFY2(names.count(p), p);
        std::set<std::tuple<std::int64_t, std::int64_t, std::string>> devKeys;
        std::size_t devTasks = 0, hostToDeviceS = 0, hostToDeviceF = 0;
        std::map<std::string, double> lanes;
        std::int64_t hwPid = 0;
        for (const auto& e : trace) {
            const std::string ph = e["ph"];
            const auto pid = e["pid"].get<std::int64_t>();
            if (ph == "X" && procs[pid] == "Ascend Hardware") {
                ++devTasks;
                hwPid = pid;
                QVERIFY(e["ts"].is_string());
                devKeys.insert({e["args"]["Physic Stream Id"].get<std::int64_t>(), e["args"]["Task Id"].get<std::int64_t>(),
                                e["ts"].get<std::string>()});
                // the flow id is connection_id << 32
                (void)e["args"]["connection_id"].get<std::uint64_t>();
            }
            if (ph == "X" && procs[pid] == "Overlap Analysis")
                lanes[e["name"]] += e["dur"].get<double>();
            if ((ph == "s" || ph == "f") && e.value("cat", "") == "HostToDevice") {
                (ph == "s" ? hostToDeviceS : hostToDeviceF)++;
                const auto id = std::stoull(e["id"].get<std::string>());
                QCOMPARE(id & 0xFFFFFFFFull, 0ull);
            }
        }
        // msprof pid packing: realPid<<10 | sortIndex<<5 | device
        QCOMPARE((hwPid >> 5) & 31, std::int64_t(13));
        QCOMPARE(hwPid & 31, std::int64_t(0));
        QCOMPARE(std::uint64_t(devTasks), r.deviceTasks);
        QCOMPARE(hostToDeviceS, devTasks);
        QCOMPARE(hostToDeviceF, devTasks);

        const Table k = readCsv(out + "/kernel_details.csv");
        QCOMPARE(k.rows.size(), devTasks);
        // every compute row joins its device task exactly on (stream, task id, start text)
        const int st = k.col("Stream ID"), id = k.col("Task ID"), start = k.col("Start Time(us)");
        int joined = 0;
        for (const auto& row : k.rows) {
            if (row[static_cast<std::size_t>(id)] == "N/A")
                continue;
            std::string ts = row[static_cast<std::size_t>(start)];
            QCOMPARE(ts.back(), '\t');
            ts.pop_back();
            QVERIFY(devKeys.count({std::stoll(row[static_cast<std::size_t>(st)]),
                                   std::stoll(row[static_cast<std::size_t>(id)]), ts}));
            ++joined;
        }
        QVERIFY(joined > 1000);

        // Overlap Analysis lanes agree with step_trace_time (µs, rounding of per-slice text)
        const Table s = readCsv(out + "/step_trace_time.csv");
        double computing = 0, notOverlapped = 0, freeT = 0;
        for (const auto& row : s.rows) {
            computing += num(row[1]);
            notOverlapped += num(row[2]);
            freeT += num(row[5]);
            // step = Computing + Communication(Not Overlapped) + Free = Stage, Bubble 0
            QVERIFY(std::abs(num(row[1]) + num(row[2]) + num(row[5]) - num(row[6])) < 0.002);
            QCOMPARE(row[7], std::string("0"));
            QVERIFY(std::abs(num(row[3]) + num(row[2]) - num(row[4])) < 0.002);
        }
        QVERIFY(std::abs(lanes["Computing"] - computing) < 1.0);
        QVERIFY(std::abs(lanes["Communication(Not Overlapped)"] - notOverlapped) < 1.0);
        QVERIFY(std::abs(lanes["Free"] - freeT) < 1.0);
    }

    void statisticsAndCommunicationAreConsistent()
    {
        QTemporaryDir tmp;
        SynthOptions o;
        o.steps = 2;
        const SynthResult r = gen(tmp.path(), o);
        QVERIFY(r.ok);
        const QString out = QString::fromStdString(r.rankDirs[0]) + "/ASCEND_PROFILER_OUTPUT";
        const Table k = readCsv(out + "/kernel_details.csv");
        std::map<std::string, std::pair<int, double>> byType;
        int commRows = 0;
        for (const auto& row : k.rows) {
            if (row[static_cast<std::size_t>(k.col("Accelerator Core"))] == "HCCL") {
                ++commRows;
                continue;
            }
            auto& a = byType[row[static_cast<std::size_t>(k.col("Type"))]];
            ++a.first;
            a.second += num(row[static_cast<std::size_t>(k.col("Duration(us)"))]);
        }
        const Table os = readCsv(out + "/op_statistic.csv");
        QCOMPARE(os.rows.size(), byType.size());
        double ratio = 0;
        for (const auto& row : os.rows) {
            const auto& a = byType[row[0]];
            QCOMPARE(std::stoi(row[2]), a.first);
            QVERIFY(std::abs(num(row[3]) - a.second) < 0.01);
            ratio += num(row[7]);
        }
        QVERIFY(std::abs(ratio - 100.0) < 0.05);

        const auto comm = nlohmann::json::parse(fileBytes(out + "/communication.json"));
        QCOMPARE(comm.size(), std::size_t(2)); // step1, step2
        int ops = 0;
        for (const auto& [step, groups] : comm.items()) {
            for (const auto& [name, op] : groups["collective"].items()) {
                const auto& ti = op["Communication Time Info"];
                const double wait = ti["Wait Time(ms)"], transit = ti["Transit Time(ms)"];
                QVERIFY(std::abs(ti["Wait Time Ratio"].get<double>() - wait / (wait + transit)) < 1e-4);
                const auto& hccs = op["Communication Bandwidth Info"]["HCCS"];
                if (name == "Total Op Info") {
                    QVERIFY(!ti.contains("Start Timestamp(us)"));
                    QVERIFY(!hccs.contains("Bandwidth(GB/s)"));
                    continue;
                }
                ++ops;
                QVERIFY(ti.contains("Start Timestamp(us)"));
                const double bw = hccs["Transit Size(MB)"].get<double>() / hccs["Transit Time(ms)"].get<double>();
                QVERIFY(std::abs(hccs["Bandwidth(GB/s)"].get<double>() - bw) < 1e-3);
            }
        }
        QCOMPARE(ops, commRows);
        QCOMPARE(ops, 2 * 32); // one AllReduce per layer
        const auto matrix = nlohmann::json::parse(fileBytes(out + "/communication_matrix.json"));
        QCOMPARE(matrix["step1"]["collective"].size(), std::size_t(32));
        const auto& links = matrix["step1"]["collective"].begin().value();
        QCOMPARE(links.size(), std::size_t(8)); // TP group of 8: 0-0 .. 0-7
        QCOMPARE(links["0-0"]["Transport Type"].get<std::string>(), std::string("LOCAL"));
        QCOMPARE(links["0-1"]["Transport Type"].get<std::string>(), std::string("HCCS"));
    }

    void baselineTruths()
    {
        QTemporaryDir tmp;
        SynthOptions o;
        o.steps = 2;
        const SynthResult r = gen(tmp.path(), o);
        QVERIFY(r.ok);
        const Measured m = measure(QString::fromStdString(r.rankDirs[0]) + "/ASCEND_PROFILER_OUTPUT");
        qInfo("baseline: step %.3f ms, util %.3f %%, L2 %.4f, HBM %.4f", m.stepMs, m.util, m.l2, m.hbm);
        QVERIFY(std::abs(m.util - 38) <= 3);
        QVERIFY(std::abs(m.l2 - 0.45) <= 0.03);
        QVERIFY(std::abs(m.stepMs - 52) <= 3);
        QVERIFY(std::abs(m.hbm - 0.62) <= 0.03);
        // the generator reports what the files say
        QVERIFY(std::abs(r.aicUtil - m.util) < 0.01);
        QVERIFY(std::abs(r.l2Hit - m.l2) < 1e-6);
        QVERIFY(std::abs(r.stepMs - m.stepMs) < 1e-3);
        QVERIFY(r.exposedCommShare > 0.2);
    }

    void optimizedTruths()
    {
        QTemporaryDir tmp;
        SynthOptions o;
        o.scenario = "llama2-optimized";
        o.steps = 2;
        const SynthResult r = gen(tmp.path(), o);
        QVERIFY(r.ok);
        const Measured m = measure(QString::fromStdString(r.rankDirs[0]) + "/ASCEND_PROFILER_OUTPUT");
        qInfo("optimized: step %.3f ms, util %.3f %%, L2 %.4f, HBM %.4f", m.stepMs, m.util, m.l2, m.hbm);
        QVERIFY(std::abs(m.util - 78) <= 3);
        QVERIFY(std::abs(m.l2 - 0.72) <= 0.03);
        QVERIFY(std::abs(m.stepMs - 18) <= 1.5);
        QVERIFY(std::abs(m.hbm - 0.85) <= 0.03);
        QVERIFY(r.exposedCommShare < 0.05);
    }

    void deterministicForASeed()
    {
        QTemporaryDir a, b, c;
        SynthOptions o;
        o.steps = 1;
        o.seed = 7;
        QVERIFY(gen(a.path(), o).ok);
        QVERIFY(gen(b.path(), o).ok);
        o.seed = 8;
        QVERIFY(gen(c.path(), o).ok);
        const QStringList fa = filesUnder(a.path()), fb = filesUnder(b.path());
        QCOMPARE(fa, fb);
        QVERIFY(fa.size() >= 10);
        for (const QString& rel : fa)
            QVERIFY2(fileBytes(a.path() + "/" + rel) == fileBytes(b.path() + "/" + rel), qPrintable(rel));
        const QString ta = findOne(a.path(), "trace_view.json"), tc = findOne(c.path(), "trace_view.json");
        QVERIFY(fileBytes(ta) != fileBytes(tc));
    }

    void msprofLayout()
    {
        QTemporaryDir tmp;
        SynthOptions o;
        o.layout = "msprof";
        o.steps = 1;
        const SynthResult r = gen(tmp.path(), o);
        QVERIFY(r.ok);
        const QString prof = QString::fromStdString(r.rankDirs[0]);
        QVERIFY(QFileInfo(prof).fileName().startsWith("PROF_000001_"));
        QVERIFY(QDir(prof + "/host").exists());
        const auto info = nlohmann::json::parse(fileBytes(prof + "/device_0/info.json.0"));
        QCOMPARE(info["DeviceInfo"][0]["aiv_num"].get<int>(), 48);
        const QString out = prof + "/mindstudio_profiler_output";
        const QString tl = findOne(out, "msprof_*.json");
        QVERIFY(QFileInfo(tl).fileName().size() == QString("msprof_20260606121514.json").size());
        const auto trace = nlohmann::json::parse(fileBytes(tl));
        std::size_t devTasks = 0;
        std::int64_t cannPid = 0;
        for (const auto& e : trace) {
            if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == "CANN")
                cannPid = e["pid"];
            if (e["ph"] == "X" && e["args"].contains("Physic Stream Id"))
                ++devTasks;
        }
        QCOMPARE(cannPid & 31, std::int64_t(31)); // host processes carry device 31
        const Table ops = readCsv(findOne(out, "op_summary_*.csv"));
        QCOMPARE(ops.header.front(), std::string("Device_id"));
        QVERIFY(ops.col("Task Start Time(us)") > 0);
        QCOMPARE(ops.rows.size(), devTasks);
        QVERIFY(!findOne(out, "op_statistic_*.csv").isEmpty());
        const auto comm = nlohmann::json::parse(fileBytes(prof + "/analyze/communication.json"));
        QCOMPARE(comm.size(), std::size_t(33)); // 32 ops + Total Op Info
        QVERIFY(comm.contains("Total Op Info"));
    }

    void clusterSlowRank()
    {
        QTemporaryDir tmp;
        SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.steps = 1;
        const SynthResult r = gen(tmp.path(), o);
        QVERIFY(r.ok);
        QCOMPARE(r.rankDirs.size(), std::size_t(4));
        const QString cl = tmp.path() + "/cluster_analysis_output";
        const Table stt = readCsv(cl + "/cluster_step_trace_time.csv");
        QCOMPARE(stt.rows.size(), std::size_t(5)); // 4 ranks + stage
        int slowest = -1;
        double maxComputing = 0;
        for (const auto& row : stt.rows)
            if (row[1] == "rank" && num(row[3]) > maxComputing) {
                maxComputing = num(row[3]);
                slowest = std::stoi(row[2]);
            }
        QCOMPARE(slowest, 3);
        const auto matrix = nlohmann::json::parse(fileBytes(cl + "/cluster_communication_matrix.json"));
        const auto& op = matrix["(0, 1, 2, 3)"]["step1"].begin().value();
        const double slow = op["1-2"]["Bandwidth(GB/s)"], normal = op["0-2"]["Bandwidth(GB/s)"];
        QVERIFY(std::abs(slow / normal - 0.4) < 0.05);
        const auto comm = nlohmann::json::parse(fileBytes(cl + "/cluster_communication.json"));
        QCOMPARE(comm["(0, 1, 2, 3)"]["step1"].begin().value().size(), std::size_t(4));
        for (const auto& d : r.rankDirs) {
            const auto meta = nlohmann::json::parse(fileBytes(QString::fromStdString(d) + "/profiler_metadata.json"));
            QCOMPARE(meta["parallel_group_info"].begin().value()["global_ranks"].size(), std::size_t(4));
        }
    }

    void targetSizeScales()
    {
        QTemporaryDir tmp;
        SynthOptions o;
        o.targetMB = 20;
        int calls = 0;
        o.progress = [&calls](double) { ++calls; };
        const SynthResult r = gen(tmp.path(), o);
        QVERIFY(r.ok);
        const double mib = static_cast<double>(QFileInfo(findOne(tmp.path(), "trace_view.json")).size()) / 1048576.0;
        QVERIFY2(mib >= 18 && mib <= 24, qPrintable(QString::number(mib)));
        QVERIFY(r.steps > 3);
        QCOMPARE(calls, r.steps);
    }

    void rejectsBadOptions()
    {
        QTemporaryDir tmp;
        SynthOptions o;
        o.scenario = "nope";
        QVERIFY(!synthesize(tmp.path().toStdString(), o).ok);
        o = SynthOptions();
        o.layout = "sqlite";
        QVERIFY(!synthesize(tmp.path().toStdString(), o).ok);
        o = SynthOptions();
        o.steps = 0;
        QVERIFY(!synthesize(tmp.path().toStdString(), o).ok);
    }

    void cliHelpAndUsage()
    {
        const QString bin = QStringLiteral(NPUSCOPE_BINARY);
        // The suite runs on a whole build: a missing binary is a broken build, not a reason to skip.
        QVERIFY2(QFileInfo::exists(bin), qPrintable(bin + " does not exist"));
        QProcess p;
        p.start(bin, {"synth", "--help"});
        QVERIFY(p.waitForFinished(20000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(p.readAllStandardOutput().contains("--scenario"));
        p.start(bin, {"synth", "/tmp/x", "--bogus"});
        QVERIFY(p.waitForFinished(20000));
        QCOMPARE(p.exitCode(), 2);
        p.start(bin, {"synth"});
        QVERIFY(p.waitForFinished(20000));
        QCOMPARE(p.exitCode(), 2);
        QTemporaryDir tmp;
        p.start(bin, {"synth", tmp.path(), "--steps", "1", "--quiet", "--layout", "msprof"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(!findOne(tmp.path(), "op_summary_*.csv").isEmpty());
        for (const QStringList& bad : {QStringList{"--level", "3"}, QStringList{"--level"},
                                       QStringList{"--layout", "msprof", "--with-stack"}}) {
            p.start(bin, QStringList{"synth", tmp.path() + "/bad", "--quiet"} + bad);
            QVERIFY(p.waitForFinished(20000));
            QCOMPARE(p.exitCode(), 2);
        }
    }

    void levelsLoad_data()
    {
        QTest::addColumn<int>("level");
        QTest::addColumn<bool>("withStack");
        QTest::newRow("level 0") << 0 << false;
        QTest::newRow("level 1, with_stack") << 1 << true;
        QTest::newRow("level 2") << 2 << false;
    }

    // Every level's folder loads whole: each file read (or ignored by name, never failed or cut
    // short), every device task there, the level's kind of host slices.
    void levelsLoad()
    {
        QFETCH(int, level);
        QFETCH(bool, withStack);
        QTemporaryDir tmp;
        SynthOptions o;
        o.steps = 2;
        o.level = level;
        o.withStack = withStack;
        const SynthResult r = gen(tmp.path(), o);
        QVERIFY(r.ok);
        const npuscope::LoadResult l = npuscope::loadSession(r.rankDirs.at(0), {});
        QVERIFY2(l.session, l.error.c_str());
        const npuscope::Profile& p = *l.session->ranks.at(0);
        for (const auto& f : p.files)
            QVERIFY2(f.status == npuscope::FileStatus::Loaded || f.status == npuscope::FileStatus::Ignored,
                     (f.path + ": " + f.note).c_str());
        std::map<npuscope::TrackKind, std::size_t> kinds;
        std::set<std::string> categories;
        for (std::size_t i = 0; i < p.slices.size(); ++i) {
            ++kinds[p.tracks[p.slices.track[i].v].kind];
            categories.insert(std::string(p.str(p.slices.category[i])));
        }
        QCOMPARE(std::uint64_t(kinds[npuscope::TrackKind::Stream]), r.deviceTasks);
        QCOMPARE(kinds[npuscope::TrackKind::Cann] > 0, level > 0); // no CANN API slices at level 0
        QVERIFY(categories.count("enqueue") && categories.count("dequeue"));
        QCOMPARE(categories.count("python_function") > 0, withStack);
        QCOMPARE(p.steps.size(), std::size_t(2));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestSynth)

} // namespace test_synth

#include "test_synth.moc"
