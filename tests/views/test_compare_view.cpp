// File → Compare With… in the real MainWindow: the generator's llama2-baseline against
// llama2-optimized (2 steps each), loaded through the window's loaders. Every number the Compare
// tab shows is checked against one computed here from the generated files themselves:
// step_trace_time.csv for the step time and speedup, kernel_details.csv for the operators.
#include "test_main.h"
#include "advisor/advice_check.h"
#include "advisor/advisor_diff.h"
#include "model/analysis/compare_report.h"
#include "model/synth/synth.h"
#include "views/compare_export.h"
#include "views/compare_model.h"
#include "views/compare_view.h"
#include "views/compare_timelines.h"
#include "views/load_controller.h"
#include "views/main_window.h"
#include "views/selection_controller.h"
#include "views/timeline_view.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QLabel>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QHeaderView>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

namespace test_compare_view {

using namespace npuscope;

namespace {

QString findFile(const QString& dir, const QString& name)
{
    QDirIterator it(dir, {name}, QDir::Files, QDirIterator::Subdirectories);
    return it.hasNext() ? it.next() : QString();
}

// One CSV record (RFC 4180 quotes, no embedded newlines in these files).
QStringList splitCsv(const QString& line)
{
    QStringList out;
    QString cell;
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < line.size() && line[i + 1] == QLatin1Char('"')) {
                cell += c;
                ++i;
            } else if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                cell += c;
            }
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            out << cell;
            cell.clear();
        } else {
            cell += c;
        }
    }
    out << cell;
    return out;
}

struct Csv {
    QStringList header;
    QList<QStringList> rows;
    QString at(const QStringList& row, const QString& column) const
    {
        const qsizetype i = header.indexOf(column);
        return i >= 0 && i < row.size() ? row[i].trimmed() : QString();
    }
};

Csv readCsv(const QString& path)
{
    Csv csv;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text))
        return csv;
    bool first = true;
    while (!f.atEnd()) {
        QString line = QString::fromUtf8(f.readLine());
        while (line.endsWith(QLatin1Char('\n')) || line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        if (line.isEmpty())
            continue;
        if (first) {
            csv.header = splitCsv(line);
            first = false;
        } else {
            csv.rows << splitCsv(line);
        }
    }
    return csv;
}

// Step time T (ms): the median of Computing + Communication(Not Overlapped) + Free per step, in
// µs (the generated steps are complete).
double stepTimeMs(const QString& dir)
{
    const Csv csv = readCsv(findFile(dir, QStringLiteral("step_trace_time.csv")));
    std::vector<double> steps;
    for (const QStringList& r : csv.rows)
        steps.push_back(csv.at(r, QStringLiteral("Computing")).toDouble()
                        + csv.at(r, QStringLiteral("Communication(Not Overlapped)")).toDouble()
                        + csv.at(r, QStringLiteral("Free")).toDouble());
    if (steps.empty())
        return NAN;
    std::sort(steps.begin(), steps.end());
    const std::size_t n = steps.size();
    return (n % 2 ? steps[n / 2] : (steps[n / 2 - 1] + steps[n / 2]) / 2.0) / 1000.0;
}

// The number of rows of step_trace_time.csv: the steps of a generated run.
int stepCount(const QString& dir)
{
    return static_cast<int>(readCsv(findFile(dir, QStringLiteral("step_trace_time.csv"))).rows.size());
}

struct OpTotal {
    std::uint64_t count = 0;
    std::int64_t totalNs = 0;
};

// Compute operators by OP Type from kernel_details.csv (communication tasks, HCCL, are not
// operators of the diff: their exposed part is the headline's "Communication not overlapped").
std::map<QString, OpTotal> opTotals(const QString& dir)
{
    const Csv csv = readCsv(findFile(dir, QStringLiteral("kernel_details.csv")));
    std::map<QString, OpTotal> out;
    for (const QStringList& r : csv.rows) {
        if (csv.at(r, QStringLiteral("Accelerator Core")) == QLatin1String("HCCL"))
            continue;
        OpTotal& t = out[csv.at(r, QStringLiteral("Type"))];
        ++t.count;
        t.totalNs += std::llround(csv.at(r, QStringLiteral("Duration(us)")).toDouble() * 1000.0);
    }
    return out;
}

QString synthesize(const QString& dir, const char* scenario, int steps = 2)
{
    synth::SynthOptions o;
    o.scenario = scenario;
    o.steps = steps;
    const synth::SynthResult r = synth::synthesize(dir.toStdString(), o);
    return r.ok ? dir : QString();
}

// What the tab computes: the engine's comparison and the advisor diff of both sessions.
CompareResult engine(const Session& b, const Session& o, const CompareOptions& opts = {})
{
    CompareResult r = compareSessions(b, o, opts);
    const advisor::Thresholds th = advisor::Thresholds::load();
    // The tab checks the baseline's advice against the optimized run too (advisor/advice_check.h).
    advisor::compareAdvice(r, advisor::runAdvisor(b, th), advisor::runAdvisor(o, th), &b, &o, opts.groupBy);
    return r;
}

int headlineRow(CompareView* v, const char* metric)
{
    return v->headlineModel()->rowForMetric(QString::fromLatin1(metric));
}

QVariant headline(CompareView* v, const char* metric, int column, int role = CompareHeadlineModel::RawValueRole)
{
    return v->headlineModel()->index(headlineRow(v, metric), column).data(role);
}

} // namespace

class TestCompareView : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_base, m_opt, m_opt4;

    void openBaseline(MainWindow& w)
    {
        w.resize(1400, 900);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openPaths({m_base});
        QVERIFY(loaded.wait(60000));
    }

    // The window on the baseline, compared with the optimized run; null when either failed.
    CompareView* compared(MainWindow& w)
    {
        openBaseline(w);
        QSignalSpy ready(&w, &MainWindow::compareReady);
        w.compareWith(m_opt);
        return ready.wait(60000) ? w.compareView() : nullptr;
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_compare_view"));
        QVERIFY(m_tmp.isValid());
        m_base = synthesize(m_tmp.filePath(QStringLiteral("llama2-baseline")), "llama2-baseline");
        m_opt = synthesize(m_tmp.filePath(QStringLiteral("llama2-optimized")), "llama2-optimized");
        m_opt4 = synthesize(m_tmp.filePath(QStringLiteral("llama2-optimized-4")), "llama2-optimized", 4);
        QVERIFY(!m_base.isEmpty() && !m_opt.isEmpty() && !m_opt4.isEmpty());
    }

    // 2 baseline steps against 4 optimized ones: the operators are compared per step by default,
    // so MatMulV2, faster per step but with a larger total over twice the steps, is improved (in
    // text and colour); the "Whole run" box shows the totals, the verdicts stay.
    void perStepAcrossLengths()
    {
        MainWindow w;
        openBaseline(w);
        QSignalSpy ready(&w, &MainWindow::compareReady);
        w.compareWith(m_opt4);
        QVERIFY(ready.wait(60000));
        CompareView* v = w.compareView();
        QVERIFY(v);
        using M = OperatorDiffModel;
        OperatorDiffModel* ops = v->operatorModel();
        const auto b = opTotals(m_base), o = opTotals(m_opt4);
        QCOMPARE(stepCount(m_base), 2);
        QCOMPARE(stepCount(m_opt4), 4);
        const QString mm = QStringLiteral("MatMulV2");
        const double tb = static_cast<double>(b.at(mm).totalNs), to = static_cast<double>(o.at(mm).totalNs);
        QVERIFY2(to > tb * 1.01, "twice the steps: a larger total");
        QVERIFY2(to / 4 < tb / 2 * 0.99, "faster per step");
        const int row = ops->rowForKey(mm);
        QVERIFY(row >= 0);
        QCOMPARE(ops->headerData(M::BaselineTotal, Qt::Horizontal).toString(), QStringLiteral("Per step (base)"));
        QCOMPARE(ops->headerData(M::Delta, Qt::Horizontal).toString(), QStringLiteral("Δ per step"));
        QVERIFY(std::fabs(ops->index(row, M::BaselineTotal).data(M::RawValueRole).toDouble() - tb / 2) < 1.0);
        QVERIFY(std::fabs(ops->index(row, M::OptimizedTotal).data(M::RawValueRole).toDouble() - to / 4) < 1.0);
        QVERIFY(std::fabs(ops->index(row, M::Delta).data(M::RawValueRole).toDouble() - (to / 4 - tb / 2)) < 2.0);
        QCOMPARE(ops->index(row, M::BaselineCount).data().toString(),
                 QString::number(static_cast<double>(b.at(mm).count) / 2, 'f', 1));
        QVERIFY(ops->index(row, M::Delta).data().toString().startsWith(QStringLiteral("−")));
        QCOMPARE(ops->index(row, M::Verdict).data().toString(), QStringLiteral("improved"));
        QCOMPARE(ops->index(row, M::Delta).data(Qt::ForegroundRole).value<QColor>(), changeColour(Change::Improved));
        QCOMPARE(ops->index(row, M::Verdict).data(Qt::ForegroundRole).value<QColor>(), changeColour(Change::Improved));
        // The fused attention kernel replaced the baseline's chain: new, not a regression.
        const int fa = ops->rowForKey(QStringLiteral("FlashAttentionScore"));
        QVERIFY(fa >= 0);
        QCOMPARE(ops->index(fa, M::Verdict).data().toString(), QStringLiteral("new"));
        QCOMPARE(ops->index(fa, M::Delta).data(M::ChangeRole).toInt(), static_cast<int>(Change::Same));
        auto* steps = v->findChild<QLabel*>(QStringLiteral("compareOperatorSteps"));
        QVERIFY(steps);
        QVERIFY2(steps->text().contains(QStringLiteral("baseline 2 steps")) && steps->text().contains(QStringLiteral("optimized 4 steps")),
                 qPrintable(steps->text()));

        // The whole run, clicked: totals, sorted by |Δ total|, the verdict and colour per step.
        v->detailTabs()->setCurrentIndex(0);
        auto* whole = v->findChild<QCheckBox*>(QStringLiteral("compareWholeRun"));
        QVERIFY(whole && !whole->isChecked() && whole->isVisible());
        QSignalSpy recomputed(v, &CompareView::resultReady);
        QTest::mouseClick(whole, Qt::LeftButton, {}, QPoint(8, whole->height() / 2));
        QVERIFY(whole->isChecked());
        QCOMPARE(recomputed.count(), 0); // both kinds of times are in the result
        QCOMPARE(v->result().opTimes, OpTimes::WholeRun);
        QCOMPARE(ops->headerData(M::BaselineTotal, Qt::Horizontal).toString(), QStringLiteral("Total (base)"));
        QCOMPARE(ops->index(row, M::BaselineTotal).data(M::RawValueRole).toLongLong(), b.at(mm).totalNs);
        QCOMPARE(ops->index(row, M::OptimizedTotal).data(M::RawValueRole).toLongLong(), o.at(mm).totalNs);
        QVERIFY(ops->index(row, M::Delta).data().toString().startsWith(QStringLiteral("+")));
        QCOMPARE(ops->index(row, M::Verdict).data().toString(), QStringLiteral("improved"));
        QCOMPARE(ops->index(row, M::Delta).data(Qt::ForegroundRole).value<QColor>(), changeColour(Change::Improved));
        OperatorDiffProxy* proxy = v->operatorProxy();
        for (int r = 1; r < proxy->rowCount(); ++r)
            QVERIFY(std::fabs(proxy->index(r - 1, M::Delta).data(M::RawValueRole).toDouble())
                    >= std::fabs(proxy->index(r, M::Delta).data(M::RawValueRole).toDouble()));
        // The export follows the box: the Markdown's operators are the totals.
        const QString md = m_tmp.filePath(QStringLiteral("whole.md"));
        QString error;
        QVERIFY2(v->exportTo(md, QStringLiteral("markdown"), &error), qPrintable(error));
        QFile mdFile(md);
        QVERIFY(mdFile.open(QIODevice::ReadOnly));
        const QString mdText = QString::fromUtf8(mdFile.readAll());
        QVERIFY2(mdText.contains(QStringLiteral("Operator times over the whole run")), qPrintable(mdText.left(300)));

        QTest::mouseClick(whole, Qt::LeftButton, {}, QPoint(8, whole->height() / 2));
        QCOMPARE(v->result().opTimes, OpTimes::PerStep);
        QVERIFY(std::fabs(ops->index(row, M::BaselineTotal).data(M::RawValueRole).toDouble() - tb / 2) < 1.0);
        // JSON carries both, per step first, whatever the box says; verdicts per step.
        const QString jsonPath = m_tmp.filePath(QStringLiteral("per-step.json"));
        QVERIFY2(v->exportTo(jsonPath, QStringLiteral("json"), &error), qPrintable(error));
        QFile jsonFile(jsonPath);
        QVERIFY(jsonFile.open(QIODevice::ReadOnly));
        const QJsonObject json = QJsonDocument::fromJson(jsonFile.readAll()).object();
        QCOMPARE(json.value(QStringLiteral("operator_times")).toString(), QStringLiteral("per_step"));
        bool seen = false;
        for (const QJsonValue& op : json.value(QStringLiteral("operators")).toArray()) {
            const QJsonObject j = op.toObject();
            if (j.value(QStringLiteral("operator_name")).toString() != mm)
                continue;
            seen = true;
            QVERIFY(std::fabs(j.value(QStringLiteral("baseline_ms_per_step")).toDouble() - tb / 2 / 1e6) < 1e-6);
            QVERIFY(std::fabs(j.value(QStringLiteral("optimized_ms_per_step")).toDouble() - to / 4 / 1e6) < 1e-6);
            QVERIFY(std::fabs(j.value(QStringLiteral("baseline_ms")).toDouble() - tb / 1e6) < 1e-6);
            QCOMPARE(j.value(QStringLiteral("verdict")).toString(), QStringLiteral("improved"));
        }
        QVERIFY(seen);
    }

    void compareTabMatchesTheFiles()
    {
        MainWindow w;
        QAction* action = w.findChild<QAction*>(QStringLiteral("actionCompare"));
        QVERIFY(action);
        QVERIFY(!action->isEnabled()); // nothing to compare against yet
        openBaseline(w);
        QVERIFY(action->isEnabled());
        const SessionPtr before = w.session();

        QSignalSpy ready(&w, &MainWindow::compareReady);
        w.compareWith(m_opt);
        QVERIFY(ready.wait(60000));
        QCOMPARE(w.session(), before); // the baseline stays the open session

        CompareView* v = w.compareView();
        QVERIFY(v);
        QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(v));
        QCOMPARE(w.tabs()->tabText(w.tabs()->currentIndex()), QStringLiteral("Compare"));
        QCOMPARE(v->baselinePath(), m_base);
        QCOMPARE(v->optimizedPath(), m_opt);
        QAbstractItemModelTester t1(v->headlineModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(v->operatorProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        // Headline: step times and the speedup, from step_trace_time.csv.
        const double baseMs = stepTimeMs(m_base), optMs = stepTimeMs(m_opt);
        const double speedup = baseMs / optMs;
        QVERIFY2(speedup > 2.7 && speedup < 3.1, qPrintable(QString::number(speedup))); // the scenario's ≈ 2.9×
        using H = CompareHeadlineModel;
        QVERIFY(headlineRow(v, "Step time") >= 0 && headlineRow(v, "Throughput") >= 0);
        // Within the nanosecond the median of an even count is rounded to.
        QVERIFY(std::fabs(headline(v, "Step time", H::Baseline).toDouble() - baseMs) < 2e-6);
        QVERIFY(std::fabs(headline(v, "Step time", H::Optimized).toDouble() - optMs) < 2e-6);
        QVERIFY(std::fabs(headline(v, "Step time", H::Ratio).toDouble() - optMs / baseMs) < 1e-7);
        QVERIFY(std::fabs(headline(v, "Step time", H::Delta).toDouble() - (optMs - baseMs)) < 4e-6);
        QVERIFY(std::fabs(headline(v, "Throughput", H::Ratio).toDouble() - speedup) < 1e-6); // the speedup row
        QVERIFY(std::fabs(v->result().speedup - speedup) < 1e-6);
        QCOMPARE(headline(v, "Throughput", H::Ratio, Qt::DisplayRole).toString(),
                 QString::number(v->result().speedup, 'f', 3) + QStringLiteral("×"));
        const QString header = v->headerText();
        QVERIFY2(header.contains(QStringLiteral("Speedup ") + QString::number(speedup, 'f', 2) + QStringLiteral("×")), qPrintable(header));
        QVERIFY2(header.contains(m_base) && header.contains(m_opt), qPrintable(header));

        // Direction of "better" in text and colour.
        QCOMPARE(headline(v, "Step time", H::Better, Qt::DisplayRole).toString(), QStringLiteral("lower is better"));
        QCOMPARE(headline(v, "Throughput", H::Better, Qt::DisplayRole).toString(), QStringLiteral("higher is better"));
        QCOMPARE(headline(v, "Step time", H::Verdict, Qt::DisplayRole).toString(), QStringLiteral("improved"));
        QCOMPARE(headline(v, "Step time", H::Verdict, Qt::ForegroundRole).value<QColor>(), changeColour(Change::Improved));
        QCOMPARE(headline(v, "Throughput", H::Verdict, Qt::ForegroundRole).value<QColor>(), changeColour(Change::Improved));
        QVERIFY(changeColour(Change::Improved) != changeColour(Change::Regressed));

        // Operators: counts and totals from kernel_details.csv, matched by OP Type; shown per step,
        // the totals over the steps of each run (every generated kernel runs inside a step).
        const auto b = opTotals(m_base), o = opTotals(m_opt);
        const double stepsB = stepCount(m_base), stepsO = stepCount(m_opt);
        QCOMPARE(stepsB, 2.0);
        std::set<QString> keys;
        for (const auto& [k, _] : b)
            keys.insert(k);
        for (const auto& [k, _] : o)
            keys.insert(k);
        OperatorDiffModel* ops = v->operatorModel();
        QCOMPARE(ops->rowCount(), static_cast<int>(keys.size()));
        using M = OperatorDiffModel;
        int oneSide = 0;
        for (const QString& k : keys) {
            const int row = ops->rowForKey(k);
            QVERIFY2(row >= 0, qPrintable(k));
            const OpDiffRow& d = ops->rowAt(row);
            const bool inB = b.count(k) > 0, inO = o.count(k) > 0;
            QCOMPARE(d.inBaseline, inB);
            QCOMPARE(d.inCurrent, inO);
            const OpTotal tb = inB ? b.at(k) : OpTotal{}, to = inO ? o.at(k) : OpTotal{};
            QCOMPARE(d.baselineCount, tb.count);
            QCOMPARE(d.currentCount, to.count);
            QCOMPARE(d.baselineTotal, tb.totalNs);
            QCOMPARE(d.currentTotal, to.totalNs);
            QCOMPARE(d.delta, to.totalNs - tb.totalNs);
            const double pb = static_cast<double>(tb.totalNs) / stepsB, po = static_cast<double>(to.totalNs) / stepsO;
            QVERIFY2(std::fabs(ops->index(row, M::BaselineTotal).data(M::RawValueRole).toDouble() - pb) < 1.0, qPrintable(k));
            QVERIFY2(std::fabs(ops->index(row, M::OptimizedTotal).data(M::RawValueRole).toDouble() - po) < 1.0, qPrintable(k));
            const QString presence = ops->index(row, M::Present).data().toString();
            QCOMPARE(presence, inB && inO ? QStringLiteral("both") : inB ? QStringLiteral("baseline only") : QStringLiteral("optimized only"));
            if (!inB)
                QCOMPARE(ops->index(row, M::BaselineCount).data().toString(), QStringLiteral("—"));
            // A ratio only where both sides ran the operator (0 / t would read "0.000×").
            if (inB != inO)
                QCOMPARE(ops->index(row, M::Ratio).data().toString(), QStringLiteral("—"));
            else
                QVERIFY(ops->index(row, M::Ratio).data().toString().endsWith(QStringLiteral("×")));
            // Improved / regressed / same (a change under 1 % of the larger time per step), as the
            // headline; new for the fused kernels that replaced baseline operators.
            const double dt = po - pb;
            const Change want = d.replacement || std::fabs(dt) <= 0.01 * std::max(pb, po)
                                    ? Change::Same
                                    : (dt < 0 ? Change::Improved : Change::Regressed);
            QCOMPARE(ops->index(row, M::Delta).data(M::ChangeRole).toInt(), static_cast<int>(want));
            QCOMPARE(ops->index(row, M::Verdict).data().toString(),
                     d.replacement ? QStringLiteral("new") : want == Change::Same ? QStringLiteral("same")
                                   : want == Change::Improved ? QStringLiteral("improved") : QStringLiteral("regressed"));
            oneSide += inB != inO;
        }
        // The scenario's fusions: LayerNorm and Cast disappear, FlashAttentionScore and AddRmsNorm appear.
        QCOMPARE(ops->rowAt(ops->rowForKey(QStringLiteral("LayerNorm"))).inCurrent, false);
        QCOMPARE(ops->rowAt(ops->rowForKey(QStringLiteral("FlashAttentionScore"))).inBaseline, false);
        const OpDiffRow& mm = ops->rowAt(ops->rowForKey(QStringLiteral("MatMulV2")));
        QCOMPARE(mm.baselineCount, b.at(QStringLiteral("MatMulV2")).count);
        QVERIFY(std::fabs(mm.ratio - static_cast<double>(o.at(QStringLiteral("MatMulV2")).totalNs)
                                         / static_cast<double>(b.at(QStringLiteral("MatMulV2")).totalNs)) < 1e-12);
        QVERIFY(std::fabs(mm.baselineAvgNs - static_cast<double>(b.at(QStringLiteral("MatMulV2")).totalNs)
                                                 / static_cast<double>(b.at(QStringLiteral("MatMulV2")).count)) < 1e-6);

        // Shown sorted by |Δ total|, the largest first: MatMulV2 by the files' numbers.
        OperatorDiffProxy* proxy = v->operatorProxy();
        QString largest;
        std::int64_t largestAbs = -1;
        for (const QString& k : keys) {
            const std::int64_t d = (o.count(k) ? o.at(k).totalNs : 0) - (b.count(k) ? b.at(k).totalNs : 0);
            if (std::abs(d) > largestAbs) {
                largestAbs = std::abs(d);
                largest = k;
            }
        }
        QCOMPARE(proxy->index(0, M::Name).data(M::KeyRole).toString(), largest);
        QCOMPARE(largest, QStringLiteral("MatMulV2"));
        for (int r = 1; r < proxy->rowCount(); ++r) {
            const double prev = std::fabs(proxy->index(r - 1, M::Delta).data(M::RawValueRole).toDouble());
            const double cur = std::fabs(proxy->index(r, M::Delta).data(M::RawValueRole).toDouble());
            QVERIFY2(prev >= cur, qPrintable(QStringLiteral("row %1").arg(r)));
        }

        // Filters: one side only, then by name.
        proxy->setShow(OperatorDiffProxy::Show::OneSideOnly);
        QCOMPARE(proxy->rowCount(), oneSide);
        proxy->setShow(OperatorDiffProxy::Show::All);
        v->setFilterText(QStringLiteral("matmul"));
        int matmuls = 0;
        for (const QString& k : keys)
            matmuls += k.contains(QStringLiteral("MatMul"), Qt::CaseInsensitive);
        QCOMPARE(proxy->rowCount(), matmuls);
        v->setFilterText({});
        QCOMPARE(proxy->rowCount(), static_cast<int>(keys.size()));

        // Export: what `npuscope compare --format F` prints, written to the file.
        const QString csvPath = m_tmp.filePath(QStringLiteral("compare.csv"));
        QString error;
        QVERIFY2(v->exportTo(csvPath, QStringLiteral("csv"), &error), qPrintable(error));
        QFile csvFile(csvPath);
        QVERIFY(csvFile.open(QIODevice::ReadOnly));
        QCOMPARE(csvFile.readAll(),
                 QByteArray::fromStdString(formatCompareReport(v->result(), m_base.toStdString(), m_opt.toStdString(), "csv")));
        const QString jsonPath = m_tmp.filePath(QStringLiteral("compare.json"));
        QVERIFY2(v->exportTo(jsonPath, QStringLiteral("json"), &error), qPrintable(error));
        QFile jsonFile(jsonPath);
        QVERIFY(jsonFile.open(QIODevice::ReadOnly));
        const QJsonObject json = QJsonDocument::fromJson(jsonFile.readAll()).object();
        QVERIFY(std::fabs(json.value(QStringLiteral("speedup")).toDouble() - speedup) < 0.0005);
        QCOMPARE(json.value(QStringLiteral("optimized")).toString(), m_opt);
        QVERIFY(!v->exportTo(m_tmp.filePath(QStringLiteral("no-such-dir/compare.md")), QStringLiteral("markdown"), &error));
        QVERIFY2(error.contains(QStringLiteral("no-such-dir")), qPrintable(error));

        // A wider noise band, typed in: operators whose total changed by less than 50 % of the
        // larger one are the same; the step time (down by two thirds) is still improved.
        auto* band = v->findChild<QDoubleSpinBox*>(QStringLiteral("compareSameWithin"));
        QVERIFY(band);
        QCOMPARE(band->value(), 1.0);
        {
            QSignalSpy banded(v, &CompareView::resultReady);
            band->setFocus();
            band->selectAll();
            QTest::keyClicks(band, QStringLiteral("50"));
            QTest::keyClick(band, Qt::Key_Return);
            QVERIFY(banded.wait(60000));
            QCOMPARE(banded.count(), 1);
        }
        QCOMPARE(v->result().sameWithin, 0.50);
        QCOMPARE(headline(v, "Step time", H::Verdict, Qt::DisplayRole).toString(), QStringLiteral("improved"));
        int sameWide = 0;
        for (const QString& k : keys) {
            const std::int64_t tb = b.count(k) ? b.at(k).totalNs : 0, to = o.count(k) ? o.at(k).totalNs : 0;
            const double dt = static_cast<double>(to - tb), larger = static_cast<double>(std::max(tb, to));
            const bool fused = ops->rowAt(ops->rowForKey(k)).replacement; // "new", uncoloured
            const Change want = fused || std::fabs(dt) <= 0.50 * larger ? Change::Same : (dt < 0 ? Change::Improved : Change::Regressed);
            QCOMPARE(ops->index(ops->rowForKey(k), M::Delta).data(M::ChangeRole).toInt(), static_cast<int>(want));
            sameWide += want == Change::Same && !fused;
        }
        QVERIFY(sameWide > 0);
        QVERIFY2(v->exportTo(jsonPath, QStringLiteral("json"), &error), qPrintable(error));
        QFile bandedJson(jsonPath);
        QVERIFY(bandedJson.open(QIODevice::ReadOnly));
        QCOMPARE(QJsonDocument::fromJson(bandedJson.readAll()).object().value(QStringLiteral("same_within_pct")).toDouble(), 50.0);
        {
            QSignalSpy back(v, &CompareView::resultReady);
            v->setSameWithinPercent(1.0);
            QVERIFY(back.wait(60000));
        }
        QCOMPARE(band->value(), 1.0);

        // Swap: the other way round, the ratio inverts and presence flips.
        auto* swap = v->findChild<QPushButton*>(QStringLiteral("compareSwap"));
        QVERIFY(swap);
        QSignalSpy recomputed(v, &CompareView::resultReady);
        swap->click();
        QVERIFY(recomputed.wait(60000)); // Swap recomputes on the worker thread too
        QCOMPARE(ready.count(), 1);      // ...and is no new comparison of the window
        QCOMPARE(v->baselinePath(), m_opt);
        QVERIFY(std::fabs(v->result().speedup - 1.0 / speedup) < 1e-6);
        QCOMPARE(headline(v, "Step time", H::Verdict, Qt::DisplayRole).toString(), QStringLiteral("regressed"));
        QCOMPARE(headline(v, "Step time", H::Verdict, Qt::ForegroundRole).value<QColor>(), changeColour(Change::Regressed));
        QCOMPARE(ops->rowAt(ops->rowForKey(QStringLiteral("LayerNorm"))).inBaseline, false);
        QVERIFY2(v->headerText().contains(QStringLiteral("Slowdown")), qPrintable(v->headerText()));

        // A second comparison replaces the tab's content, never adds a tab.
        const int tabs = w.tabs()->count();
        w.compareWith(m_opt);
        QVERIFY(ready.wait(60000));
        QCOMPARE(w.tabs()->count(), tabs);
        QCOMPARE(w.compareView(), v);
        QCOMPARE(v->baselinePath(), m_base);
    }

    // The mapping and advisor tabs: the fused chains as replacements, the findings as fixed,
    // remaining or new, equal to the engine's; the tab exports HTML and PDF with them.
    void mappingAndAdvisorTabs()
    {
        MainWindow w;
        CompareView* v = compared(w);
        QVERIFY(v);
        QAbstractItemModelTester t1(v->mappingModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(v->advisorModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const CompareResult want = engine(*v->baselineSession(), *v->optimizedSession());

        // Click the mapping tab: the table lists the engine's rows, replacements first.
        QTabWidget* tabs = v->detailTabs();
        QTabBar* bar = tabs->tabBar();
        QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(1).center());
        QCOMPARE(tabs->currentIndex(), 1);
        QVERIFY(v->mappingTable()->isVisible());
        OperatorMappingModel* map = v->mappingModel();
        QCOMPARE(map->rowCount(), static_cast<int>(want.mapping.rows.size()));
        int flash = -1;
        for (int r = 0; r < map->rowCount(); ++r)
            if (map->index(r, OperatorMappingModel::Optimized).data().toString() == QStringLiteral("FlashAttentionScore"))
                flash = r;
        QVERIFY(flash >= 0);
        QCOMPARE(map->index(flash, OperatorMappingModel::Kind).data().toString(), QStringLiteral("replaced"));
        QCOMPARE(map->index(flash, OperatorMappingModel::Baseline).data().toString(),
                 QStringLiteral("BatchMatMul→SoftmaxV2→BatchMatMul"));
        QCOMPARE(map->index(flash, OperatorMappingModel::PerStep).data().toString(), QStringLiteral("32"));
        QCOMPARE(map->index(flash, OperatorMappingModel::Verdict).data(OperatorMappingModel::ChangeRole).toInt(),
                 static_cast<int>(Change::Improved));
        QVERIFY(tabs->tabText(1).contains(QStringLiteral("3 replaced")));
        // Sorting by |Δ| through the header puts the largest change first.
        QHeaderView* header = v->mappingTable()->horizontalHeader();
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                          QPoint(header->sectionViewportPosition(OperatorMappingModel::Delta) + 5, 5));
        QAbstractItemModel* shown = v->mappingTable()->model();
        double prev = -1;
        for (int r = 0; r < shown->rowCount(); ++r) {
            const double d = shown->index(r, OperatorMappingModel::Delta).data(OperatorMappingModel::SortRole).toDouble();
            if (prev >= 0)
                QVERIFY(header->sortIndicatorOrder() == Qt::AscendingOrder ? d >= prev : d <= prev);
            prev = d;
        }

        // The advisor tab: the engine's diff, row for row.
        QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(2).center());
        QCOMPARE(tabs->currentIndex(), 2);
        AdvisorDiffModel* adv = v->advisorModel();
        QCOMPARE(adv->rowCount(), static_cast<int>(want.advisor.size()));
        int fixed = 0;
        for (int r = 0; r < adv->rowCount(); ++r) {
            QCOMPARE(adv->rowAt(r).id, want.advisor[static_cast<std::size_t>(r)].id);
            QCOMPARE(adv->rowAt(r).costBefore, want.advisor[static_cast<std::size_t>(r)].costBefore);
            fixed += adv->index(r, AdvisorDiffModel::State).data().toString() == QStringLiteral("fixed");
        }
        QVERIFY(fixed > 0);
        QVERIFY(tabs->tabText(2).contains(QStringLiteral("%1 fixed").arg(fixed)));
        // The header says the verdict with its interval.
        QVERIFY2(v->headerText().contains(QStringLiteral("Optimized is faster by")), qPrintable(v->headerText()));
        QVERIFY2(v->headerText().contains(QStringLiteral("2 vs 2 steps")), qPrintable(v->headerText()));

        // Exports: HTML with the chart and the mapping, PDF.
        QString error;
        const QString html = m_tmp.filePath(QStringLiteral("tab.html")), pdf = m_tmp.filePath(QStringLiteral("tab.pdf"));
        QVERIFY2(v->exportTo(html, QStringLiteral("html"), &error), qPrintable(error));
        QFile hf(html);
        QVERIFY(hf.open(QIODevice::ReadOnly));
        const QString page = QString::fromUtf8(hf.readAll());
        QVERIFY(page.contains(QStringLiteral("data:image/png;base64,")));
        QVERIFY(page.contains(QStringLiteral("BatchMatMul→SoftmaxV2→BatchMatMul")));
        QVERIFY(page.contains(QString::fromStdString(want.advisor.front().id)));
        QVERIFY2(v->exportTo(pdf, QStringLiteral("pdf"), &error), qPrintable(error));
        QFile pf(pdf);
        QVERIFY(pf.open(QIODevice::ReadOnly));
        QCOMPARE(pf.read(5), QByteArray("%PDF-"));
        QVERIFY(!v->exportTo(m_tmp.filePath(QStringLiteral("no-such-dir/c.pdf")), QStringLiteral("pdf"), &error));
        QVERIFY2(error.contains(QStringLiteral("no-such-dir")), qPrintable(error));
        // The chart: one pair of bars per step, 2 steps.
        const QImage chart = renderCompareChart(v->result());
        QVERIFY(!chart.isNull() && chart.width() == 900);
    }

    // The Timelines page: the baseline over the optimized run, aligned on the median step of each,
    // with zoom, pan and range selection mirrored, and the diff lane's numbers from the files.
    void sideBySideTimelines()
    {
        MainWindow w;
        CompareView* v = compared(w);
        QVERIFY(v);
        CompareTimelines* tl = v->timelines();
        QVERIFY(tl);
        for (int i = 0; i < v->detailTabs()->count(); ++i)
            if (v->detailTabs()->tabText(i) == QStringLiteral("Timelines"))
                v->detailTabs()->setCurrentIndex(i);
        QCOMPARE(v->detailTabs()->currentWidget(), static_cast<QWidget*>(tl));
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QApplication::processEvents();

        // Steps: ProfilerStep#N of each run, their lengths as step_trace_time.csv gives the step
        // (Computing + Communication(Not Overlapped) + Free), the anchors their median.
        const CompareResult& r = v->result();
        for (const auto& [dir, spans] : {std::pair{m_base, &r.baselineSpans}, std::pair{m_opt, &r.currentSpans}}) {
            const Csv csv = readCsv(findFile(dir, QStringLiteral("step_trace_time.csv")));
            QCOMPARE(spans->size(), static_cast<std::size_t>(csv.rows.size()));
            for (std::size_t i = 0; i < spans->size(); ++i) {
                const StepSpan& s = (*spans)[i];
                const QStringList& row = csv.rows[static_cast<qsizetype>(i)];
                QCOMPARE(QString::fromStdString(s.step), QStringLiteral("ProfilerStep#") + csv.at(row, QStringLiteral("Step")));
                const double us = csv.at(row, QStringLiteral("Computing")).toDouble()
                                  + csv.at(row, QStringLiteral("Communication(Not Overlapped)")).toDouble()
                                  + csv.at(row, QStringLiteral("Free")).toDouble();
                QVERIFY2(std::fabs(static_cast<double>(s.duration()) / 1e3 - us) < 0.01 * us,
                         qPrintable(QStringLiteral("%1: %2 µs vs %3 µs").arg(QString::fromStdString(s.step)).arg(s.duration() / 1e3).arg(us)));
                QCOMPARE(s.computing + s.commNotOverlapped + s.free, s.duration());
                const double computingUs = csv.at(row, QStringLiteral("Computing")).toDouble();
                QVERIFY(std::fabs(static_cast<double>(s.computing) / 1e3 - computingUs) < 0.01 * computingUs);
            }
        }
        // Operator types: summed over the steps, each type's device time is kernel_details.csv's.
        for (const auto& [dir, spans] : {std::pair{m_base, &r.baselineSpans}, std::pair{m_opt, &r.currentSpans}}) {
            std::map<QString, std::int64_t> perType;
            for (const StepSpan& s : *spans)
                for (const auto& [type, t] : s.opTypes)
                    perType[QString::fromStdString(type)] += t;
            const auto files = opTotals(dir);
            QCOMPARE(perType.size(), files.size());
            for (const auto& [type, total] : files)
                QVERIFY2(std::llabs(perType[type] - total.totalNs) <= 1, qPrintable(type));
        }
        auto median = [](const std::vector<StepSpan>& s) {
            std::vector<std::pair<TimeNs, int>> d;
            for (std::size_t i = 0; i < s.size(); ++i)
                d.push_back({s[i].duration(), static_cast<int>(i)});
            std::sort(d.begin(), d.end());
            return d[(d.size() - 1) / 2].second;
        };
        QCOMPARE(tl->baselineAnchor(), median(r.baselineSpans));
        QCOMPARE(tl->optimizedAnchor(), median(r.currentSpans));
        const StepSpan& a = r.baselineSpans[static_cast<std::size_t>(tl->baselineAnchor())];
        const StepSpan& b = r.currentSpans[static_cast<std::size_t>(tl->optimizedAnchor())];
        QCOMPARE(tl->shift(), b.begin - a.begin);
        QVERIFY(tl->pairSummary().contains(QStringLiteral("MatMulV2")));

        // Both open on the aligned steps, the same relative window, the ruler counting from them.
        SelectionController* sa = tl->baselineSelection();
        SelectionController* sb = tl->optimizedSelection();
        auto sameWindow = [&] {
            const TimeRange ra = sa->visibleRange(), rb = sb->visibleRange();
            return ra.begin + tl->shift() == rb.begin && ra.end + tl->shift() == rb.end;
        };
        QVERIFY(sa->visibleRange().begin < a.begin && sa->visibleRange().end >= a.begin + std::max(a.duration(), b.duration()));
        QVERIFY(sameWindow());
        QCOMPARE(sa->timeOrigin(), a.begin);
        QCOMPARE(sb->timeOrigin(), b.begin);

        // W in the baseline zooms both; D in the optimized pans both; Backspace undoes.
        const TimeNs before = sa->visibleRange().end - sa->visibleRange().begin;
        tl->baselineTimeline()->setFocus();
        QTest::keyClick(tl->baselineTimeline(), Qt::Key_W);
        QVERIFY(sa->visibleRange().end - sa->visibleRange().begin < before);
        QVERIFY(sameWindow());
        const TimeNs beginA = sa->visibleRange().begin;
        QTest::keyClick(tl->optimizedTimeline(), Qt::Key_D);
        QVERIFY(sa->visibleRange().begin > beginA);
        QVERIFY(sameWindow());

        // A range dragged on the baseline's ruler selects the same relative range below.
        TimelineView* va = tl->baselineTimeline();
        const QRect cr = va->contentRect();
        const QPoint p0(cr.left() + cr.width() / 4, TimelineView::kRulerHeight / 2);
        const QPoint p1(cr.left() + cr.width() / 2, TimelineView::kRulerHeight / 2);
        QTest::mousePress(va->viewport(), Qt::LeftButton, {}, p0);
        QTest::mouseMove(va->viewport(), p1);
        QTest::mouseRelease(va->viewport(), Qt::LeftButton, {}, p1);
        QVERIFY(sa->selectedRange().has_value());
        QVERIFY(sb->selectedRange().has_value());
        QCOMPARE(sb->selectedRange()->begin, sa->selectedRange()->begin + tl->shift());
        QCOMPARE(sb->selectedRange()->end, sa->selectedRange()->end + tl->shift());
        // Esc in the optimized clears both.
        QTest::keyClick(tl->optimizedTimeline(), Qt::Key_Escape);
        QVERIFY(!sa->selectedRange() && !sb->selectedRange());

        // Another optimized step: the anchors, the shift and the pairs follow, and the window is
        // on the new steps.
        QComboBox* stepB = tl->optimizedStepBox();
        QCOMPARE(stepB->count(), static_cast<int>(r.currentSpans.size()));
        const int other = (tl->optimizedAnchor() + 1) % stepB->count();
        stepB->setCurrentIndex(other);
        emit stepB->activated(other);
        QCOMPARE(tl->optimizedAnchor(), other);
        const StepSpan& b2 = r.currentSpans[static_cast<std::size_t>(other)];
        QCOMPARE(tl->shift(), b2.begin - a.begin);
        QVERIFY(sameWindow());
        QCOMPARE(sb->timeOrigin(), b2.begin);
        for (const StepPair& p : tl->pairs())
            QCOMPARE(p.optimized - p.baseline, other - tl->baselineAnchor());
        for (const StepPair& p : tl->pairs()) {
            const StepSpan& x = r.baselineSpans[static_cast<std::size_t>(p.baseline)];
            const StepSpan& y = r.currentSpans[static_cast<std::size_t>(p.optimized)];
            QCOMPARE(p.stepDelta, y.duration() - x.duration());
            QCOMPARE(p.computingDelta + p.commDelta + p.freeDelta, p.stepDelta);
        }

        // A click on a step in the diff lane selects it in the baseline and its pair below.
        QWidget* lane = tl->diffLane();
        QApplication::processEvents();
        const TimeNs mid = a.begin + a.duration() / 2;
        const QPoint inLane = lane->mapFromGlobal(va->viewport()->mapToGlobal(QPoint(static_cast<int>(va->xOf(mid)), 0)));
        QTest::mouseClick(lane, Qt::LeftButton, {}, QPoint(inLane.x(), 10));
        QVERIFY(sa->selectedRange().has_value());
        QCOMPARE(sa->selectedRange()->begin, a.begin);
        QCOMPARE(sa->selectedRange()->end, a.end);
        QCOMPARE(sb->selectedRange()->begin, a.begin + tl->shift());

        // The engine's report carries the pairs (JSON "step_pairs").
        const std::string json = formatCompareReport(r, "b", "o", "json");
        QVERIFY(json.find("\"step_pairs\"") != std::string::npos);
        QVERIFY(json.find("\"" + a.step + "\"") != std::string::npos);
    }

    // The comparison runs on a worker thread: when the second profile has loaded, the window
    // returns to its event loop at once and the result follows; it equals the engine's.
    void comparisonRunsOffTheGuiThread()
    {
        MainWindow w;
        openBaseline(w);
        bool busyAfterLoad = false, readyBeforeResult = true, tabBeforeResult = true;
        QSignalSpy ready(&w, &MainWindow::compareReady);
        // Connected after the window's own handler: runs right after the comparison started.
        connect(w.compareLoader(), &LoadController::finished, this, [&] {
            busyAfterLoad = w.compareView() && w.compareView()->busy();
            readyBeforeResult = ready.count() > 0;
            tabBeforeResult = w.compareView() && w.tabs()->indexOf(w.compareView()) >= 0;
        });
        w.compareWith(m_opt);
        QVERIFY(ready.wait(60000));
        QVERIFY(busyAfterLoad);      // computing while the GUI thread went on
        QVERIFY(!readyBeforeResult);
        QVERIFY(!tabBeforeResult);   // the tab appears with its numbers
        CompareView* v = w.compareView();
        QVERIFY(!v->busy());
        QCOMPARE(v->baselineSession(), w.session());
        QVERIFY(v->optimizedSession());

        // Identical to the engine run here, on this thread, for both groupings.
        auto report = [](const CompareResult& r) { return formatCompareReport(r, "b", "o", "json"); };
        QCOMPARE(report(v->result()), report(engine(*v->baselineSession(), *v->optimizedSession())));
        QVERIFY(!v->result().ops.empty());
        QSignalSpy computed(v, &CompareView::resultReady);
        v->setGroupBy(GroupBy::Name);
        QVERIFY(v->busy());
        QVERIFY(computed.wait(60000));
        CompareOptions byName;
        byName.groupBy = GroupBy::Name;
        QCOMPARE(report(v->result()), report(engine(*v->baselineSession(), *v->optimizedSession(), byName)));
        QCOMPARE(v->operatorModel()->rowCount(), static_cast<int>(v->result().ops.size()));
    }

    // Cancel in the status bar stops a comparison that is being computed: no tab, no result,
    // and a running recomputation of an existing tab leaves its shown result as it was.
    void cancelWhileComputing()
    {
        MainWindow w;
        openBaseline(w);
        auto* cancel = w.findChild<QPushButton*>(QStringLiteral("loadCancel"));
        QVERIFY(cancel);
        QSignalSpy ready(&w, &MainWindow::compareReady);
        bool cancelVisible = false;
        auto conn = connect(w.compareLoader(), &LoadController::finished, this, [&] {
            cancelVisible = cancel->isVisible();
            QVERIFY(w.compareView() && w.compareView()->busy());
            cancel->click();
        });
        w.compareWith(m_opt);
        QTRY_VERIFY_WITH_TIMEOUT(!w.compareLoader()->busy(), 60000);
        QVERIFY(QThreadPool::globalInstance()->waitForDone(60000));
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
        QVERIFY(cancelVisible);
        QCOMPARE(ready.count(), 0);
        QVERIFY(!w.compareView()->busy());
        QCOMPARE(w.tabs()->indexOf(w.compareView()), -1);
        QVERIFY(w.compareView()->result().headline.empty());
        QVERIFY(!cancel->isVisible());
        disconnect(conn);

        // The next comparison works and shows its tab.
        w.compareWith(m_opt);
        QVERIFY(ready.wait(60000));
        CompareView* v = w.compareView();
        QVERIFY(w.tabs()->indexOf(v) >= 0);
        const std::string shown = formatCompareReport(v->result(), "b", "o", "json");

        // The comparison the other way round (Swap), cancelled while computing: the tab keeps
        // the numbers, profiles and paths it showed.
        QSignalSpy cancelled(v, &CompareView::computationCancelled);
        QSignalSpy recomputed(v, &CompareView::resultReady);
        v->findChild<QPushButton*>(QStringLiteral("compareSwap"))->click();
        QVERIFY(v->busy());
        v->cancel();
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(QThreadPool::globalInstance()->waitForDone(60000));
        QCoreApplication::processEvents();
        QCOMPARE(recomputed.count(), 0);
        QCOMPARE(ready.count(), 1);
        QCOMPARE(v->baselinePath(), m_base);
        QCOMPARE(v->optimizedPath(), m_opt);
        QCOMPARE(formatCompareReport(v->result(), "b", "o", "json"), shown);
        QVERIFY(!v->busy());
    }

    void failedCompareLeavesWindowUsable()
    {
        MainWindow w;
        openBaseline(w);
        const SessionPtr before = w.session();
        const QString missing = m_tmp.filePath(QStringLiteral("does-not-exist"));
        QSignalSpy failed(&w, &MainWindow::compareFailed);
        w.compareWith(missing);
        QVERIFY(failed.wait(60000));
        const QString msg = failed.takeFirst().at(0).toString();
        QVERIFY2(msg.contains(missing), qPrintable(msg));
        auto* box = w.findChild<QMessageBox*>(QStringLiteral("compareError"));
        QVERIFY(box);
        QVERIFY(box->isVisible());
        QVERIFY2(box->text().contains(missing), qPrintable(box->text()));
        QVERIFY(!w.compareView()); // no tab for a failed comparison
        QCOMPARE(w.session(), before);
        QVERIFY(!w.compareLoader()->busy());
        QVERIFY(w.findChild<QAction*>(QStringLiteral("actionCompare"))->isEnabled());
        box->close();

        // Still usable: the next comparison works.
        QSignalSpy ready(&w, &MainWindow::compareReady);
        w.compareWith(m_opt);
        QVERIFY(ready.wait(60000));
        QVERIFY(w.compareView());
    }

    void compareNeedsAnOpenBaseline()
    {
        MainWindow w;
        QSignalSpy failed(&w, &MainWindow::compareFailed);
        w.compareWith(m_opt);
        QCOMPARE(failed.count(), 1);
        QVERIFY(!w.compareView());
        QVERIFY(!w.compareLoader()->busy());
    }

    void cancelledCompareAddsNoTab()
    {
        MainWindow w;
        openBaseline(w);
        QSignalSpy cancelled(w.compareLoader(), &LoadController::cancelled);
        QSignalSpy ready(&w, &MainWindow::compareReady);
        w.compareWith(m_opt);
        QVERIFY(w.compareLoader()->busy());
        w.compareLoader()->cancel();
        QCOMPARE(cancelled.count(), 1);
        // The worker finishes (early, on the cancel flag); its late result must be dropped.
        QVERIFY(QThreadPool::globalInstance()->waitForDone(60000));
        QCoreApplication::processEvents();
        QCOMPARE(ready.count(), 0);
        QVERIFY(!w.compareView());
    }
};

NPUSCOPE_TEST_MAIN(TestCompareView)

} // namespace test_compare_view

#include "test_compare_view.moc"
