#pragma once
// A fast structural scanner for the top level of a Chrome trace: finds the events array (bare
// `[…]` or the `traceEvents` member of a wrapper object) and cuts it into element spans by
// tracking string/escape state and bracket depth only. The spans are then parsed one chunk at a
// time by simdjson, so no DOM of the whole file is ever built, and a chunk can be parsed
// independently of the others.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace npuscope {

struct ElementSpan {
    std::uint64_t begin = 0; // offset of the element's first byte ('{' for an event)
    std::uint64_t end = 0;   // one past its last byte
};

class JsonEventScanner {
public:
    enum class State { Scanning, Closed, Truncated, Garbage };

    explicit JsonEventScanner(std::string_view bytes) : m_bytes(bytes) {}

    // Locates the events array. False (with `error` set to a sentence) when the bytes are not a
    // trace: empty, not JSON, or an object without a `traceEvents` array.
    bool findEventsArray(std::string* error);

    // Appends spans of complete elements until about `budget` bytes are covered or the array
    // stops. Returns false once nothing more can be read (see state()).
    bool next(std::vector<ElementSpan>& out, std::uint64_t budget);

    // Cuts the next chunk without reading it: from the position after the last element taken
    // to the end of the first `}` at least `budget` bytes on that is followed by `,` and `{` (and
    // blanks). The cut is a guess: such bytes may also sit inside a string or a nested value, so
    // the caller keeps the chunk only once the events before it were read up to its start and
    // its own events up to its end. False, with nothing changed, near the end of the bytes
    // (the last chunks are always cut by next()) or when no such bytes come soon.
    bool nextGuess(std::uint64_t budget, ElementSpan& chunk);

    // Scanning again from `pos`, which is to be the end of an element (or the array's start).
    void resumeAt(std::uint64_t pos)
    {
        m_pos = pos;
        m_state = State::Scanning;
    }

    State state() const { return m_state; }
    // Where scanning stopped: the first byte not consumed (truncated fragment, garbage, or ']').
    std::uint64_t position() const { return m_pos; }
    // A non-object element at the top level (a number, string, nested array) was seen.
    std::uint64_t nonObjects() const { return m_nonObjects; }

    // End of the JSON value starting at `pos` (object, array, string or literal), or npos when
    // the bytes end first. Exposed for the tests.
    static std::size_t valueEnd(std::string_view s, std::size_t pos);

private:
    // Appends the objects that follow m_pos, found 64 bytes at a time (string and escape state
    // from bit masks, then bracket depth), until `budget` bytes from `start` are covered (true)
    // or something else comes (false); m_pos ends after the last object taken.
    bool scanBlocks(std::vector<ElementSpan>& out, std::uint64_t start, std::uint64_t budget);

    std::string_view m_bytes;
    std::uint64_t m_pos = 0;
    State m_state = State::Scanning;
    std::uint64_t m_nonObjects = 0;
};

// Skips spaces, tabs, CR, LF from pos; returns the new position.
std::size_t skipJsonSpace(std::string_view s, std::size_t pos);
// Skips the separators between elements: blanks and commas (a trailing comma before ']' is
// tolerated); returns the new position.
std::size_t skipSeparators(std::string_view s, std::size_t pos);

} // namespace npuscope
