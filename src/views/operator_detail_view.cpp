#include "views/operator_detail_view.h"

#include "ui_operator_detail_view.h"
#include "views/format.h"
#include "views/operator_instance_model.h"
#include "views/operator_reveal.h"
#include "views/palette.h"
#include "views/plot_palette.h"
#include "views/selection_controller.h"

#include <qcustomplot.h>

#include <QAction>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace npuscope {

namespace {

struct FieldDef {
    const char* key;
    const char* label;
    int form; // 0 identity, 1 duration, 2 hardware
};

const FieldDef kFields[] = {
    {"name", "Name", 0},          {"type", "Type", 0},
    {"core", "Core", 0},          {"inputShapes", "Input shapes", 0},
    {"inputDtypes", "Input types", 0}, {"inputFormats", "Input formats", 0},
    {"outputShapes", "Output shapes", 0}, {"outputDtypes", "Output types", 0},
    {"outputFormats", "Output formats", 0}, {"blockDim", "Block dim", 0},
    {"count", "Count", 1},        {"total", "Total", 1},
    {"share", "Share", 1},        {"avg", "Avg", 1},
    {"min", "Min", 1},            {"max", "Max", 1},
    {"p50", "p50", 1},            {"p90", "p90", 1},
    {"p99", "p99", 1},
    {"mac", "mac", 2},            {"vec", "vec", 2},
    {"scalar", "scalar", 2},      {"mte1", "mte1", 2},
    {"mte2", "mte2", 2},          {"mte3", "mte3", 2},
    {"fixpipe", "fixpipe", 2},    {"cubeUtil", "Cube util", 2},
    {"readBw", "Read BW", 2},     {"writeBw", "Write BW", 2},
    {"l2Hit", "L2 hit", 2},       {"bound", "Bound", 2},
};

constexpr int kNeighbours = 3; // tasks shown before and after the instance

// Most frequent value of a NameId column over rows: "value" or "value (+N other)".
QString mostCommon(const Profile& p, const std::vector<NameId>& col, const std::vector<std::uint32_t>& rows)
{
    if (col.empty())
        return QStringLiteral("—");
    std::map<std::uint32_t, std::uint64_t> counts;
    for (auto r : rows)
        if (r < col.size())
            ++counts[col[r].v];
    if (counts.empty())
        return QStringLiteral("—");
    auto best = std::max_element(counts.begin(), counts.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    const std::string_view v = NameId(best->first).valid() ? p.str(NameId(best->first)) : std::string_view();
    QString text = v.empty() ? QStringLiteral("—") : QString::fromUtf8(v.data(), qsizetype(v.size()));
    if (counts.size() > 1)
        text += QStringLiteral(" (+%1 other)").arg(counts.size() - 1);
    return text;
}

QString mostCommonInt(const std::vector<std::int64_t>& col, const std::vector<std::uint32_t>& rows)
{
    std::map<std::int64_t, std::uint64_t> counts;
    for (auto r : rows)
        if (r < col.size())
            ++counts[col[r]];
    if (counts.empty())
        return QStringLiteral("—");
    auto best = std::max_element(counts.begin(), counts.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    QString text = best->first < 0 ? QStringLiteral("—") : QString::number(best->first);
    if (counts.size() > 1)
        text += QStringLiteral(" (+%1 other)").arg(counts.size() - 1);
    return text;
}

// Duration-weighted mean of the first present metric column of `names` over rows; NaN if none.
double weightedMetric(const KernelTable& k, std::initializer_list<const char*> names,
                      const std::vector<std::uint32_t>& rows, QString* column)
{
    const int m = k.metricIndex(names);
    if (m < 0)
        return kNaN;
    if (column)
        *column = QString::fromStdString(k.metricNames[std::size_t(m)]);
    double sum = 0, weight = 0, plain = 0;
    std::uint64_t n = 0;
    for (auto r : rows) {
        const double v = k.metric(m, r);
        if (std::isnan(v))
            continue;
        sum += v * double(k.dur[r]);
        weight += double(k.dur[r]);
        plain += v;
        ++n;
    }
    if (n == 0)
        return kNaN;
    return weight > 0 ? sum / weight : plain / double(n);
}

QString sliceName(const Profile& p, std::uint32_t s)
{
    const auto v = p.str(p.slices.name[s]);
    return QString::fromUtf8(v.data(), qsizetype(v.size()));
}

} // namespace

OperatorDetailView::OperatorDetailView(SelectionController* sel, QWidget* parent)
    : QWidget(parent), m_ui(std::make_unique<Ui::OperatorDetailView>()), m_sel(sel)
{
    m_ui->setupUi(this);
    buildForms();

    m_plot = new QCustomPlot(m_ui->histogramHost);
    m_plot->setMinimumHeight(150);
    m_plot->xAxis->setLabel(tr("Duration"));
    m_plot->yAxis->setLabel(tr("Instances"));
    m_ui->histogramLayout->addWidget(m_plot);
    followPalette(m_plot);

    m_instances = new OperatorInstanceModel(this);
    m_instanceProxy = new QSortFilterProxyModel(this);
    m_instanceProxy->setSourceModel(m_instances);
    m_instanceProxy->setSortRole(OperatorInstanceModel::SortRole);
    auto* table = m_ui->instanceTable;
    table->setModel(m_instanceProxy);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->sortByColumn(OperatorInstanceModel::Start, Qt::AscendingOrder);
    connect(table, &QTableView::doubleClicked, this,
            [this](const QModelIndex& index) { revealInstance(index.row()); });
    auto* revealAction = new QAction(tr("Show on timeline"), table);
    revealAction->setShortcuts({QKeySequence(Qt::Key_Return), QKeySequence(Qt::Key_Enter)});
    revealAction->setShortcutContext(Qt::WidgetShortcut);
    connect(revealAction, &QAction::triggered, this,
            [this] { revealInstance(m_ui->instanceTable->currentIndex().row()); });
    table->addAction(revealAction);
    table->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { fillNeighbours(current.row()); });

    auto* tree = m_ui->neighboursTree;
    tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    connect(tree, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        if (!m_profile || !item)
            return;
        const uint row = item->data(0, Qt::UserRole).toUInt();
        const bool isSlice = item->data(0, Qt::UserRole + 1).toBool();
        revealOperatorInstance(m_sel, *m_profile, m_rankIndex, row, isSlice);
    });

    if (m_sel) {
        connect(m_sel, &SelectionController::sessionChanged, this, &OperatorDetailView::reload);
        connect(m_sel, &SelectionController::currentRankChanged, this, &OperatorDetailView::reload);
        connect(m_sel, &SelectionController::selectedOperatorChanged, this, &OperatorDetailView::showOperator);
    }
    reload();
}

OperatorDetailView::~OperatorDetailView() = default;

QTableView* OperatorDetailView::instanceTable() const { return m_ui->instanceTable; }

int OperatorDetailView::instanceCount() const { return m_instances->rowCount(); }

void OperatorDetailView::buildForms()
{
    QFormLayout* forms[] = {m_ui->identityForm, m_ui->timingForm, m_ui->hardwareForm};
    for (const auto& f : kFields) {
        auto* value = new QLabel(this);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        value->setTextFormat(Qt::PlainText);
        forms[f.form]->addRow(tr(f.label), value);
        m_fieldLabels.insert(QString::fromLatin1(f.key), value);
    }
}

QString OperatorDetailView::fieldText(const QString& field) const
{
    const auto* label = m_fieldLabels.value(field);
    return label ? label->text() : QString();
}

void OperatorDetailView::setField(const QString& field, const QString& text, const QString& toolTip)
{
    if (auto* label = m_fieldLabels.value(field)) {
        label->setText(text);
        label->setToolTip(toolTip);
    }
}

void OperatorDetailView::setGroupBy(GroupBy g)
{
    if (g == m_groupBy)
        return;
    m_groupBy = g;
    showOperator(m_key);
}

void OperatorDetailView::reload()
{
    m_profile.reset();
    m_rankIndex = 0;
    if (m_sel && m_sel->session() && !m_sel->session()->ranks.empty()) {
        const auto& ranks = m_sel->session()->ranks;
        m_rankIndex = std::clamp(m_sel->currentRank(), 0, int(ranks.size()) - 1);
        m_profile = ranks[std::size_t(m_rankIndex)];
    }
    showOperator(m_sel ? m_sel->selectedOperator() : m_key);
}

void OperatorDetailView::clearAll(const QString& title)
{
    m_ui->titleLabel->setText(title);
    for (auto* label : std::as_const(m_fieldLabels)) {
        label->clear();
        label->setToolTip({});
    }
    m_instances->clear();
    m_ui->neighboursTree->clear();
    m_binCounts.clear();
    m_binEdges.clear();
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_plot->replot();
}

void OperatorDetailView::showOperator(const QString& key)
{
    m_key = key;
    if (key.isEmpty() || !m_profile) {
        clearAll(tr("No operator selected"));
        return;
    }
    const Profile& p = *m_profile;
    if (m_statsProfile != m_profile || m_statsGroupBy != m_groupBy) {
        OpStatsOptions o;
        o.groupBy = m_groupBy;
        o.rankGenericSlices = true;
        m_stats = computeOpStats(p, o);
        m_statsProfile = m_profile;
        m_statsGroupBy = m_groupBy;
    }
    const std::string k = key.toStdString();
    const OpGroupStats* group = nullptr;
    for (const auto& g : m_stats.groups)
        if (g.key == k)
            group = &g;
    // A key of the other grouping, or a communication type (left out of the compute ranking).
    OpStatsResult fallback;
    GroupBy shownBy = m_groupBy;
    const bool inMain = group != nullptr;
    if (!group) {
        for (GroupBy by : {m_groupBy, m_groupBy == GroupBy::Type ? GroupBy::Name : GroupBy::Type}) {
            OpStatsOptions o;
            o.groupBy = by;
            o.includeCommunication = true;
            fallback = computeOpStats(p, o);
            for (const auto& g : fallback.groups)
                if (g.key == k)
                    group = &g;
            if (group) {
                shownBy = by;
                break;
            }
        }
    }
    if (!group) {
        clearAll(tr("%1: no device tasks of this operator in this rank").arg(key));
        return;
    }
    const OpStatsResult& stats = inMain ? m_stats : fallback;
    const bool slices = stats.fromTimeline;

    QString title = tr("%1 · %2 · %3 instances · whole profile of %4")
                        .arg(key, shownBy == GroupBy::Type ? tr("OP Type") : tr("Op Name"), fmt::count(group->count),
                             QString::fromStdString(p.name.empty() ? std::string("rank") : p.name));
    // "All ranks" chosen: the instances and histogram are one rank's; say which.
    if (m_sel && m_sel->currentRank() < 0 && m_sel->session() && m_sel->session()->ranks.size() > 1)
        title += tr(" (All ranks chosen: this detail shows rank %1 only; pick a rank in the toolbar)")
                     .arg(p.rank >= 0 ? QString::number(p.rank) : QString::fromStdString(p.name));
    m_ui->titleLabel->setText(title);
    fillIdentity(p, *group, slices);

    const QString src = slices ? tr("device tasks of the timeline") : tr("kernel rows");
    setField(QStringLiteral("count"), fmt::count(group->count), tr("Number of %1 of this group").arg(src));
    setField(QStringLiteral("total"), fmt::duration(double(group->total)), tr("Σ duration: %1 ns").arg(group->total));
    setField(QStringLiteral("share"), fmt::percent(group->share),
             tr("Total / Σ duration of all device tasks counted (%1)").arg(fmt::duration(double(stats.deviceTotal))));
    setField(QStringLiteral("avg"), fmt::duration(group->avgNs), tr("Total / count"));
    setField(QStringLiteral("min"), fmt::duration(double(group->min)), tr("Shortest instance: %1 ns").arg(group->min));
    setField(QStringLiteral("max"), fmt::duration(double(group->max)), tr("Longest instance: %1 ns").arg(group->max));
    const QString pct = tr("Nearest-rank percentile of the instance durations: %1 ns");
    setField(QStringLiteral("p50"), fmt::duration(double(group->p50)), pct.arg(group->p50));
    setField(QStringLiteral("p90"), fmt::duration(double(group->p90)), pct.arg(group->p90));
    setField(QStringLiteral("p99"), fmt::duration(double(group->p99)), pct.arg(group->p99));
    fillHardware(p, *group, slices);
    fillHistogram(p, *group, slices);

    m_instances->setInstances(m_profile, group->rows, slices);
    auto* table = m_ui->instanceTable;
    table->resizeColumnsToContents();
    if (m_instanceProxy->rowCount() > 0)
        table->selectionModel()->setCurrentIndex(m_instanceProxy->index(0, 0),
                                                 QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    else
        m_ui->neighboursTree->clear();
}

void OperatorDetailView::fillIdentity(const Profile& p, const OpGroupStats& g, bool rowsAreSlices)
{
    const auto& k = p.kernels;
    if (rowsAreSlices) {
        setField(QStringLiteral("name"), mostCommon(p, p.slices.name, g.rows), tr("Slice names on the Stream tracks"));
        setField(QStringLiteral("core"), QString::fromStdString(g.taskType), tr("Task Type of the device tasks"));
        for (const char* f : {"type", "inputShapes", "inputDtypes", "inputFormats", "outputShapes", "outputDtypes",
                              "outputFormats", "blockDim"})
            setField(QString::fromLatin1(f), QStringLiteral("—"), tr("No kernel table (op_summary / kernel_details) in this profile"));
        return;
    }
    const QString why = tr("Most frequent value over the group's kernel rows; \"+N other\" counts the other distinct values");
    setField(QStringLiteral("name"), mostCommon(p, k.name, g.rows), why);
    setField(QStringLiteral("type"), mostCommon(p, k.type, g.rows), why);
    setField(QStringLiteral("core"), QString::fromStdString(g.taskType),
             tr("Accelerator Core / Task Type carrying most of the group's duration"));
    setField(QStringLiteral("inputShapes"), mostCommon(p, k.inputShapes, g.rows), why);
    setField(QStringLiteral("inputDtypes"), mostCommon(p, k.inputDtypes, g.rows), why);
    setField(QStringLiteral("inputFormats"), mostCommon(p, k.inputFormats, g.rows), why);
    setField(QStringLiteral("outputShapes"), mostCommon(p, k.outputShapes, g.rows), why);
    setField(QStringLiteral("outputDtypes"), mostCommon(p, k.outputDtypes, g.rows), why);
    setField(QStringLiteral("outputFormats"), mostCommon(p, k.outputFormats, g.rows), why);
    QString block = mostCommonInt(k.blockDim, g.rows);
    const QString mix = mostCommonInt(k.mixBlockDim, g.rows);
    if (mix != QStringLiteral("—") && mix != QStringLiteral("0"))
        block += tr(" · mix %1").arg(mix);
    setField(QStringLiteral("blockDim"), block, tr("Block Dim (and Mix Block Dim) of the kernel rows; ") + why);
}

void OperatorDetailView::fillHardware(const Profile& p, const OpGroupStats& g, bool rowsAreSlices)
{
    const auto& k = p.kernels;
    const QString weighted = tr("Duration-weighted mean over the group's kernel rows of %1");
    setField(QStringLiteral("mac"), fmt::number(g.macRatio), weighted.arg(QStringLiteral("aic_mac_ratio (mac_ratio)")));
    setField(QStringLiteral("vec"), fmt::number(g.vecRatio), weighted.arg(QStringLiteral("aiv_vec_ratio (vec_ratio)")));
    setField(QStringLiteral("scalar"), fmt::number(g.scalarRatio),
             weighted.arg(QStringLiteral("the larger of aic_scalar_ratio and aiv_scalar_ratio per row")));
    setField(QStringLiteral("mte2"), fmt::number(g.mte2Ratio),
             weighted.arg(QStringLiteral("the larger of aic_mte2_ratio and aiv_mte2_ratio per row")));
    setField(QStringLiteral("mte3"), fmt::number(g.mte3Ratio),
             weighted.arg(QStringLiteral("the larger of aiv_mte3_ratio and aic_mte3_ratio per row")));
    QString col;
    const double mte1 = rowsAreSlices ? kNaN : weightedMetric(k, {"aic_mte1_ratio", "mte1_ratio"}, g.rows, &col);
    setField(QStringLiteral("mte1"), fmt::number(mte1), weighted.arg(col.isEmpty() ? QStringLiteral("aic_mte1_ratio") : col));
    col.clear();
    const double fixpipe = rowsAreSlices ? kNaN : weightedMetric(k, {"aic_fixpipe_ratio", "fixpipe_ratio"}, g.rows, &col);
    setField(QStringLiteral("fixpipe"), fmt::number(fixpipe),
             weighted.arg(col.isEmpty() ? QStringLiteral("aic_fixpipe_ratio") : col));
    setField(QStringLiteral("cubeUtil"), fmt::percent(g.aicUtilization),
             weighted.arg(QStringLiteral("cube_utilization(%)/100, else the larger of aic_mac_ratio and aiv_vec_ratio")));
    setField(QStringLiteral("readBw"), fmt::bandwidth(g.readGBps),
             weighted.arg(QStringLiteral("aic + aiv *_main_mem_read_bw(GB/s)")));
    setField(QStringLiteral("writeBw"), fmt::bandwidth(g.writeGBps),
             weighted.arg(QStringLiteral("aic + aiv *_main_mem_write_bw(GB/s)")));
    setField(QStringLiteral("l2Hit"), fmt::percent(g.l2HitRate),
             tr("Σ *_cache_hit / (Σ hits + Σ *_cache_miss_allocate) over the rows, else duration-weighted l2 hit rate"));
    setField(QStringLiteral("bound"), QString::fromLatin1(boundTypeName(g.bound)),
             tr("From the pipe ratios and the bandwidth share of the HBM peak"));
}

void OperatorDetailView::fillHistogram(const Profile& p, const OpGroupStats& g, bool rowsAreSlices)
{
    m_binCounts.clear();
    m_binEdges.clear();
    m_plot->clearPlottables();
    m_plot->clearItems();
    std::vector<TimeNs> durs;
    durs.reserve(g.rows.size());
    for (auto r : g.rows)
        durs.push_back(rowsAreSlices ? p.slices.dur[r] : p.kernels.dur[r]);
    if (durs.empty()) {
        m_plot->replot();
        return;
    }
    const auto [mnIt, mxIt] = std::minmax_element(durs.begin(), durs.end());
    const TimeNs mn = *mnIt, mx = *mxIt;
    const int bins = mx == mn ? 1
        : std::clamp(int(std::ceil(std::sqrt(double(durs.size())))), 1, 50);
    m_binCounts.fill(0.0, bins);
    for (TimeNs d : durs) {
        const int i = mx == mn ? 0 : int(std::min<TimeNs>(bins - 1, (d - mn) * bins / (mx - mn)));
        m_binCounts[i] += 1;
    }
    const double width = mx == mn ? std::max(1.0, double(mn) / 10.0) : double(mx - mn) / bins;
    const double first = mx == mn ? double(mn) - width / 2 : double(mn);
    for (int i = 0; i <= bins; ++i)
        m_binEdges.push_back(first + width * i);

    // Axis unit picked from the longest instance so tick labels stay short.
    const double scale = mx >= 1'000'000'000 ? 1e9 : mx >= 1'000'000 ? 1e6 : mx >= 1'000 ? 1e3 : 1.0;
    const QString unit = scale == 1e9 ? QStringLiteral("s") : scale == 1e6 ? QStringLiteral("ms")
                        : scale == 1e3 ? QStringLiteral("µs") : QStringLiteral("ns");
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    QVector<double> keys;
    for (int i = 0; i < bins; ++i)
        keys.push_back((m_binEdges[i] + width / 2) / scale);
    bars->setData(keys, m_binCounts, true);
    bars->setWidth(width / scale);
    const QColor c = colorFor(m_key.toStdString());
    bars->setBrush(c);
    bars->setPen(QPen(c.darker(130)));

    const double maxCount = *std::max_element(m_binCounts.begin(), m_binCounts.end());
    m_plot->xAxis->setLabel(tr("Duration (%1)").arg(unit));
    m_plot->xAxis->setRange(m_binEdges.front() / scale - width / scale * 0.5,
                            m_binEdges.back() / scale + width / scale * 0.5);
    m_plot->yAxis->setRange(0, maxCount * 1.25 + 0.5);

    const struct { const char* name; TimeNs v; } marks[] = {{"p50", g.p50}, {"p90", g.p90}, {"p99", g.p99}};
    int n = 0;
    for (const auto& m : marks) {
        auto* line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(double(m.v) / scale, 0);
        line->point2->setCoords(double(m.v) / scale, 1);
        line->setPen(QPen(Qt::black, 1, n == 0 ? Qt::SolidLine : Qt::DashLine));
        useTextColour(line);
        auto* label = new QCPItemText(m_plot);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(double(m.v) / scale, 0.04 + 0.09 * n);
        // Right of its line, or left of it in the right half, so it stays inside the plot.
        const bool rightHalf = double(m.v) > (double(m_binEdges.front()) + double(m_binEdges.back())) / 2;
        label->setPositionAlignment((rightHalf ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
        label->setPadding(rightHalf ? QMargins(0, 0, 3, 0) : QMargins(3, 0, 0, 0));
        useTextColour(label);
        label->setText(QStringLiteral("%1 %2").arg(QString::fromLatin1(m.name), fmt::duration(double(m.v))));
        ++n;
    }
    m_plot->setToolTip(tr("%1 instances in %2 equal-width bins (square-root rule, at most 50); "
                          "lines: nearest-rank p50/p90/p99").arg(durs.size()).arg(bins));
    m_plot->replot();
}

QStringList OperatorDetailView::neighbourNames() const
{
    QStringList names;
    for (int i = 0; i < m_ui->neighboursTree->topLevelItemCount(); ++i)
        names << m_ui->neighboursTree->topLevelItem(i)->text(1);
    return names;
}

void OperatorDetailView::fillNeighbours(int viewRow)
{
    auto* tree = m_ui->neighboursTree;
    tree->clear();
    if (!m_profile || viewRow < 0 || viewRow >= m_instanceProxy->rowCount())
        return;
    const Profile& p = *m_profile;
    const int srcRow = m_instanceProxy->mapToSource(m_instanceProxy->index(viewRow, 0)).row();
    const std::uint32_t row = m_instances->rowAt(srcRow);
    const bool isSlice = m_instances->rowsAreSlices();

    struct Entry { std::uint32_t row; bool slice; TimeNs start, dur; QString name; };
    std::vector<Entry> before, after;
    Entry self{};
    std::uint32_t slice = isSlice ? row : (row < p.kernels.slice.size() ? p.kernels.slice[row] : kNone);
    if (slice != kNone && slice < p.slices.size()) {
        // Slices of a track are contiguous and start-sorted (Profile::finalize()).
        const Track& t = p.tracks[p.slices.track[slice].v];
        self = {slice, true, p.slices.start[slice], p.slices.dur[slice], sliceName(p, slice)};
        for (std::uint32_t s = slice, i = 0; s > t.sliceBegin && i < kNeighbours; ++i) {
            --s;
            before.push_back({s, true, p.slices.start[s], p.slices.dur[s], sliceName(p, s)});
        }
        for (std::uint32_t s = slice + 1, i = 0; s < t.sliceEnd && i < kNeighbours; ++s, ++i)
            after.push_back({s, true, p.slices.start[s], p.slices.dur[s], sliceName(p, s)});
    } else {
        // No timeline task: the kernel rows of the same device and stream, nearest by start.
        const auto& k = p.kernels;
        auto kname = [&](std::uint32_t r) {
            const auto v = p.str(k.name[r]);
            return QString::fromUtf8(v.data(), qsizetype(v.size()));
        };
        self = {row, false, k.start[row], k.dur[row], kname(row)};
        for (std::uint32_t r = 0; r < k.size(); ++r) {
            if (r == row || k.streamId[r] != k.streamId[row] || k.device[r] != k.device[row])
                continue;
            const bool isBefore = k.start[r] < k.start[row] || (k.start[r] == k.start[row] && r < row);
            (isBefore ? before : after).push_back({r, false, k.start[r], k.dur[r], {}});
        }
        auto byStart = [](const Entry& a, const Entry& b) { return a.start < b.start; };
        std::sort(before.begin(), before.end(), [&](const Entry& a, const Entry& b) { return byStart(b, a); });
        std::sort(after.begin(), after.end(), byStart);
        if (before.size() > kNeighbours)
            before.resize(kNeighbours);
        if (after.size() > kNeighbours)
            after.resize(kNeighbours);
        for (auto* list : {&before, &after})
            for (auto& e : *list)
                e.name = kname(e.row);
    }

    std::vector<Entry> ordered(before.rbegin(), before.rend());
    const int selfIndex = int(ordered.size());
    ordered.push_back(self);
    ordered.insert(ordered.end(), after.begin(), after.end());
    for (int i = 0; i < int(ordered.size()); ++i) {
        const Entry& e = ordered[std::size_t(i)];
        auto* item = new QTreeWidgetItem(tree);
        item->setText(0, i == selfIndex ? tr("this") : QStringLiteral("%1%2").arg(i < selfIndex ? QLatin1Char('-') : QLatin1Char('+')).arg(std::abs(i - selfIndex)));
        item->setText(1, e.name);
        item->setText(2, fmt::duration(double(e.start - p.begin)));
        item->setText(3, fmt::duration(double(e.dur)));
        if (i > 0) {
            const Entry& prev = ordered[std::size_t(i - 1)];
            item->setText(4, fmt::duration(double(e.start - (prev.start + prev.dur))));
            item->setToolTip(4, tr("Start minus the previous task's end (negative: they overlap)"));
        }
        item->setData(0, Qt::UserRole, e.row);
        item->setData(0, Qt::UserRole + 1, e.slice);
        if (i == selfIndex) {
            QFont f = item->font(1);
            f.setBold(true);
            for (int c = 0; c < 5; ++c)
                item->setFont(c, f);
        }
    }
}

void OperatorDetailView::revealInstance(int viewRow)
{
    if (!m_profile || viewRow < 0 || viewRow >= m_instanceProxy->rowCount())
        return;
    const int srcRow = m_instanceProxy->mapToSource(m_instanceProxy->index(viewRow, 0)).row();
    revealOperatorInstance(m_sel, *m_profile, m_rankIndex, m_instances->rowAt(srcRow), m_instances->rowsAreSlices());
}

} // namespace npuscope
