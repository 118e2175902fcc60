#include "model/formats/json_event_scanner.h"

#include "model/formats/block_masks.h"

#include <algorithm>
#include <array>
#include <bit>
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

// One 64-byte block as bit masks (bit i: byte i): quotes, backslashes, '{' or '[', '}' or ']'.
struct BlockMasks {
    std::uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

BlockMasks masksOf(const unsigned char* p)
{
    const Block64 b(p);
    return BlockMasks{b.eq('"'), b.eq('\\'), b.eqFolded('{'), b.eqFolded('}')};
}

// The bytes of a block escaped by a backslash. `carry`: the block's first byte is escaped (a
// backslash ended the previous block); set for the next block.
std::uint64_t escapedBytes(std::uint64_t backslash, bool& carry)
{
    std::uint64_t escaped = carry ? 1 : 0;
    carry = false;
    backslash &= ~escaped;
    while (backslash) {
        const std::uint64_t bit = backslash & (~backslash + 1);
        const std::uint64_t next = bit << 1;
        if (!next) {
            carry = true;
            break;
        }
        escaped |= next;
        backslash &= ~(bit | next); // an escaped backslash escapes nothing
    }
    return escaped;
}

} // namespace

std::size_t skipSeparators(std::string_view s, std::size_t pos)
{
    while (pos < s.size() && (s[pos] == ',' || s[pos] == ' ' || s[pos] == '\n' || s[pos] == '\r' || s[pos] == '\t'))
        ++pos;
    return pos;
}

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

bool JsonEventScanner::scanBlocks(std::vector<ElementSpan>& out, std::uint64_t start, std::uint64_t budget)
{
    const auto* base = reinterpret_cast<const unsigned char*>(m_bytes.data());
    const std::size_t n = m_bytes.size();
    std::size_t lastEnd = m_pos; // end of the last element taken
    std::size_t begin = 0;       // start of the element being read
    std::int64_t depth = 0;
    bool escapeCarry = false;
    std::uint64_t stringCarry = 0; // all ones when the previous block ended inside a string
    unsigned char tail[64];
    for (std::size_t pos = m_pos; pos < n; pos += 64) {
        // Between objects come a few separators. A whole block outside any object means
        // something else (a string or a number element, a run of blanks): it is left to the
        // value-by-value reader, or an array of a million numbers would be scanned to its end
        // once per number.
        if (depth == 0 && pos > lastEnd + 64) {
            m_pos = lastEnd;
            return false;
        }
        const unsigned char* p = base + pos;
        std::uint64_t valid = ~std::uint64_t(0);
        if (n - pos < 64) {
            std::memset(tail, ' ', sizeof tail);
            std::memcpy(tail, p, n - pos);
            p = tail;
            valid = (std::uint64_t(1) << (n - pos)) - 1;
        }
        const BlockMasks m = masksOf(p);
        const std::uint64_t escaped = (m.backslash | escapeCarry) ? escapedBytes(m.backslash, escapeCarry) : 0;
        const std::uint64_t inString = prefixXor(m.quote & ~escaped) ^ stringCarry;
        stringCarry = static_cast<std::uint64_t>(static_cast<std::int64_t>(inString) >> 63);
        for (std::uint64_t brackets = (m.open | m.close) & ~inString & valid; brackets; brackets &= brackets - 1) {
            const int i = std::countr_zero(brackets);
            const std::size_t at = pos + static_cast<std::size_t>(i);
            if ((m.open >> i) & 1) {
                if (depth++ > 0)
                    continue;
                // An element starts: only an object, after nothing but separators, is taken here.
                if (base[at] != '{' || skipSeparators(m_bytes, lastEnd) != at) {
                    m_pos = lastEnd;
                    return false;
                }
                begin = at;
            } else if (--depth == 0) {
                out.push_back(ElementSpan{begin, at + 1});
                lastEnd = at + 1;
                if (lastEnd - start >= budget) {
                    m_pos = lastEnd;
                    return true;
                }
            } else if (depth < 0) { // the array's ']' (or a stray '}')
                m_pos = lastEnd;
                return false;
            }
        }
    }
    m_pos = lastEnd; // the bytes end, inside an element or after the last one
    return false;
}

bool JsonEventScanner::nextGuess(std::uint64_t budget, ElementSpan& chunk)
{
    // The cut is looked for in the next `budget` bytes (4 KB at least), and a budget's bytes are
    // left after them for next().
    const std::uint64_t search = std::max<std::uint64_t>(budget, 4096);
    const std::uint64_t n = m_bytes.size();
    if (m_state != State::Scanning || budget == 0 || m_pos + 2 * budget + search > n)
        return false;
    const char* const base = m_bytes.data();
    const std::uint64_t limit = m_pos + budget + search;
    for (std::uint64_t p = m_pos + budget; p < limit;) {
        const void* hit = std::memchr(base + p, '}', limit - p);
        if (!hit)
            return false;
        const std::uint64_t close = static_cast<std::uint64_t>(static_cast<const char*>(hit) - base);
        std::uint64_t q = skipJsonSpace(m_bytes, close + 1);
        if (q < n && base[q] == ',') {
            q = skipSeparators(m_bytes, q + 1);
            if (q < n && base[q] == '{') {
                chunk = ElementSpan{m_pos, close + 1};
                m_pos = close + 1;
                return true;
            }
        }
        p = close + 1;
    }
    return false;
}

bool JsonEventScanner::next(std::vector<ElementSpan>& out, std::uint64_t budget)
{
    if (m_state != State::Scanning)
        return false;
    const std::uint64_t start = m_pos;
    const std::size_t n = m_bytes.size();
    // Objects are cut from 64-byte blocks; whatever the blocks stop at (the end of the array or
    // of the bytes, an element that is not an object, garbage) is read here one byte at a time.
    while (!scanBlocks(out, start, budget) && (m_pos - start < budget || out.empty())) {
        const std::size_t p = skipSeparators(m_bytes, m_pos);
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
        m_pos = e;
        if (m_pos - start >= budget)
            break;
    }
    return !out.empty();
}

} // namespace npuscope
