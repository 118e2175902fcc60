// The Advisor dock on the generated LLaMA-2 baseline: the core findings are listed with their
// severity, and an evidence row jumps to its event on the timeline.
#include "test_main.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"
#include "views/advisor_models.h"
#include "views/advisor_panel.h"
#include "views/roofline_view.h"
#include "views/selection_controller.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QHeaderView>
#include <QTableView>
#include <QTreeView>
#include <QtTest>
#include <qcustomplot.h>

namespace test_advisor_panel {

using namespace npuscope;

class TestAdvisorPanel : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    SessionPtr m_session;

private slots:
    void initTestCase()
    {
        synth::SynthOptions o;
        o.scenario = "llama2-baseline";
        o.steps = 2;
        const synth::SynthResult r = synth::synthesize(m_dir.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
        const LoadResult l = loadSession(m_dir.path().toStdString());
        QVERIFY2(l.session, l.error.c_str());
        m_session = l.session;
    }

    void listsCoreFindingsAndJumps()
    {
        SelectionController sel;
        AdvisorPanel panel(&sel);
        auto* tree = panel.findChild<QTreeView*>(QStringLiteral("advisorFindings"));
        auto* evidence = panel.findChild<QTableView*>(QStringLiteral("advisorEvidence"));
        QVERIFY(tree && evidence);
        // Both models are checked through the resets and changes that follow.
        QAbstractItemModelTester findingsTester(tree->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester evidenceTester(evidence->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy ready(&panel, &AdvisorPanel::reportReady);
        sel.setSession(m_session);
        QVERIFY(ready.wait(60000));
        auto report = panel.report();
        QVERIFY(report);
        QStringList firedRules;
        const advisor::Finding* withTime = nullptr;
        for (const auto& f : report->findings) {
            if (f.status != advisor::Status::Fired)
                continue;
            firedRules << QString::fromStdString(f.rule);
            for (const auto& e : f.evidence)
                if (e.at.ts && !withTime)
                    withTime = &f;
        }
        // The baseline models a memory-bound MatMul, unfused LayerNorm, exposed AllReduce and a
        // 45 % L2 hit rate: those core rules fire.
        for (const char* rule : {"CMP-CUBE-MEMBOUND", "COM-EXPOSED", "MEM-L2"})
            QVERIFY2(firedRules.contains(QLatin1String(rule)), rule);
        QCOMPARE(panel.firedTitles().size(), firedRules.size());

        QVERIFY(tree->model()->rowCount() >= 2);
        // The list opens at the plan's first action; severity shows as text, not colour only.
        const QModelIndex first = tree->currentIndex();
        QVERIFY(first.isValid());
        QVERIFY(first.parent().data().toString().startsWith(QLatin1String("Plan: step")));
        const QString severity = first.siblingAtColumn(FindingsModel::Severity).data().toString();
        QVERIFY2(severity.contains(QLatin1String("high")) || severity.contains(QLatin1String("medium"))
                     || severity.contains(QLatin1String("low")), qPrintable(severity));
        QVERIFY(first.siblingAtColumn(FindingsModel::Severity).data(Qt::ForegroundRole).value<QColor>().isValid());
        // Every fired finding has a row, under its category or Minor.
        int shown = 0;
        for (int i = 0; i < int(report->findings.size()); ++i)
            if (report->findings[static_cast<std::size_t>(i)].status == advisor::Status::Fired) {
                int rows = 0;
                for (int g = 0; g < tree->model()->rowCount(); ++g) {
                    const QModelIndex group = tree->model()->index(g, 0);
                    for (int r = 0; r < tree->model()->rowCount(group); ++r)
                        rows += tree->model()->index(r, 0, group).data(FindingsModel::FindingIndexRole).toInt() == i;
                }
                QVERIFY(rows >= 1);
                ++shown;
            }
        QCOMPARE(shown, firedRules.size());

        QVERIFY(withTime);
        QVERIFY(panel.selectFinding(QString::fromStdString(withTime->id)));
        QVERIFY(panel.evidenceRowCount() > 0);
        QVERIFY(panel.detailsText().contains(QString::fromStdString(withTime->title)));
        int row = 0;
        while (!withTime->evidence[row].at.ts)
            ++row;
        // "At" counts the time from the trace start, as the timeline's axis does; "Where" is the
        // rest of the location, and the tooltip all of it.
        const TimeNs since = *withTime->evidence[row].at.ts - sel.fullRange().begin;
        const QString at = evidence->model()->index(row, EvidenceModel::At).data().toString();
        QVERIFY2(at.startsWith(QStringLiteral("%1 ms").arg(double(since) / 1e6, 0, 'f', 3)), qPrintable(at));
        const QString where = evidence->model()->index(row, EvidenceModel::Where).data().toString();
        // (a variant's title may carry its own "ms/step", never the evidence's time)
        QVERIFY2(!where.contains(QStringLiteral("%1 ms").arg(double(since) / 1e6, 0, 'f', 3))
                     && !where.contains(QStringLiteral("ts ")),
                 qPrintable(where));
        QVERIFY(evidence->model()->index(row, EvidenceModel::Where).data(Qt::ToolTipRole).toString().contains(
            QStringLiteral("at %1 ms").arg(double(since) / 1e6, 0, 'f', 3)));
        QVERIFY(panel.activateEvidence(row));
        const TimeNs ts = *withTime->evidence[row].at.ts;
        QVERIFY(sel.selectedRange().has_value());
        QCOMPARE(sel.selectedRange()->begin, ts);
        QVERIFY(sel.visibleRange().begin <= ts);
        QVERIFY(sel.visibleRange().end >= sel.selectedRange()->end);
    }

    // One click on an evidence row reveals it (no double-click needed).
    void singleClickRevealsEvidence()
    {
        SelectionController sel;
        AdvisorPanel panel(&sel);
        panel.resize(900, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy ready(&panel, &AdvisorPanel::reportReady);
        sel.setSession(m_session);
        QVERIFY(ready.wait(60000));
        const advisor::Finding* withTime = nullptr;
        int row = -1;
        for (const auto& f : panel.report()->findings)
            for (std::size_t i = 0; i < f.evidence.size() && !withTime; ++i)
                if (f.status == advisor::Status::Fired && f.evidence[i].at.ts && i > 0) {
                    withTime = &f;
                    row = static_cast<int>(i);
                }
        QVERIFY(withTime);
        QVERIFY(panel.selectFinding(QString::fromStdString(withTime->id)));
        auto* evidence = panel.findChild<QTableView*>(QStringLiteral("advisorEvidence"));
        QVERIFY(evidence && evidence->isVisible());
        QVERIFY(!sel.selectedRange());
        const QModelIndex cell = evidence->model()->index(row, EvidenceModel::Where);
        evidence->scrollTo(cell);
        QTest::mouseClick(evidence->viewport(), Qt::LeftButton, {}, evidence->visualRect(cell).center());
        QVERIFY(sel.selectedRange().has_value());
        QCOMPARE(sel.selectedRange()->begin, *withTime->evidence[static_cast<std::size_t>(row)].at.ts);
    }

    // In a dock 380 px wide, the evidence shows each time whole: its column fits its text, the
    // other columns elide in the middle and can be resized.
    void evidenceTimeIsNeverCut()
    {
        SelectionController sel;
        AdvisorPanel panel(&sel);
        panel.resize(380, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QSignalSpy ready(&panel, &AdvisorPanel::reportReady);
        sel.setSession(m_session);
        QVERIFY(ready.wait(60000));
        auto* evidence = panel.findChild<QTableView*>(QStringLiteral("advisorEvidence"));
        QVERIFY(evidence);
        QCOMPARE(evidence->textElideMode(), Qt::ElideMiddle);
        QCOMPARE(evidence->horizontalHeader()->sectionResizeMode(EvidenceModel::Where), QHeaderView::Interactive);
        int checked = 0;
        for (const auto& f : panel.report()->findings) {
            if (f.status != advisor::Status::Fired || f.evidence.empty() || !f.evidence.front().at.ts)
                continue;
            QVERIFY(panel.selectFinding(QString::fromStdString(f.id)));
            for (int row = 0; row < evidence->model()->rowCount(); ++row) {
                const QString at = evidence->model()->index(row, EvidenceModel::At).data().toString();
                const int needed = evidence->fontMetrics().horizontalAdvance(at);
                QVERIFY2(evidence->columnWidth(EvidenceModel::At) >= needed,
                         qPrintable(QStringLiteral("%1: %2 px for '%3' (%4 px)")
                                        .arg(QString::fromStdString(f.id)).arg(evidence->columnWidth(EvidenceModel::At))
                                        .arg(at).arg(needed)));
                ++checked;
            }
        }
        QVERIFY(checked > 0);
    }

    // File → Export reuses the dock's report only for the same session object and thresholds.
    void reportReusedOnlyWhenCurrent()
    {
        SelectionController sel;
        AdvisorPanel panel(&sel);
        QSignalSpy ready(&panel, &AdvisorPanel::reportReady);
        sel.setSession(m_session);
        QVERIFY(ready.wait(60000));
        const advisor::Thresholds same = advisor::Thresholds::load({});
        QVERIFY(panel.reportFor(m_session, same));
        QCOMPARE(panel.reportFor(m_session, same).get(), panel.report().get());
        // Another session object or other thresholds: run again.
        QVERIFY(!panel.reportFor(std::make_shared<const Session>(), same));
        QVERIFY(!panel.reportFor(nullptr, same));
        advisor::Thresholds other = same;
        other.merge(nlohmann::json::parse(R"({"rules":{"SCH-IDLE":{"params":{"free_share":0.05}}}})"), "test");
        QVERIFY(!panel.reportFor(m_session, other));
    }

    // The Roofline tab: the report's points on log-log axes under the roofs; a click on a point
    // selects its op type.
    void rooflineClickSelectsOperator()
    {
        SelectionController sel;
        AdvisorPanel panel(&sel);
        RooflineView view(&sel);
        connect(&panel, &AdvisorPanel::reportReady, &view, [&] { view.setReport(panel.report()); });
        view.resize(1000, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy ready(&panel, &AdvisorPanel::reportReady);
        sel.setSession(m_session);
        QVERIFY(ready.wait(60000));
        QVERIFY(!view.shownPoints().empty());
        // 24 cores × 8192 FLOP × 1.8 GHz, from the profile's info.json and the SoC table.
        QVERIFY2(view.summaryText().contains(QStringLiteral("cube 353.9 TFLOP/s FP16")), qPrintable(view.summaryText()));
        QVERIFY(view.summaryText().contains(QStringLiteral("settable defaults")));
        const advisor::RooflinePoint* top = view.shownPoints().front();
        QCOMPARE(top->opType, std::string("MatMulV2"));
        QCustomPlot* plot = view.plot();
        const QPoint at(qRound(plot->xAxis->coordToPixel(top->intensity)), qRound(plot->yAxis->coordToPixel(top->achievedFlops / 1e12)));
        QTest::mouseClick(plot, Qt::LeftButton, {}, at);
        QCOMPARE(sel.selectedOperator(), QStringLiteral("MatMulV2"));
        QVERIFY(view.findChild<QLabel*>(QStringLiteral("rooflinePicked"))->text().contains(QStringLiteral("FLOP/byte")));
    }
};

NPUSCOPE_TEST_MAIN(TestAdvisorPanel)

} // namespace test_advisor_panel

#include "test_advisor_panel.moc"
