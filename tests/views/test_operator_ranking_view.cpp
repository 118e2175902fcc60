// The ranking and detail docks on the hand-built profile (tests/views/operator_fixture.h),
// driven through the shared SelectionController as the main window would.
#include "test_main.h"
#include "operator_fixture.h"
#include "click_combo.h"
#include "views/operator_detail_view.h"
#include "views/operator_instance_model.h"
#include "views/operator_ranking_view.h"
#include "views/selection_controller.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QPalette>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <qcustomplot.h>

namespace test_operator_ranking_view {

using namespace npuscope;
using M = OperatorRankingModel;

class TestOperatorRankingView : public QObject {
    Q_OBJECT

    SessionPtr m_session = view_fixture::makeSession();

    static int proxyRowOf(const OperatorRankingView& v, const QString& key)
    {
        for (int r = 0; r < v.proxy()->rowCount(); ++r)
            if (v.proxy()->index(r, 0).data(M::KeyRole).toString() == key)
                return r;
        return -1;
    }
    static double rawOf(const OperatorRankingView& v, const QString& key, int column)
    {
        const int r = proxyRowOf(v, key);
        return r < 0 ? -1 : v.proxy()->index(r, column).data(M::RawValueRole).toDouble();
    }
    static void clickRow(OperatorRankingView& v, const QString& key)
    {
        const int r = proxyRowOf(v, key);
        QVERIFY(r >= 0);
        const QRect rect = v.tableView()->visualRect(v.proxy()->index(r, M::Count));
        QVERIFY(rect.isValid());
        QTest::mouseClick(v.tableView()->viewport(), Qt::LeftButton, {}, rect.center());
    }

    // Chooses `text` in the combo box `name` as a person does: a click opens its list, a click on
    // the item chooses it.
    static void chooseItem(OperatorRankingView& v, const QString& name, const QString& text)
    {
        auto* combo = v.findChild<QComboBox*>(name);
        QVERIFY2(combo, qPrintable(name));
        testing::clickComboItem(combo, text);
    }

private slots:
    void clickRowFillsDetail()
    {
        SelectionController sel;
        sel.setSession(m_session);
        OperatorRankingView ranking(&sel);
        OperatorDetailView detail(&sel);
        ranking.resize(900, 400);
        detail.resize(900, 700);
        ranking.show();
        detail.show();
        QVERIFY(QTest::qWaitForWindowExposed(&ranking));
        QCOMPARE(ranking.headerText(), QStringLiteral("All operators"));
        QCOMPARE(ranking.proxy()->rowCount(), 3);
        // Default: duration preset, sorted by total descending.
        QCOMPARE(ranking.proxy()->index(0, 0).data(M::KeyRole).toString(), QStringLiteral("MatMulV2"));

        clickRow(ranking, QStringLiteral("Add"));
        QCOMPARE(sel.selectedOperator(), QStringLiteral("Add"));
        QCOMPARE(detail.currentKey(), QStringLiteral("Add"));
        QCOMPARE(detail.fieldText(QStringLiteral("type")), QStringLiteral("Add"));
        QCOMPARE(detail.fieldText(QStringLiteral("name")), QStringLiteral("add_0 (+1 other)"));
        QCOMPARE(detail.fieldText(QStringLiteral("core")), QStringLiteral("AI_VECTOR_CORE"));
        QCOMPARE(detail.fieldText(QStringLiteral("inputShapes")), QStringLiteral("8,16;8,16"));
        QCOMPARE(detail.fieldText(QStringLiteral("outputDtypes")), QStringLiteral("FLOAT16"));
        QCOMPARE(detail.fieldText(QStringLiteral("blockDim")), QStringLiteral("40"));
        QCOMPARE(detail.fieldText(QStringLiteral("count")), QStringLiteral("2"));
        QCOMPARE(detail.fieldText(QStringLiteral("total")), QStringLiteral("4.00 µs"));
        QCOMPARE(detail.fieldText(QStringLiteral("p50")), QStringLiteral("1.00 µs"));
        QCOMPARE(detail.fieldText(QStringLiteral("p99")), QStringLiteral("3.00 µs"));
        QCOMPARE(detail.fieldText(QStringLiteral("readBw")), QStringLiteral("300 GB/s"));
        QCOMPARE(detail.fieldText(QStringLiteral("l2Hit")), QStringLiteral("—"));
        QCOMPARE(detail.fieldText(QStringLiteral("bound")), QStringLiteral("latency"));
        QCOMPARE(detail.instanceCount(), 2);
        // 2 instances -> ceil(sqrt 2) = 2 bins over [1000, 3000].
        QCOMPARE(detail.histogramCounts(), (QVector<double>{1, 1}));
        // First instance by start is add_0; its stream has Mul then add_1 after it.
        QCOMPARE(detail.neighbourNames(), (QStringList{QStringLiteral("add_0"), QStringLiteral("Mul"), QStringLiteral("add_1")}));

        clickRow(ranking, QStringLiteral("Cast"));
        QCOMPARE(sel.selectedOperator(), QStringLiteral("Cast"));
        QCOMPARE(detail.instanceCount(), 10);
        // 10 instances (100..1000 ns) -> 4 bins; bin = floor((d - 100)·4 / 900).
        QCOMPARE(detail.histogramCounts(), (QVector<double>{3, 2, 2, 3}));
        QCOMPARE(detail.fieldText(QStringLiteral("p90")), QStringLiteral("900 ns"));
        QCOMPARE(detail.fieldText(QStringLiteral("cubeUtil")), QStringLiteral("—"));

        clickRow(ranking, QStringLiteral("MatMulV2"));
        QCOMPARE(detail.fieldText(QStringLiteral("core")), QStringLiteral("AI_CORE"));
        QCOMPARE(detail.fieldText(QStringLiteral("name")), QStringLiteral("mm_a (+1 other)"));
        QCOMPARE(detail.fieldText(QStringLiteral("mac")), QStringLiteral("0.900"));
        QCOMPARE(detail.fieldText(QStringLiteral("cubeUtil")), QStringLiteral("55.0 %"));
        QCOMPARE(detail.fieldText(QStringLiteral("l2Hit")), QStringLiteral("71.4 %"));
        // {2000, 4000, 6000} -> 2 bins: 2000 | 4000, 6000.
        QCOMPARE(detail.histogramCounts(), (QVector<double>{1, 2}));
        // No timeline task joined to MatMulV2: neighbours are kernel rows of stream 7 by start.
        QCOMPARE(detail.neighbourNames(),
                 (QStringList{QStringLiteral("mm_a"), QStringLiteral("mm_b"), QStringLiteral("add_0"), QStringLiteral("add_1")}));
    }

    // The p50/p90/p99 lines and their labels are drawn in the text colour, and follow a theme
    // switch like the axes.
    void histogramMarkersFollowThePalette()
    {
        SelectionController sel;
        sel.setSession(m_session);
        OperatorDetailView detail(&sel);
        detail.resize(900, 700);
        detail.show();
        QVERIFY(QTest::qWaitForWindowExposed(&detail));
        sel.setSelectedOperator(QStringLiteral("Cast"));
        QCustomPlot* plot = detail.histogramPlot();
        auto markerColours = [plot] {
            QList<QColor> colours;
            for (int i = 0; i < plot->itemCount(); ++i) {
                if (auto* line = qobject_cast<QCPItemStraightLine*>(plot->item(i)))
                    colours << line->pen().color();
                else if (auto* label = qobject_cast<QCPItemText*>(plot->item(i)))
                    colours << label->color();
            }
            return colours;
        };
        const QColor light = plot->palette().color(QPalette::Text);
        QCOMPARE(markerColours(), QList<QColor>(6, light)); // three lines, three labels
        QPalette dark = detail.palette();
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::Text, QColor(230, 230, 230));
        detail.setPalette(dark);
        QTRY_COMPARE(markerColours(), QList<QColor>(6, QColor(230, 230, 230)));
        // The dashed p90/p99 lines stay dashed.
        int dashed = 0;
        for (int i = 0; i < plot->itemCount(); ++i)
            if (auto* line = qobject_cast<QCPItemStraightLine*>(plot->item(i)))
                dashed += line->pen().style() == Qt::DashLine;
        QCOMPARE(dashed, 2);
    }

    void selectionFollowsController()
    {
        SelectionController sel;
        sel.setSession(m_session);
        OperatorRankingView ranking(&sel);
        ranking.show();
        QVERIFY(QTest::qWaitForWindowExposed(&ranking));
        sel.setSelectedOperator(QStringLiteral("Cast"));
        QCOMPARE(ranking.tableView()->currentIndex().data(M::KeyRole).toString(), QStringLiteral("Cast"));
        sel.setSelectedOperator(QStringLiteral("MatMulV2"));
        QCOMPARE(ranking.tableView()->currentIndex().data(M::KeyRole).toString(), QStringLiteral("MatMulV2"));
    }

    void rangeSelectionChangesTotals()
    {
        SelectionController sel;
        sel.setSession(m_session);
        OperatorRankingView ranking(&sel);
        ranking.show();
        QVERIFY(QTest::qWaitForWindowExposed(&ranking));
        QCOMPARE(rawOf(ranking, QStringLiteral("MatMulV2"), M::Total), 12000.0);
        // [3000, 14000): mm_a@1000 clipped to its last 2000 ns + mm_b 6000; add_0 1000.
        sel.setSelectedRange(TimeRange{3000, 14000});
        QCOMPARE(ranking.proxy()->rowCount(), 2);
        QCOMPARE(rawOf(ranking, QStringLiteral("MatMulV2"), M::Total), 8000.0);
        QCOMPARE(rawOf(ranking, QStringLiteral("MatMulV2"), M::Count), 2.0);
        QCOMPARE(rawOf(ranking, QStringLiteral("Add"), M::Total), 1000.0);
        QCOMPARE(proxyRowOf(ranking, QStringLiteral("Cast")), -1);
        QVERIFY2(ranking.headerText().startsWith(QStringLiteral("Range ")), qPrintable(ranking.headerText()));
        QVERIFY2(ranking.headerText().endsWith(QStringLiteral(": 3 operators")), qPrintable(ranking.headerText()));
        sel.setSelectedRange(std::nullopt);
        QCOMPARE(ranking.headerText(), QStringLiteral("All operators"));
        QCOMPARE(rawOf(ranking, QStringLiteral("MatMulV2"), M::Total), 12000.0);
    }

    void doubleClickReveals()
    {
        SelectionController sel;
        sel.setSession(m_session);
        OperatorRankingView ranking(&sel);
        OperatorDetailView detail(&sel);
        ranking.resize(900, 400);
        detail.resize(900, 700);
        ranking.show();
        detail.show();
        QVERIFY(QTest::qWaitForWindowExposed(&detail));

        // Add's instances are joined to timeline slices: double-click reveals the task.
        sel.setSelectedOperator(QStringLiteral("Add"));
        auto* table = detail.instanceTable();
        const QModelIndex second = detail.instanceProxy()->index(1, OperatorInstanceModel::Duration);
        QCOMPARE(second.data(OperatorInstanceModel::RawValueRole).toLongLong(), 3000ll); // add_1
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(second).center());
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(second).center());
        const std::uint32_t add1Slice = m_session->ranks[0]->kernels.slice[3];
        QVERIFY(add1Slice != kNone);
        QCOMPARE(sel.selectedTask(), (TaskRef{0, add1Slice}));

        // Cast has no timeline task: the ranking's double-click selects the longest instance's span.
        const int r = proxyRowOf(ranking, QStringLiteral("Cast"));
        const QRect rect = ranking.tableView()->visualRect(ranking.proxy()->index(r, M::Total));
        QTest::mouseClick(ranking.tableView()->viewport(), Qt::LeftButton, {}, rect.center());
        QTest::mouseDClick(ranking.tableView()->viewport(), Qt::LeftButton, {}, rect.center());
        QVERIFY(sel.selectedRange().has_value());
        QCOMPARE(*sel.selectedRange(), (TimeRange{48000, 49000})); // cast_9: 30000 + 2000·9, 1000 ns
    }

    void filterCopyExport()
    {
        SelectionController sel;
        sel.setSession(m_session);
        OperatorRankingView ranking(&sel);
        ranking.show();
        QVERIFY(QTest::qWaitForWindowExposed(&ranking));
        // Typing in the filter box narrows the rows; erasing it brings them back.
        auto* filter = ranking.findChild<QLineEdit*>(QStringLiteral("filterEdit"));
        QVERIFY(filter);
        QTest::mouseClick(filter, Qt::LeftButton);
        QTest::keyClicks(filter, QStringLiteral("mAt"));
        QCOMPARE(ranking.proxy()->rowCount(), 1);
        QTest::keyClick(filter, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClick(filter, Qt::Key_Backspace);
        QCOMPARE(filter->text(), QString());
        QCOMPARE(ranking.proxy()->rowCount(), 3);

        // A click on the first row selects it for copying.
        QTableView* table = ranking.tableView();
        const QRect first = table->visualRect(ranking.proxy()->index(0, M::Count));
        QVERIFY(first.isValid());
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, first.center());
        QCOMPARE(table->selectionModel()->selectedRows().size(), 1);
        QCOMPARE(table->selectionModel()->selectedRows().front().row(), 0);
        const QString csv = ranking.selectionAsCsv();
        QVERIFY2(csv.startsWith(QStringLiteral("OP Type,Count,Total,Share,")), qPrintable(csv));
        QVERIFY2(csv.contains(QStringLiteral("\nMatMulV2,3,12.0 µs,55.8 %,4.00 µs,")), qPrintable(csv));

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("ops.csv"));
        QString error;
        QVERIFY2(ranking.exportCsv(path, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 4);
        QVERIFY2(lines[0].startsWith(QStringLiteral("OP Type,Count,Total(ns),Share(0..1),Avg(ns),Min(ns)")), qPrintable(lines[0]));
        QVERIFY2(lines[1].startsWith(QStringLiteral("MatMulV2,3,12000,")), qPrintable(lines[1]));
        QVERIFY2(lines[3].startsWith(QStringLiteral("Add,2,4000,")), qPrintable(lines[3]));

        // Group by name propagates and renames the key column.
        chooseItem(ranking, QStringLiteral("groupByCombo"), QStringLiteral("Op Name"));
        QCOMPARE(ranking.proxy()->rowCount(), 14);
        QCOMPARE(ranking.proxy()->headerData(M::Name, Qt::Horizontal).toString(), QStringLiteral("Op Name"));
        chooseItem(ranking, QStringLiteral("presetCombo"), QStringLiteral("Communication duration"));
        QCOMPARE(ranking.proxy()->rowCount(), 2);
        QVERIFY(ranking.tableView()->isColumnHidden(M::P99));
        QVERIFY(!ranking.tableView()->isColumnHidden(M::Total));
    }
};

NPUSCOPE_TEST_MAIN(TestOperatorRankingView)

} // namespace test_operator_ranking_view

#include "test_operator_ranking_view.moc"
