// The Memory tab in the real window: on the real level-1 rank 0 (text), the curves, the peak and
// what a click lists against the operator_memory rows; Shift+drag selects the range in the
// timeline's controller; on a generated leak profile the step boundaries and the never-freed
// allocations; no tab for a profile without memory data.
#include "test_main.h"
#include "model/analysis/memory.h"
#include "model/analysis/units.h"
#include "model/synth/synth.h"
#include "views/main_window.h"
#include "views/memory_models.h"
#include "views/memory_view.h"
#include "views/selection_controller.h"
#include "views/utilization_plots.h"
#include "window_helpers.h"

#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

namespace test_memory_view {

using namespace npuscope;
using testing::load;

namespace {

const QString kRank0 = QStringLiteral(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");
const QString kChrome = QStringLiteral(NPUSCOPE_SAMPLES "/msprof-analyze/test/ut/advisor/timeline_advice/trace_view.json");

MemoryView* memoryTab(MainWindow& w)
{
    for (int i = 0; i < w.tabs()->count(); ++i)
        if (w.tabs()->tabText(i) == QStringLiteral("Memory"))
            return qobject_cast<MemoryView*>(w.tabs()->widget(i));
    return nullptr;
}

QPoint pixelOf(MemoryView* v, TimeNs t, double mb)
{
    return QPoint(int(std::lround(v->plot()->xAxis->coordToPixel(v->toMs(t)))),
                  int(std::lround(v->plot()->yAxis->coordToPixel(mb))));
}

} // namespace

class TestMemoryView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_memory_view"));
    }

    void realRank()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(load(w, kRank0));
        MemoryView* v = memoryTab(w);
        QVERIFY(v);
        w.tabs()->setCurrentWidget(v);
        QCoreApplication::processEvents();
        const ProfilePtr p = v->profile();
        QVERIFY(p);
        const memory::Summary m = memory::summarize(*p);
        // The curve is the PTA+GE allocated series, in MB.
        const memory::ComponentCurve* fw = m.frameworkCurve();
        QVERIFY(fw);
        QCOMPARE(v->allocatedGraph()->dataCount(), int(fw->allocated.ts.size()));
        QVERIFY(v->reservedGraph());
        QCOMPARE(v->reservedGraph()->channelFillGraph(), v->allocatedGraph()); // the fragmentation fill
        QVERIFY(v->peakMarker());
        QCOMPARE(v->peakMarker()->graphKey(), v->toMs(m.peakAllocated.at));
        QVERIFY(v->summaryLabel()->text().contains(QStringLiteral("peak allocated")));
        // The header and the axis count the same megabytes: the peak's "N MB" (or "N GB") in the
        // header is where its marker sits on the axis, which counts 10⁶ bytes.
        QVERIFY(v->plot()->yAxis->label().startsWith(QStringLiteral("MB")));
        const double peakMB = m.peakAllocated.bytes / 1e6;
        v->peakMarker()->updatePosition();
        QVERIFY(std::abs(v->peakMarker()->position->value() - peakMB) < 1e-9 * peakMB);
        const QString shownPeak = QString::fromStdString(formatBytes(m.peakAllocated.bytes));
        QVERIFY2(v->summaryLabel()->text().contains(QStringLiteral("peak allocated %1").arg(shownPeak)),
                 qPrintable(v->summaryLabel()->text()));
        const double shownMB = shownPeak.section(QLatin1Char(' '), 0, 0).toDouble()
            * (shownPeak.endsWith(QStringLiteral(" GB")) ? 1000.0 : shownPeak.endsWith(QStringLiteral(" kB")) ? 1e-3 : 1.0);
        QVERIFY2(std::abs(shownMB - peakMB) <= 0.005 * peakMB,
                 qPrintable(QStringLiteral("%1 against %2 on the axis").arg(shownPeak).arg(peakMB)));
        // Names are elided in the middle (whole in the tooltip), columns resizable.
        QCOMPARE(v->operatorTable()->textElideMode(), Qt::ElideMiddle);
        QCOMPARE(v->operatorTable()->horizontalHeader()->sectionResizeMode(OperatorMemoryModel::Operator),
                 QHeaderView::Interactive);
        QCOMPARE(v->operatorTable()->model()->index(0, OperatorMemoryModel::Operator).data(Qt::ToolTipRole).toString(),
                 v->operatorTable()->model()->index(0, OperatorMemoryModel::Operator).data().toString());
        // The first click on a number puts the biggest first.
        QHeaderView* header = v->operatorTable()->horizontalHeader();
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                          QPoint(header->sectionViewportPosition(OperatorMemoryModel::Count)
                                     + header->sectionSize(OperatorMemoryModel::Count) / 2, header->height() / 2));
        QCOMPARE(header->sortIndicatorSection(), int(OperatorMemoryModel::Count));
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
        std::uint64_t most = 0;
        for (const auto& o : memory::byOperator(*p))
            most = std::max<std::uint64_t>(most, o.count);
        QCOMPARE(v->operatorTable()->model()->index(0, OperatorMemoryModel::Count).data(OperatorMemoryModel::SortRole).toULongLong(),
                 qulonglong(most));
        v->operatorTable()->sortByColumn(OperatorMemoryModel::Bytes, Qt::DescendingOrder);

        // The operators table: one row per operator name, most bytes first.
        const auto ops = memory::byOperator(*p);
        QCOMPARE(v->operatorTable()->model()->rowCount(), int(ops.size()));
        QCOMPARE(v->operatorTable()->model()->index(0, OperatorMemoryModel::Operator).data().toString().toStdString(),
                 ops[0].name);

        // Click the curve at the peak: the allocations alive then, largest first.
        w.selection()->fitAll();
        v->plot()->replot();
        const QPoint at = pixelOf(v, m.peakAllocated.at, m.peakAllocated.bytes / 1e6);
        QTest::mouseClick(v->plot(), Qt::LeftButton, {}, at);
        QVERIFY(v->moment().has_value());
        const TimeNs t = *v->moment();
        // Independently: the rows whose [allocation, release) holds t.
        int alive = 0;
        double largest = 0;
        for (const auto& a : p->opMemory)
            if (a.bytes > 0 && a.allocAt <= t && (!a.releaseAt || t < *a.releaseAt)) {
                ++alive;
                largest = std::max(largest, a.bytes);
            }
        QVERIFY(alive > 0);
        QAbstractItemModel* table = v->aliveTable()->model();
        QCOMPARE(table->rowCount(), alive);
        QCOMPARE(table->index(0, AliveAllocationsModel::Size).data(AliveAllocationsModel::SortRole).toDouble(), largest);
        for (int r = 1; r < table->rowCount(); ++r)
            QVERIFY(table->index(r - 1, 0).data(AliveAllocationsModel::SortRole).toDouble()
                    >= table->index(r, 0).data(AliveAllocationsModel::SortRole).toDouble());
        QVERIFY(v->momentLabel()->text().contains(QStringLiteral("alive")));
        // The Python op of an allocation comes from the trace (cpu_op slices hold them).
        bool anyOp = false;
        for (int r = 0; r < table->rowCount(); ++r)
            anyOp = anyOp || !table->index(r, AliveAllocationsModel::PythonOp).data().toString().isEmpty();
        QVERIFY(anyOp);

        // Shift+drag selects a range in the shared controller: the timeline and its plots show it.
        const TimeRange full = w.selection()->fullRange();
        const TimeNs a = full.begin + (full.end - full.begin) / 4, b = full.begin + (full.end - full.begin) / 2;
        const QPoint pa = pixelOf(v, a, 10), pb = pixelOf(v, b, 10);
        QTest::mousePress(v->plot(), Qt::LeftButton, Qt::ShiftModifier, pa);
        QMouseEvent move(QEvent::MouseMove, QPointF(pb), v->plot()->mapToGlobal(QPointF(pb)), Qt::NoButton,
                         Qt::LeftButton, Qt::ShiftModifier);
        QCoreApplication::sendEvent(v->plot(), &move);
        QTest::mouseRelease(v->plot(), Qt::LeftButton, Qt::ShiftModifier, pb);
        const auto sel = w.selection()->selectedRange();
        QVERIFY(sel.has_value());
        const TimeNs tol = (full.end - full.begin) / 200; // a few pixels
        QVERIFY(std::abs(sel->begin - a) <= tol);
        QVERIFY(std::abs(sel->end - b) <= tol);
        QVERIFY(v->selectionBandVisible());
        auto* plots = w.findChild<UtilizationPlots*>();
        QVERIFY(plots);
        QCOMPARE(plots->highlightedRange(), sel);

        // A zoom in the timeline's controller moves the memory plot's axis too.
        w.selection()->setVisibleRange({a, b});
        QCoreApplication::processEvents();
        QVERIFY(std::abs(v->plot()->xAxis->range().lower - v->toMs(a)) < 1e-6);
        QVERIFY(std::abs(v->plot()->xAxis->range().upper - v->toMs(b)) < 1e-6);
        const QString shot = QString::fromLocal8Bit(qgetenv("NPUSCOPE_MEMORY_SHOT"));
        if (!shot.isEmpty()) {
            w.selection()->fitAll();
            v->showMoment(m.peakAllocated.at);
            QCoreApplication::processEvents();
            w.grab().save(shot);
        }
    }

    void models()
    {
        MainWindow w;
        QVERIFY(load(w, kRank0));
        MemoryView* v = memoryTab(w);
        QVERIFY(v);
        v->showMoment(v->summary().peakAllocated.at);
        QAbstractItemModelTester alive(v->aliveModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester ops(v->operatorModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(v->aliveModel()->rowCount() > 0);
        v->showMoment(v->summary().peakAllocated.at + 1); // reset under the tester
        QVERIFY(v->operatorModel()->rowCount() > 0);
    }

    void leakSteps()
    {
        QTemporaryDir dir;
        synth::SynthOptions o;
        o.scenario = "llama2-leak";
        o.steps = 3;
        const synth::SynthResult r = synth::synthesize(dir.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
        MainWindow w;
        QVERIFY(load(w, dir.path()));
        MemoryView* v = memoryTab(w);
        QVERIFY(v);
        QCOMPARE(v->stepLineCount(), 4); // each step's start and the last one's end
        QVERIFY(v->summaryLabel()->text().contains(QStringLiteral("3 never freed")));
        // At the end of the capture the three leaked clones are all still alive, largest first.
        v->showMoment(w.selection()->fullRange().end - 1);
        QAbstractItemModel* table = v->aliveTable()->model();
        QCOMPARE(table->rowCount(), 3);
        for (int row = 0; row < 3; ++row)
            QCOMPARE(table->index(row, AliveAllocationsModel::Operator).data().toString(), QStringLiteral("aten::clone"));
    }

    void noMemoryNoTab()
    {
        MainWindow w;
        QVERIFY(load(w, kChrome));
        QVERIFY(!memoryTab(w));
    }
};

NPUSCOPE_TEST_MAIN(TestMemoryView)

} // namespace test_memory_view

#include "test_memory_view.moc"
