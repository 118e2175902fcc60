#include "views/timeline_view.h"
#include "views/format.h"

#include "model/analysis/time_axis.h"
#include "views/palette.h"
#include "views/time_format.h"

#include <QElapsedTimer>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QTextLayout>
#include <QTimer>

#include <algorithm>
#include <array>
#include <cmath>

namespace npuscope {

namespace {

// A slice label laid out once and drawn many times (plain text: a name is never markup).
QStaticText staticLabel(const QString& text)
{
    QStaticText s(text);
    s.setTextFormat(Qt::PlainText);
    s.setPerformanceHint(QStaticText::AggressiveCaching);
    return s;
}

} // namespace

TimelineView::TimelineView(SelectionController* sel, QWidget* parent) : QAbstractScrollArea(parent), m_sel(sel)
{
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setMouseTracking(true);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumHeight(160);
    horizontalScrollBar()->setRange(0, 0);
    connect(horizontalScrollBar(), &QScrollBar::valueChanged, this, &TimelineView::onHorizontalScroll);
    connect(m_sel, &SelectionController::sessionChanged, this, &TimelineView::onSessionChanged);
    connect(m_sel, &SelectionController::currentRankChanged, this, [this](int rank) {
        // The rank chosen alone is shown expanded.
        if (const int g = rankGroup(rank); g >= 0)
            m_layout.groups[static_cast<std::size_t>(g)].collapsed = false;
        relayoutRows();
        sortMatches();           // a rank alone is drawn in its file time
        onSelectedTaskChanged(); // a task revealed on another rank comes into view
    });
    connect(m_sel, &SelectionController::clockOffsetsChanged, this, [this] {
        sortMatches();
        invalidate();
    });
    connect(m_sel, &SelectionController::visibleRangeChanged, this, [this] {
        updateScrollBars();
        invalidate();
    });
    connect(m_sel, &SelectionController::selectedRangeChanged, this, [this] { viewport()->update(); });
    connect(m_sel, &SelectionController::selectedTaskChanged, this, &TimelineView::onSelectedTaskChanged);
    onSessionChanged();
}

void TimelineView::clearLabelCache() const
{
    m_labels.clear();
    m_cuts.clear();
}

void TimelineView::onSessionChanged()
{
    clearLabelCache();
    m_layout.build(m_sel->session());
    m_laneRow.assign(m_layout.lanes.size(), -1);
    // Many ranks: only the first one opens expanded, the others are one header each.
    if (m_layout.session() && m_layout.session()->ranks.size() > static_cast<std::size_t>(kExpandedRanks)) {
        bool first = true;
        for (LaneGroup& g : m_layout.groups)
            if (g.rankHeader) {
                g.collapsed = !first;
                first = false;
            }
    }
    addIdleLanes();
    collapseHostGroupsAboveFold();
    const QString search = m_search;
    m_search.clear();
    setSearchText(search);
    // Scroll positions belong to the profile they were taken in: a new one starts at its top.
    verticalScrollBar()->setValue(0);
    relayoutRows();
}

// A deep Python call stack (the level-1 sample opens ~45 rows of it) or many CANN threads push
// the device streams, what a session is opened for, out of sight: such host groups open
// collapsed, one header each. A rank is judged as if scrolled to its own header.
void TimelineView::collapseHostGroupsAboveFold()
{
    const int fold = contentRect().height();
    if (fold < 4 * kRowHeight)
        return; // not laid out yet: nothing to judge by
    for (const LaneGroup& rg : m_layout.groups) {
        if (!rg.rankHeader || rg.collapsed)
            continue;
        int y = kHeaderHeight;
        std::optional<int> streamBottom; // of the rank's first stream lane, all groups expanded
        std::vector<int> host;
        for (int ci : rg.children) {
            const LaneGroup& g = m_layout.groups[static_cast<std::size_t>(ci)];
            y += kHeaderHeight;
            for (int lane : g.lanes) {
                const Lane& l = m_layout.lanes[static_cast<std::size_t>(lane)];
                const int h = static_cast<int>(l.levels.size()) * kRowHeight + 4;
                if (l.kind == TrackKind::Stream && !streamBottom)
                    streamBottom = y + h;
                y += h;
            }
            if (!g.lanes.empty() && !streamBottom) {
                const TrackKind kind = m_layout.lanes[static_cast<std::size_t>(g.lanes.front())].kind;
                if (kind == TrackKind::Python || kind == TrackKind::Cann)
                    host.push_back(ci);
            }
        }
        if (streamBottom && *streamBottom > fold)
            for (int ci : host)
                m_layout.groups[static_cast<std::size_t>(ci)].collapsed = true;
    }
}

void TimelineView::relayoutRows()
{
    m_rows.clear();
    std::fill(m_laneRow.begin(), m_laneRow.end(), -1);
    int y = 0;
    const int rank = m_sel->currentRank();
    for (std::size_t gi = 0; gi < m_layout.groups.size(); ++gi) {
        const LaneGroup& rg = m_layout.groups[gi];
        if (!rg.rankHeader || (rank >= 0 && rg.rank != rank))
            continue;
        m_rows.push_back({static_cast<int>(gi), -1, y, kHeaderHeight});
        y += kHeaderHeight;
        if (rg.collapsed)
            continue;
        for (int ci : rg.children) {
            const LaneGroup& g = m_layout.groups[static_cast<std::size_t>(ci)];
            m_rows.push_back({ci, -1, y, kHeaderHeight});
            y += kHeaderHeight;
            if (g.collapsed)
                continue;
            for (int lane : g.lanes) {
                const int h = static_cast<int>(m_layout.lanes[static_cast<std::size_t>(lane)].levels.size()) * kRowHeight + 4;
                m_laneRow[static_cast<std::size_t>(lane)] = static_cast<int>(m_rows.size());
                m_rows.push_back({-1, lane, y, h});
                y += h;
            }
        }
    }
    m_contentHeight = y;
    updateScrollBars();
    invalidate();
}

void TimelineView::setGroupCollapsed(int groupIndex, bool collapsed)
{
    if (groupIndex < 0 || groupIndex >= static_cast<int>(m_layout.groups.size()))
        return;
    m_layout.groups[static_cast<std::size_t>(groupIndex)].collapsed = collapsed;
    relayoutRows();
}

void TimelineView::setAllRanksCollapsed(bool collapsed)
{
    for (LaneGroup& g : m_layout.groups)
        if (g.rankHeader)
            g.collapsed = collapsed;
    relayoutRows();
}

int TimelineView::rankGroup(int rank) const
{
    for (std::size_t gi = 0; gi < m_layout.groups.size(); ++gi)
        if (m_layout.groups[gi].rankHeader && m_layout.groups[gi].rank == rank)
            return static_cast<int>(gi);
    return -1;
}

int TimelineView::shownLaneCount() const
{
    return static_cast<int>(std::count_if(m_rows.begin(), m_rows.end(), [](const Row& r) { return r.lane >= 0; }));
}

const std::vector<int>& TimelineView::drawnLanes() const
{
    if (m_dirty)
        buildDrawList();
    return m_drawnLanes;
}

std::pair<std::size_t, std::size_t> TimelineView::visibleRows() const
{
    // Rows are in y order without gaps: both ends by binary search.
    const int top = verticalScrollBar()->value();
    const int bottom = top + contentRect().height(); // first content y below the area
    const auto first = std::partition_point(m_rows.begin(), m_rows.end(), [top](const Row& r) { return r.y + r.height < top; });
    const auto last = std::partition_point(first, m_rows.end(), [bottom](const Row& r) { return r.y < bottom; });
    return {static_cast<std::size_t>(first - m_rows.begin()), static_cast<std::size_t>(last - m_rows.begin())};
}

bool TimelineView::ensureLaneVisible(int lane)
{
    if (lane < 0 || lane >= static_cast<int>(m_layout.lanes.size()))
        return false;
    const Lane& l = m_layout.lanes[static_cast<std::size_t>(lane)];
    bool changed = false;
    for (int g : {rankGroup(l.rank), l.group}) {
        if (g >= 0 && m_layout.groups[static_cast<std::size_t>(g)].collapsed) {
            m_layout.groups[static_cast<std::size_t>(g)].collapsed = false;
            changed = true;
        }
    }
    if (changed)
        relayoutRows();
    if (!laneVisible(lane))
        return false; // another rank is shown alone
    const Row& row = m_rows[static_cast<std::size_t>(m_laneRow[static_cast<std::size_t>(lane)])];
    QScrollBar* vb = verticalScrollBar();
    const int h = contentRect().height();
    if (row.y + row.height <= vb->value() || row.y >= vb->value() + h)
        vb->setValue(row.y - h / 3); // entirely off screen: bring it to the upper third
    return true;
}

void TimelineView::onSelectedTaskChanged()
{
    viewport()->update();
    const TaskRef t = m_sel->selectedTask();
    if (!t.valid() || !m_layout.session() || t.rankIndex < 0 || t.rankIndex >= static_cast<int>(m_layout.trackLane.size()))
        return;
    const Profile& p = *m_layout.session()->ranks[static_cast<std::size_t>(t.rankIndex)];
    if (t.slice >= p.slices.size())
        return;
    ensureLaneVisible(m_layout.trackLane[static_cast<std::size_t>(t.rankIndex)][p.slices.track[t.slice].v]);
}

void TimelineView::invalidate()
{
    m_dirty = true;
    viewport()->update();
}

int TimelineView::laneCount() const { return static_cast<int>(m_layout.lanes.size()); }

QStringList TimelineView::laneNames() const
{
    QStringList names;
    for (const LaneGroup& g : m_layout.groups)
        if (!g.rankHeader)
            for (int lane : g.lanes)
                names << m_layout.lanes[static_cast<std::size_t>(lane)].name;
    return names;
}

bool TimelineView::laneVisible(int lane) const { return lane >= 0 && m_laneRow[static_cast<std::size_t>(lane)] >= 0; }

std::size_t TimelineView::visibleSliceCount() const
{
    const TimeRange v = m_sel->visibleRange();
    std::size_t n = 0;
    for (std::size_t i = 0; i < m_layout.lanes.size(); ++i) {
        if (!laneVisible(static_cast<int>(i)))
            continue;
        const Lane& lane = m_layout.lanes[i];
        const Profile& p = *m_layout.session()->ranks[static_cast<std::size_t>(lane.rank)];
        const TimeNs shift = clockShift(lane.rank);
        for (const LaneLevel& level : lane.levels)
            n += TimelineLayout::countIntersecting(p, level, v.begin + shift, v.end + shift);
    }
    return n;
}

std::size_t TimelineView::drawnItemCount() const
{
    if (m_dirty)
        buildDrawList();
    return m_items.size();
}

QRect TimelineView::contentRect() const
{
    const QRect r = viewport()->rect();
    return QRect(kLabelWidth, kRulerHeight, std::max(1, r.width() - kLabelWidth),
                 std::max(1, r.height() - kRulerHeight - kLegendHeight));
}

double TimelineView::xOf(TimeNs t) const
{
    const TimeRange v = m_sel->visibleRange();
    const QRect cr = contentRect();
    const double w = static_cast<double>(std::max<TimeNs>(1, v.end - v.begin));
    return cr.left() + static_cast<double>(t - v.begin) * cr.width() / w;
}

TimeNs TimelineView::timeAt(double x) const
{
    const TimeRange v = m_sel->visibleRange();
    const QRect cr = contentRect();
    const double w = static_cast<double>(v.end - v.begin);
    return v.begin + roundNs((x - cr.left()) * w / cr.width());
}

bool TimelineView::sliceMatches(int rank, std::uint32_t row) const
{
    if (m_search.isEmpty())
        return false;
    const auto& m = m_nameMatch[static_cast<std::size_t>(rank)];
    const Profile& p = *m_layout.session()->ranks[static_cast<std::size_t>(rank)];
    if (m[p.slices.name[row].v])
        return true;
    const std::uint32_t k = p.slices.kernel[row];
    return k != kNone && k < p.kernels.size() && m[p.kernels.type[k].v];
}

void TimelineView::buildDrawList() const
{
    m_items.clear();
    m_drawnLanes.clear();
    m_dirty = false;
    if (!m_layout.session())
        return;
    const TimeRange visible = m_sel->visibleRange();
    if (visible.empty())
        return;
    // The window in the file time of the lane's rank: a shifted rank is read at window + shift.
    TimeRange v = visible;
    const QRect cr = contentRect();
    const double pxPerNs = cr.width() / static_cast<double>(v.end - v.begin);
    const int scrollY = verticalScrollBar()->value();
    auto x = [&](TimeNs t) { return cr.left() + static_cast<double>(t - v.begin) * pxPerNs; };
    auto timeOfPx = [&](double px) {
        return v.begin + static_cast<TimeNs>(std::ceil((px - cr.left()) / pxPerNs));
    };

    const auto [firstRow, lastRow] = visibleRows();
    for (std::size_t ri = firstRow; ri < lastRow; ++ri) {
        const Row& row = m_rows[ri];
        if (row.lane < 0)
            continue;
        const int top = kRulerHeight + row.y - scrollY;
        m_drawnLanes.push_back(row.lane);
        const Lane& lane = m_layout.lanes[static_cast<std::size_t>(row.lane)];
        const Profile& p = *m_layout.session()->ranks[static_cast<std::size_t>(lane.rank)];
        const TimeNs shift = clockShift(lane.rank);
        v = {visible.begin + shift, visible.end + shift};
        const bool overlap = lane.kind == TrackKind::Overlap;
        for (std::size_t d = 0; d < lane.levels.size(); ++d) {
            const LaneLevel& level = lane.levels[d];
            const double y = top + 2 + static_cast<double>(d) * kRowHeight;
            const double h = kRowHeight - 2;
            auto [k, hi] = TimelineLayout::candidates(p, level, v.begin, v.end);
            auto span = [&](std::uint32_t r) {
                return std::pair{x(std::max(p.slices.start[r], v.begin)), x(std::min(TimelineLayout::effEnd(p, r), v.end))};
            };
            while (k < hi) {
                std::uint32_t r = level.row(k);
                auto [a, b] = span(r);
                if (!level.maxEnd.empty() && TimelineLayout::effEnd(p, r) <= v.begin) {
                    ++k; // a nested leftover ending before the window (unsorted ends)
                    continue;
                }
                if (b - a >= 1.0) {
                    DrawItem it;
                    it.rect = QRectF(a, y, b - a, h);
                    it.slice = r;
                    it.lane = row.lane;
                    it.color = m_layout.colorOf(lane.rank, r);
                    it.hit = sliceMatches(lane.rank, r);
                    it.hatched = overlap && p.str(p.slices.name[r]) == "Free";
                    m_items.push_back(it);
                    ++k;
                    continue;
                }
                // Fold a run of sub-pixel slices into one mark; a gap of a pixel or more ends it,
                // so idle time stays visible.
                DrawItem it;
                it.slice = r;
                it.lane = row.lane;
                it.color = m_layout.colorOf(lane.rank, r);
                it.merged = true;
                it.count = 0;
                const double runA = a;
                double runB = std::max(a + 1.0, b);
                while (k < hi) {
                    r = level.row(k);
                    std::tie(a, b) = span(r);
                    if (b - a >= 1.0 || (it.count > 0 && a > runB + 1.0))
                        break;
                    // Jump over everything that starts in this pixel column.
                    std::size_t j = TimelineLayout::firstStartingAtOrAfter(p, level, k + 1, hi, timeOfPx(std::floor(a) + 1.0));
                    const auto [la, lb] = span(level.row(j - 1));
                    if (j - 1 > k && lb - la >= 1.0)
                        --j; // the last one reaching far is drawn on its own
                    const TimeNs endMax = level.maxEnd.empty() ? TimelineLayout::effEnd(p, level.row(j - 1)) : level.maxEnd[j - 1];
                    runB = std::max(runB, x(std::min(endMax, v.end)));
                    it.count += static_cast<std::uint32_t>(j - k);
                    it.hit = it.hit || sliceMatches(lane.rank, r);
                    k = j;
                }
                it.rect = QRectF(runA, y, std::max(1.0, runB - runA), h);
                if (it.count == 1)
                    it.merged = false;
                m_items.push_back(it);
            }
        }
    }
}

const TimelineView::Row* TimelineView::rowAt(int viewportY) const
{
    const int cy = viewportY - kRulerHeight + verticalScrollBar()->value();
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), cy, [](int y, const Row& r) { return y < r.y; });
    if (it == m_rows.begin())
        return nullptr;
    --it;
    return cy < it->y + it->height ? &*it : nullptr;
}

const TimelineView::DrawItem* TimelineView::itemAt(const QPoint& pos) const
{
    if (m_dirty)
        buildDrawList();
    if (!contentRect().contains(pos))
        return nullptr;
    // Thin items are hard to hit: accept a pixel either side.
    for (auto it = m_items.rbegin(); it != m_items.rend(); ++it)
        if (it->rect.adjusted(-1, 0, 1, 0).contains(QPointF(pos)))
            return &*it;
    return nullptr;
}

QRectF TimelineView::sliceRect(int rank, std::uint32_t slice) const
{
    if (!m_layout.session() || rank < 0 || rank >= static_cast<int>(m_layout.trackLane.size()))
        return {};
    const Profile& p = *m_layout.session()->ranks[static_cast<std::size_t>(rank)];
    if (slice >= p.slices.size())
        return {};
    const int lane = m_layout.trackLane[static_cast<std::size_t>(rank)][p.slices.track[slice].v];
    if (!laneVisible(lane))
        return {};
    const Row& row = m_rows[static_cast<std::size_t>(m_laneRow[static_cast<std::size_t>(lane)])];
    const double top = kRulerHeight + row.y - verticalScrollBar()->value() + 2 + p.slices.depth[slice] * kRowHeight;
    const TimeNs shift = clockShift(rank);
    const double a = xOf(p.slices.start[slice] - shift);
    const double b = std::max(a + 1.0, xOf(TimelineLayout::effEnd(p, slice) - shift));
    return QRectF(a, top, b - a, kRowHeight - 2);
}

void TimelineView::paintEvent(QPaintEvent*)
{
    QElapsedTimer clock;
    clock.start();
    if (m_dirty)
        buildDrawList();
    QPainter p(viewport());
    const QRect cr = contentRect();
    p.fillRect(viewport()->rect(), palette().base());
    const auto [firstRow, lastRow] = visibleRows();
    drawLaneBands(p, firstRow, lastRow);

    p.save();
    p.setClipRect(cr);
    drawSliceFills(p);
    drawCausal(p, firstRow, lastRow);
    drawSliceNames(p, cr, clock);
    if (m_labelsDeferred)
        QTimer::singleShot(0, viewport(), qOverload<>(&QWidget::update));
    drawSelection(p, cr);
    p.restore();

    drawLaneLabels(p, firstRow, lastRow);
    drawRuler(p);
    drawLegend(p);
    if (m_layout.lanes.empty()) {
        p.setPen(palette().placeholderText().color());
        p.drawText(cr, Qt::AlignCenter,
                   m_layout.session() ? tr("This session has no timeline events.")
                                      : tr("Open a profiling folder (Ctrl+O) or drop it here."));
    }
}

// Header bands and lane separators.
void TimelineView::drawLaneBands(QPainter& p, std::size_t firstRow, std::size_t lastRow) const
{
    const QPalette& pal = palette();
    const QRect vr = viewport()->rect();
    const int scrollY = verticalScrollBar()->value();
    for (std::size_t ri = firstRow; ri < lastRow; ++ri) {
        const Row& row = m_rows[ri];
        const int top = kRulerHeight + row.y - scrollY;
        if (row.group >= 0)
            p.fillRect(QRect(0, top, vr.width(), row.height), pal.alternateBase());
        else
            p.fillRect(QRect(0, top + row.height - 1, vr.width(), 1), pal.window());
    }
}

// The draw list's rectangles, then the search hits outlined over them.
void TimelineView::drawSliceFills(QPainter& p) const
{
    p.setPen(Qt::NoPen);
    // One drawRects per brush (colour, merged, hatched): thousands of rectangles in a few calls.
    // Items never overlap (each depth has its own row), so the order between brushes is free.
    // The items by brush key, in draw-list order within a key: a counting sort, as the keys are
    // few (a colour index, merged or not, and hatched).
    constexpr std::uint32_t kBrushKeys = 0x201;
    auto brushKey = [](const DrawItem& it) { return it.hatched ? 0x200u : (it.color * 2u + (it.merged ? 1u : 0u)); };
    std::array<std::uint32_t, kBrushKeys + 1> next{};
    for (const DrawItem& it : m_items)
        ++next[brushKey(it) + 1];
    for (std::uint32_t k = 0; k < kBrushKeys; ++k)
        next[k + 1] += next[k];
    std::vector<std::uint32_t> order(m_items.size());
    for (std::uint32_t i = 0; i < order.size(); ++i)
        order[next[brushKey(m_items[i])]++] = i;
    std::vector<QRectF> batch;
    for (std::size_t i = 0; i < order.size();) {
        const DrawItem& first = m_items[order[i]];
        const auto key = brushKey(first);
        batch.clear();
        for (; i < order.size() && brushKey(m_items[order[i]]) == key; ++i)
            batch.push_back(m_items[order[i]].rect);
        if (first.hatched) {
            p.setBrush(QBrush(freeColor(), Qt::BDiagPattern));
        } else {
            const QColor c = paletteColor(first.color);
            p.setBrush(first.merged ? c.darker(130) : c);
        }
        p.drawRects(batch.data(), static_cast<int>(batch.size()));
    }
    // Search hits, outlined over the fills.
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(255, 200, 0), 2));
    for (const DrawItem& it : m_items)
        if (it.hit)
            p.drawRect(it.rect.adjusted(-1, -1, 1, 1));
    p.setPen(Qt::NoPen);
}

// Names inside slices wide enough to hold some text; sets m_labelsDeferred when some wait for
// the next frame.
void TimelineView::drawSliceNames(QPainter& p, const QRect& cr, const QElapsedTimer& clock) const
{
    p.setPen(Qt::black);
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() - 1.5));
    p.setFont(small);
    const QFontMetrics fm(small);
    if (m_labelPointSize != small.pointSizeF()) {
        clearLabelCache();
        m_labelPointSize = small.pointSizeF();
    }
    // Laying out a name for the first time costs far more than drawing it: once the frame has
    // taken its budget, names not yet laid out wait for the next frame, which comes at once.
    // Every frame lays out at least one, so they all come.
    bool laidOut = false;
    m_labelsDeferred = false;
    auto mayLayOut = [&] {
        if (laidOut && clock.nsecsElapsed() >= m_labelBudgetNs) {
            m_labelsDeferred = true;
            return false;
        }
        laidOut = true;
        return true;
    };
    for (const DrawItem& it : m_items) {
        if (it.merged || it.rect.width() < 30)
            continue;
        const Lane& lane = m_layout.lanes[static_cast<std::size_t>(it.lane)];
        const Profile& prof = *m_layout.session()->ranks[static_cast<std::size_t>(lane.rank)];
        QRectF tr = it.rect.intersected(QRectF(cr)).adjusted(2, 0, -2, 0);
        const QColor bg = paletteColor(it.color);
        p.setPen(bg.lightnessF() < 0.5 ? Qt::white : Qt::black);
        const NameId name = prof.slices.name[it.slice];
        const quint64 key = (static_cast<quint64>(static_cast<std::uint32_t>(lane.rank)) << 32) | name.v;
        auto label = m_labels.find(key);
        if (label == m_labels.end()) {
            if (!mayLayOut())
                continue;
            QString text = qstr(prof.str(name));
            const int width = fm.horizontalAdvance(text);
            label = m_labels.insert(key, {text, width, staticLabel(text), {}});
        }
        const int room = static_cast<int>(tr.width());
        const QPointF at(tr.left(), tr.top() + (tr.height() - fm.height()) / 2);
        if (label->width <= room) {
            p.drawStaticText(at, label->shaped);
            continue;
        }
        if (label->cutWidth.empty()) {
            if (!mayLayOut())
                continue;
            // One layout of the whole name gives every prefix's width.
            QTextLayout layout(label->text, small);
            layout.beginLayout();
            QTextLine line = layout.createLine();
            layout.endLayout();
            const int ellipsis = fm.horizontalAdvance(QChar(0x2026));
            for (int i = 0; i <= label->text.size(); ++i)
                label->cutWidth.push_back(static_cast<int>(std::ceil(line.cursorToX(i))) + ellipsis);
        }
        // The longest prefix that fits, not ending inside a surrogate pair.
        qsizetype keep = std::upper_bound(label->cutWidth.begin(), label->cutWidth.end(), room) - label->cutWidth.begin() - 1;
        while (keep > 0 && label->text.at(keep - 1).isHighSurrogate())
            --keep;
        if (keep <= 0)
            continue; // not even the ellipsis fits
        auto cut = m_cuts.find({key, static_cast<int>(keep)});
        if (cut == m_cuts.end()) {
            if (!mayLayOut())
                continue;
            cut = m_cuts.insert({key, static_cast<int>(keep)}, staticLabel(label->text.left(keep) + QChar(0x2026)));
        }
        p.drawStaticText(at, *cut);
    }
}

// Selected range, selected task, flows.
void TimelineView::drawSelection(QPainter& p, const QRect& cr) const
{
    const QPalette& pal = palette();
    if (auto r = m_sel->selectedRange()) {
        const double a = xOf(r->begin), b = xOf(r->end);
        QColor band = pal.highlight().color();
        band.setAlpha(50);
        p.fillRect(QRectF(a, cr.top(), b - a, cr.height()), band);
        p.setPen(QPen(pal.highlight().color(), 1));
        p.drawLine(QPointF(a, cr.top()), QPointF(a, cr.bottom()));
        p.drawLine(QPointF(b, cr.top()), QPointF(b, cr.bottom()));
    }
    const TaskRef task = m_sel->selectedTask();
    if (task.valid()) {
        const QRectF r = sliceRect(task.rankIndex, task.slice);
        if (!r.isEmpty()) {
            p.setBrush(Qt::NoBrush);
            p.setPen(QPen(pal.text().color(), 2));
            p.drawRect(r.adjusted(-1, -1, 1, 1));
        }
        drawFlows(p);
    }
}

// The label column: group headers (with their fold marks) and lane names.
void TimelineView::drawLaneLabels(QPainter& p, std::size_t firstRow, std::size_t lastRow) const
{
    const QPalette& pal = palette();
    const QRect vr = viewport()->rect();
    const QRect cr = contentRect();
    const int scrollY = verticalScrollBar()->value();
    p.fillRect(QRect(0, kRulerHeight, kLabelWidth, vr.height() - kRulerHeight), pal.window());
    p.setClipRect(QRect(0, kRulerHeight, kLabelWidth, cr.height()));
    p.setFont(font());
    for (std::size_t ri = firstRow; ri < lastRow; ++ri) {
        const Row& row = m_rows[ri];
        const int top = kRulerHeight + row.y - scrollY;
        p.setPen(pal.windowText().color());
        if (row.group >= 0) {
            const LaneGroup& g = m_layout.groups[static_cast<std::size_t>(row.group)];
            const int indent = g.rankHeader ? 4 : 16;
            QFont f = font();
            f.setBold(g.rankHeader);
            p.setFont(f);
            p.drawText(QRect(indent, top, kLabelWidth - indent, row.height), Qt::AlignVCenter | Qt::AlignLeft,
                       rowLabel(static_cast<int>(ri)));
            p.setFont(font());
        } else {
            p.drawText(QRect(30, top, kLabelWidth - 34, kRowHeight + 2), Qt::AlignVCenter | Qt::AlignLeft,
                       rowLabel(static_cast<int>(ri)));
        }
    }
    p.setClipping(false);
    p.setPen(pal.mid().color());
    p.drawLine(kLabelWidth - 1, kRulerHeight, kLabelWidth - 1, vr.height());
}

void TimelineView::drawRuler(QPainter& p) const
{
    const QRect vr = viewport()->rect();
    const QPalette& pal = palette();
    p.fillRect(QRect(0, 0, vr.width(), kRulerHeight), pal.window());
    p.setPen(pal.mid().color());
    p.drawLine(0, kRulerHeight - 1, vr.width(), kRulerHeight - 1);
    const TimeRange v = m_sel->visibleRange();
    if (v.empty())
        return;
    const QRect cr = contentRect();
    const TimeNs origin = m_sel->timeOrigin();
    // The same ticks as the utilisation plots' time axis (model/analysis/time_axis.h).
    const TimeTicks ticks = timeTicks(v.begin - origin, v.end - origin, cr.width());
    p.setPen(pal.windowText().color());
    for (TimeNs t = origin + ticks.first; t <= v.end; t += ticks.step) {
        const double x = xOf(t);
        if (x < cr.left())
            continue;
        p.drawLine(QPointF(x, kRulerHeight - 7), QPointF(x, kRulerHeight - 1));
        p.drawText(QRectF(x + 3, 0, 120, kRulerHeight - 4), Qt::AlignLeft | Qt::AlignVCenter,
                   formatOffset(t - origin, ticks.step, ticks.span));
    }
    // Ranks drawn shifted by their clock offsets: the ruler says the time is aligned.
    bool shifted = false;
    for (std::size_t r = 0; r < m_sel->clockOffsets().size() && !shifted; ++r)
        shifted = clockShift(static_cast<int>(r)) != 0;
    p.drawText(QRect(4, 0, kLabelWidth - 8, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
               shifted ? tr("window %1 · aligned").arg(fmt::duration(v.end - v.begin))
                       : tr("window %1").arg(fmt::duration(v.end - v.begin)));
    // A selected range shows its duration on the ruler, over the ticks, between its edges.
    if (const auto r = m_sel->selectedRange()) {
        const QString text = rangeLabel();
        const double a = std::max<double>(xOf(r->begin), cr.left());
        const double b = std::min<double>(xOf(r->end), cr.right());
        if (b >= cr.left() && a <= cr.right()) {
            const int w = fontMetrics().horizontalAdvance(text) + 10;
            const double mid = std::clamp((a + b) / 2, cr.left() + w / 2.0, cr.right() - w / 2.0);
            const QRectF box(mid - w / 2.0, 2, w, kRulerHeight - 5);
            p.setPen(Qt::NoPen);
            p.setBrush(pal.highlight());
            p.drawRoundedRect(box, 3, 3);
            p.setPen(pal.highlightedText().color());
            p.drawText(box, Qt::AlignCenter, text);
            p.setPen(pal.highlight().color());
            p.drawLine(QPointF(a, box.center().y()), QPointF(box.left(), box.center().y()));
            p.drawLine(QPointF(box.right(), box.center().y()), QPointF(b, box.center().y()));
        }
    }
}

QString TimelineView::rangeLabel() const
{
    const auto r = m_sel->selectedRange();
    return r ? QStringLiteral("↔ %1").arg(fmt::duration(r->end - r->begin)) : QString();
}

void TimelineView::drawLegend(QPainter& p) const
{
    const QRect vr = viewport()->rect();
    const QRect band(0, vr.height() - kLegendHeight, vr.width(), kLegendHeight);
    p.fillRect(band, palette().window());
    int x = 6;
    p.setPen(palette().windowText().color());
    for (const LegendEntry& e : m_layout.legend) {
        const QString text = e.key;
        const int w = fontMetrics().horizontalAdvance(text) + 22;
        if (x + w > band.right())
            break;
        p.fillRect(QRect(x, band.top() + 5, 10, 10), paletteColor(e.color));
        p.drawText(QRect(x + 14, band.top(), w - 14, band.height()), Qt::AlignVCenter | Qt::AlignLeft, text);
        x += w;
    }
}

void TimelineView::drawFlows(QPainter& p) const
{
    const TaskRef task = m_sel->selectedTask();
    if (!m_layout.session() || task.rankIndex < 0 || task.rankIndex >= static_cast<int>(m_layout.session()->ranks.size()))
        return;
    const Profile& prof = *m_layout.session()->ranks[static_cast<std::size_t>(task.rankIndex)];
    const auto& fi = m_layout.flowIndex(task.rankIndex);
    auto it = std::lower_bound(fi.begin(), fi.end(), std::pair{task.slice, 0u});
    p.setPen(QPen(palette().text().color(), 1.5));
    p.setBrush(palette().text());
    for (; it != fi.end() && it->first == task.slice; ++it) {
        const std::uint32_t f = it->second;
        const QRectF a = sliceRect(task.rankIndex, prof.flows.srcSlice[f]);
        const QRectF b = sliceRect(task.rankIndex, prof.flows.dstSlice[f]);
        if (a.isEmpty() || b.isEmpty())
            continue;
        const TimeNs shift = clockShift(task.rankIndex);
        const QPointF from(xOf(prof.flows.srcTs[f] - shift), a.center().y());
        const QPointF to(xOf(prof.flows.dstTs[f] - shift), b.center().y());
        QPainterPath path(from);
        path.cubicTo(QPointF(from.x() + 30, from.y()), QPointF(to.x() - 30, to.y()), to);
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        p.setBrush(palette().text());
        QPolygonF head;
        head << to << QPointF(to.x() - 7, to.y() - 4) << QPointF(to.x() - 7, to.y() + 4);
        p.drawPolygon(head);
    }
}

} // namespace npuscope
