#include "views/time_format.h"

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

TimeNs niceStep(double minNs)
{
    if (!(minNs > 1))
        return 1;
    const double p = std::pow(10.0, std::floor(std::log10(minNs)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= minNs)
            return roundNs(m * p);
    return roundNs(10 * p);
}

QString formatOffset(TimeNs offset, TimeNs step)
{
    struct Unit { double scale; const char* name; };
    const Unit u = step >= 1'000'000'000 ? Unit{1e9, "s"} : step >= 1'000'000 ? Unit{1e6, "ms"}
                 : step >= 1'000 ? Unit{1e3, "µs"} : Unit{1, "ns"};
    // Enough decimals that consecutive ticks differ.
    int decimals = 0;
    for (double s = static_cast<double>(step) / u.scale; s < 1 && decimals < 6; s *= 10)
        ++decimals;
    return QString::number(static_cast<double>(offset) / u.scale, 'f', decimals) + QLatin1Char(' ')
         + QString::fromUtf8(u.name);
}

} // namespace npuscope
