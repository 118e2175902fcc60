#pragma once
// QString display text for numbers in the views: the units of model/analysis/units.h (chosen
// for the magnitude, 3 significant digits, as the CLI prints them) plus a few view-only forms.
// Tables sort by the raw value, never by this text.
#include <QString>

#include <cstdint>
#include <string_view>

namespace npuscope {

// The model's UTF-8 text (names, paths, messages) as a QString.
inline QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

} // namespace npuscope

namespace npuscope::fmt {

// What a cell shows where there is no value: "—".
const QString& missing();
// Nanoseconds -> "812 ns", "18.4 µs", "12.3 ms", "1.05 s" (rounded to whole ns). NaN -> "—".
QString duration(double ns);
// Fraction 0..1 -> "36.2 %". NaN -> "—".
QString percent(double fraction);
// GB/s (as the PMU columns) -> "750 GB/s", "12.5 MB/s". NaN -> "—".
QString bandwidth(double gbps);
// Bytes -> "512 B", "1.50 GB" (formatBytes of units.h).
QString bytes(double b);
// Plain number with 3 significant digits ("0.412", "12.3", "1234"). NaN -> "—".
QString number(double v);
// Integer with thousands separators ("4,212,880").
QString count(std::uint64_t n);
// A change in nanoseconds with its sign: "+1.20 ms", "−34.0 ms", "0".
QString signedDuration(std::int64_t ns);

} // namespace npuscope::fmt
