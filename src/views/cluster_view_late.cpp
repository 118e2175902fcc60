// The Cluster tab's "Why it waits" pane: per collective instance the rank that arrived last, the
// wait it caused and why (model/analysis/collectives.h), in aligned clocks unless "Raw clocks"
// is checked; a row opens the late rank's timeline at its window with the reason selected: All
// ranks stays shown (the window in aligned time unless the timeline draws raw clocks), a rank
// shown alone gives way to the late rank (SelectionController::revealRange).
#include "views/cluster_models.h"
#include "views/cluster_view.h"
#include "views/format.h"
#include "views/selection_controller.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace npuscope {

QWidget* ClusterView::buildWhyWaitsPane()
{
    auto* pane = new QWidget;
    auto* v = new QVBoxLayout(pane);
    v->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    m_rawClocks = new QCheckBox(tr("Raw clocks"));
    m_rawClocks->setObjectName(QStringLiteral("clusterRawClocks"));
    m_rawClocks->setToolTip(tr("Each rank's own clock. Unchecked: clocks aligned by the ends of the collectives "
                               "(a collective ends at the same instant on every rank)."));
    bar->addWidget(m_rawClocks);
    m_lateSummary = new QLabel;
    m_lateSummary->setObjectName(QStringLiteral("clusterLateSummary"));
    m_lateSummary->setWordWrap(true);
    m_lateSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addWidget(m_lateSummary, 1);
    v->addLayout(bar);
    m_whyModel = new WhyWaitsModel(this);
    auto* proxy = new NumericSortProxy(this);
    proxy->setSourceModel(m_whyModel);
    m_whyWaits = new QTableView;
    m_whyWaits->setObjectName(QStringLiteral("clusterWhyWaits"));
    m_whyWaits->setModel(proxy);
    m_whyWaits->setSortingEnabled(true);
    m_whyWaits->sortByColumn(WhyWaitsModel::WaitCaused, Qt::DescendingOrder);
    m_whyWaits->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_whyWaits->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_whyWaits->setSelectionMode(QAbstractItemView::SingleSelection);
    m_whyWaits->verticalHeader()->setVisible(false);
    m_whyWaits->horizontalHeader()->setStretchLastSection(true);
    m_whyWaits->setWordWrap(false);
    m_whyWaits->setToolTip(tr("Per collective: the rank that arrived last, how long the others waited for it and "
                              "why. Click a row to open that rank's timeline there."));
    v->addWidget(m_whyWaits, 1);
    connect(m_whyWaits, &QTableView::clicked, this,
            [this, proxy](const QModelIndex& i) { openWaitRow(proxy->mapToSource(i).row()); });
    connect(m_rawClocks, &QCheckBox::toggled, this, [this] { runCollectives(); });
    connect(&m_lateWatcher, &QFutureWatcherBase::finished, this, [this] {
        m_late = m_lateWatcher.result();
        m_latePending = false;
        showCollectives();
        emit collectivesReady();
    });
    return pane;
}

void ClusterView::runCollectives()
{
    m_late = {};
    m_latePending = true;
    showCollectives();
    ClockOptions o;
    o.raw = m_rawClocks && m_rawClocks->isChecked();
    o.manual = m_manualClocks;
    m_lateWatcher.setFuture(QtConcurrent::run([session = m_session, o] {
        if (!session || session->ranks.size() < 2)
            return CollectivesResult{};
        return analyzeCollectives(*session, o);
    }));
}

void ClusterView::setManualClockOffsets(std::vector<std::pair<int, TimeNs>> manual)
{
    if (manual == m_manualClocks)
        return;
    m_manualClocks = std::move(manual);
    if (m_session)
        runCollectives();
}

void ClusterView::showCollectives()
{
    m_whyModel->setResult(m_late);
    if (m_latePending) {
        m_lateSummary->setText(m_session ? tr("Matching the collectives…") : QString());
        return;
    }
    if (!m_session || m_session->ranks.size() < 2) {
        m_lateSummary->setText(tr("Needs the timelines of two ranks or more."));
        return;
    }
    if (m_late.instances.empty()) {
        m_lateSummary->setText(tr("No collective shared by two ranks."));
        return;
    }
    QStringList parts;
    for (const RankWaitCaused& w : m_late.ranks)
        if (w.lastCount > 0)
            parts << tr("rank %1 caused %2 of waiting on others per step").arg(w.rank).arg(fmt::duration(w.perStep));
    QString text = parts.isEmpty() ? tr("No rank arrived last by 10 µs or more.") : parts.join(QStringLiteral("; "));
    text += QStringLiteral(" · ") + qstr(m_late.clock.status);
    m_lateSummary->setText(text);
    QStringList tip;
    for (const RankClock& c : m_late.clock.ranks)
        tip << tr("rank %1: offset %2 ns %3").arg(c.rank).arg(c.offset).arg(qstr(c.note));
    for (const std::string& p : m_late.problems)
        tip << qstr(p);
    m_lateSummary->setToolTip(tip.join(QLatin1Char('\n')));
    m_whyWaits->resizeColumnsToContents();
}

void ClusterView::openWaitRow(int sourceRow)
{
    if (sourceRow < 0 || sourceRow >= m_whyModel->rowCount() || !m_sel)
        return;
    const CollectiveInstance& i = m_whyModel->instance(static_cast<std::size_t>(sourceRow));
    if (i.lastRankIndex < 0)
        return;
    // The window is the late rank's file time: shown (10 % each side) and selected as drawn.
    m_sel->revealRange(i.lastRankIndex, TimeRange{i.windowBegin, i.windowEnd});
    // The reason's first slice, else the late rank's collective: selected, its lane comes into view.
    std::uint32_t slice = i.causeSlices.empty() ? kNone : i.causeSlices.front();
    for (const Arrival& a : i.arrivals)
        if (slice == kNone && a.rankIndex == i.lastRankIndex)
            slice = a.slice;
    if (slice != kNone)
        m_sel->setSelectedTask({i.lastRankIndex, slice});
    emit rankActivated(i.lastRankIndex);
    emit timelineRequested();
}

} // namespace npuscope
