// The shared zoom/selection arithmetic: every number here is worked out by hand from the
// rules in selection_controller.h (zoom around an anchor, pan by a window fraction, clamping
// to the trace, undo of zooms only, reveal with a 10 % margin).
#include "test_main.h"
#include "views/selection_controller.h"

#include <QSignalSpy>
#include <QTest>

namespace test_selection_controller {

using namespace npuscope;

namespace {

// One rank spanning [1000, 1001000) ns: a 1 ms trace with a task at [201000, 211000).
SessionPtr makeSession()
{
    auto p = std::make_shared<Profile>();
    p->name = "hand";
    const TrackId t = p->trackFor(1, 1);
    p->slices.add(1000, 1000000, p->strings.intern("step"), p->strings.intern("cpu_op"), t);
    p->slices.add(201000, 10000, p->strings.intern("MatMul"), p->strings.intern("cpu_op"), t);
    p->finalize();
    auto s = std::make_shared<Session>();
    s->ranks.push_back(p);
    return s;
}

} // namespace

class TestSelectionController : public QObject {
    Q_OBJECT
private slots:
    void setSessionFitsAll()
    {
        SelectionController c;
        QSignalSpy spy(&c, &SelectionController::visibleRangeChanged);
        c.setSession(makeSession());
        QCOMPARE(c.fullRange(), (TimeRange{1000, 1001000}));
        QCOMPARE(c.visibleRange(), (TimeRange{1000, 1001000}));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(c.currentRank(), -1);
        QVERIFY(!c.selectedRange());
    }

    void zoomPanUndo()
    {
        SelectionController c;
        c.setSession(makeSession());
        // Half the width around the centre 501000: begin = 501000 - 500000 * 0.5.
        c.zoomBy(0.5, 501000);
        QCOMPARE(c.visibleRange(), (TimeRange{251000, 751000}));
        QCOMPARE(c.undoDepth(), std::size_t(1));
        // Anchor off-centre keeps its screen position: 101000 - (101000 - 251000) * 0.8 = 221000.
        c.zoomBy(0.8, 101000);
        QCOMPARE(c.visibleRange(), (TimeRange{221000, 621000}));
        // Pan by 10 % of a 400000 wide window; pans are not undo steps.
        c.panBy(0.1);
        QCOMPARE(c.visibleRange(), (TimeRange{261000, 661000}));
        QCOMPARE(c.undoDepth(), std::size_t(2));
        // Panning past the end stops at the end, keeping the width.
        c.panBy(10);
        QCOMPARE(c.visibleRange(), (TimeRange{601000, 1001000}));
        c.panBy(-10);
        QCOMPARE(c.visibleRange(), (TimeRange{1000, 401000}));
        QVERIFY(c.undoZoom());
        QCOMPARE(c.visibleRange(), (TimeRange{251000, 751000}));
        QVERIFY(c.undoZoom());
        QCOMPARE(c.visibleRange(), (TimeRange{1000, 1001000}));
        QVERIFY(!c.undoZoom());
    }

    void fitAllAndClamp()
    {
        SelectionController c;
        c.setSession(makeSession());
        c.setVisibleRange({300000, 400000});
        c.fitAll();
        QCOMPARE(c.visibleRange(), c.fullRange());
        QVERIFY(c.undoZoom());
        QCOMPARE(c.visibleRange(), (TimeRange{300000, 400000}));
        // Wider than the trace: the whole trace.
        c.setVisibleRange({-5000000, 5000000});
        QCOMPARE(c.visibleRange(), (TimeRange{1000, 1001000}));
        // Narrower than the 100 ns minimum: grown around its centre (500020 - 50).
        c.setVisibleRange({500000, 500040});
        QCOMPARE(c.visibleRange(), (TimeRange{499970, 500070}));
        // Zooming out from there by 2x around 500020: 500020 - 50 * 2 = 499920, width 200.
        c.zoomBy(2.0, 500020);
        QCOMPARE(c.visibleRange(), (TimeRange{499920, 500120}));
    }

    void selection()
    {
        SelectionController c;
        c.setSession(makeSession());
        QSignalSpy rangeSpy(&c, &SelectionController::selectedRangeChanged);
        c.setSelectedRange(TimeRange{5000, 2000}); // reversed: swapped
        QCOMPARE(*c.selectedRange(), (TimeRange{2000, 5000}));
        c.setSelectedRange(TimeRange{7000, 7000}); // empty: cleared
        QVERIFY(!c.selectedRange());
        QCOMPARE(rangeSpy.count(), 2);
        c.setSelectedRange(TimeRange{1, 2});
        c.setSelectedTask(TaskRef{0, 1});
        c.clearSelection();
        QVERIFY(!c.selectedRange());
        QVERIFY(!c.selectedTask().valid());
    }

    void revealTask()
    {
        SelectionController c;
        c.setSession(makeSession());
        const Profile& p = *c.session()->ranks[0];
        std::uint32_t row = 0;
        while (p.str(p.slices.name[row]) != "MatMul")
            ++row;
        c.revealTask(TaskRef{0, row});
        QCOMPARE(c.selectedTask(), (TaskRef{0, row}));
        // [201000, 211000) with 10 % (1000 ns) margin on each side.
        QCOMPARE(c.visibleRange(), (TimeRange{200000, 212000}));
    }
};

NPUSCOPE_TEST_MAIN(TestSelectionController)

} // namespace test_selection_controller

#include "test_selection_controller.moc"
