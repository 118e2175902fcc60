#pragma once
// Trace events of the plain form read straight from the file's bytes, without simdjson.
//
// Nearly every event the profilers write is one flat object of ASCII text: keys and strings
// without escapes, numbers, true/false/null, and "args" whose members are the same. Such an
// event is read here in one pass over its bytes, into the same TraceEvent and TraceArg values
// the simdjson path gives (timeline_chunk_parser.inl, readEvent): no copy of the chunk, no
// structural index of it, and no second walk over that index. An event of any other form (a
// byte past ASCII, an escape, a control character, a nested object or array other than "args",
// a bare token that is no JSON number or literal, a value of a type a member does not take) is
// refused, and the caller reads it with simdjson, which also gives the error for a bad one.
#include "model/formats/timeline_builder.h"
#include "model/store/decimal_digits.h"

#include <vector>

namespace npuscope {

// Reads the event whose bytes are [begin, end): one element span of JsonEventScanner, from its
// '{' to one past its '}'. Its arguments are appended to `args` (ev.argBegin, ev.argc) and
// its views point into those bytes. False when the event is not of the plain form; `ev` and
// the arguments appended are then to be dropped.
bool readPlainEvent(const char* begin, const char* end, TraceEvent& ev, std::vector<TraceArg>& args);

// The same for an event that starts at `begin` and ends at or before `limit`, whose last byte is
// a '}' (the end of the event, or of a later one): one past the event's '}', or nullptr when
// the event is not of the plain form or does not end before `limit`.
const char* readPlainEventAt(const char* begin, const char* limit, TraceEvent& ev, std::vector<TraceArg>& args);

// pid or tid as both readings take it: a number, or a numeric string, into `num`; any other
// string (or "\"\"" for an empty one) into `idText`, which names the process or thread; a number
// token that is no int64 (12.0, 1e3) by its value when it fits, else as text. `text` is a
// string's text (`isString`) or the token of another value. (Views by value: a reader's value
// passed by reference would have to live in memory, and copying views back right after they
// were stored one by one stalls.)
// Plain digits, nearly every id, are read inline; the rest by readTraceIdText (a call and the
// general number parsing cost about a hundred instructions an id).
void readTraceIdText(bool isString, std::string_view text, std::int64_t& num, std::string_view& idText);
inline void readTraceId(bool isString, std::string_view text, std::int64_t& num, std::string_view& idText)
{
    if (std::uint64_t u; digits::plainDecimal(text, 18, u)) { // as parseInt64 reads them
        num = static_cast<std::int64_t>(u);
        if (isString)
            idText = {};
        return;
    }
    readTraceIdText(isString, text, num, idText);
}

} // namespace npuscope
