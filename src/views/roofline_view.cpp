#include "views/roofline_view.h"
#include "views/format.h"

#include "views/plot_palette.h"
#include "views/selection_controller.h"

#include <QLabel>
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
            clickPoint(static_cast<int>(it - m_labels.begin()));
    });
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
    m_labels.clear();
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
    bool cubeNamed = false, vectorNamed = false;
    for (const auto* p : m_shown) {
        const bool cube = p->unit == "cube";
        QCPGraph* g = m_plot->addGraph();
        g->setLineStyle(QCPGraph::lsNone);
        const double size = 6 + 22 * std::sqrt(tMax > 0 ? p->timeNs / tMax : 0);
        const QColor c = cube ? QColor(0x33, 0x66, 0xcc, 170) : QColor(0x2a, 0x9d, 0x8f, 170);
        g->setScatterStyle(QCPScatterStyle(cube ? QCPScatterStyle::ssCircle : QCPScatterStyle::ssSquare, c.darker(130), c, size));
        g->addData(p->intensity, p->achievedFlops / 1e12);
        g->setName(cube ? tr("cube ops") : tr("vector ops"));
        if ((cube && cubeNamed) || (!cube && vectorNamed))
            m_plot->legend->removeItem(m_plot->legend->itemCount() - 1);
        (cube ? cubeNamed : vectorNamed) = true;
        m_pointGraphs.push_back(g);
        if (m_pointGraphs.size() <= 6) { // the costliest are named on the plot
            auto* label = new QCPItemText(m_plot);
            label->position->setCoords(p->intensity, p->achievedFlops / 1e12);
            // Right of the point, or left of it in the plot's right quarter so it is not cut off.
            const bool nearRight = std::log(p->intensity / xMin) > 0.75 * std::log(xMax / xMin);
            const int pad = static_cast<int>(size / 2);
            label->setPositionAlignment((nearRight ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
            label->setPadding(nearRight ? QMargins(0, 0, pad, pad) : QMargins(pad, 0, 0, pad));
            label->setText(qstr(p->opType));
            useTextColour(label);
            m_labels.push_back(label);
        }
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
                         .arg(unknown ? tr(" · %1 without FLOPs or bytes (shapes not derivable)").arg(unknown) : QString()));
    QStringList sources;
    for (const auto& s : roofs->sources)
        sources << qstr(s);
    m_label->setToolTip(sources.join(QLatin1Char('\n')));
    m_plot->replot();
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
                          .arg(qstr(p.bound)));
    if (m_sel)
        m_sel->setSelectedOperator(qstr(p.opType));
    return true;
}

} // namespace npuscope
