#pragma once
// Utilisation curves under the timeline (AI Core utilisation, memory bandwidth, L2 hit rate,
// AI Core frequency, memory use), one stacked axis rect each, on the timeline's time axis: the
// range comes from the SelectionController, and once aligned to a TimelineView every plot's
// axis rect spans exactly the timeline's slice area (same left gutter, same right edge), so a
// time sits at the same x in both. Names and value scales live in the gutter; the time ticks
// and their text are the ruler's (model/analysis/time_axis.h). A selected range shows as a
// band in every plot; Shift+drag in a plot selects a range, plain drag/wheel pans/zooms.
//
// The derived curves follow the zoom: each window (a pan, a zoom, a resize) is read again from
// the series' pyramid (model/analysis/utilization_pyramid.h) with at least one bin per two
// pixels, or between the tasks' own edges once zoomed in that far; the bandwidth axis scales to
// what the window shows. Sampled counters are drawn as recorded.
//
// On a cluster a "Curves of:" selector above the plots picks one rank's curves or every rank's
// (each plot's main series, its first with two samples or more, once per rank, one colour a
// rank); it follows the toolbar's rank and keeps its own choice while the toolbar says All
// ranks. Each kind of plot can be hidden (right-click menu, or the plotActions() that
// View → Curves shows); the others share its height.
// The selector, the note and the hiding live in utilization_plots_choice.cpp.
#include "model/analysis/utilization.h"
#include "views/selection_controller.h"

#include <QSet>
#include <QWidget>

#include <map>
#include <optional>
#include <utility>
#include <vector>

class QAction;
class QComboBox;
class QLabel;
class QMenu;
class QCustomPlot;
class QCPAxisRect;
class QCPGraph;
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
    // On a cluster, which rank's curves are shown ("Curves of rank 0 only; …", "One curve per
    // rank …"); empty for a single rank.
    QString rankNote() const { return m_rankNote; }
    // The derived curves as last drawn: the widest bin of any (0 when every one runs between its
    // tasks' edges, -1 without derived curves), and the widest a bin may be (two pixels' time).
    TimeNs curveBinNs() const { return m_binNs; }
    TimeNs curveMaxBinNs() const { return m_maxBinNs; }

    // The "Curves of:" choice: an index into Session::ranks, or kEveryRank.
    static constexpr int kEveryRank = -1;
    int curvesRank() const { return m_curvesRank; }
    void setCurvesRank(int rankIndex); // as choosing it in the selector
    QComboBox* curvesSelector() const { return m_curvesOf; }
    // Per rank index, the clock offset taken off its curve's times in "Every rank", where the
    // ranks share one axis (aligned = file − offset, model/analysis/clock_align.h); empty: none.
    void setClockShift(std::vector<TimeNs> offsets);
    TimeNs clockShift(int rankIndex) const; // as drawn now: 0 unless "Every rank" is shown

    // Kinds of plot, in their order: "util", "bw", "l2", "freq", "mem"; and their names
    // ("AI Core utilisation", …) as menus show them.
    static QStringList plotKinds();
    static QString plotKindName(const QString& kind);
    QString plotKindAt(int plotIndex) const; // the kind of a shown plot, "" out of range
    QStringList hiddenPlots() const;         // kinds, in plotKinds() order
    void setHiddenPlots(const QStringList& kinds);
    void setPlotHidden(const QString& kind, bool hidden);
    // One checkable action per kind (checked = shown), and "Show all plots": shared by the
    // right-click menu and View → Curves.
    QList<QAction*> plotActions() const { return m_plotActions; }
    QAction* showAllPlotsAction() const { return m_showAll; }
    // The right-click menu at pos (plot coordinates): "Hide <plot>", "Show all plots", the kinds.
    QMenu* contextMenuAt(QPointF pos);

signals:
    void hiddenPlotsChanged(const QStringList& kinds);

private:
    // A curve to draw and the rank it stands for in "Every rank" (-1 otherwise).
    struct Curve {
        const Series* series;
        int rank;
    };
    using CurvesByPlot = std::map<std::pair<int, QString>, std::vector<Curve>>; // by (plot order, plot key)
    void rebuild();
    CurvesByPlot collectCurves(std::size_t ranks, QSet<QString>& present);
    QCPAxisRect* addPlotRect(int row, const QString& key, const QString& unit, bool percent);
    void addCurves(QCPAxisRect* rect, QCPLegend* legend, const std::vector<Curve>& list, bool percent);
    void addSelectionBand(QCPAxisRect* rect);
    void onSessionChanged();
    void onCurrentRankChanged(int rank);
    void buildCurvesBar();
    void buildPlotActions();
    void fillCurvesSelector();
    // "Rank 3" (or "rank 3"), or the profile's name when it has no rank.
    static QString rankLabel(const Profile& p, bool capital);
    void updateRankNote();
    void updatePlotActions(const QSet<QString>& present);
    const std::vector<Series>& seriesOf(std::size_t rankIndex); // computed once per session
    void onVisibleRangeChanged(TimeRange r);
    void onSelectedRangeChanged(std::optional<TimeRange> r);
    void onPlotRangeChanged();
    bool eventFilter(QObject* watched, QEvent* e) override;
    void showReadout(QPointF pos, QPoint global);
    void placeAxes(); // margins and legends from the timeline's geometry, before each replot
    std::pair<int, int> sideMargins() const; // left (the gutter) and right of every axis rect
    int timeAxisWidth() const;               // the axis rects' width in pixels, before a layout too
    // Reads the derived curves again for the visible range and width, unless they show it already.
    void refreshCurves();
    double toMs(TimeNs t) const;
    TimeNs fromMs(double ms) const;

    SelectionController* m_sel;
    QComboBox* m_curvesOf = nullptr;
    QLabel* m_curvesNote = nullptr;
    QWidget* m_curvesBar = nullptr; // "Curves of:", the selector and the note; clusters only
    QCustomPlot* m_plot;
    std::vector<QCPAxisRect*> m_rects;
    std::vector<QCPItemRect*> m_bands;
    std::vector<QCPLegend*> m_legends;
    TimelineView* m_timeline = nullptr;
    std::optional<TimeRange> m_highlight;
    QStringList m_names;
    QString m_rankNote;
    int m_curvesRank = kEveryRank;
    QSet<QString> m_hidden;
    QList<QAction*> m_plotActions;
    QAction* m_showAll = nullptr;
    std::vector<std::optional<std::vector<Series>>> m_series; // per rank, this session's
    SessionPtr m_seriesSession; // the session m_series was computed from: their pyramids read it
    // A derived curve's graph and its series (in m_series), its values times `scale`.
    struct DerivedGraph {
        QCPGraph* graph;
        const Series* series;
        double scale;
        TimeNs shift; // taken off the series' times (clockShift)
    };
    std::vector<TimeNs> m_clockShift; // [rank index]
    std::vector<DerivedGraph> m_derived;
    TimeRange m_drawnRange{};
    TimeNs m_maxBinNs = 0, m_binNs = -1;
    bool m_syncing = false;
    bool m_selecting = false;
    double m_selectStartMs = 0;
};

} // namespace npuscope
