// The text of the one time axis: ruler ticks, plot axes and the command line's times.
#include "model/analysis/time_axis.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace npuscope {

TimeNs niceTimeStep(double minNs)
{
    if (!(minNs > 1))
        return 1;
    if (minNs > 1e18)
        return 1'000'000'000'000'000'000LL;
    const double p = std::pow(10.0, std::floor(std::log10(minNs)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= minNs * (1 - 1e-12))
            return static_cast<TimeNs>(std::llround(m * p));
    return static_cast<TimeNs>(std::llround(10 * p));
}

std::string formatTimeOffset(TimeNs offset, TimeNs step, TimeNs span)
{
    struct Unit {
        double scale;
        const char* name;
    };
    const double a = std::fabs(static_cast<double>(span));
    const Unit u = a >= 1e9 ? Unit{1e9, "s"} : a >= 1e6 ? Unit{1e6, "ms"} : a >= 1e3 ? Unit{1e3, "µs"} : Unit{1, "ns"};
    // As many decimals as the step has below the unit: 10 µs steps in ms need 2.
    int decimals = 0;
    for (double s = static_cast<double>(std::max<TimeNs>(step, 1)) / u.scale; s < 0.999999 && decimals < 9; s *= 10)
        ++decimals;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, static_cast<double>(offset) / u.scale, u.name);
    return buf;
}

TimeTicks timeTicks(TimeNs begin, TimeNs end, double widthPx)
{
    TimeTicks t;
    const double nsPerPx = static_cast<double>(std::max<TimeNs>(1, end - begin)) / std::max(1.0, widthPx);
    t.step = niceTimeStep(nsPerPx * kTickSpacingPx);
    TimeNs q = begin / t.step;
    if (begin % t.step != 0 && begin < 0)
        --q; // floor, not truncation, before the trace start
    t.first = q * t.step;
    t.span = std::max(begin < 0 ? -begin : begin, end < 0 ? -end : end);
    return t;
}

bool parseTimeText(std::string_view text, TimeNs* ns, std::string* error)
{
    auto fail = [&](const std::string& why) {
        if (error)
            *error = why;
        return false;
    };
    const std::string shown(text);
    std::size_t i = 0;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
        ++i;
    const std::string number(text.substr(0, i));
    std::string_view unit = text.substr(i);
    while (!unit.empty() && unit.front() == ' ')
        unit.remove_prefix(1);
    if (!text.empty() && (text.front() == '-' || text.front() == '+'))
        return fail("'" + shown + "' is not a time: times count from the trace start and are not negative");
    if (number.empty() || number == "." || std::count(number.begin(), number.end(), '.') > 1)
        return fail("'" + shown + "' is not a time (expected a number and a unit, e.g. 12.1ms)");
    double scale = 0;
    if (unit == "ns")
        scale = 1;
    else if (unit == "us" || unit == "µs" || unit == "μs")
        scale = 1e3;
    else if (unit == "ms")
        scale = 1e6;
    else if (unit == "s")
        scale = 1e9;
    else if (unit.empty())
        return fail("'" + shown + "' needs a unit (ns, us, µs, ms or s), e.g. " + number + "ms");
    else
        return fail("'" + shown + "' has an unknown unit '" + std::string(unit) + "' (ns, us, µs, ms or s)");
    const double v = std::strtod(number.c_str(), nullptr) * scale;
    if (!std::isfinite(v) || v > 9.0e18)
        return fail("'" + shown + "' is too large");
    *ns = static_cast<TimeNs>(std::llround(v));
    return true;
}

bool parseTimeRangeText(std::string_view option, std::string_view start, std::string_view end, TimeNs* begin,
                        TimeNs* finish, std::string* error)
{
    std::string why;
    TimeNs b = 0, e = 0;
    if (!parseTimeText(start, &b, &why) || !parseTimeText(end, &e, &why)) {
        if (error)
            *error = std::string(option) + ": " + why;
        return false;
    }
    if (e <= b) {
        if (error)
            *error = std::string(option) + ": the end (" + std::string(end) + ") must come after the start ("
                   + std::string(start) + ")";
        return false;
    }
    *begin = b;
    *finish = e;
    return true;
}

} // namespace npuscope
