#include "views/operator_detail_view.h"

#include "ui_operator_detail_view.h"
#include "model/analysis/units.h"
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
#include <QResizeEvent>
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
    {"commVolume", "Volume", 2},  {"commBw", "Bandwidth", 2},
    {"commTransit", "Transit", 2}, {"commWait", "Wait", 2},
};

bool isCommField(const char* key) { return std::string_view(key).starts_with("comm"); }

constexpr int kNeighbours = 3; // tasks shown before and after the instance

QString rankLabel(const Profile& p)
{
    return p.rank >= 0 ? QStringLiteral("rank %1").arg(p.rank) : qstr(p.name.empty() ? std::string("rank") : p.name);
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
    m_plot->setMinimumSize(160, 100);
    m_plot->xAxis->setLabel(tr("Duration"));
    m_plot->yAxis->setLabel(tr("Instances"));
    m_ui->histogramLayout->addWidget(m_plot);
    followPalette(m_plot);
    // Side by side, so that the histogram and the instances are in sight in a dock a quarter of
    // the window high; the fields scroll, the stream neighbours are the instances' second tab.
    m_ui->splitter->setStretchFactor(0, 3);
    m_ui->splitter->setStretchFactor(1, 3);
    m_ui->splitter->setStretchFactor(2, 4);
    m_ui->splitter->setSizes({300, 300, 400});
    m_ui->formsScroll->setMinimumWidth(180);
    m_ui->mainLayout->setStretch(1, 1); // the title keeps one line, the panes take the rest
    m_plot->xAxis->ticker()->setTickCount(4); // labels of a narrow plot stay apart

    m_instances = new OperatorInstanceModel(this);
    m_instanceProxy = new QSortFilterProxyModel(this);
    m_instanceProxy->setSourceModel(m_instances);
    m_instanceProxy->setSortRole(OperatorInstanceModel::SortRole);
    auto* table = m_ui->instanceTable;
    table->setModel(m_instanceProxy);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    // With "All ranks" the rank comes first, where a narrow dock still shows it.
    table->horizontalHeader()->moveSection(OperatorInstanceModel::Rank, 0);
    // A collective's bandwidth beside its duration, before the long names.
    table->horizontalHeader()->moveSection(table->horizontalHeader()->visualIndex(OperatorInstanceModel::Bandwidth),
                                           table->horizontalHeader()->visualIndex(OperatorInstanceModel::Name));
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
    tree->header()->setSectionResizeMode(QHeaderView::Interactive);
    connect(tree, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        if (!item)
            return;
        const int rankIndex = item->data(0, Qt::UserRole + 2).toInt();
        const auto& ranks = m_sel && m_sel->session() ? m_sel->session()->ranks : std::vector<ProfilePtr>{};
        if (rankIndex < 0 || rankIndex >= int(ranks.size()))
            return;
        const uint row = item->data(0, Qt::UserRole).toUInt();
        const bool isSlice = item->data(0, Qt::UserRole + 1).toBool();
        revealOperatorInstance(m_sel, *ranks[std::size_t(rankIndex)], rankIndex, row, isSlice);
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

// Fields, histogram and instances side by side in a wide dock (under the timeline), one above
// the other in a tall one (a dock beside it, or a small screen), so that all three stay in sight.
void OperatorDetailView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const Qt::Orientation o = width() >= height() ? Qt::Horizontal : Qt::Vertical;
    if (o == m_ui->splitter->orientation())
        return;
    m_ui->splitter->setOrientation(o);
    const int length = o == Qt::Horizontal ? m_ui->splitter->width() : m_ui->splitter->height();
    m_ui->splitter->setSizes({length * 3 / 10, length * 3 / 10, length * 4 / 10});
}

int OperatorDetailView::instanceCount() const { return m_instances->rowCount(); }

QString OperatorDetailView::titleText() const { return m_ui->titleLabel->text(); }

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
    showFieldsOf(DetailKind::Device);
}

// Collectives have no kernel identity or pipe ratios but a volume and bandwidth; host calls
// have neither.
void OperatorDetailView::showFieldsOf(DetailKind kind)
{
    for (const auto& f : kFields) {
        if (f.form == 1)
            continue;
        const bool comm = isCommField(f.key);
        const bool visible = kind == DetailKind::Collective ? comm : kind == DetailKind::Device && !comm;
        auto* form = f.form == 0 ? m_ui->identityForm : m_ui->hardwareForm;
        form->setRowVisible(m_fieldLabels.value(QString::fromLatin1(f.key)), visible);
    }
    m_ui->identityBox->setVisible(kind == DetailKind::Device);
    m_ui->hardwareBox->setVisible(kind != DetailKind::Host);
    m_ui->hardwareBox->setTitle(kind == DetailKind::Collective ? tr("Communication (communication.json)")
                                                               : tr("Hardware (duration-weighted)"));
    m_ui->instancesTabs->setTabText(1, kind == DetailKind::Device ? tr("On its stream") : tr("On its track"));
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
        // A long value (shapes, a kernel name) may be cut by the pane's width: the tooltip has it.
        label->setToolTip(text.size() > 16 ? text + QStringLiteral("\n") + toolTip : toolTip);
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
    m_profiles.clear();
    m_rankIndex = 0;
    if (m_sel && m_sel->session() && !m_sel->session()->ranks.empty()) {
        const auto& ranks = m_sel->session()->ranks;
        if (ranks.size() > 1 && m_sel->currentRank() < 0) {
            m_profiles = ranks; // "All ranks": every rank, as the ranking counts them
        } else {
            m_rankIndex = std::clamp(m_sel->currentRank(), 0, int(ranks.size()) - 1);
            m_profiles.push_back(ranks[std::size_t(m_rankIndex)]);
        }
    }
    showOperator(m_sel ? m_sel->selectedOperator() : m_key);
}

void OperatorDetailView::clearAll(const QString& title)
{
    m_ui->titleLabel->setText(title);
    m_ui->titleLabel->setToolTip(title);
    for (auto* label : std::as_const(m_fieldLabels)) {
        label->clear();
        label->setToolTip({});
    }
    m_group = {};
    showFieldsOf(DetailKind::Device);
    m_instances->clear();
    m_ui->instanceTable->setColumnHidden(OperatorInstanceModel::Rank, true);
    m_ui->instanceTable->setColumnHidden(OperatorInstanceModel::Bandwidth, true);
    m_ui->instancesTabs->setTabText(0, tr("Instances"));
    m_ui->neighboursTree->clear();
    m_binCounts.clear();
    m_binEdges.clear();
    m_plot->clearPlottables();
    m_plot->clearItems();
    m_plot->replot();
}

const Profile& OperatorDetailView::profileOfRow(const OpGroupStats& g, std::size_t i) const
{
    return *m_profiles[g.rowProfile.empty() ? 0 : g.rowProfile[i]];
}

std::optional<DetailGroup> OperatorDetailView::findDeviceGroup(const std::string& key)
{
    // The same options as the ranking's, so that counts and totals are the ranking's.
    if (m_statsProfiles != m_profiles || m_statsGroupBy != m_groupBy) {
        OpStatsOptions o;
        o.groupBy = m_groupBy;
        o.rankGenericSlices = true;
        m_stats = m_profiles.size() > 1 ? computeOpStatsAllRanks(m_profiles, o) : computeOpStats(*m_profiles.front(), o);
        m_statsProfiles = m_profiles;
        m_statsGroupBy = m_groupBy;
    }
    auto found = [&](const OpStatsResult& stats, GroupBy by) -> std::optional<DetailGroup> {
        for (const auto& g : stats.groups)
            if (g.key == key) {
                DetailGroup d;
                d.stats = g;
                d.rowsAreSlices = stats.fromTimeline;
                d.shownBy = by;
                d.shareOf = stats.deviceTotal;
                return d;
            }
        return std::nullopt;
    };
    if (auto d = found(m_stats, m_groupBy))
        return d;
    // A key of the other grouping, or a communication type left out of the compute ranking.
    for (GroupBy by : {m_groupBy, m_groupBy == GroupBy::Type ? GroupBy::Name : GroupBy::Type}) {
        OpStatsOptions o;
        o.groupBy = by;
        o.includeCommunication = true;
        const OpStatsResult stats = m_profiles.size() > 1 ? computeOpStatsAllRanks(m_profiles, o)
                                                          : computeOpStats(*m_profiles.front(), o);
        if (auto d = found(stats, by))
            return d;
    }
    return std::nullopt;
}

void OperatorDetailView::showOperator(const QString& key)
{
    m_key = key;
    if (key.isEmpty() || m_profiles.empty()) {
        clearAll(tr("No operator selected"));
        return;
    }
    const std::string k = key.toStdString();
    // A collective of the communication ranking, an operator's device tasks, else host calls.
    std::optional<DetailGroup> group = findCollective(m_profiles, k);
    if (!group || group->stats.rows.empty()) {
        if (auto device = findDeviceGroup(k))
            group = std::move(device);
    }
    if (!group)
        group = findHostCalls(m_profiles, k);
    const QString where = m_profiles.size() > 1 ? tr("all %1 ranks").arg(m_profiles.size()) : rankLabel(*m_profiles.front());
    if (!group) {
        clearAll(tr("%1: no device task, collective or host call of this name in %2").arg(key, where));
        return;
    }
    m_group = std::move(*group);
    const DetailGroup& d = m_group;
    showFieldsOf(d.kind);

    const QString what = d.kind == DetailKind::Collective ? tr("collective")
        : d.kind == DetailKind::Host                       ? tr("host API, no device tasks")
        : d.shownBy == GroupBy::Type                        ? tr("OP Type")
                                                            : tr("Op Name");
    const QString title = tr("%1 · %2 · %3 instances · whole profile of %4")
                              .arg(key, what, fmt::count(d.stats.count), where);
    m_ui->titleLabel->setText(title);
    m_ui->titleLabel->setToolTip(title);

    fillDurations(d);
    fillIdentity(d);
    fillHardware(d);
    fillCommunication(d);
    fillHistogram(d);

    InstanceSet set;
    set.profiles = m_profiles;
    for (std::size_t i = 0; i < m_profiles.size(); ++i)
        set.rankIndex.push_back(m_profiles.size() > 1 ? int(i) : m_rankIndex);
    set.rows = d.stats.rows;
    set.rowProfile = d.stats.rowProfile;
    set.rowsAreSlices = d.rowsAreSlices;
    set.bandwidthGBps = d.bandwidthGBps;
    set.origin = m_sel && m_sel->session() ? m_sel->fullRange().begin : m_profiles.front()->begin;
    m_instances->setInstances(std::move(set));
    m_ui->instancesTabs->setTabText(0, tr("Instances (%1)").arg(fmt::count(std::uint64_t(m_instances->rowCount()))));
    auto* table = m_ui->instanceTable;
    table->setColumnHidden(OperatorInstanceModel::Rank, m_profiles.size() < 2);
    table->setColumnHidden(OperatorInstanceModel::Bandwidth, d.kind != DetailKind::Collective);
    table->setColumnHidden(OperatorInstanceModel::Step, d.rowsAreSlices);
    table->resizeColumnsToContents();
    const int nameCap = std::max(100, table->viewport()->width() / 2);
    if (table->columnWidth(OperatorInstanceModel::Name) > nameCap)
        table->setColumnWidth(OperatorInstanceModel::Name, nameCap);
    if (m_instanceProxy->rowCount() > 0)
        table->selectionModel()->setCurrentIndex(m_instanceProxy->index(0, 0),
                                                 QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    else
        m_ui->neighboursTree->clear();
}

void OperatorDetailView::fillDurations(const DetailGroup& d)
{
    const OpGroupStats& g = d.stats;
    const QString src = d.kind == DetailKind::Collective ? tr("collectives on the communication tracks")
        : d.kind == DetailKind::Host                      ? tr("host calls (CANN, Python and other threads)")
        : d.rowsAreSlices                                 ? tr("device tasks of the timeline")
                                                          : tr("kernel rows");
    const QString ranks = m_profiles.size() > 1 ? tr(" over all %1 ranks").arg(m_profiles.size()) : QString();
    setField(QStringLiteral("count"), fmt::count(g.count), tr("Number of %1 of this group%2").arg(src, ranks));
    setField(QStringLiteral("total"), fmt::duration(double(g.total)), tr("Σ duration: %1 ns%2").arg(g.total).arg(ranks));
    if (d.kind == DetailKind::Host)
        setField(QStringLiteral("share"), QStringLiteral("—"), tr("Host calls nest: a share of their sum would mislead"));
    else
        setField(QStringLiteral("share"), fmt::percent(d.shareOf > 0 ? double(g.total) / double(d.shareOf) : kNaN),
                 tr("Total / Σ duration of all %1 counted (%2)").arg(src, fmt::duration(double(d.shareOf))));
    setField(QStringLiteral("avg"), fmt::duration(g.avgNs), tr("Total / count"));
    setField(QStringLiteral("min"), fmt::duration(double(g.min)), tr("Shortest instance: %1 ns").arg(g.min));
    setField(QStringLiteral("max"), fmt::duration(double(g.max)), tr("Longest instance: %1 ns").arg(g.max));
    const QString pct = tr("Nearest-rank percentile of the instance durations: %1 ns");
    setField(QStringLiteral("p50"), fmt::duration(double(g.p50)), pct.arg(g.p50));
    setField(QStringLiteral("p90"), fmt::duration(double(g.p90)), pct.arg(g.p90));
    setField(QStringLiteral("p99"), fmt::duration(double(g.p99)), pct.arg(g.p99));
}

void OperatorDetailView::fillIdentity(const DetailGroup& d)
{
    if (d.kind != DetailKind::Device)
        return;
    const OpGroupStats& g = d.stats;
    if (d.rowsAreSlices) {
        std::map<std::string, std::uint64_t> names;
        for (std::size_t i = 0; i < g.rows.size(); ++i) {
            const Profile& p = profileOfRow(g, i);
            ++names[std::string(p.str(p.slices.name[g.rows[i]]))];
        }
        setField(QStringLiteral("name"), mostFrequentText(names),
                 tr("Slice names on the Stream tracks"));
        setField(QStringLiteral("core"), QString::fromStdString(g.taskType), tr("Task Type of the device tasks"));
        for (const char* f : {"type", "inputShapes", "inputDtypes", "inputFormats", "outputShapes", "outputDtypes",
                              "outputFormats", "blockDim"})
            setField(QString::fromLatin1(f), QStringLiteral("—"), tr("No kernel table (op_summary / kernel_details) in this profile"));
        return;
    }
    const std::vector<GroupPart> parts = partsOf(m_profiles, g);
    const QString why = tr("Most frequent value over the group's kernel rows; \"+N other\" counts the other distinct values");
    setField(QStringLiteral("name"), mostCommon(parts, &KernelTable::name), why);
    setField(QStringLiteral("type"), mostCommon(parts, &KernelTable::type), why);
    setField(QStringLiteral("core"), QString::fromStdString(g.taskType),
             tr("Accelerator Core / Task Type carrying most of the group's duration"));
    setField(QStringLiteral("inputShapes"), mostCommon(parts, &KernelTable::inputShapes), why);
    setField(QStringLiteral("inputDtypes"), mostCommon(parts, &KernelTable::inputDtypes), why);
    setField(QStringLiteral("inputFormats"), mostCommon(parts, &KernelTable::inputFormats), why);
    setField(QStringLiteral("outputShapes"), mostCommon(parts, &KernelTable::outputShapes), why);
    setField(QStringLiteral("outputDtypes"), mostCommon(parts, &KernelTable::outputDtypes), why);
    setField(QStringLiteral("outputFormats"), mostCommon(parts, &KernelTable::outputFormats), why);
    QString block = mostCommonInt(parts, &KernelTable::blockDim);
    const QString mix = mostCommonInt(parts, &KernelTable::mixBlockDim);
    if (mix != QStringLiteral("—") && mix != QStringLiteral("0"))
        block += tr(" · mix %1").arg(mix);
    setField(QStringLiteral("blockDim"), block, tr("Block Dim (and Mix Block Dim) of the kernel rows; ") + why);
}

void OperatorDetailView::fillHardware(const DetailGroup& d)
{
    if (d.kind != DetailKind::Device)
        return;
    const OpGroupStats& g = d.stats;
    const std::vector<GroupPart> parts = d.rowsAreSlices ? std::vector<GroupPart>{} : partsOf(m_profiles, g);
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
    const double mte1 = weightedMetric(parts, {"aic_mte1_ratio", "mte1_ratio"}, &col);
    setField(QStringLiteral("mte1"), fmt::number(mte1), weighted.arg(col.isEmpty() ? QStringLiteral("aic_mte1_ratio") : col));
    col.clear();
    const double fixpipe = weightedMetric(parts, {"aic_fixpipe_ratio", "fixpipe_ratio"}, &col);
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

void OperatorDetailView::fillCommunication(const DetailGroup& d)
{
    if (d.kind != DetailKind::Collective)
        return;
    const QString ops = tr("over the %1 ops of this collective in communication.json").arg(d.commOps);
    setField(QStringLiteral("commVolume"), d.commOps ? QString::fromStdString(formatBytes(d.volumeGB * 1e9)) : QStringLiteral("—"),
             tr("Σ transit size (RDMA + the larger of SDMA and HCCS + PCIE + SIO) %1").arg(ops));
    const double bw = d.transitMs > 0 ? d.volumeGB * 1000.0 / d.transitMs : kNaN; // MB/ms = GB/s
    setField(QStringLiteral("commBw"), fmt::bandwidth(bw), tr("Σ transit size / Σ transit time %1").arg(ops));
    setField(QStringLiteral("commTransit"), fmt::duration(d.transitMs * 1e6),
             tr("Σ Transit Time(ms) of the transports counted in the volume %1").arg(ops));
    setField(QStringLiteral("commWait"), fmt::duration(d.waitMs * 1e6), tr("Σ Wait Time(ms) %1").arg(ops));
}

void OperatorDetailView::fillHistogram(const DetailGroup& d)
{
    const OpGroupStats& g = d.stats;
    m_binCounts.clear();
    m_binEdges.clear();
    m_plot->clearPlottables();
    m_plot->clearItems();
    std::vector<TimeNs> durs;
    durs.reserve(g.rows.size());
    for (std::size_t i = 0; i < g.rows.size(); ++i) {
        const Profile& p = profileOfRow(g, i);
        durs.push_back(d.rowsAreSlices ? p.slices.dur[g.rows[i]] : p.kernels.dur[g.rows[i]]);
    }
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
    if (viewRow < 0 || viewRow >= m_instanceProxy->rowCount())
        return;
    const int srcRow = m_instanceProxy->mapToSource(m_instanceProxy->index(viewRow, 0)).row();
    const Profile& p = m_instances->profileAt(srcRow);
    const int rankIndex = m_instances->rankIndexAt(srcRow);
    const std::uint32_t row = m_instances->rowAt(srcRow);
    const TimeNs origin = m_sel && m_sel->session() ? m_sel->fullRange().begin : p.begin;
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
        item->setText(2, fmt::duration(double(e.start - origin)));
        item->setText(3, fmt::duration(double(e.dur)));
        if (i > 0) {
            const Entry& prev = ordered[std::size_t(i - 1)];
            item->setText(4, fmt::duration(double(e.start - (prev.start + prev.dur))));
            item->setToolTip(4, tr("Start minus the previous task's end (negative: they overlap)"));
        }
        item->setData(0, Qt::UserRole, e.row);
        item->setData(0, Qt::UserRole + 1, e.slice);
        item->setData(0, Qt::UserRole + 2, rankIndex);
        item->setToolTip(1, e.name);
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
    if (viewRow < 0 || viewRow >= m_instanceProxy->rowCount())
        return;
    const int srcRow = m_instanceProxy->mapToSource(m_instanceProxy->index(viewRow, 0)).row();
    revealOperatorInstance(m_sel, m_instances->profileAt(srcRow), m_instances->rankIndexAt(srcRow),
                           m_instances->rowAt(srcRow), m_instances->rowsAreSlices());
}

} // namespace npuscope
