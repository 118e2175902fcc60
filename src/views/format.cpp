#include "views/format.h"

#include "model/analysis/units.h"

#include <cmath>

namespace npuscope::fmt {

namespace {
const QString kMissing = QStringLiteral("—");
}

const QString& missing()
{
    return kMissing;
}

QString bytes(double b)
{
    return QString::fromStdString(formatBytes(b));
}

QString duration(double ns)
{
    if (std::isnan(ns))
        return kMissing;
    return QString::fromStdString(formatDuration(roundNs(ns)));
}

QString percent(double fraction)
{
    return QString::fromStdString(formatPercent(fraction));
}

QString bandwidth(double gbps)
{
    if (std::isnan(gbps))
        return kMissing;
    return QString::fromStdString(formatRate(gbps * 1e9));
}

QString number(double v)
{
    if (std::isnan(v))
        return kMissing;
    const double a = std::fabs(v);
    if (a == 0)
        return QStringLiteral("0");
    if (a >= 1000)
        return QString::number(v, 'f', 0);
    if (a < 0.01)
        return QString::number(v, 'g', 3);
    const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
    return QString::number(v, 'f', decimals);
}

QString count(std::uint64_t n)
{
    QString digits = QString::number(n);
    for (qsizetype i = digits.size() - 3; i > 0; i -= 3)
        digits.insert(i, QLatin1Char(','));
    return digits;
}

QString signedDuration(std::int64_t ns)
{
    if (ns == 0)
        return QStringLiteral("0");
    return (ns > 0 ? QStringLiteral("+") : QStringLiteral("−")) + duration(static_cast<double>(ns < 0 ? -ns : ns));
}

} // namespace npuscope::fmt
