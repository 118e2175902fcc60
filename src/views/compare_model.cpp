#include "views/compare_model.h"

#include "model/analysis/compare_report.h"
#include "views/format.h"

#include <QApplication>
#include <QFont>
#include <QPalette>

#include <algorithm>
#include <cmath>

namespace npuscope {

namespace {

bool darkPalette() { return QApplication::palette().color(QPalette::Base).lightness() < 128; }

// A value in the row's unit, as the summary strip shows it.
QString headlineValue(const HeadlineRow& h, double v, bool signedValue = false)
{
    if (std::isnan(v))
        return fmt::missing();
    const QString sign = signedValue ? (v > 0 ? QStringLiteral("+") : v < 0 ? QStringLiteral("−") : QString()) : QString();
    const double a = signedValue ? std::fabs(v) : v;
    if (h.unit == "ms")
        return sign + fmt::duration(a * 1e6);
    if (h.unit == "%")
        return sign + QString::number(a, 'f', 1) + QStringLiteral(" %");
    if (h.unit == "GB/s")
        return sign + fmt::bandwidth(a);
    return sign + fmt::number(a) + QLatin1Char(' ') + qstr(h.unit);
}

QString ratioText(double r) { return std::isnan(r) ? fmt::missing() : QString::number(r, 'f', 3) + QStringLiteral("×"); }

Change changeOf(const std::string& verdict)
{
    return verdict == "improved" ? Change::Improved : verdict == "regressed" ? Change::Regressed : Change::Same;
}

OperatorDiffModel::Presence presence(const OpDiffRow& d)
{
    using P = OperatorDiffModel::Presence;
    return d.inBaseline && d.inCurrent ? P::Both : d.inBaseline ? P::BaselineOnly : P::OptimizedOnly;
}

} // namespace

QColor changeColour(Change c)
{
    const bool dark = darkPalette();
    switch (c) {
    case Change::Improved:
        return dark ? QColor(0x56, 0xd3, 0x64) : QColor(0x1a, 0x7f, 0x37);
    case Change::Regressed:
        return dark ? QColor(0xff, 0x7b, 0x72) : QColor(0xcf, 0x22, 0x2e);
    case Change::Same:
        break;
    }
    return {};
}

// ---- headline --------------------------------------------------------------------------------

CompareHeadlineModel::CompareHeadlineModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompareHeadlineModel::setRows(std::vector<HeadlineRow> rows, double sameWithin)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_sameWithin = sameWithin;
    endResetModel();
}

int CompareHeadlineModel::rowForMetric(const QString& metric) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (qstr(m_rows[i].metric) == metric)
            return static_cast<int>(i);
    return -1;
}

int CompareHeadlineModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CompareHeadlineModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareHeadlineModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const HeadlineRow& h = m_rows[static_cast<std::size_t>(index.row())];
    const Change change = changeOf(headlineVerdict(h, m_sameWithin));
    const bool lower = h.better == Better::Lower;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Metric: return qstr(h.metric);
        case Baseline: return headlineValue(h, h.baseline);
        case Optimized: return headlineValue(h, h.current);
        case Delta: return headlineValue(h, h.delta, true);
        case Ratio: return ratioText(h.ratio);
        case Better: return lower ? tr("lower is better") : tr("higher is better");
        case Verdict: {
            const std::string v = headlineVerdict(h, m_sameWithin);
            return v.empty() ? fmt::missing() : tr(v.c_str());
        }
        }
        return {};
    case SortRole:
    case RawValueRole:
        switch (index.column()) {
        case Metric: return qstr(h.metric);
        case Baseline: return h.baseline;
        case Optimized: return h.current;
        case Delta: return h.delta;
        case Ratio: return h.ratio;
        case Better: return lower ? QStringLiteral("lower") : QStringLiteral("higher");
        case Verdict: return static_cast<int>(change);
        }
        return {};
    case ChangeRole:
        return static_cast<int>(change);
    case Qt::ForegroundRole:
        if (index.column() == Delta || index.column() == Ratio || index.column() == Verdict) {
            const QColor c = changeColour(change);
            if (c.isValid())
                return c;
        }
        return {};
    case Qt::FontRole:
        if (index.column() == Verdict || (index.column() == Ratio && h.metric == "Throughput")) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == Metric || index.column() == Better || index.column() == Verdict
                   ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        switch (index.column()) {
        case Delta: return tr("optimized − baseline");
        case Ratio:
            return h.metric == "Throughput" ? tr("optimized / baseline; for throughput this is the speedup")
                                            : tr("optimized / baseline");
        case Better:
            return lower ? tr("A lower %1 is better").arg(qstr(h.metric)) : tr("A higher %1 is better").arg(qstr(h.metric));
        default:
            if (h.metric == "Step time")
                return tr("Mean step time; with several ranks, the slowest rank's");
            return {};
        }
    }
    return {};
}

QVariant CompareHeadlineModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    switch (section) {
    case Metric: return tr("Metric");
    case Baseline: return tr("Baseline");
    case Optimized: return tr("Optimized");
    case Delta: return tr("Δ");
    case Ratio: return tr("Ratio");
    case Better: return tr("Better");
    case Verdict: return tr("Verdict");
    }
    return {};
}

// ---- operators -------------------------------------------------------------------------------

OperatorDiffModel::OperatorDiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void OperatorDiffModel::setRows(std::vector<OpDiffRow> rows, double sameWithin)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_sameWithin = sameWithin;
    endResetModel();
}

void OperatorDiffModel::setOpTimes(OpTimes t)
{
    if (t == m_times)
        return;
    beginResetModel(); // every time column and the headers change; a sorting proxy sorts again
    m_times = t;
    endResetModel();
}

int OperatorDiffModel::rowForKey(const QString& key) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (qstr(m_rows[i].key) == key)
            return static_cast<int>(i);
    return -1;
}

int OperatorDiffModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int OperatorDiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant OperatorDiffModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const OpDiffRow& d = m_rows[static_cast<std::size_t>(index.row())];
    const Presence p = presence(d);
    const int col = index.column();
    const bool perStep = m_times == OpTimes::PerStep && d.perStepKnown();
    const std::string verdict = opVerdict(d, m_sameWithin);
    const Change change = changeOf(verdict);
    auto raw = [&]() -> QVariant {
        switch (col) {
        case Name: return qstr(d.key);
        case Present: return static_cast<int>(p);
        case BaselineCount: return perStep ? QVariant(d.baselineCountPerStep) : QVariant(static_cast<qulonglong>(d.baselineCount));
        case OptimizedCount: return perStep ? QVariant(d.currentCountPerStep) : QVariant(static_cast<qulonglong>(d.currentCount));
        case BaselineTotal: return perStep ? QVariant(d.baselineNsPerStep) : QVariant(static_cast<qlonglong>(d.baselineTotal));
        case OptimizedTotal: return perStep ? QVariant(d.currentNsPerStep) : QVariant(static_cast<qlonglong>(d.currentTotal));
        case Delta: return perStep ? QVariant(d.deltaPerStep()) : QVariant(static_cast<qlonglong>(d.delta));
        case Ratio: return d.ratioOf(m_times);
        case BaselineAvg: return d.baselineAvgNs;
        case OptimizedAvg: return d.currentAvgNs;
        case Verdict: return qstr(verdict);
        }
        return {};
    };
    auto countText = [perStep](bool in, std::uint64_t n, double perStepN) {
        return !in ? fmt::missing() : perStep ? QString::number(perStepN, 'f', 1) : fmt::count(n);
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case Name: return qstr(d.key);
        case Present:
            return p == Presence::Both ? tr("both") : p == Presence::BaselineOnly ? tr("baseline only") : tr("optimized only");
        case BaselineCount: return countText(d.inBaseline, d.baselineCount, d.baselineCountPerStep);
        case OptimizedCount: return countText(d.inCurrent, d.currentCount, d.currentCountPerStep);
        case BaselineTotal: return d.inBaseline ? fmt::duration(d.baselineNs(m_times)) : fmt::missing();
        case OptimizedTotal: return d.inCurrent ? fmt::duration(d.currentNs(m_times)) : fmt::missing();
        case Delta: return fmt::signedDuration(std::llround(d.deltaNs(m_times)));
        case Ratio: return p == Presence::Both ? ratioText(d.ratioOf(m_times)) : fmt::missing(); // the In column says which side
        case BaselineAvg: return fmt::duration(d.baselineAvgNs);
        case OptimizedAvg: return fmt::duration(d.currentAvgNs);
        case Verdict: return tr(verdict.c_str());
        }
        return {};
    case SortRole:
        if (col == Delta)
            return std::abs(d.deltaNs(m_times));
        if (col == Present)
            return p == Presence::Both ? 0 : p == Presence::BaselineOnly ? 1 : 2;
        if (col == Verdict)
            return static_cast<int>(change);
        return raw();
    case RawValueRole:
        return raw();
    case KeyRole:
        return qstr(d.key);
    case PresenceRole:
        return static_cast<int>(p);
    case ChangeRole:
        return static_cast<int>(change);
    case Qt::ForegroundRole:
        if (col == Delta || col == Ratio || col == Verdict) {
            const QColor c = changeColour(change);
            if (c.isValid())
                return c;
        }
        return {};
    case Qt::FontRole:
        if ((p != Presence::Both && (col == Name || col == Present)) || col == Verdict) {
            QFont f;
            f.setItalic(p != Presence::Both && col != Verdict);
            f.setBold(col == Present || col == Verdict);
            return f;
        }
        return {};
    case Qt::TextAlignmentRole:
        return col == Name || col == Present || col == Verdict ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return toolTip(d, col);
    }
    return {};
}

QVariant OperatorDiffModel::toolTip(const OpDiffRow& d, int col) const
{
    const Presence p = presence(d);
    const bool perStep = m_times == OpTimes::PerStep && d.perStepKnown();
    const QString per = perStep ? tr("per step") : tr("over the whole run");
    switch (col) {
    case Name: return qstr(d.key);
    case Present:
        return p == Presence::Both ? tr("In both profiles")
               : p == Presence::BaselineOnly ? tr("Only in the baseline (removed or fused away in the optimized run)")
               : d.replacement ? tr("Only in the optimized run: the operator mapping has it replacing baseline operators")
                               : tr("Only in the optimized run (new, e.g. a fused kernel)");
    case BaselineCount:
    case OptimizedCount:
        return perStep ? tr("Instances per step (%1 over the whole run)")
                             .arg(fmt::count(col == BaselineCount ? d.baselineCount : d.currentCount))
                       : tr("Instances over the whole run");
    case BaselineTotal:
    case OptimizedTotal:
        return perStep ? tr("Time per step: inside the steps the step time is computed over, divided by their "
                            "number (%1 over the whole run)")
                             .arg(fmt::duration(static_cast<double>(col == BaselineTotal ? d.baselineTotal : d.currentTotal)))
                       : tr("Total time over the whole run");
    case Delta: return tr("Time %1, optimized − baseline (sorted by magnitude)").arg(per);
    case Ratio: return tr("Time %1, optimized / baseline").arg(per);
    case Verdict:
        if (d.replacement)
            return tr("New: replaces baseline operators (see the operator mapping)");
        if (!d.perStepKnown())
            return tr("Decided on the totals: no per-step times");
        return tr("Decided per step: %1 → %2 per step, as the headline's step time")
            .arg(fmt::duration(d.baselineNsPerStep), fmt::duration(d.currentNsPerStep));
    default: return {};
    }
}

QVariant OperatorDiffModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, o, role);
    const bool perStep = m_times == OpTimes::PerStep;
    if (role == Qt::ToolTipRole && section == Delta)
        return perStep ? tr("Time per step, optimized − baseline; sorts by magnitude |Δ|")
                       : tr("Total time, optimized − baseline; sorts by magnitude |Δ|");
    if (role == Qt::ToolTipRole && section == Verdict)
        return tr("Improved, regressed or the same, per step whatever is shown; new for an operator that "
                  "replaced baseline operators");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Operator");
    case Present: return tr("In");
    case BaselineCount: return perStep ? tr("Count/step (base)") : tr("Count (base)");
    case OptimizedCount: return perStep ? tr("Count/step (opt)") : tr("Count (opt)");
    case BaselineTotal: return perStep ? tr("Per step (base)") : tr("Total (base)");
    case OptimizedTotal: return perStep ? tr("Per step (opt)") : tr("Total (opt)");
    case Delta: return perStep ? tr("Δ per step") : tr("Δ total");
    case Ratio: return tr("Ratio");
    case BaselineAvg: return tr("Avg (base)");
    case OptimizedAvg: return tr("Avg (opt)");
    case Verdict: return tr("Verdict");
    }
    return {};
}

// ---- proxy -----------------------------------------------------------------------------------

OperatorDiffProxy::OperatorDiffProxy(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(OperatorDiffModel::SortRole);
    setFilterRole(OperatorDiffModel::KeyRole);
    setFilterKeyColumn(OperatorDiffModel::Name);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
}

void OperatorDiffProxy::setShow(Show s)
{
    if (s == m_show)
        return;
    m_show = s;
    invalidateRowsFilter();
}

bool OperatorDiffProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    using P = OperatorDiffModel::Presence;
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    const auto p = static_cast<P>(i.data(OperatorDiffModel::PresenceRole).toInt());
    switch (m_show) {
    case Show::All: break;
    case Show::Both: if (p != P::Both) return false; break;
    case Show::BaselineOnly: if (p != P::BaselineOnly) return false; break;
    case Show::OptimizedOnly: if (p != P::OptimizedOnly) return false; break;
    case Show::OneSideOnly: if (p == P::Both) return false; break;
    }
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

// ---- operator mapping ----------------------------------------------------------------------

OperatorMappingModel::OperatorMappingModel(QObject* parent) : QAbstractTableModel(parent) {}

void OperatorMappingModel::setMapping(OpMapping mapping)
{
    beginResetModel();
    m_map = std::move(mapping);
    endResetModel();
}

int OperatorMappingModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_map.rows.size());
}

int OperatorMappingModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant OperatorMappingModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const OpMappingRow& r = rowAt(index.row());
    const double perStep = m_map.steps > 0 ? static_cast<double>(r.occurrences) / m_map.steps : kNaN;
    const double ratio = r.beforeNs > 0 ? r.afterNs / r.beforeNs : kNaN;
    const Change change = changeOf(r.verdict);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Kind: return QString::fromLatin1(mappingKindName(r.kind));
        case Baseline: return r.baseline.empty() ? fmt::missing() : qstr(r.baseline);
        case Optimized: return r.optimized.empty() ? fmt::missing() : qstr(r.optimized);
        case Shapes: return qstr(r.shapes);
        case PerStep: return std::isnan(perStep) ? fmt::missing() : QString::number(perStep, 'g', 4);
        case Before: return r.kind == MappingKind::Added ? fmt::missing() : fmt::duration(r.beforeNs);
        case After: return r.kind == MappingKind::Removed ? fmt::missing() : fmt::duration(r.afterNs);
        case Delta: return fmt::signedDuration(static_cast<TimeNs>(std::llround(r.afterNs - r.beforeNs)));
        case Ratio: return ratioText(ratio);
        case Interval:
            return r.ci.valid() ? QStringLiteral("%1–%2").arg(r.ci.low, 0, 'f', 3).arg(r.ci.high, 0, 'f', 3) : fmt::missing();
        case Verdict: return qstr(r.verdict);
        }
        return {};
    case SortRole:
        switch (index.column()) {
        case PerStep: return perStep;
        case Before: return r.beforeNs;
        case After: return r.afterNs;
        case Delta: return std::fabs(r.afterNs - r.beforeNs);
        case Ratio: return std::isnan(ratio) ? -1.0 : ratio;
        case Interval: return r.ci.valid() ? r.ci.low : -1.0;
        case Kind: return static_cast<int>(r.kind);
        default: return data(index, Qt::DisplayRole);
        }
    case Qt::TextAlignmentRole:
        return index.column() >= PerStep && index.column() <= Interval ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                                         : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if ((index.column() == Verdict || index.column() == Delta) && changeColour(change).isValid())
            return changeColour(change);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == Baseline || index.column() == Optimized)
            return QString(qstr(r.baseline) + QStringLiteral(" ⇒ ") + qstr(r.optimized));
        return {};
    case ChangeRole: return static_cast<int>(change);
    case KindRole: return static_cast<int>(r.kind);
    }
    return {};
}

QVariant OperatorMappingModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Kind: return tr("Mapping");
    case Baseline: return tr("Baseline ops");
    case Optimized: return tr("Optimized ops");
    case Shapes: return tr("Input shapes");
    case PerStep: return tr("Per step");
    case Before: return tr("Baseline /step");
    case After: return tr("Optimized /step");
    case Delta: return tr("Δ /step");
    case Ratio: return tr("Ratio");
    case Interval: return tr("95 % CI");
    case Verdict: return tr("Verdict");
    }
    return {};
}

// ---- advisor diff --------------------------------------------------------------------------

void AdvisorDiffRowsModel::setRows(std::vector<AdvisorDiffRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int AdvisorDiffRowsModel::rowForId(const QString& id) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (qstr(m_rows[i].id) == id)
            return static_cast<int>(i);
    return -1;
}

int AdvisorDiffRowsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

AdvisorDiffModel::AdvisorDiffModel(QObject* parent) : AdvisorDiffRowsModel(parent) {}

int AdvisorDiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant AdvisorDiffModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const AdvisorDiffRow& r = rowAt(index.row());
    const bool before = r.change != FindingChange::New, after = r.change != FindingChange::Fixed;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case State: return QString::fromLatin1(findingChangeName(r.change));
        case Id: return qstr(r.id);
        case Title: return qstr(r.title);
        case SeverityBefore: return before ? qstr(r.severityBefore) : fmt::missing();
        case SeverityAfter: return after ? qstr(r.severityAfter) : fmt::missing();
        case CostBefore: return before ? fmt::duration(static_cast<double>(r.costBefore)) : fmt::missing();
        case CostAfter: return after ? fmt::duration(static_cast<double>(r.costAfter)) : fmt::missing();
        }
        return {};
    case SortRole:
        switch (index.column()) {
        case State: return static_cast<int>(r.change);
        case CostBefore: return before ? static_cast<double>(r.costBefore) : -1.0;
        case CostAfter: return after ? static_cast<double>(r.costAfter) : -1.0;
        default: return data(index, Qt::DisplayRole);
        }
    case Qt::TextAlignmentRole:
        return index.column() >= CostBefore ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                            : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == State) {
            const QColor c = changeColour(r.change == FindingChange::Fixed ? Change::Improved
                                          : r.change == FindingChange::New ? Change::Regressed
                                                                           : Change::Same);
            if (c.isValid())
                return c;
        }
        return {};
    case ChangeRole: return static_cast<int>(r.change);
    }
    return {};
}

QVariant AdvisorDiffModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case State: return tr("Change");
    case Id: return tr("Finding");
    case Title: return tr("Title");
    case SeverityBefore: return tr("Severity before");
    case SeverityAfter: return tr("Severity after");
    case CostBefore: return tr("Cost before /step");
    case CostAfter: return tr("Cost after /step");
    }
    return {};
}

} // namespace npuscope
