#pragma once
// Every string (operator name, type, stream name, shape text) is stored once; tables hold NameIds.
// The text lives in large arena blocks (no allocation per string) and the index is an
// open-addressing table of (hash tag, id) pairs, so interning a string that is already there
// costs one hash and usually one comparison.
#include "model/store/ids.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace npuscope {

// A fast 64-bit hash of a byte string (multiply-xorshift over 8-byte words). Not for
// adversarial keys; good enough to spread names, shapes and ids over a power-of-two table.
inline std::uint64_t hashText(std::string_view s) noexcept
{
    constexpr std::uint64_t kMul = 0x9FB21C651E98DF25ull;
    const char* p = s.data();
    std::size_t n = s.size();
    std::uint64_t h = 0x9E3779B97F4A7C15ull ^ (static_cast<std::uint64_t>(n) * 0xFF51AFD7ED558CCDull);
    while (n >= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        h = (h ^ w) * kMul;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        // The last 1-7 bytes are read with whole loads, not byte by byte into a word (whose
        // 8-byte reload would wait for the byte stores): the last 8 bytes of the text, shifted,
        // when it is that long; else two overlapping 4-byte or three 1-byte loads.
        std::uint64_t w;
        if (s.size() >= 8) {
            std::memcpy(&w, p + n - 8, 8);
            w >>= 8 * (8 - n);
        } else if (n >= 4) {
            std::uint32_t lo, hi;
            std::memcpy(&lo, p, 4);
            std::memcpy(&hi, p + n - 4, 4);
            w = lo | (static_cast<std::uint64_t>(hi) << 32);
        } else {
            w = static_cast<unsigned char>(p[0]) | (static_cast<std::uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8)
                | (static_cast<std::uint64_t>(static_cast<unsigned char>(p[n - 1])) << 16);
        }
        h = (h ^ w) * kMul;
        h ^= h >> 29;
    }
    h *= kMul;
    return h ^ (h >> 32);
}

class StringPool {
public:
    StringPool();
    StringPool(const StringPool& other);
    StringPool& operator=(const StringPool& other);
    StringPool(StringPool&&) noexcept = default;
    StringPool& operator=(StringPool&&) noexcept = default;

    // The longest text kept. A longer string (a 2 GB name in a broken trace) is kept as its first
    // kMaxTextBytes bytes, cut where a UTF-8 character starts, and counted in cutStrings(): the
    // loader reports it as a partial read of the file. Real names stay far below it, and 1 MiB
    // names still pass whole.
    static constexpr std::size_t kMaxTextBytes = std::size_t{16} << 20;

    // `s`, or its first kMaxTextBytes bytes cut where a UTF-8 character starts (as kept).
    static std::string_view clip(std::string_view s);
    // Id 0 is always the empty string.
    NameId intern(std::string_view s);
    // How many strings were longer than kMaxTextBytes and cut.
    std::size_t cutStrings() const { return m_cutStrings; }
    // Returns an invalid id when s was never interned.
    NameId find(std::string_view s) const;
    // Forgets the strings of ids `count` and up (their text stays held until the pool goes), so
    // that what a failed read interned leaves no trace in the ids given later. Id 0 stays.
    void truncate(std::size_t count);
    std::string_view view(NameId id) const { return id.v < m_views.size() ? m_views[id.v] : std::string_view(); }
    std::string str(NameId id) const { return std::string(view(id)); }
    std::size_t size() const { return m_views.size(); }
    // Bytes held: the text, the views and the index.
    std::size_t bytes() const;

private:
    struct Slot {
        std::uint32_t tag = 0; // 32 bits of the hash; its low bits are the home position
        std::uint32_t id = 0;  // id + 1; 0 marks an empty slot
    };
    // A string interned lately, in front of the index: a direct-mapped cache by the hash's high
    // bits. A hit costs no lookup in the index, the views and the text (misses in a pool of
    // tens of thousands of strings: 4 MB at the 1 GB benchmark profile).
    struct Recent {
        const char* text = nullptr;
        std::uint32_t size = 0;
        std::uint32_t id = 0;
    };
    static constexpr int kRecentBits = 10;
    const char* store(std::string_view s);
    void grow();
    static std::uint32_t tagOf(std::string_view s) noexcept { return static_cast<std::uint32_t>(hashText(s)); }
    void insertSlot(std::uint32_t tag, std::uint32_t id);

    std::vector<std::unique_ptr<char[]>> m_blocks;
    char* m_cursor = nullptr;
    std::size_t m_left = 0;
    std::size_t m_textBytes = 0;
    std::size_t m_cutStrings = 0;
    std::vector<std::string_view> m_views;
    std::vector<Slot> m_slots; // size is a power of two, at most half full
    std::vector<Recent> m_recent; // 2^kRecentBits entries
};

} // namespace npuscope
