#include "views/compare_model_advice.h"

#include "views/compare_model.h"
#include "views/format.h"

#include <QApplication>
#include <QPalette>
#include <QStringList>

#include <cmath>

namespace npuscope {

namespace {


QString nsText(double ns, bool signedValue = false)
{
    if (std::isnan(ns))
        return fmt::missing();
    const QString sign = signedValue ? (ns > 0 ? QStringLiteral("+") : ns < 0 ? QStringLiteral("−") : QString()) : QString();
    return sign + fmt::duration(signedValue ? std::fabs(ns) : ns);
}

} // namespace

QColor adviceStatusColour(const std::string& status)
{
    const bool dark = QApplication::palette().color(QPalette::Base).lightness() < 128;
    if (status == "fixed")
        return changeColour(Change::Improved);
    if (status == "remaining")
        return changeColour(Change::Regressed);
    if (status == "partly")
        return dark ? QColor(0xf0, 0xb4, 0x29) : QColor(0x9a, 0x67, 0x00);
    if (status == "new")
        return dark ? QColor(0x79, 0xc0, 0xff) : QColor(0x09, 0x69, 0xda);
    return {};
}

AdviceCheckModel::AdviceCheckModel(QObject* parent) : AdvisorDiffRowsModel(parent) {}

int AdviceCheckModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AdviceCheckModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const AdvisorDiffRow& r = rowAt(index.row());
    auto raw = [&]() -> double {
        switch (index.column()) {
        case Predicted: return r.predictedGainNs;
        case Realised: return r.realisedNs;
        case Before: return r.coveredBeforeNs;
        case After: return r.coveredAfterNs;
        }
        return kNaN;
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Status: return qstr(r.status);
        case Id: return qstr(r.id);
        case Title: return qstr(r.title);
        case Predicted: return nsText(r.predictedGainNs);
        case Realised: return nsText(r.realisedNs, true);
        case Covered: return r.covered.empty() ? fmt::missing() : qstr(r.covered);
        case Before: return nsText(r.coveredBeforeNs);
        case After: return nsText(r.coveredAfterNs);
        }
        return {};
    case SortRole:
        if (index.column() >= Predicted && index.column() != Covered) {
            const double v = raw();
            return std::isnan(v) ? -1.0 : v;
        }
        return data(index, Qt::DisplayRole);
    case RawValueRole: return raw();
    case StatusRole: return qstr(r.status);
    case OpKeysRole: {
        QStringList keys;
        for (const std::string& k : r.coveredOps)
            keys << qstr(k);
        return keys;
    }
    case Qt::TextAlignmentRole:
        return index.column() >= Predicted && index.column() != Covered ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                                        : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == Status || (index.column() == Realised && r.grew)) {
            const QColor c = index.column() == Status ? adviceStatusColour(r.status) : changeColour(Change::Regressed);
            return c.isValid() ? QVariant(c) : QVariant();
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == Status && r.status != "new")
            return tr("fixed: absent in the optimized run, or the covered time fell by ≥ 80 % of the predicted "
                      "gain; partly: still present and it fell by ≥ 20 %; remaining: otherwise");
        if (index.column() == Realised && r.grew)
            return tr("The time this finding covers grew beyond the noise band");
        return {};
    }
    return {};
}

QVariant AdviceCheckModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Status: return tr("Status");
    case Id: return tr("Finding");
    case Title: return tr("Title");
    case Predicted: return tr("Predicted gain /step");
    case Realised: return tr("Realised /step");
    case Covered: return tr("Covers");
    case Before: return tr("Before /step");
    case After: return tr("After /step");
    }
    return {};
}

} // namespace npuscope
