// The `analyze` and `compare` verbs end to end: the npuscope binary run on real samples and on
// generated profiles, checking exit codes, exact CSV headers and numbers computed independently
// from the sample files with python3's csv/json modules (commands in the comments).
#include "test_main.h"
#include "cli_run.h"
#include "file_bytes.h"
#include "model/formats/readers.h"

#include <nlohmann/json.hpp>

#include <QRegularExpression>
#include <QtTest>

#include <cmath>
#include <fstream>

namespace test_cli_analyze {

namespace {

const QString kLevel1 = QStringLiteral(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1");
const QString kAdvisorKernels =
    QStringLiteral(NPUSCOPE_SAMPLES "/msprof-analyze/test/ut/advisor/advisor_backend/compute_advice/kernel_details.csv");

using Run = CliRun;
Run run(const QStringList& args, int timeoutMs = 120000) { return runCli(args, timeoutMs); }

QStringList lines(const QString& s) { return s.split(QLatin1Char('\n'), Qt::SkipEmptyParts); }

// Median of Computing + Communication(Not Overlapped) + Free over the rows of a step_trace_time.csv
// (the generated rows are whole steps: none is partial).
double medianStepUs(const QString& path)
{
    std::ifstream f(path.toStdString());
    std::string line;
    std::getline(f, line);
    QStringList head = QString::fromStdString(line).trimmed().split(QLatin1Char(','));
    const int c = head.indexOf(QStringLiteral("Computing")), n = head.indexOf(QStringLiteral("Communication(Not Overlapped)")),
              fr = head.indexOf(QStringLiteral("Free"));
    std::vector<double> rows;
    while (std::getline(f, line)) {
        const QStringList cells = QString::fromStdString(line).trimmed().split(QLatin1Char(','));
        if (cells.size() <= std::max({c, n, fr}))
            continue;
        rows.push_back(cells[c].toDouble() + cells[n].toDouble() + cells[fr].toDouble());
    }
    std::sort(rows.begin(), rows.end());
    const std::size_t k = rows.size();
    return k == 0 ? 0 : (k % 2 ? rows[k / 2] : (rows[k / 2 - 1] + rows[k / 2]) / 2);
}

QString findFile(const QString& dir, const QString& name)
{
    QDirIterator it(dir, {name}, QDir::Files, QDirIterator::Subdirectories);
    return it.hasNext() ? it.next() : QString();
}

} // namespace

class TestCliAnalyze : public QObject {
    Q_OBJECT
private slots:
    // One table of metrics feeds --metric, the usage message, both --help texts and the header
    // each metric writes; the man page is checked against it here.
    void metricsAreOneTable()
    {
        const Run help = run({"analyze", "--help"});
        QCOMPARE(help.code, 0);
        const QStringList helpLines = help.out.split(QLatin1Char('\n'));
        QStringList names;
        for (const QString& l : helpLines)
            if (l.startsWith("  --metric M"))
                names = l.mid(l.indexOf(QLatin1String("M ")) + 1).trimmed().remove(" (default)").split(" | ");
        QVERIFY(names.size() >= 5);
        QCOMPARE(names.front(), QString("duration"));

        const Run usage = run({"analyze", "--import", kLevel1, "--metric", "bogus"});
        QVERIFY2(usage.err.contains("(" + names.join(", ") + ")"), qPrintable(usage.err));
        const Run top = run({"--help"});
        QVERIFY2(top.out.contains("[--metric " + names.join('|') + "]"), qPrintable(top.out));

        QFile man(QStringLiteral(NPUSCOPE_SOURCE_DIR "/packaging/npuscope.1"));
        QVERIFY(man.open(QIODevice::ReadOnly));
        const QString manText = QString::fromUtf8(man.readAll()).remove(QLatin1Char('\\'));
        QVERIFY2(manText.contains("[fB--metricfR " + names.join('|') + "]"), "the man page's synopsis");
        const qsizetype option = manText.indexOf(".BI --metric \" M\"\n");
        QVERIFY(option >= 0);
        const QString optionLine = manText.mid(option).section(QLatin1Char('\n'), 1, 1);
        QStringList manNames;
        for (auto it = QRegularExpression("fB([a-z_]+)fR").globalMatch(optionLine); it.hasNext();)
            manNames << it.next().captured(1);
        QCOMPARE(manNames, names);

        // Each metric's columns as --help lists them (wrapped under each other) are the header
        // it writes on one real rank, nothing in front.
        const QString rank0 = kLevel1 + "/rank0_ascend_pt";
        for (const QString& name : names) {
            const qsizetype at = helpLines.indexOf(QRegularExpression("^  " + name + ":\\s+.*"));
            QVERIFY2(at >= 0, qPrintable(name));
            QString columns = helpLines[at].section(QLatin1Char(':'), 1).trimmed();
            for (qsizetype i = at + 1; i < helpLines.size()
                                       && QRegularExpression("^ {26}[A-Za-z0-9_,]+$").match(helpLines[i]).hasMatch();
                 ++i)
                columns += helpLines[i].trimmed();
            const Run csv = run({"analyze", "--import", rank0, "--metric", name, "--format", "csv", "--top", "1"});
            QCOMPARE(csv.code, 0);
            QCOMPARE(lines(csv.out).value(0), columns);
        }
    }

    void helpAndUsage()
    {
        Run r = run({"analyze", "--help"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("Usage: npuscope analyze"));
        r = run({"analyze"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("Try 'npuscope analyze --help'"));
        r = run({"analyze", "--import", kLevel1, "--metric", "bogus"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("bogus"));
        r = run({"analyze", "--import", kLevel1, "--format", "chrome_trace"});
        QCOMPARE(r.code, 2); // needs --export FILE
        r = run({"analyze", "--import", "/nonexistent/profile_dir"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("/nonexistent/profile_dir"));
        r = run({"analyze", "--import", "/nonexistent/rank*"});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("no file matches"));
        r = run({"compare", "--help"});
        QCOMPARE(r.code, 0);
        r = run({"compare", kLevel1});
        QCOMPARE(r.code, 2);
    }

    void durationTwoRanksGlob()
    {
        // The glob is expanded by npuscope (QProcess runs no shell).
        const Run r = run({"analyze", "--import", kLevel1 + "/rank*_ascend_pt", "--format", "csv", "--top", "3"});
        QCOMPARE(r.code, 0);
        const QStringList l = lines(r.out);
        QCOMPARE(l.value(0), QStringLiteral("rank,operator_name,duration_ms,aic_utilization,l2_cache_hit_rate,count,"
                                            "avg_us,max_us,share,min_us,p50_us,p90_us,p99_us,task_type,bound,self_ms,device"));
        QCOMPARE(l.size(), 1 + 6);
        // python3: csv.DictReader(kernel_details.csv), rows without Accelerator Core HCCL/COMMUNICATION
        // or a Type starting with hcom, grouped by Type, Σ Duration(us) as exact ns:
        // rank0 ForeachAddList 3 rows 1959079 ns, TransData 57 rows 1423202 ns, MatMulV2 8 rows 921498 ns;
        // rank1 ForeachAddList 3 rows 1954139 ns. All rank0 device tasks: 8873737 ns.
        const QStringList r1 = l[1].split(QLatin1Char(','));
        QCOMPARE(r1[0], QStringLiteral("1"));
        QCOMPARE(r1[1], QStringLiteral("ForeachAddList"));
        QCOMPARE(r1[2], QStringLiteral("1.959079"));
        QCOMPARE(r1[5], QStringLiteral("3"));
        QCOMPARE(r1[8], QString::number(1959079.0 / 8873737.0, 'f', 4));
        QCOMPARE(r1.last(), QStringLiteral("0"));
        const QStringList r2 = l[2].split(QLatin1Char(','));
        QCOMPARE(r2[1], QStringLiteral("TransData"));
        QCOMPARE(r2[2], QStringLiteral("1.423202"));
        QCOMPARE(r2[5], QStringLiteral("57"));
        QCOMPARE(l[3].split(QLatin1Char(','))[1], QStringLiteral("MatMulV2"));
        const QStringList r4 = l[4].split(QLatin1Char(','));
        QCOMPARE(r4[0], QStringLiteral("1"));
        QCOMPARE(r4[2], QStringLiteral("1.954139"));
        QCOMPARE(r4.last(), QStringLiteral("1"));
        QVERIFY(!r4[3].isEmpty()); // cube_utilization(%) present in the file
    }

    void advisorKernelTableJson()
    {
        // python3: 591 rows, 19 communication rows, 39 types; MatMul 9 rows Σ 14070560 ns first,
        // ApplyAdamW 28 rows Σ 12939380 ns second.
        const Run r = run({"analyze", "--import", kAdvisorKernels, "--format", "json", "--top", "0"});
        QCOMPARE(r.code, 0);
        const auto whole = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(whole["metric"].get<std::string>(), std::string("duration"));
        QVERIFY(whole["input_problems"].empty());
        const auto& doc = whole["rows"];
        QCOMPARE(doc.size(), std::size_t(39));
        QCOMPARE(doc[0]["operator_name"].get<std::string>(), std::string("MatMul"));
        QCOMPARE(doc[0]["count"].get<int>(), 9);
        QVERIFY(std::fabs(doc[0]["duration_ms"].get<double>() - 14.070560) < 1e-9);
        QCOMPARE(doc[1]["operator_name"].get<std::string>(), std::string("ApplyAdamW"));
        QCOMPARE(doc[1]["count"].get<int>(), 28);
        // Keys in the documented order.
        std::vector<std::string> keys;
        for (auto it = doc[0].begin(); it != doc[0].end(); ++it)
            keys.push_back(it.key());
        QCOMPARE(keys.size(), std::size_t(16));
        QVERIFY(doc[0].contains("self_ms")); // = duration_ms for device tasks
        QCOMPARE(doc[0]["self_ms"].get<double>(), doc[0]["duration_ms"].get<double>());
        // Ascending puts the smallest first.
        const Run asc = run({"analyze", "--import", kAdvisorKernels, "--format", "csv", "--top", "1", "--sort", "ascending"});
        QCOMPARE(asc.code, 0);
        QCOMPARE(lines(asc.out).size(), 2);
    }

    void communicationDuration()
    {
        // python3 over communication.json: hcom_allReduce 4 ops, Σ round(Elapse Time(ms)·1e6) = 105991878 ns
        // (rank1 100375286 ns), volume Σ RDMA + max(SDMA, HCCS+PCIE+SIO) MB / 1000 = 0.427596 GB.
        const Run r = run({"analyze", "--import", kLevel1 + "/rank0_ascend_pt", "--metric", "communication_duration",
                           "--format", "csv"});
        QCOMPARE(r.code, 0);
        const QStringList l = lines(r.out);
        QCOMPARE(l.value(0), QStringLiteral("rank,operator_name,duration_ms,communication_volume_GB,count,wait_ms,transit_ms"));
        QCOMPARE(l.size(), 2);
        const QStringList c = l[1].split(QLatin1Char(','));
        QCOMPARE(c[1], QStringLiteral("hcom_allReduce"));
        QCOMPARE(c[2], QStringLiteral("105.991878"));
        QCOMPARE(c[3], QStringLiteral("0.427596"));
        QCOMPARE(c[4], QStringLiteral("4"));
        QCOMPARE(c[5], QStringLiteral("5.940619"));
        QCOMPARE(c[6], QStringLiteral("3.683353"));

        const Run both = run({"analyze", "--import", kLevel1 + "/rank0_ascend_pt", kLevel1 + "/rank1_ascend_pt",
                              "--metric", "communication_duration", "--format", "csv"});
        QCOMPARE(both.code, 0);
        const QStringList b = lines(both.out);
        QVERIFY(b.value(0).endsWith(QStringLiteral(",device")));
        QCOMPARE(b.size(), 3);
        QVERIFY(b[2].startsWith(QStringLiteral("1,hcom_allReduce,100.375286,")));
        QVERIFY(b[2].endsWith(QStringLiteral(",1")));
    }

    void memoryBandwidthHeaderAndExport()
    {
        QTemporaryDir dir;
        const QString csv = dir.filePath("top.csv");
        Run r = run({"analyze", "--import", kLevel1 + "/rank0_ascend_pt", "--metric", "memory_bandwidth", "--export", csv});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.isEmpty());
        const QStringList l = lines(QString::fromStdString(fileBytes(csv)));
        QCOMPARE(l.value(0), QStringLiteral("rank,operator_name,memory_read_GBps,memory_write_GBps,"
                                            "memory_bandwidth_utilization,duration_ms,count,task_type,bound"));
        QCOMPARE(l.size(), 11); // default --top 10
        // level1 was collected without memory metrics: said, not left to blank columns.
        QVERIFY2(r.err.contains(QStringLiteral("rank0_ascend_pt: no memory bandwidth metrics")), qPrintable(r.err));
        const QString json = dir.filePath("top.json");
        r = run({"analyze", "--import", kLevel1 + "/rank0_ascend_pt", "--export", json, "--peak-hbm-gbps", "1600"});
        QCOMPARE(r.code, 0);
        QCOMPARE(nlohmann::json::parse(fileBytes(json))["rows"].size(), std::size_t(10));
        r = run({"analyze", "--import", kLevel1 + "/rank0_ascend_pt", "--top", "2"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith(QStringLiteral("rank  operator_name")));
        QCOMPARE(lines(r.out).size(), 3);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 2); // no temporary files left
    }

    void chromeTraceExport()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("trace.json");
        const Run r = run({"analyze", "--import", kLevel1 + "/rank0_ascend_pt", "--format", "chrome_trace", "--export", out});
        QCOMPARE(r.code, 0);
        const std::string a = fileBytes(out);
        const auto doc = nlohmann::json::parse(a);
        std::size_t x = 0;
        for (const auto& e : doc["traceEvents"])
            x += e["ph"] == "X";
        QVERIFY(x > 0);
        // Re-importing the export keeps every slice.
        npuscope::Profile p;
        npuscope::ReadContext ctx;
        ctx.file = out.toStdString();
        npuscope::readers::readTimelineJson(a, p, ctx);
        p.finalize();
        QCOMPARE(p.slices.size(), x);
    }

    void compareGenerated()
    {
        QTemporaryDir dir;
        const QString base = dir.filePath("base"), opt = dir.filePath("opt");
        Run r = run({"synth", base, "--scenario", "llama2-baseline", "--steps", "3", "--seed", "7"}, 300000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = run({"synth", opt, "--scenario", "llama2-optimized", "--steps", "3", "--seed", "7"}, 300000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        // Step times read back independently from the generated step_trace_time.csv files.
        const QString baseStt = findFile(base, "step_trace_time.csv"), optStt = findFile(opt, "step_trace_time.csv");
        QVERIFY(!baseStt.isEmpty() && !optStt.isEmpty());
        const double expected = medianStepUs(baseStt) / medianStepUs(optStt);
        QVERIFY2(expected > 2.5 && expected < 3.3, qPrintable(QString::number(expected)));

        // The generated kernel table has the memory metrics: ranked by them, without the note.
        r = run({"analyze", "--import", base, "--metric", "memory_bandwidth", "--top", "3"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("no memory bandwidth metrics")), qPrintable(r.err));

        r = run({"compare", base, opt, "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto doc = nlohmann::json::parse(r.out.toStdString());
        const double speedup = doc["speedup"].get<double>();
        QVERIFY2(std::fabs(speedup - expected) < 0.002, qPrintable(QString::number(speedup) + " vs " + QString::number(expected)));
        QCOMPARE(doc["headline"][0]["metric"].get<std::string>(), std::string("Step time"));
        QCOMPARE(doc["headline"][0]["better"].get<std::string>(), std::string("lower"));
        QCOMPARE(doc["headline"][0]["verdict"].get<std::string>(), std::string("improved"));
        QVERIFY(std::fabs(doc["headline"][0]["ratio"].get<double>() - 1.0 / expected) < 0.001);
        QVERIFY(!doc["operators"].empty());
        QCOMPARE(doc["same_within_pct"].get<double>(), 1.0);
        // The verdict with its interval over the 3 steps of each run.
        QCOMPARE(doc["baseline_steps"].get<int>(), 3);
        QCOMPARE(doc["optimized_steps"].get<int>(), 3);
        const double ratio = doc["step_ratio"].get<double>();
        QVERIFY(std::fabs(ratio - 1.0 / expected) < 0.001);
        QVERIFY(doc["step_ratio_ci95"][0].get<double>() <= ratio && ratio <= doc["step_ratio_ci95"][1].get<double>());
        const std::string verdict = doc["verdict"].get<std::string>();
        QVERIFY2(verdict.rfind("faster by " + QString::number(speedup, 'f', 2).toStdString() + "×", 0) == 0, verdict.c_str());
        QVERIFY2(verdict.find("3 vs 3 steps") != std::string::npos, verdict.c_str());
        // The mapping: the attention chain became FlashAttentionScore, once per layer (32) per step.
        bool flash = false;
        for (const auto& m : doc["mapping"])
            if (m["mapping"] == "replaced" && m["baseline_ops"] == "BatchMatMul→SoftmaxV2→BatchMatMul"
                && m["optimized_ops"] == "FlashAttentionScore") {
                flash = true;
                QCOMPARE(m["per_step"].get<double>(), 32.0);
                QVERIFY(m["optimized_ms_per_step"].get<double>() < m["baseline_ms_per_step"].get<double>());
                QCOMPARE(m["verdict"].get<std::string>(), std::string("improved"));
            }
        QVERIFY(flash);
        QCOMPARE(doc["mapping_steps"].get<int>(), 3);
        // The advisor diff: findings the fusions fixed.
        QVERIFY(doc["advisor_compared"].get<bool>());
        int fixedFindings = 0;
        for (const auto& a : doc["advisor"])
            fixedFindings += a["change"] == "fixed";
        QVERIFY(fixedFindings > 0);
        for (const auto& op : doc["operators"]) { // each operator's verdict, from its totals (3 steps each)
            const double b = op["baseline_ms"].is_null() ? 0.0 : op["baseline_ms"].get<double>();
            const double c = op["optimized_ms"].is_null() ? 0.0 : op["optimized_ms"].get<double>();
            const std::string v = op["verdict"].get<std::string>();
            if (v == "new") { // a fused kernel that replaced baseline operators (the mapping's)
                QCOMPARE(b, 0.0);
                continue;
            }
            if (std::fabs(c - b) > 0.011 * std::max(b, c))
                QCOMPARE(v, std::string(c < b ? "improved" : "regressed"));
            else if (std::fabs(c - b) < 0.009 * std::max(b, c))
                QCOMPARE(v, std::string("same"));
        }

        // A band of 50 %: operators whose total changed by less are the same.
        r = run({"compare", base, opt, "--format", "json", "--same-within", "50"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto wide = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(wide["same_within_pct"].get<double>(), 50.0);
        // The step time fell by about two thirds of the baseline's: more than the band.
        QCOMPARE(wide["headline"][0]["verdict"].get<std::string>(), std::string("improved"));
        int sameOps = 0;
        for (const auto& op : wide["operators"])
            if (op["verdict"].get<std::string>() == "same")
                ++sameOps;
        QVERIFY(sameOps > 0);
        r = run({"compare", base, opt, "--same-within=2.5"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("a change under 2.5 %"), qPrintable(r.out.left(400)));
        for (const char* bad : {"-1", "51", "x", ""}) {
            r = run({"compare", base, opt, "--same-within", bad});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("--same-within needs a percentage from 0 to 50"), qPrintable(r.err));
        }

        for (const char* f : {"table", "csv", "markdown"}) {
            r = run({"compare", base, opt, "--format", f});
            QCOMPARE(r.code, 0);
            QVERIFY(r.out.contains("Step time"));
            QVERIFY(r.out.contains("FlashAttentionScore") && r.out.contains("BatchMatMul→SoftmaxV2→BatchMatMul"));
            QVERIFY(r.out.contains("fixed"));
        }
        // HTML and PDF, to a file with -o: the verdict, the chart, the mapping and the findings.
        const QString html = dir.filePath("compare.html"), pdf = dir.filePath("compare.pdf");
        r = run({"compare", base, opt, "--format", "html", "-o", html});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile hf(html);
        QVERIFY(hf.open(QIODevice::ReadOnly));
        const QString page = QString::fromUtf8(hf.readAll());
        QVERIFY(page.contains("faster by") && page.contains("data:image/png;base64,"));
        QVERIFY(page.contains("FlashAttentionScore") && page.contains("Advisor findings"));
        r = run({"compare", base, opt, "--format", "pdf", "-o", pdf});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile pf(pdf);
        QVERIFY(pf.open(QIODevice::ReadOnly));
        QVERIFY(pf.read(5) == "%PDF-");
        QVERIFY(pf.size() > 20000); // text and the chart image
        r = run({"compare", base, opt, "--format", "pdf"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--format pdf needs -o FILE"), qPrintable(r.err));
        // --no-advisor leaves the diff out.
        r = run({"compare", base, opt, "--format", "json", "--no-advisor"});
        QCOMPARE(r.code, 0);
        QVERIFY(!nlohmann::json::parse(r.out.toStdString())["advisor_compared"].get<bool>());
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestCliAnalyze)

} // namespace test_cli_analyze

#include "test_cli_analyze.moc"
