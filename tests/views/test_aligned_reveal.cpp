// Search and reveal in aligned time: a generated two-rank cluster whose rank 1 clock runs 3 ms
// ahead (file time = true time + 3 ms, the generator's ground truth; rank 1 is also its slow
// rank) with that offset set by hand, so rank 1 is drawn exactly 3 ms earlier while All ranks
// is shown. A name typed in the search box and Enter, and a click on the Cluster tab's "Why it
// waits" row, must show the slice (the late rank's window) where it is drawn: the visible window
// centred on file time − offset within a pixel; with View → Raw clocks, on file time; with one
// rank chosen alone, the late rank alone in its file time. A range selected under All ranks
// ranks each rank's operators over the range shifted to that rank's file time.
#include "test_main.h"
#include "model/synth/synth.h"
#include "click_combo.h"
#include "views/app_settings.h"
#include "views/cluster_models.h"
#include "views/cluster_view.h"
#include "views/main_window.h"
#include "views/operator_ranking_view.h"
#include "views/selection_controller.h"
#include "views/timeline_view.h"
#include "window_helpers.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>

#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace test_aligned_reveal {

using namespace npuscope;
using testing::indexOfRank;
using testing::load;
using testing::rankCombo;

namespace {

constexpr TimeNs kPlanted = 3'000'000;   // rank 1: file time = true time + 3 ms
constexpr TimeNs kEstimateSlack = 5'000; // the exports' rounding (clock_align.h's spread floor)

// The rarest name among the device tasks of `p` that start inside `mid` and that `other` has
// too (the first such task when several are as rare): few hits to step through, on both ranks,
// away from the trace's ends.
std::optional<std::string> rareStreamName(const Profile& p, const Profile& other, TimeRange mid)
{
    std::set<std::string, std::less<>> others;
    for (std::uint32_t r = 0; r < other.slices.size(); ++r)
        others.emplace(other.str(other.slices.name[r]));
    std::map<std::uint32_t, int> count; // name id -> slices of that name
    for (std::uint32_t r = 0; r < p.slices.size(); ++r)
        ++count[p.slices.name[r].v];
    std::optional<std::uint32_t> best;
    for (const Track& t : p.tracks) {
        if (t.kind != TrackKind::Stream)
            continue;
        for (std::uint32_t r = t.sliceBegin; r < t.sliceEnd; ++r)
            if (p.slices.start[r] > mid.begin && p.slices.start[r] < mid.end && others.count(p.str(p.slices.name[r])) > 0
                && (!best || count[p.slices.name[r].v] < count[p.slices.name[*best].v]))
                best = r;
    }
    if (!best)
        return std::nullopt;
    return std::string(p.str(p.slices.name[*best]));
}

TimeNs centre(TimeRange r)
{
    return r.begin + (r.end - r.begin) / 2;
}

// The window's width over the slice area, in ns per pixel.
double nsPerPixel(MainWindow& w)
{
    const TimeRange v = w.selection()->visibleRange();
    return static_cast<double>(v.end - v.begin) / w.timeline()->contentRect().width();
}

// Types `text` in the toolbar's search box as a person does (Ctrl+F, the keys, Enter), then
// presses Enter until the match shown is a slice of rank `rankIndex` that starts in the middle
// half of `mid` (at most once round the matches). The slice, or none.
std::optional<std::uint32_t> searchTo(MainWindow& w, const QString& text, int rankIndex, TimeRange mid)
{
    auto* box = w.findChild<QLineEdit*>(QStringLiteral("searchBox"));
    if (!box)
        return std::nullopt;
    box->setFocus(Qt::ShortcutFocusReason);
    box->selectAll();
    QTest::keyClick(box, Qt::Key_Backspace);
    QTest::keyClicks(box, text);
    const SessionPtr s = w.selection()->session();
    const std::size_t n = w.timeline()->matchCount();
    for (std::size_t i = 0; i < n; ++i) {
        QTest::keyClick(box, Qt::Key_Return);
        const TaskRef t = w.selection()->selectedTask();
        if (t.rankIndex != rankIndex)
            continue;
        const TimeNs start = s->ranks[static_cast<std::size_t>(t.rankIndex)]->slices.start[t.slice];
        if (start > mid.begin && start < mid.end)
            return t.slice;
    }
    return std::nullopt;
}

} // namespace

class TestAlignedReveal : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_aligned_reveal"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 2;
        o.steps = 2;
        o.clockOffsets = {{1, kPlanted}};
        const synth::SynthResult r = synth::synthesize(m_dir.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
    }

    void searchAndWhyWaits()
    {
        QVERIFY(!AppSettings::rawClocks());
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(load(w, m_dir.path()));
        const SessionPtr s = w.selection()->session();
        QVERIFY(s);
        QCOMPARE(s->ranks.size(), std::size_t(2));
        const int r0 = indexOfRank(*s, 0), r1 = indexOfRank(*s, 1);
        QVERIFY(r0 >= 0 && r1 >= 0);
        const Profile& p1 = *s->ranks[static_cast<std::size_t>(r1)];
        QComboBox* ranks = rankCombo(w);
        QVERIFY(ranks);
        testing::clickComboItem(ranks, QStringLiteral("All ranks"));
        QCOMPARE(w.selection()->currentRank(), -1);

        // The estimate finds the planted skew; then the offset is set by hand to exactly it.
        TimelineView* tl = w.timeline();
        QVERIFY2(std::abs(tl->clockShift(r1) - kPlanted) <= kEstimateSlack, qPrintable(QString::number(tl->clockShift(r1))));
        AppSettings::setClockOffsets(QString::fromStdString(s->root), {{1, kPlanted}});
        QAction* raw = w.findChild<QAction*>(QStringLiteral("actionRawClocks"));
        QVERIFY(raw && !raw->isChecked());
        raw->trigger(); // raw and back: the window reads the offsets again
        raw->trigger();
        QVERIFY(!raw->isChecked());
        QCOMPARE(tl->clockShift(r1), kPlanted);
        QCOMPARE(tl->clockShift(r0), TimeNs(0)); // the reference

        // Search: a device task's name, Enter until a hit of rank 1 in the middle of its span.
        const TimeNs quarter = (p1.end - p1.begin) / 4;
        const TimeRange mid{p1.begin + quarter, p1.end - quarter};
        const std::optional<std::string> name = rareStreamName(p1, *s->ranks[static_cast<std::size_t>(r0)], mid);
        QVERIFY(name && !name->empty());
        const std::optional<std::uint32_t> hit = searchTo(w, QString::fromStdString(*name), r1, mid);
        QVERIFY2(hit, name->c_str());
        QCOMPARE(std::string(p1.str(p1.slices.name[*hit])), *name);
        QCOMPARE(w.selection()->selectedTask(), (TaskRef{r1, *hit}));
        const TimeNs start = p1.slices.start[*hit], dur = p1.slices.dur[*hit];
        const TimeNs aligned = start - kPlanted + dur / 2; // the slice's centre as drawn
        QVERIFY2(std::abs(static_cast<double>(centre(w.selection()->visibleRange()) - aligned)) <= nsPerPixel(w),
                 qPrintable(QStringLiteral("window centre %1, slice centre %2 (file %3), %4 ns/px")
                                .arg(centre(w.selection()->visibleRange()))
                                .arg(aligned)
                                .arg(start + dur / 2)
                                .arg(nsPerPixel(w))));
        // Drawn there: its rectangle fills the middle of the slice area (10 % margin each side).
        const QRectF rect = tl->sliceRectFor(r1, *hit);
        QVERIFY(!rect.isEmpty());
        const QRect cr = tl->contentRect();
        QVERIFY2(std::abs(rect.center().x() - cr.center().x()) <= 2.0,
                 qPrintable(QStringLiteral("%1 vs %2").arg(rect.center().x()).arg(cr.center().x())));

        // Enter steps through the hits in the order they are drawn: by file start − offset.
        const std::vector<TaskRef>& matches = tl->matches();
        QVERIFY(matches.size() >= 2);
        bool both = false;
        for (std::size_t i = 1; i < matches.size(); ++i) {
            auto drawn = [&](const TaskRef& t) {
                return s->ranks[static_cast<std::size_t>(t.rankIndex)]->slices.start[t.slice]
                       - (t.rankIndex == r1 ? kPlanted : 0);
            };
            QVERIFY(drawn(matches[i - 1]) <= drawn(matches[i]));
            both = both || matches[i].rankIndex != matches[0].rankIndex;
        }
        QVERIFY(both);

        // "Why it waits": the top row, clicked, opens the timeline at the late rank's window as drawn.
        ClusterView* cv = w.clusterView();
        QVERIFY(cv);
        QVERIFY(QTest::qWaitFor([cv] { return !cv->collectivesPending(); }, 60000));
        auto* table = cv->findChild<QTableView*>(QStringLiteral("clusterWhyWaits"));
        auto* proxy = table ? qobject_cast<QSortFilterProxyModel*>(table->model()) : nullptr;
        QVERIFY(proxy && proxy->rowCount() > 0);
        auto clickTopRow = [&] {
            w.tabs()->setCurrentWidget(cv);
            for (QTabWidget* tabs : cv->findChildren<QTabWidget*>()) // the "Why it waits" tab, clicked
                for (int i = 0; i < tabs->count(); ++i)
                    if (tabs->tabText(i) == QStringLiteral("Why it waits"))
                        QTest::mouseClick(tabs->tabBar(), Qt::LeftButton, {}, tabs->tabBar()->tabRect(i).center());
            QVERIFY(QTest::qWaitFor([table] { return table->isVisible(); }, 5000));
            table->scrollToTop();
            const QRect row = table->visualRect(proxy->index(0, WhyWaitsModel::Reason));
            QVERIFY(row.isValid());
            QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, row.center());
            QCOMPARE(w.tabs()->currentIndex(), 0); // back on the timeline
        };
        clickTopRow();
        if (QTest::currentTestFailed())
            return;
        const CollectiveInstance& top = cv->whyWaitsModel()->instance(
            static_cast<std::size_t>(proxy->mapToSource(proxy->index(0, 0)).row()));
        QCOMPARE(top.lastRank, 1); // the generator's slow rank arrives last
        QCOMPARE(top.lastRankIndex, r1);
        QVERIFY(!top.causeSlices.empty());
        QCOMPARE(w.selection()->currentRank(), -1); // All ranks stays, aligned
        const TimeRange window{top.windowBegin - kPlanted, top.windowEnd - kPlanted};
        QVERIFY2(std::abs(static_cast<double>(centre(w.selection()->visibleRange()) - centre(window))) <= nsPerPixel(w),
                 qPrintable(QStringLiteral("window centre %1, late window centre %2 (file %3)")
                                .arg(centre(w.selection()->visibleRange()))
                                .arg(centre(window))
                                .arg(centre({top.windowBegin, top.windowEnd}))));
        QCOMPARE(w.selection()->selectedRange(), std::optional<TimeRange>(window));
        QCOMPARE(w.selection()->selectedTask(), (TaskRef{r1, top.causeSlices.front()}));
        const QRectF cause = tl->sliceRectFor(r1, top.causeSlices.front());
        QVERIFY2(!cause.isEmpty() && cause.intersects(QRectF(tl->contentRect())), "the reason's slice is on screen");

        // Raw clocks, the override cleared: the same search and the same row land on file time.
        AppSettings::setClockOffsets(QString::fromStdString(s->root), {});
        raw->trigger();
        QVERIFY(raw->isChecked());
        QCOMPARE(tl->clockShift(r1), TimeNs(0));
        const std::optional<std::uint32_t> again = searchTo(w, QString::fromStdString(*name), r1, mid);
        QVERIFY(again);
        const TimeNs fileCentre = p1.slices.start[*again] + p1.slices.dur[*again] / 2;
        QVERIFY(std::abs(static_cast<double>(centre(w.selection()->visibleRange()) - fileCentre)) <= nsPerPixel(w));
        QVERIFY(QTest::qWaitFor([cv] { return !cv->collectivesPending(); }, 60000));
        clickTopRow();
        if (QTest::currentTestFailed())
            return;
        const CollectiveInstance& rawTop = cv->whyWaitsModel()->instance(
            static_cast<std::size_t>(proxy->mapToSource(proxy->index(0, 0)).row()));
        QCOMPARE(w.selection()->currentRank(), -1);
        QVERIFY(std::abs(static_cast<double>(centre(w.selection()->visibleRange())
                                             - centre({rawTop.windowBegin, rawTop.windowEnd})))
                <= nsPerPixel(w));
        raw->trigger(); // aligned again, by the estimate
        QVERIFY(!raw->isChecked());
        QVERIFY(std::abs(tl->clockShift(r1) - kPlanted) <= kEstimateSlack);
        QVERIFY(QTest::qWaitFor([cv] { return !cv->collectivesPending(); }, 60000));

        // Rank 0 shown alone: the row opens the late rank alone, in its own file time.
        testing::clickComboItem(ranks, ranks->itemText(ranks->findData(r0)));
        QCOMPARE(w.selection()->currentRank(), r0);
        clickTopRow();
        if (QTest::currentTestFailed())
            return;
        const CollectiveInstance& alone = cv->whyWaitsModel()->instance(
            static_cast<std::size_t>(proxy->mapToSource(proxy->index(0, 0)).row()));
        QCOMPARE(w.selection()->currentRank(), alone.lastRankIndex);
        QCOMPARE(tl->clockShift(alone.lastRankIndex), TimeNs(0));
        QVERIFY(
            std::abs(static_cast<double>(centre(w.selection()->visibleRange()) - centre({alone.windowBegin, alone.windowEnd})))
            <= nsPerPixel(w));
        QCOMPARE(w.selection()->selectedRange(), std::optional<TimeRange>(TimeRange{alone.windowBegin, alone.windowEnd}));
    }

    // A range selected under All ranks is in aligned time: the Operators ranking counts each
    // rank's tasks over the range shifted to that rank's file time (rank 1: + 3 ms), the sum of
    // the two ranks' own rankings over their shifted ranges, not the range read as file time.
    void rankingOverAnAlignedRange()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(load(w, m_dir.path()));
        const SessionPtr s = w.selection()->session();
        QVERIFY(s && s->ranks.size() == 2);
        const int r1 = indexOfRank(*s, 1);
        QComboBox* ranks = rankCombo(w);
        QVERIFY(ranks);
        testing::clickComboItem(ranks, QStringLiteral("All ranks"));
        AppSettings::setClockOffsets(QString::fromStdString(s->root), {{1, kPlanted}});
        QAction* raw = w.findChild<QAction*>(QStringLiteral("actionRawClocks"));
        QVERIFY(raw);
        raw->trigger();
        raw->trigger();
        QCOMPARE(w.timeline()->clockShift(r1), kPlanted);
        auto* view = w.findChild<OperatorRankingView*>();
        QVERIFY(view);

        // 2 ms from 1 ms after rank 1's first event, as drawn: read as file time, the range would
        // end before rank 1 begins.
        const Profile& p1 = *s->ranks[static_cast<std::size_t>(r1)];
        const TimeNs b = p1.begin - kPlanted + 1'000'000, e = b + 2'000'000;
        w.selection()->setSelectedRange(TimeRange{b, e});
        QTRY_VERIFY(view->model()->range().has_value());
        auto counted = [](const OpStatsResult& r) {
            std::uint64_t n = 0;
            for (const OpGroupStats& g : r.groups)
                n += g.count;
            return n;
        };
        std::uint64_t expected = 0, asFileTime = 0;
        for (std::size_t i = 0; i < s->ranks.size(); ++i) {
            OpStatsOptions o;
            o.rankGenericSlices = true;
            const TimeNs shift = static_cast<int>(i) == r1 ? kPlanted : 0;
            o.rangeBegin = b + shift;
            o.rangeEnd = e + shift;
            expected += counted(computeOpStats(*s->ranks[i], o));
            o.rangeBegin = b;
            o.rangeEnd = e;
            asFileTime += counted(computeOpStats(*s->ranks[i], o));
        }
        QVERIFY(expected > 0);
        QVERIFY2(expected != asFileTime, "the range as file time counts the same tasks: choose another range");
        QTRY_COMPARE(counted(view->model()->stats()), expected);

        // Raw clocks: the same range is file time on every rank.
        AppSettings::setClockOffsets(QString::fromStdString(s->root), {});
        raw->trigger();
        QVERIFY(raw->isChecked());
        QTRY_COMPARE(counted(view->model()->stats()), asFileTime);
        raw->trigger();
    }
};

NPUSCOPE_TEST_MAIN(TestAlignedReveal)

} // namespace test_aligned_reveal

#include "test_aligned_reveal.moc"
