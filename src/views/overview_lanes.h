#pragma once
// The overview lanes of a cluster summary (docs/CLUSTER-SUMMARY.md): every rank's device streams
// and collective lanes at once, one row each, on one time axis from the earliest lane's start to
// the latest one's end. A row shades each pixel by how busy the lane was there (the mean of the
// summary's buckets under it): white idle, dark fully busy. Only the rows on screen are painted,
// so a thousand ranks scroll as fast as four. Hover says rank, lane, time and busy share; a
// double click asks for the rank's full folder (rankActivated).
#include "model/store/session.h"

#include <QAbstractScrollArea>

namespace npuscope {

class OverviewLanes : public QAbstractScrollArea {
    Q_OBJECT
public:
    static constexpr int kRowHeight = 14;
    static constexpr int kLabelWidth = 180;
    static constexpr int kAxisHeight = 20;

    explicit OverviewLanes(QWidget* parent = nullptr);
    void setLanes(std::vector<StreamOverview> lanes);
    int laneCount() const { return static_cast<int>(m_lanes.size()); }
    TimeNs begin() const { return m_begin; }
    TimeNs end() const { return m_end; }
    // Busy share (0..1) the row `lane` shows over [t0, t1), the mean of the buckets it covers;
    // NaN outside the lane's span.
    double busyShare(int lane, TimeNs t0, TimeNs t1) const;
    // The lane under viewport point `pos`, -1 when none; *t gets the time under it.
    int laneAt(const QPoint& pos, TimeNs* t = nullptr) const;
    QString toolTipAt(const QPoint& pos) const;
    QString laneLabel(int lane) const;

signals:
    void rankActivated(int rank);

protected:
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    bool viewportEvent(QEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;

private:
    void updateScrollBar();
    double xOf(TimeNs t) const;

    std::vector<StreamOverview> m_lanes;
    TimeNs m_begin = 0, m_end = 0;
};

} // namespace npuscope
