// The timeline on a hand-built profile whose every slice is known: lanes and their order,
// slices found in a window, sub-pixel folding, keyboard zoom/pan exactly as the controller's
// arithmetic says, mouse selection and the plots' highlighted band.
#include "test_main.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"
#include "views/selection_controller.h"
#include "views/timeline_view.h"
#include "views/utilization_plots.h"

#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <qcustomplot.h>

namespace test_timeline_view {

using namespace npuscope;

namespace {

TrackId addTrack(Profile& p, std::int64_t pid, std::int64_t tid, TrackKind kind, const char* process, const char* thread,
                 std::int64_t stream = -1)
{
    const TrackId t = p.trackFor(pid, tid);
    Track& tr = p.tracks[t.v];
    tr.kind = kind;
    tr.process = p.strings.intern(process);
    tr.thread = p.strings.intern(thread);
    tr.streamId = stream;
    return t;
}

// Span [0, 1000000) ns.
//  Python "Thread 7": step [0,1e6) > fwd [1e5,2e5), bwd [3e5,6e5) > mm [3.5e5,4e5)   (3 levels)
//  Stream 2: MatMul [1e5,1.5e5), [1.6e5,1.7e5), [5e5,9e5)
//  Stream 3: hcom_allReduce [2e5,4e5), instant "mark" at 9.5e5
//  Stream 4: 1000 tasks of 10 ns every 100 ns from 0 (all far below a pixel at full view)
SessionPtr makeSession()
{
    auto p = std::make_shared<Profile>();
    p->name = "hand";
    p->rank = 0;
    const TrackId s4 = addTrack(*p, 2, 4, TrackKind::Stream, "Ascend Hardware", "Stream 4", 4);
    const TrackId s3 = addTrack(*p, 2, 3, TrackKind::Stream, "Ascend Hardware", "Stream 3", 3);
    const TrackId s2 = addTrack(*p, 2, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2", 2);
    const TrackId py = addTrack(*p, 1, 7, TrackKind::Python, "Python", "Thread 7");
    auto n = [&p](const char* s) { return p->strings.intern(s); };
    p->slices.add(0, 1000000, n("step"), n("cpu_op"), py);
    p->slices.add(100000, 100000, n("fwd"), n("cpu_op"), py);
    p->slices.add(300000, 300000, n("bwd"), n("cpu_op"), py);
    const std::uint32_t mmArgs = p->args.addRow({{n("Call stack"), n("model.py(12): forward\nrun.py(3): <module>")},
                                                 {n("Input Dims"), n("[[4, 8], [8, 2]]")}});
    p->slices.add(350000, 50000, n("mm"), n("cpu_op"), py, kNone, mmArgs);
    p->slices.add(100000, 50000, n("MatMul"), n("AI_CORE"), s2);
    p->slices.add(160000, 10000, n("MatMul"), n("AI_CORE"), s2);
    p->slices.add(500000, 400000, n("MatMul"), n("AI_CORE"), s2);
    p->slices.add(200000, 200000, n("hcom_allReduce"), n("HCCL"), s3);
    p->slices.add(950000, 0, n("mark"), n("HCCL"), s3);
    for (int i = 0; i < 1000; ++i)
        p->slices.add(i * 100, 10, n("Add"), n("AI_VECTOR_CORE"), s4);
    p->finalize();
    auto s = std::make_shared<Session>();
    s->ranks.push_back(p);
    return s;
}

std::uint32_t rowOf(const Profile& p, const char* name, TimeNs start)
{
    for (std::uint32_t r = 0; r < p.slices.size(); ++r)
        if (p.str(p.slices.name[r]) == name && p.slices.start[r] == start)
            return r;
    return kNone;
}

} // namespace

class TestTimelineView : public QObject {
    Q_OBJECT
private slots:
    void lanes()
    {
        SelectionController sel;
        TimelineView view(&sel);
        sel.setSession(makeSession());
        QCOMPARE(view.laneCount(), 4);
        // Host side first, streams by stream id.
        QCOMPARE(view.laneNames(), (QStringList{"Thread 7", "Stream 2", "Stream 3", "Stream 4"}));
        QCOMPARE(view.layout().lanes[0].levels.size(), std::size_t(3)); // nesting depth 0..2
    }

    // A plain Chrome trace without process_name metadata: its processes are named by pid, not
    // all "other"; a named one keeps its name.
    void unnamedProcessesByPid()
    {
        auto p = std::make_shared<Profile>();
        p->name = "trace.json";
        const TrackId a = p->trackFor(21253, 21253);
        const TrackId b = p->trackFor(21296, 21296);
        p->tracks[b.v].process = p->strings.intern("Browser");
        p->slices.add(0, 10, p->strings.intern("a"), NameId(0), a);
        p->slices.add(5, 10, p->strings.intern("b"), NameId(0), b);
        p->finalize();
        auto s = std::make_shared<Session>();
        s->ranks.push_back(p);
        TimelineLayout layout;
        layout.build(s);
        QStringList titles;
        for (const LaneGroup& g : layout.groups)
            if (!g.rankHeader)
                titles << g.title;
        titles.sort();
        QCOMPARE(titles, (QStringList{"Browser", "Process 21253"}));
    }

    // Names too long for the label column lose their middle, the rank and device stay whole,
    // and the tooltip over the label has the whole name.
    void longNamesElidedInTheMiddle()
    {
        auto p = std::make_shared<Profile>();
        p->name = "node00-ascend-training-cluster-a_2732569_20260606121448940_ascend_pt";
        p->rank = 0;
        p->devices = {0};
        const TrackId t = addTrack(*p, 2, 2, TrackKind::Stream, "Ascend Hardware",
                                   "Stream 2 (HCCL world group of every rank, allreduce ring 0)", 2);
        p->slices.add(0, 1000, p->strings.intern("MatMul"), p->strings.intern("AI_CORE"), t);
        p->finalize();
        auto s = std::make_shared<Session>();
        s->ranks.push_back(p);
        SelectionController sel;
        TimelineView view(&sel);
        view.resize(1000, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        sel.setSession(s);
        QCOMPARE(view.rowCount(), 3); // the rank, its process, the stream

        const QString fullTitle = QStringLiteral("Rank 0 / NPU 0  (%1)").arg(QString::fromStdString(p->name));
        QCOMPARE(view.rowLabelFull(0), fullTitle);
        const QString header = view.rowLabel(0);
        QVERIFY2(header.startsWith(QStringLiteral("▾ Rank 0 / NPU 0  (n")), qPrintable(header));
        QVERIFY2(header.endsWith(QStringLiteral("pt)")) && header.contains(QChar(0x2026)), qPrintable(header));
        QFont bold = view.font();
        bold.setBold(true);
        QVERIFY(QFontMetrics(bold).horizontalAdvance(header) <= TimelineView::kLabelWidth - 4);

        const QString lane = view.rowLabel(2);
        QVERIFY2(lane.startsWith(QStringLiteral("Stream 2 (")) && lane.endsWith(QStringLiteral("ring 0)")), qPrintable(lane));
        QVERIFY(lane.contains(QChar(0x2026)));
        QVERIFY(view.fontMetrics().horizontalAdvance(lane) <= TimelineView::kLabelWidth - 34);

        // The tooltip over the stream's label: its process and its whole name.
        const QPoint at(40, TimelineView::kRulerHeight + 2 * TimelineView::kHeaderHeight + 8);
        QCOMPARE(view.rowIndexAt(at.y()), 2);
        QHelpEvent help(QEvent::ToolTip, at, view.viewport()->mapToGlobal(at));
        QApplication::sendEvent(view.viewport(), &help);
        QCOMPARE(QToolTip::text(), QStringLiteral("Ascend Hardware · Stream 2 (HCCL world group of every rank, allreduce ring 0)"));
    }

    void visibleSlices()
    {
        SelectionController sel;
        TimelineView view(&sel);
        view.resize(1000, 600);
        view.show();
        sel.setSession(makeSession());
        QCOMPARE(view.visibleSliceCount(), std::size_t(1009));
        // 9 wide items + the 1000 tasks of Stream 4 folded into one mark (gaps < 1 px).
        QCOMPARE(view.drawnItemCount(), std::size_t(10));
        // [300000, 450000): step, bwd, mm, hcom_allReduce; nothing of Stream 2; Stream 4 ends at 99910.
        sel.setVisibleRange({300000, 450000});
        QCOMPARE(view.visibleSliceCount(), std::size_t(4));
        // [155000, 165000): step, fwd, the second MatMul.
        sel.setVisibleRange({155000, 165000});
        QCOMPARE(view.visibleSliceCount(), std::size_t(3));
        // [0, 1000): step and the Add tasks at 0, 100, ..., 900, each 8 px wide here.
        sel.setVisibleRange({0, 1000});
        QCOMPARE(view.visibleSliceCount(), std::size_t(11));
        QCOMPARE(view.drawnItemCount(), std::size_t(11));
        // The instant at 950000 is found in a window that contains it.
        sel.setVisibleRange({949000, 951000});
        QCOMPARE(view.visibleSliceCount(), std::size_t(2)); // step + mark
        // Collapsing the rank hides every lane.
        view.setGroupCollapsed(0, true);
        QCOMPARE(view.visibleSliceCount(), std::size_t(0));
    }

    void keyboard()
    {
        SelectionController sel;
        TimelineView view(&sel);
        view.resize(1000, 600);
        view.show();
        sel.setSession(makeSession());
        QCOMPARE(sel.visibleRange(), (TimeRange{0, 1000000}));
        // W: 80 % of the width around the centre 500000.
        QTest::keyClick(&view, Qt::Key_W);
        QCOMPARE(sel.visibleRange(), (TimeRange{100000, 900000}));
        // D / A: 10 % of the 800000 window.
        QTest::keyClick(&view, Qt::Key_D);
        QCOMPARE(sel.visibleRange(), (TimeRange{180000, 980000}));
        QTest::keyClick(&view, Qt::Key_A);
        QCOMPARE(sel.visibleRange(), (TimeRange{100000, 900000}));
        QTest::keyClick(&view, Qt::Key_Right);
        QCOMPARE(sel.visibleRange(), (TimeRange{180000, 980000}));
        QTest::keyClick(&view, Qt::Key_Left);
        // S: 125 % around the centre 500000 -> the whole trace.
        QTest::keyClick(&view, Qt::Key_S);
        QCOMPARE(sel.visibleRange(), (TimeRange{0, 1000000}));
        QTest::keyClick(&view, Qt::Key_Plus);
        QTest::keyClick(&view, Qt::Key_W);
        // 0.8 * 800000 = 640000 around 500000.
        QCOMPARE(sel.visibleRange(), (TimeRange{180000, 820000}));
        QTest::keyClick(&view, Qt::Key_0, Qt::ControlModifier);
        QCOMPARE(sel.visibleRange(), (TimeRange{0, 1000000}));
        QTest::keyClick(&view, Qt::Key_Backspace);
        QCOMPARE(sel.visibleRange(), (TimeRange{180000, 820000}));
        QTest::keyClick(&view, Qt::Key_Backspace);
        QCOMPARE(sel.visibleRange(), (TimeRange{100000, 900000}));
        // Z zooms to the selected range; Esc clears it.
        sel.setSelectedRange(TimeRange{200000, 300000});
        QTest::keyClick(&view, Qt::Key_Z);
        QCOMPARE(sel.visibleRange(), (TimeRange{200000, 300000}));
        QTest::keyClick(&view, Qt::Key_Escape);
        QVERIFY(!sel.selectedRange());
    }

    void mouse()
    {
        SelectionController sel;
        TimelineView view(&sel);
        UtilizationPlots plots(&sel);
        view.resize(1000, 600);
        view.show();
        sel.setSession(makeSession());
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QWidget* vp = view.viewport();
        const QRect cr = view.contentRect();
        QCOMPARE(cr.left(), TimelineView::kLabelWidth);
        auto timeAtX = [&cr](int x) { return static_cast<TimeNs>(std::llround((x - cr.left()) * 1e6 / cr.width())); };

        // Drag along the ruler selects [t(300), t(500)].
        QTest::mousePress(vp, Qt::LeftButton, {}, QPoint(300, 10));
        QTest::mouseMove(vp, QPoint(400, 10));
        QTest::mouseMove(vp, QPoint(500, 10));
        QTest::mouseRelease(vp, Qt::LeftButton, {}, QPoint(500, 10));
        QVERIFY(sel.selectedRange());
        QCOMPARE(*sel.selectedRange(), (TimeRange{timeAtX(300), timeAtX(500)}));
        QCOMPARE(sel.visibleRange(), (TimeRange{0, 1000000})); // selecting does not pan
        QCOMPARE(plots.highlightedRange(), sel.selectedRange());

        // Click on the long MatMul of Stream 2: rows are rank header (20), Python header (20),
        // Thread 7 (3 levels: 52), Ascend Hardware header (20), then Stream 2 at content y 112.
        const Profile& p = *sel.session()->ranks[0];
        const int y = TimelineView::kRulerHeight + 112 + 8;
        const int x = static_cast<int>(view.xOf(700000));
        QTest::mouseClick(vp, Qt::LeftButton, {}, QPoint(x, y));
        QCOMPARE(sel.selectedTask(), (TaskRef{0, rowOf(p, "MatMul", 500000)}));

        // Double-click inside the selected range zooms to it.
        QTest::mouseDClick(vp, Qt::LeftButton, {}, QPoint(400, 300));
        QCOMPARE(sel.visibleRange(), *sel.selectedRange());

        // A plain drag on empty space pans: two 50 px moves to the left move the window right
        // by 50 px worth of time each.
        sel.setSelectedRange(std::nullopt);
        QCOMPARE(plots.highlightedRange(), std::optional<TimeRange>());
        sel.setVisibleRange({0, 500000});
        const TimeNs step = std::llround(500000.0 * 50 / cr.width());
        const int emptyY = TimelineView::kRulerHeight + 152 + 10; // Stream 4's lane, past its tasks
        QTest::mousePress(vp, Qt::LeftButton, {}, QPoint(900, emptyY));
        QTest::mouseMove(vp, QPoint(850, emptyY));
        QTest::mouseMove(vp, QPoint(800, emptyY));
        QTest::mouseRelease(vp, Qt::LeftButton, {}, QPoint(800, emptyY));
        QVERIFY(!sel.selectedRange());
        QCOMPARE(sel.visibleRange(), (TimeRange{2 * step, 500000 + 2 * step}));
    }

    // A plot of many curves names the highest two in its legend and counts the rest; hovering
    // reads every curve's value at that time, largest first.
    void plotLegendAndReadout()
    {
        auto p = std::make_shared<Profile>();
        p->rank = 0;
        const TrackId s2 = addTrack(*p, 2, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2", 2);
        p->slices.add(0, 1000000, p->strings.intern("MatMul"), p->strings.intern("AI_CORE"), s2);
        const NameId process = p->strings.intern("npu_module_mem");
        for (int i = 0; i < 5; ++i) {
            CounterSeries& c = p->counterFor(-2300, p->strings.intern("C" + std::to_string(i)),
                                             p->strings.intern("Total Reserved(MB)"));
            c.process = process;
            c.ts = {0, 500000};
            c.value = {10.0 * i, i == 0 ? kNaN : 100.0 + i}; // C0's second sample: no value
        }
        p->finalize();
        auto session = std::make_shared<Session>();
        session->ranks.push_back(p);
        SelectionController sel;
        UtilizationPlots plots(&sel);
        plots.resize(1000, 300);
        plots.show();
        sel.setSession(session);
        QVERIFY(QTest::qWaitForWindowExposed(&plots));
        plots.plot()->replot();
        QCOMPARE(plots.seriesNames().size(), 5);
        QCPAxisRect* rect = plots.plot()->axisRect(0);
        QVERIFY(rect);
        QCPLegend* legend = nullptr;
        for (int i = 0; i < rect->insetLayout()->elementCount(); ++i)
            legend = legend ? legend : qobject_cast<QCPLegend*>(rect->insetLayout()->elementAt(i));
        QVERIFY(legend);
        QCOMPARE(legend->itemCount(), 3);
        QCOMPARE(legend->itemWithPlottable(rect->graphs()[4]) != nullptr, true); // C4 peaks highest
        QCOMPARE(legend->itemWithPlottable(rect->graphs()[3]) != nullptr, true);
        QCOMPARE(legend->itemWithPlottable(rect->graphs()[0]), nullptr);

        const double y = rect->rect().center().y();
        const double x = rect->axis(QCPAxis::atBottom)->coordToPixel(0.25); // 0.25 ms
        QCOMPARE(plots.readoutAt(QPointF(x, y)),
                 QStringLiteral("0.250 ms\nC4 Total Reserved (sampled): 40 MB\nC3 Total Reserved (sampled): 30 MB\n"
                                "C2 Total Reserved (sampled): 20 MB\nC1 Total Reserved (sampled): 10 MB\n"
                                "C0 Total Reserved (sampled): 0 MB"));
        const double later = rect->axis(QCPAxis::atBottom)->coordToPixel(0.75);
        QVERIFY(plots.readoutAt(QPointF(later, y)).contains(QStringLiteral("C4 Total Reserved (sampled): 104 MB")));
        QVERIFY(!plots.readoutAt(QPointF(later, y)).contains(QStringLiteral("C0"))); // NaN is no value
        QCOMPARE(plots.readoutAt(QPointF(x, rect->rect().bottom() + 200)), QString());
        // Moving the mouse over the plot shows the readout.
        QTest::mouseMove(plots.plot(), QPoint(int(later), int(y)));
        QTRY_VERIFY(QToolTip::text().contains(QStringLiteral("C4 Total Reserved (sampled): 104 MB")));
    }

    void tooltipShowsTheSliceArguments()
    {
        SelectionController sel;
        TimelineView view(&sel);
        view.resize(1000, 600);
        view.show();
        sel.setSession(makeSession());
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        auto hover = [&view](TimeNs t, int depth) {
            // Thread 7's lane starts under the rank and Python headers (20 px each), its levels
            // 16 px apart from 2 px down.
            const QPoint at(static_cast<int>(view.xOf(t)), TimelineView::kRulerHeight + 40 + 2 + depth * TimelineView::kRowHeight + 6);
            QHelpEvent help(QEvent::ToolTip, at, view.viewport()->mapToGlobal(at));
            QApplication::sendEvent(view.viewport(), &help);
            return QToolTip::text();
        };
        const QString tip = hover(375000, 2); // "mm", on the third level
        QVERIFY2(tip.startsWith(QStringLiteral("<b>mm</b>")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("Call stack: model.py(12): forward<br>&nbsp;&nbsp;run.py(3): &lt;module&gt;")),
                 qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("Input Dims: [[4, 8], [8, 2]]")), qPrintable(tip));
        // A slice without arguments lists none.
        const QString step = hover(50000, 0);
        QVERIFY2(step.startsWith(QStringLiteral("<b>step</b>")), qPrintable(step));
        QVERIFY(!step.contains(QStringLiteral("Call stack")));
    }

    // Names laid out for the first time wait for the next frame once a frame has used its
    // budget; the frames that follow draw them, and the picture ends as one drawn without a
    // budget.
    void namesPastTheFrameBudgetComeInTheNextFrames()
    {
        SelectionController sel;
        sel.setSession(makeSession());
        TimelineView whole(&sel);
        whole.resize(1000, 600);
        const QImage expected = whole.grab().toImage();
        QVERIFY(!whole.labelsDeferred());

        TimelineView view(&sel);
        view.resize(1000, 600);
        view.setLabelBudget(std::chrono::nanoseconds(0)); // one new name per frame
        QImage frame = view.grab().toImage();
        QVERIFY(view.labelsDeferred());
        QVERIFY(frame != expected);
        int frames = 1;
        while (view.labelsDeferred() && frames < 50) {
            frame = view.grab().toImage();
            ++frames;
        }
        QVERIFY(!view.labelsDeferred());
        QVERIFY2(frames >= 4, qPrintable(QString::number(frames))); // step, fwd, bwd, MatMul, hcom_allReduce, …
        QCOMPARE(frame, expected);
        // In a shown window the next frame is asked for at once.
        TimelineView shown(&sel);
        shown.resize(1000, 600);
        shown.setLabelBudget(std::chrono::nanoseconds(0));
        shown.show();
        QVERIFY(QTest::qWaitForWindowExposed(&shown));
        QTRY_VERIFY(!shown.labelsDeferred());
        QCOMPARE(shown.grab().toImage(), expected);
    }

    // The flow index, built when a selected task's flows are first drawn, on a real torch_npu
    // rank: every bound endpoint of every flow once, sorted by (slice, flow), as a sort of the
    // pairs gives it.
    void flowIndexOnRealProfile()
    {
        const LoadResult lr = loadSession(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");
        QVERIFY(lr.session);
        const Profile& p = *lr.session->ranks.front();
        std::vector<std::pair<std::uint32_t, std::uint32_t>> want;
        for (std::uint32_t f = 0; f < p.flows.size(); ++f) {
            if (p.flows.srcSlice[f] != kNone)
                want.emplace_back(p.flows.srcSlice[f], f);
            if (p.flows.dstSlice[f] != kNone)
                want.emplace_back(p.flows.dstSlice[f], f);
        }
        std::sort(want.begin(), want.end());
        QVERIFY(want.size() > 1000);

        SelectionController sel;
        TimelineView view(&sel);
        view.resize(1200, 800);
        sel.setSession(lr.session);
        QVERIFY(view.layout().flowIndex(0) == want);
        // A task with flows selected and painted: its arrows are drawn from the index.
        sel.setSelectedTask({0, want.front().first});
        QVERIFY(!view.grab().isNull());
    }

    void search()
    {
        SelectionController sel;
        TimelineView view(&sel);
        view.resize(1000, 600);
        view.show();
        sel.setSession(makeSession());
        view.setSearchText(QStringLiteral("matmul"));
        QCOMPARE(view.matchCount(), std::size_t(3));
        const Profile& p = *sel.session()->ranks[0];
        QTest::keyClick(&view, Qt::Key_Return);
        QCOMPARE(sel.selectedTask().slice, rowOf(p, "MatMul", 100000));
        QTest::keyClick(&view, Qt::Key_Return);
        QCOMPARE(sel.selectedTask().slice, rowOf(p, "MatMul", 160000));
        // [160000, 170000) with 1000 ns margins.
        QCOMPARE(sel.visibleRange(), (TimeRange{159000, 171000}));
        QTest::keyClick(&view, Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(sel.selectedTask().slice, rowOf(p, "MatMul", 100000));
    }

    // A generated cluster of more ranks than open expanded: rank groups collapse and expand,
    // and a draw visits exactly the lanes on screen, wherever the view is scrolled.
    void manyRanks()
    {
        constexpr int kRanks = 20;
        static_assert(kRanks > TimelineView::kExpandedRanks);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = kRanks;
        o.steps = 1;
        const synth::SynthResult r = synth::synthesize(dir.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
        const LoadResult lr = loadSessions({dir.path().toStdString()});
        QVERIFY2(lr.session, lr.error.c_str());
        QCOMPARE(static_cast<int>(lr.session->ranks.size()), kRanks);

        // Lanes per rank from the profiles: one per track holding slices.
        std::vector<int> lanesOf;
        int total = 0;
        for (const auto& p : lr.session->ranks) {
            int n = 0;
            for (const Track& t : p->tracks)
                n += t.sliceEnd > t.sliceBegin;
            QVERIFY(n > 1);
            lanesOf.push_back(n);
            total += n;
        }

        SelectionController sel;
        TimelineView view(&sel);
        view.resize(1200, 700);
        view.show();
        sel.setSession(lr.session);
        QCOMPARE(view.laneCount(), total);
        // Only the first rank opens expanded; the others are one header each.
        QCOMPARE(view.shownLaneCount(), lanesOf[0]);
        for (int k = 1; k < kRanks; ++k)
            QVERIFY(view.layout().groups[static_cast<std::size_t>(view.rankGroup(k))].collapsed);

        view.setAllRanksCollapsed(false);
        QCOMPARE(view.shownLaneCount(), total);
        view.setGroupCollapsed(view.rankGroup(5), true);
        QCOMPARE(view.shownLaneCount(), total - lanesOf[5]);
        view.setAllRanksCollapsed(true);
        QCOMPARE(view.shownLaneCount(), 0);
        QCOMPARE(view.rowCount(), kRanks); // the rank headers
        QVERIFY(view.drawnLanes().empty());

        // A click on the header of the first rank expands it, a second one collapses it.
        QWidget* vp = view.viewport();
        const QPoint header(20, TimelineView::kRulerHeight + TimelineView::kHeaderHeight / 2);
        QTest::mouseClick(vp, Qt::LeftButton, {}, header);
        QCOMPARE(view.shownLaneCount(), lanesOf[0]);
        QTest::mouseClick(vp, Qt::LeftButton, {}, header);
        QCOMPARE(view.shownLaneCount(), 0);

        // Scrolled anywhere, the draw visits the lanes whose rows meet the content area, which
        // the test lays out itself: a rank header, then per process a header and its lanes
        // (one row of kRowHeight per nesting level + 4 px).
        view.setAllRanksCollapsed(false);
        struct Span { int lane, y, h; };
        std::vector<Span> spans;
        int y = 0;
        for (const LaneGroup& g : view.layout().groups) {
            y += TimelineView::kHeaderHeight; // rank or process header
            for (int lane : g.lanes) {
                const int h = static_cast<int>(view.layout().lanes[static_cast<std::size_t>(lane)].levels.size())
                                  * TimelineView::kRowHeight + 4;
                spans.push_back({lane, y, h});
                y += h;
            }
        }
        QScrollBar* vb = view.verticalScrollBar();
        QCOMPARE(vb->maximum(), y - view.contentRect().height());
        const int height = view.contentRect().height();
        for (const int at : {0, vb->maximum() / 3, vb->maximum() / 2, vb->maximum()}) {
            vb->setValue(at);
            std::vector<int> expected;
            for (const Span& s : spans)
                if (s.y + s.h >= at && s.y < at + height)
                    expected.push_back(s.lane);
            QVERIFY(!expected.empty());
            QCOMPARE(view.drawnLanes(), expected);
            QVERIFY(static_cast<int>(expected.size()) < total / 4); // a screenful, not all ranks
        }

        // Revealing a task of a collapsed rank expands it and scrolls its lane on screen.
        view.setAllRanksCollapsed(true);
        vb->setValue(0);
        const int rank = kRanks - 2;
        const Profile& p = *lr.session->ranks[static_cast<std::size_t>(rank)];
        std::uint32_t slice = kNone;
        for (std::uint32_t i = 0; i < p.slices.size() && slice == kNone; ++i)
            if (p.tracks[p.slices.track[i].v].kind == TrackKind::Stream)
                slice = i;
        QVERIFY(slice != kNone);
        sel.revealTask(TaskRef{rank, slice});
        const int lane = view.layout().trackLane[static_cast<std::size_t>(rank)][p.slices.track[slice].v];
        QVERIFY(!view.layout().groups[static_cast<std::size_t>(view.rankGroup(rank))].collapsed);
        QCOMPARE(view.shownLaneCount(), lanesOf[static_cast<std::size_t>(rank)]);
        const auto& drawn = view.drawnLanes();
        QVERIFY(std::find(drawn.begin(), drawn.end(), lane) != drawn.end());

        // Choosing one rank shows it alone, expanded.
        view.setAllRanksCollapsed(true);
        sel.setCurrentRank(7);
        QCOMPARE(view.shownLaneCount(), lanesOf[7]);
        QCOMPARE(view.rowCount(), 1 + static_cast<int>(view.layout().groups[static_cast<std::size_t>(view.rankGroup(7))].children.size())
                                      + lanesOf[7]);
    }
};

NPUSCOPE_TEST_MAIN(TestTimelineView)

} // namespace test_timeline_view

#include "test_timeline_view.moc"
