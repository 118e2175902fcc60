#include "model/formats/plain_event_reader.h"

#include "model/formats/number_text.h"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace npuscope {

namespace {

constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;

// Byte classes: where a bare token (number or literal) ends, and the bytes a number token may hold.
constexpr std::uint8_t kTokenEnd = 1, kNumberByte = 2;
constexpr std::array<std::uint8_t, 256> kClass = [] {
    std::array<std::uint8_t, 256> c{};
    for (const char e : {' ', '\n', '\r', '\t', ',', '}', ']', ':', '{', '[', '"'})
        c[static_cast<unsigned char>(e)] = kTokenEnd;
    for (const char n : {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '.', 'e', 'E', '+', '-'})
        c[static_cast<unsigned char>(n)] = kNumberByte;
    return c;
}();

[[gnu::always_inline]] inline bool isSpace(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Compact files have no blanks at all: one test rules out every byte past ' '.
[[gnu::always_inline]] inline void skipSpace(const char*& p, const char* end)
{
    while (p != end && static_cast<unsigned char>(*p) <= ' ' && isSpace(*p))
        ++p;
}

// `text` is the literal `lit`: a length test and N - 1 byte tests, unrolled.
template <std::size_t N>
[[gnu::always_inline]] inline bool is(std::string_view text, const char (&lit)[N])
{
    if (text.size() != N - 1)
        return false;
    for (std::size_t i = 0; i + 1 < N; ++i)
        if (text[i] != lit[i])
            return false;
    return true;
}

// The first byte from p that is a quote, a backslash, a control character or past ASCII, or
// `end`. Sixteen bytes at a time while they are there (SSE2: a signed compare with 0x20 finds
// both the control characters and the bytes past ASCII), else eight (the lowest flag of each
// test is always a true one), then byte by byte.
[[gnu::always_inline]] inline const char* stringStop(const char* p, const char* end)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                         _mm_cmplt_epi8(v, space));
        if (const int mask = _mm_movemask_epi8(hit))
            return p + std::countr_zero(static_cast<unsigned>(mask));
        p += 16;
    }
#endif
    static_assert(std::endian::native == std::endian::little, "the first byte of a word is its lowest");
    while (end - p >= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        const std::uint64_t q = w ^ (kOnes * '"'), b = w ^ (kOnes * '\\');
        const std::uint64_t hit = (((q - kOnes) & ~q) | ((b - kOnes) & ~b) | ((w - kOnes * 0x20) & ~w) | w) & kHigh;
        if (hit)
            return p + std::countr_zero(hit) / 8;
        p += 8;
    }
    while (p != end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20
           && static_cast<unsigned char>(*p) < 0x80)
        ++p;
    return p;
}

// The text of a string whose opening quote is just before p; p ends after its closing quote.
// False at an escape, a control character, a byte past ASCII or the end of the bytes.
[[gnu::always_inline]] inline bool plainString(const char*& p, const char* end, std::string_view& out)
{
    const char* const stop = stringStop(p, end);
    if (stop == end || *stop != '"')
        return false;
    out = std::string_view(p, static_cast<std::size_t>(stop - p));
    p = stop + 1;
    return true;
}

// A value other than an object or an array. `text` is a string's text without its quotes,
// else the token as written; `token` is the value as written (a string with its quotes).
struct Value {
    TraceArg::Kind kind = TraceArg::Kind::String;
    std::string_view text, token;
};

// A string, a number (a token of number characters that starts with '-' or a digit, taken as
// written, as simdjson's raw token is) or exactly true, false or null; p ends after it.
[[gnu::always_inline]] inline bool readValue(const char*& p, const char* end, Value& v)
{
    skipSpace(p, end);
    if (p == end)
        return false;
    const char* const begin = p;
    if (*p == '"') {
        ++p;
        if (!plainString(p, end, v.text))
            return false;
        v.kind = TraceArg::Kind::String;
        v.token = std::string_view(begin, static_cast<std::size_t>(p - begin));
        return true;
    }
    std::uint8_t all = kNumberByte;
    for (; p != end; ++p) {
        const std::uint8_t c = kClass[static_cast<unsigned char>(*p)];
        if (c & kTokenEnd)
            break;
        all &= c;
    }
    v.text = v.token = std::string_view(begin, static_cast<std::size_t>(p - begin));
    if (v.token.empty())
        return false; // an object or an array (or a stray delimiter)
    if (v.token[0] == '-' || (v.token[0] >= '0' && v.token[0] <= '9')) {
        v.kind = TraceArg::Kind::Number;
        return all != 0;
    }
    v.kind = TraceArg::Kind::Literal;
    return is(v.token, "true") || is(v.token, "false") || is(v.token, "null");
}

// True with p after `c`, the next byte but blanks (in the compact form, the next byte).
[[gnu::always_inline]] inline bool take(const char*& p, const char* end, char c)
{
    if (p == end || *p != c) [[unlikely]] {
        skipSpace(p, end);
        if (p == end || *p != c)
            return false;
    }
    ++p;
    return true;
}

// After a member's value: true with p after a ',' (more members follow) or after the closing
// '}' (`closed`); false at anything else.
[[gnu::always_inline]] inline bool memberEnd(const char*& p, const char* end, bool& closed)
{
    if (p == end || *p != ',') [[unlikely]] {
        skipSpace(p, end);
        if (p == end || (*p != ',' && *p != '}'))
            return false;
        closed = *p == '}';
    }
    ++p;
    return true;
}

// `"key"` and its ':' at p (after any blanks); p ends at the value (or at blanks before it).
[[gnu::always_inline]] inline bool readKey(const char*& p, const char* end, std::string_view& key)
{
    return take(p, end, '"') && plainString(p, end, key) && take(p, end, ':');
}

// The members of "args" from its '{' at p, as readArgs in timeline_chunk_parser.inl reads them:
// a repeated "args" member replaces the earlier one.
bool readArgs(const char*& p, const char* end, TraceEvent& ev, std::vector<TraceArg>& args)
{
    args.resize(args.size() - ev.argc);
    ev.argBegin = static_cast<std::uint32_t>(args.size());
    ev.argc = 0;
    ++p; // '{'
    skipSpace(p, end);
    if (p != end && *p == '}') {
        ++p;
        return true;
    }
    for (bool closed = false; !closed;) {
        std::string_view key;
        Value v;
        if (!readKey(p, end, key) || !readValue(p, end, v))
            return false;
        args.push_back(TraceArg{key, v.kind == TraceArg::Kind::String ? v.text : v.token, v.kind});
        ++ev.argc;
        if (!memberEnd(p, end, closed))
            return false;
    }
    return true;
}

// pid/tid as readId in timeline_chunk_parser.inl reads them.
void readId(const Value& v, std::int64_t& num, std::string_view& text)
{
    if (v.kind == TraceArg::Kind::String) {
        if (auto n = parseInt64(v.text)) {
            num = *n;
            text = {};
        } else {
            text = v.text.empty() ? std::string_view("\"\"") : v.text;
        }
        return;
    }
    if (auto n = parseInt64(v.token)) {
        num = *n;
        return;
    }
    if (auto d = parseDouble(v.token); d && *d >= -9.2e18 && *d <= 9.2e18) {
        num = static_cast<std::int64_t>(*d);
        return;
    }
    text = v.token;
}

// One event member other than "args"; false when its value is of a type the simdjson path
// would refuse (it then reports the event).
bool readMember(std::string_view key, const Value& v, TraceEvent& ev)
{
    const bool isString = v.kind == TraceArg::Kind::String;
    switch (key.empty() ? '\0' : key[0]) {
    case 'p':
        if (is(key, "ph")) {
            if (!isString)
                return false;
            ev.ph = v.text.empty() ? '?' : v.text[0];
        } else if (is(key, "pid")) {
            readId(v, ev.pid, ev.pidText);
            ev.hasPid = true;
        }
        return true;
    case 't':
        if (is(key, "ts")) {
            ev.hasTs = true;
            ev.tsNs = parseMicrosToNs(v.text);
        } else if (is(key, "tid")) {
            readId(v, ev.tid, ev.tidText);
            ev.hasTid = true;
        }
        return true;
    case 'd':
        if (is(key, "dur")) {
            ev.hasDur = true;
            ev.durNs = parseMicrosToNs(v.text);
        }
        return true;
    case 'n':
        if (is(key, "name"))
            ev.name = v.text;
        return true;
    case 'c':
        if (is(key, "cat"))
            ev.cat = v.text;
        return true;
    case 'i':
        if (is(key, "id")) {
            ev.idIsString = isString;
            ev.id = v.text;
            ev.hasId = true;
        }
        return true;
    case 'b':
        if (is(key, "bp")) {
            if (!isString)
                return false;
            ev.bp = v.text;
        } else if (is(key, "bind_id")) {
            ev.bindId = v.text;
        }
        return true;
    case 'f':
        if (is(key, "flow_in"))
            ev.flowIn = is(v.token, "true") ? 1 : 0;
        else if (is(key, "flow_out"))
            ev.flowOut = is(v.token, "true") ? 1 : 0;
        return true;
    default:
        return true;
    }
}

} // namespace

bool readPlainEvent(const char* begin, const char* end, TraceEvent& ev, std::vector<TraceArg>& args)
{
    const char* p = begin;
    if (p == end || *p != '{')
        return false;
    ++p;
    skipSpace(p, end);
    if (p != end && *p == '}')
        return p + 1 == end;
    for (bool closed = false; !closed;) {
        std::string_view key;
        if (!readKey(p, end, key))
            return false;
        ++ev.fields;
        if (is(key, "args") && p != end && *p == '{') {
            if (!readArgs(p, end, ev, args))
                return false;
        } else {
            Value v;
            if (!readValue(p, end, v) || !readMember(key, v, ev))
                return false;
        }
        if (!memberEnd(p, end, closed))
            return false;
    }
    return p == end;
}

} // namespace npuscope
