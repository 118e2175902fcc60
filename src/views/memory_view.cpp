#include "views/memory_view.h"

#include "model/analysis/overlap.h"
#include "model/analysis/units.h"
#include "views/format.h"
#include "views/memory_models.h"
#include "views/palette.h"
#include "views/plot_palette.h"

#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace npuscope {

namespace {

// The value axis counts decimal megabytes, as every byte count in the texts does (formatBytes:
// kB, MB, GB by 1000), so "peak 1.32 GB" sits at 1320 on the axis.
constexpr double kMB = 1e6;

QTableView* makeTable(QSortFilterProxyModel* proxy, const QString& name)
{
    auto* v = new QTableView;
    v->setObjectName(name);
    v->setModel(proxy);
    v->setSortingEnabled(true);
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setAlternatingRowColors(true);
    v->verticalHeader()->hide();
    v->horizontalHeader()->setStretchLastSection(true);
    v->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    v->setWordWrap(false);
    // Operator names and frames keep their start and end; the tooltip has the whole text.
    v->setTextElideMode(Qt::ElideMiddle);
    return v;
}

// Columns as wide as their text, a text column at most half the table (elided in the middle
// past that, whole in its tooltip), so that a long operator name never hides the numbers.
void fitColumns(QTableView* v, std::initializer_list<int> textColumns)
{
    v->resizeColumnsToContents();
    const int cap = std::max(120, v->viewport()->width() / 2);
    for (int c : textColumns)
        v->setColumnWidth(c, std::min(v->columnWidth(c), cap));
}

} // namespace

MemoryView::MemoryView(SelectionController* sel, QWidget* parent) : QWidget(parent), m_sel(sel)
{
    buildUi();
    connect(m_sel, &SelectionController::sessionChanged, this, &MemoryView::rebuild);
    connect(m_sel, &SelectionController::currentRankChanged, this, &MemoryView::rebuild);
    connect(m_sel, &SelectionController::visibleRangeChanged, this, &MemoryView::onVisibleRangeChanged);
    connect(m_sel, &SelectionController::selectedRangeChanged, this, &MemoryView::onSelectedRangeChanged);
    rebuild();
}

bool MemoryView::wanted(const Session& s)
{
    return std::any_of(s.ranks.begin(), s.ranks.end(), [](const ProfilePtr& p) { return memory::summarize(*p).hasData(); });
}

void MemoryView::buildUi()
{
    auto* top = new QVBoxLayout(this);
    top->setContentsMargins(4, 4, 4, 4);
    m_label = new QLabel;
    m_label->setObjectName(QStringLiteral("memorySummary"));
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top->addWidget(m_label);

    auto* split = new QSplitter(Qt::Vertical);
    top->addWidget(split, 1);
    m_plot = new QCustomPlot;
    m_plot->setObjectName(QStringLiteral("memoryPlot"));
    m_plot->setMinimumHeight(220);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->installEventFilter(this);
    followPalette(m_plot);
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &MemoryView::onPlotRangeChanged);
    split->addWidget(m_plot);

    auto* bottom = new QSplitter(Qt::Horizontal);
    auto* left = new QWidget;
    auto* leftLay = new QVBoxLayout(left);
    leftLay->setContentsMargins(0, 0, 0, 0);
    m_momentLabel = new QLabel(tr("Click the curves to list the allocations alive at that moment."));
    m_momentLabel->setObjectName(QStringLiteral("memoryMoment"));
    leftLay->addWidget(m_momentLabel);
    m_alive = new AliveAllocationsModel(this);
    m_aliveProxy = new QSortFilterProxyModel(this);
    m_aliveProxy->setSourceModel(m_alive);
    m_aliveProxy->setSortRole(AliveAllocationsModel::SortRole);
    m_aliveView = makeTable(m_aliveProxy, QStringLiteral("memoryAliveTable"));
    m_aliveView->sortByColumn(AliveAllocationsModel::Size, Qt::DescendingOrder);
    leftLay->addWidget(m_aliveView);
    bottom->addWidget(left);

    auto* right = new QWidget;
    auto* rightLay = new QVBoxLayout(right);
    rightLay->setContentsMargins(0, 0, 0, 0);
    rightLay->addWidget(new QLabel(tr("Operators by bytes allocated (operator_memory)")));
    m_ops = new OperatorMemoryModel(this);
    m_opProxy = new QSortFilterProxyModel(this);
    m_opProxy->setSourceModel(m_ops);
    m_opProxy->setSortRole(OperatorMemoryModel::SortRole);
    m_opView = makeTable(m_opProxy, QStringLiteral("memoryOperatorTable"));
    m_opView->sortByColumn(OperatorMemoryModel::Bytes, Qt::DescendingOrder);
    rightLay->addWidget(m_opView);
    bottom->addWidget(right);
    bottom->setSizes({620, 480});
    split->addWidget(bottom);
    split->setSizes({420, 300});
}

double MemoryView::toMs(TimeNs t) const { return static_cast<double>(t - m_sel->fullRange().begin) / 1e6; }
TimeNs MemoryView::fromMs(double ms) const { return m_sel->fullRange().begin + roundNs(ms * 1e6); }

bool MemoryView::selectionBandVisible() const { return m_band && m_band->visible(); }

void MemoryView::rebuild()
{
    m_plot->clearItems();
    m_plot->clearGraphs();
    m_allocated = m_reserved = nullptr;
    m_peak = nullptr;
    m_cursor = nullptr;
    m_band = nullptr;
    m_stepLines = 0;
    m_moment.reset();
    m_profile.reset();
    m_summary = memory::Summary{};
    const SessionPtr& s = m_sel->session();
    if (s && !s->ranks.empty()) {
        const int rank = std::clamp(m_sel->currentRank(), 0, static_cast<int>(s->ranks.size()) - 1);
        m_profile = s->ranks[static_cast<std::size_t>(rank)];
        m_summary = memory::summarize(*m_profile);
    }
    m_ops->setProfile(m_profile);
    fitColumns(m_opView, {OperatorMemoryModel::Operator});
    m_alive->clear();
    m_momentLabel->setText(tr("Click the curves to list the allocations alive at that moment."));
    m_plot->legend->setVisible(true);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    m_plot->xAxis->setLabel(tr("ms since trace start"));
    m_plot->yAxis->setLabel(tr("MB (10⁶ bytes)"));

    addCurves();
    fitValueAxis();
    addStepLines();
    addPeakMarker();
    addCursorAndBand();
    m_label->setText(summaryText());
    applyPlotPalette(m_plot);
    onVisibleRangeChanged(m_sel->visibleRange());
    onSelectedRangeChanged(m_sel->selectedRange());
}

QCPGraph* MemoryView::addCurve(const memory::Series& ser, const QString& name, const QColor& c, Qt::PenStyle style)
{
    QCPGraph* g = m_plot->addGraph();
    g->setName(name);
    g->setLineStyle(QCPGraph::lsStepLeft); // a total holds until the next event
    g->setAdaptiveSampling(true);
    QVector<double> x, y;
    x.reserve(static_cast<qsizetype>(ser.ts.size()));
    y.reserve(static_cast<qsizetype>(ser.ts.size()));
    for (std::size_t i = 0; i < ser.ts.size(); ++i) {
        x << toMs(ser.ts[i]);
        y << ser.value[i] / kMB;
    }
    g->setData(x, y, true);
    g->setPen(QPen(c, 1.6, style));
    return g;
}

// The framework allocator's allocated, reserved (filled down to allocated) and active curves,
// and the whole process's reserved memory.
void MemoryView::addCurves()
{
    const memory::ComponentCurve* fw = m_summary.frameworkCurve();
    if (fw) {
        m_allocated = addCurve(fw->allocated, tr("%1 allocated").arg(QString::fromStdString(fw->component)),
                               paletteColor(0), Qt::SolidLine);
        if (!fw->reserved.empty()) {
            m_reserved = addCurve(fw->reserved, tr("%1 reserved (fill: reserved − allocated, fragmentation)")
                                                    .arg(QString::fromStdString(fw->component)),
                                  paletteColor(3), Qt::SolidLine);
            QColor fill = paletteColor(3);
            fill.setAlpha(70);
            m_reserved->setBrush(QBrush(fill, Qt::BDiagPattern));
            m_reserved->setChannelFillGraph(m_allocated);
        }
        // Active is drawn only where it says something allocated does not.
        bool activeDiffers = !fw->active.empty() && fw->active.ts != fw->allocated.ts;
        for (std::size_t i = 0; i < fw->active.ts.size() && !activeDiffers; ++i)
            activeDiffers = fw->active.value[i] != fw->allocated.value[i];
        if (activeDiffers)
            addCurve(fw->active, tr("%1 active").arg(QString::fromStdString(fw->component)), paletteColor(6),
                     Qt::DashLine);
    }
    for (const auto& cc : m_summary.components)
        if (cc.component == "APP" && !cc.reserved.empty())
            addCurve(cc.reserved, tr("APP reserved (whole process)"), paletteColor(8), Qt::DotLine);
}

// The value axis spans the curves (a large resident base would flatten them from 0) and the
// device capacity, drawn as a line when known.
void MemoryView::fitValueAxis()
{
    double top = 1, low = std::numeric_limits<double>::max();
    for (int i = 0; i < m_plot->graphCount(); ++i) {
        bool found = false;
        const QCPRange r = m_plot->graph(i)->getValueRange(found);
        if (found) {
            top = std::max(top, r.upper);
            low = std::min(low, r.lower);
        }
    }
    if (low > top)
        low = 0;
    if (!isMissing(m_summary.capacityBytes)) {
        auto* cap = new QCPItemStraightLine(m_plot);
        cap->point1->setCoords(0, m_summary.capacityBytes / kMB);
        cap->point2->setCoords(1, m_summary.capacityBytes / kMB);
        cap->setPen(QPen(QColor(0xB5, 0x49, 0x5B), 1, Qt::DashDotLine));
        top = std::max(top, m_summary.capacityBytes / kMB);
    }
    const double pad = std::max((top - low) * 0.08, top * 0.002);
    m_plot->yAxis->setRange(std::max(0.0, low - pad), top + 2.5 * pad); // room above for the legend
}

// Step boundaries, each step's start labelled.
void MemoryView::addStepLines()
{
    if (!m_profile)
        return;
    const auto steps = profilerSteps(*m_profile);
    QPen stepPen(palette().windowText().color(), 1, Qt::DashLine);
    stepPen.setColor(QColor(128, 128, 128));
    auto line = [&](TimeNs t) {
        auto* l = new QCPItemStraightLine(m_plot);
        l->point1->setCoords(toMs(t), 0);
        l->point2->setCoords(toMs(t), 1);
        l->setPen(stepPen);
        ++m_stepLines;
    };
    for (std::size_t i = 0; i < steps.size(); ++i) {
        line(steps[i].second.begin);
        auto* label = new QCPItemText(m_plot);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(toMs(steps[i].second.begin), 0.98);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setText(QString::fromStdString(steps[i].first).replace(QStringLiteral("ProfilerStep#"), tr("step ")));
        label->setColor(QColor(128, 128, 128));
        label->setClipToAxisRect(true);
        if (i + 1 == steps.size())
            line(steps[i].second.end);
    }
}

// The allocated curve's peak, marked and labelled.
void MemoryView::addPeakMarker()
{
    if (!m_allocated || !m_summary.peakAllocated.valid())
        return;
    m_peak = new QCPItemTracer(m_plot);
    m_peak->setGraph(m_allocated);
    m_peak->setGraphKey(toMs(m_summary.peakAllocated.at));
    m_peak->setInterpolating(false);
    m_peak->setStyle(QCPItemTracer::tsCircle);
    m_peak->setSize(9);
    m_peak->setPen(QPen(QColor(0xB5, 0x49, 0x5B), 2));
    auto* text = new QCPItemText(m_plot);
    text->position->setParentAnchor(m_peak->position);
    text->position->setCoords(6, -6);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    text->setText(tr("peak %1").arg(fmt::bytes(m_summary.peakAllocated.bytes)));
    text->setColor(QColor(0xB5, 0x49, 0x5B));
    text->setClipToAxisRect(false);
}

// The clicked moment's line and the selected range's band, hidden until there is one.
void MemoryView::addCursorAndBand()
{
    m_cursor = new QCPItemStraightLine(m_plot);
    m_cursor->setPen(QPen(palette().highlight().color(), 1.5));
    m_cursor->setVisible(false);
    m_band = new QCPItemRect(m_plot);
    m_band->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_band->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    QColor hl = palette().highlight().color();
    m_band->setPen(QPen(hl));
    hl.setAlpha(50);
    m_band->setBrush(hl);
    m_band->setVisible(false);
}

// The summary line above the plot: the rank, its peaks, capacity and allocation counts.
QString MemoryView::summaryText() const
{
    const memory::ComponentCurve* fw = m_summary.frameworkCurve();
    QStringList parts;
    if (!m_profile) {
        parts << tr("Memory curves appear here after a profile is opened.");
    } else if (!m_summary.hasData()) {
        parts << tr("No memory data in this rank: collect with torch_npu.profiler profile_memory=True "
                    "(operator_memory.csv, memory_record.csv).");
    } else {
        QString rank = m_profile->rank >= 0 ? tr("Rank %1").arg(m_profile->rank)
                                            : QString::fromStdString(m_profile->name);
        // Memory curves are one process's: with "All ranks" chosen, say whose they are.
        if (m_sel->currentRank() < 0 && m_sel->session() && m_sel->session()->ranks.size() > 1)
            rank += tr(" (All ranks chosen: memory is per rank, pick one in the toolbar)");
        parts << rank;
        if (fw && m_summary.peakAllocated.valid()) {
            parts << tr("%1 peak allocated %2 at %3 ms")
                         .arg(QString::fromStdString(fw->component), fmt::bytes(m_summary.peakAllocated.bytes))
                         .arg(toMs(m_summary.peakAllocated.at), 0, 'f', 3);
            const double res = fw->reserved.at(m_summary.peakAllocated.at);
            if (!isMissing(res) && res > 0)
                parts << tr("reserved then %1, fragmentation %2 (%3 %)")
                             .arg(fmt::bytes(res), fmt::bytes(res - m_summary.peakAllocated.bytes))
                             .arg((res - m_summary.peakAllocated.bytes) / res * 100.0, 0, 'f', 1);
            if (m_summary.peakReserved.valid())
                parts << tr("peak reserved %1").arg(fmt::bytes(m_summary.peakReserved.bytes));
        }
        if (m_summary.appReserved.valid())
            parts << tr("APP reserved up to %1").arg(fmt::bytes(m_summary.appReserved.bytes));
        if (!isMissing(m_summary.capacityBytes))
            parts << tr("device %1 (%2 % used at the peak)")
                         .arg(fmt::bytes(m_summary.capacityBytes))
                         .arg(m_summary.peakAllocated.bytes / m_summary.capacityBytes * 100.0, 0, 'f', 1);
        parts << tr("%1 allocations, %2 never freed").arg(m_summary.allocations).arg(m_summary.unreleased);
    }
    return parts.join(QStringLiteral(" · "));
}

void MemoryView::showMoment(TimeNs t)
{
    if (!m_profile)
        return;
    m_moment = t;
    m_alive->setMoment(m_profile, t);
    m_aliveProxy->sort(m_aliveView->horizontalHeader()->sortIndicatorSection(),
                       m_aliveView->horizontalHeader()->sortIndicatorOrder());
    fitColumns(m_aliveView, {AliveAllocationsModel::Operator, AliveAllocationsModel::PythonOp});
    if (m_cursor) {
        m_cursor->point1->setCoords(toMs(t), 0);
        m_cursor->point2->setCoords(toMs(t), 1);
        m_cursor->setVisible(true);
    }
    QString text = tr("At %1 ms: %n allocation(s) alive, %2", "", m_alive->rowCount())
                       .arg(toMs(t), 0, 'f', 3)
                       .arg(fmt::bytes(m_alive->totalBytes()));
    if (const memory::ComponentCurve* fw = m_summary.frameworkCurve()) {
        const double a = fw->allocated.at(t), r = fw->reserved.at(t);
        if (!isMissing(a))
            text += tr(" · %1 allocated %2").arg(QString::fromStdString(fw->component), fmt::bytes(a));
        if (!isMissing(r) && !isMissing(a))
            text += tr(", reserved %1 (gap %2)").arg(fmt::bytes(r), fmt::bytes(r - a));
    }
    m_momentLabel->setText(text);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryView::onVisibleRangeChanged(TimeRange r)
{
    m_syncing = true;
    m_plot->xAxis->setRange(toMs(r.begin), toMs(r.end));
    m_syncing = false;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryView::onSelectedRangeChanged(std::optional<TimeRange> r)
{
    if (!m_band)
        return;
    m_band->setVisible(r.has_value());
    if (r) {
        m_band->topLeft->setCoords(toMs(r->begin), 0);
        m_band->bottomRight->setCoords(toMs(r->end), 1);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryView::onPlotRangeChanged()
{
    if (m_syncing)
        return;
    const QCPRange r = m_plot->xAxis->range();
    m_sel->setVisibleRange({fromMs(r.lower), fromMs(r.upper)});
    onVisibleRangeChanged(m_sel->visibleRange()); // the controller may clamp
}

bool MemoryView::eventFilter(QObject* watched, QEvent* e)
{
    if (watched != m_plot)
        return QWidget::eventFilter(watched, e);
    const QEvent::Type t = e->type();
    if (t != QEvent::MouseButtonPress && t != QEvent::MouseMove && t != QEvent::MouseButtonRelease)
        return QWidget::eventFilter(watched, e);
    auto* me = static_cast<QMouseEvent*>(e);
    const double ms = m_plot->xAxis->pixelToCoord(me->position().x());
    switch (t) {
    case QEvent::MouseButtonPress:
        if (me->button() != Qt::LeftButton)
            break;
        m_pressed = true;
        m_pressPos = me->position();
        if (me->modifiers() & Qt::ShiftModifier) {
            // Shift+drag selects a time range instead of panning.
            m_selecting = true;
            m_selectStartMs = ms;
            return true;
        }
        break;
    case QEvent::MouseMove:
        if (m_selecting) {
            m_sel->setSelectedRange(TimeRange{fromMs(std::min(ms, m_selectStartMs)), fromMs(std::max(ms, m_selectStartMs))});
            return true;
        }
        break;
    case QEvent::MouseButtonRelease:
        if (m_selecting) {
            m_selecting = false;
            m_pressed = false;
            if (std::abs(me->position().x() - m_pressPos.x()) >= 3)
                m_sel->setSelectedRange(
                    TimeRange{fromMs(std::min(ms, m_selectStartMs)), fromMs(std::max(ms, m_selectStartMs))});
            return true;
        }
        if (m_pressed && me->button() == Qt::LeftButton) {
            m_pressed = false;
            // A click (not a pan): the allocations alive at that time.
            if ((me->position() - m_pressPos).manhattanLength() < 4 && m_plot->axisRect()->rect().contains(me->position().toPoint()))
                showMoment(fromMs(ms));
        }
        break;
    default:
        break;
    }
    return QWidget::eventFilter(watched, e);
}

} // namespace npuscope
