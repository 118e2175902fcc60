#include "views/cluster_view.h"

#include "advisor/thresholds.h"
#include "views/cluster_models.h"
#include "views/format.h"
#include "views/overview_lanes.h"
#include "views/palette.h"
#include "views/plot_palette.h"
#include "views/selection_controller.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QtConcurrent>
#include <QToolTip>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace npuscope {

namespace {

const QColor kSlowColour(0xB5, 0x49, 0x5B); // the advisor's "high" colour

// A read-only table of `model`, sortable through a NumericSortProxy.
QTableView* makeTable(QAbstractItemModel* model, QObject* owner)
{
    auto* proxy = new NumericSortProxy(owner);
    proxy->setSourceModel(model);
    auto* t = new QTableView;
    t->setModel(proxy);
    t->setSortingEnabled(true);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->verticalHeader()->setVisible(false);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    t->horizontalHeader()->setStretchLastSection(true);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    t->setTextElideMode(Qt::ElideMiddle); // long names keep both ends
    t->setWordWrap(false);
    t->setAlternatingRowColors(true);
    t->sortByColumn(0, Qt::AscendingOrder); // rows in rank order until sorted
    return t;
}

// Rank axis labels: every rank up to 32, else every k-th rank, k a power of two giving at
// most maxLabels labels (so 3-digit rank numbers of hundreds of ranks never overlap).
QSharedPointer<QCPAxisTickerText> rankTicker(const std::vector<int>& ranks, std::size_t maxLabels = 16)
{
    QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
    std::size_t step = 1;
    if (ranks.size() > 32)
        while (ranks.size() > maxLabels * step)
            step *= 2;
    for (std::size_t i = 0; i < ranks.size(); i += step)
        t->addTick(static_cast<double>(i), QString::number(ranks[i]));
    return t;
}

QString ms(double ns) { return fmt::duration(ns); }

// Colour per transportIndex(): LOCAL grey, HCCS blue, PCIE orange, SDMA green, RDMA
// vermillion, SIO purple, other indigo.
QColor transportColour(int i)
{
    switch (i) {
    case 0: return freeColor();
    case 1: return paletteColor(0);
    case 2: return paletteColor(1);
    case 3: return paletteColor(2);
    case 4: return paletteColor(kPaletteSize + 2);
    case 5: return paletteColor(5);
    default: return paletteColor(8);
    }
}

// Viridis: a sequential scale that is dark at the bottom and bright at the top on either theme,
// uniform in lightness and readable with any colour vision; neither end looks like "no data".
QCPColorGradient sequentialGradient()
{
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.0, QColor(0x44, 0x01, 0x54));
    g.setColorStopAt(0.25, QColor(0x3b, 0x52, 0x8b));
    g.setColorStopAt(0.5, QColor(0x21, 0x91, 0x8c));
    g.setColorStopAt(0.75, QColor(0x5e, 0xc9, 0x62));
    g.setColorStopAt(1.0, QColor(0xfd, 0xe7, 0x25));
    g.setNanHandling(QCPColorGradient::nhTransparent);
    return g;
}

// Links closer than this (relative to the largest) are one colour: stretching a few percent
// from one end of the scale to the other would invent a difference.
constexpr double kUniformSpread = 0.05;

} // namespace

ClusterView::ClusterView(SelectionController* sel, QWidget* parent) : QWidget(parent), m_sel(sel)
{
    setObjectName(QStringLiteral("clusterView"));
    m_breakdownModel = new RankBreakdownModel(this);
    m_rankOverlapModel = new RankOverlapModel(this);
    m_collOverlapModel = new CollectiveOverlapModel(this);
    buildUi();
    connect(&m_watcher, &QFutureWatcherBase::finished, this, [this] {
        m_a = m_watcher.result();
        m_pending = false;
        showAnalysis();
        emit analysisReady();
    });
}

ClusterView::~ClusterView()
{
    m_watcher.waitForFinished(); // the worker holds the session, not this view
    m_lateWatcher.waitForFinished();
}

bool ClusterView::wanted(const Session& s) { return s.ranks.size() >= 2 || s.cluster.present(); }

// Left of the tab: the step breakdown per rank, as stacked bars (a click selects the rank) and a table.
QWidget* ClusterView::buildBreakdownPane()
{
    auto* left = new QSplitter(Qt::Vertical);
    m_bars = new QCustomPlot;
    m_bars->setObjectName(QStringLiteral("clusterBars"));
    m_bars->setMinimumHeight(220);
    m_bars->legend->setVisible(true);
    m_bars->legend->setFont(font());
    m_bars->xAxis->setLabel(tr("Rank"));
    m_bars->yAxis->setLabel(tr("Step time T (ms)"));
    m_bars->plotLayout()->insertRow(0);
    m_bars->plotLayout()->addElement(0, 0, new QCPTextElement(m_bars, tr("Step breakdown per rank"), QFont(font().family(), font().pointSize(), QFont::Bold)));
    // The legend in a row of its own under the chart, so it never hides a bar.
    m_bars->axisRect()->insetLayout()->take(m_bars->legend);
    m_bars->plotLayout()->addElement(2, 0, m_bars->legend);
    m_bars->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_bars->plotLayout()->setRowStretchFactor(2, 0.001);
    followPalette(m_bars);
    connect(m_bars, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        if (m_barRanks.empty() || !m_bars->axisRect()->rect().contains(e->pos()))
            return;
        const double key = m_bars->xAxis->pixelToCoord(e->pos().x());
        const long i = std::lround(key);
        if (i >= 0 && i < static_cast<long>(m_barRanks.size()) && std::abs(key - static_cast<double>(i)) <= 0.4)
            activateRank(m_barRanks[static_cast<std::size_t>(i)]);
    });
    left->addWidget(m_bars);
    m_breakdown = makeTable(m_breakdownModel, this);
    m_breakdown->setObjectName(QStringLiteral("clusterBreakdown"));
    m_breakdown->setToolTip(tr("Means per step. Step time = Computing + Communication(Not Overlapped) + Free."));
    left->addWidget(m_breakdown);
    return left;
}

// The communication matrix with its metric and collective pickers.
QWidget* ClusterView::buildMatrixPane()
{
    auto* matrixBox = new QWidget;
    auto* mv = new QVBoxLayout(matrixBox);
    mv->setContentsMargins(0, 0, 0, 0);
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Communication matrix")));
    controls->addStretch(1);
    m_metric = new QComboBox;
    m_metric->setObjectName(QStringLiteral("clusterMatrixMetric"));
    for (MatrixMetric m : {MatrixMetric::Bandwidth, MatrixMetric::Size, MatrixMetric::Time, MatrixMetric::Transport})
        m_metric->addItem(tr(matrixMetricName(m)), static_cast<int>(m));
    m_collective = new QComboBox;
    m_collective->setObjectName(QStringLiteral("clusterMatrixCollective"));
    m_collective->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    controls->addWidget(new QLabel(tr("Show")));
    controls->addWidget(m_metric);
    controls->addWidget(new QLabel(tr("of")));
    controls->addWidget(m_collective);
    mv->addLayout(controls);
    m_matrix = new QCustomPlot;
    m_matrix->setObjectName(QStringLiteral("clusterMatrix"));
    m_matrix->setMinimumHeight(240);
    m_matrix->setMouseTracking(true);
    m_matrix->xAxis->setLabel(tr("Destination rank"));
    m_matrix->yAxis->setLabel(tr("Source rank"));
    m_matrix->yAxis->setRangeReversed(true);
    m_matrix->xAxis->grid()->setVisible(false);
    m_matrix->yAxis->grid()->setVisible(false);
    m_map = new QCPColorMap(m_matrix->xAxis, m_matrix->yAxis);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false);
    m_scale = new QCPColorScale(m_matrix);
    m_matrix->plotLayout()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_map->setColorScale(m_scale);
    auto* group = new QCPMarginGroup(m_matrix);
    m_matrix->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    followPalette(m_matrix);
    connect(m_matrix, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) { showCellTip(e->pos()); });
    mv->addWidget(m_matrix, 1);
    m_matrixNote = new QLabel;
    m_matrixNote->setObjectName(QStringLiteral("clusterMatrixNote"));
    m_matrixNote->setWordWrap(true);
    mv->addWidget(m_matrixNote);
    connect(m_metric, &QComboBox::currentIndexChanged, this, [this] { fillMatrix(); });
    connect(m_collective, &QComboBox::currentIndexChanged, this, [this] { fillMatrix(); });
    return matrixBox;
}

// The overlap of communication with computing, per rank and per collective.
QWidget* ClusterView::buildOverlapTabs()
{
    auto* overlapTabs = new QTabWidget;
    m_rankOverlap = makeTable(m_rankOverlapModel, this);
    m_rankOverlap->setObjectName(QStringLiteral("clusterRankOverlap"));
    m_collOverlap = makeTable(m_collOverlapModel, this);
    m_collOverlap->setObjectName(QStringLiteral("clusterCollectiveOverlap"));
    const QString overlapTip = tr("Share of each collective's time during which the same rank computed (all steps).");
    m_rankOverlap->setToolTip(overlapTip);
    m_collOverlap->setToolTip(overlapTip);
    overlapTabs->addTab(m_rankOverlap, tr("Overlap per rank"));
    overlapTabs->addTab(m_collOverlap, tr("Overlap per collective"));
    overlapTabs->addTab(buildWhyWaitsPane(), tr("Why it waits"));
    return overlapTabs;
}

void ClusterView::buildUi()
{
    auto* top = new QVBoxLayout(this);
    top->setContentsMargins(4, 4, 4, 4);
    m_findings = new QLabel;
    m_findings->setObjectName(QStringLiteral("clusterFindings"));
    m_findings->setWordWrap(true);
    m_findings->setTextFormat(Qt::RichText);
    m_findings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_findings->setFrameShape(QFrame::StyledPanel);
    m_findings->setContentsMargins(6, 4, 6, 4);
    top->addWidget(m_findings);

    auto* split = new QSplitter(Qt::Horizontal);
    // Below the charts, a summary's overview lanes (every rank's streams at once).
    auto* outer = new QSplitter(Qt::Vertical);
    outer->setChildrenCollapsible(false);
    outer->addWidget(split);
    m_overviewBox = new QWidget;
    auto* ob = new QVBoxLayout(m_overviewBox);
    ob->setContentsMargins(0, 4, 0, 0);
    ob->addWidget(new QLabel(tr("<b>Overview</b>: every rank's device streams and collective lanes, shaded by how "
                                "busy they are (double-click a lane to open its rank)")));
    m_overview = new OverviewLanes;
    ob->addWidget(m_overview, 1);
    outer->addWidget(m_overviewBox);
    outer->setStretchFactor(0, 3);
    outer->setStretchFactor(1, 2);
    m_overviewBox->hide();
    connect(m_overview, &OverviewLanes::rankActivated, this, &ClusterView::openRankFolder);
    top->addWidget(outer, 1);

    // Left: the step breakdown; right: the matrix and the overlap.
    split->addWidget(buildBreakdownPane());
    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(buildMatrixPane());
    right->addWidget(buildOverlapTabs());
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);

    m_sources = new QLabel;
    m_sources->setObjectName(QStringLiteral("clusterSources"));
    m_sources->setWordWrap(true);
    QPalette pal = m_sources->palette();
    pal.setColor(QPalette::WindowText, pal.color(QPalette::PlaceholderText));
    m_sources->setPalette(pal);
    top->addWidget(m_sources);

    auto rowRank = [this](QTableView* t) {
        connect(t, &QTableView::clicked, this,
                [this](const QModelIndex& i) { activateRank(i.data(ClusterTableModel::RankRole).toInt()); });
    };
    rowRank(m_breakdown);
    rowRank(m_rankOverlap);
    // A cluster summary has the ranks' numbers but not their data: a double click opens it.
    m_rankNote = new QLabel;
    m_rankNote->setObjectName(QStringLiteral("clusterRankNote"));
    m_rankNote->setWordWrap(true);
    m_rankNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_rankNote->hide();
    top->insertWidget(1, m_rankNote);
    connect(m_breakdown, &QTableView::doubleClicked, this,
            [this](const QModelIndex& i) { openRankFolder(i.data(ClusterTableModel::RankRole).toInt()); });
}

void ClusterView::setSession(SessionPtr s)
{
    m_session = std::move(s);
    m_a = {};
    m_pending = true;
    showAnalysis(); // empty until the worker is done
    m_findings->setText(m_session ? tr("Analysing the cluster…") : QString());
    m_watcher.setFuture(QtConcurrent::run([session = m_session] {
        if (!session)
            return ClusterAnalysis{};
        ClusterOptions o;
        const advisor::Thresholds th = advisor::Thresholds::load();
        if (const double g = th.param("CLU-SLOWRANK", "gap_ratio"); !std::isnan(g))
            o.gapRatio = g;
        if (const double b = th.param("CLU-SLOWLINK", "bw_ratio"); !std::isnan(b))
            o.bwRatio = b;
        return analyzeCluster(*session, o);
    }));
    runCollectives();
}

void ClusterView::showAnalysis()
{
    {
        const QSignalBlocker block(m_collective);
        m_collective->clear();
        for (const CommMatrix& m : m_a.matrices)
            m_collective->addItem(m.collective == "All" ? tr("All collectives") : qstr(m.collective), qstr(m.collective));
    }
    fillFindings();
    fillBars();
    fillBreakdown();
    fillMatrix();
    fillOverlap();
    m_overview->setLanes(m_session ? m_session->cluster.overview : std::vector<StreamOverview>{});
    m_overviewBox->setVisible(m_overview->laneCount() > 0);
}

QString ClusterView::findingsText() const { return m_findings->text().remove(QRegularExpression(QStringLiteral("<[^>]*>"))); }

void ClusterView::fillFindings()
{
    QStringList lines;
    const SlowRankResult& sr = m_a.slowRank;
    const QString slowStyle = QStringLiteral("color:%1;font-weight:bold").arg(kSlowColour.name());
    if (!sr.checked) {
        lines << tr("Slow rank: not checked (needs the step breakdown of ≥ 2 ranks).");
    } else if (!sr.fired()) {
        // Name the closest candidate: the part with the largest spread and its rank.
        const auto top = std::max_element(sr.dimensions.begin(), sr.dimensions.end(),
                                          [](const auto& x, const auto& y) { return x.spread < y.spread; });
        QStringList spreads;
        for (const auto& d : sr.dimensions)
            spreads << tr("%1 %2 (rank %3)").arg(qstr(d.name), fmt::percent(d.spread)).arg(d.slowRank);
        lines << tr("No slow rank across %1 ranks: every spread is at most %2 of the ranks' mean T; largest %3 %4 (rank %5). "
                    "Spreads: %6.")
                     .arg(m_a.ranks.size())
                     .arg(fmt::percent(sr.gapRatio), qstr(top->name), fmt::percent(top->spread))
                     .arg(top->slowRank)
                     .arg(spreads.join(QStringLiteral(", ")));
    } else {
        for (const auto& d : sr.dimensions) {
            if (!d.fired)
                continue;
            const bool comm = d.name.rfind("Communication", 0) == 0;
            QString what = comm ? tr("shortest %1 (%2, arrives last)").arg(qstr(d.name), ms(d.value))
                                : tr("%1 %2 vs median %3 (+%4)")
                                      .arg(qstr(d.name), ms(d.value), ms(d.median),
                                           fmt::percent(d.median > 0 ? d.value / d.median - 1 : 0));
            lines << tr("<span style=\"%1\">Slow rank %2</span>: %3; spread %4 of the ranks' mean T (threshold %5).")
                         .arg(slowStyle)
                         .arg(d.slowRank)
                         .arg(what.toHtmlEscaped(), fmt::percent(d.spread), fmt::percent(sr.gapRatio));
        }
    }
    const SlowLinkResult& sl = m_a.slowLink;
    if (!sl.checked) {
        lines << tr("Slow link: not checked (needs communication bandwidth of ≥ 2 ranks).");
    } else {
        const auto slow = sl.slow();
        // The matrix cells below the median of their transport name the link itself.
        QStringList cells;
        if (!m_a.matrices.empty())
            for (const MatrixCell& c : m_a.matrices.front().cells)
                if (c.slow)
                    cells << tr("%1→%2 %3").arg(c.src).arg(c.dst).arg(fmt::bandwidth(c.bandwidthGBps()));
        if (slow.empty()) {
            lines << tr("No slow link: every rank's bandwidth per transport is at least %1 of the median.")
                         .arg(fmt::percent(sl.bwRatio));
        } else {
            for (const RankTransportBandwidth* r : slow)
                lines << tr("<span style=\"%1\">Slow %2 link on rank %3</span>: %4 vs median %5 (below %6 of the median)%7.")
                             .arg(slowStyle, qstr(r->transport))
                             .arg(r->rank)
                             .arg(fmt::bandwidth(r->bandwidthGBps()), fmt::bandwidth(r->median), fmt::percent(sl.bwRatio),
                                  cells.isEmpty() ? QString() : tr("; matrix: %1").arg(cells.join(QStringLiteral(", "))));
        }
        if (slow.empty() && !cells.isEmpty())
            lines << tr("Slow matrix links: %1.").arg(cells.join(QStringLiteral(", ")));
    }
    m_findings->setText(lines.join(QStringLiteral("<br>")));
    int unnamed = 0; // profiles without a rank id: numbered by their place in the session
    if (m_session)
        for (const auto& r : m_session->ranks)
            unnamed += r->rank < 0 ? 1 : 0;
    m_sources->setText(tr("Breakdown: %1 · Matrix: %2 · Link bandwidth: %3 · Overlap: the ranks' timelines")
                           .arg(m_a.breakdownSource.empty() ? tr("none") : qstr(m_a.breakdownSource),
                                m_a.matrices.empty() ? tr("none") : qstr(m_a.matrixSource),
                                sl.checked ? qstr(m_a.slowLinkSource) : tr("none"))
                       + (unnamed > 0 ? tr(" · %1 of %2 profiles have no rank id and are numbered in load order: they "
                                           "may not be ranks of one run")
                                            .arg(unnamed)
                                            .arg(m_session->ranks.size())
                                      : QString()));
}

void ClusterView::fillBars()
{
    m_bars->clearPlottables();
    m_bars->clearItems();
    m_barRanks.clear();
    const int n = static_cast<int>(m_a.ranks.size());
    QVector<double> keys, compOnly, overlapped, commNo, bubble, free;
    for (int i = 0; i < n; ++i) {
        const RankBreakdown& b = m_a.ranks[static_cast<std::size_t>(i)];
        m_barRanks.push_back(b.rank);
        keys << i;
        // Segments sum to the step time: Computing = (Computing − Overlapped) + Overlapped;
        // Communication(Not Overlapped) = exposed communication + Bubble.
        const double computing = static_cast<double>(b.split.computing);
        const double notOverlapped = static_cast<double>(b.split.commNotOverlapped);
        const double ov = std::min(b.overlapped, computing);
        const double bub = std::min(b.bubble, notOverlapped);
        compOnly << (computing - ov) / 1e6;
        overlapped << ov / 1e6;
        commNo << (notOverlapped - bub) / 1e6;
        bubble << bub / 1e6;
        free << static_cast<double>(b.split.free) / 1e6;
    }
    struct Part {
        QString name;
        QVector<double>* v;
        QColor c;
    };
    const std::vector<Part> parts = {
        {tr("Computing (not overlapped)"), &compOnly, paletteColor(0)},
        {tr("Overlapped"), &overlapped, paletteColor(3)},
        {tr("Communication (not overlapped)"), &commNo, paletteColor(kPaletteSize)},
        {tr("Bubble"), &bubble, paletteColor(kPaletteSize + 1)},
        {tr("Free"), &free, freeColor()},
    };
    QCPBars* below = nullptr;
    double top = 0;
    for (const Part& p : parts) {
        auto* bars = new QCPBars(m_bars->xAxis, m_bars->yAxis);
        bars->setName(p.name);
        bars->setWidth(0.7);
        bars->setStackingGap(0);
        bars->setPen(Qt::NoPen);
        bars->setBrush(p.c);
        bars->setData(keys, *p.v, true);
        if (below)
            bars->moveAbove(below);
        below = bars;
        if (p.v == &bubble && std::all_of(bubble.begin(), bubble.end(), [](double v) { return v == 0; }))
            bars->removeFromLegend();
    }
    for (int i = 0; i < n; ++i)
        top = std::max(top, compOnly[i] + overlapped[i] + commNo[i] + bubble[i] + free[i]);
    // The slow rank(s): an outline and a label above the bar.
    std::vector<int> slowRanks;
    for (const auto& d : m_a.slowRank.dimensions)
        if (d.fired && std::find(slowRanks.begin(), slowRanks.end(), d.slowRank) == slowRanks.end())
            slowRanks.push_back(d.slowRank);
    for (int r : slowRanks)
        for (int i = 0; i < n; ++i)
            if (m_barRanks[static_cast<std::size_t>(i)] == r) {
                const double h = compOnly[i] + overlapped[i] + commNo[i] + bubble[i] + free[i];
                auto* rect = new QCPItemRect(m_bars);
                rect->topLeft->setCoords(i - 0.42, h);
                rect->bottomRight->setCoords(i + 0.42, 0);
                rect->setPen(QPen(kSlowColour, 2));
                auto* label = new QCPItemText(m_bars);
                // Centred over its bar, but kept inside the plot at either end of the axis.
                if (n > 1 && i == n - 1) {
                    label->position->setCoords(i + 0.42, h);
                    label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
                } else if (n > 1 && i == 0) {
                    label->position->setCoords(i - 0.42, h);
                    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
                } else {
                    label->position->setCoords(i, h);
                    label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
                }
                label->setText(tr("slow"));
                label->setColor(kSlowColour);
                label->setFont(QFont(font().family(), font().pointSize(), QFont::Bold));
            }
    m_bars->xAxis->setTicker(rankTicker(m_barRanks));
    m_bars->xAxis->setRange(-0.6, std::max(0, n - 1) + 0.6);
    m_bars->yAxis->setRange(0, top > 0 ? top * 1.12 : 1); // room for the "slow" label
    m_bars->replot();
}

void ClusterView::fillBreakdown()
{
    m_breakdownModel->setAnalysis(m_a, kSlowColour);
    m_breakdown->resizeColumnsToContents();
}

const CommMatrix* ClusterView::shownMatrix() const
{
    const std::string want = m_collective->currentData().toString().toStdString();
    for (const CommMatrix& m : m_a.matrices)
        if (m.collective == want)
            return &m;
    return m_a.matrices.empty() ? nullptr : &m_a.matrices.front();
}

void ClusterView::fillMatrix()
{
    m_matrix->clearItems();
    const CommMatrix* cm = shownMatrix();
    const auto& ranks = m_a.matrixRanks;
    const int n = static_cast<int>(ranks.size());
    const auto metric = static_cast<MatrixMetric>(m_metric->currentData().toInt());
    QCPColorMapData* d = m_map->data();
    d->setSize(std::max(1, n), std::max(1, n));
    d->setRange(QCPRange(0, std::max(1, n - 1)), QCPRange(0, std::max(1, n - 1)));
    d->fill(std::numeric_limits<double>::quiet_NaN());
    double lo = kNaN, hi = kNaN, loAll = kNaN, hiAll = kNaN;
    auto index = [&ranks](int r) {
        return static_cast<int>(std::lower_bound(ranks.begin(), ranks.end(), r) - ranks.begin());
    };
    if (cm)
        for (const MatrixCell& c : cm->cells) {
            const double v = matrixValue(c, metric);
            d->setCell(index(c.dst), index(c.src), v);
            if (std::isnan(v))
                continue;
            loAll = std::isnan(loAll) ? v : std::min(loAll, v);
            hiAll = std::isnan(hiAll) ? v : std::max(hiAll, v);
            // The colour range spans links between ranks; LOCAL copies (much faster) clip at the end.
            if (c.transport == "LOCAL")
                continue;
            lo = std::isnan(lo) ? v : std::min(lo, v);
            hi = std::isnan(hi) ? v : std::max(hi, v);
        }
    if (std::isnan(lo)) {
        lo = loAll;
        hi = hiAll;
    }
    QCPColorGradient g;
    if (metric == MatrixMetric::Transport) {
        const auto& names = transportNames();
        const int k = static_cast<int>(names.size());
        g.clearColorStops();
        for (int i = 0; i < k; ++i)
            g.setColorStopAt(static_cast<double>(i) / (k - 1), transportColour(i));
        g.setLevelCount(k);
        g.setNanHandling(QCPColorGradient::nhTransparent);
        m_map->setGradient(g);
        m_map->setDataRange(QCPRange(0, k - 1));
        QSharedPointer<QCPAxisTickerText> t(new QCPAxisTickerText);
        for (int i = 0; i < k; ++i)
            t->addTick(i, qstr(names[static_cast<std::size_t>(i)]));
        m_scale->axis()->setTicker(t);
        m_scale->axis()->setLabel(QString());
    } else {
        // Bandwidth: dark = slow; size and time: dark = little.
        g = sequentialGradient();
        m_matrixScale = {lo, hi, !std::isnan(lo) && (hi - lo) <= kUniformSpread * std::abs(hi)};
        if (m_matrixScale.uniform) {
            const QColor mid = g.color(0.5, QCPRange(0, 1));
            g.clearColorStops();
            g.setColorStopAt(0, mid);
            g.setColorStopAt(1, mid);
        }
        m_map->setGradient(g);
        if (!std::isnan(lo) && !std::isnan(hi))
            m_map->setDataRange(QCPRange(lo, hi > lo ? hi : lo + std::max(1e-9, std::abs(lo) * 1e-3)));
        m_scale->axis()->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        m_scale->axis()->setLabel(tr(matrixMetricName(metric)));
    }
    if (metric == MatrixMetric::Transport)
        m_matrixScale = {};
    // No data: hatched behind the transparent empty cells, never a colour of the scale.
    m_matrix->axisRect()->setBackground(QBrush(palette().color(QPalette::Mid).lightness() < 128
                                                   ? palette().color(QPalette::Light)
                                                   : palette().color(QPalette::Dark),
                                               Qt::BDiagPattern));
    m_matrixNote->setText(matrixNote());
    // Slow links: an outline around the cell.
    if (cm && metric != MatrixMetric::Transport)
        for (const MatrixCell& c : cm->cells)
            if (c.slow) {
                auto* r = new QCPItemRect(m_matrix);
                r->topLeft->setCoords(index(c.dst) - 0.5, index(c.src) - 0.5);
                r->bottomRight->setCoords(index(c.dst) + 0.5, index(c.src) + 0.5);
                r->setPen(QPen(kSlowColour, 3));
            }
    m_matrix->xAxis->setTicker(rankTicker(ranks, 8)); // the narrower axis
    m_matrix->yAxis->setTicker(rankTicker(ranks));
    m_matrix->xAxis->setRange(-0.5, std::max(0, n - 1) + 0.5);
    m_matrix->yAxis->setRange(-0.5, std::max(0, n - 1) + 0.5);
    m_map->setVisible(n > 0);
    m_matrix->replot();
}

double ClusterView::shownValue(int src, int dst) const
{
    const auto& ranks = m_a.matrixRanks;
    auto si = std::lower_bound(ranks.begin(), ranks.end(), src), di = std::lower_bound(ranks.begin(), ranks.end(), dst);
    if (si == ranks.end() || *si != src || di == ranks.end() || *di != dst)
        return kNaN;
    return m_map->data()->cell(static_cast<int>(di - ranks.begin()), static_cast<int>(si - ranks.begin()));
}

QColor ClusterView::cellColour(int src, int dst) const
{
    const double v = shownValue(src, dst);
    if (std::isnan(v))
        return {};
    return QColor::fromRgba(m_map->gradient().color(v, m_map->dataRange()));
}

QString ClusterView::matrixNote() const
{
    QString note = tr("Hatched: no data.");
    const MatrixScale& s = m_matrixScale;
    if (s.uniform && s.hi > 0) {
        const auto metric = static_cast<MatrixMetric>(m_metric->currentData().toInt());
        auto value = [metric](double v) {
            return metric == MatrixMetric::Bandwidth ? fmt::bandwidth(v)
                   : metric == MatrixMetric::Time    ? fmt::duration(v * 1e6)
                                                     : tr("%1 MB").arg(fmt::number(v));
        };
        note += QLatin1Char(' ')
                + tr("Every link between ranks lies within %1 of the largest (%2 to %3): drawn in one colour, as "
                     "spreads under %4 are, rather than stretched over the whole scale.")
                      .arg(fmt::percent((s.hi - s.lo) / s.hi), value(s.lo), value(s.hi), fmt::percent(kUniformSpread));
    }
    return note;
}

QString ClusterView::cellToolTip(int src, int dst) const
{
    const CommMatrix* cm = shownMatrix();
    const MatrixCell* c = cm ? cm->cell(src, dst) : nullptr;
    if (!c)
        return {};
    QString tip = tr("<b>%1 → %2</b> (%3)<br>Transport: %4<br>Bandwidth: %5<br>Transit size: %6 MB<br>Transit time: %7<br>%8 link records")
                      .arg(src)
                      .arg(dst)
                      .arg(cm->collective == "All" ? tr("all collectives") : qstr(cm->collective).toHtmlEscaped())
                      .arg(qstr(c->transport), fmt::bandwidth(c->bandwidthGBps()), fmt::number(c->sizeMB), fmt::duration(c->timeMs * 1e6))
                      .arg(c->links);
    if (c->slow)
        tip += tr("<br><span style=\"color:%1\"><b>Slow link</b>: below %2 of the median bandwidth of %3 links</span>")
                   .arg(kSlowColour.name(), fmt::percent(m_a.slowLink.bwRatio), qstr(c->transport));
    return tip;
}

void ClusterView::showCellTip(const QPoint& pos)
{
    const auto& ranks = m_a.matrixRanks;
    if (ranks.empty() || !m_matrix->axisRect()->rect().contains(pos)) {
        QToolTip::hideText();
        return;
    }
    const long x = std::lround(m_matrix->xAxis->pixelToCoord(pos.x()));
    const long y = std::lround(m_matrix->yAxis->pixelToCoord(pos.y()));
    if (x < 0 || y < 0 || x >= static_cast<long>(ranks.size()) || y >= static_cast<long>(ranks.size())) {
        QToolTip::hideText();
        return;
    }
    const QString tip = cellToolTip(ranks[static_cast<std::size_t>(y)], ranks[static_cast<std::size_t>(x)]);
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(m_matrix->mapToGlobal(pos), tip, m_matrix);
}

void ClusterView::fillOverlap()
{
    m_rankOverlapModel->setAnalysis(m_a);
    m_rankOverlap->resizeColumnsToContents();
    m_collOverlapModel->setAnalysis(m_a);
    m_collOverlap->resizeColumnsToContents();
}

void ClusterView::activateRank(int rank)
{
    const int idx = m_a.rankIndexOf(rank);
    if (idx < 0)
        return;
    if (m_sel)
        m_sel->setCurrentRank(idx);
    emit rankActivated(idx);
}

} // namespace npuscope
