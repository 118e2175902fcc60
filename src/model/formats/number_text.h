#pragma once
// Numbers parsed from text without a double where exactness matters:
// "1780748105187895.870" µs -> 1780748105187895870 ns by digit shifting.
#include "model/store/ids.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace npuscope {

// Trim spaces, TABs, CR/LF on both sides (cells like "…895.870\t").
std::string_view trimText(std::string_view s);

// The largest time magnitude a parsed time may have: 4e18 ns (the year 2096 as ns since 1970),
// so that a start plus a duration, or the difference of two times, never overflows TimeNs.
inline constexpr TimeNs kMaxTimeNs = 4'000'000'000'000'000'000;

// Decimal µs text (0..9 fraction digits, optional sign, optional exponent) to ns.
// Digits beyond the 3rd fraction digit are rounded half away from zero. Exponent forms
// ("4e-06", "1.5E+3") are handled exactly where possible. nullopt for empty, "N/A", junk, and
// magnitudes beyond kMaxTimeNs.
std::optional<TimeNs> parseMicrosToNs(std::string_view text);
// Same for milliseconds text (ms -> ns).
std::optional<TimeNs> parseMillisToNs(std::string_view text);
// Integers; nullopt for empty, N/A, junk, out of range.
std::optional<std::int64_t> parseInt64(std::string_view text);
std::optional<std::uint64_t> parseUInt64(std::string_view text);
// Doubles (from_chars); nullopt for empty, N/A, junk.
std::optional<double> parseDouble(std::string_view text);
// µs as a double (e.g. a JSON number 188.14802169799805) to ns, rounded.
TimeNs microsDoubleToNs(double us);

} // namespace npuscope
