#include "views/advisor_models.h"
#include "views/format.h"

#include "advisor/cluster_summary_advice.h"

#include <QStringList>

#include <map>

namespace npuscope {

namespace {

// The reports' severity colours; the text label is always shown too.
QColor severityQColor(advisor::FindingSeverity s)
{
    return QColor(QLatin1String(advisor::severityColour(s)));
}

QString categoryTitle(advisor::Category c)
{
    switch (c) {
    case advisor::Category::Computation: return FindingsModel::tr("Computation");
    case advisor::Category::Communication: return FindingsModel::tr("Communication");
    case advisor::Category::Scheduling: return FindingsModel::tr("Scheduling (host)");
    case advisor::Category::Memory: return FindingsModel::tr("Memory");
    case advisor::Category::Cluster: return FindingsModel::tr("Cluster");
    }
    return {};
}

// A finding's label in its section: the title when fired, else what it needed or checked.
QString findingLabel(const advisor::Finding& f)
{
    switch (f.status) {
    case advisor::Status::Fired: return qstr(f.title);
    case advisor::Status::NotChecked: return qstr(f.rule) + QStringLiteral(": ") + qstr(f.needs);
    case advisor::Status::Passed: return qstr(f.rule) + (f.check.empty() ? QString() : QStringLiteral(": ") + qstr(f.check));
    default: return qstr(f.rule) + QStringLiteral(" (") + qstr(advisor::statusName(f.status)) + QStringLiteral(")");
    }
}

} // namespace

FindingsModel::FindingsModel(QObject* parent) : QAbstractItemModel(parent) {}

void FindingsModel::setReport(std::shared_ptr<const advisor::AdvisorReport> report)
{
    beginResetModel();
    m_report = std::move(report);
    m_groups.clear();
    m_firstFired = -1;
    if (m_report) {
        addPlan();
        addFindings();
    }
    endResetModel();
}

// The action plan as the first group: one row per action (selecting it shows its finding), and
// the estimated step after the plan in the group's tooltip.
void FindingsModel::addPlan()
{
    const advisor::AdvisorReport& r = *m_report;
    if (r.plan.empty())
        return;
    Group g;
    double sum = 0;
    for (const auto& p : r.plan)
        sum += p.gain.nsPerStep;
    g.row.label = tr("Plan: step %1 → %2 (estimate)").arg(qstr(advisor::fmtMs(r.T)), qstr(advisor::fmtMs(r.planStepNs)));
    g.row.tooltip = qstr(advisor::planFormula(r));
    g.row.gain = qstr(advisor::fmtMs(sum));
    g.expanded = true;
    for (std::size_t i = 0; i < r.plan.size(); ++i) {
        const advisor::PlanItem& p = r.plan[i];
        Row row;
        row.label = QStringLiteral("%1. %2").arg(i + 1).arg(qstr(p.action));
        row.tooltip = row.label + QStringLiteral("\n") + qstr(p.findingId + ": " + p.title);
        row.gain = qstr(advisor::fmtMs(p.gain.nsPerStep));
        row.gainTooltip = qstr(p.gain.text());
        for (std::size_t k = 0; k < r.findings.size(); ++k)
            if (r.findings[k].id == p.findingId) {
                row.finding = static_cast<int>(k);
                row.severity = QStringLiteral("● ") + qstr(advisor::severityName(r.findings[k].severity));
                row.severityColour = severityQColor(r.findings[k].severity);
            }
        g.children.push_back(std::move(row));
    }
    m_groups.push_back(std::move(g));
}

// Findings come sorted: fired (by category, severity, gain), then the other statuses. Fired
// findings group by category, open; the other sections follow, closed, with their counts.
void FindingsModel::addFindings()
{
    enum Section { Minor, NotChecked, Passed, Other, SectionCount };
    const QString sectionTitle[SectionCount] = {tr("Minor (below min_share)"), tr("Not checked"), tr("Passed"),
                                                tr("Disabled / errors")};
    std::map<advisor::Category, std::size_t> categoryGroup;
    Group sections[SectionCount];
    const auto& findings = m_report->findings;
    for (int i = 0; i < static_cast<int>(findings.size()); ++i) {
        const advisor::Finding& f = findings[static_cast<std::size_t>(i)];
        Row row;
        row.label = row.tooltip = findingLabel(f);
        row.finding = i;
        if (f.status == advisor::Status::Fired) {
            row.severity = QStringLiteral("● ") + qstr(advisor::severityName(f.severity));
            row.severityColour = severityQColor(f.severity);
            row.gain = f.gain.estimated ? qstr(advisor::fmtMs(f.gain.nsPerStep)) : tr("n/e");
            row.gainTooltip = qstr(f.gain.text());
            if (m_firstFired < 0)
                m_firstFired = i;
        }
        Group* parent = nullptr;
        if (f.status == advisor::Status::Fired && f.minor)
            parent = &sections[Minor];
        else if (f.status == advisor::Status::Fired) {
            auto [it, added] = categoryGroup.try_emplace(f.category, m_groups.size());
            if (added) {
                Group g;
                g.row.label = categoryTitle(f.category);
                g.expanded = g.spanned = true;
                m_groups.push_back(std::move(g));
            }
            parent = &m_groups[it->second];
        } else if (f.status == advisor::Status::NotChecked)
            parent = &sections[NotChecked];
        else if (f.status == advisor::Status::Passed)
            parent = &sections[Passed];
        else
            parent = &sections[Other];
        parent->children.push_back(std::move(row));
    }
    for (int s = 0; s < SectionCount; ++s) {
        if (sections[s].children.empty())
            continue;
        sections[s].row.label = QStringLiteral("%1 (%2)").arg(sectionTitle[s]).arg(sections[s].children.size());
        m_groups.push_back(std::move(sections[s]));
    }
    if (m_firstFired < 0) {
        Group none;
        none.row.label = m_report->summary.passed == 0 ? tr("No findings: no rule could be checked (see Not checked).")
                                                       : tr("No findings: nothing crossed a threshold.");
        none.spanned = true;
        m_groups.insert(m_groups.begin(), std::move(none));
    } else if (categoryGroup.empty() && m_report->plan.empty()) {
        Group none;
        none.row.label = tr("No findings above min_share (see Minor).");
        none.spanned = true;
        m_groups.insert(m_groups.begin(), std::move(none));
    }
}

QModelIndex FindingsModel::indexOfFinding(int finding) const
{
    for (std::size_t g = 0; g < m_groups.size(); ++g)
        for (std::size_t r = 0; r < m_groups[g].children.size(); ++r)
            if (m_groups[g].children[r].finding == finding)
                return index(static_cast<int>(r), 0, index(static_cast<int>(g), 0));
    return {};
}

QModelIndex FindingsModel::initialIndex() const
{
    if (m_report && !m_report->plan.empty())
        return index(0, 0, index(0, 0)); // the plan is the first group
    return m_firstFired < 0 ? QModelIndex() : indexOfFinding(m_firstFired);
}

// A group row's internal id is 0; a finding row's is its group's row + 1.
QModelIndex FindingsModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, quintptr(0));
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex FindingsModel::parent(const QModelIndex& child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int FindingsModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_groups.size());
    if (parent.column() != 0 || parent.internalId() != 0)
        return 0;
    return static_cast<int>(m_groups[static_cast<std::size_t>(parent.row())].children.size());
}

int FindingsModel::columnCount(const QModelIndex&) const { return ColumnCount; }

const FindingsModel::Row* FindingsModel::rowAt(const QModelIndex& index) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return nullptr;
    if (index.internalId() == 0)
        return &m_groups[static_cast<std::size_t>(index.row())].row;
    return &m_groups[index.internalId() - 1].children[static_cast<std::size_t>(index.row())];
}

QVariant FindingsModel::data(const QModelIndex& index, int role) const
{
    const Row* r = rowAt(index);
    if (!r)
        return {};
    const bool group = index.internalId() == 0;
    switch (role) {
    case FindingIndexRole: return r->finding;
    case ExpandedRole: return group && m_groups[static_cast<std::size_t>(index.row())].expanded;
    case SpannedRole: return group && m_groups[static_cast<std::size_t>(index.row())].spanned;
    default: break;
    }
    switch (index.column()) {
    case Finding:
        if (role == Qt::DisplayRole)
            return r->label;
        if (role == Qt::ToolTipRole && !r->tooltip.isEmpty())
            return r->tooltip;
        return {};
    case Severity:
        if (role == Qt::DisplayRole)
            return r->severity;
        if (role == Qt::ForegroundRole && r->severityColour.isValid())
            return r->severityColour;
        return {};
    case Gain:
        if (role == Qt::DisplayRole)
            return r->gain;
        if (role == Qt::ToolTipRole && !r->gainTooltip.isEmpty())
            return r->gainTooltip;
        return {};
    default: return {};
    }
}

QVariant FindingsModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Finding: return tr("Finding");
    case Severity: return tr("Severity");
    case Gain: return tr("Gain");
    default: return {};
    }
}

EvidenceModel::EvidenceModel(QObject* parent) : QAbstractTableModel(parent) {}

void EvidenceModel::setFinding(const advisor::Finding* finding, TimeNs origin)
{
    beginResetModel();
    m_rows.clear();
    if (finding)
        for (const advisor::Evidence& e : finding->evidence) {
            QStringList metrics;
            for (const auto& m : e.metrics)
                metrics << QStringLiteral("%1 %2%3").arg(qstr(m.name)).arg(m.value, 0, 'g', 4).arg(qstr(m.unit));
            QString at;
            if (e.at.ts) {
                at = QStringLiteral("%1 ms").arg(double(*e.at.ts - origin) / 1e6, 0, 'f', 3);
                if (e.at.dur)
                    at += QStringLiteral(" (%1 µs)").arg(double(*e.at.dur) / 1e3, 0, 'f', 1);
            }
            advisor::Locator rest = e.at;
            rest.ts.reset();
            rest.dur.reset();
            const QString where = qstr(rest.text());
            const QString full = qstr(e.at.text(origin));
            const QString url = qstr(e.at.url());
            m_rows.push_back({at, where, url.isEmpty() ? full : full + QLatin1Char('\n') + url,
                              metrics.join(QStringLiteral(", ")), metrics.join(QLatin1Char('\n')), qstr(e.threshold)});
        }
    endResetModel();
}

int EvidenceModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }

int EvidenceModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EvidenceModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& r = m_rows[static_cast<std::size_t>(index.row())];
    if (role == Qt::ToolTipRole) {
        if (index.column() == Where || index.column() == At)
            return r.whereTooltip;
        if (index.column() == Metrics)
            return r.metricsTooltip;
        if (index.column() == Threshold)
            return r.threshold;
        return {};
    }
    if (role == Qt::TextAlignmentRole && index.column() == At)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case At: return r.at;
    case Where: return r.where;
    case Metrics: return r.metrics;
    case Threshold: return r.threshold;
    default: return {};
    }
}

QVariant EvidenceModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case At: return tr("At");
    case Where: return tr("Where");
    case Metrics: return tr("Metrics");
    case Threshold: return tr("Threshold");
    default: return {};
    }
}

} // namespace npuscope
