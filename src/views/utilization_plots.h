#pragma once
// Utilisation curves under the timeline (AI Core utilisation, memory bandwidth, L2 hit rate,
// AI Core frequency, memory use), one stacked axis rect each, sharing the timeline's time axis
// (x in ms since the trace start) through the SelectionController. A selected range shows as
// a band in every plot; Shift+drag in a plot selects a range, plain drag/wheel pans/zooms.
#include "views/selection_controller.h"

#include <QWidget>

#include <optional>

class QCustomPlot;
class QCPAxisRect;
class QCPItemRect;
class QMouseEvent;

namespace npuscope {

class UtilizationPlots : public QWidget {
    Q_OBJECT
public:
    explicit UtilizationPlots(SelectionController* sel, QWidget* parent = nullptr);

    std::optional<TimeRange> highlightedRange() const { return m_highlight; }
    int plotCount() const;          // axis rects shown
    QStringList seriesNames() const;// legend names, "AI Core utilisation (derived)", ...
    QCustomPlot* plot() const { return m_plot; }
    // What hovering at pos (plot coordinates) shows: the time and every curve's value there,
    // one line each; empty outside the plots.
    QString readoutAt(QPointF pos) const;
    // On a cluster, which rank's curves are shown ("Curves of rank 0 only (All ranks chosen…)").
    QString rankNote() const { return m_rankNote; }

private:
    void rebuild();
    void onVisibleRangeChanged(TimeRange r);
    void onSelectedRangeChanged(std::optional<TimeRange> r);
    void onPlotRangeChanged();
    bool eventFilter(QObject* watched, QEvent* e) override;
    void showReadout(QPointF pos, QPoint global);
    double toMs(TimeNs t) const;
    TimeNs fromMs(double ms) const;

    SelectionController* m_sel;
    QCustomPlot* m_plot;
    std::vector<QCPAxisRect*> m_rects;
    std::vector<QCPItemRect*> m_bands;
    std::optional<TimeRange> m_highlight;
    QStringList m_names;
    QString m_rankNote;
    bool m_syncing = false;
    bool m_selecting = false;
    double m_selectStartMs = 0;
};

} // namespace npuscope
