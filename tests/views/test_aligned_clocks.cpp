// Aligned clocks in the window: a generated four-rank cluster whose rank 1 clock runs 3 ms ahead
// (file time = true time + 3 ms, the generator's ground truth). With All ranks and the Every
// rank curves, rank 1's slices and curve are drawn 3 ms earlier than in raw time; View → Raw
// clocks (triggered as a click) moves them back and the Cluster tab's check box follows, and
// back again; a manual offset typed in Preferences → Clock offsets is applied, listed as manual
// by the Cluster tab, and kept per profile root.
#include "test_main.h"
#include "model/synth/synth.h"
#include "views/app_settings.h"
#include "views/cluster_view.h"
#include "views/main_window.h"
#include "views/preferences_dialog.h"
#include "views/selection_panel.h"
#include "views/selection_controller.h"
#include "views/timeline_view.h"
#include "views/utilization_plots.h"
#include "window_helpers.h"

#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolBar>

#include <cmath>
#include <functional>
#include <optional>

namespace test_aligned_clocks {

using namespace npuscope;
using testing::indexOfRank;
using testing::load;
using testing::rankCombo;

namespace {

constexpr TimeNs kPlanted = 3'000'000;   // rank 1: file time = true time + 3 ms
constexpr TimeNs kEstimateSlack = 5'000; // the exports' rounding (clock_align.h's spread floor)

// Picks the combo entry with this item data by keyboard, as a person does: focus, Home, then
// Down until it is current (each step is an activation).
void chooseByKeys(QComboBox* combo, int data)
{
    const int target = combo->findData(data);
    QVERIFY(target >= 0);
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Home);
    for (int i = 0; i < combo->count() && combo->currentIndex() != target; ++i)
        QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(combo->currentIndex(), target);
}

// A device task in the middle of the profile's first stream with a few.
std::optional<std::uint32_t> middleStreamSlice(const Profile& p)
{
    for (const Track& t : p.tracks)
        if (t.kind == TrackKind::Stream && t.sliceEnd > t.sliceBegin + 2)
            return t.sliceBegin + (t.sliceEnd - t.sliceBegin) / 2;
    return std::nullopt;
}

// The key (ms) of the first sample above zero of rank `label`'s AI Core utilisation curve.
std::optional<double> firstBusyKey(const UtilizationPlots& plots, const QString& label)
{
    for (int i = 0; i < plots.plot()->graphCount(); ++i) {
        const QCPGraph* g = plots.plot()->graph(i);
        if (!g->name().endsWith(QStringLiteral(" · ") + label) || !g->name().contains(QStringLiteral("(derived)")))
            continue;
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
            if (!std::isnan(it->value) && it->value > 0)
                return it->key;
    }
    return std::nullopt;
}

// Runs `interact` on the Preferences dialog once File → Preferences has opened it (modal exec).
void withPreferences(MainWindow& w, const std::function<void(PreferencesDialog*)>& interact)
{
    bool ran = false;
    QTimer::singleShot(0, &w, [&] {
        auto* dlg = qobject_cast<PreferencesDialog*>(QApplication::activeModalWidget());
        QVERIFY(dlg);
        interact(dlg);
        ran = true;
        if (dlg->isVisible())
            dlg->reject(); // a failed QVERIFY above must not leave exec() running
    });
    QAction* action = w.findChild<QAction*>(QStringLiteral("actionPreferences"));
    QVERIFY(action);
    action->trigger();
    QVERIFY(ran);
}

QPushButton* okButton(PreferencesDialog* dlg)
{
    auto* box = dlg->findChild<QDialogButtonBox*>(QStringLiteral("buttonBox"));
    return box ? box->button(QDialogButtonBox::Ok) : nullptr;
}

} // namespace

class TestAlignedClocks : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_aligned_clocks"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 4;
        o.steps = 2;
        o.clockOffsets = {{1, kPlanted}};
        const synth::SynthResult r = synth::synthesize(m_dir.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
    }

    void alignedByDefaultRawOnClick()
    {
        QVERIFY(!AppSettings::rawClocks());
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(load(w, m_dir.path()));
        const SessionPtr s = w.selection()->session();
        QVERIFY(s);
        QCOMPARE(s->ranks.size(), std::size_t(4));
        const int r1 = indexOfRank(*s, 1), r0 = indexOfRank(*s, 0);
        QVERIFY(r1 >= 0 && r0 >= 0);
        const Profile& p1 = *s->ranks[static_cast<std::size_t>(r1)];

        // All ranks in the toolbar, Every rank under the timeline.
        QComboBox* ranks = rankCombo(w);
        QVERIFY(ranks);
        chooseByKeys(ranks, r0);
        QCOMPARE(w.selection()->currentRank(), r0);
        chooseByKeys(ranks, -1);
        QCOMPARE(w.selection()->currentRank(), -1);
        UtilizationPlots* plots = w.plots();
        chooseByKeys(plots->curvesSelector(), UtilizationPlots::kEveryRank);
        QCOMPARE(plots->curvesRank(), UtilizationPlots::kEveryRank);

        TimelineView* tl = w.timeline();
        const TimeNs shift = tl->clockShift(r1);
        QVERIFY2(std::abs(shift - kPlanted) <= kEstimateSlack, qPrintable(QString::number(shift)));
        QVERIFY(std::abs(tl->clockShift(r0)) <= kEstimateSlack);
        QCOMPARE(plots->clockShift(r1), shift);

        // A device task of rank 1, in a 6 ms window holding both where it is in the file and 3 ms earlier.
        const std::optional<std::uint32_t> slice = middleStreamSlice(p1);
        QVERIFY(slice);
        const TimeNs start = p1.slices.start[*slice];
        w.selection()->setVisibleRange({start - 4'500'000, start + 1'500'000});
        const TimeRange v = w.selection()->visibleRange();
        QCOMPARE(v.begin, start - 4'500'000);
        QVERIFY(tl->ensureLaneVisible(tl->layout().trackLane[static_cast<std::size_t>(r1)][p1.slices.track[*slice].v]));
        const double nsPerPx = static_cast<double>(v.end - v.begin) / tl->contentRect().width();
        auto drawnStart = [&] {
            const QRectF rect = tl->sliceRectFor(r1, *slice);
            return rect.isEmpty() ? std::optional<TimeNs>() : std::optional<TimeNs>(tl->timeAt(rect.left()));
        };
        const std::optional<TimeNs> aligned = drawnStart();
        QVERIFY(aligned);
        QVERIFY2(std::abs(*aligned - (start - kPlanted)) <= kEstimateSlack + 2 * nsPerPx,
                 qPrintable(QStringLiteral("%1 vs %2").arg(*aligned).arg(start - kPlanted)));

        // Selected, the Selection panel says both times (from the trace start).
        w.selection()->setSelectedTask({r1, *slice});
        const TimeNs origin = w.selection()->fullRange().begin;
        auto msText = [](TimeNs ns) -> QString {
            return QString::number(static_cast<double>(ns) / 1e6, 'f', 3) + QStringLiteral(" ms");
        };
        QCOMPARE(w.selectionPanel()->fieldText(QStringLiteral("Start"), QStringLiteral("Slice")),
                 QStringLiteral("aligned %1 (file %2)").arg(msText(start - shift - origin), msText(start - origin)));
        // Rank 1's header says it is drawn shifted, rank 0's (the reference) does not.
        auto headerTip = [&](int rankIndex) {
            const QString title = tl->layout().groups[static_cast<std::size_t>(tl->rankGroup(rankIndex))].title;
            for (int i = 0; i < tl->rowCount(); ++i)
                if (tl->rowLabelFull(i).startsWith(title))
                    return tl->rowLabelFull(i);
            return QString();
        };
        QVERIFY(headerTip(r1).contains(QStringLiteral("Drawn in aligned time")));
        QVERIFY(!headerTip(r0).isEmpty() && !headerTip(r0).contains(QStringLiteral("aligned")));

        // The curve of rank 1 over the whole span: its first busy bin 3 ms before the raw one.
        w.selection()->setVisibleRange(w.selection()->viewBounds());
        const QString label = QStringLiteral("rank 1");
        const std::optional<double> busyAligned = firstBusyKey(*plots, label);
        QVERIFY(busyAligned);

        // View → Raw clocks, as a click: back to file time, and the Cluster tab's box follows.
        QAction* raw = w.findChild<QAction*>(QStringLiteral("actionRawClocks"));
        QVERIFY(raw);
        QVERIFY(raw->isCheckable() && !raw->isChecked());
        raw->trigger();
        QVERIFY(raw->isChecked());
        QVERIFY(AppSettings::rawClocks());
        QCOMPARE(tl->clockShift(r1), TimeNs(0));
        QCOMPARE(plots->clockShift(r1), TimeNs(0));
        QVERIFY(w.clusterView());
        QVERIFY(w.clusterView()->rawClocksCheck()->isChecked());
        const std::optional<double> busyRaw = firstBusyKey(*plots, label);
        QVERIFY(busyRaw);
        const double binMs = std::max<double>(plots->curveMaxBinNs(), 1) / 1e6;
        QVERIFY2(std::abs((*busyRaw - *busyAligned) - kPlanted / 1e6) <= 2 * binMs + kEstimateSlack / 1e6,
                 qPrintable(QStringLiteral("%1 vs %2, bin %3 ms").arg(*busyRaw).arg(*busyAligned).arg(binMs)));
        w.selection()->setVisibleRange({start - 4'500'000, start + 1'500'000});
        const std::optional<TimeNs> rawStart = drawnStart();
        QVERIFY(rawStart);
        QVERIFY(std::abs(*rawStart - start) <= 2 * nsPerPx);
        QCOMPARE(w.selectionPanel()->fieldText(QStringLiteral("Start"), QStringLiteral("Slice")), msText(start - origin));

        // The Cluster tab's check box, clicked: the View menu follows and the drawing aligns again.
        w.clusterView()->rawClocksCheck()->click();
        QVERIFY(!raw->isChecked());
        QVERIFY(!AppSettings::rawClocks());
        QCOMPARE(tl->clockShift(r1), shift);
        const std::optional<TimeNs> again = drawnStart();
        QVERIFY(again);
        QCOMPARE(*again, *aligned);

        // One rank chosen alone: drawn in its own file time.
        chooseByKeys(ranks, r1);
        QCOMPARE(w.selection()->currentRank(), r1);
        QCOMPARE(tl->clockShift(r1), TimeNs(0));
        chooseByKeys(ranks, -1);
        QCOMPARE(tl->clockShift(r1), shift);
    }

    void preferencesOverride()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(load(w, m_dir.path()));
        const SessionPtr s = w.selection()->session();
        QVERIFY(s);
        const int r1 = indexOfRank(*s, 1);
        QVERIFY(r1 >= 0);
        QComboBox* ranks = rankCombo(w);
        QVERIFY(ranks);
        chooseByKeys(ranks, -1);
        QCOMPARE(w.selection()->currentRank(), -1);
        const TimeNs estimated = w.timeline()->clockShift(r1);
        QVERIFY(std::abs(estimated - kPlanted) <= kEstimateSlack);

        // Preferences → Clock offsets: the estimate read-only, the override typed in (5 ms).
        withPreferences(w, [&](PreferencesDialog* dlg) {
            QTableWidget* table = dlg->clockOffsetsTable();
            QVERIFY(table);
            QCOMPARE(table->rowCount(), 4);
            int row = -1;
            for (int i = 0; i < table->rowCount(); ++i)
                if (table->item(i, 0)->text() == QStringLiteral("1"))
                    row = i;
            QVERIFY(row >= 0);
            QVERIFY(table->item(row, 1)->text().startsWith(QString::number(estimated)));
            QVERIFY(!(table->item(row, 1)->flags() & Qt::ItemIsEditable));
            QVERIFY(table->item(row, 2)->text().isEmpty());
            // A malformed override is refused with the dialog left open.
            table->item(row, 2)->setText(QStringLiteral("soon"));
            bool warned = false;
            QTimer::singleShot(0, dlg, [&] {
                if (QWidget* box = QApplication::activeModalWidget(); box && box != dlg) {
                    warned = true;
                    box->close();
                }
            });
            okButton(dlg)->click();
            QVERIFY(warned);
            QVERIFY(dlg->isVisible());
            table->item(row, 2)->setText(QStringLiteral("5ms"));
            okButton(dlg)->click();
            QVERIFY(!dlg->isVisible());
        });
        QCOMPARE(w.timeline()->clockShift(r1), TimeNs(5'000'000));
        QCOMPARE(w.plots()->clockShift(r1),
                 w.plots()->curvesRank() == UtilizationPlots::kEveryRank ? TimeNs(5'000'000) : TimeNs(0));
        const QMap<int, qint64> stored = AppSettings::clockOffsets(QString::fromStdString(s->root));
        QCOMPARE(stored.size(), 1);
        QCOMPARE(stored.value(1), qint64(5'000'000));

        // The Cluster tab matches again with it and lists it as manual.
        ClusterView* cv = w.clusterView();
        QVERIFY(cv);
        QVERIFY(QTest::qWaitFor([cv] { return !cv->collectivesPending(); }, 60000));
        bool manual = false;
        for (const RankClock& c : cv->collectives().clock.ranks)
            if (c.rank == 1) {
                manual = c.manual;
                QCOMPARE(c.offset, TimeNs(5'000'000));
            }
        QVERIFY(manual);
        QVERIFY(cv->lateSummaryLabel()->toolTip().contains(QStringLiteral("rank 1: offset 5000000 ns manual")));

        // A new window on the same root starts with the override.
        MainWindow again;
        QVERIFY(load(again, m_dir.path()));
        QComboBox* ranks2 = rankCombo(again);
        QVERIFY(ranks2);
        chooseByKeys(ranks2, -1);
        QCOMPARE(again.timeline()->clockShift(r1), TimeNs(5'000'000));

        // Cleared: the estimate again.
        withPreferences(again, [&](PreferencesDialog* dlg) {
            QTableWidget* table = dlg->clockOffsetsTable();
            QVERIFY(table);
            for (int i = 0; i < table->rowCount(); ++i)
                table->item(i, 2)->setText(QString());
            okButton(dlg)->click();
        });
        QCOMPARE(again.timeline()->clockShift(r1), estimated);
        QVERIFY(AppSettings::clockOffsets(QString::fromStdString(s->root)).isEmpty());
    }
};

NPUSCOPE_TEST_MAIN(TestAlignedClocks)

} // namespace test_aligned_clocks

#include "test_aligned_clocks.moc"
