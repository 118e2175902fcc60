#include "views/advisor_panel.h"
#include "views/advisor_models.h"
#include "views/app_settings.h"
#include "views/format.h"

#include "advisor/cluster_summary_advice.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>
#include <QTimer>
#include <QtConcurrent>

namespace npuscope {

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

    m_findings = new FindingsModel(this);
    m_evidenceRows = new EvidenceModel(this);
    m_tree = new QTreeView(this);
    m_tree->setObjectName(QStringLiteral("advisorFindings"));
    m_tree->setModel(m_findings);
    m_tree->setRootIsDecorated(true);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setStretchLastSection(false);

    m_details = new QTextBrowser(this);
    m_details->setObjectName(QStringLiteral("advisorDetails"));
    m_details->setOpenLinks(false);

    m_evidence = new QTableView(this);
    m_evidence->setObjectName(QStringLiteral("advisorEvidence"));
    m_evidence->setModel(m_evidenceRows);
    // At fits its time, Where and Threshold fit their text up to a cap, Metrics takes the rest;
    // every column can be resized and cut text keeps both ends (the full text is the tooltip).
    m_evidence->horizontalHeader()->setStretchLastSection(false);
    m_evidence->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_evidence->horizontalHeader()->setSectionResizeMode(EvidenceModel::Metrics, QHeaderView::Stretch);
    m_evidence->setTextElideMode(Qt::ElideMiddle);
    m_evidence->setWordWrap(false);
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
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &AdvisorPanel::onCurrentChanged);
    // One click reveals a row (as a link would); Enter on the keyboard does too.
    connect(m_evidence, &QTableView::clicked, this, [this](const QModelIndex& i) { activateEvidence(i.row()); });
    connect(m_evidence, &QTableView::activated, this, [this](const QModelIndex& i) { activateEvidence(i.row()); });
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
    m_findings->setReport(nullptr);
    showFinding(nullptr);
    // On the next turn of the event loop: the window's first frame of the new session is painted
    // before the rules take the cores.
    m_status->setText(tr("Running the advisor…"));
    m_rerunPending = true;
    QTimer::singleShot(0, this, &AdvisorPanel::rerun);
}

void AdvisorPanel::rerun()
{
    m_rerunPending = false;
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
    // The parts add up to the total: the minor group is counted apart from the low ones.
    m_status->setText(tr("%1: %2 high, %3 medium, %4 low, %5 minor · %6 not checked · %7 passed · step %8")
                          .arg(s.fired == 1 ? tr("1 finding") : tr("%1 findings").arg(s.fired))
                          .arg(s.high)
                          .arg(s.medium)
                          .arg(s.low)
                          .arg(s.minor)
                          .arg(s.notChecked)
                          .arg(s.passed)
                          .arg(s.T > 0 ? qstr(advisor::fmtMs(s.T)) : QStringLiteral("–")));
    if (!r->warnings.empty())
        m_status->setToolTip(qstr(r->warnings.front()));
    fillTree();
    emit reportReady();
}

void AdvisorPanel::fillTree()
{
    m_current = nullptr;
    m_findings->setReport(m_report);
    for (int g = 0; g < m_findings->rowCount(); ++g) {
        const QModelIndex group = m_findings->index(g, 0);
        m_tree->setFirstColumnSpanned(g, {}, group.data(FindingsModel::SpannedRole).toBool());
        m_tree->setExpanded(group, group.data(FindingsModel::ExpandedRole).toBool());
    }
    const QModelIndex initial = m_findings->initialIndex();
    if (initial.isValid()) {
        m_tree->setCurrentIndex(initial);
        m_tree->scrollToTop();
    } else
        showFinding(nullptr);
    m_tree->resizeColumnToContents(FindingsModel::Severity);
}

void AdvisorPanel::onCurrentChanged(const QModelIndex& current)
{
    const int i = current.isValid() ? current.data(FindingsModel::FindingIndexRole).toInt() : -1;
    showFinding(m_report && i >= 0 && i < int(m_report->findings.size()) ? &m_report->findings[static_cast<std::size_t>(i)] : nullptr);
}

void AdvisorPanel::showFinding(const advisor::Finding* f)
{
    m_current = f;
    m_evidenceRows->setFinding(f, m_sel->fullRange().begin);
    if (!f) {
        m_details->clear();
        return;
    }
    QString html;
    html += QStringLiteral("<h3>%1</h3>").arg(qstr(f->title.empty() ? f->rule : f->title).toHtmlEscaped());
    html += QStringLiteral("<p><b>%1</b> · %2 · %3</p>")
                .arg(qstr(f->id).toHtmlEscaped(), qstr(advisor::statusName(f->status)),
                     f->status == advisor::Status::Fired
                         ? QStringLiteral("<span style='color:%1'>%2</span>")
                               .arg(QLatin1String(advisor::severityColour(f->severity)), qstr(advisor::severityName(f->severity)))
                         : QString());
    if (!f->description.empty())
        html += QStringLiteral("<p>%1</p>").arg(qstr(f->description).toHtmlEscaped());
    if (!f->needs.empty())
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Needs:"), qstr(f->needs).toHtmlEscaped());
    if (!f->check.empty())
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Checked:"), qstr(f->check).toHtmlEscaped());
    if (!f->suggestions.empty()) {
        html += QStringLiteral("<p><b>%1</b></p><ol>").arg(tr("Suggestions"));
        for (const auto& s : f->suggestions)
            html += QStringLiteral("<li>%1</li>").arg(qstr(s).toHtmlEscaped());
        html += QStringLiteral("</ol>");
    }
    if (f->status == advisor::Status::Fired)
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Expected gain:"), qstr(f->gain.text()).toHtmlEscaped());
    if (f->planItem >= 0)
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Action plan:"), tr("action %1").arg(f->planItem + 1));
    const std::string scope = f->scope.text();
    if (!scope.empty())
        html += QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Scope:"), qstr(scope).toHtmlEscaped());
    if (!f->inputs.empty()) {
        html += QStringLiteral("<p><b>%1</b></p><ul>").arg(tr("Inputs"));
        for (const auto& s : f->inputs)
            html += QStringLiteral("<li>%1</li>").arg(qstr(s).toHtmlEscaped());
        html += QStringLiteral("</ul>");
    }
    m_details->setHtml(html);

    // Where and Threshold as wide as their text, each at most 2/5 of the table, so that a long
    // location never squeezes the metrics out (nor the metrics the location).
    const int cap = std::max(80, m_evidence->viewport()->width() * 2 / 5);
    m_evidence->resizeColumnToContents(EvidenceModel::At);
    for (int c : {int(EvidenceModel::Where), int(EvidenceModel::Threshold)}) {
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
                out << qstr(f.title);
    return out;
}

bool AdvisorPanel::selectFinding(const QString& id)
{
    if (!m_report)
        return false;
    for (std::size_t i = 0; i < m_report->findings.size(); ++i)
        if (qstr(m_report->findings[i].id) == id) {
            const QModelIndex at = m_findings->indexOfFinding(static_cast<int>(i));
            if (!at.isValid())
                return false;
            m_tree->setCurrentIndex(at);
            return true;
        }
    return false;
}

int AdvisorPanel::evidenceRowCount() const
{
    return m_evidenceRows->rowCount();
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
        m_sel->revealRange(rankIndex, r); // in the rank's time as drawn
        return true;
    }
    if (!at.op.empty()) {
        m_sel->setSelectedOperator(qstr(at.op));
        return true;
    }
    if (rankIndex >= 0) {
        m_sel->setCurrentRank(rankIndex);
        return true;
    }
    return false;
}

} // namespace npuscope
