#pragma once
// Parses the events of one chunk of element spans (plain ones without simdjson, see
// plain_event_reader.h; the others with simdjson On-Demand) and hands them to a TimelineBuilder. Two builds of the same code: a portable one and one compiled for AVX2
// (simdjson's On-Demand kernel is chosen at compile time, so the fast kernel needs its own
// translation unit); timeline_reader.cpp picks one at run time.
#include "model/formats/json_event_scanner.h"
#include "model/formats/number_text.h"

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

// GCC on an AVX2 baseline that lacks another of simdjson's Haswell requirements (x86-64-v3 has
// AVX2 but not PCLMUL): the Haswell build exists beside the portable one (see
// timeline_chunk_parser_avx2.cpp) and is picked at run time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__AVX2__) &&             \
    !(defined(__BMI__) && defined(__PCLMUL__) && defined(__LZCNT__))
#define NPUSCOPE_AVX2_CHUNK_PARSER 1
#endif

namespace npuscope {

struct EventBatch;

class EventChunkParser {
public:
    virtual ~EventChunkParser() = default;
    // Parses `spans`, consecutive elements of the events array of `bytes` (given at creation),
    // into `out` (cleared first). The views in `out` stay valid until this parser parses again.
    // True when every event was read as a plain one (without simdjson).
    virtual bool parse(const std::vector<ElementSpan>& spans, EventBatch& out) = 0;
    // Reads the bytes [begin, end) of the events array, which start after an element (or at the
    // array's start) and end with an event's '}', as plain events and the separators between
    // them (readPlainEventAt), into `out`. False, with `out` empty, at the first byte that is
    // no separator and starts no plain event: the caller then cuts the bytes into spans.
    virtual bool parseRange(std::uint64_t begin, std::uint64_t end, EventBatch& out) = 0;
};

// How a chunk parser reads: with `plainEvents`, a chunk whose events are all of the plain form
// (plain_event_reader.h) is read without simdjson; any other chunk, and every chunk without it,
// is read with simdjson. With `copyBytes` (ReadContext::copyBytes), a chunk cut by a guess is
// copied into the parser's buffer and read there: bytes nobody touched yet, which the copy
// brings in for less than reading them in place costs.
struct ChunkParserOptions {
    bool plainEvents = true;
    const std::function<void(std::uint64_t offset, char* to, std::size_t n)>* copyBytes = nullptr;
};
std::unique_ptr<EventChunkParser> makePortableChunkParser(std::string_view bytes, const ChunkParserOptions& options);
// nullptr when this build has no AVX2 variant (non-x86 targets, or the baseline already runs
// simdjson's Haswell kernel). Call only when the CPU supports AVX2, BMI1, PCLMUL and LZCNT.
std::unique_ptr<EventChunkParser> makeAvx2ChunkParser(std::string_view bytes, const ChunkParserOptions& options);

namespace jsontext {
// Token text without trailing whitespace.
inline std::string_view trimToken(std::string_view s)
{
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}
// The raw text of a scalar, without the quotes of a string ("…895.870" -> …895.870).
inline std::string_view unquote(std::string_view tok)
{
    tok = trimToken(tok);
    if (tok.size() >= 2 && tok.front() == '"' && tok.back() == '"')
        return tok.substr(1, tok.size() - 2);
    return tok;
}
// True when a bare token (trimmed) is a literal (true, false, null) or reads as a number the way
// the plain-form reader takes one: a '-' or a digit, then only digits, '.', 'e', 'E', '+', '-'.
// simdjson's raw token runs to the next delimiter whatever it holds ("27x81" after a damaged
// byte), and is checked with this before its text is taken, so that both readings refuse the
// same events.
inline bool isBareScalar(std::string_view t)
{
    if (t == "true" || t == "false" || t == "null")
        return true;
    if (t.empty() || !(t[0] == '-' || (t[0] >= '0' && t[0] <= '9')))
        return false;
    for (const char c : t)
        if (!isJsonNumberByte(c))
            return false;
    return true;
}
} // namespace jsontext

} // namespace npuscope
