// The Compare tab's "Advice checked" page on the offscreen platform: the generated
// llama2-baseline against llama2-optimized of the same seed. Its rows are the baseline's
// findings and the optimized run's new ones, each with the status the rule gives on the numbers
// computed here from the two advisor reports and the comparison, the status coloured, and a
// click on an operator-level row selects its operators in the Operators table.
#include "test_main.h"
#include "advisor/advisor.h"
#include "model/analysis/compare.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"
#include "views/compare_model.h"
#include "views/compare_model_advice.h"
#include "views/compare_view.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>
#include <set>

namespace test_compare_advice_check {

using namespace npuscope;

namespace {

SessionPtr synthRun(const QString& dir, const char* scenario)
{
    synth::SynthOptions o;
    o.scenario = scenario;
    o.steps = 3;
    o.seed = 11;
    const synth::SynthResult r = synth::synthesize(dir.toStdString(), o);
    if (!r.ok || r.rankDirs.empty())
        return nullptr;
    return loadSession(r.rankDirs.front(), {}).session;
}

} // namespace

class TestCompareAdviceCheck : public QObject {
    Q_OBJECT
private slots:
    void page();
};

void TestCompareAdviceCheck::page()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const SessionPtr base = synthRun(tmp.filePath("base"), "llama2-baseline");
    const SessionPtr opt = synthRun(tmp.filePath("opt"), "llama2-optimized");
    QVERIFY(base && opt);

    CompareView v;
    v.resize(1200, 800);
    v.show();
    QSignalSpy ready(&v, &CompareView::resultReady);
    v.setProfiles(base, QStringLiteral("base"), opt, QStringLiteral("opt"));
    QVERIFY(ready.wait(120000));

    // The page is a tab of the details, named with its counts.
    QTabWidget* tabs = v.detailTabs();
    const int at = tabs->indexOf(v.adviceCheckPage());
    QVERIFY(at >= 0);
    QVERIFY(tabs->tabText(at).startsWith(QStringLiteral("Advice checked")));
    tabs->setCurrentIndex(at);
    QApplication::processEvents();
    QVERIFY(v.adviceCheckTable()->isVisible());

    AdviceCheckModel* m = v.adviceCheckModel();
    QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);

    // The rows: every fired finding of either run, once.
    const advisor::Thresholds th = advisor::Thresholds::load();
    const advisor::AdvisorReport rb = advisor::runAdvisor(*base, th), ro = advisor::runAdvisor(*opt, th);
    std::map<std::string, const advisor::Finding*> fb, fo;
    for (const advisor::Finding* f : rb.fired())
        fb[f->id] = f;
    for (const advisor::Finding* f : ro.fired())
        fo[f->id] = f;
    std::set<std::string> all;
    for (const auto& [id, f] : fb)
        all.insert(id);
    for (const auto& [id, f] : fo)
        all.insert(id);
    QCOMPARE(static_cast<std::size_t>(m->rowCount()), all.size());

    // Each row's status by the rule, from the times it shows.
    int opRow = -1;
    for (int r = 0; r < m->rowCount(); ++r) {
        const std::string id = m->index(r, AdviceCheckModel::Id).data().toString().toStdString();
        const QString status = m->index(r, AdviceCheckModel::Status).data().toString();
        QCOMPARE(m->index(r, AdviceCheckModel::Status).data(AdviceCheckModel::StatusRole).toString(), status);
        QVERIFY2(all.count(id), id.c_str());
        const QColor colour = m->index(r, AdviceCheckModel::Status).data(Qt::ForegroundRole).value<QColor>();
        QCOMPARE(colour, adviceStatusColour(status.toStdString()));
        if (!fb.count(id)) {
            QCOMPARE(status, QStringLiteral("new"));
            continue;
        }
        const double before = m->index(r, AdviceCheckModel::Before).data(AdviceCheckModel::RawValueRole).toDouble();
        const double after = m->index(r, AdviceCheckModel::After).data(AdviceCheckModel::RawValueRole).toDouble();
        const double realised = m->index(r, AdviceCheckModel::Realised).data(AdviceCheckModel::RawValueRole).toDouble();
        QVERIFY(std::abs(realised - (before - after)) <= 1e-6 * std::max(1.0, std::abs(before)));
        const advisor::Finding& f = *fb.at(id);
        QString expected;
        if (!fo.count(id))
            expected = QStringLiteral("fixed");
        else if (!f.gain.estimated || !(f.gain.nsPerStep > 0))
            expected = QStringLiteral("remaining");
        else
            expected = realised >= 0.8 * f.gain.nsPerStep   ? QStringLiteral("fixed")
                       : realised >= 0.2 * f.gain.nsPerStep ? QStringLiteral("partly")
                                                            : QStringLiteral("remaining");
        QCOMPARE(status, expected);
        if (f.gain.estimated)
            QCOMPARE(m->index(r, AdviceCheckModel::Predicted).data(AdviceCheckModel::RawValueRole).toDouble(),
                     f.gain.nsPerStep);
        if (opRow < 0 && !m->index(r, 0).data(AdviceCheckModel::OpKeysRole).toStringList().isEmpty())
            opRow = r;
    }

    // The plan against the measured step.
    auto* note = v.adviceCheckPage()->findChild<QLabel*>(QStringLiteral("compareAdviceNote"));
    QVERIFY(note);
    QVERIFY(note->text().contains(QStringLiteral("estimated step after")));
    QVERIFY(note->text().contains(QStringLiteral("measured optimized step")));

    // A click on an operator-level row selects its operators in the Operators table.
    QVERIFY(opRow >= 0);
    const QStringList keys = m->index(opRow, 0).data(AdviceCheckModel::OpKeysRole).toStringList();
    auto* proxy = qobject_cast<QSortFilterProxyModel*>(v.adviceCheckTable()->model());
    QVERIFY(proxy);
    const QModelIndex cell = proxy->mapFromSource(m->index(opRow, AdviceCheckModel::Id));
    QTableView* table = v.adviceCheckTable();
    table->scrollTo(cell);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(cell).center());
    QSet<QString> selected;
    for (const QModelIndex& i : v.operatorTable()->selectionModel()->selectedRows())
        selected.insert(i.data(OperatorDiffModel::KeyRole).toString());
    QCOMPARE(selected, QSet<QString>(keys.begin(), keys.end()));
    // A double click shows the first of them as a double click on an operator does.
    QSignalSpy activated(&v, &CompareView::operatorActivated);
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(cell).center());
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.front().front().toString(), keys.front());
}

NPUSCOPE_TEST_MAIN(TestCompareAdviceCheck)

} // namespace test_compare_advice_check

#include "test_compare_advice_check.moc"
