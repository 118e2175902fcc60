#pragma once
// The timeline: one lane per track of every rank, grouped by rank then process, with nested
// slices stacked, a time ruler and a legend. It owns no data: the session comes from the
// SelectionController, and zoom/selection go through it (STYLE.md practice 8).
// Drawing builds a draw list first (visible slices by binary search, sub-pixel slices folded
// into one mark with a count), then paints it; hit tests use the same list. Only the rows on
// screen are visited (found by binary search on their y), so the cost of a paint does not grow
// with the number of ranks. Rank groups collapse and expand (click a header, or the context
// menu of the label column for all ranks); a session of more than kExpandedRanks ranks opens
// with only its first rank expanded, and a rank's Python and CANN groups open collapsed when
// they would push its device streams below the fold. Names too long for the label column are
// elided in the middle; the tooltip has the whole name.
#include "views/selection_controller.h"
#include "views/timeline_layout.h"

#include <QAbstractScrollArea>
#include <QHash>
#include <QStaticText>
#include <QStringList>

#include <array>
#include <chrono>
#include <optional>

#include <vector>

class QElapsedTimer;

namespace npuscope {

class CausalModel;
struct IdleGap;

class TimelineView : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit TimelineView(SelectionController* sel, QWidget* parent = nullptr);

    // Zoom step of W/S, + / − and one Ctrl+wheel notch: the window shrinks to 80 % (or grows
    // to 125 %) around the mouse cursor (around the centre when the cursor is outside the
    // slice area).
    static constexpr double kZoomInFactor = 0.8;
    static constexpr double kZoomOutFactor = 1.25;
    // Pan step of A/D, ←/→ and one Shift+wheel notch, as a fraction of the window.
    static constexpr double kPanFraction = 0.1;
    static constexpr int kLabelWidth = 200;
    static constexpr int kRulerHeight = 24;
    static constexpr int kLegendHeight = 20;
    static constexpr int kRowHeight = 16;
    static constexpr int kHeaderHeight = 20;
    static constexpr int kExpandedRanks = 16;

    // For tests and the window.
    int laneCount() const;
    QStringList laneNames() const;
    std::size_t visibleSliceCount() const; // slices intersecting the visible range in expanded lanes
    std::size_t drawnItemCount() const;    // draw items after merging (lanes on screen)
    const TimelineLayout& layout() const { return m_layout; }
    void setGroupCollapsed(int groupIndex, bool collapsed);
    // Collapses or expands every rank group at once (one relayout).
    void setAllRanksCollapsed(bool collapsed);
    // The rank header group of rank index `rank`, -1 when none.
    int rankGroup(int rank) const;
    int rowCount() const { return static_cast<int>(m_rows.size()); } // headers and lanes laid out
    // Row `row`'s label as the label column draws it (elided to fit), and in full as its
    // tooltip says it; "" out of range.
    QString rowLabel(int row) const;
    QString rowLabelFull(int row) const;
    // The row at viewport y, -1 when none.
    int rowIndexAt(int viewportY) const;
    int shownLaneCount() const;            // lanes laid out (not collapsed, of the shown ranks)
    // Lanes the last draw list visited, in display order: those intersecting the viewport.
    const std::vector<int>& drawnLanes() const;
    // Scrolls vertically so lane `lane` is on screen (expanding its groups); false when hidden.
    bool ensureLaneVisible(int lane);
    // The x of time t in viewport coordinates, and back.
    double xOf(TimeNs t) const;
    TimeNs timeAt(double x) const;
    QRect contentRect() const; // the slice area of the viewport (right of labels, below ruler)
    // What the ruler shows for the selected range ("↔ 4.00 ms"), empty without one.
    QString rangeLabel() const;

    // What is taken off rank `rank`'s file times as drawn now: its clock offset while "All
    // ranks" draws the ranks together (aligned = file − offset, model/analysis/clock_align.h),
    // else 0 (SelectionController::clockShift, where the window sets the offsets). Only the
    // drawing moves: the model's times and the selected task stay in file time. Drawing, hit
    // tests, search, reveal and the time readouts all go through it.
    TimeNs clockShift(int rank) const { return m_sel->clockShift(rank); }
    // The viewport rectangle slice `slice` of rank `rank` is drawn in, empty when hidden.
    QRectF sliceRectFor(int rank, std::uint32_t slice) const { return sliceRect(rank, slice); }

    // Time a frame may take before names drawn for the first time wait for the next frame
    // (default 8 ms), and whether the last frame left some for the next.
    void setLabelBudget(std::chrono::nanoseconds budget) { m_labelBudgetNs = budget.count(); }
    bool labelsDeferred() const { return m_labelsDeferred; }

    // The causal model (idle_lane.h): once it is ready, each rank gets an "Idle causes" lane
    // under its Overlap Analysis lanes, and its critical path is outlined while shown (key P).
    void setCausalModel(CausalModel* model);
    // Drawn in the last frame: the idle time of the gaps in the Idle causes lanes by cause (ns,
    // clipped to the visible range), and the slices outlined as on the critical path.
    const std::array<TimeNs, 8>& drawnIdleByCause() const { return m_drawnIdle; }
    std::size_t drawnPathItemCount() const { return m_drawnPathItems; }
    // The viewport rectangle of gap `gap` of rank `rank` (index into IdleCauses::gaps), empty
    // when not on screen.
    QRectF idleGapRect(int rank, std::size_t gap) const;

    QString searchText() const { return m_search; }
    std::size_t matchCount() const { return m_matches.size(); }
    int currentMatch() const { return m_matchIndex; } // the match Enter went to, -1 before
    // The matches in the order Enter steps through them: by start as drawn (aligned while All
    // ranks shows shifted ranks).
    const std::vector<TaskRef>& matches() const { return m_matches; }

public slots:
    void setSearchText(const QString& text);
    void nextMatch();
    void previousMatch();

signals:
    void searchResultsChanged(int count);
    void currentMatchChanged(int index, int count);

protected:
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;
    bool viewportEvent(QEvent* e) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    struct Row {            // one vertical entry: a group header or a lane
        int group = -1;     // header of this group, or -1
        int lane = -1;      // lane, or -1
        int y = 0, height = 0; // content coordinates
    };
    struct DrawItem {
        QRectF rect;
        std::uint32_t slice = kNone; // first slice (merged: the first folded one)
        std::uint32_t count = 1;     // > 1: merged sub-pixel slices
        int lane = -1;
        std::uint8_t color = 0;
        bool merged = false;
        bool hit = false;            // search hit
        bool hatched = false;        // idle/free
    };

    void onSessionChanged();
    void collapseHostGroupsAboveFold();
    void relayoutRows();
    void invalidate();
    void buildDrawList() const;
    void updateScrollBars();
    void onHorizontalScroll(int value);
    const DrawItem* itemAt(const QPoint& pos) const;
    const Row* rowAt(int viewportY) const;
    // [first, last) indices of m_rows intersecting the content area at the current scroll.
    std::pair<std::size_t, std::size_t> visibleRows() const;
    void onSelectedTaskChanged();
    QString tooltipFor(const DrawItem& item) const;
    QRectF sliceRect(int rank, std::uint32_t slice) const; // viewport rect, empty when hidden
    bool laneVisible(int lane) const;
    bool sliceMatches(int rank, std::uint32_t row) const;
    void sortMatches(); // by start as drawn, keeping the current match
    // The passes of a frame, in the order paintEvent runs them.
    void drawLaneBands(QPainter& p, std::size_t firstRow, std::size_t lastRow) const;
    void drawSliceFills(QPainter& p) const;
    void drawSliceNames(QPainter& p, const QRect& cr, const QElapsedTimer& clock) const;
    void drawSelection(QPainter& p, const QRect& cr) const;
    void drawLaneLabels(QPainter& p, std::size_t firstRow, std::size_t lastRow) const;
    void drawRuler(QPainter& p) const;
    void drawLegend(QPainter& p) const;
    void drawFlows(QPainter& p) const;
    // timeline_view_causal.cpp: the Idle causes lanes and the critical path.
    void addIdleLanes();
    void drawCausal(QPainter& p, std::size_t firstRow, std::size_t lastRow) const;
    void drawCriticalPath(QPainter& p) const;
    struct IdleHit {
        int rank = -1;
        const IdleGap* gap = nullptr;
    };
    IdleHit idleGapAt(const QPoint& pos) const;
    QString idleTooltip(const IdleHit& hit) const;
    QString idleLegendTooltip(int row) const; // the legend for an Idle causes row, else ""
    bool selectIdleGap(const QPoint& pos);   // a click on a gap selects its host op

    SelectionController* m_sel;
    CausalModel* m_causal = nullptr;
    mutable std::array<TimeNs, 8> m_drawnIdle{};
    mutable std::size_t m_drawnPathItems = 0;
    TimelineLayout m_layout;
    std::vector<Row> m_rows;
    std::vector<int> m_laneRow;     // lane -> index into m_rows, -1 when collapsed/filtered
    int m_contentHeight = 0;

    // Slice names as drawn in their rectangles, per (rank, string id): the QString, its full
    // width in the label font and its laid-out text, so a frame converts, measures and shapes
    // each distinct name once. A name that does not fit is cut after the longest prefix that
    // fits with an ellipsis: the prefixes' widths are measured once per name, and each cut is
    // laid out once. Cleared when the session or the font changes.
    struct LabelText {
        QString text;
        int width = 0;
        QStaticText shaped;
        std::vector<int> cutWidth; // [i]: width of the first i characters and "…"; filled when needed
    };
    mutable QHash<quint64, LabelText> m_labels;
    mutable QHash<QPair<quint64, int>, QStaticText> m_cuts; // (name key, characters kept)
    mutable qreal m_labelPointSize = 0;
    qint64 m_labelBudgetNs = 8'000'000;
    mutable bool m_labelsDeferred = false;
    void clearLabelCache() const;
    mutable std::vector<DrawItem> m_items;
    mutable std::vector<int> m_drawnLanes;
    mutable bool m_dirty = true;

    // Search: matching names per rank (by NameId), and the matching slices in time order.
    QString m_search;
    std::vector<std::vector<char>> m_nameMatch;
    std::vector<TaskRef> m_matches;
    int m_matchIndex = -1;

    enum class Drag { None, Pending, Pan, Select };
    Drag m_drag = Drag::None;
    QPoint m_pressPos;
    QPoint m_lastPos;
    TimeNs m_pressTime = 0;
    bool m_pressOnSlice = false;
    bool m_pressInRuler = false;
    bool m_syncingScrollBar = false;
    std::optional<QPoint> m_hoverPos; // the mouse over the viewport, none once it left
};

} // namespace npuscope
