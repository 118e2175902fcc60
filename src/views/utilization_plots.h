#pragma once
// Utilisation curves under the timeline (AI Core utilisation, memory bandwidth, L2 hit rate,
// AI Core frequency, memory use), one stacked axis rect each, on the timeline's time axis: the
// range comes from the SelectionController, and once aligned to a TimelineView every plot's
// axis rect spans exactly the timeline's slice area (same left gutter, same right edge), so a
// time sits at the same x in both. Names and value scales live in the gutter; the time ticks
// and their text are the ruler's (model/analysis/time_axis.h). A selected range shows as a
// band in every plot; Shift+drag in a plot selects a range, plain drag/wheel pans/zooms.
#include "views/selection_controller.h"

#include <QWidget>

#include <optional>

class QCustomPlot;
class QCPAxisRect;
class QCPItemRect;
class QMouseEvent;
class QCPLegend;

namespace npuscope {

class TimelineView;

class UtilizationPlots : public QWidget {
    Q_OBJECT
public:
    explicit UtilizationPlots(SelectionController* sel, QWidget* parent = nullptr);
    // Puts every plot's time axis under the timeline's slice area, following its resizes.
    void alignTo(TimelineView* timeline);
    // The x in this widget's coordinates where time t sits (NaN without plots), per plot.
    double xOf(int plotIndex, TimeNs t) const;
    static constexpr int kGutter = 200; // the left gutter when not aligned to a timeline

    std::optional<TimeRange> highlightedRange() const { return m_highlight; }
    int plotCount() const;          // axis rects shown
    QStringList seriesNames() const;// legend names, "AI Core utilisation (derived)", ...
    QCustomPlot* plot() const { return m_plot; }
    // What hovering at pos (plot coordinates) shows: the time and every curve's value there,
    // one line each; empty outside the plots.
    QString readoutAt(QPointF pos) const;

private:
    void rebuild();
    void onVisibleRangeChanged(TimeRange r);
    void onSelectedRangeChanged(std::optional<TimeRange> r);
    void onPlotRangeChanged();
    bool eventFilter(QObject* watched, QEvent* e) override;
    void showReadout(QPointF pos, QPoint global);
    void placeAxes(); // margins and legends from the timeline's geometry, before each replot
    double toMs(TimeNs t) const;
    TimeNs fromMs(double ms) const;

    SelectionController* m_sel;
    QCustomPlot* m_plot;
    std::vector<QCPAxisRect*> m_rects;
    std::vector<QCPItemRect*> m_bands;
    std::vector<QCPLegend*> m_legends;
    TimelineView* m_timeline = nullptr;
    std::optional<TimeRange> m_highlight;
    QStringList m_names;
    bool m_syncing = false;
    bool m_selecting = false;
    double m_selectStartMs = 0;
};

} // namespace npuscope
