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
// The spellings of "no value" the profilers write (after trimming): empty, N/A, NA, n/a, null,
// None, "-". Text that is neither this nor a number is unreadable, and readers count it.
bool isMissingText(std::string_view s);
// A byte the timeline readers take as part of a bare JSON number: a digit, '.', an exponent's
// 'e' or 'E', a sign.
constexpr bool isJsonNumberByte(char c)
{
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}
// JSON's whitespace (and a CSV cell's padding): space, TAB, CR, LF.
constexpr bool isJsonSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
// True when a and b differ by one character changed, added or dropped: a name looked for and
// the same name with a damaged byte.
bool oneEditApart(std::string_view a, std::string_view b);

// Each parser stores the value in `out` and says whether there was one; the optional forms
// below wrap them inline, so that no optional is returned through memory from a call (a byte
// store then a wider load of it stalls the CPU, on every number of a large CSV).
//
// Decimal µs text (0..9 fraction digits, optional sign, optional exponent) to ns.
// Digits beyond the 3rd fraction digit are rounded half away from zero. Exponent forms
// ("4e-06", "1.5E+3") are handled exactly where possible. False for empty, "N/A", junk, and
// magnitudes beyond kMaxTimeNs.
bool parseMicrosToNs(std::string_view text, TimeNs& out);
// Same for milliseconds text (ms -> ns).
bool parseMillisToNs(std::string_view text, TimeNs& out);
// Integers; false for empty, N/A, junk, out of range.
bool parseInt64(std::string_view text, std::int64_t& out);
bool parseUInt64(std::string_view text, std::uint64_t& out);
// Doubles (as from_chars gives them); false for empty, N/A, junk, NaN.
namespace detail {
// What parseDouble's inline fast path leaves: blanks, signs, exponents, long mantissas, missing
// spellings and words.
bool parseDoubleGeneral(std::string_view text, double& out);
} // namespace detail
// Inline, because a large CSV calls it for most of its cells: the call itself cost a sixth.
[[gnu::always_inline]] inline bool parseDouble(std::string_view text, double& out)
{
    // Clinger's fast path, tried first on the text as it usually comes (no blanks, no sign):
    // at most 15 digits and a plain decimal point make an exact integer mantissa and an exact
    // power of ten, so one division gives the correctly rounded double that from_chars would.
    // Anything else (blanks, signs, exponents, long mantissas, words) takes the general path.
    {
        static constexpr double kPow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                            1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
        const char* c = text.data();
        const char* const end = c + text.size();
        const bool negative = c != end && *c == '-';
        c += negative ? 1 : 0;
        const char* const digitsBegin = c;
        std::uint64_t mantissa = 0;
        while (c != end && static_cast<unsigned>(*c - '0') < 10)
            mantissa = mantissa * 10 + static_cast<unsigned>(*c++ - '0');
        const char* const point = c;
        int fraction = 0;
        if (c != end && *c == '.') {
            ++c;
            const char* const fracBegin = c;
            while (c != end && static_cast<unsigned>(*c - '0') < 10)
                mantissa = mantissa * 10 + static_cast<unsigned>(*c++ - '0');
            fraction = static_cast<int>(c - fracBegin);
        }
        const auto digits = (point - digitsBegin) + fraction;
        if (c == end && digits > 0 && digits <= 15 && (fraction > 0 || point == end)) {
            const double v = static_cast<double>(mantissa) / kPow10[fraction];
            return (out = negative ? -v : v), true;
        }
    }
    return detail::parseDoubleGeneral(text, out);
}

namespace detail {
template <typename T, typename Parse>
inline std::optional<T> parsedOr(std::string_view text, Parse parse)
{
    T v{};
    return parse(text, v) ? std::optional<T>(v) : std::nullopt;
}
} // namespace detail
inline std::optional<TimeNs> parseMicrosToNs(std::string_view text)
{
    return detail::parsedOr<TimeNs>(text, [](std::string_view t, TimeNs& v) { return parseMicrosToNs(t, v); });
}
inline std::optional<TimeNs> parseMillisToNs(std::string_view text)
{
    return detail::parsedOr<TimeNs>(text, [](std::string_view t, TimeNs& v) { return parseMillisToNs(t, v); });
}
inline std::optional<std::int64_t> parseInt64(std::string_view text)
{
    return detail::parsedOr<std::int64_t>(text, [](std::string_view t, std::int64_t& v) { return parseInt64(t, v); });
}
inline std::optional<std::uint64_t> parseUInt64(std::string_view text)
{
    return detail::parsedOr<std::uint64_t>(text, [](std::string_view t, std::uint64_t& v) { return parseUInt64(t, v); });
}
inline std::optional<double> parseDouble(std::string_view text)
{
    return detail::parsedOr<double>(text, [](std::string_view t, double& v) { return parseDouble(t, v); });
}

// µs as a double (e.g. a JSON number 188.14802169799805) to ns, rounded.
TimeNs microsDoubleToNs(double us);

} // namespace npuscope
