#include "views/operator_ranking_view.h"

#include "views/export_notice.h"

#include "ui_operator_ranking_view.h"
#include "views/format.h"
#include "views/operator_reveal.h"
#include "views/selection_controller.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QSaveFile>
#include <QSortFilterProxyModel>

#include <algorithm>
#include <cmath>

namespace npuscope {

namespace {

QString csvField(const QString& s)
{
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n')))
        return s;
    QString q = s;
    q.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + q + QLatin1Char('"');
}

// Export header names carry the unit of the raw value.
QString rawHeader(int column, const QString& shown)
{
    using M = OperatorRankingModel;
    switch (column) {
    case M::Total: case M::Avg: case M::Min: case M::Max: case M::P50: case M::P90: case M::P99:
        return shown + QStringLiteral("(ns)");
    case M::Share: case M::AicUtil: case M::L2Hit:
        return shown + QStringLiteral("(0..1)");
    case M::ReadBw: case M::WriteBw:
        return shown + QStringLiteral("(GB/s)");
    default:
        return shown;
    }
}

QString rawText(const QVariant& v)
{
    if (!v.isValid())
        return {};
    if (v.typeId() == QMetaType::Double) {
        const double d = v.toDouble();
        if (std::isnan(d))
            return {};
        // Integral values (ns) without exponent; others with full precision.
        if (d == std::floor(d) && std::fabs(d) < 9e15)
            return QString::number(qlonglong(d));
        return QString::number(d, 'g', 12);
    }
    return v.toString();
}

} // namespace

OperatorRankingView::OperatorRankingView(SelectionController* sel, QWidget* parent)
    : QWidget(parent), m_ui(std::make_unique<Ui::OperatorRankingView>()), m_sel(sel),
      m_model(new OperatorRankingModel(this)), m_proxy(new QSortFilterProxyModel(this))
{
    m_ui->setupUi(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(OperatorRankingModel::SortRole);
    m_proxy->setFilterKeyColumn(OperatorRankingModel::Name);
    m_proxy->setFilterRole(OperatorRankingModel::KeyRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    auto* table = m_ui->tableView;
    table->setModel(m_proxy);
    table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setStretchLastSection(false);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table->horizontalHeader()->setHighlightSections(false);
    // Long names keep their start and end (the type and the shape suffix); the tooltip has it all.
    table->setTextElideMode(Qt::ElideMiddle);

    m_ui->groupByCombo->addItem(tr("OP Type"), int(GroupBy::Type));
    m_ui->groupByCombo->addItem(tr("Op Name"), int(GroupBy::Name));
    m_ui->presetCombo->addItem(tr("Duration"), int(RankingPreset::Duration));
    m_ui->presetCombo->addItem(tr("Memory bandwidth"), int(RankingPreset::MemoryBandwidth));
    m_ui->presetCombo->addItem(tr("Communication duration"), int(RankingPreset::CommunicationDuration));

    m_copyAction = new QAction(tr("Copy as CSV"), this);
    m_copyAction->setShortcut(QKeySequence::Copy);
    m_copyAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(m_copyAction, &QAction::triggered, this, &OperatorRankingView::copySelection);
    m_exportAction = new QAction(tr("Export table as CSV…"), this);
    connect(m_exportAction, &QAction::triggered, this, &OperatorRankingView::exportWithDialog);
    table->addAction(m_copyAction);
    table->addAction(m_exportAction);
    table->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(m_ui->exportButton, &QToolButton::clicked, this, &OperatorRankingView::exportWithDialog);

    connect(m_ui->filterEdit, &QLineEdit::textChanged, this, &OperatorRankingView::setFilterText);
    connect(m_ui->groupByCombo, &QComboBox::currentIndexChanged, this, [this](int i) {
        setGroupBy(GroupBy(m_ui->groupByCombo->itemData(i).toInt()));
    });
    connect(m_ui->presetCombo, &QComboBox::currentIndexChanged, this, [this](int i) {
        setPreset(RankingPreset(m_ui->presetCombo->itemData(i).toInt()));
    });
    connect(m_model, &OperatorRankingModel::recomputed, this, &OperatorRankingView::onRecomputed);
    connect(table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onCurrentRowChanged(current); });
    connect(table, &QTableView::clicked, this,
            [this](const QModelIndex& index) { onCurrentRowChanged(index); });
    connect(table, &QTableView::doubleClicked, this, &OperatorRankingView::revealRow);
    // Enter reveals like a double-click (UI.md).
    auto* revealAction = new QAction(tr("Show longest instance on timeline"), table);
    revealAction->setShortcuts({QKeySequence(Qt::Key_Return), QKeySequence(Qt::Key_Enter)});
    revealAction->setShortcutContext(Qt::WidgetShortcut);
    connect(revealAction, &QAction::triggered, this, [this] { revealRow(m_ui->tableView->currentIndex()); });
    table->addAction(revealAction);

    if (m_sel) {
        connect(m_sel, &SelectionController::sessionChanged, this, &OperatorRankingView::reloadProfile);
        connect(m_sel, &SelectionController::currentRankChanged, this, &OperatorRankingView::reloadProfile);
        connect(m_sel, &SelectionController::selectedRangeChanged, this, &OperatorRankingView::onRangeChanged);
        // The selected range is in the time the ranks are drawn in: aligned under All ranks.
        connect(m_sel, &SelectionController::clockOffsetsChanged, this, &OperatorRankingView::onRangeChanged);
        connect(m_sel, &SelectionController::selectedOperatorChanged, this, &OperatorRankingView::followOperator);
    }
    applyPresetLayout();
    reloadProfile();
}

OperatorRankingView::~OperatorRankingView() = default;

QTableView* OperatorRankingView::tableView() const { return m_ui->tableView; }

QString OperatorRankingView::headerText() const { return m_ui->headerLabel->text(); }

void OperatorRankingView::reloadProfile()
{
    ProfilePtr profile;
    int rank = 0;
    if (m_sel && m_sel->session() && !m_sel->session()->ranks.empty()) {
        const auto& ranks = m_sel->session()->ranks;
        rank = std::clamp(m_sel->currentRank(), 0, int(ranks.size()) - 1);
        profile = ranks[std::size_t(rank)];
    }
    // Set the range first so the profile is aggregated once.
    QSignalBlocker block(m_model);
    m_model->setRangeShift(rangeShift());
    m_model->setRange(m_sel ? m_sel->selectedRange() : std::nullopt);
    block.unblock();
    if (m_sel && m_sel->session() && m_sel->session()->ranks.size() > 1 && m_sel->currentRank() < 0)
        m_model->setProfiles(m_sel->session()->ranks); // "All ranks": every rank as one population
    else
        m_model->setProfile(std::move(profile), rank);
}

void OperatorRankingView::prefetch(const SessionPtr& session)
{
    if (session)
        m_model->prefetch(session->ranks);
}

std::vector<TimeNs> OperatorRankingView::rangeShift() const
{
    std::vector<TimeNs> shift;
    if (m_sel && m_sel->session())
        for (std::size_t i = 0; i < m_sel->session()->ranks.size(); ++i)
            shift.push_back(m_sel->clockShift(static_cast<int>(i)));
    return shift;
}

void OperatorRankingView::onRangeChanged()
{
    m_model->setRangeShift(rangeShift());
    m_model->setRange(m_sel ? m_sel->selectedRange() : std::nullopt);
}

void OperatorRankingView::setGroupBy(GroupBy g)
{
    const int i = m_ui->groupByCombo->findData(int(g));
    if (i >= 0 && i != m_ui->groupByCombo->currentIndex()) {
        m_ui->groupByCombo->setCurrentIndex(i); // comes back here through the signal
        return;
    }
    if (g == m_model->groupBy())
        return;
    m_model->setGroupBy(g);
    emit groupByChanged(g);
}

void OperatorRankingView::setPreset(RankingPreset p)
{
    const int i = m_ui->presetCombo->findData(int(p));
    if (i >= 0 && i != m_ui->presetCombo->currentIndex()) {
        m_ui->presetCombo->setCurrentIndex(i);
        return;
    }
    if (p == m_model->preset())
        return;
    m_model->setPreset(p);
    applyPresetLayout();
}

void OperatorRankingView::applyPresetLayout()
{
    auto* table = m_ui->tableView;
    for (int c = 0; c < OperatorRankingModel::ColumnCount; ++c)
        table->setColumnHidden(c, !m_model->columnApplies(c));
    // Group-by does not apply to collectives.
    m_ui->groupByCombo->setEnabled(m_model->preset() != RankingPreset::CommunicationDuration);
    if (m_model->preset() == RankingPreset::MemoryBandwidth) {
        // The model orders rows by read + write bandwidth, which no single column holds.
        table->horizontalHeader()->setSortIndicator(-1, Qt::DescendingOrder);
        m_proxy->sort(-1);
    } else {
        table->sortByColumn(OperatorRankingModel::Total, Qt::DescendingOrder);
    }
}

void OperatorRankingView::setFilterText(const QString& text)
{
    if (m_ui->filterEdit->text() != text)
        m_ui->filterEdit->setText(text);
    m_proxy->setFilterFixedString(text);
}

void OperatorRankingView::onRecomputed()
{
    const auto range = m_model->range();
    const bool comm = m_model->preset() == RankingPreset::CommunicationDuration;
    QString text;
    if (!range) {
        text = comm ? tr("All collectives") : m_model->stats().genericSlices ? tr("All slices by name") : tr("All operators");
    } else {
        const TimeNs origin = m_sel ? m_sel->fullRange().begin : 0;
        const QString span = tr("Range %1 – %2")
                                 .arg(fmt::duration(double(range->begin - origin)),
                                      fmt::duration(double(range->end - origin)));
        text = comm ? span + tr(": communication of the whole profile (no per-range data)")
                    : span + tr(": %1 operators").arg(m_model->instanceCount());
    }
    if (m_model->aggregated())
        text += tr(" · all %1 ranks").arg(m_model->profileCount());
    else if (m_sel && m_sel->session() && m_sel->session()->ranks.size() > 1)
        text += tr(" · %1").arg(QString::fromStdString(m_model->profile() && m_model->profile()->rank >= 0
                                                           ? "rank " + std::to_string(m_model->profile()->rank)
                                                           : m_model->profile() ? m_model->profile()->name : std::string()));
    m_ui->headerLabel->setText(text);
    for (int c = 0; c < OperatorRankingModel::ColumnCount; ++c) // Self shows for generic traces only
        m_ui->tableView->setColumnHidden(c, !m_model->columnApplies(c));
    m_ui->headerLabel->setToolTip(tr("%1 instances in %2 groups, Σ %3")
                                      .arg(fmt::count(m_model->instanceCount()))
                                      .arg(m_model->rowCount())
                                      .arg(fmt::duration(double(m_model->totalDuration()))));
    for (int c = 0; c < OperatorRankingModel::ColumnCount; ++c)
        if (!m_ui->tableView->isColumnHidden(c))
            m_ui->tableView->resizeColumnToContents(c);
    // A long Op Name would push every number out of sight: it is elided past 2/5 of the table.
    const int nameCap = std::max(120, m_ui->tableView->viewport()->width() * 2 / 5);
    if (m_ui->tableView->columnWidth(OperatorRankingModel::Name) > nameCap)
        m_ui->tableView->setColumnWidth(OperatorRankingModel::Name, nameCap);
    if (m_sel)
        followOperator(m_sel->selectedOperator());
}

void OperatorRankingView::followOperator(const QString& key)
{
    if (m_syncing)
        return;
    const int row = key.isEmpty() ? -1 : m_model->rowForKey(key);
    const QModelIndex proxyIndex = row < 0 ? QModelIndex() : m_proxy->mapFromSource(m_model->index(row, 0));
    m_syncing = true;
    auto* sm = m_ui->tableView->selectionModel();
    if (!proxyIndex.isValid()) {
        sm->clearSelection();
    } else if (sm->currentIndex().row() != proxyIndex.row() || !sm->isRowSelected(proxyIndex.row())) {
        sm->setCurrentIndex(proxyIndex, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_ui->tableView->scrollTo(proxyIndex);
    }
    m_syncing = false;
}

void OperatorRankingView::onCurrentRowChanged(const QModelIndex& current)
{
    if (m_syncing || !m_sel || !current.isValid())
        return;
    const QString key = current.data(OperatorRankingModel::KeyRole).toString();
    if (key == m_sel->selectedOperator())
        return;
    m_syncing = true;
    m_sel->setSelectedOperator(key);
    m_syncing = false;
}

void OperatorRankingView::revealRow(const QModelIndex& proxyIndex)
{
    if (!proxyIndex.isValid() || !m_model->profile())
        return;
    const QModelIndex src = m_proxy->mapToSource(proxyIndex);
    const auto* g = m_model->groupAt(src.row());
    if (!g)
        return; // collectives carry no instance rows
    const bool slices = m_model->rowsAreSlices();
    if (!g->rowProfile.empty()) { // aggregated over ranks: the longest instance of any rank
        std::size_t best = g->rows.size();
        TimeNs bestDur = -1;
        for (std::size_t i = 0; i < g->rows.size(); ++i) {
            const Profile& p = *m_model->profiles()[g->rowProfile[i]];
            const TimeNs d = slices ? p.slices.dur[g->rows[i]] : p.kernels.dur[g->rows[i]];
            if (d > bestDur) {
                bestDur = d;
                best = i;
            }
        }
        if (best < g->rows.size())
            revealOperatorInstance(m_sel, *m_model->profiles()[g->rowProfile[best]], int(g->rowProfile[best]),
                                   g->rows[best], slices);
        return;
    }
    const auto& p = *m_model->profile();
    const std::uint32_t row = longestInstance(p, g->rows, slices);
    if (row != kNone)
        revealOperatorInstance(m_sel, p, m_model->rankIndex(), row, slices);
}

QString OperatorRankingView::selectionAsCsv() const
{
    const auto* table = m_ui->tableView;
    QList<int> rows;
    for (const auto& idx : table->selectionModel()->selectedRows())
        rows.push_back(idx.row());
    std::sort(rows.begin(), rows.end());
    if (rows.isEmpty())
        return {};
    QStringList lines;
    QStringList head;
    for (int c = 0; c < OperatorRankingModel::ColumnCount; ++c)
        if (!table->isColumnHidden(c))
            head << csvField(m_proxy->headerData(c, Qt::Horizontal).toString());
    lines << head.join(QLatin1Char(','));
    for (int r : rows) {
        QStringList cells;
        for (int c = 0; c < OperatorRankingModel::ColumnCount; ++c)
            if (!table->isColumnHidden(c))
                cells << csvField(m_proxy->index(r, c).data(Qt::DisplayRole).toString());
        lines << cells.join(QLatin1Char(','));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void OperatorRankingView::copySelection() const
{
    const QString csv = selectionAsCsv();
    if (!csv.isEmpty())
        QApplication::clipboard()->setText(csv);
}

bool OperatorRankingView::exportCsv(const QString& path, QString* error) const
{
    const auto* table = m_ui->tableView;
    QStringList lines;
    QStringList head;
    for (int c = 0; c < OperatorRankingModel::ColumnCount; ++c)
        if (!table->isColumnHidden(c))
            head << csvField(rawHeader(c, m_proxy->headerData(c, Qt::Horizontal).toString()));
    lines << head.join(QLatin1Char(','));
    for (int r = 0, n = m_proxy->rowCount(); r < n; ++r) {
        QStringList cells;
        for (int c = 0; c < OperatorRankingModel::ColumnCount; ++c)
            if (!table->isColumnHidden(c))
                cells << csvField(rawText(m_proxy->index(r, c).data(OperatorRankingModel::RawValueRole)));
        lines << cells.join(QLatin1Char(','));
    }
    QSaveFile file(path); // writes a temporary file and renames it on commit()
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error)
            *error = file.errorString();
        return false;
    }
    file.write((lines.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8());
    if (!file.commit()) {
        if (error)
            *error = file.errorString();
        return false;
    }
    return true;
}

void OperatorRankingView::exportWithDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export operators"),
                                                      QStringLiteral("operators.csv"),
                                                      tr("CSV files (*.csv)"));
    if (!path.isEmpty())
        exportCsvWithNotice(path);
}

bool OperatorRankingView::exportCsvWithNotice(const QString& path)
{
    QString error;
    if (!exportCsv(path, &error)) {
        showExportError(this, path, error);
        return false;
    }
    showExportNotice(this, path);
    return true;
}

} // namespace npuscope
