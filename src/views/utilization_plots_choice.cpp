// UtilizationPlots: which rank's curves ("Curves of:" and the note beside it) and which plots are
// shown (the per-kind actions and the right-click menu). The plots themselves are drawn in
// utilization_plots.cpp.
#include "views/utilization_plots.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSignalBlocker>
#include <qcustomplot.h>

namespace npuscope {

QString UtilizationPlots::rankLabel(const Profile& p, bool capital)
{
    if (p.rank < 0)
        return QString::fromStdString(p.name);
    return (capital ? tr("Rank %1") : tr("rank %1")).arg(p.rank);
}

void UtilizationPlots::buildCurvesBar()
{
    m_curvesBar = new QWidget(this);
    m_curvesBar->setObjectName(QStringLiteral("curvesBar"));
    m_curvesBar->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed); // the plots take the height
    auto* row = new QHBoxLayout(m_curvesBar);
    row->setContentsMargins(6, 2, 6, 2);
    auto* label = new QLabel(tr("Curves of:"), m_curvesBar);
    m_curvesOf = new QComboBox(m_curvesBar);
    m_curvesOf->setObjectName(QStringLiteral("curvesOf"));
    m_curvesOf->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_curvesOf->setToolTip(tr("Whose utilisation curves the plots draw: one rank's, or every rank's main curve "
                              "in each plot, one colour per rank. Follows the toolbar's rank."));
    label->setBuddy(m_curvesOf);
    m_curvesNote = new QLabel(m_curvesBar);
    m_curvesNote->setObjectName(QStringLiteral("curvesNote"));
    m_curvesNote->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // never widens the window
    row->addWidget(label);
    row->addWidget(m_curvesOf);
    row->addSpacing(8);
    row->addWidget(m_curvesNote, 1);
    m_curvesBar->hide(); // a cluster's only
    connect(m_curvesOf, &QComboBox::activated, this, [this](int i) { setCurvesRank(m_curvesOf->itemData(i).toInt()); });
}

void UtilizationPlots::buildPlotActions()
{
    for (const QString& kind : plotKinds()) {
        auto* a = new QAction(plotKindName(kind), this);
        a->setObjectName(QStringLiteral("showPlot_") + kind);
        a->setData(kind);
        a->setCheckable(true);
        a->setChecked(true);
        a->setToolTip(tr("Show the %1 plot under the timeline").arg(plotKindName(kind)));
        connect(a, &QAction::toggled, this, [this, kind](bool shown) { setPlotHidden(kind, !shown); });
        m_plotActions << a;
    }
    m_showAll = new QAction(tr("Show all plots"), this);
    m_showAll->setObjectName(QStringLiteral("showAllPlots"));
    m_showAll->setEnabled(false);
    connect(m_showAll, &QAction::triggered, this, [this] { setHiddenPlots({}); });
}

const std::vector<Series>& UtilizationPlots::seriesOf(std::size_t rankIndex)
{
    std::optional<std::vector<Series>>& cached = m_series[rankIndex];
    if (!cached)
        cached = utilizationSeries(*m_sel->session()->ranks[rankIndex], 0);
    return *cached;
}

void UtilizationPlots::onSessionChanged()
{
    const SessionPtr& s = m_sel->session();
    const int ranks = s ? static_cast<int>(s->ranks.size()) : 0;
    // The drawn curves point into the series about to be freed; a replot that the selector's
    // layout triggers before rebuild() must find none.
    m_derived.clear();
    m_drawnRange = {};
    m_series.assign(static_cast<std::size_t>(ranks), std::nullopt);
    m_seriesSession = s;
    // The choice stays across a reload while that rank exists.
    if (m_curvesRank >= ranks)
        m_curvesRank = kEveryRank;
    if (m_sel->currentRank() >= 0 && m_sel->currentRank() < ranks)
        m_curvesRank = m_sel->currentRank();
    fillCurvesSelector();
    rebuild();
}

void UtilizationPlots::onCurrentRankChanged(int rank)
{
    const SessionPtr& s = m_sel->session();
    if (rank >= 0 && s && rank < static_cast<int>(s->ranks.size()) && rank != m_curvesRank) {
        setCurvesRank(rank); // the selector follows the toolbar
        return;
    }
    updateRankNote(); // All ranks, or the same rank: the curves stay, the note may change
}

void UtilizationPlots::setCurvesRank(int rankIndex)
{
    const SessionPtr& s = m_sel->session();
    const int ranks = s ? static_cast<int>(s->ranks.size()) : 0;
    if (rankIndex != kEveryRank && (rankIndex < 0 || rankIndex >= ranks))
        return;
    if (rankIndex == m_curvesRank)
        return;
    m_curvesRank = rankIndex;
    {
        const QSignalBlocker block(m_curvesOf);
        m_curvesOf->setCurrentIndex(std::max(0, m_curvesOf->findData(m_curvesRank)));
    }
    rebuild();
}

void UtilizationPlots::fillCurvesSelector()
{
    const QSignalBlocker block(m_curvesOf);
    m_curvesOf->clear();
    const SessionPtr& s = m_sel->session();
    const std::size_t ranks = s ? s->ranks.size() : 0;
    if (ranks > 1) {
        m_curvesOf->addItem(tr("Every rank"), kEveryRank);
        for (std::size_t i = 0; i < ranks; ++i)
            m_curvesOf->addItem(rankLabel(*s->ranks[i], true), static_cast<int>(i));
        m_curvesOf->setCurrentIndex(std::max(0, m_curvesOf->findData(m_curvesRank)));
    }
    m_curvesBar->setVisible(ranks > 1);
}

void UtilizationPlots::updateRankNote()
{
    const SessionPtr& s = m_sel->session();
    const int ranks = s ? static_cast<int>(s->ranks.size()) : 0;
    m_rankNote.clear();
    if (ranks > 1) {
        const int toolbar = m_sel->currentRank();
        if (m_curvesRank == kEveryRank)
            m_rankNote = tr("One curve per rank in each plot (%1 ranks)").arg(ranks);
        else
            m_rankNote = tr("Curves of %1%2")
                             .arg(rankLabel(*s->ranks[static_cast<std::size_t>(m_curvesRank)], false),
                                 toolbar < 0 ? tr(" only") : QString());
        // Say so when the rest of the window shows something else.
        if (toolbar < 0 && m_curvesRank != kEveryRank)
            m_rankNote += tr("; the rest of the window shows all ranks");
        else if (toolbar >= 0 && toolbar < ranks && toolbar != m_curvesRank)
            m_rankNote += tr("; the rest of the window shows %1")
                              .arg(rankLabel(*s->ranks[static_cast<std::size_t>(toolbar)], false));
    }
    m_curvesNote->setText(m_rankNote);
    m_curvesNote->setToolTip(m_rankNote);
}

QStringList UtilizationPlots::plotKinds()
{
    return { QStringLiteral("util"), QStringLiteral("bw"), QStringLiteral("l2"), QStringLiteral("freq"),
        QStringLiteral("mem") };
}

QString UtilizationPlots::plotKindName(const QString& kind)
{
    if (kind == QLatin1String("util"))
        return tr("AI Core utilisation");
    if (kind == QLatin1String("bw"))
        return tr("Memory bandwidth");
    if (kind == QLatin1String("l2"))
        return tr("L2 hit rate");
    if (kind == QLatin1String("freq"))
        return tr("AI Core frequency");
    if (kind == QLatin1String("mem"))
        return tr("Memory use");
    return kind;
}

QString UtilizationPlots::plotKindAt(int plotIndex) const
{
    if (plotIndex < 0 || plotIndex >= plotCount())
        return {};
    return m_rects[static_cast<std::size_t>(plotIndex)]->property("kind").toString();
}

QStringList UtilizationPlots::hiddenPlots() const
{
    QStringList kinds;
    for (const QString& kind : plotKinds())
        if (m_hidden.contains(kind))
            kinds << kind;
    return kinds;
}

void UtilizationPlots::setHiddenPlots(const QStringList& kinds)
{
    QSet<QString> hidden;
    for (const QString& kind : kinds)
        if (plotKinds().contains(kind)) // a kind an older or newer version stored: ignored
            hidden.insert(kind);
    if (hidden == m_hidden)
        return;
    m_hidden = hidden;
    for (QAction* a : std::as_const(m_plotActions)) {
        const QSignalBlocker block(a);
        a->setChecked(!m_hidden.contains(a->data().toString()));
    }
    m_showAll->setEnabled(!m_hidden.isEmpty());
    rebuild();
    emit hiddenPlotsChanged(hiddenPlots());
}

void UtilizationPlots::setPlotHidden(const QString& kind, bool hidden)
{
    QStringList kinds = hiddenPlots();
    kinds.removeAll(kind);
    if (hidden)
        kinds << kind;
    setHiddenPlots(kinds);
}

void UtilizationPlots::updatePlotActions(const QSet<QString>& present)
{
    const bool open = m_sel->session() != nullptr;
    for (QAction* a : std::as_const(m_plotActions)) {
        const QString kind = a->data().toString();
        // A kind the open profile has no curves of cannot be shown; its choice is kept.
        const bool has = !open || present.contains(kind);
        a->setEnabled(has);
        a->setToolTip(has ? tr("Show the %1 plot under the timeline").arg(plotKindName(kind))
                          : tr("This profile has no %1 curves").arg(plotKindName(kind)));
    }
}

QMenu* UtilizationPlots::contextMenuAt(QPointF pos)
{
    auto* menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("plotsContextMenu"));
    menu->setAttribute(Qt::WA_DeleteOnClose);
    for (int i = 0; i < plotCount(); ++i) {
        if (!m_rects[static_cast<std::size_t>(i)]->outerRect().contains(pos.toPoint()))
            continue;
        const QString kind = plotKindAt(i);
        QAction* hide = menu->addAction(tr("Hide %1").arg(plotKindName(kind)));
        hide->setObjectName(QStringLiteral("hidePlot"));
        connect(hide, &QAction::triggered, this, [this, kind] { setPlotHidden(kind, true); });
    }
    menu->addAction(m_showAll);
    menu->addSeparator();
    menu->addActions(m_plotActions);
    return menu;
}

} // namespace npuscope
