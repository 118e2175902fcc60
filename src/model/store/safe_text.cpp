#include "model/store/safe_text.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace npuscope::text {

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when the byte there starts none.
std::size_t sequenceAt(std::string_view s, std::size_t i)
{
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    if (c < 0x80)
        return 1;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF; // range of the first continuation byte
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F; // no UTF-16 surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F; // nothing above U+10FFFF
    } else {
        return 0;
    }
    if (i + n > s.size())
        return 0;
    if (b(i + 1) < lo || b(i + 1) > hi)
        return 0;
    for (std::size_t k = 2; k < n; ++k)
        if ((b(i + k) & 0xC0) != 0x80)
            return 0;
    return n;
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Calls `cp(bytes)` for each valid sequence and `bad()` for each invalid byte.
template <typename Valid, typename Invalid>
void walk(std::string_view s, Valid&& valid, Invalid&& invalid)
{
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = sequenceAt(s, i);
        if (n == 0) {
            invalid();
            ++i;
        } else {
            valid(s.substr(i, n));
            i += n;
        }
    }
}

// A Unicode code point from a valid sequence.
std::uint32_t codePoint(std::string_view seq)
{
    const auto c0 = static_cast<unsigned char>(seq[0]);
    if (seq.size() == 1)
        return c0;
    std::uint32_t v = c0 & (0xFF >> (seq.size() + 1));
    for (std::size_t k = 1; k < seq.size(); ++k)
        v = (v << 6) | (static_cast<unsigned char>(seq[k]) & 0x3F);
    return v;
}

bool isPlainNumber(std::string_view s)
{
    std::size_t i = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
        ++i;
    std::size_t digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9')
        ++i, ++digits;
    if (i < s.size() && s[i] == '.') {
        ++i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9')
            ++i, ++digits;
    }
    if (digits == 0)
        return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-'))
            ++i;
        std::size_t exp = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9')
            ++i, ++exp;
        if (exp == 0)
            return false;
    }
    return i == s.size();
}

bool looksLikeFormula(std::string_view s)
{
    if (s.empty())
        return false;
    const char c = s.front();
    if (c == '=' || c == '@' || c == '\t' || c == '\r')
        return true;
    return (c == '+' || c == '-') && !isPlainNumber(s);
}

template <typename J>
std::size_t countInvalid(const J& j)
{
    std::size_t n = 0;
    if (j.is_string()) {
        n += isValidUtf8(j.template get_ref<const std::string&>()) ? 0 : 1;
    } else if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it)
            n += (isValidUtf8(it.key()) ? 0 : 1) + countInvalid(it.value());
    } else if (j.is_array()) {
        for (const auto& v : j)
            n += countInvalid(v);
    }
    return n;
}

} // namespace

bool isValidUtf8(std::string_view s)
{
    for (std::size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            ++i;
            continue;
        }
        const std::size_t n = sequenceAt(s, i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

std::string validUtf8(std::string_view s)
{
    if (isValidUtf8(s))
        return std::string(s);
    std::string out;
    out.reserve(s.size() + 8);
    walk(s, [&](std::string_view seq) { out += seq; }, [&] { out += kReplacement; });
    return out;
}

std::string forTerminal(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    auto hex = [&](std::uint32_t v, const char* fmt) {
        char buf[16];
        std::snprintf(buf, sizeof buf, fmt, unsigned(v));
        out += buf;
    };
    walk(
        s,
        [&](std::string_view seq) {
            const std::uint32_t cp = codePoint(seq);
            if (cp == '\n')
                out += "\\n";
            else if (cp == '\t')
                out += "\\t";
            else if (cp == '\r')
                out += "\\r";
            else if (cp < 0x20 || cp == 0x7F)
                hex(cp, "\\x%02x");
            else if ((cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
                hex(cp, "\\u%04x"); // C1 controls; bidi overrides would reorder the rest of the line
            else
                out += seq;
        },
        [&] { out += kReplacement; });
    return out;
}

std::string plainText(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    walk(
        s,
        [&](std::string_view seq) {
            const auto c = static_cast<unsigned char>(seq[0]);
            if (seq.size() == 1 && ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F)) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(c));
                out += buf;
            } else {
                out += seq;
            }
        },
        [&] { out += kReplacement; });
    return out;
}

std::string htmlEscape(std::string_view s)
{
    std::string out;
    out.reserve(s.size() + s.size() / 8);
    walk(
        s,
        [&](std::string_view seq) {
            switch (seq[0]) {
            case '&': out += "&amp;"; return;
            case '<': out += "&lt;"; return;
            case '>': out += "&gt;"; return;
            case '"': out += "&quot;"; return;
            case '\'': out += "&#39;"; return;
            default: break;
            }
            const std::uint32_t cp = codePoint(seq);
            if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F))
                out += kReplacement;
            else
                out += seq;
        },
        [&] { out += kReplacement; });
    return out;
}

std::string csvCell(std::string_view raw)
{
    std::string s = validUtf8(raw);
    if (looksLikeFormula(s))
        s.insert(s.begin(), '\'');
    if (s.find_first_of(",\"\n\r") == std::string::npos)
        return s;
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

std::string markdownCell(std::string_view raw)
{
    std::string out;
    if (looksLikeFormula(raw))
        out += '\'';
    walk(
        raw,
        [&](std::string_view seq) {
            const auto c = static_cast<unsigned char>(seq[0]);
            if (c == '|' || c == '\\')
                out += '\\';
            if (c == '\n' || c == '\r' || c == '\t')
                out += ' ';
            else if (seq.size() == 1 && (c < 0x20 || c == 0x7F))
                return;
            else
                out += seq;
        },
        [&] { out += kReplacement; });
    return out;
}

std::size_t invalidStrings(const nlohmann::json& j) { return countInvalid(j); }
std::size_t invalidStrings(const nlohmann::ordered_json& j) { return countInvalid(j); }

std::string dumpJson(const nlohmann::json& j, int indent)
{
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string dumpJson(const nlohmann::ordered_json& j, int indent)
{
    return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace npuscope::text
