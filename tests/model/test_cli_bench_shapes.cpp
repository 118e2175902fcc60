// `npuscope-bench --shape` run as a process on small generated profiles: a row per shape whose
// slice and flow counts are the X and s events of the shape's own trace_view.json (read here
// with nlohmann), each a/b the quotient of its load and floor columns, and the worst shape the
// row of the largest a/b. No time is asserted.
#include "test_main.h"
#include "cli_run.h"

#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>

namespace test_cli_bench_shapes {

namespace fs = std::filesystem;

namespace {

struct Row {
    double load = 0, floor = 0, ratio = 0;
    qulonglong slices = 0, flows = 0;
};

std::pair<qulonglong, qulonglong> xAndFlowStarts(const fs::path& dir)
{
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.path().filename() == "trace_view.json") {
            std::ifstream in(e.path(), std::ios::binary);
            qulonglong x = 0, s = 0;
            for (const auto& ev : nlohmann::json::parse(in)) {
                x += ev.value("ph", "") == "X" ? 1 : 0;
                s += ev.value("ph", "") == "s" ? 1 : 0;
            }
            return {x, s};
        }
    return {0, 0};
}

} // namespace

class TestCliBenchShapes : public QObject {
    Q_OBJECT
private slots:
    void rowPerShapeAndTheWorst()
    {
        QTemporaryDir out;
        QVERIFY(out.isValid());
        const QStringList shapes{"ends-first", "process-ordered", "level1-dense"};
        QStringList args{"--size-mb", "2", "--runs", "1", "--no-frames", "--out", out.path()};
        for (const QString& s : shapes)
            args << "--shape" << s;
        const CliRun r = runProgram(benchBinary(), args);
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        // shape MB load floor a/b advise rules reopen slices flows
        const QRegularExpression rowRe(
            R"(^(\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)$)",
            QRegularExpression::MultilineOption);
        std::map<QString, Row> rows;
        for (auto it = rowRe.globalMatch(r.out); it.hasNext();) {
            const auto m = it.next();
            rows[m.captured(1)] = Row{m.captured(3).toDouble(), m.captured(4).toDouble(), m.captured(5).toDouble(),
                                      m.captured(9).toULongLong(), m.captured(10).toULongLong()};
        }
        QCOMPARE(rows.size(), std::size_t(3));
        QString worst;
        double worstRatio = 0;
        for (const QString& s : shapes) {
            QVERIFY2(rows.count(s), qPrintable(r.out));
            const Row& row = rows[s];
            const fs::path dir = fs::path(out.path().toStdString()) / ("torch_npu_" + s.toStdString() + "_2mb_seed1");
            const auto [x, flowStarts] = xAndFlowStarts(dir);
            QVERIFY(x > 1000);
            QCOMPARE(row.slices, x);
            QCOMPARE(row.flows, flowStarts);
            // the columns are rounded to 1 ms: a/b lies between the quotients of their bounds
            QVERIFY(row.floor > 0.0005);
            const double lo = (row.load - 0.0005) / (row.floor + 0.0005) - 0.005;
            const double hi = (row.load + 0.0005) / (row.floor - 0.0005) + 0.005;
            QVERIFY2(lo <= row.ratio && row.ratio <= hi, qPrintable(s + ": " + QString::number(row.ratio)));
            if (row.ratio > worstRatio) {
                worstRatio = row.ratio;
                worst = s;
            }
        }
        // the worst line names a row of the largest printed a/b
        const auto m = QRegularExpression(R"(worst shape by a/b: (\S+) \(([\d.]+);)").match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(r.out));
        QCOMPARE(m.captured(2).toDouble(), worstRatio);
        QCOMPARE(rows[m.captured(1)].ratio, worstRatio);
        QVERIFY(shapes.contains(m.captured(1)));
    }

    void unknownShapeIsAUsageError()
    {
        QTemporaryDir out;
        const CliRun r = runProgram(benchBinary(), {"--shape", "sorted", "--out", out.path()});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("unknown shape 'sorted'"), qPrintable(r.err));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestCliBenchShapes)

} // namespace test_cli_bench_shapes

#include "test_cli_bench_shapes.moc"
