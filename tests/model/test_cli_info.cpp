// `npuscope info` run as a process: text and JSON on a real rank folder, and the error exits;
// the hand-over of what draws with Qt to npuscope-gui.
#include "test_main.h"
#include "cli_run.h"
#include "csv_records.h"
#include "file_bytes.h"
#include "model/io/memory_budget.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>

namespace test_cli_info {

namespace {

const QString kRank0 = QStringLiteral(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";

CliRun runInfo(const QStringList& args) { return runCli(QStringList{"info"} + args, 60000); }

} // namespace

class TestCliInfo : public QObject {
    Q_OBJECT
private slots:
    void json()
    {
        const CliRun r = runInfo({kRank0, "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.err.isEmpty()); // not a TTY: no progress
        const auto j = nlohmann::json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY(!j.is_discarded());
        QCOMPARE(j["layout"].get<std::string>(), std::string("torch_npu"));
        QCOMPARE(j["source"].get<std::string>(), std::string("text"));
        QCOMPARE(j["ranks"].size(), std::size_t(1));
        const auto& rank = j["ranks"][0];
        QCOMPARE(rank["rank"].get<int>(), 0);
        QCOMPARE(rank["name"].get<std::string>(), std::string("rank0_ascend_pt"));
        // Numbers computed with python3 over the sample (see test_loader.cpp for how).
        QCOMPARE(rank["device_tasks"].get<int>(), 535);
        QCOMPARE(rank["slices_by_track_kind"]["stream"].get<int>(), 535);
        QCOMPARE(rank["device_tasks_by_type"]["AI_CORE"].get<int>(), 172); // args "Task Type" counts
        QCOMPARE(rank["device_tasks_by_type"].begin().key(), std::string("AI_CORE")); // largest first
        QCOMPARE(rank["kernel_rows"].get<int>(), 191);
        QCOMPARE(rank["comm_ops"].get<int>(), 5);
        QCOMPARE(rank["comm_links"].get<int>(), 48);
        QCOMPARE(rank["steps"].get<int>(), 1);
        // 187 exact (stream, task id, start) + 4 HCCL rows on communication slices (1 exact,
        // 3 within 1 µs), see test_loader.cpp.
        QCOMPARE(rank["join"]["matched_exact"].get<int>(), 188);
        QCOMPARE(rank["join"]["matched_nearest"].get<int>(), 3);
        QCOMPARE(rank["join"]["unmatched_kernels"].get<int>(), 0);
        QVERIFY(rank["time_span"]["end_ns"].get<std::int64_t>() > rank["time_span"]["begin_ns"].get<std::int64_t>());
        QVERIFY(rank["time_span"]["duration_ms"].get<double>() > 0);
        // The one step_trace_time.csv row, µs to ns: Computing 8873.756, Communication(Not
        // Overlapped) 101963.203, Free 25744.050; T is their sum, 136581.009 µs (the row's Stage).
        const auto& split = rank["step_split"];
        QCOMPARE(split["source"].get<std::string>(), std::string("step_trace_time"));
        QCOMPARE(split["steps"].get<int>(), 1);
        QCOMPARE(split["computing_ns"].get<std::int64_t>(), std::int64_t(8873756));
        QCOMPARE(split["comm_not_overlapped_ns"].get<std::int64_t>(), std::int64_t(101963203));
        QCOMPARE(split["free_ns"].get<std::int64_t>(), std::int64_t(25744050));
        QCOMPARE(split["step_ns"].get<std::int64_t>(), std::int64_t(8873756 + 101963203 + 25744050));

        bool traceSeen = false;
        for (const auto& f : rank["files"]) {
            if (f["path"] == "ASCEND_PROFILER_OUTPUT/trace_view.json") {
                traceSeen = true;
                QCOMPARE(f["kind"].get<std::string>(), std::string("timeline"));
                QCOMPARE(f["status"].get<std::string>(), std::string("loaded"));
                QVERIFY(f["records"].get<int>() > 0);
            }
        }
        QVERIFY(traceSeen);
        bool detailsRead = false;
        for (const auto& f : rank["files"])
            if (f["path"] == "ASCEND_PROFILER_OUTPUT/operator_details.csv")
                detailsRead = f["status"] == "loaded" && f["records"] == 859;
        QVERIFY(detailsRead);
        QCOMPARE(rank["op_detail_rows"].get<int>(), 859); // python3 csv over the file

        // Per op type from kernel_details.csv, by total Duration(us), read here with the test's
        // own CSV parser: the computation rows (Accelerator Core other than HCCL, Type not hcom*)
        // by Type; the communication rows apart (python3 csv: 33 types of 187 rows; 4
        // hcom_allReduce_ rows of 105991.876 µs).
        const std::string kernelCsv = fileBytes(QString(kRank0 + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv").toStdString());
        const auto csv = parseCsv(kernelCsv);
        QVERIFY(csv.size() > 1);
        const auto col = [&](const char* name) {
            return int(std::find(csv[0].begin(), csv[0].end(), std::string(name)) - csv[0].begin());
        };
        const int cType = col("Type"), cCore = col("Accelerator Core"), cDur = col("Duration(us)");
        QVERIFY(cType < int(csv[0].size()) && cCore < int(csv[0].size()) && cDur < int(csv[0].size()));
        std::map<std::string, std::pair<int, std::int64_t>> expected; // type -> (count, ns)
        int commCount = 0;
        std::int64_t commNs = 0;
        for (std::size_t i = 1; i < csv.size(); ++i) {
            if (csv[i].size() < csv[0].size())
                continue;
            const std::int64_t ns = std::llround(std::stod(csv[i][cDur]) * 1000.0);
            if (csv[i][cCore] == "HCCL" || csv[i][cType].rfind("hcom", 0) == 0) {
                ++commCount;
                commNs += ns;
                continue;
            }
            auto& e = expected[csv[i][cType]];
            ++e.first;
            e.second += ns;
        }
        QCOMPARE(commCount, 4);
        QCOMPARE(commNs, std::int64_t(105991876));
        const auto& ops = rank["op_types"];
        QCOMPARE(ops["source"].get<std::string>(), std::string("kernels"));
        QCOMPARE(ops["rows"].size(), expected.size());
        QCOMPARE(ops["rows"][0]["type"].get<std::string>(), std::string("ForeachAddList"));
        QCOMPARE(ops["rows"][0]["total_ns"].get<std::int64_t>(), std::int64_t(1959079));
        for (const auto& o : ops["rows"]) {
            const auto it = expected.find(o["type"].get<std::string>());
            QVERIFY2(it != expected.end(), o["type"].get<std::string>().c_str());
            QCOMPARE(o["count"].get<int>(), it->second.first);
            QCOMPARE(o["total_ns"].get<std::int64_t>(), it->second.second);
        }
        QCOMPARE(ops["communication"]["count"].get<int>(), commCount);
        QCOMPARE(ops["communication"]["total_ns"].get<std::int64_t>(), commNs);

        // The same rows, counts and totals as `analyze --metric duration` ranks.
        const CliRun a = runCli({"analyze", "--import", kRank0, "--metric", "duration", "--top", "0", "--format", "json"});
        QVERIFY2(a.code == 0, qPrintable(a.err));
        const auto aj = nlohmann::json::parse(a.out.toStdString());
        QCOMPARE(aj["rows"].size(), ops["rows"].size());
        for (std::size_t i = 0; i < ops["rows"].size(); ++i) {
            QCOMPARE(aj["rows"][i]["operator_name"].get<std::string>(), ops["rows"][i]["type"].get<std::string>());
            QCOMPARE(aj["rows"][i]["count"].get<int>(), ops["rows"][i]["count"].get<int>());
            QVERIFY(std::abs(aj["rows"][i]["duration_ms"].get<double>() * 1e6 - ops["rows"][i]["total_ns"].get<double>()) < 1);
        }
    }

    void text()
    {
        const CliRun r = runInfo({kRank0});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString& out = r.out;
        QVERIFY(out.contains("layout: torch_npu"));
        QVERIFY(out.contains("rank 0: rank0_ascend_pt (torch_npu)"));
        QVERIFY(out.contains("device tasks: 535 (AI_CORE 172"));
        QVERIFY(out.contains("kernel rows: 191"));
        QVERIFY(out.contains("comm ops: 5"));
        QVERIFY(out.contains("operator details rows: 859"));
        QVERIFY(out.contains("105991.876 us"));
    }

    void runsBelowAFolder()
    {
        // The skill repository's root: one run eight folders down, opened as it is.
        const QString skill = QStringLiteral(NPUSCOPE_SAMPLES) + "/ascend-msprof-skill";
        CliRun r = runInfo({skill, "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        auto j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["ranks"].size(), std::size_t(1));
        QCOMPARE(j["ranks"][0]["name"].get<std::string>(), std::string("PROF_000001_20260606121448940_RGBHHJGBAJGRQEOB"));
        QCOMPARE(j["layout"].get<std::string>(), std::string("msprof"));

        // text/ holds three unrelated two-rank runs: listed, each with layout, ranks, size, date.
        const QString text = QStringLiteral(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text";
        r = runInfo({text, "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["runs"].size(), std::size_t(3));
        for (int i = 0; i < 3; ++i) {
            const auto& run = j["runs"][i];
            QCOMPARE(run["run"].get<int>(), i + 1);
            QCOMPARE(run["root"].get<std::string>(), QString(text + "/level" + QString::number(i)).toStdString());
            QCOMPARE(run["ranks"].get<int>(), 2);
            QCOMPARE(run["layout"].get<std::string>(), std::string("cluster (2 ranks, torch_npu)"));
            QVERIFY(run["bytes"].get<std::uint64_t>() > 0);
            QVERIFY(run["modified"].get<std::int64_t>() > 0);
        }
        r = runInfo({text});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("3 unrelated runs found below it"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  2. cluster (2 ranks, torch_npu), 2 ranks, "), qPrintable(r.out));
        // --run N opens one of them, as a cluster of its ranks.
        r = runInfo({text, "--run", "2", "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        j = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(j["layout"].get<std::string>(), std::string("cluster (2 ranks, torch_npu)"));
        QCOMPARE(j["ranks"].size(), std::size_t(2));
        QCOMPARE(j["ranks"][0]["device_tasks"].get<int>(), 535); // level1 rank 0, as in json()
        r = runInfo({text, "--run", "4"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("there is no run 4"), qPrintable(r.err));
        r = runInfo({text, "--run", "0"});
        QCOMPARE(r.code, 2);

        // analyze and advise need --run N when several runs are found: they fail with the list.
        r = runCli({"analyze", "--import", text, "--format", "json"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("3 unrelated runs found below it") && r.err.contains("  3. cluster (2 ranks"),
                 qPrintable(r.err));
        QVERIFY(r.err.contains("--run N"));
        r = runCli({"advise", text, "--format", "json"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("3 unrelated runs found below it"), qPrintable(r.err));
        r = runCli({"analyze", "--import", text, "--run", "2", "--format", "json", "--top", "0"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runCli({"advise", text, "--run", "1", "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    void generatedBaselineChecksBlockDim()
    {
        // torch_npu writes info.json.N only in PROF_*/device_N/: CMP-BLOCKDIM and CMP-FREQ run.
        QTemporaryDir tmp;
        CliRun r = runCli({"synth", tmp.path(), "--scenario", "llama2-baseline", "--steps", "2", "--seed", "3"}, 300000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = runCli({"advise", tmp.path(), "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto j = nlohmann::json::parse(r.out.toStdString());
        int seen = 0;
        for (const auto& f : j["findings"]) {
            const std::string rule = f["rule"].get<std::string>();
            if (rule == "CMP-BLOCKDIM" || rule == "CMP-FREQ") {
                ++seen;
                QVERIFY2(f["status"].get<std::string>() != "not_checked", (rule + ": " + f.dump()).c_str());
            }
        }
        QVERIFY(seen >= 2);
        r = runInfo({tmp.path(), "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto info = nlohmann::json::parse(r.out.toStdString());
        bool infoRead = false;
        for (const auto& f : info["ranks"][0]["files"])
            if (f["path"].get<std::string>().ends_with("/device_0/info.json.0"))
                infoRead = f["status"] == "loaded" && f["records"] == 1;
        QVERIFY2(infoRead, info["ranks"][0]["files"].dump().c_str());
    }

    void emptyFolder()
    {
        QTemporaryDir tmp;
        const CliRun r = runInfo({tmp.path()});
        QCOMPARE(r.code, 1);
        QVERIFY(r.out.isEmpty());
        QVERIFY(r.err.contains(tmp.path() + ": no profiling data found"));
    }

    // npuscope keeps one heap and advises huge pages for large loads' heap when the system gives
    // huge pages on request; --version tells whether it does.
    void heapHugePages()
    {
        const auto version = [](const QStringList& env) {
            QProcess p;
            QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
            e.remove("GLIBC_TUNABLES");
            e.remove("NPUSCOPE_HUGE_PAGES");
            for (const QString& kv : env)
                e.insert(kv.section('=', 0, 0), kv.section('=', 1));
            p.setProcessEnvironment(e);
            p.start(QStringLiteral(NPUSCOPE_BINARY), {"--version"});
            p.waitForFinished(60000);
            return QString::fromUtf8(p.readAllStandardOutput());
        };
        const QString managed = "heap: transparent huge pages for loads of 64 MiB or more";
        const QString system = "heap: pages as the system gives them";
        QFile thp("/sys/kernel/mm/transparent_hugepage/enabled");
        bool onRequest = thp.open(QIODevice::ReadOnly) && thp.readAll().contains("[madvise]");
        onRequest = onRequest && !npuscope::kSanitizerHeap; // sanitizer builds (GCC's or clang's) leave the heap alone
        // A memory balloon that reports free pages to the host (feature bit 5, VIRTIO_BALLOON_F_REPORTING,
        // in its one-character-per-bit features file) turns them off unless asked for or fresh
        // small pages are slow there.
        bool hostReclaims = false;
        for (const QFileInfo& d : QDir(QStringLiteral("/sys/bus/virtio/drivers/virtio_balloon")).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            QFile features(d.filePath() + QStringLiteral("/features"));
            if (features.open(QIODevice::ReadOnly)) {
                const QByteArray bits = features.readLine();
                hostReclaims = hostReclaims || (bits.size() > 5 && bits[5] == '1');
            }
        }
        // There, huge pages are taken when a fresh 4 KiB page, measured at start, is slow: the
        // line says the time and the choice agrees with it.
        const auto agrees = [&](const QString& v) {
            if (!(onRequest && hostReclaims))
                return v.contains(onRequest ? managed : system) && !v.contains(QStringLiteral("the host takes free memory back"));
            const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("a fresh 4 KiB page took ([0-9.]+) us")).match(v);
            const double us = m.hasMatch() ? m.captured(1).toDouble() : -1;
            return v.contains(QStringLiteral("the host takes free memory back")) && us > 0
                   && (v.contains(managed) ? us >= npuscope::kSlowFreshPageMicros - 0.05
                                           : v.contains(system) && us < npuscope::kSlowFreshPageMicros + 0.05);
        };
        QVERIFY2(agrees(version({})), qPrintable(version({})));
        QVERIFY(version({}).startsWith("npuscope "));
        QVERIFY(version({"NPUSCOPE_HUGE_PAGES=1"}).contains(onRequest ? managed : system));
        QVERIFY(version({"NPUSCOPE_HUGE_PAGES=0"}).contains(system));
        // A caller who set either tunable chose: the heap is left as they set it.
        QVERIFY(version({"GLIBC_TUNABLES=glibc.malloc.arena_max=2"}).contains(system));
        QVERIFY(version({"GLIBC_TUNABLES=glibc.malloc.hugetlb=0"}).contains(system));
        // Other tunables do not matter.
        QVERIFY(agrees(version({"GLIBC_TUNABLES=glibc.malloc.tcache_count=4"})));
    }

    void usageErrors()
    {
        CliRun r = runInfo({kRank0, "--bogus"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("unknown option '--bogus'"));
        QVERIFY(r.err.contains("Try 'npuscope info --help'"));
        r = runInfo({});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("missing PATH"));
        r = runInfo({kRank0, "--format", "xml"});
        QCOMPARE(r.code, 2);
        r = runInfo({"--help"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("Usage: npuscope info"));
    }

    // `npuscope` starts without Qt; a command line that draws with it runs in npuscope-gui,
    // which gives the same answers to the verbs.
    void verbsWithoutQt()
    {
        QProcess ldd;
        ldd.start(QStringLiteral("ldd"), {QStringLiteral(NPUSCOPE_BINARY)});
        QVERIFY(ldd.waitForFinished(30000));
        const QString libs = QString::fromUtf8(ldd.readAllStandardOutput());
        QVERIFY2(libs.contains("libc.so"), qPrintable(libs));
        QVERIFY2(!libs.contains("libQt6"), qPrintable(libs));

        const CliRun plain = runInfo({kRank0, "--format", "json", "--no-cache"});
        QVERIFY2(plain.code == 0, qPrintable(plain.err));
        QProcess gui;
        gui.start(QStringLiteral(NPUSCOPE_GUI_BINARY), {"info", kRank0, "--format", "json", "--no-cache"});
        QVERIFY(gui.waitForFinished(60000));
        QCOMPARE(gui.exitCode(), 0);
        QCOMPARE(QString::fromUtf8(gui.readAllStandardOutput()), plain.out);
    }

    void drawnReportsHandedOver()
    {
        QTemporaryDir tmp;
        const QString pdf = tmp.path() + "/advice.pdf";
        CliRun r = runCli({"advise", kRank0, "--format", "pdf", "-o", pdf, "--no-cache"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile f(pdf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.read(5), QByteArray("%PDF-"));
        const QString html = tmp.path() + "/compare.html";
        r = runCli({"compare", kRank0, kRank0, "--format", "html", "-o", html, "--no-cache"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile h(html);
        QVERIFY(h.open(QIODevice::ReadOnly));
        QVERIFY(h.readAll().contains("<html"));
        // A usage error is found before the hand-over, by either binary.
        r = runCli({"compare", kRank0, kRank0, "--format", "pdf"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--format pdf needs -o FILE"), qPrintable(r.err));

        // Without npuscope-gui beside it, the verbs still run and a drawn report says why not.
        const QString alone = tmp.path() + "/npuscope";
        QVERIFY(QFile::copy(QStringLiteral(NPUSCOPE_BINARY), alone));
        QProcess p;
        p.start(alone, {"advise", kRank0, "--format", "json", "--no-cache"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(p.readAllStandardOutput().contains("\"findings\""));
        p.start(alone, {"advise", kRank0, "--format", "pdf", "-o", tmp.path() + "/no.pdf", "--no-cache"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains("cannot start " + tmp.path() + "/npuscope-gui"), qPrintable(err));
        QVERIFY(!QFile::exists(tmp.path() + "/no.pdf"));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestCliInfo)

} // namespace test_cli_info

#include "test_cli_info.moc"
