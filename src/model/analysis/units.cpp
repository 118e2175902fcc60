#include "model/analysis/units.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace npuscope {

namespace {

// value in [0, inf) scaled down by `step` until it prints below 1000 with 3 significant digits.
// `smallestFirst`: units[0] is the smallest of its kind (ns, B) and prints whole when integral.
std::string scaled(double value, double step, const char* const* units, int unitCount, bool smallestFirst = true)
{
    if (std::isnan(value))
        return "—";
    const bool negative = value < 0;
    double v = std::fabs(value);
    int u = 0;
    char buf[64];
    for (;;) {
        // Rounding can carry into the next unit (999.6 ns prints as 1.00 µs), so format first.
        if (v < 9.995)
            std::snprintf(buf, sizeof buf, "%.2f", v);
        else if (v < 99.95)
            std::snprintf(buf, sizeof buf, "%.1f", v);
        else
            std::snprintf(buf, sizeof buf, "%.0f", v);
        if (std::atof(buf) < 1000.0 || u + 1 >= unitCount)
            break;
        v /= step;
        ++u;
    }
    // Integral smallest units (ns, B) need no decimals.
    if (u == 0 && smallestFirst && v == std::floor(v))
        std::snprintf(buf, sizeof buf, "%.0f", v);
    return std::string(negative ? "-" : "") + buf + " " + units[u];
}

std::string fixedPoint(TimeNs ns, std::int64_t div, int digits)
{
    const bool negative = ns < 0;
    // Work on the magnitude as unsigned so INT64_MIN does not overflow.
    const std::uint64_t mag = negative ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
    const auto d = static_cast<std::uint64_t>(div);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%llu.%0*llu", negative ? "-" : "", static_cast<unsigned long long>(mag / d),
                  digits, static_cast<unsigned long long>(mag % d));
    return buf;
}

} // namespace

std::string formatDuration(TimeNs ns)
{
    static const char* const units[] = {"ns", "µs", "ms", "s"};
    const double v = static_cast<double>(ns);
    if (std::fabs(v) >= 1e9)
        return scaled(v / 1e9, 1000.0, units + 3, 1, false);
    if (std::fabs(v) >= 1e6)
        return scaled(v / 1e6, 1000.0, units + 2, 2, false);
    if (std::fabs(v) >= 1e3)
        return scaled(v / 1e3, 1000.0, units + 1, 3, false);
    return scaled(v, 1000.0, units, 4);
}

std::string formatBytes(double bytes)
{
    static const char* const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    return scaled(bytes, 1000.0, units, 6);
}

std::string formatRate(double bytesPerSecond)
{
    static const char* const units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"};
    return scaled(bytesPerSecond, 1000.0, units, 6);
}

std::string formatPercent(double fraction)
{
    if (std::isnan(fraction))
        return "—";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", fraction * 100.0);
    return buf;
}

std::string nsToMicrosText(TimeNs ns) { return fixedPoint(ns, 1000, 3); }
std::string nsToMillisText(TimeNs ns) { return fixedPoint(ns, 1000000, 6); }

} // namespace npuscope
