#include "views/selection_panel.h"
#include "views/format.h"

#include "model/analysis/slice_detail.h"
#include "views/idle_lane.h"
#include "views/time_format.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace npuscope {

namespace {

// A time from the trace start, as the advisor's evidence writes it: "at 47.483 ms".
QString atText(TimeNs relative) { return QStringLiteral("%1 ms").arg(QString::number(static_cast<double>(relative) / 1e6, 'f', 3)); }

QString durationText(TimeNs ns) { return QStringLiteral("%1 (%2 ns)").arg(fmt::duration(ns)).arg(ns); }

} // namespace

SelectionPanel::SelectionPanel(SelectionController* sel, QWidget* parent) : QWidget(parent), m_sel(sel)
{
    setObjectName(QStringLiteral("selectionPanel"));
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(4, 4, 4, 4);
    m_title = new QLabel;
    m_title->setObjectName(QStringLiteral("selectionTitle"));
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Three lines, whatever the selection: a title that wraps onto one line more or less would
    // move the buttons and the fields under the mouse. A longer one is cut; its tooltip has it all.
    m_title->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_title->setFixedHeight(3 * m_title->fontMetrics().lineSpacing() + 2 * m_title->margin() + 4);
    lay->addWidget(m_title);
    auto* buttons = new QHBoxLayout;
    m_rankingButton = new QPushButton(tr("Reveal in ranking"));
    m_rankingButton->setObjectName(QStringLiteral("revealInRanking"));
    m_rankingButton->setToolTip(tr("Select this slice's operator group in the Operators dock"));
    m_instancesButton = new QPushButton(tr("Show all instances"));
    m_instancesButton->setObjectName(QStringLiteral("showAllInstances"));
    m_instancesButton->setToolTip(tr("List every instance of this operator in the Operator detail dock"));
    buttons->addWidget(m_rankingButton);
    buttons->addWidget(m_instancesButton);
    buttons->addStretch(1);
    lay->addLayout(buttons);
    m_tree = new QTreeWidget;
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Field"), tr("Value")});
    m_tree->setRootIsDecorated(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setWordWrap(false);
    m_tree->setTextElideMode(Qt::ElideRight);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(true);
    lay->addWidget(m_tree, 1);

    connect(m_tree, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* it) { onItemClicked(it); });
    connect(m_rankingButton, &QPushButton::clicked, this, [this] {
        if (m_key.isEmpty())
            return;
        m_sel->setSelectedOperator(m_key);
        emit revealInRankingRequested();
    });
    connect(m_instancesButton, &QPushButton::clicked, this, [this] {
        if (m_key.isEmpty())
            return;
        m_sel->setSelectedOperator(m_key);
        emit showInstancesRequested();
    });
    connect(m_sel, &SelectionController::sessionChanged, this, &SelectionPanel::refresh);
    connect(m_sel, &SelectionController::selectedTaskChanged, this, &SelectionPanel::refresh);
    connect(m_sel, &SelectionController::selectedRangeChanged, this, &SelectionPanel::refresh);
    connect(m_sel, &SelectionController::currentRankChanged, this, [this] {
        if (!m_sel->clockOffsets().empty())
            refresh(); // "Start" says the aligned time while All ranks is shown
    });
    connect(m_sel, &SelectionController::clockOffsetsChanged, this, &SelectionPanel::refresh);
    refresh();
}

QString SelectionPanel::title() const { return m_title->text(); }

void SelectionPanel::setGroupBy(GroupBy g)
{
    m_groupBy = g;
    m_key = g == GroupBy::Type ? m_typeKey : m_nameKey;
}

QTreeWidgetItem* SelectionPanel::section(const QString& title)
{
    auto* it = new QTreeWidgetItem(m_tree, {title});
    QFont f = it->font(0);
    f.setBold(true);
    it->setFont(0, f);
    it->setFirstColumnSpanned(true);
    it->setExpanded(true);
    return it;
}

QStringList SelectionPanel::sections() const
{
    QStringList out;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        out << m_tree->topLevelItem(i)->text(0);
    return out;
}

QString SelectionPanel::fieldText(const QString& field, const QString& sectionTitle) const
{
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        const QTreeWidgetItem* s = m_tree->topLevelItem(i);
        if (!sectionTitle.isEmpty() && s->text(0) != sectionTitle)
            continue;
        for (int c = 0; c < s->childCount(); ++c)
            if (s->child(c)->text(0) == field)
                return s->child(c)->text(1);
    }
    return {};
}

void SelectionPanel::onItemClicked(QTreeWidgetItem* item)
{
    const QVariant link = item ? item->data(0, LinkRole) : QVariant();
    if (!link.isValid())
        return;
    const TaskRef current = m_sel->selectedTask();
    m_sel->revealTask(TaskRef{current.rankIndex, link.toUInt()});
}

void SelectionPanel::setCausalModel(CausalModel* model)
{
    m_causal = model;
    if (model) {
        connect(model, &CausalModel::ready, this, &SelectionPanel::refresh);
        refresh();
    }
}

void SelectionPanel::addCriticalPath(const Profile& p, int rankIndex, std::uint32_t row)
{
    if (!m_causal)
        return;
    const CausalRank* cr = m_causal->result() && m_causal->result()->session == m_sel->session() ? m_causal->rank(rankIndex) : nullptr;
    if (!cr) {
        new QTreeWidgetItem(section(tr("Critical path")), {tr("On the path"), tr("computing…")});
        return;
    }
    if (row >= cr->graph.kind.size() || cr->graph.kind[row] == NodeKind::None)
        return; // not a node of the step graph (an overlap lane, a step marker)
    QTreeWidgetItem* sec = section(tr("Critical path"));
    const int step = row < cr->graph.step.size() ? cr->graph.step[row] : -1;
    const QString stepName = step >= 0 && static_cast<std::size_t>(step) < cr->graph.steps.size()
        ? qstr(cr->graph.steps[static_cast<std::size_t>(step)].name)
        : QString();
    const bool on = onCriticalPath(cr->paths, row);
    new QTreeWidgetItem(sec, {tr("On the path"), on ? (stepName.isEmpty() ? tr("yes") : tr("yes (step %1)").arg(stepName)) : tr("no")});
    auto* slack = new QTreeWidgetItem(sec, {tr("Slack"), durationText(sliceSlack(p, cr->graph, cr->paths, row))});
    slack->setToolTip(1, tr("How much later this slice could end without moving its step's end (0 on the critical path)"));
}

void SelectionPanel::refresh()
{
    m_tree->clear();
    m_key.clear();
    m_typeKey.clear();
    m_nameKey.clear();
    const SessionPtr& s = m_sel->session();
    const TimeNs origin = m_sel->fullRange().begin;
    QStringList title;

    const TaskRef t = m_sel->selectedTask();
    SliceDetail d;
    const Profile* p = nullptr;
    if (s && t.valid() && t.rankIndex < static_cast<int>(s->ranks.size())) {
        p = s->ranks[static_cast<std::size_t>(t.rankIndex)].get();
        d = describeSlice(*p, t.slice, origin);
    }
    if (d.valid) {
        const QString rankText = s->ranks.size() > 1
            ? (p->rank >= 0 ? tr("rank %1 · ").arg(p->rank) : qstr(p->name) + QStringLiteral(" · "))
            : QString();
        title.prepend(QStringLiteral("<b>%1</b>").arg(qstr(d.name).toHtmlEscaped()));
        QTreeWidgetItem* sec = section(tr("Slice"));
        new QTreeWidgetItem(sec, {tr("Name"), qstr(d.name)});
        new QTreeWidgetItem(sec, {tr("Track"), rankText + qstr(d.track)});
        const TimeNs shift = m_sel->clockShift(t.rankIndex);
        new QTreeWidgetItem(sec, {tr("Start"), shift != 0 ? tr("aligned %1 (file %2)").arg(atText(d.start - shift), atText(d.start))
                                                          : atText(d.start)});
        new QTreeWidgetItem(sec, {tr("Duration"), durationText(d.dur)});
        new QTreeWidgetItem(sec, {tr("Self time"), durationText(d.self)});
        if (!d.category.empty())
            new QTreeWidgetItem(sec, {tr("Category"), qstr(d.category)});
        new QTreeWidgetItem(sec, {tr("Depth"), QString::number(d.depth)});
        addCriticalPath(*p, t.rankIndex, t.slice);

        auto fields = [this](const QString& name, const std::vector<DetailField>& list) {
            if (list.empty())
                return;
            QTreeWidgetItem* sec = section(name);
            for (const DetailField& f : list) {
                auto* it = new QTreeWidgetItem(sec, {qstr(f.key), qstr(f.value)});
                it->setToolTip(1, qstr(f.value).left(4000));
            }
        };
        fields(tr("Arguments"), d.args);
        if (!d.argsError.empty()) {
            auto* it = new QTreeWidgetItem(section(tr("Arguments")), {tr("(not read)"), qstr(d.argsError)});
            it->setToolTip(1, qstr(d.argsError));
        }
        fields(tr("Kernel row"), d.kernel);

        auto link = [&](QTreeWidgetItem* sec, const SliceLink& l, const QString& label) {
            const QString at = atText(l.start - shift); // as drawn
            const QString where = l.slice == kNone
                ? tr("%1 at %2 (no slice there)").arg(qstr(l.track), at)
                : tr("%1 · %2 · at %3 · %4").arg(qstr(l.name), qstr(l.track), at, fmt::duration(l.dur));
            auto* it = new QTreeWidgetItem(sec, {label, where});
            if (l.slice != kNone) {
                it->setData(0, LinkRole, l.slice);
                it->setForeground(1, palette().color(QPalette::Link));
                it->setToolTip(1, tr("Click to go to %1").arg(qstr(l.name)));
            }
        };
        if (!d.flowsIn.empty()) {
            QTreeWidgetItem* sec = section(tr("Flows in"));
            for (const SliceLink& l : d.flowsIn)
                link(sec, l, qstr(l.label));
        }
        if (!d.flowsOut.empty()) {
            QTreeWidgetItem* sec = section(tr("Flows out"));
            for (const SliceLink& l : d.flowsOut)
                link(sec, l, qstr(l.label));
        }
        if (d.hostOp) {
            QTreeWidgetItem* sec = section(tr("Host op"));
            link(sec, *d.hostOp, tr("Launched by"));
            for (std::size_t i = 0; i < d.hostAncestors.size(); ++i)
                new QTreeWidgetItem(sec, {i == 0 ? tr("Inside") : QString(), qstr(d.hostAncestors[i])});
        }
        if (!d.callStack.empty()) {
            QTreeWidgetItem* sec = section(tr("Call stack"));
            for (std::size_t i = 0; i < d.callStack.size(); ++i)
                new QTreeWidgetItem(sec, {QStringLiteral("#%1").arg(i), qstr(d.callStack[i])});
        }
        if (d.previous || d.next) {
            QTreeWidgetItem* sec = section(d.trackKind == TrackKind::Stream ? tr("On its stream") : tr("On its track"));
            if (d.previous)
                link(sec, *d.previous, tr("Previous"));
            if (d.next)
                link(sec, *d.next, tr("Next"));
        }
        // The ranking's keys: OP Type / Op Name of the joined kernel row, else the slice name
        // (how computeOpStats groups timeline tasks and generic slices).
        const std::uint32_t k = p->slices.kernel[t.slice];
        const bool joined = k != kNone && k < p->kernels.size();
        m_nameKey = joined ? qstr(std::string(p->str(p->kernels.name[k]))) : qstr(d.name);
        m_typeKey = joined && !p->str(p->kernels.type[k]).empty() ? qstr(std::string(p->str(p->kernels.type[k]))) : m_nameKey;
        m_key = m_groupBy == GroupBy::Type ? m_typeKey : m_nameKey;
        title << tr("%1 · start %2 · %3").arg(rankText + qstr(d.track), atText(d.start - shift), fmt::duration(d.dur));
    }
    if (const auto r = m_sel->selectedRange(); r && !r->empty()) {
        QTreeWidgetItem* sec = section(tr("Range"));
        new QTreeWidgetItem(sec, {tr("Duration"), durationText(r->end - r->begin)});
        new QTreeWidgetItem(sec, {tr("From"), atText(r->begin - origin)});
        new QTreeWidgetItem(sec, {tr("To"), atText(r->end - origin)});
        title << tr("Range of %1").arg(fmt::duration(r->end - r->begin));
    }

    if (title.isEmpty())
        title << (s ? tr("Nothing selected: click a slice on the timeline, or drag on the ruler to select a range")
                    : tr("No profile open"));
    m_title->setText(title.join(QStringLiteral("<br>")));
    m_title->setToolTip(m_title->text());
    m_rankingButton->setEnabled(!m_key.isEmpty());
    m_instancesButton->setEnabled(!m_key.isEmpty());
}

} // namespace npuscope
