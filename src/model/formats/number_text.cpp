#include "model/formats/number_text.h"

#include "model/store/decimal_digits.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

namespace npuscope {

namespace {

bool isDigit(char c)
{
    return static_cast<unsigned>(c - '0') < 10;
}

// Decimal text scaled by 10^scaleDigits into an int64, exactly. Handles sign, fraction and
// an exponent; rounds half away from zero on dropped digits.
bool parseScaled(std::string_view s, int scaleDigits, std::int64_t& out)
{
    // Timestamps start with a digit: no blanks or placeholder words to look for first.
    if (s.empty() || !isDigit(s.front()) || !isDigit(s.back())) {
        s = trimText(s);
        if (isMissingText(s))
            return false;
    }
    bool negative = false;
    std::size_t i = 0;
    if (s[i] == '+' || s[i] == '-') {
        negative = s[i] == '-';
        ++i;
    }
    // Fast path, the profilers' own form: digits, then at most scaleDigits decimals.
    {
        std::uint64_t acc = 0;
        std::size_t j = i;
        // µs timestamps have 16 digits before the point: take them 8 at a time (more than 19
        // digits wrap around, but then the general path below reads the text again).
        for (std::uint64_t word; j + 8 <= s.size() && digits::eightDigits(s.data() + j, word); j += 8)
            acc = acc * 100000000 + digits::valueOfEightDigits(word);
        while (j < s.size() && isDigit(s[j]))
            acc = acc * 10 + static_cast<unsigned>(s[j++] - '0');
        const std::size_t nInt = j - i;
        if (nInt > 0 && nInt + static_cast<std::size_t>(scaleDigits) <= 19) {
            int nFrac = 0;
            if (j < s.size() && s[j] == '.') {
                ++j;
                while (j < s.size() && nFrac < scaleDigits && isDigit(s[j])) {
                    acc = acc * 10 + static_cast<unsigned>(s[j++] - '0');
                    ++nFrac;
                }
            }
            if (j == s.size()) {
                for (; nFrac < scaleDigits; ++nFrac)
                    acc *= 10;
                if (acc > static_cast<std::uint64_t>(kMaxTimeNs))
                    return false;
                const auto v = static_cast<std::int64_t>(acc);
                return (out = negative ? -v : v), true;
            }
        }
    }
    // Collect the significant digits and where the decimal point sits.
    char digits[40];
    int nDigits = 0;
    int pointPos = -1; // number of digits before the point
    bool anyDigit = false;
    int droppedLeading = 0;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (c >= '0' && c <= '9') {
            anyDigit = true;
            if (nDigits == 0 && c == '0') {
                // leading zero: only matters for the point position
                ++droppedLeading;
                continue;
            }
            if (nDigits < 38)
                digits[nDigits++] = c;
            else if (pointPos < 0)
                return false; // integer part too long
        } else if (c == '.') {
            if (pointPos >= 0)
                return false;
            pointPos = nDigits + droppedLeading;
        } else {
            break;
        }
    }
    if (!anyDigit)
        return false;
    const int totalDigitsSeen = nDigits + droppedLeading;
    if (pointPos < 0)
        pointPos = totalDigitsSeen;
    int exponent = 0;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        int expSign = 1;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
            expSign = s[i] == '-' ? -1 : 1;
            ++i;
        }
        int e = 0;
        bool expDigit = false;
        for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
            expDigit = true;
            if (e < 10000)
                e = e * 10 + (s[i] - '0');
        }
        if (!expDigit)
            return false;
        exponent = expSign * e;
    }
    if (i != s.size())
        return false;
    // value = 0.d1d2...dn * 10^(position of first significant digit) ...
    // Position (count of integer digits) of the significant digit string:
    // the significant digits start after droppedLeading zeros; leading zeros after the point
    // shift them right. intDigits = pointPos - droppedLeading (may be negative).
    const int intDigits = pointPos - droppedLeading + exponent + scaleDigits;
    // Result = digits[0..intDigits) as integer, rounded by digits[intDigits].
    if (nDigits == 0)
        return (out = 0), true;
    if (intDigits > 19)
        return false;
    std::uint64_t acc = 0; // intDigits <= 19 digits always fit
    for (int k = 0; k < intDigits; ++k) {
        acc = acc * 10 + (k < nDigits ? static_cast<unsigned>(digits[k] - '0') : 0u);
    }
    if (intDigits >= 0 && intDigits < nDigits && digits[intDigits] >= '5')
        acc += 1;
    if (intDigits < 0)
        acc = 0;
    if (acc > static_cast<std::uint64_t>(kMaxTimeNs))
        return false; // out of range: start + duration must never overflow
    const auto v = static_cast<std::int64_t>(acc);
    return (out = negative ? -v : v), true;
}

} // namespace

std::string_view trimText(std::string_view s)
{
    std::size_t b = 0;
    std::size_t e = s.size();
    while (b < e && isJsonSpace(s[b]))
        ++b;
    while (e > b && isJsonSpace(s[e - 1]))
        --e;
    return s.substr(b, e - b);
}

bool isMissingText(std::string_view s)
{
    s = trimText(s);
    return s.empty() || s == "N/A" || s == "NA" || s == "n/a" || s == "null" || s == "None" || s == "-";
}

bool parseMicrosToNs(std::string_view text, TimeNs& out)
{
    // The profilers' own form first: 1 to 16 digits, a point and three decimals (µs with ns).
    const std::size_t n = text.size();
    if (n >= 5 && n <= 20 && text[n - 4] == '.') {
        const char* p = text.data() + n - 3;
        const unsigned d0 = static_cast<unsigned char>(p[0]) - unsigned('0'),
                       d1 = static_cast<unsigned char>(p[1]) - unsigned('0'),
                       d2 = static_cast<unsigned char>(p[2]) - unsigned('0');
        if (std::uint64_t whole; d0 < 10 && d1 < 10 && d2 < 10 && digits::plainDecimal(text.substr(0, n - 4), 16, whole)) {
            const std::uint64_t ns = whole * 1000 + d0 * 100 + d1 * 10 + d2; // < 10^19: no overflow
            if (ns > static_cast<std::uint64_t>(kMaxTimeNs))
                return false;
            return (out = static_cast<TimeNs>(ns)), true;
        }
    }
    return parseScaled(text, 3, out);
}

bool parseMillisToNs(std::string_view text, TimeNs& out)
{
    return parseScaled(text, 6, out);
}

bool parseInt64(std::string_view text, std::int64_t& out)
{
    // Up to 18 plain digits cannot overflow: read directly, everything else by from_chars.
    if (std::uint64_t u; digits::plainDecimal(text, 18, u))
        return (out = static_cast<std::int64_t>(u)), true;
    text = trimText(text);
    if (isMissingText(text))
        return false;
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size())
        return false;
    return (out = v), true;
}

bool parseUInt64(std::string_view text, std::uint64_t& out)
{
    if (digits::plainDecimal(text, 18, out))
        return true;
    text = trimText(text);
    if (isMissingText(text))
        return false;
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size())
        return false;
    return (out = v), true;
}

bool detail::parseDoubleGeneral(std::string_view text, double& out)
{
    text = trimText(text);
    if (isMissingText(text))
        return false;
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    double v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size())
        return false;
    if (std::isnan(v))
        return false;
    return (out = v), true;
}

bool oneEditApart(std::string_view a, std::string_view b)
{
    if (a.size() > b.size())
        std::swap(a, b);
    if (b.size() - a.size() > 1 || a == b)
        return false;
    std::size_t i = 0;
    while (i < a.size() && a[i] == b[i])
        ++i;
    if (a.size() == b.size())
        return a.substr(i + 1) == b.substr(i + 1);
    return a.substr(i) == b.substr(i + 1);
}

TimeNs microsDoubleToNs(double us)
{
    return std::isfinite(us) ? roundNs(us * 1000.0) : 0;
}

} // namespace npuscope
