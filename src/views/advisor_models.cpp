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

enum Section { Minor, NotChecked, Passed, Other, SectionCount };

QString sectionTitle(int s)
{
    switch (s) {
    case Minor: return FindingsModel::tr("Minor (below min_share)");
    case NotChecked: return FindingsModel::tr("Not checked");
    case Passed: return FindingsModel::tr("Passed");
    default: return FindingsModel::tr("Disabled / errors");
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
    g.row.kind = RowKind::Plan;
    g.expanded = true;
    for (std::size_t i = 0; i < r.plan.size(); ++i) {
        Row row;
        row.kind = RowKind::Action;
        row.item = static_cast<int>(i);
        for (std::size_t k = 0; k < r.findings.size(); ++k)
            if (r.findings[k].id == r.plan[i].findingId)
                row.finding = static_cast<int>(k);
        g.children.push_back(row);
    }
    m_groups.push_back(std::move(g));
}

// Findings come sorted: fired (by category, severity, gain), then the other statuses. Fired
// findings group by category, open; the other sections follow, closed, with their counts.
void FindingsModel::addFindings()
{
    std::map<advisor::Category, std::size_t> categoryGroup;
    Group sections[SectionCount];
    const auto& findings = m_report->findings;
    for (int i = 0; i < static_cast<int>(findings.size()); ++i) {
        const advisor::Finding& f = findings[static_cast<std::size_t>(i)];
        Row row;
        row.finding = i;
        if (f.status == advisor::Status::Fired && m_firstFired < 0)
            m_firstFired = i;
        Group* parent = nullptr;
        if (f.status == advisor::Status::Fired && f.minor)
            parent = &sections[Minor];
        else if (f.status == advisor::Status::Fired) {
            auto [it, added] = categoryGroup.try_emplace(f.category, m_groups.size());
            if (added) {
                Group g;
                g.row.kind = RowKind::Category;
                g.row.item = static_cast<int>(f.category);
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
        parent->children.push_back(row);
    }
    for (int s = 0; s < SectionCount; ++s) {
        if (sections[s].children.empty())
            continue;
        sections[s].row.kind = RowKind::Section;
        sections[s].row.item = s;
        sections[s].row.count = sections[s].children.size();
        m_groups.push_back(std::move(sections[s]));
    }
    if (m_firstFired < 0 || (categoryGroup.empty() && m_report->plan.empty())) {
        Group none;
        if (m_firstFired >= 0)
            none.row.kind = RowKind::NoneAboveMinShare;
        else
            none.row.kind = m_report->summary.passed == 0 ? RowKind::NothingChecked : RowKind::NothingCrossed;
        none.spanned = true;
        m_groups.insert(m_groups.begin(), std::move(none));
    }
}

QString FindingsModel::label(const Row& r) const
{
    const advisor::AdvisorReport& report = *m_report;
    switch (r.kind) {
    case RowKind::Plan:
        return tr("Plan: step %1 → %2 (estimate)").arg(qstr(advisor::fmtMs(report.T)), qstr(advisor::fmtMs(report.planStepNs)));
    case RowKind::Action:
        return QStringLiteral("%1. %2").arg(r.item + 1).arg(qstr(report.plan[static_cast<std::size_t>(r.item)].action));
    case RowKind::Finding: return findingLabel(report.findings[static_cast<std::size_t>(r.finding)]);
    case RowKind::Category: return categoryTitle(static_cast<advisor::Category>(r.item));
    case RowKind::Section: return QStringLiteral("%1 (%2)").arg(sectionTitle(r.item)).arg(r.count);
    case RowKind::NothingChecked: return tr("No findings: no rule could be checked (see Not checked).");
    case RowKind::NothingCrossed: return tr("No findings: nothing crossed a threshold.");
    case RowKind::NoneAboveMinShare: return tr("No findings above min_share (see Minor).");
    }
    return {};
}

QString FindingsModel::tooltip(const Row& r) const
{
    switch (r.kind) {
    case RowKind::Plan: return qstr(advisor::planFormula(*m_report));
    case RowKind::Action: {
        const advisor::PlanItem& p = m_report->plan[static_cast<std::size_t>(r.item)];
        return label(r) + QStringLiteral("\n") + qstr(p.findingId + ": " + p.title);
    }
    case RowKind::Finding: return label(r);
    default: return {};
    }
}

QString FindingsModel::gain(const Row& r) const
{
    switch (r.kind) {
    case RowKind::Plan: {
        double sum = 0;
        for (const auto& p : m_report->plan)
            sum += p.gain.nsPerStep;
        return qstr(advisor::fmtMs(sum));
    }
    case RowKind::Action: return qstr(advisor::fmtMs(m_report->plan[static_cast<std::size_t>(r.item)].gain.nsPerStep));
    case RowKind::Finding: {
        const advisor::Finding* f = severityOf(r);
        if (!f)
            return {};
        return f->gain.estimated ? qstr(advisor::fmtMs(f->gain.nsPerStep)) : tr("n/e");
    }
    default: return {};
    }
}

QString FindingsModel::gainTooltip(const Row& r) const
{
    if (r.kind == RowKind::Action)
        return qstr(m_report->plan[static_cast<std::size_t>(r.item)].gain.text());
    const advisor::Finding* f = r.kind == RowKind::Finding ? severityOf(r) : nullptr;
    return f ? qstr(f->gain.text()) : QString();
}

const advisor::Finding* FindingsModel::severityOf(const Row& r) const
{
    if ((r.kind != RowKind::Action && r.kind != RowKind::Finding) || r.finding < 0)
        return nullptr;
    const advisor::Finding& f = m_report->findings[static_cast<std::size_t>(r.finding)];
    return r.kind == RowKind::Action || f.status == advisor::Status::Fired ? &f : nullptr;
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

int FindingsModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

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
            return label(*r);
        if (role == Qt::ToolTipRole) {
            const QString tip = tooltip(*r);
            return tip.isEmpty() ? QVariant() : QVariant(tip);
        }
        return {};
    case Severity: {
        const advisor::Finding* f = severityOf(*r);
        if (role == Qt::DisplayRole)
            return f ? QStringLiteral("● ") + qstr(advisor::severityName(f->severity)) : QString();
        if (role == Qt::ForegroundRole && f)
            return severityQColor(f->severity);
        return {};
    }
    case Gain:
        if (role == Qt::DisplayRole)
            return gain(*r);
        if (role == Qt::ToolTipRole) {
            const QString tip = gainTooltip(*r);
            return tip.isEmpty() ? QVariant() : QVariant(tip);
        }
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
    m_evidence = finding ? finding->evidence : std::vector<advisor::Evidence>{};
    m_origin = origin;
    endResetModel();
}

QString EvidenceModel::at(const advisor::Evidence& e) const
{
    QString at;
    if (e.at.ts) {
        at = QStringLiteral("%1 ms").arg(double(*e.at.ts - m_origin) / 1e6, 0, 'f', 3);
        if (e.at.dur)
            at += QStringLiteral(" (%1 µs)").arg(double(*e.at.dur) / 1e3, 0, 'f', 1);
    }
    return at;
}

QString EvidenceModel::where(const advisor::Evidence& e) const
{
    advisor::Locator rest = e.at;
    rest.ts.reset();
    rest.dur.reset();
    return qstr(rest.text());
}

QString EvidenceModel::whereTooltip(const advisor::Evidence& e) const
{
    const QString full = qstr(e.at.text(m_origin));
    const QString url = qstr(e.at.url());
    return url.isEmpty() ? full : full + QLatin1Char('\n') + url;
}

QStringList EvidenceModel::metrics(const advisor::Evidence& e) const
{
    QStringList metrics;
    for (const auto& m : e.metrics)
        metrics << QStringLiteral("%1 %2%3").arg(qstr(m.name)).arg(m.value, 0, 'g', 4).arg(qstr(m.unit));
    return metrics;
}

int EvidenceModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_evidence.size());
}

int EvidenceModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EvidenceModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const advisor::Evidence& e = m_evidence[static_cast<std::size_t>(index.row())];
    if (role == Qt::ToolTipRole) {
        if (index.column() == Where || index.column() == At)
            return whereTooltip(e);
        if (index.column() == Metrics)
            return metrics(e).join(QLatin1Char('\n'));
        if (index.column() == Threshold)
            return qstr(e.threshold);
        return {};
    }
    if (role == Qt::TextAlignmentRole && index.column() == At)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case At: return at(e);
    case Where: return where(e);
    case Metrics: return metrics(e).join(QStringLiteral(", "));
    case Threshold: return qstr(e.threshold);
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
