#include "model/formats/plain_event_reader.h"

#include "model/formats/number_text.h"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Every function below reads inside bytes whose last one is a '}' (the event's own or a later
// event's; checked first): a string, number or literal that was read ends before that byte, so
// the byte after it can be looked at without testing for the end.

namespace npuscope {

namespace {

static_assert(std::endian::native == std::endian::little, "the first byte of a word is its lowest");

constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;

// Byte classes: where a bare token (number or literal) ends, and the bytes a number token may hold.
constexpr std::uint8_t kTokenEnd = 1, kNumberByte = 2;
constexpr std::array<std::uint8_t, 256> kClass = [] {
    std::array<std::uint8_t, 256> c{};
    for (const char e : {' ', '\n', '\r', '\t', ',', '}', ']', ':', '{', '[', '"'})
        c[static_cast<unsigned char>(e)] = kTokenEnd;
    for (int b = 0; b < 256; ++b)
        if (isJsonNumberByte(static_cast<char>(b)))
            c[static_cast<std::size_t>(b)] = kNumberByte;
    return c;
}();

[[gnu::always_inline]] inline bool tokenEnd(char c)
{
    return kClass[static_cast<unsigned char>(c)] & kTokenEnd;
}

// Compact files have no blanks at all: one test rules out every byte past ' '.
[[gnu::always_inline]] inline void skipSpace(const char*& p)
{
    while (static_cast<unsigned char>(*p) <= ' ' && isJsonSpace(*p))
        ++p;
}

// The first n (at most 8) bytes at p as one little-endian word, and the same of a literal:
// keys and literals are told apart by one comparison of words.
// Whole loads only: a word assembled from narrower stores would wait for them to retire.
[[gnu::always_inline]] inline std::uint64_t wordAt(const char* p, std::size_t n)
{
    std::uint16_t w2;
    std::uint32_t w4, high4;
    std::uint64_t w8;
    switch (n) {
    case 2: return std::memcpy(&w2, p, 2), w2;
    case 3: return std::memcpy(&w2, p, 2), w2 | (std::uint64_t(static_cast<unsigned char>(p[2])) << 16);
    case 4: return std::memcpy(&w4, p, 4), w4;
    case 5: return std::memcpy(&w4, p, 4), w4 | (std::uint64_t(static_cast<unsigned char>(p[4])) << 32);
    case 7: // bytes 0-3, and 3-6 shifted past byte 3
        std::memcpy(&w4, p, 4);
        std::memcpy(&high4, p + 3, 4);
        return w4 | (std::uint64_t(high4 >> 8) << 32);
    case 8: return std::memcpy(&w8, p, 8), w8;
    default: {
        std::uint64_t w = 0;
        for (std::size_t i = 0; i < n; ++i)
            w |= std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
        return w;
    }
    }
}
template <std::size_t N>
constexpr std::uint64_t wordOf(const char (&lit)[N])
{
    static_assert(N - 1 <= 8);
    std::uint64_t w = 0;
    for (std::size_t i = 0; i + 1 < N; ++i)
        w |= static_cast<std::uint64_t>(static_cast<unsigned char>(lit[i])) << (8 * i);
    return w;
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

// The first byte from p that no number holds (digits, '.', 'e', 'E', '+', '-'), or `end`.
[[gnu::always_inline]] inline const char* numberStop(const char* p, const char* end)
{
#if defined(__SSE2__)
    while (end - p >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i d = _mm_sub_epi8(v, _mm_set1_epi8('0'));
        const __m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
        const __m128i sign = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('-')), _mm_cmpeq_epi8(v, _mm_set1_epi8('+')));
        const __m128i other = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('.')),
                                           _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8('e')));
        const int number = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(digit, sign), other));
        if (number != 0xFFFF)
            return p + std::countr_zero(static_cast<unsigned>(~number & 0xFFFF));
        p += 16;
    }
#endif
    while (p != end && (kClass[static_cast<unsigned char>(*p)] & kNumberByte))
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

// A value other than an object or an array: a string's text without its quotes, else the
// token as written (a number or a literal).
struct Value {
    TraceArg::Kind kind = TraceArg::Kind::String;
    std::string_view text;
};

// The literal `lit` at p, followed by the end of the token.
template <std::size_t N>
[[gnu::always_inline]] inline bool literalAt(const char* p, const char* end, const char (&lit)[N])
{
    return end - p > static_cast<std::ptrdiff_t>(N - 1) && wordAt(p, N - 1) == wordOf(lit) && tokenEnd(p[N - 1]);
}

// A string, a number (a token of number characters that starts with '-' or a digit, taken as
// written, as simdjson's raw token is) or exactly true, false or null; p ends after it.
[[gnu::always_inline]] inline bool readValue(const char*& p, const char* end, Value& v)
{
    skipSpace(p);
    const char* const begin = p;
    const char c = *p;
    if (c == '"') {
        ++p;
        if (!plainString(p, end, v.text))
            return false;
        v.kind = TraceArg::Kind::String;
        return true;
    }
    if (c == '-' || static_cast<unsigned>(c - '0') < 10) {
        p = numberStop(p + 1, end);
        if (!tokenEnd(*p)) // a byte no number holds, inside the token: not of the plain form
            return false;
        v.kind = TraceArg::Kind::Number;
    } else {
        std::size_t n = 0;
        if (c == 't' && literalAt(p, end, "true"))
            n = 4;
        else if (c == 'f' && literalAt(p, end, "false"))
            n = 5;
        else if (c == 'n' && literalAt(p, end, "null"))
            n = 4;
        else
            return false; // an object, an array, another word or a stray delimiter
        p += n;
        v.kind = TraceArg::Kind::Literal;
    }
    v.text = std::string_view(begin, static_cast<std::size_t>(p - begin));
    return true;
}

// True with p after `c`, the next byte but blanks (in the compact form, the next byte).
[[gnu::always_inline]] inline bool take(const char*& p, char c)
{
    if (*p != c) [[unlikely]] {
        skipSpace(p);
        if (*p != c)
            return false;
    }
    ++p;
    return true;
}

// After a member's value: true with p after a ',' (more members follow) or after the closing
// '}' (`closed`); false at anything else.
[[gnu::always_inline]] inline bool memberEnd(const char*& p, bool& closed)
{
    if (*p != ',') [[unlikely]] {
        skipSpace(p);
        if (*p != ',' && *p != '}')
            return false;
        closed = *p == '}';
    }
    ++p;
    return true;
}

// `"key"` and its ':' at p (after any blanks); p ends at the value (or at blanks before it).
[[gnu::always_inline]] inline bool readKey(const char*& p, const char* end, std::string_view& key)
{
    return take(p, '"') && plainString(p, end, key) && take(p, ':');
}

// The members of "args" from its '{' at p, as readArgs in timeline_chunk_parser.inl reads them:
// a repeated "args" member replaces the earlier one.
bool readArgs(const char*& p, const char* end, TraceEvent& ev, std::vector<TraceArg>& args)
{
    args.resize(args.size() - ev.argc);
    ev.argBegin = static_cast<std::uint32_t>(args.size());
    ev.argc = 0;
    ++p; // '{'
    skipSpace(p);
    if (*p == '}') {
        ++p;
        return true;
    }
    for (bool closed = false; !closed;) {
        std::string_view key;
        Value v;
        if (!readKey(p, end, key) || !readValue(p, end, v))
            return false;
        // Written in place: a TraceArg built aside and copied would be read back whole right
        // after its fields were stored one by one, which stalls the copy.
        TraceArg& a = args.emplace_back();
        a.key = key;
        a.value = v.text;
        a.kind = v.kind;
        ++ev.argc;
        if (!memberEnd(p, closed))
            return false;
    }
    return true;
}

// The event members read; Other for every other key. As keyOf in timeline_chunk_parser.inl,
// here by the key's length and its bytes as one word.
enum class Member { Other, Ph, Pid, Ts, Tid, Dur, Name, Cat, Args, Id, Bp, BindId, FlowIn, FlowOut };

[[gnu::always_inline]] inline Member memberOf(std::string_view key)
{
    const char* k = key.data();
    switch (key.size()) {
    case 2: {
        const std::uint64_t w = wordAt(k, 2);
        return w == wordOf("ph") ? Member::Ph
               : w == wordOf("ts") ? Member::Ts
               : w == wordOf("id") ? Member::Id
               : w == wordOf("bp") ? Member::Bp
                                   : Member::Other;
    }
    case 3: {
        const std::uint64_t w = wordAt(k, 3);
        return w == wordOf("pid") ? Member::Pid
               : w == wordOf("tid") ? Member::Tid
               : w == wordOf("dur") ? Member::Dur
               : w == wordOf("cat") ? Member::Cat
                                    : Member::Other;
    }
    case 4: {
        const std::uint64_t w = wordAt(k, 4);
        return w == wordOf("name") ? Member::Name : w == wordOf("args") ? Member::Args : Member::Other;
    }
    case 7: {
        const std::uint64_t w = wordAt(k, 7);
        return w == wordOf("bind_id") ? Member::BindId : w == wordOf("flow_in") ? Member::FlowIn : Member::Other;
    }
    case 8:
        return wordAt(k, 8) == wordOf("flow_out") ? Member::FlowOut : Member::Other;
    default:
        return Member::Other;
    }
}

// One event member other than "args"; false when its value is of a type the simdjson path
// would refuse (it then reports the event).
[[gnu::always_inline]] inline bool readMember(Member m, const Value& v, TraceEvent& ev)
{
    const bool isString = v.kind == TraceArg::Kind::String;
    switch (m) {
    case Member::Ph:
        if (!isString)
            return false;
        ev.ph = v.text.empty() ? '?' : v.text[0];
        break;
    case Member::Pid:
        readTraceId(isString, v.text, ev.pid, ev.pidText);
        ev.hasPid = true;
        break;
    case Member::Ts:
        ev.hasTs = true;
        ev.tsNs = parseMicrosToNs(v.text);
        break;
    case Member::Tid:
        readTraceId(isString, v.text, ev.tid, ev.tidText);
        ev.hasTid = true;
        break;
    case Member::Dur:
        ev.hasDur = true;
        ev.durNs = parseMicrosToNs(v.text);
        break;
    case Member::Name: ev.name = v.text; break;
    case Member::Cat: ev.cat = v.text; break;
    case Member::Id:
        ev.idIsString = isString;
        ev.id = v.text;
        ev.hasId = true;
        break;
    case Member::Bp:
        if (!isString)
            return false;
        ev.bp = v.text;
        break;
    case Member::BindId: ev.bindId = v.text; break;
    case Member::FlowIn: ev.flowIn = !isString && v.text == "true" ? 1 : 0; break;
    case Member::FlowOut: ev.flowOut = !isString && v.text == "true" ? 1 : 0; break;
    case Member::Args: // "args" that is no object: ignored, as simdjson's reading does
    case Member::Other: break;
    }
    return true;
}

} // namespace

void readTraceIdText(bool isString, std::string_view text, std::int64_t& num, std::string_view& idText)
{
    if (isString) {
        if (auto n = parseInt64(text)) {
            num = *n;
            idText = {};
        } else {
            idText = text.empty() ? std::string_view("\"\"") : text;
        }
        return;
    }
    if (auto n = parseInt64(text)) {
        num = *n;
        return;
    }
    if (auto d = parseDouble(text); d && *d >= -9.2e18 && *d <= 9.2e18) { // 12.0 or 1e3; 1e99 stays text
        num = static_cast<std::int64_t>(*d);
        return;
    }
    idText = text;
}

const char* readPlainEventAt(const char* begin, const char* limit, TraceEvent& ev, std::vector<TraceArg>& args)
{
    const char* const end = limit; // every read below stops at the '}' before it
    if (end - begin < 2 || *begin != '{' || end[-1] != '}')
        return nullptr;
    const char* p = begin + 1;
    skipSpace(p);
    if (*p == '}')
        return p + 1;
    for (bool closed = false; !closed;) {
        std::string_view key;
        if (!readKey(p, end, key))
            return nullptr;
        ++ev.fields;
        const Member m = memberOf(key);
        if (m == Member::Args && (skipSpace(p), *p == '{')) {
            if (!readArgs(p, end, ev, args) || p == end) // the limit's '}' was the arguments' own
                return nullptr;
        } else {
            Value v;
            if (!readValue(p, end, v) || !readMember(m, v, ev))
                return nullptr;
        }
        if (!memberEnd(p, closed))
            return nullptr;
    }
    return p;
}

bool readPlainEvent(const char* begin, const char* end, TraceEvent& ev, std::vector<TraceArg>& args)
{
    return readPlainEventAt(begin, end, ev, args) == end;
}

} // namespace npuscope
