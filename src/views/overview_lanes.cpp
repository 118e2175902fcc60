#include "views/overview_lanes.h"

#include "model/analysis/time_axis.h"
#include "views/format.h"
#include "views/time_format.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>

namespace npuscope {

OverviewLanes::OverviewLanes(QWidget* parent) : QAbstractScrollArea(parent)
{
    setObjectName(QStringLiteral("clusterOverview"));
    viewport()->setMouseTracking(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

void OverviewLanes::setLanes(std::vector<StreamOverview> lanes)
{
    m_lanes = std::move(lanes);
    m_begin = m_end = 0;
    bool any = false;
    for (const StreamOverview& l : m_lanes) {
        m_begin = any ? std::min(m_begin, l.begin) : l.begin;
        m_end = any ? std::max(m_end, l.end) : l.end;
        any = true;
    }
    updateScrollBar();
    viewport()->update();
}

QString OverviewLanes::laneLabel(int lane) const
{
    const StreamOverview& l = m_lanes[static_cast<std::size_t>(lane)];
    return tr("rank %1 · %2").arg(l.rank).arg(QString::fromStdString(l.thread.empty() ? l.process : l.thread));
}

double OverviewLanes::xOf(TimeNs t) const
{
    const double w = std::max(1, viewport()->width() - kLabelWidth);
    return kLabelWidth + w * static_cast<double>(t - m_begin) / static_cast<double>(std::max<TimeNs>(1, m_end - m_begin));
}

double OverviewLanes::busyShare(int lane, TimeNs t0, TimeNs t1) const
{
    const StreamOverview& l = m_lanes[static_cast<std::size_t>(lane)];
    const std::size_t n = l.busyPermille.size();
    if (n == 0 || t1 <= l.begin || t0 >= l.end)
        return std::numeric_limits<double>::quiet_NaN();
    const double span = static_cast<double>(l.end - l.begin);
    auto bucket = [&](TimeNs t) {
        return static_cast<std::size_t>(std::clamp(static_cast<double>(t - l.begin) / span * static_cast<double>(n), 0.0,
                                                   static_cast<double>(n - 1)));
    };
    const std::size_t a = bucket(std::max(t0, l.begin)), b = bucket(std::min(t1, l.end) - 1);
    double sum = 0;
    for (std::size_t i = a; i <= b; ++i)
        sum += l.busyPermille[i];
    return sum / 1000.0 / static_cast<double>(b - a + 1);
}

int OverviewLanes::laneAt(const QPoint& pos, TimeNs* t) const
{
    if (pos.y() < kAxisHeight || m_lanes.empty())
        return -1;
    const int lane = (pos.y() - kAxisHeight + verticalScrollBar()->value()) / kRowHeight;
    if (lane < 0 || lane >= laneCount())
        return -1;
    if (t) {
        const double w = std::max(1, viewport()->width() - kLabelWidth);
        *t = m_begin + static_cast<TimeNs>(std::llround(static_cast<double>(m_end - m_begin) * (pos.x() - kLabelWidth) / w));
    }
    return lane;
}

QString OverviewLanes::toolTipAt(const QPoint& pos) const
{
    TimeNs t = 0;
    const int lane = laneAt(pos, &t);
    if (lane < 0)
        return {};
    QString text = laneLabel(lane);
    if (pos.x() >= kLabelWidth) {
        // The pixel's time span, as the row shades it.
        const double w = std::max(1, viewport()->width() - kLabelWidth);
        const TimeNs px = std::max<TimeNs>(1, static_cast<TimeNs>(static_cast<double>(m_end - m_begin) / w));
        const double share = busyShare(lane, t, t + px);
        text += tr("\nat %1: %2").arg(fmt::duration(t - m_begin),
                                      std::isnan(share) ? tr("outside the rank's trace") : tr("%1 %% busy").arg(share * 100.0, 0, 'f', 1));
    }
    text += tr("\n%1 tasks · double-click opens the rank's folder").arg(m_lanes[static_cast<std::size_t>(lane)].tasks);
    return text;
}

void OverviewLanes::updateScrollBar()
{
    const int page = std::max(0, viewport()->height() - kAxisHeight);
    verticalScrollBar()->setPageStep(page);
    verticalScrollBar()->setSingleStep(kRowHeight);
    verticalScrollBar()->setRange(0, std::max(0, laneCount() * kRowHeight - page));
}

void OverviewLanes::resizeEvent(QResizeEvent* e)
{
    QAbstractScrollArea::resizeEvent(e);
    updateScrollBar();
}

void OverviewLanes::paintEvent(QPaintEvent*)
{
    QPainter p(viewport());
    const QPalette& pal = palette();
    const QRect vr = viewport()->rect();
    p.fillRect(vr, pal.base());
    if (m_lanes.empty() || m_end <= m_begin) {
        p.setPen(pal.placeholderText().color());
        p.drawText(vr, Qt::AlignCenter, tr("No overview lanes in this summary"));
        return;
    }
    const int scroll = verticalScrollBar()->value();
    const int first = scroll / kRowHeight;
    const int last = std::min(laneCount(), (scroll + vr.height() - kAxisHeight) / kRowHeight + 1);
    const int width = std::max(1, vr.width() - kLabelWidth);
    const double nsPerPx = static_cast<double>(m_end - m_begin) / width;
    const QColor busy = pal.highlight().color();
    const QColor idle = pal.base().color();
    p.setClipRect(QRect(0, kAxisHeight, vr.width(), vr.height() - kAxisHeight));
    for (int lane = first; lane < last; ++lane) {
        const int y = kAxisHeight + lane * kRowHeight - scroll;
        const StreamOverview& l = m_lanes[static_cast<std::size_t>(lane)];
        if (lane > 0 && m_lanes[static_cast<std::size_t>(lane - 1)].rank != l.rank) {
            p.setPen(pal.mid().color());
            p.drawLine(0, y, vr.width(), y);
        }
        for (int x = 0; x < width; ++x) {
            const TimeNs t0 = m_begin + static_cast<TimeNs>(x * nsPerPx);
            const double share = busyShare(lane, t0, std::max(t0 + 1, m_begin + static_cast<TimeNs>((x + 1) * nsPerPx)));
            if (std::isnan(share) || share <= 0)
                continue;
            const double s = std::clamp(share, 0.0, 1.0);
            p.setPen(QColor::fromRgbF(static_cast<float>(idle.redF() + (busy.redF() - idle.redF()) * s),
                                      static_cast<float>(idle.greenF() + (busy.greenF() - idle.greenF()) * s),
                                      static_cast<float>(idle.blueF() + (busy.blueF() - idle.blueF()) * s)));
            p.drawLine(kLabelWidth + x, y + 1, kLabelWidth + x, y + kRowHeight - 2);
        }
        p.fillRect(QRect(0, y, kLabelWidth, kRowHeight), pal.window());
        p.setPen(pal.windowText().color());
        p.drawText(QRect(4, y, kLabelWidth - 8, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   fontMetrics().elidedText(laneLabel(lane), Qt::ElideRight, kLabelWidth - 8));
    }
    p.setClipping(false);
    // The time axis: offsets from the earliest lane's start, the timeline's ticks.
    p.fillRect(QRect(0, 0, vr.width(), kAxisHeight), pal.window());
    p.setPen(pal.windowText().color());
    p.drawText(QRect(4, 0, kLabelWidth - 8, kAxisHeight), Qt::AlignVCenter,
               tr("%1 lanes of %2").arg(laneCount()).arg(fmt::duration(m_end - m_begin)));
    const TimeTicks ticks = timeTicks(0, m_end - m_begin, width);
    for (TimeNs t = ticks.first; t <= m_end - m_begin; t += ticks.step) {
        const double x = xOf(m_begin + t);
        p.drawLine(QPointF(x, kAxisHeight - 6), QPointF(x, kAxisHeight - 1));
        p.drawText(QRectF(x + 3, 0, 100, kAxisHeight - 3), Qt::AlignLeft | Qt::AlignVCenter,
                   formatOffset(t, ticks.step, ticks.span));
    }
}

bool OverviewLanes::viewportEvent(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const QString text = toolTipAt(he->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(he->globalPos(), text, viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(e);
}

void OverviewLanes::mouseDoubleClickEvent(QMouseEvent* e)
{
    const int lane = laneAt(e->position().toPoint());
    if (lane >= 0)
        emit rankActivated(m_lanes[static_cast<std::size_t>(lane)].rank);
}

} // namespace npuscope
