// TimelineView: keyboard, mouse, tooltips, the label column's text, search and scroll bars (the
// painting lives in timeline_view.cpp).
#include "views/timeline_view.h"
#include "views/format.h"

#include "views/idle_lane.h"
#include "views/time_format.h"

#include <QContextMenuEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace npuscope {

namespace {

constexpr int kScrollSteps = 100000;
constexpr int kDragThreshold = 4;

QString metricText(double v, int decimals) { return std::isnan(v) ? QString() : QString::number(v, 'f', decimals); }

} // namespace

void TimelineView::keyPressEvent(QKeyEvent* e)
{
    const TimeRange v = m_sel->visibleRange();
    const TimeNs centre = v.begin + (v.end - v.begin) / 2;
    // W/S zoom about the time under the mouse, about the centre when the mouse is elsewhere.
    const TimeNs anchor = m_hoverPos && contentRect().contains(*m_hoverPos) ? timeAt(m_hoverPos->x()) : centre;
    const bool ctrl = e->modifiers() & Qt::ControlModifier;
    switch (e->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        m_sel->zoomBy(kZoomInFactor, anchor);
        break;
    case Qt::Key_S:
    case Qt::Key_Minus:
        m_sel->zoomBy(kZoomOutFactor, anchor);
        break;
    case Qt::Key_A:
    case Qt::Key_Left:
        m_sel->panBy(-kPanFraction);
        break;
    case Qt::Key_D:
    case Qt::Key_Right:
        m_sel->panBy(kPanFraction);
        break;
    case Qt::Key_0:
        if (!ctrl)
            return QAbstractScrollArea::keyPressEvent(e);
        m_sel->fitAll();
        break;
    case Qt::Key_Z:
        if (auto r = m_sel->selectedRange())
            m_sel->setVisibleRange(*r);
        break;
    case Qt::Key_Backspace:
        m_sel->undoZoom();
        break;
    case Qt::Key_Escape:
        m_sel->clearSelection();
        break;
    case Qt::Key_P: // the window's "Critical path" action takes it first when there is one
        if (!m_causal)
            return QAbstractScrollArea::keyPressEvent(e);
        m_causal->setCriticalPathShown(!m_causal->criticalPathShown());
        break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        if (e->modifiers() & Qt::ShiftModifier)
            previousMatch();
        else
            nextMatch();
        break;
    case Qt::Key_Up:
        verticalScrollBar()->setValue(verticalScrollBar()->value() - kRowHeight);
        break;
    case Qt::Key_Down:
        verticalScrollBar()->setValue(verticalScrollBar()->value() + kRowHeight);
        break;
    default:
        QAbstractScrollArea::keyPressEvent(e);
        return;
    }
    e->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* e)
{
    setFocus(Qt::MouseFocusReason);
    m_pressPos = m_lastPos = e->position().toPoint();
    m_pressTime = timeAt(e->position().x());
    m_pressInRuler = m_pressPos.y() < kRulerHeight && m_pressPos.x() >= kLabelWidth;
    m_pressOnSlice = itemAt(m_pressPos) != nullptr;
    m_drag = Drag::Pending;
    if (e->button() != Qt::LeftButton)
        m_drag = Drag::Pan; // middle/right drag always pans
    e->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent* e)
{
    const QPoint pos = e->position().toPoint();
    m_hoverPos = pos;
    if (m_drag == Drag::Pending && (pos - m_pressPos).manhattanLength() >= kDragThreshold) {
        // A drag from the ruler, from a slice or with Shift selects a range; elsewhere it pans.
        const bool select = m_pressInRuler || m_pressOnSlice || (e->modifiers() & Qt::ShiftModifier);
        m_drag = select ? Drag::Select : Drag::Pan;
    }
    if (m_drag == Drag::Select) {
        m_sel->setSelectedRange(TimeRange{std::min(m_pressTime, timeAt(pos.x())), std::max(m_pressTime, timeAt(pos.x()))});
    } else if (m_drag == Drag::Pan) {
        const int dx = pos.x() - m_lastPos.x();
        if (dx != 0)
            m_sel->panBy(-static_cast<double>(dx) / contentRect().width());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - (pos.y() - m_lastPos.y()));
    }
    m_lastPos = pos;
    e->accept();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e)
{
    const QPoint pos = e->position().toPoint();
    if (m_drag == Drag::Select) {
        m_sel->setSelectedRange(TimeRange{std::min(m_pressTime, timeAt(pos.x())), std::max(m_pressTime, timeAt(pos.x()))});
    } else if (m_drag == Drag::Pending && e->button() == Qt::LeftButton) {
        // A click: a header toggles its group, a slice is selected, empty space clears the task.
        if (pos.x() < kLabelWidth) {
            if (const Row* row = rowAt(pos.y()); row && row->group >= 0)
                setGroupCollapsed(row->group, !m_layout.groups[static_cast<std::size_t>(row->group)].collapsed);
        } else if (selectIdleGap(pos)) {
        } else if (const DrawItem* it = itemAt(pos)) {
            const int rank = m_layout.lanes[static_cast<std::size_t>(it->lane)].rank;
            m_sel->setSelectedTask(TaskRef{rank, it->slice});
        } else if (pos.y() >= kRulerHeight) {
            m_sel->setSelectedTask({});
        }
    }
    m_drag = Drag::None;
    e->accept();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* e)
{
    const QPoint pos = e->position().toPoint();
    const TimeNs t = timeAt(pos.x());
    if (auto r = m_sel->selectedRange(); r && t >= r->begin && t <= r->end) {
        m_sel->setVisibleRange(*r);
    } else if (const DrawItem* it = itemAt(pos); it && !it->merged) {
        m_sel->revealTask(TaskRef{m_layout.lanes[static_cast<std::size_t>(it->lane)].rank, it->slice});
    } else if (it) {
        m_sel->setVisibleRange({timeAt(it->rect.left()), timeAt(it->rect.right() + 1)});
    }
    m_drag = Drag::None;
    e->accept();
}

void TimelineView::wheelEvent(QWheelEvent* e)
{
    const QPoint d = e->angleDelta();
    const int delta = d.y() != 0 ? d.y() : d.x(); // some platforms turn Shift+wheel horizontal
    const double notches = delta / 120.0;
    if (e->modifiers() & Qt::ControlModifier) {
        m_sel->zoomBy(std::pow(kZoomInFactor, notches), timeAt(e->position().x()));
        e->accept();
    } else if ((e->modifiers() & Qt::ShiftModifier) || d.y() == 0) {
        m_sel->panBy(-kPanFraction * notches);
        e->accept();
    } else {
        QAbstractScrollArea::wheelEvent(e);
    }
}

bool TimelineView::viewportEvent(QEvent* e)
{
    if (e->type() == QEvent::Leave)
        m_hoverPos.reset();
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const int row = he->pos().x() < kLabelWidth && he->pos().y() >= kRulerHeight ? rowIndexAt(he->pos().y()) : -1;
        if (row >= 0)
            QToolTip::showText(he->globalPos(), rowLabelFull(row) + idleLegendTooltip(row), viewport());
        else if (const IdleHit hit = idleGapAt(he->pos()); hit.gap)
            QToolTip::showText(he->globalPos(), idleTooltip(hit), viewport());
        else if (const DrawItem* it = itemAt(he->pos()))
            QToolTip::showText(he->globalPos(), tooltipFor(*it), viewport());
        else
            QToolTip::hideText();
        return true;
    }
    return QAbstractScrollArea::viewportEvent(e);
}

int TimelineView::rowIndexAt(int viewportY) const
{
    const Row* r = rowAt(viewportY);
    return r ? static_cast<int>(r - m_rows.data()) : -1;
}

QString TimelineView::rowLabelFull(int row) const
{
    if (row < 0 || row >= static_cast<int>(m_rows.size()))
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(row)];
    if (r.group >= 0) {
        const LaneGroup& g = m_layout.groups[static_cast<std::size_t>(r.group)];
        if (const TimeNs shift = g.rankHeader ? clockShift(g.rank) : 0; shift != 0)
            return tr("%1\nDrawn in aligned time: this rank's clock offset %2 is taken off its file times "
                      "(View → Raw clocks shows its own clock)")
                .arg(g.title, fmt::duration(shift));
        return g.title;
    }
    const Lane& lane = m_layout.lanes[static_cast<std::size_t>(r.lane)];
    return QStringLiteral("%1 · %2").arg(m_layout.groups[static_cast<std::size_t>(lane.group)].title, lane.name);
}

QString TimelineView::rowLabel(int row) const
{
    if (row < 0 || row >= static_cast<int>(m_rows.size()))
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(row)];
    if (r.lane >= 0)
        return fontMetrics().elidedText(m_layout.lanes[static_cast<std::size_t>(r.lane)].name, Qt::ElideMiddle,
                                        kLabelWidth - 34);
    // A rank's title ends with what tells ranks apart (the host, the folder): the middle goes.
    const LaneGroup& g = m_layout.groups[static_cast<std::size_t>(r.group)];
    QFont f = font();
    f.setBold(g.rankHeader);
    const QString mark = g.collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ ");
    const QFontMetrics fm(f);
    const int room = kLabelWidth - (g.rankHeader ? 4 : 16) - 4 - fm.horizontalAdvance(mark);
    // "Rank 0 / NPU 0  (folder)": the rank and device stay whole while the folder's name has room.
    const qsizetype folder = g.rankHeader ? g.title.indexOf(QStringLiteral("  (")) : -1;
    if (folder > 0 && fm.horizontalAdvance(g.title) > room) {
        const QString head = g.title.left(folder);
        const int left = room - fm.horizontalAdvance(head);
        if (left >= fm.horizontalAdvance(QStringLiteral("  (…)")) + fm.averageCharWidth() * 4)
            return mark + head + fm.elidedText(g.title.mid(folder), Qt::ElideMiddle, left);
    }
    return mark + fm.elidedText(g.title, Qt::ElideMiddle, room);
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e)
{
    if (m_layout.groups.empty())
        return;
    QMenu menu(this);
    QAction* collapse = menu.addAction(tr("Collapse all ranks"));
    QAction* expand = menu.addAction(tr("Expand all ranks"));
    QAction* chosen = menu.exec(e->globalPos());
    if (chosen == collapse || chosen == expand)
        setAllRanksCollapsed(chosen == collapse);
    e->accept();
}

void TimelineView::resizeEvent(QResizeEvent* e)
{
    QAbstractScrollArea::resizeEvent(e);
    updateScrollBars();
    invalidate();
}

void TimelineView::scrollContentsBy(int, int) { invalidate(); }

void TimelineView::updateScrollBars()
{
    QScrollBar* vb = verticalScrollBar();
    const int page = contentRect().height();
    vb->setPageStep(page);
    vb->setSingleStep(kRowHeight);
    vb->setRange(0, std::max(0, m_contentHeight - page));

    const TimeRange full = m_sel->viewBounds();
    const TimeRange v = m_sel->visibleRange();
    m_syncingScrollBar = true;
    QScrollBar* hb = horizontalScrollBar();
    if (full.empty() || v == full) {
        hb->setRange(0, 0);
    } else {
        const double fw = static_cast<double>(full.end - full.begin);
        // In double: a range of epoch nanoseconds times the steps overflows 64 bits.
        const int pageSteps = std::max(1, static_cast<int>(std::lround(kScrollSteps * static_cast<double>(v.end - v.begin) / fw)));
        hb->setRange(0, kScrollSteps - pageSteps);
        hb->setPageStep(pageSteps);
        hb->setSingleStep(std::max(1, pageSteps / 10));
        hb->setValue(static_cast<int>(std::lround(kScrollSteps * static_cast<double>(v.begin - full.begin) / fw)));
    }
    m_syncingScrollBar = false;
}

void TimelineView::onHorizontalScroll(int value)
{
    if (m_syncingScrollBar)
        return;
    const TimeRange full = m_sel->viewBounds();
    const TimeRange v = m_sel->visibleRange();
    const TimeNs b = full.begin + roundNs(static_cast<double>(full.end - full.begin) * value / kScrollSteps);
    m_sel->panBy(static_cast<double>(b - v.begin) / static_cast<double>(std::max<TimeNs>(1, v.end - v.begin)));
}

QString TimelineView::tooltipFor(const DrawItem& it) const
{
    const Lane& lane = m_layout.lanes[static_cast<std::size_t>(it.lane)];
    const Profile& p = *m_layout.session()->ranks[static_cast<std::size_t>(lane.rank)];
    const TimeNs origin = m_sel->timeOrigin();
    if (it.merged) {
        return tr("<b>%1 slices</b> folded into this mark (narrower than a pixel)<br>from %2 · zoom in to see them")
            .arg(formatCount(it.count), fmt::duration(p.slices.start[it.slice] - clockShift(lane.rank) - origin));
    }
    const std::uint32_t r = it.slice;
    QString html = QStringLiteral("<b>%1</b>").arg(qstr(p.str(p.slices.name[r])).toHtmlEscaped());
    auto line = [&html](const QString& k, const QString& v) {
        if (!v.isEmpty())
            html += QStringLiteral("<br>%1: %2").arg(k, v.toHtmlEscaped());
    };
    const std::uint32_t k = p.slices.kernel[r];
    const bool joined = k != kNone && k < p.kernels.size();
    line(tr("Type"), joined ? qstr(p.str(p.kernels.type[k])) : qstr(p.str(p.slices.category[r])));
    if (const TimeNs shift = clockShift(lane.rank); shift != 0)
        line(tr("Start"), tr("aligned %1 (file %2) after %3")
                              .arg(fmt::duration(p.slices.start[r] - shift - origin),
                                   fmt::duration(p.slices.start[r] - origin), m_sel->timeOriginName()));
    else
        line(tr("Start"), tr("%1 after %2").arg(fmt::duration(p.slices.start[r] - origin), m_sel->timeOriginName()));
    line(tr("Duration"), fmt::duration(p.slices.dur[r]));
    line(tr("Track"), QStringLiteral("%1 · %2").arg(m_layout.groups[static_cast<std::size_t>(lane.group)].title, lane.name));
    if (p.slices.taskId[r] != kNone)
        line(tr("Task Id"), QString::number(p.slices.taskId[r]));
    if (joined) {
        const KernelTable& kt = p.kernels;
        line(tr("Accelerator"), qstr(p.str(kt.taskType[k])));
        line(tr("aicore_time"), metricText(kt.metric(kt.metricIndex({"aicore_time(us)", "aicore_time"}), k), 3) + QStringLiteral(" µs"));
        line(tr("cube_utilization(%)"), metricText(kt.metric(kt.metricIndex({"cube_utilization(%)"}), k), 1));
        line(tr("aic_mac_ratio"), metricText(kt.metric(kt.metricIndex({"aic_mac_ratio", "mac_ratio"}), k), 3));
        line(tr("aic_mte2_ratio"), metricText(kt.metric(kt.metricIndex({"aic_mte2_ratio", "mte2_ratio"}), k), 3));
        if (kt.blockDim[k] >= 0)
            line(tr("Block Dim"), QString::number(kt.blockDim[k]));
        line(tr("Input shapes"), qstr(p.str(kt.inputShapes[k])));
        line(tr("Output shapes"), qstr(p.str(kt.outputShapes[k])));
        html += tr("<br><i>metrics from the kernel table row joined to this task</i>");
    }
    // The event's own arguments as the file wrote them (call stack, input dims, ids, ...), each
    // value cut at 300 characters and at most 16 of them.
    constexpr std::uint32_t kMaxArgs = 16;
    constexpr qsizetype kMaxValue = 300;
    std::uint32_t shown = 0, more = 0;
    std::string argsError;
    p.args.forEach(p.slices.args[r], p.strings, [&](std::string_view k, std::string_view value) {
        if (shown == kMaxArgs) {
            ++more;
            return;
        }
        ++shown;
        QString v = qstr(value);
        if (v.size() > kMaxValue)
            v = v.left(kMaxValue) + QChar(0x2026);
        html += QStringLiteral("<br>%1: %2")
                    .arg(qstr(k).toHtmlEscaped(),
                         v.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>&nbsp;&nbsp;")));
    }, &argsError);
    if (more > 0)
        html += tr("<br>… %n more argument(s)", nullptr, static_cast<int>(more));
    if (!argsError.empty())
        html += tr("<br><i>arguments not read: %1</i>").arg(qstr(argsError).toHtmlEscaped());
    if (it.hit)
        html += tr("<br>matches “%1”").arg(m_search.toHtmlEscaped());
    return html;
}

void TimelineView::setSearchText(const QString& text)
{
    if (text == m_search && !m_nameMatch.empty())
        return;
    m_search = text;
    m_nameMatch.clear();
    m_matches.clear();
    m_matchIndex = -1;
    const SessionPtr& s = m_layout.session();
    if (s) {
        const QByteArray needle = text.toUtf8().toLower();
        for (std::size_t r = 0; r < s->ranks.size(); ++r) {
            const Profile& p = *s->ranks[r];
            auto& m = m_nameMatch.emplace_back(p.strings.size(), 0);
            if (text.isEmpty())
                continue;
            for (std::size_t i = 1; i < p.strings.size(); ++i) {
                const std::string_view v = p.strings.view(NameId(static_cast<std::uint32_t>(i)));
                m[i] = QByteArray::fromRawData(v.data(), static_cast<qsizetype>(v.size())).toLower().contains(needle);
            }
        }
        if (!text.isEmpty())
            for (const Lane& lane : m_layout.lanes) { // one pass over the lanes of all ranks
                if (lane.idleCauses)
                    continue; // no track
                const Track& t = s->ranks[static_cast<std::size_t>(lane.rank)]->tracks[lane.track.v];
                for (std::uint32_t row = t.sliceBegin; row < t.sliceEnd; ++row)
                    if (sliceMatches(lane.rank, row))
                        m_matches.push_back({lane.rank, row});
            }
        sortMatches();
    }
    emit searchResultsChanged(static_cast<int>(m_matches.size()));
    invalidate();
}

void TimelineView::sortMatches()
{
    const SessionPtr& s = m_layout.session();
    if (!s || m_matches.size() < 2)
        return;
    const TaskRef current = m_matchIndex >= 0 ? m_matches[static_cast<std::size_t>(m_matchIndex)] : TaskRef{};
    auto drawnStart = [this, &s](const TaskRef& t) {
        return s->ranks[static_cast<std::size_t>(t.rankIndex)]->slices.start[t.slice] - clockShift(t.rankIndex);
    };
    // Stable: hits starting together stay in lane order.
    std::stable_sort(m_matches.begin(), m_matches.end(),
                     [&drawnStart](const TaskRef& a, const TaskRef& b) { return drawnStart(a) < drawnStart(b); });
    if (!current.valid())
        return;
    const int index = static_cast<int>(std::find(m_matches.begin(), m_matches.end(), current) - m_matches.begin());
    if (index != m_matchIndex) {
        m_matchIndex = index;
        emit currentMatchChanged(m_matchIndex, static_cast<int>(m_matches.size()));
    }
}

void TimelineView::nextMatch()
{
    if (m_matches.empty())
        return;
    m_matchIndex = (m_matchIndex + 1) % static_cast<int>(m_matches.size());
    m_sel->revealTask(m_matches[static_cast<std::size_t>(m_matchIndex)]);
    emit currentMatchChanged(m_matchIndex, static_cast<int>(m_matches.size()));
}

void TimelineView::previousMatch()
{
    if (m_matches.empty())
        return;
    const int n = static_cast<int>(m_matches.size());
    m_matchIndex = (m_matchIndex - 1 + n) % n;
    m_sel->revealTask(m_matches[static_cast<std::size_t>(m_matchIndex)]);
    emit currentMatchChanged(m_matchIndex, n);
}

} // namespace npuscope
