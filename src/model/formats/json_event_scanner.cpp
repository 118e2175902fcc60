#include "model/formats/json_event_scanner.h"

#include <array>
#include <cstring>

namespace npuscope {

namespace {

constexpr std::size_t npos = std::string_view::npos;

// Bytes that matter outside strings; everything else (digits, letters, ':', ',') is skipped.
constexpr std::array<bool, 256> makeStructural()
{
    std::array<bool, 256> t{};
    t['"'] = t['{'] = t['}'] = t['['] = t[']'] = true;
    return t;
}
constexpr auto kStructural = makeStructural();

// Position of the quote closing the string whose opening quote is at `open`, or npos.
// memchr for the quote is vectorised by the C library; an escaped quote is told apart by
// counting the backslashes before it.
std::size_t stringEnd(std::string_view s, std::size_t open)
{
    const char* base = s.data();
    std::size_t p = open + 1;
    while (p < s.size()) {
        const void* hit = std::memchr(base + p, '"', s.size() - p);
        if (!hit)
            return npos;
        const std::size_t q = static_cast<const char*>(hit) - base;
        std::size_t bs = 0;
        while (q - bs > open + 1 && base[q - bs - 1] == '\\')
            ++bs;
        if ((bs & 1) == 0)
            return q;
        p = q + 1;
    }
    return npos;
}

// End (one past) of the object/array opened at `open`, or npos when the bytes end first.
std::size_t containerEnd(std::string_view s, std::size_t open)
{
    const auto* u = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    std::size_t depth = 0;
    std::size_t p = open;
    while (p < n) {
        const unsigned char c = u[p];
        if (!kStructural[c]) {
            ++p;
            continue;
        }
        if (c == '"') {
            const std::size_t q = stringEnd(s, p);
            if (q == npos)
                return npos;
            p = q + 1;
            continue;
        }
        if (c == '{' || c == '[') {
            ++depth;
        } else if (--depth == 0) {
            return p + 1;
        }
        ++p;
    }
    return npos;
}

} // namespace

std::size_t skipJsonSpace(std::string_view s, std::size_t pos)
{
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\n' || s[pos] == '\r' || s[pos] == '\t'))
        ++pos;
    return pos;
}

std::size_t JsonEventScanner::valueEnd(std::string_view s, std::size_t pos)
{
    if (pos >= s.size())
        return npos;
    const char c = s[pos];
    if (c == '{' || c == '[')
        return containerEnd(s, pos);
    if (c == '"') {
        const std::size_t q = stringEnd(s, pos);
        return q == npos ? npos : q + 1;
    }
    std::size_t p = pos;
    while (p < s.size() && s[p] != ',' && s[p] != ']' && s[p] != '}' && s[p] != ' ' && s[p] != '\n' &&
           s[p] != '\r' && s[p] != '\t')
        ++p;
    return p == s.size() ? npos : p;
}

bool JsonEventScanner::findEventsArray(std::string* error)
{
    auto fail = [&](std::string why) {
        if (error)
            *error = std::move(why);
        m_state = State::Garbage;
        return false;
    };
    std::size_t p = 0;
    if (m_bytes.size() >= 3 && m_bytes.substr(0, 3) == "\xEF\xBB\xBF")
        p = 3;
    p = skipJsonSpace(m_bytes, p);
    if (p >= m_bytes.size())
        return fail("empty file: no JSON trace in it");
    if (m_bytes[p] == '[') {
        m_pos = p + 1;
        return true;
    }
    if (m_bytes[p] != '{')
        return fail("not a JSON trace: it starts with neither '[' nor '{'");
    // Walk the wrapper object's members; only `traceEvents` is read, the others (metadata,
    // stackFrames, samples, systemTraceEvents, displayTimeUnit, …) are skipped whole.
    ++p;
    while (true) {
        p = skipJsonSpace(m_bytes, p);
        if (p >= m_bytes.size())
            return fail("not a JSON trace: the top-level object ends before a \"traceEvents\" array");
        if (m_bytes[p] == '}')
            return fail("not a JSON trace: the top-level object has no \"traceEvents\" array");
        if (m_bytes[p] != '"')
            return fail("not a JSON trace: malformed top-level object at byte " + std::to_string(p));
        const std::size_t q = stringEnd(m_bytes, p);
        if (q == npos)
            return fail("not a JSON trace: the top-level object ends inside a key");
        const std::string_view key = m_bytes.substr(p + 1, q - p - 1);
        p = skipJsonSpace(m_bytes, q + 1);
        if (p >= m_bytes.size() || m_bytes[p] != ':')
            return fail("not a JSON trace: malformed top-level object at byte " + std::to_string(p));
        p = skipJsonSpace(m_bytes, p + 1);
        if (key == "traceEvents") {
            if (p < m_bytes.size() && m_bytes[p] == '[') {
                m_pos = p + 1;
                return true;
            }
            return fail("not a JSON trace: \"traceEvents\" is not an array");
        }
        const std::size_t e = valueEnd(m_bytes, p);
        if (e == npos)
            return fail("not a JSON trace: the file ends inside the top-level member \"" + std::string(key) +
                        "\" before any \"traceEvents\"");
        p = skipJsonSpace(m_bytes, e);
        if (p < m_bytes.size() && m_bytes[p] == ',')
            ++p;
    }
}

bool JsonEventScanner::next(std::vector<ElementSpan>& out, std::uint64_t budget)
{
    if (m_state != State::Scanning)
        return false;
    const std::uint64_t start = m_pos;
    std::size_t p = m_pos;
    const std::size_t n = m_bytes.size();
    while (p - start < budget || out.empty()) {
        // Separators: whitespace and commas (a trailing comma before ']' is tolerated).
        while (p < n && (m_bytes[p] == ',' || m_bytes[p] == ' ' || m_bytes[p] == '\n' || m_bytes[p] == '\r' ||
                         m_bytes[p] == '\t'))
            ++p;
        if (p >= n) {
            m_pos = p;
            m_state = State::Truncated; // no closing ']' (a cut file): every complete event is kept
            break;
        }
        const char c = m_bytes[p];
        if (c == ']') {
            m_pos = p;
            m_state = State::Closed;
            break;
        }
        if (c == '}') { // e.g. `{"traceEvents":[…}`: the array was never closed
            m_pos = p;
            m_state = State::Garbage;
            break;
        }
        const std::size_t e = valueEnd(m_bytes, p);
        if (e == npos) {
            m_pos = p;
            m_state = State::Truncated;
            break;
        }
        if (c != '{')
            ++m_nonObjects;
        out.push_back(ElementSpan{p, e});
        p = e;
        m_pos = p;
    }
    return !out.empty();
}

} // namespace npuscope
