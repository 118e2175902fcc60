#pragma once
// The one zoom/selection object every view subscribes to (STYLE.md practice 8): the visible
// time window, the selected time range, the selected task and the selected operator. Views set
// it and follow its signals; none of them keeps its own copy of these.
#include "model/store/session.h"

#include <QObject>
#include <QString>

#include <optional>

namespace npuscope {

struct TaskRef {
    int rankIndex = -1;          // index into Session::ranks
    std::uint32_t slice = kNone; // slice row in that Profile
    bool valid() const { return rankIndex >= 0 && slice != kNone; }
    bool operator==(const TaskRef&) const = default;
};

struct TimeRange {
    TimeNs begin = 0, end = 0;
    bool empty() const { return end <= begin; }
    bool operator==(const TimeRange&) const = default;
};

class SelectionController : public QObject {
    Q_OBJECT
public:
    explicit SelectionController(QObject* parent = nullptr);

    void setSession(SessionPtr session); // resets everything, visible window = whole span
    const SessionPtr& session() const { return m_session; }
    int currentRank() const { return m_rank; } // index into Session::ranks, -1 = all
    TimeRange fullRange() const { return m_full; }
    // The window zooming and panning keep inside: the full range, or what setViewBounds set
    // (two runs compared side by side share one relative extent, so each may show time beyond
    // its own trace and both windows stay the same width at the same offset).
    TimeRange viewBounds() const { return m_bounds ? *m_bounds : m_full; }
    // The time the ruler and tooltips count from: the trace start, or what setTimeOrigin set
    // (the aligned step's start in a side-by-side comparison).
    TimeNs timeOrigin() const { return m_origin ? *m_origin : m_full.begin; }
    QString timeOriginName() const { return m_origin ? m_originName : tr("trace start"); }
    TimeRange visibleRange() const { return m_visible; }
    std::optional<TimeRange> selectedRange() const { return m_range; }
    TaskRef selectedTask() const { return m_task; }
    QString selectedOperator() const { return m_operator; } // OP Type or Op Name key, "" = none

    // The time axis the views draw on: a rank's file time, or, while All ranks shows a cluster's
    // ranks together, aligned time = file time − the rank's clock offset
    // (model/analysis/clock_align.h). The visible window and the selected range are in that
    // time; slices and the model keep file time. clockShift() is the one conversion: every
    // view that turns a slice's file time into its axis (drawing, search, reveal, a jump from a
    // table) takes it off, and adds it back to read a rank's rows at an axis time.
    const std::vector<TimeNs>& clockOffsets() const { return m_clockOffsets; } // [rank index]
    TimeNs clockOffset(int rankIndex) const; // the rank's offset whatever is shown, 0 when none
    TimeNs clockShift(int rankIndex) const;  // what is taken off now: the offset while All ranks is shown
    TimeNs viewTime(int rankIndex, TimeNs fileTime) const { return fileTime - clockShift(rankIndex); }

public slots:
    void setCurrentRank(int rankIndex);
    // Both are reset by setSession; setViewBounds shows the whole bounds (fitAll).
    void setViewBounds(std::optional<TimeRange> bounds);
    void setTimeOrigin(std::optional<TimeNs> origin, const QString& name = {});
    void setVisibleRange(TimeRange r);       // clamped; pushes the previous one on the undo stack
    void zoomBy(double factor, TimeNs anchor);// factor < 1 zooms in around anchor
    void panBy(double fractionOfWindow);
    void fitAll();
    bool undoZoom();
    // Clear the selected range and task (Esc).
    void clearSelection();
    void setSelectedRange(std::optional<TimeRange> r);
    void setSelectedTask(TaskRef t);
    void setSelectedOperator(const QString& key);
    // Per rank index, the clock offsets of the ranks (aligned = file − offset); empty: none.
    void setClockOffsets(std::vector<TimeNs> offsets);
    // Show a task: select it and zoom to it with 10 % margin on each side, in the time it is
    // drawn in (clockShift). A rank shown alone gives way to the task's rank; All ranks stays.
    void revealTask(TaskRef t);
    // Show rank `rankIndex`'s file-time range [begin, end) the same way: the rank chosen as
    // revealTask does, the range selected and shown with 10 % of its width (at least
    // `minMargin`) on each side, both in the time drawn.
    void revealRange(int rankIndex, TimeRange fileRange, TimeNs minMargin = 1);
    // The command line's --zoom and --select, in offsets from the trace start: show [begin,
    // end); select [begin, end) and show it with 10 % of its width on each side.
    void zoomToOffsets(TimeNs begin, TimeNs end);
    void selectOffsets(TimeNs begin, TimeNs end);

signals:
    void sessionChanged();
    void currentRankChanged(int rankIndex);
    void visibleRangeChanged(npuscope::TimeRange r);
    void selectedRangeChanged(std::optional<npuscope::TimeRange> r);
    void selectedTaskChanged(npuscope::TaskRef t);
    void selectedOperatorChanged(const QString& key);
    void clockOffsetsChanged();

public:
    // The narrowest window a zoom may reach: below this nothing more is resolved on screen.
    static constexpr TimeNs kMinVisibleNs = 100;
    TimeRange clamped(TimeRange r) const;        // what setVisibleRange(r) would show
    std::size_t undoDepth() const { return m_undo.size(); }

private:
    void applyVisible(TimeRange r, bool pushUndo);

    SessionPtr m_session;
    int m_rank = -1;
    TimeRange m_full, m_visible;
    std::optional<TimeRange> m_bounds;
    std::optional<TimeNs> m_origin;
    QString m_originName;
    std::optional<TimeRange> m_range;
    TaskRef m_task;
    QString m_operator;
    std::vector<TimeRange> m_undo;
    std::vector<TimeNs> m_clockOffsets; // [rank index]
};

} // namespace npuscope
