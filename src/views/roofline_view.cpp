#include "views/roofline_view.h"
#include "views/format.h"

#include "views/plot_palette.h"
#include "views/selection_controller.h"

#include <QLabel>
#include <QResizeEvent>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace npuscope {

namespace {

// The points of one rank (all ranks when rank < 0) that have both coordinates.
std::vector<const advisor::RooflinePoint*> pointsOf(const advisor::AdvisorReport& r, int rank, std::size_t* unknown)
{
    std::vector<const advisor::RooflinePoint*> out;
    *unknown = 0;
    for (const auto& p : r.roofline) {
        if (rank >= 0 && p.rank != rank)
            continue;
        if (p.intensity > 0 && p.achievedFlops > 0)
            out.push_back(&p);
        else
            ++*unknown;
    }
    return out;
}

const advisor::RooflineRoofs* roofsOf(const advisor::AdvisorReport& r, int rank)
{
    for (const auto& f : r.roofs)
        if (rank < 0 || f.rank == rank)
            return &f;
    return nullptr;
}

// A roof: y = x · bandwidth up to the ridge, then the peak.
void addRoof(QCustomPlot* plot, double peak, double bw, double xMin, double xMax, const QColor& c, const QString& name)
{
    if (!(peak > 0) || !(bw > 0))
        return;
    QCPGraph* g = plot->addGraph();
    g->setName(name);
    QPen pen(c, 2);
    g->setPen(pen);
    const double ridge = peak / bw;
    QVector<double> x, y;
    if (ridge > xMin) {
        x << xMin << ridge;
        y << xMin * bw / 1e12 << peak / 1e12;
    } else {
        x << xMin;
        y << peak / 1e12;
    }
    x << std::max(xMax, ridge * 4);
    y << peak / 1e12;
    g->setData(x, y, true);
    g->setSelectable(QCP::stNone);
}

// Points above their roof: hollow, crossed and in the advisor's "high" colour, never like a real one.
const QColor kAboveRoof(0xB5, 0x49, 0x5B);

// Names drawn for the costliest points at most; the rest are in the tooltips.
constexpr int kMaxLabels = 8;

} // namespace

RooflineView::RooflineView(SelectionController* sel, QWidget* parent) : QWidget(parent), m_sel(sel)
{
    auto* top = new QVBoxLayout(this);
    top->setContentsMargins(4, 4, 4, 4);
    m_label = new QLabel;
    m_label->setObjectName(QStringLiteral("rooflineSummary"));
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top->addWidget(m_label);
    m_plot = new QCustomPlot;
    m_plot->setObjectName(QStringLiteral("rooflinePlot"));
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom | QCP::iSelectPlottables);
    for (QCPAxis* a : {m_plot->xAxis, m_plot->yAxis}) {
        a->setScaleType(QCPAxis::stLogarithmic);
        a->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        a->setNumberFormat(QStringLiteral("gb"));
        a->setNumberPrecision(0);
    }
    m_plot->xAxis->setLabel(tr("Arithmetic intensity (FLOP/byte)"));
    m_plot->yAxis->setLabel(tr("Achieved TFLOP/s"));
    m_plot->legend->setVisible(true);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    top->addWidget(m_plot, 1);
    followPalette(m_plot); // light and dark themes
    m_picked = new QLabel;
    m_picked->setObjectName(QStringLiteral("rooflinePicked"));
    m_picked->setWordWrap(true);
    m_picked->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top->addWidget(m_picked);
    connect(m_plot, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable* p, int, QMouseEvent*) { onPlottableClick(p); });
    // A point's name, drawn over its corner, picks it too.
    connect(m_plot, &QCustomPlot::itemClick, this, [this](QCPAbstractItem* item, QMouseEvent*) {
        const auto it = std::find(m_labels.begin(), m_labels.end(), item);
        if (it != m_labels.end())
            clickPoint(m_labelPoint[static_cast<std::size_t>(it - m_labels.begin())]);
    });
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) { showPointTip(e->pos()); });
    // Names sit in pixels where they do not overlap, so they are placed again when the axes move.
    for (QCPAxis* a : {m_plot->xAxis, m_plot->yAxis})
        connect(a, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] { schedulePlaceLabels(); });
    if (m_sel)
        connect(m_sel, &SelectionController::currentRankChanged, this, [this] { rebuild(); });
    rebuild();
}

void RooflineView::setReport(std::shared_ptr<const advisor::AdvisorReport> report)
{
    m_report = std::move(report);
    rebuild();
}

QString RooflineView::summaryText() const { return m_label->text(); }

void RooflineView::rebuild()
{
    m_plot->clearGraphs();
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_shown.clear();
    m_pointGraphs.clear();
    m_pointSize.clear();
    m_labels.clear();
    m_leaders.clear();
    m_labelPoint.clear();
    m_labelRects.clear();
    m_picked->clear();
    int rank = -1;
    if (m_sel && m_sel->session() && m_sel->currentRank() >= 0
        && m_sel->currentRank() < static_cast<int>(m_sel->session()->ranks.size()))
        rank = m_sel->session()->ranks[static_cast<std::size_t>(m_sel->currentRank())]->rank;
    const advisor::RooflineRoofs* roofs = m_report ? roofsOf(*m_report, rank) : nullptr;
    if (!m_report || !roofs) {
        m_label->setText(m_report ? tr("No roofline: the profile has no kernel table (kernel_details.csv or "
                                       "op_summary_*.csv) with shapes or fops columns.")
                                  : tr("The roofline comes with the advisor's report."));
        m_plot->replot();
        return;
    }
    std::size_t unknown = 0;
    m_shown = pointsOf(*m_report, rank, &unknown);
    double tMax = 0, xMin = 1e300, xMax = 0, yMin = 1e300, yMax = 0;
    for (const auto* p : m_shown) {
        tMax = std::max(tMax, p->timeNs);
        xMin = std::min(xMin, p->intensity);
        xMax = std::max(xMax, p->intensity);
        yMin = std::min(yMin, p->achievedFlops / 1e12);
        yMax = std::max(yMax, p->achievedFlops / 1e12);
    }
    const double peakMax = std::max(roofs->cubeFp16, roofs->vectorFp16) / 1e12;
    if (m_shown.empty()) {
        xMin = 0.1;
        xMax = 1000;
        yMin = 0.01;
    }
    xMin = std::max(1e-3, xMin / 3);
    xMax = std::max(xMax * 3, roofs->ridge(roofs->cubeFp16) * 3);
    yMin = std::max(1e-6, yMin / 3);
    yMax = std::max(yMax, peakMax) * 3;
    addRoof(m_plot, roofs->cubeFp16, roofs->hbmBytesPerS, xMin, xMax, QColor(0x33, 0x66, 0xcc), tr("cube FP16 roof"));
    addRoof(m_plot, roofs->vectorFp16, roofs->hbmBytesPerS, xMin, xMax, QColor(0x2a, 0x9d, 0x8f), tr("vector FP16 roof"));
    bool cubeNamed = false, vectorNamed = false, aboveNamed = false;
    std::size_t above = 0;
    for (const auto* p : m_shown) {
        const bool cube = p->unit == "cube";
        QCPGraph* g = m_plot->addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        const double size = 6 + 22 * std::sqrt(tMax > 0 ? p->timeNs / tMax : 0);
        const QColor c = cube ? QColor(0x33, 0x66, 0xcc, 170) : QColor(0x2a, 0x9d, 0x8f, 170);
        bool& named = p->aboveRoof ? aboveNamed : cube ? cubeNamed : vectorNamed;
        if (p->aboveRoof) {
            ++above;
            g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(kAboveRoof, 2), Qt::NoBrush, size));
            g->setName(tr("above its roof: an estimate is off"));
        } else {
            g->setScatterStyle(QCPScatterStyle(cube ? QCPScatterStyle::ssCircle : QCPScatterStyle::ssSquare, c.darker(130), c, size));
            g->setName(cube ? tr("cube ops") : tr("vector ops"));
        }
        g->addData(p->intensity, p->achievedFlops / 1e12);
        if (named)
            m_plot->legend->removeItem(m_plot->legend->itemCount() - 1);
        named = true;
        m_pointGraphs.push_back(g);
        m_pointSize.push_back(size);
    }
    m_plot->xAxis->setRange(xMin, xMax);
    m_plot->yAxis->setRange(yMin, yMax);
    QString soc = roofs->soc.empty() ? tr("SoC not named") : qstr(roofs->soc);
    m_label->setText(tr("%1 · %2 AI cores / %3 vector cores at %4 MHz · cube %5 TFLOP/s FP16 · vector %6 TFLOP/s FP16 · "
                        "HBM %7 GB/s%8 · %9 op shapes plotted, sized by time%10")
                         .arg(soc)
                         .arg(roofs->aiCores)
                         .arg(roofs->vectorCores)
                         .arg(roofs->mhz, 0, 'f', 0)
                         .arg(roofs->cubeFp16 / 1e12, 0, 'f', 1)
                         .arg(roofs->vectorFp16 / 1e12, 0, 'f', 1)
                         .arg(roofs->hbmBytesPerS / 1e9, 0, 'f', 0)
                         .arg(roofs->known ? QString() : tr(" (settable defaults: the SoC is not in the table)"))
                         .arg(m_shown.size())
                         .arg(unknown ? tr(" · %1 without FLOPs or bytes (shapes not derivable)").arg(unknown) : QString())
                     + (above ? tr(" · ⚠ %n above their roof (crossed circles): no kernel can do that, so their FLOPs, "
                                   "bytes, dtype or the core count behind the roof is off; hover one for why", "",
                                   static_cast<int>(above))
                              : QString()));
    QStringList sources;
    for (const auto& s : roofs->sources)
        sources << qstr(s);
    m_label->setToolTip(sources.join(QLatin1Char('\n')));
    m_plot->replot(); // lays the axes out, which the names' places need
    placeLabels();
}

void RooflineView::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    schedulePlaceLabels();
}

void RooflineView::schedulePlaceLabels()
{
    if (m_placePending)
        return;
    m_placePending = true;
    QTimer::singleShot(0, this, [this] {
        if (!m_placePending)
            return;
        m_plot->replot();
        placeLabels();
    });
}

// The costliest points' names beside them, each where it overlaps no other name and no other
// point; a name with no room beside its point goes farther out on a leader line, else is left off.
void RooflineView::placeLabels()
{
    m_placePending = false;
    for (QCPAbstractItem* it : m_labels)
        m_plot->removeItem(it);
    for (QCPAbstractItem* it : m_leaders)
        m_plot->removeItem(it);
    m_labels.clear();
    m_leaders.clear();
    m_labelPoint.clear();
    m_labelRects.clear();
    const QRectF area = m_plot->axisRect()->rect();
    if (area.width() < 40 || area.height() < 40 || m_shown.empty()) {
        m_plot->replot();
        return;
    }
    auto centre = [this](std::size_t i) {
        const auto* p = m_shown[i];
        return QPointF(m_plot->xAxis->coordToPixel(p->intensity), m_plot->yAxis->coordToPixel(p->achievedFlops / 1e12));
    };
    std::vector<QRectF> markers;
    for (std::size_t i = 0; i < m_shown.size(); ++i) {
        const double r = m_pointSize[i] / 2;
        markers.emplace_back(centre(i) - QPointF(r, r), QSizeF(2 * r, 2 * r));
    }
    const QFont font = m_plot->font();
    const QFontMetricsF fm(font);
    const QColor text = m_plot->palette().color(QPalette::Text);
    const std::size_t want = std::min<std::size_t>(m_shown.size(), kMaxLabels);
    for (std::size_t i = 0; i < want; ++i) {
        const QPointF c = centre(i);
        if (!area.contains(c))
            continue;
        const QString name = qstr(m_shown[i]->opType) + (m_shown[i]->aboveRoof ? QStringLiteral(" ⚠") : QString());
        const QSizeF ts(fm.horizontalAdvance(name) + 4, fm.height() + 2);
        const double pad = m_pointSize[i] / 2 + 1;
        for (const double d : {pad, pad + 22}) {
            const QPointF spots[] = {{c.x() + d, c.y() - d - ts.height()}, {c.x() - d - ts.width(), c.y() - d - ts.height()},
                                     {c.x() + d, c.y() + d}, {c.x() - d - ts.width(), c.y() + d}};
            const QRectF* placed = nullptr;
            for (const QPointF& tl : spots) {
                const QRectF box(tl, ts);
                if (!area.contains(box))
                    continue;
                bool clash = std::any_of(m_labelRects.begin(), m_labelRects.end(), [&box](const QRectF& r) { return r.intersects(box); });
                for (std::size_t j = 0; j < markers.size() && !clash; ++j)
                    clash = j != i && markers[j].intersects(box);
                if (!clash) {
                    m_labelRects.push_back(box);
                    placed = &m_labelRects.back();
                    break;
                }
            }
            if (!placed)
                continue;
            auto* label = new QCPItemText(m_plot);
            label->setFont(font);
            label->position->setType(QCPItemPosition::ptAbsolute);
            label->position->setCoords(placed->topLeft());
            label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
            label->setPadding(QMargins(2, 1, 2, 1));
            label->setText(name);
            useTextColour(label);
            m_labels.push_back(label);
            m_labelPoint.push_back(static_cast<int>(i));
            if (d > pad) {
                auto* line = new QCPItemLine(m_plot);
                line->start->setType(QCPItemPosition::ptAbsolute);
                line->end->setType(QCPItemPosition::ptAbsolute);
                line->start->setCoords(c);
                const QRectF& b = *placed;
                line->end->setCoords(QPointF(c.x() < b.left() ? b.left() : b.right(), c.y() < b.top() ? b.top() : b.bottom()));
                line->setPen(QPen(text, 1));
                line->setSelectable(false);
                m_leaders.push_back(line);
            }
            break;
        }
    }
    m_plot->replot();
}

QString RooflineView::pointToolTip(int i) const
{
    if (i < 0 || i >= static_cast<int>(m_shown.size()))
        return {};
    const advisor::RooflinePoint& p = *m_shown[static_cast<std::size_t>(i)];
    QString tip = tr("<b>%1</b> [%2 %3]<br>%4 FLOP/byte · %5 TFLOP/s achieved, %6 of the %7 TFLOP/s attainable")
                      .arg(qstr(p.opType).toHtmlEscaped(), qstr(p.shapes).toHtmlEscaped(), qstr(p.dtypes).toHtmlEscaped())
                      .arg(p.intensity, 0, 'f', 1)
                      .arg(p.achievedFlops / 1e12, 0, 'f', 2)
                      .arg(QStringLiteral("%1 %").arg(p.efficiency() * 100, 0, 'f', 1))
                      .arg(p.attainable / 1e12, 0, 'f', 1);
    if (p.aboveRoof)
        tip += tr("<br><span style=\"color:%1\"><b>Not a real measurement</b>: %2.</span>")
                   .arg(kAboveRoof.name(), qstr(p.aboveRoofWhy).toHtmlEscaped());
    return tip;
}

void RooflineView::showPointTip(const QPoint& pos)
{
    int best = -1;
    double bestDist = 1e300;
    for (std::size_t i = 0; i < m_shown.size(); ++i) {
        const auto* p = m_shown[i];
        const QPointF c(m_plot->xAxis->coordToPixel(p->intensity), m_plot->yAxis->coordToPixel(p->achievedFlops / 1e12));
        const double d = std::hypot(c.x() - pos.x(), c.y() - pos.y());
        if (d <= std::max(6.0, m_pointSize[i] / 2) && d < bestDist) {
            best = static_cast<int>(i);
            bestDist = d;
        }
    }
    if (best < 0)
        QToolTip::hideText();
    else
        QToolTip::showText(m_plot->mapToGlobal(pos), pointToolTip(best), m_plot);
}

void RooflineView::onPlottableClick(QCPAbstractPlottable* plottable)
{
    const auto it = std::find(m_pointGraphs.begin(), m_pointGraphs.end(), plottable);
    if (it != m_pointGraphs.end())
        clickPoint(static_cast<int>(it - m_pointGraphs.begin()));
}

bool RooflineView::clickPoint(int i)
{
    if (i < 0 || i >= static_cast<int>(m_shown.size()))
        return false;
    const advisor::RooflinePoint& p = *m_shown[static_cast<std::size_t>(i)];
    const double eff = p.efficiency();
    m_picked->setText(tr("<b>%1</b> [%2 %3] · %4 calls, %5 ms · %6 GFLOP and %7 MB a call (FLOPs from %8, bytes from %9) · "
                         "%10 FLOP/byte · %11 TFLOP/s achieved, %12 of the %13 TFLOP/s attainable · %14-bound")
                          .arg(qstr(p.opType).toHtmlEscaped(), qstr(p.shapes).toHtmlEscaped(), qstr(p.dtypes).toHtmlEscaped())
                          .arg(p.count)
                          .arg(p.timeNs / 1e6, 0, 'f', 2)
                          .arg(p.flops / 1e9, 0, 'f', 3)
                          .arg(p.bytes / 1e6, 0, 'f', 2)
                          .arg(qstr(p.flopsFrom), qstr(p.bytesFrom))
                          .arg(p.intensity, 0, 'f', 1)
                          .arg(p.achievedFlops / 1e12, 0, 'f', 2)
                          .arg(std::isnan(eff) ? QStringLiteral("n/a") : QStringLiteral("%1 %").arg(eff * 100, 0, 'f', 1))
                          .arg(p.attainable / 1e12, 0, 'f', 1)
                          .arg(qstr(p.bound))
                      + (p.aboveRoof ? tr("<br><span style=\"color:%1\"><b>Above its roof, not a real measurement</b>: %2.</span>")
                                           .arg(kAboveRoof.name(), qstr(p.aboveRoofWhy).toHtmlEscaped())
                                     : QString()));
    if (m_sel)
        m_sel->setSelectedOperator(qstr(p.opType));
    return true;
}

} // namespace npuscope
