#pragma once
// Plain decimal digits read 8 at a time: the SWAR steps shared by the number parsers
// (formats/number_text.cpp) and the flow table's numeric ids.
#include <cstdint>
#include <cstring>
#include <string_view>

namespace npuscope::digits {

// The 8 bytes at p, when they are all decimal digits.
inline bool eightDigits(const char* p, std::uint64_t& word)
{
    std::memcpy(&word, p, 8);
    return (word & 0xF0F0F0F0F0F0F0F0ull) == 0x3030303030303030ull &&
           ((word + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) == 0x3030303030303030ull;
}

// The value of 8 decimal digits read as a little-endian word (first digit most significant),
// combined in pairs, then fours, then the eight.
inline std::uint64_t valueOfEightDigits(std::uint64_t word)
{
    word -= 0x3030303030303030ull;
    word = (word * 10) + (word >> 8);
    return (((word & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
            (((word >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
           32;
}

// 1 to maxDigits (at most 19, which cannot overflow) decimal digits and nothing else: no
// blank, sign or point. False when the text is not of that shape.
inline bool plainDecimal(std::string_view text, std::size_t maxDigits, std::uint64_t& out)
{
    const std::size_t n = text.size();
    if (n == 0 || n > maxDigits)
        return false;
    const char* p = text.data();
    std::uint64_t v = 0;
    std::size_t i = 0;
    for (std::uint64_t word; i + 8 <= n; i += 8) {
        if (!eightDigits(p + i, word))
            return false;
        v = v * 100000000 + valueOfEightDigits(word);
    }
    for (; i < n; ++i) {
        const unsigned d = static_cast<unsigned char>(p[i]) - unsigned('0');
        if (d > 9)
            return false;
        v = v * 10 + d;
    }
    return (out = v), true;
}

} // namespace npuscope::digits
