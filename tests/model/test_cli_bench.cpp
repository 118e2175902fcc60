// `npuscope-bench` run as a process on small generated profiles: what it prints (the real-shaped
// profile and its compact twin), and that its linearity line is computed from the loads it lists.
// No time is asserted.
#include "test_main.h"
#include "cli_run.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

namespace test_cli_bench {

namespace {

CliRun runBench(const QStringList& args) { return runProgram(benchBinary(), args); }

double median(QList<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

class TestCliBench : public QObject {
    Q_OBJECT
private slots:
    void linearity()
    {
        QTemporaryDir out;
        QVERIFY(out.isValid());
        const CliRun r =
            runBench({"--size-mb", "10", "--linear-mb", "1", "--runs", "3", "--no-frames", "--out", out.path()});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(QFileInfo(out.path() + "/torch_npu_real_10mb_seed1").isDir());
        QVERIFY(QFileInfo(out.path() + "/torch_npu_compact_10mb_seed1").isDir());
        QVERIFY(QFileInfo(out.path() + "/torch_npu_real_1mb_seed1").isDir());
        for (const char* line : {"real-shaped: as torch_npu writes it", "compact twin:", "(a) npuscope full load",
                                 "(b) simdjson On-Demand scan (floor)", "(a') full load, compact JSON",
                                 "(b') floor, compact JSON", "ratio a/b, real-shaped", "ratio a'/b', compact",
                                 "late cancels:", "advise end to end"})
            QVERIFY2(r.out.contains(QLatin1String(line)), line);
        // The compact twin holds the same events in fewer bytes.
        const auto sizes = QRegularExpression(R"(\(([0-9.]+) MB trace_view.json, real-shaped.*
.*\(([0-9.]+) MB )"
                                              R"(trace_view.json: the same steps)")
                               .match(r.out);
        QVERIFY2(sizes.hasMatch(), qPrintable(r.out));
        QVERIFY(sizes.captured(2).toDouble() < sizes.captured(1).toDouble());
        const auto events = [&](const char* row) {
            return QRegularExpression(QRegularExpression::escape(QLatin1String(row)) + R"(\s+[0-9.]+\s+[0-9.]+\s+([0-9]+))")
                .match(r.out)
                .captured(1);
        };
        QVERIFY(!events("(a) npuscope full load").isEmpty());
        QCOMPARE(events("(a') full load, compact JSON"), events("(a) npuscope full load"));
        QCOMPARE(events("(b') floor, compact JSON"), events("(b) simdjson On-Demand scan (floor)"));
        const auto compactRuns = QRegularExpression(R"(\(a'\) and \(b'\): in the same alternation; \(a'\) ([0-9., ]+) s;)")
                                     .match(r.out);
        QVERIFY(compactRuns.hasMatch());
        QCOMPARE(compactRuns.captured(1).split(", ").size(), 3);

        // The large load's median, as its row and the runs list give it.
        const auto load = QRegularExpression(R"(\(a\) npuscope full load\s+([0-9.]+))").match(r.out);
        QVERIFY(load.hasMatch());
        const auto runs = QRegularExpression(R"(\(a\) and \(b\): medians of 3 alternating runs; \(a\) ([0-9., ]+) s;)")
                              .match(r.out);
        QVERIFY(runs.hasMatch());
        QList<double> large;
        for (const QString& s : runs.captured(1).split(", "))
            large.append(s.toDouble());
        QCOMPARE(large.size(), 3);
        QCOMPARE(median(large), load.captured(1).toDouble());

        const auto lin = QRegularExpression(R"(linearity: the ([0-9.]+) MB trace's load took ([0-9.]+) s \(median of )"
                                            R"(([0-9., ]+) s\); linear in size, this ([0-9.]+)x larger trace's would )"
                                            R"(take ([0-9.]+) s; it took ([0-9.]+) s: ([0-9]+) % (under|over) linear)")
                             .match(r.out);
        QVERIFY2(lin.hasMatch(), qPrintable(r.out));
        QList<double> small;
        for (const QString& s : lin.captured(3).split(", "))
            small.append(s.toDouble());
        QCOMPARE(small.size(), 3);
        const double smallMedian = lin.captured(2).toDouble();
        QCOMPARE(median(small), smallMedian);
        QCOMPARE(lin.captured(6), load.captured(1));
        // The ratio is the traces' sizes (about 10 MB over about 1 MB), the prediction the small
        // median scaled by it, the percentage how far the large median is from the prediction.
        const double ratio = lin.captured(4).toDouble();
        QVERIFY(ratio > 5 && ratio < 15);
        const double predicted = lin.captured(5).toDouble();
        // Each printed number is off by up to half a unit of its last digit: the bound is what
        // those roundings can add up to, whatever the times (slow builds have larger ones).
        const auto halfUnit = [](const QString& text) {
            const qsizetype dot = text.indexOf(QLatin1Char('.'));
            return 0.5 * std::pow(10.0, -(dot < 0 ? 0 : static_cast<double>(text.size() - dot - 1)));
        };
        const double bound = halfUnit(lin.captured(2)) * ratio + halfUnit(lin.captured(4)) * smallMedian
                             + halfUnit(lin.captured(5)) + 1e-9;
        QVERIFY2(std::abs(predicted - smallMedian * ratio) <= bound,
                 qPrintable(QStringLiteral("%1 vs %2 × %3").arg(predicted).arg(smallMedian).arg(ratio)));
        // The percentage comes from the unrounded times: it lies between the values the printed
        // took and prediction give at the ends of their rounding, give or take its own half unit.
        const double took = lin.captured(6).toDouble();
        const double hTook = halfUnit(lin.captured(6)), hPredicted = halfUnit(lin.captured(5));
        const double offLow = (took - hTook - predicted - hPredicted) / (predicted + hPredicted) * 100;
        const double offHigh = (took + hTook - predicted + hPredicted) / (predicted - hPredicted) * 100;
        const double printed = lin.captured(7).toDouble() * (lin.captured(8) == "under" ? -1 : 1);
        QVERIFY2(offLow - 0.5 <= printed && printed <= offHigh + 0.5,
                 qPrintable(QStringLiteral("%1 not in %2..%3").arg(printed).arg(offLow).arg(offHigh)));
        if (offLow > 0 || offHigh < 0)
            QCOMPARE(lin.captured(8), QString(offHigh < 0 ? "under" : "over"));
    }

    void noLinearityUnderTheDefaultSize()
    {
        QTemporaryDir out;
        QVERIFY(out.isValid());
        const CliRun r = runBench({"--size-mb", "1.5", "--runs", "1", "--no-frames", "--out", out.path()});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY(r.out.contains("(a) npuscope full load"));
        QVERIFY(!r.out.contains("linearity"));
        // The session cache written and reopened, in a directory of the bench's own.
        QVERIFY2(r.out.contains("session cache: ") && r.out.contains(" MiB on disk") && r.out.contains("; reopen "),
                 qPrintable(r.out));
        QCOMPARE(QDir(out.path() + "/session-cache").entryList({"*.npsc"}, QDir::Files).size(), 1);
        // Named by the size asked for: a 1 MB or 2 MB profile would not be taken for it.
        QCOMPARE(QDir(out.path()).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name),
                 (QStringList{"session-cache", "torch_npu_compact_1.5mb_seed1", "torch_npu_real_1.5mb_seed1"}));
        // --no-compact: the real-shaped profile alone.
        QTemporaryDir alone;
        const CliRun n = runBench({"--size-mb", "1.5", "--runs", "1", "--no-frames", "--no-compact", "--out", alone.path()});
        QVERIFY2(n.code == 0, qPrintable(n.err));
        QVERIFY(!n.out.contains("compact"));
        QCOMPARE(QDir(alone.path()).entryList(QDir::Dirs | QDir::NoDotAndDotDot), (QStringList{"session-cache", "torch_npu_real_1.5mb_seed1"}));
    }

    void usageErrors()
    {
        QTemporaryDir out;
        QVERIFY(out.isValid());
        for (const QStringList& args : {QStringList{"--size-mb", "100", "--linear-mb", "50"},
                                        QStringList{"--linear-mb", "-1"}, QStringList{"--linear-mb"},
                                        QStringList{"--linear-mb", "nan"}}) {
            const CliRun r = runBench(QStringList{"--out", out.path()} + args);
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("--linear-mb"), qPrintable(r.err));
        }
        for (const char* size : {"0", "-3", "nan", "inf", "x"}) {
            const CliRun r = runBench({"--out", out.path(), "--size-mb", size});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("--size-mb must be positive"), qPrintable(r.err));
        }
        QVERIFY(QDir(out.path()).isEmpty()); // refused before generating anything
    }

    // `npuscope bench` starts npuscope-bench beside it; without it (an installed npuscope) it
    // says where the benchmarks come from instead of running any.
    void verbStartsTheBenchProgram()
    {
        QTemporaryDir out;
        QVERIFY(out.isValid());
        const CliRun direct = runBench({"--help"});
        QCOMPARE(direct.code, 0);
        QVERIFY2(direct.out.startsWith("Usage: npuscope-bench "), qPrintable(direct.out));
        const CliRun viaVerb = runCli({"bench", "--help"});
        QCOMPARE(viaVerb.code, 0);
        QCOMPARE(viaVerb.out, direct.out);
        const CliRun refused = runCli({"bench", "--out", out.path(), "--size-mb", "0"});
        QCOMPARE(refused.code, 2);
        QVERIFY2(refused.err.contains("npuscope-bench: --size-mb must be positive"), qPrintable(refused.err));

        const QString alone = out.path() + "/npuscope";
        QVERIFY(QFile::copy(QStringLiteral(NPUSCOPE_BINARY), alone));
        const CliRun help = runProgram(alone, {"bench", "--help"});
        QCOMPARE(help.code, 0);
        QVERIFY2(help.out.contains("separate program, npuscope-bench, built from bench/"), qPrintable(help.out));
        const CliRun run = runProgram(alone, {"bench", "--size-mb", "1", "--out", out.path()});
        QCOMPARE(run.code, 1);
        QVERIFY(run.out.isEmpty());
        QVERIFY2(run.err.contains("not installed by the package"), qPrintable(run.err));
        QCOMPARE(QDir(out.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList{"npuscope"});
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestCliBench)

} // namespace test_cli_bench

#include "test_cli_bench.moc"
