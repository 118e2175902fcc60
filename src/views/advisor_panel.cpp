#include "views/advisor_panel.h"
#include "views/app_settings.h"

#include "advisor/cluster_summary_advice.h"

#include <QCoreApplication>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace npuscope {

namespace {

// The reports' severity colours; the text label is always shown too.
QColor severityColor(advisor::FindingSeverity s)
{
    return QColor(QLatin1String(advisor::severityColour(s)));
}

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString categoryTitle(advisor::Category c)
{
    switch (c) {
    case advisor::Category::Computation: return AdvisorPanel::tr("Computation");
    case advisor::Category::Communication: return AdvisorPanel::tr("Communication");
    case advisor::Category::Scheduling: return AdvisorPanel::tr("Scheduling (host)");
    case advisor::Category::Memory: return AdvisorPanel::tr("Memory");
    case advisor::Category::Cluster: return AdvisorPanel::tr("Cluster");
    }
    return {};
}

constexpr int kFindingRole = Qt::UserRole + 1; // index into report->findings

// The action plan as the tree's first group: one row per action (selecting it shows its
// finding), and the estimated step after the plan in the group's tooltip.
void addPlanGroup(QTreeWidget* tree, const advisor::AdvisorReport& r)
{
    if (r.plan.empty())
        return;
    double sum = 0;
    for (const auto& p : r.plan)
        sum += p.gain.nsPerStep;
    auto* g = new QTreeWidgetItem(tree, {QCoreApplication::translate("AdvisorPanel", "Plan: step %1 → %2 (estimate)")
                                             .arg(qs(advisor::fmtMs(r.T)), qs(advisor::fmtMs(r.planStepNs)))});
    g->setFirstColumnSpanned(false);
    g->setText(2, qs(advisor::fmtMs(sum)));
    g->setToolTip(0, qs(advisor::planFormula(r)));
    for (std::size_t i = 0; i < r.plan.size(); ++i) {
        const advisor::PlanItem& p = r.plan[i];
        auto* item = new QTreeWidgetItem(g);
        const QString label = QStringLiteral("%1. %2").arg(i + 1).arg(qs(p.action));
        item->setText(0, label);
        item->setToolTip(0, label + QStringLiteral("\n") + qs(p.findingId + ": " + p.title));
        item->setText(2, qs(advisor::fmtMs(p.gain.nsPerStep)));
        item->setToolTip(2, qs(p.gain.text()));
        for (std::size_t k = 0; k < r.findings.size(); ++k)
            if (r.findings[k].id == p.findingId) {
                item->setData(0, kFindingRole, int(k));
                item->setText(1, QStringLiteral("● ") + qs(advisor::severityName(r.findings[k].severity)));
                item->setForeground(1, severityColor(r.findings[k].severity));
            }
    }
    g->setExpanded(true);
}

} // namespace

AdvisorPanel::AdvisorPanel(SelectionController* sel, QWidget* parent)
    : QWidget(parent)
    , m_sel(sel)
    , m_overrideFile(AppSettings::advisorOverrideFile())
{
    auto* top = new QHBoxLayout;
    m_status = new QLabel(tr("No profile loaded."), this);
    m_status->setWordWrap(true);
    m_thresholdsButton = new QPushButton(tr("Thresholds…"), this);
    m_thresholdsButton->setToolTip(tr("Re-run the advisor with a thresholds override file "
                                      "(keys of resources/advisor/thresholds.json)"));
    top->addWidget(m_status, 1);
    top->addWidget(m_thresholdsButton);

    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("advisorFindings"));
    m_tree->setHeaderLabels({tr("Finding"), tr("Severity"), tr("Gain")});
    m_tree->setRootIsDecorated(true);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setStretchLastSection(false);

    m_details = new QTextBrowser(this);
    m_details->setObjectName(QStringLiteral("advisorDetails"));
    m_details->setOpenLinks(false);

    m_evidence = new QTableWidget(this);
    m_evidence->setObjectName(QStringLiteral("advisorEvidence"));
    m_evidence->setColumnCount(3);
    m_evidence->setHorizontalHeaderLabels({tr("Where"), tr("Metrics"), tr("Threshold")});
    // Where and Threshold fit their text; Metrics takes the rest (its full text is the tooltip).
    m_evidence->horizontalHeader()->setStretchLastSection(false);
    m_evidence->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_evidence->setTextElideMode(Qt::ElideRight);
    m_evidence->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_evidence->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_evidence->verticalHeader()->hide();
    m_evidence->setToolTip(tr("Click a row to show it on the timeline or in the operator ranking"));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tree);
    split->addWidget(m_details);
    split->addWidget(m_evidence);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setStretchFactor(2, 2);

    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(2, 2, 2, 2);
    lay->addLayout(top);
    lay->addWidget(split, 1);

    connect(m_sel, &SelectionController::sessionChanged, this, &AdvisorPanel::onSessionChanged);
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &AdvisorPanel::onFinished);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (!item || !m_report || !item->data(0, kFindingRole).isValid()) {
            showFinding(nullptr);
            return;
        }
        const int i = item->data(0, kFindingRole).toInt();
        showFinding(i >= 0 && i < int(m_report->findings.size()) ? &m_report->findings[i] : nullptr);
    });
    // One click reveals a row (as a link would); Enter on the keyboard does too.
    connect(m_evidence, &QTableWidget::cellClicked, this, [this](int row, int) { activateEvidence(row); });
    connect(m_evidence, &QTableWidget::activated, this, [this](const QModelIndex& i) { activateEvidence(i.row()); });
    connect(m_thresholdsButton, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Advisor thresholds override"), m_overrideFile,
                                                       tr("JSON (*.json);;All files (*)"));
        if (!f.isEmpty()) {
            setOverrideFile(f);
            AppSettings::setAdvisorOverrideFile(f); // the same setting as Preferences → Advisor
            rerun();
        }
    });
}

AdvisorPanel::~AdvisorPanel()
{
    if (m_cancel)
        m_cancel->store(true);
    m_watcher.waitForFinished();
}

void AdvisorPanel::setOverrideFile(const QString& path)
{
    m_overrideFile = path;
}

void AdvisorPanel::onSessionChanged()
{
    m_report.reset();
    m_reportSession.reset();
    m_current = nullptr;
    m_tree->clear();
    showFinding(nullptr);
    rerun();
}

void AdvisorPanel::rerun()
{
    SessionPtr session = m_sel->session();
    if (m_cancel)
        m_cancel->store(true); // a newer run wins over an older one
    if (!session || session->empty()) {
        m_status->setText(tr("No profile loaded."));
        return;
    }
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_runSession = session;
    auto cancel = m_cancel;
    const std::string overrideFile = m_overrideFile.toStdString();
    m_status->setText(tr("Running the advisor…"));
    m_watcher.setFuture(QtConcurrent::run([session, cancel, overrideFile]() {
        advisor::ThresholdsOptions o;
        o.overrideFile = overrideFile;
        const advisor::Thresholds t = advisor::Thresholds::load(o);
        return std::make_shared<advisor::AdvisorReport>(advisor::adviseSession(*session, t, cancel.get()));
    }));
}

std::shared_ptr<const advisor::AdvisorReport> AdvisorPanel::reportFor(const SessionPtr& session, const advisor::Thresholds& t) const
{
    if (!m_report || !session || m_reportSession.lock() != session || m_report->thresholdsDigest != t.effective().dump())
        return nullptr;
    return m_report;
}

void AdvisorPanel::onFinished()
{
    auto r = m_watcher.result();
    if (!r || r->cancelled)
        return;
    m_report = r;
    m_reportSession = m_runSession;
    const auto& s = r->summary;
    m_status->setText(tr("%1: %2 high, %3 medium, %4 low · %5 not checked · %6 passed · step %7")
                          .arg(s.fired == 1 ? tr("1 finding") : tr("%1 findings").arg(s.fired))
                          .arg(s.high)
                          .arg(s.medium)
                          .arg(s.low)
                          .arg(s.notChecked)
                          .arg(s.passed)
                          .arg(s.T > 0 ? qs(advisor::fmtMs(s.T)) : QStringLiteral("–")));
    if (!r->warnings.empty())
        m_status->setToolTip(qs(r->warnings.front()));
    fillTree();
    emit reportReady();
}

void AdvisorPanel::fillTree()
{
    m_tree->clear();
    m_current = nullptr;
    if (!m_report)
        return;
    std::map<advisor::Category, QTreeWidgetItem*> groups;
    QTreeWidgetItem* minor = nullptr; // below min_share: collapsed
    QTreeWidgetItem* notChecked = nullptr;
    QTreeWidgetItem* passed = nullptr;
    QTreeWidgetItem* other = nullptr;
    QTreeWidgetItem* first = nullptr;
    addPlanGroup(m_tree, *m_report);
    // Findings come sorted: fired (by category, severity, gain), then the other statuses.
    for (int i = 0; i < int(m_report->findings.size()); ++i) {
        const advisor::Finding& f = m_report->findings[i];
        QTreeWidgetItem* parent = nullptr;
        if (f.status == advisor::Status::Fired && f.minor) {
            if (!minor)
                minor = new QTreeWidgetItem({tr("Minor (below min_share)")});
            parent = minor;
        } else if (f.status == advisor::Status::Fired) {
            auto& g = groups[f.category];
            if (!g) {
                g = new QTreeWidgetItem(m_tree, {categoryTitle(f.category)});
                g->setFirstColumnSpanned(true);
                g->setExpanded(true);
            }
            parent = g;
        } else if (f.status == advisor::Status::NotChecked) {
            if (!notChecked)
                notChecked = new QTreeWidgetItem({tr("Not checked")});
            parent = notChecked;
        } else if (f.status == advisor::Status::Passed) {
            if (!passed)
                passed = new QTreeWidgetItem({tr("Passed")});
            parent = passed;
        } else {
            if (!other)
                other = new QTreeWidgetItem({tr("Disabled / errors")});
            parent = other;
        }
        QString label;
        if (f.status == advisor::Status::Fired)
            label = qs(f.title);
        else if (f.status == advisor::Status::NotChecked)
            label = qs(f.rule) + QStringLiteral(": ") + qs(f.needs);
        else if (f.status == advisor::Status::Passed)
            label = qs(f.rule) + (f.check.empty() ? QString() : QStringLiteral(": ") + qs(f.check));
        else
            label = qs(f.rule) + QStringLiteral(" (") + qs(advisor::statusName(f.status)) + QStringLiteral(")");
        auto* item = new QTreeWidgetItem(parent);
        item->setText(0, label);
        item->setToolTip(0, label);
        item->setData(0, kFindingRole, i);
        if (f.status == advisor::Status::Fired) {
            const QString sev = qs(advisor::severityName(f.severity));
            item->setText(1, QStringLiteral("● ") + sev);
            item->setForeground(1, severityColor(f.severity));
            item->setText(2, f.gain.estimated ? qs(advisor::fmtMs(f.gain.nsPerStep)) : tr("n/e"));
            item->setToolTip(2, qs(f.gain.text()));
            if (!first)
                first = item;
        }
    }
    for (auto* section : {minor, notChecked, passed, other}) {
        if (!section)
            continue;
        section->setText(0, section->text(0) + QStringLiteral(" (%1)").arg(section->childCount()));
        m_tree->addTopLevelItem(section);
        section->setExpanded(false);
    }
    if (!first)
        m_tree->insertTopLevelItem(0, new QTreeWidgetItem({m_report && m_report->summary.passed == 0
                                                               ? tr("No findings: no rule could be checked (see Not checked).")
                                                               : tr("No findings: nothing crossed a threshold.")}));
    else {
        // The plan's first action when there is a plan (the list opens at its top), else the
        // first finding.
        QTreeWidgetItem* plan = m_report && !m_report->plan.empty() ? m_tree->topLevelItem(0) : nullptr;
        m_tree->setCurrentItem(plan && plan->childCount() ? plan->child(0) : first);
        m_tree->scrollToTop();
    }
    m_tree->resizeColumnToContents(1);
}

void AdvisorPanel::showFinding(const advisor::Finding* f)
{
    m_current = f;
    m_evidence->setRowCount(0);
    if (!f) {
        m_details->clear();
        return;
    }
    QString html;
    html += QStringLiteral("<h3>%1</h3>").arg(qs(f->title.empty() ? f->rule : f->title).toHtmlEscaped());
    html += QStringLiteral("<p><b>%1</b> · %2 · %3</p>")
                .arg(qs(f->id).toHtmlEscaped(), qs(advisor::statusName(f->status)),
                     f->status == advisor::Status::Fired
                         ? QStringLiteral("<span style='color:%1'>%2</span>")
                               .arg(severityColor(f->severity).name(), qs(advisor::severityName(f->severity)))
                         : QString());
    if (!f->description.empty())
        html += QStringLiteral("<p>%1</p>").arg(qs(f->description).toHtmlEscaped());
    if (!f->needs.empty())
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Needs:"), qs(f->needs).toHtmlEscaped());
    if (!f->check.empty())
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Checked:"), qs(f->check).toHtmlEscaped());
    if (!f->suggestions.empty()) {
        html += QStringLiteral("<p><b>%1</b></p><ol>").arg(tr("Suggestions"));
        for (const auto& s : f->suggestions)
            html += QStringLiteral("<li>%1</li>").arg(qs(s).toHtmlEscaped());
        html += QStringLiteral("</ol>");
    }
    if (f->status == advisor::Status::Fired)
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Expected gain:"), qs(f->gain.text()).toHtmlEscaped());
    if (f->planItem >= 0)
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Action plan:"), tr("action %1").arg(f->planItem + 1));
    const std::string scope = f->scope.text();
    if (!scope.empty())
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Scope:"), qs(scope).toHtmlEscaped());
    if (!f->inputs.empty()) {
        html += QStringLiteral("<p><b>%1</b></p><ul>").arg(tr("Inputs"));
        for (const auto& s : f->inputs)
            html += QStringLiteral("<li>%1</li>").arg(qs(s).toHtmlEscaped());
        html += QStringLiteral("</ul>");
    }
    m_details->setHtml(html);

    m_evidence->setRowCount(int(f->evidence.size()));
    for (int r = 0; r < int(f->evidence.size()); ++r) {
        const advisor::Evidence& e = f->evidence[r];
        QStringList metrics;
        for (const auto& m : e.metrics)
            metrics << QStringLiteral("%1 %2%3").arg(qs(m.name)).arg(m.value, 0, 'g', 4).arg(qs(m.unit));
        m_evidence->setItem(r, 0, new QTableWidgetItem(qs(e.at.text(m_sel->fullRange().begin))));
        m_evidence->setItem(r, 1, new QTableWidgetItem(metrics.join(QStringLiteral(", "))));
        m_evidence->setItem(r, 2, new QTableWidgetItem(qs(e.threshold)));
        m_evidence->item(r, 0)->setToolTip(qs(e.at.url()));
        m_evidence->item(r, 1)->setToolTip(metrics.join(QLatin1Char('\n')));
    }
    // Where and Threshold as wide as their text, each at most 2/5 of the table, so that a long
    // location never squeezes the metrics out (nor the metrics the location).
    const int cap = std::max(80, m_evidence->viewport()->width() * 2 / 5);
    for (int c : {0, 2}) {
        m_evidence->resizeColumnToContents(c);
        m_evidence->setColumnWidth(c, std::min(m_evidence->columnWidth(c), cap));
    }
}

QStringList AdvisorPanel::firedTitles() const
{
    QStringList out;
    if (m_report)
        for (const auto& f : m_report->findings)
            if (f.status == advisor::Status::Fired)
                out << qs(f.title);
    return out;
}

bool AdvisorPanel::selectFinding(const QString& id)
{
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it) {
        const QVariant v = (*it)->data(0, kFindingRole);
        if (v.isValid() && m_report && qs(m_report->findings[v.toInt()].id) == id) {
            m_tree->setCurrentItem(*it);
            return true;
        }
    }
    return false;
}

int AdvisorPanel::evidenceRowCount() const
{
    return m_evidence->rowCount();
}

QString AdvisorPanel::detailsText() const
{
    return m_details->toPlainText();
}

bool AdvisorPanel::activateEvidence(int row)
{
    if (!m_current || row < 0 || row >= int(m_current->evidence.size()))
        return false;
    const advisor::Locator& at = m_current->evidence[row].at;
    const SessionPtr s = m_sel->session();
    if (!s)
        return false;
    int rankIndex = -1;
    for (int i = 0; i < int(s->ranks.size()); ++i)
        if (s->ranks[i]->rank == at.rank)
            rankIndex = i;
    if (at.ts) {
        // Jump to the event: zoomed to it with 10 % on each side, and its range selected.
        const TimeNs dur = std::max<TimeNs>(at.dur.value_or(0), 1000);
        const TimeRange r{*at.ts, *at.ts + dur};
        if (rankIndex >= 0 && s->ranks.size() > 1)
            m_sel->setCurrentRank(rankIndex);
        const TimeNs margin = std::max<TimeNs>(dur / 10, 1);
        m_sel->setVisibleRange(TimeRange{r.begin - margin, r.end + margin});
        m_sel->setSelectedRange(r);
        return true;
    }
    if (!at.op.empty()) {
        m_sel->setSelectedOperator(qs(at.op));
        return true;
    }
    if (rankIndex >= 0) {
        m_sel->setCurrentRank(rankIndex);
        return true;
    }
    return false;
}

} // namespace npuscope
