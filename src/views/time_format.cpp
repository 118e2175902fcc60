#include "views/time_format.h"

#include "model/analysis/time_axis.h"

#include <QLocale>

#include <cmath>

namespace npuscope {

namespace {

QString threeDigits(double v, const QString& unit)
{
    const double a = std::fabs(v);
    const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
    return QString::number(v, 'f', decimals) + QLatin1Char(' ') + unit;
}

} // namespace

QString formatDuration(TimeNs ns)
{
    const double a = std::fabs(static_cast<double>(ns));
    if (a < 1e3)
        return QString::number(ns) + QStringLiteral(" ns");
    if (a < 1e6)
        return threeDigits(static_cast<double>(ns) / 1e3, QStringLiteral("µs"));
    if (a < 1e9)
        return threeDigits(static_cast<double>(ns) / 1e6, QStringLiteral("ms"));
    return threeDigits(static_cast<double>(ns) / 1e9, QStringLiteral("s"));
}

QString formatDurationMs(double ms)
{
    if (std::isnan(ms))
        return QStringLiteral("–");
    return formatDuration(roundNs(ms * 1e6));
}

QString formatCount(std::uint64_t n) { return QLocale(QLocale::English).toString(static_cast<qulonglong>(n)); }

TimeNs niceStep(double minNs) { return niceTimeStep(minNs); }

QString formatOffset(TimeNs offset, TimeNs step, TimeNs span)
{
    return QString::fromStdString(formatTimeOffset(offset, step, span));
}

} // namespace npuscope
