// TimelineView: the causal model's parts of the timeline (idle_lane.h): the "Idle causes" lane
// of each rank, its legend and tooltips, a click on a gap, and the critical path outlined.
#include "views/format.h"
#include "views/idle_lane.h"
#include "views/timeline_view.h"

#include <QPainter>
#include <QScrollBar>

#include <algorithm>

namespace npuscope {

namespace {

// The gaps of `idle` that intersect [t0, t1): gaps are sorted by start and never overlap, so
// their ends are sorted too.
std::pair<std::size_t, std::size_t> gapsIn(const IdleCauses& idle, TimeNs t0, TimeNs t1)
{
    const auto& g = idle.gaps;
    const auto lo = std::partition_point(g.begin(), g.end(), [t0](const IdleGap& x) { return x.end <= t0; });
    const auto hi = std::partition_point(lo, g.end(), [t1](const IdleGap& x) { return x.start < t1; });
    return {static_cast<std::size_t>(lo - g.begin()), static_cast<std::size_t>(hi - g.begin())};
}

bool hostOrDeviceLane(const Lane& l)
{
    return !l.idleCauses
           && (l.kind == TrackKind::Python || l.kind == TrackKind::Cann || l.kind == TrackKind::Stream
               || l.kind == TrackKind::CommGroup);
}

} // namespace

void TimelineView::setCausalModel(CausalModel* model)
{
    m_causal = model;
    if (!model)
        return;
    connect(model, &CausalModel::ready, this, [this] {
        addIdleLanes();
        relayoutRows();
    });
    connect(model, &CausalModel::criticalPathShownChanged, this, [this] { viewport()->update(); });
    addIdleLanes();
    relayoutRows();
}

void TimelineView::addIdleLanes()
{
    if (!m_causal || !m_causal->result() || m_causal->result()->session != m_layout.session())
        return;
    for (std::size_t r = 0; r < m_causal->result()->ranks.size(); ++r)
        if (!m_causal->result()->ranks[r]->graph.steps.empty())
            m_layout.addIdleLane(static_cast<int>(r));
    m_laneRow.resize(m_layout.lanes.size(), -1);
}

QRectF TimelineView::idleGapRect(int rank, std::size_t gap) const
{
    const CausalRank* cr = m_causal ? m_causal->rank(rank) : nullptr;
    const int lane = m_layout.idleLane(rank);
    if (!cr || gap >= cr->idle.gaps.size() || !laneVisible(lane))
        return {};
    const IdleGap& g = cr->idle.gaps[gap];
    const TimeNs shift = clockShift(rank); // the window in the rank's file time
    const TimeRange v{m_sel->visibleRange().begin + shift, m_sel->visibleRange().end + shift};
    if (g.end <= v.begin || g.start >= v.end)
        return {};
    const Row& row = m_rows[static_cast<std::size_t>(m_laneRow[static_cast<std::size_t>(lane)])];
    const double top = kRulerHeight + row.y - verticalScrollBar()->value() + 2;
    const double a = xOf(std::max(g.start, v.begin) - shift);
    const double b = std::max(a + 1.0, xOf(std::min(g.end, v.end) - shift));
    return QRectF(a, top, b - a, kRowHeight - 2);
}

void TimelineView::drawCausal(QPainter& p, std::size_t firstRow, std::size_t lastRow) const
{
    m_drawnIdle.fill(0);
    m_drawnPathItems = 0;
    if (!m_causal || !m_causal->result() || m_causal->result()->session != m_layout.session())
        return;
    const TimeRange visible = m_sel->visibleRange();
    const int scrollY = verticalScrollBar()->value();
    const QRect cr = contentRect();
    for (std::size_t ri = firstRow; ri < lastRow; ++ri) {
        const Row& row = m_rows[ri];
        const int top = kRulerHeight + row.y - scrollY;
        if (row.group >= 0) { // the legend of the causes in the Idle causes header
            const LaneGroup& g = m_layout.groups[static_cast<std::size_t>(row.group)];
            if (g.rankHeader || g.lanes.empty() || !m_layout.lanes[static_cast<std::size_t>(g.lanes.front())].idleCauses)
                continue;
            const CausalRank* rank = m_causal->rank(g.rank);
            int x = cr.left() + 6;
            p.setPen(palette().windowText().color());
            for (std::size_t c = 0; c < kIdleCauseCount && rank; ++c) {
                const auto cause = static_cast<IdleCause>(c);
                const QString text = QStringLiteral("%1 %2").arg(idleCauseName(cause),
                                                                 fmt::duration(static_cast<double>(rank->idle.totals[c])));
                const int w = fontMetrics().horizontalAdvance(text) + 24;
                if (x + w > cr.right())
                    break;
                p.fillRect(QRect(x, top + 5, 10, 10), idleCauseColor(cause));
                p.drawText(QRect(x + 14, top, w - 14, row.height), Qt::AlignVCenter | Qt::AlignLeft, text);
                x += w;
            }
            p.setPen(Qt::NoPen);
            continue;
        }
        const Lane& lane = m_layout.lanes[static_cast<std::size_t>(row.lane)];
        if (!lane.idleCauses)
            continue;
        const CausalRank* rank = m_causal->rank(lane.rank);
        if (!rank)
            continue;
        const TimeNs shift = clockShift(lane.rank); // the window in the rank's file time
        const TimeRange v{visible.begin + shift, visible.end + shift};
        const auto [lo, hi] = gapsIn(rank->idle, v.begin, v.end);
        const double y = top + 2, h = kRowHeight - 2;
        for (std::size_t k = lo; k < hi; ++k) {
            const IdleGap& g = rank->idle.gaps[k];
            const TimeNs a = std::max(g.start, v.begin), b = std::min(g.end, v.end);
            m_drawnIdle[static_cast<std::size_t>(g.cause)] += b - a;
            const double xa = xOf(a - shift);
            p.fillRect(QRectF(xa, y, std::max(1.0, xOf(b - shift) - xa), h), idleCauseColor(g.cause));
        }
    }
    drawCriticalPath(p);
}

void TimelineView::drawCriticalPath(QPainter& p) const
{
    if (!m_causal->criticalPathShown())
        return;
    // Slices off the path are dimmed, slices on it outlined.
    QColor dim = palette().base().color();
    dim.setAlpha(170);
    const QPen outline(palette().text().color(), 1.5);
    for (const DrawItem& it : m_items) {
        const Lane& lane = m_layout.lanes[static_cast<std::size_t>(it.lane)];
        const CausalRank* rank = hostOrDeviceLane(lane) ? m_causal->rank(lane.rank) : nullptr;
        if (!rank)
            continue;
        if (!it.merged && onCriticalPath(rank->paths, it.slice)) {
            ++m_drawnPathItems;
            p.setPen(outline);
            p.setBrush(Qt::NoBrush);
            p.drawRect(it.rect.adjusted(0.5, 0.5, -0.5, -0.5));
            p.setPen(Qt::NoPen);
        } else {
            p.fillRect(it.rect, dim);
        }
    }
}

TimelineView::IdleHit TimelineView::idleGapAt(const QPoint& pos) const
{
    if (!m_causal || !m_causal->result() || !contentRect().contains(pos))
        return {};
    const Row* row = rowAt(pos.y());
    if (!row || row->lane < 0 || !m_layout.lanes[static_cast<std::size_t>(row->lane)].idleCauses)
        return {};
    const int r = m_layout.lanes[static_cast<std::size_t>(row->lane)].rank;
    const CausalRank* rank = m_causal->rank(r);
    if (!rank)
        return {};
    // A pixel either side, as for slices; the gap nearest the pointer's time.
    const TimeNs t = timeAt(pos.x()) + clockShift(r); // the rank's file time
    const TimeNs slack = std::max<TimeNs>(1, timeAt(pos.x() + 1) - timeAt(pos.x()));
    const auto [lo, hi] = gapsIn(rank->idle, t - slack, t + slack + 1);
    const IdleGap* best = nullptr;
    TimeNs bestDist = 0;
    for (std::size_t k = lo; k < hi; ++k) {
        const IdleGap& g = rank->idle.gaps[k];
        const TimeNs d = t < g.start ? g.start - t : (t >= g.end ? t - g.end + 1 : 0);
        if (!best || d < bestDist) {
            best = &g;
            bestDist = d;
        }
    }
    return {r, best};
}

QString TimelineView::idleTooltip(const IdleHit& hit) const
{
    const Profile& p = *m_layout.session()->ranks[static_cast<std::size_t>(hit.rank)];
    const IdleGap& g = *hit.gap;
    QString html = tr("<b>Device idle: %1</b>").arg(idleCauseName(g.cause));
    html += tr("<br>Duration: %1").arg(fmt::duration(static_cast<double>(g.dur())));
    html += tr("<br>Start: %1 after %2")
                .arg(fmt::duration(static_cast<double>(g.start - clockShift(hit.rank) - m_sel->timeOrigin())),
                     m_sel->timeOriginName());
    if (g.hostSlice != kNone && g.hostSlice < p.slices.size())
        html += tr("<br>Host op: %1").arg(qstr(p.str(p.slices.name[g.hostSlice])).toHtmlEscaped());
    else
        html += tr("<br>Host op: none recorded");
    if (g.task != kNone && g.task < p.slices.size())
        html += tr("<br>Ended by: %1").arg(qstr(p.str(p.slices.name[g.task])).toHtmlEscaped());
    html += tr("<br>Reason: %1").arg(qstr(idleGapReason(p, g)).toHtmlEscaped());
    html += tr("<br><i>click to select the host op</i>");
    return html;
}

QString TimelineView::idleLegendTooltip(int row) const
{
    if (row < 0 || row >= static_cast<int>(m_rows.size()))
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(row)];
    const int lane = r.lane >= 0 ? r.lane
                                 : (r.group >= 0 && !m_layout.groups[static_cast<std::size_t>(r.group)].lanes.empty()
                                        ? m_layout.groups[static_cast<std::size_t>(r.group)].lanes.front()
                                        : -1);
    if (lane < 0 || !m_layout.lanes[static_cast<std::size_t>(lane)].idleCauses)
        return {};
    return tr("<br>Every idle instant of the device in a step, in the colour of its cause:") + idleCauseLegendHtml();
}

bool TimelineView::selectIdleGap(const QPoint& pos)
{
    const IdleHit hit = idleGapAt(pos);
    if (!hit.gap)
        return false;
    // The responsible host op; without one, the device task the gap ended at.
    const std::uint32_t row = hit.gap->hostSlice != kNone ? hit.gap->hostSlice : hit.gap->task;
    if (row != kNone)
        m_sel->setSelectedTask(TaskRef{hit.rank, row});
    return true;
}

} // namespace npuscope
