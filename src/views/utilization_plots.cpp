#include "views/utilization_plots.h"
#include "views/format.h"

#include "model/analysis/time_axis.h"
#include "model/analysis/utilization.h"
#include "views/palette.h"
#include "views/plot_palette.h"
#include "views/time_format.h"
#include "views/timeline_view.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

namespace npuscope {

namespace {

// Which plot a series goes to: series of one kind (and unit) share an axis rect.
QString plotKey(const Series& s)
{
    const QString n = qstr(s.name).toLower();
    if (n.contains(QStringLiteral("util")))
        return QStringLiteral("util");
    if (n.contains(QStringLiteral("l2")))
        return QStringLiteral("l2");
    if (n.contains(QStringLiteral("freq")) || qstr(s.unit) == QStringLiteral("MHz"))
        return QStringLiteral("freq");
    if (qstr(s.unit).contains(QStringLiteral("/s")))
        return QStringLiteral("bw");
    return QStringLiteral("mem:") + qstr(s.unit);
}

// Short: the label runs up a plot a few dozen pixels high; the legend names each curve in full.
QString plotTitle(const QString& key, const QString& unit)
{
    if (key == QStringLiteral("util"))
        return QObject::tr("AIC %");
    if (key == QStringLiteral("l2"))
        return QObject::tr("L2 %");
    if (key == QStringLiteral("freq"))
        return QObject::tr("MHz");
    return unit;
}

// The last entry of a plot legend that names only the largest curves: "+3 more (hover)".
class MoreLegendItem : public QCPAbstractLegendItem {
public:
    MoreLegendItem(QCPLegend* legend, QString text) : QCPAbstractLegendItem(legend), m_text(std::move(text)) {}

protected:
    void draw(QCPPainter* painter) override
    {
        painter->setFont(mFont);
        painter->setPen(QPen(mTextColor));
        painter->drawText(mRect, Qt::AlignLeft | Qt::AlignVCenter, m_text);
    }
    QSize minimumOuterSizeHint() const override
    {
        return QFontMetrics(mFont).size(0, m_text) + QSize(mMargins.left() + mMargins.right(),
                                                             mMargins.top() + mMargins.bottom());
    }

private:
    QString m_text;
};

// A curve's legend entry in the gutter: its colour and its name (or its "legendText" property,
// the rank in "Every rank"), cut with "…" to the room the gutter leaves (the readout names it
// in full).
class ElidedLegendItem : public QCPPlottableLegendItem {
public:
    ElidedLegendItem(QCPLegend* legend, QCPAbstractPlottable* plottable) : QCPPlottableLegendItem(legend, plottable) {}

protected:
    void draw(QCPPainter* painter) override
    {
        const QSize icon = mParentLegend->iconSize();
        const int pad = mParentLegend->iconTextPadding();
        const QRect iconRect(mRect.left(), mRect.top() + (mRect.height() - icon.height()) / 2, icon.width(), icon.height());
        // The curve's own icon: its fill, and its pen across the middle.
        painter->setBrush(mPlottable->brush());
        painter->setPen(Qt::NoPen);
        if (mPlottable->brush().style() != Qt::NoBrush)
            painter->drawRect(iconRect);
        painter->setPen(mPlottable->pen());
        painter->drawLine(QPointF(iconRect.left(), iconRect.center().y() + 0.5),
                          QPointF(iconRect.right() + 1, iconRect.center().y() + 0.5));
        painter->setFont(mFont);
        painter->setPen(QPen(mTextColor));
        const QRect textRect = mRect.adjusted(icon.width() + pad, 0, 0, 0);
        painter->drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
                          QFontMetrics(mFont).elidedText(text(), Qt::ElideRight, textRect.width()));
    }
    QSize minimumOuterSizeHint() const override
    {
        const QFontMetrics fm(mFont);
        return QSize(mParentLegend->iconSize().width() + mParentLegend->iconTextPadding() + fm.horizontalAdvance(text()),
                     std::max(fm.height(), mParentLegend->iconSize().height()))
             + QSize(mMargins.left() + mMargins.right(), mMargins.top() + mMargins.bottom());
    }

private:
    QString text() const
    {
        const QVariant legendText = mPlottable->property("legendText");
        return legendText.isValid() ? legendText.toString() : mPlottable->name();
    }
};

// The timeline ruler's ticks on a plot's time axis (x in ms since the trace start): the same
// step for the same pixels per ns, the same text. The width comes from the plots' margins, not
// the axis rect: QCustomPlot asks for the ticks before it lays the rects out, and a new rect has
// no width yet (its first replot would show one tick, "0 ms").
class TimeAxisTicker : public QCPAxisTicker {
public:
    explicit TimeAxisTicker(std::function<int()> width) : m_width(std::move(width)) {}

protected:
    double getTickStep(const QCPRange& range) override
    {
        m_ticks = timeTicks(roundNs(range.lower * 1e6), roundNs(range.upper * 1e6), m_width());
        return static_cast<double>(m_ticks.step) / 1e6;
    }
    int getSubTickCount(double) override { return 0; }
    QString getTickLabel(double tick, const QLocale&, QChar, int) override
    {
        return formatOffset(roundNs(tick * 1e6), m_ticks.step, m_ticks.span);
    }

private:
    std::function<int()> m_width;
    TimeTicks m_ticks;
};

// A value axis's tick text kept short enough for the gutter: 0, 5k, 10k MB rather than
// 0, 5000, 10000, so the axis's label ("MB") is not pushed under the legend.
class CompactTicker : public QCPAxisTicker {
protected:
    QVector<QString> createLabelVector(const QVector<double>& ticks, const QLocale& locale, QChar formatChar,
                                       int precision) override
    {
        double largest = 0;
        for (double t : ticks)
            largest = std::max(largest, std::fabs(t));
        if (largest < 1e4)
            return QCPAxisTicker::createLabelVector(ticks, locale, formatChar, precision);
        const auto [scale, suffix] = largest >= 1e7 ? std::pair{1e6, QLatin1Char('M')} : std::pair{1e3, QLatin1Char('k')};
        QVector<QString> labels;
        for (double t : ticks)
            labels << (t == 0 ? QStringLiteral("0") : QString::number(t / scale, 'g', 3) + suffix);
        return labels;
    }
};

// Room the value axis takes right of the legend: its rotated label and tick labels.
constexpr int kValueAxisRoom = 58;

// The value a step curve holds at x (the last sample at or before it), or none before the first.
std::optional<double> valueAt(const QCPGraph* g, double x)
{
    const auto data = g->data();
    auto it = data->findEnd(x, false); // first sample after x
    if (it == data->constBegin())
        return std::nullopt;
    --it;
    return it->value;
}

// The largest value of a series, and at least `from` (NaN never wins).
double peakOf(const Series& s, double from)
{
    double peak = from;
    for (double v : s.v)
        peak = std::max(peak, v);
    return peak;
}

// The kind a plot's key belongs to, as hidden and shown: every memory unit is one kind.
QString plotKind(const QString& key) { return key.startsWith(QStringLiteral("mem:")) ? QStringLiteral("mem") : key; }

int plotOrder(const QString& key)
{
    static const QStringList order = {QStringLiteral("util"), QStringLiteral("bw"), QStringLiteral("l2"), QStringLiteral("freq")};
    const int i = static_cast<int>(order.indexOf(key));
    return i < 0 ? 10 : i;
}

} // namespace

UtilizationPlots::UtilizationPlots(SelectionController* sel, QWidget* parent)
    : QWidget(parent), m_sel(sel), m_plot(new QCustomPlot(this))
{
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(0);
    buildCurvesBar();
    lay->addWidget(m_curvesBar);
    lay->addWidget(m_plot);
    buildPlotActions();
    setMinimumHeight(120);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setPlottingHint(QCP::phFastPolylines, true);
    m_plot->setAutoAddPlottableToLegend(false); // each curve goes to its own plot's legend
    m_plot->installEventFilter(this);
    m_plot->setMouseTracking(true); // the hover readout
    connect(m_plot, &QCustomPlot::beforeReplot, this, &UtilizationPlots::placeAxes);
    followPalette(m_plot);
    connect(m_sel, &SelectionController::sessionChanged, this, &UtilizationPlots::onSessionChanged);
    connect(m_sel, &SelectionController::currentRankChanged, this, &UtilizationPlots::onCurrentRankChanged);
    connect(m_sel, &SelectionController::visibleRangeChanged, this, &UtilizationPlots::onVisibleRangeChanged);
    connect(m_sel, &SelectionController::selectedRangeChanged, this, &UtilizationPlots::onSelectedRangeChanged);
    rebuild();
}

void UtilizationPlots::alignTo(TimelineView* timeline)
{
    if (m_timeline)
        m_timeline->viewport()->removeEventFilter(this);
    m_timeline = timeline;
    if (m_timeline) {
        m_timeline->viewport()->installEventFilter(this); // its resizes (a scroll bar came or went)
        connect(m_timeline, &QObject::destroyed, this, [this] { m_timeline = nullptr; });
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

double UtilizationPlots::xOf(int plotIndex, TimeNs t) const
{
    if (plotIndex < 0 || plotIndex >= plotCount())
        return std::nan("");
    return m_plot->x() + m_rects[static_cast<std::size_t>(plotIndex)]->axis(QCPAxis::atBottom)->coordToPixel(toMs(t));
}

std::pair<int, int> UtilizationPlots::sideMargins() const
{
    int left = kGutter, right = 0;
    if (m_timeline) {
        const QRect cr = m_timeline->contentRect();
        left = m_timeline->viewport()->mapToGlobal(cr.topLeft()).x() - m_plot->mapToGlobal(QPoint(0, 0)).x();
        left = std::max(0, left);
        right = std::max(0, m_plot->width() - left - cr.width());
    }
    return {left, right};
}

int UtilizationPlots::timeAxisWidth() const
{
    const auto [left, right] = sideMargins();
    return std::max(1, m_plot->width() - left - right);
}

void UtilizationPlots::placeAxes()
{
    const auto [left, right] = sideMargins();
    const int width = timeAxisWidth();
    // Top and bottom: half a value label each (the top and bottom ticks' labels stick out that
    // far), and the time labels under the last plot. Automatic margins would leave a plot a few
    // dozen pixels high with no room for its curves.
    for (QCPAxisRect* rect : m_rects) {
        const int half = QFontMetrics(rect->axis(QCPAxis::atLeft)->tickLabelFont()).height() / 2 + 1;
        QCPAxis* time = rect->axis(QCPAxis::atBottom);
        const int bottom = rect == m_rects.back()
            ? QFontMetrics(time->tickLabelFont()).height() + time->tickLabelPadding() + time->padding()
            : half;
        rect->setMargins(QMargins(left, half, right, bottom));
    }
    // Legends sit in the gutter, left of the value axis, never over the curves.
    const int legendWidth = std::max(40, left - kValueAxisRoom - 4);
    for (QCPLegend* legend : m_legends) {
        legend->setMaximumSize(legendWidth, legend->minimumOuterSizeHint().height());
        legend->setVisible(left >= kValueAxisRoom + 44);
        auto* inset = qobject_cast<QCPLayoutInset*>(legend->layout());
        const int index = inset ? static_cast<int>(inset->elements(false).indexOf(legend)) : -1;
        if (index >= 0)
            inset->setInsetRect(index, QRectF(static_cast<double>(4 - left) / width, 0,
                                          static_cast<double>(legendWidth) / width, 1));
    }
    refreshCurves(); // the width may have changed since the window was read
}

void UtilizationPlots::refreshCurves()
{
    if (m_derived.empty()) {
        m_binNs = -1;
        return;
    }
    const TimeRange r = m_sel->visibleRange();
    // At least one bin per two pixels.
    const TimeNs maxBin = std::max<TimeNs>(1, (r.end - r.begin) * 2 / std::max(2, timeAxisWidth()));
    if (r == m_drawnRange && maxBin == m_maxBinNs)
        return;
    m_drawnRange = r;
    m_maxBinNs = maxBin;
    m_binNs = 0;
    for (const DerivedGraph& d : m_derived) {
        const CurveWindow w = d.series->pyramid->window(d.series->quantity, r.begin + d.shift, r.end + d.shift, maxBin);
        QVector<double> x(static_cast<qsizetype>(w.t.size())), y(static_cast<qsizetype>(w.v.size()));
        for (std::size_t i = 0; i < w.t.size(); ++i) {
            x[static_cast<qsizetype>(i)] = toMs(w.t[i] - d.shift);
            y[static_cast<qsizetype>(i)] = w.v[i] * d.scale;
        }
        d.graph->setData(x, y, true);
        m_binNs = std::max(m_binNs, w.binNs);
    }
    // A rate's axis scales to the window: finer bins show peaks the whole span's average hides.
    for (QCPAxisRect* rect : m_rects) {
        if (rect->property("unit").toString() == QStringLiteral("%"))
            continue;
        double high = 0, low = 0;
        bool any = false;
        for (const DerivedGraph& d : m_derived) {
            if (d.graph->keyAxis()->axisRect() != rect)
                continue;
            any = true;
            for (auto it = d.graph->data()->constBegin(); it != d.graph->data()->constEnd(); ++it)
                if (!std::isnan(it->value)) {
                    high = std::max(high, it->value);
                    low = std::min(low, it->value);
                }
        }
        if (any)
            rect->axis(QCPAxis::atLeft)->setRange(low, high > 0 ? high * 1.1 : 1.0);
    }
}

void UtilizationPlots::setClockShift(std::vector<TimeNs> offsets)
{
    if (offsets == m_clockShift)
        return;
    m_clockShift = std::move(offsets);
    rebuild();
}

TimeNs UtilizationPlots::clockShift(int rankIndex) const
{
    const SessionPtr& s = m_sel->session();
    if (!s || s->ranks.size() < 2 || m_curvesRank != kEveryRank || rankIndex < 0
        || rankIndex >= static_cast<int>(m_clockShift.size()))
        return 0;
    return m_clockShift[static_cast<std::size_t>(rankIndex)];
}

int UtilizationPlots::plotCount() const { return static_cast<int>(m_rects.size()); }
QStringList UtilizationPlots::seriesNames() const { return m_names; }

double UtilizationPlots::toMs(TimeNs t) const { return static_cast<double>(t - m_sel->fullRange().begin) / 1e6; }
TimeNs UtilizationPlots::fromMs(double ms) const { return m_sel->fullRange().begin + roundNs(ms * 1e6); }

// The curves to draw, by plot, each with the rank it stands for in "Every rank" (-1 otherwise);
// `present` gets the kinds this profile has curves for, hidden or not.
UtilizationPlots::CurvesByPlot UtilizationPlots::collectCurves(std::size_t ranks, QSet<QString>& present)
{
    const bool everyRank = ranks > 1 && m_curvesRank == kEveryRank;
    CurvesByPlot byPlot;
    if (everyRank) {
        // Each plot's main series once per rank, the same counter on every rank so the curves
        // compare like with like: of the counters that draw a line (two samples or more; a
        // memory plot may start with a pool sampled once), the one with the highest peak on any
        // rank. A rank without that counter shows its first that draws a line, else its first.
        std::map<QString, std::pair<double, std::string>> mainName; // plot key -> (peak, name)
        for (std::size_t r = 0; r < ranks; ++r)
            for (const Series& ser : seriesOf(r)) {
                if (ser.t.size() < 2)
                    continue;
                const double peak = peakOf(ser, -std::numeric_limits<double>::infinity());
                auto [it, added] = mainName.try_emplace(plotKey(ser), peak, ser.name);
                if (!added && peak > it->second.first)
                    it->second = {peak, ser.name};
            }
        for (std::size_t r = 0; r < ranks; ++r) {
            std::map<QString, const Series*> main;
            for (const Series& ser : seriesOf(r)) {
                const QString key = plotKey(ser);
                const Series*& chosen = main[key];
                if (ser.t.empty())
                    continue;
                const auto named = mainName.find(key);
                const bool wanted = named != mainName.end() && ser.name == named->second.second;
                const bool chosenWanted = chosen && named != mainName.end() && chosen->name == named->second.second;
                if (!chosen || (!chosenWanted && (wanted || (chosen->t.size() < 2 && ser.t.size() >= 2))))
                    chosen = &ser;
            }
            for (const auto& [key, ser] : main) {
                if (!ser)
                    continue;
                present.insert(plotKind(key));
                if (!m_hidden.contains(plotKind(key)))
                    byPlot[{plotOrder(key), key}].push_back({ser, static_cast<int>(r)});
            }
        }
    } else if (ranks > 0) {
        const std::size_t rank = ranks > 1 && m_curvesRank >= 0 && static_cast<std::size_t>(m_curvesRank) < ranks
            ? static_cast<std::size_t>(m_curvesRank) : 0;
        for (const Series& ser : seriesOf(rank)) {
            const QString key = plotKey(ser);
            if (ser.t.empty())
                continue;
            present.insert(plotKind(key));
            if (!m_hidden.contains(plotKind(key)))
                byPlot[{plotOrder(key), key}].push_back({&ser, -1});
        }
    }
    return byPlot;
}

// A plot's axis rect in row `row`, its axes set for `key` (with `unit`) and its legend in the gutter.
QCPAxisRect* UtilizationPlots::addPlotRect(int row, const QString& key, const QString& unit, bool percent)
{
    auto* rect = new QCPAxisRect(m_plot);
    m_plot->plotLayout()->addElement(row, 0, rect);
    // Margins are the timeline's gutter and right edge, and room for the labels (placeAxes).
    rect->setAutoMargins(QCP::msNone);
    rect->setMargins(QMargins(kGutter, 0, 0, 0));
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() - 1));
    rect->axis(QCPAxis::atLeft)->setTickLabelFont(small);
    rect->axis(QCPAxis::atLeft)->setLabelFont(small);
    rect->axis(QCPAxis::atBottom)->setTicker(
        QSharedPointer<QCPAxisTicker>(new TimeAxisTicker([this] { return timeAxisWidth(); })));
    rect->setRangeDrag(Qt::Horizontal);
    rect->setRangeZoom(Qt::Horizontal);
    rect->axis(QCPAxis::atLeft)->setLabel(plotTitle(key, unit));
    rect->setProperty("unit", percent ? QStringLiteral("%") : unit);
    rect->setProperty("kind", plotKind(key));
    rect->axis(QCPAxis::atLeft)->setTicker(QSharedPointer<QCPAxisTicker>(new CompactTicker));
    rect->axis(QCPAxis::atLeft)->ticker()->setTickCount(2);
    rect->axis(QCPAxis::atBottom)->setTickLabels(false);
    rect->setMinimumSize(0, 28);
    auto* legend = new QCPLegend;
    rect->insetLayout()->addElement(legend, QRectF(0, 0, 0.1, 1)); // moved to the gutter by placeAxes
    m_legends.push_back(legend);
    legend->setLayer(QStringLiteral("legend"));
    QFont lf = font();
    lf.setPointSizeF(std::max(6.0, lf.pointSizeF() - 2));
    legend->setFont(lf);
    legend->setRowSpacing(0);
    // One curve a line in the gutter, tight, so three fit a short plot.
    legend->setFillOrder(QCPLegend::foRowsFirst);
    legend->setWrap(0);
    legend->setMargins(QMargins(2, 1, 2, 1));
    legend->setIconSize(10, 8);
    return rect;
}

// The plot's curves as graphs, the legend naming the highest peaks, and the value axis's range.
void UtilizationPlots::addCurves(QCPAxisRect* rect, QCPLegend* legend, const std::vector<Curve>& list, bool percent)
{
    const SessionPtr& s = m_sel->session();
    int colorIdx = 0;
    // The legend names the curves with the highest peaks, as many as kLegendEntries; the
    // rest are counted in a last entry, and the hover readout names them all. More entries
    // would run past a plot a few dozen pixels high.
    constexpr std::size_t kLegendEntries = 3;
    std::vector<std::pair<double, const Series*>> byPeak;
    for (const Curve& curve : list) {
        byPeak.emplace_back(peakOf(*curve.series, 0), curve.series);
    }
    std::stable_sort(byPeak.begin(), byPeak.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const std::size_t named = list.size() <= kLegendEntries ? list.size() : kLegendEntries - 1;
    byPeak.resize(named);
    for (const auto& [ser, rank] : list) {
        auto* g = m_plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        const bool sampled = ser->source.rfind("sampled", 0) == 0;
        // Sampled counters hold their value until the next sample; derived buckets too.
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setAdaptiveSampling(true);
        // Steps are horizontal and vertical lines: smoothing their edges blurs them and costs
        // most of a replot's time with a thousand bins a curve.
        g->setAntialiased(false);
        g->setAntialiasedFill(false);
        const double scale = percent && ser->unit != "%" ? 100.0 : 1.0;
        const TimeNs shift = rank >= 0 ? clockShift(rank) : 0;
        if (ser->pyramid) {
            m_derived.push_back({g, ser, scale, shift}); // its data: the visible window's (refreshCurves)
        } else {
            QVector<double> x(static_cast<qsizetype>(ser->t.size())), y(static_cast<qsizetype>(ser->v.size()));
            for (std::size_t i = 0; i < ser->t.size(); ++i) {
                x[static_cast<qsizetype>(i)] = toMs(ser->t[i] - shift);
                y[static_cast<qsizetype>(i)] = ser->v[i] * scale;
            }
            g->setData(x, y, true);
        }
        QString name = qstr(ser->name) + (sampled ? tr(" (sampled)") : tr(" (derived)"));
        if (rank >= 0) {
            // One colour per rank, the same in every plot; past the palette, dashed.
            QPen pen(paletteColor((rank * 5) % kPaletteSize), 1.2);
            if (rank >= kPaletteSize)
                pen.setStyle(Qt::DashLine);
            g->setPen(pen); // no fill: the curves of several ranks overlap
            const QString who = rankLabel(*s->ranks[static_cast<std::size_t>(rank)], false);
            name += QStringLiteral(" · ") + who;
            g->setProperty("legendText", QString(who + QStringLiteral(" · ") + qstr(ser->name))); // whose, then what
        } else {
            QColor c = paletteColor((colorIdx++ * 5) % kPaletteSize);
            g->setPen(QPen(c, 1.2));
            if (percent) {
                c.setAlpha(60);
                g->setBrush(c);
            }
        }
        g->setName(name);
        if (std::any_of(byPeak.begin(), byPeak.end(), [series = ser](const auto& e) { return e.second == series; }))
            legend->addItem(new ElidedLegendItem(legend, g));
        m_names << name;
        if (percent)
            rect->axis(QCPAxis::atLeft)->setRange(0, 100);
        else
            g->rescaleValueAxis(false, true);
    }
    if (list.size() > named)
        legend->addItem(new MoreLegendItem(legend, tr("+%1 more (hover)").arg(list.size() - named)));
    if (!percent) {
        bool found = false;
        QCPRange r;
        for (QCPGraph* g : rect->graphs()) {
            const QCPRange gr = g->getValueRange(found, QCP::sdBoth);
            if (found)
                r.expand(gr);
        }
        // A curve that stays at zero gets the axis 0..1, not QCustomPlot's 0..1e-9 (its ticks
        // would read as a measured 1e-9).
        rect->axis(QCPAxis::atLeft)->setRange(std::min(0.0, r.lower), r.upper > 0 ? r.upper * 1.1 : 1.0);
    }
}

// The selected range's band over one plot, hidden until a range is selected.
void UtilizationPlots::addSelectionBand(QCPAxisRect* rect)
{
    auto* band = new QCPItemRect(m_plot);
    band->setClipAxisRect(rect);
    // The vertical extent is a ratio of the rect's height: of this rect's, not the first one's
    // (a position's axis rect is QCustomPlot's first until it is told otherwise).
    for (QCPItemPosition* corner : {band->topLeft, band->bottomRight}) {
        corner->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        corner->setAxisRect(rect);
    }
    band->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    band->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    QColor hl = palette().highlight().color();
    band->setPen(QPen(hl));
    hl.setAlpha(50);
    band->setBrush(hl);
    band->setVisible(false);
    m_bands.push_back(band);
}

void UtilizationPlots::rebuild()
{
    m_plot->clearItems();
    m_plot->clearPlottables();
    // Forget the axis rects before deleting them: the event filter sees the plot's
    // ChildRemoved events while they die, and must not ask a half-destroyed rect for its axes
    // (QCustomPlot says "Axis index out of bounds: 0").
    m_rects.clear();
    m_bands.clear();
    m_legends.clear();
    m_names.clear();
    m_derived.clear();
    m_drawnRange = {};
    m_maxBinNs = 0;
    m_plot->plotLayout()->clear(); // deletes the axis rects

    const SessionPtr& s = m_sel->session();
    const std::size_t ranks = s ? s->ranks.size() : 0;
    if (m_series.size() != ranks || m_seriesSession != s) { // a session set before this widget heard of it
        m_series.assign(ranks, std::nullopt);
        m_seriesSession = s;
    }
    QSet<QString> present;
    const CurvesByPlot byPlot = collectCurves(ranks, present);
    updateRankNote();
    updatePlotActions(present);

    int row = 0;
    for (const auto& [key, list] : byPlot) {
        const bool percent = key.second == QStringLiteral("util") || key.second == QStringLiteral("l2");
        QCPAxisRect* rect = addPlotRect(row++, key.second, qstr(list.front().series->unit), percent);
        addCurves(rect, m_legends.back(), list, percent);
        addSelectionBand(rect);
        connect(rect->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
                &UtilizationPlots::onPlotRangeChanged);
        m_rects.push_back(rect);
    }
    if (!m_rects.empty()) {
        m_rects.back()->axis(QCPAxis::atBottom)->setTickLabels(true);
    } else {
        const QString text = !s ? tr("Utilisation curves appear here after a profile is opened")
            : present.isEmpty() ? tr("No utilisation counters or kernel metrics in this profile")
                                : tr("Every plot is hidden: right-click here, or View → Curves, to show them");
        m_plot->plotLayout()->addElement(0, 0, new QCPTextElement(m_plot, text));
    }
    applyPlotPalette(m_plot); // the axis rects, legends and title are new
    // Room for every plot's axis and legend (squeezed, their labels run into each other).
    const int bar = m_curvesBar->isVisibleTo(this) ? m_curvesBar->sizeHint().height() : 0;
    setMinimumHeight(std::max(80, 40 * static_cast<int>(m_rects.size()) + 30) + bar);
    setVisible(true);
    onVisibleRangeChanged(m_sel->visibleRange());
    onSelectedRangeChanged(m_sel->selectedRange());
}

void UtilizationPlots::onVisibleRangeChanged(TimeRange r)
{
    m_syncing = true;
    for (QCPAxisRect* rect : m_rects)
        rect->axis(QCPAxis::atBottom)->setRange(toMs(r.begin), toMs(r.end));
    m_syncing = false;
    refreshCurves();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void UtilizationPlots::onSelectedRangeChanged(std::optional<TimeRange> r)
{
    m_highlight = r;
    for (QCPItemRect* band : m_bands) {
        band->setVisible(r.has_value());
        if (r) {
            band->topLeft->setCoords(toMs(r->begin), 0);
            band->bottomRight->setCoords(toMs(r->end), 1);
        }
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void UtilizationPlots::onPlotRangeChanged()
{
    if (m_syncing)
        return;
    auto* axis = qobject_cast<QCPAxis*>(sender());
    if (!axis)
        return;
    const QCPRange r = axis->range();
    m_sel->setVisibleRange({fromMs(r.lower), fromMs(r.upper)});
    // The controller may clamp: show what it decided in every plot.
    onVisibleRangeChanged(m_sel->visibleRange());
}

bool UtilizationPlots::eventFilter(QObject* watched, QEvent* e)
{
    if (m_timeline && watched == m_timeline->viewport()) {
        if (e->type() == QEvent::Resize || e->type() == QEvent::Move)
            m_plot->replot(QCustomPlot::rpQueuedReplot);
        return QWidget::eventFilter(watched, e);
    }
    if (watched == m_plot && e->type() == QEvent::ContextMenu) {
        auto* ce = static_cast<QContextMenuEvent*>(e);
        contextMenuAt(ce->pos())->popup(ce->globalPos());
        return true;
    }
    if (watched != m_plot || m_rects.empty())
        return QWidget::eventFilter(watched, e);
    const QEvent::Type t = e->type();
    if (t == QEvent::MouseMove && !m_selecting && !static_cast<QMouseEvent*>(e)->buttons()) {
        showReadout(static_cast<QMouseEvent*>(e)->position(), static_cast<QMouseEvent*>(e)->globalPosition().toPoint());
        return QWidget::eventFilter(watched, e);
    }
    // Shift+drag selects a time range instead of panning.
    if (t != QEvent::MouseButtonPress && t != QEvent::MouseMove && t != QEvent::MouseButtonRelease)
        return QWidget::eventFilter(watched, e);
    QCPAxis* x = m_rects.front()->axis(QCPAxis::atBottom);
    switch (t) {
    case QEvent::MouseButtonPress: {
        auto* me = static_cast<QMouseEvent*>(e);
        if (me->button() == Qt::LeftButton && (me->modifiers() & Qt::ShiftModifier)) {
            m_selecting = true;
            m_selectStartMs = x->pixelToCoord(me->position().x());
            return true;
        }
        break;
    }
    case QEvent::MouseMove:
    case QEvent::MouseButtonRelease:
        if (m_selecting) {
            auto* me = static_cast<QMouseEvent*>(e);
            const double ms = x->pixelToCoord(me->position().x());
            m_sel->setSelectedRange(TimeRange{fromMs(std::min(ms, m_selectStartMs)), fromMs(std::max(ms, m_selectStartMs))});
            if (e->type() == QEvent::MouseButtonRelease)
                m_selecting = false;
            return true;
        }
        break;
    default:
        break;
    }
    return QWidget::eventFilter(watched, e);
}

QString UtilizationPlots::readoutAt(QPointF pos) const
{
    for (QCPAxisRect* rect : m_rects) {
        if (!rect->rect().contains(pos.toPoint()))
            continue;
        const double ms = rect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x());
        // The largest values first, at most kLines of them (a memory plot can hold 90 curves).
        constexpr std::size_t kLines = 12;
        std::vector<std::pair<double, QString>> values;
        for (const QCPGraph* g : rect->graphs())
            if (const auto v = valueAt(g, ms); v && !std::isnan(*v)) // NaN: no value there (and no order)
                values.emplace_back(*v, g->name());
        if (values.empty())
            return {};
        std::stable_sort(values.begin(), values.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        const QString unit = rect->property("unit").toString();
        // The time to a pixel's precision, in the unit the axis uses.
        const QCPRange range = rect->axis(QCPAxis::atBottom)->range();
        const TimeNs pxStep = niceStep(range.size() * 1e6 / std::max(1, rect->width()));
        const TimeNs span = roundNs(std::max(std::fabs(range.lower), std::fabs(range.upper)) * 1e6);
        QStringList lines{formatOffset(roundNs(ms * 1e6), pxStep, span)};
        for (std::size_t i = 0; i < std::min(values.size(), kLines); ++i)
            lines << QStringLiteral("%1: %2 %3").arg(values[i].second).arg(values[i].first, 0, 'g', 4).arg(unit);
        if (values.size() > kLines)
            lines << tr("… %1 more").arg(values.size() - kLines);
        return lines.join(QLatin1Char('\n'));
    }
    return {};
}

void UtilizationPlots::showReadout(QPointF pos, QPoint global)
{
    const QString text = readoutAt(pos);
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(global, text, m_plot);
}

} // namespace npuscope
