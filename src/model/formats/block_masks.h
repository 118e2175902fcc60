#pragma once
// Bit tricks shared by the block scanners (the timeline JSON scanner and the CSV reader), which
// turn 64 bytes at a time into bit masks (bit i: byte i).
#include <cstdint>

namespace npuscope {

// Bit i set when an odd number of bits at or below i are set in x: with x the quotes of a block,
// the bytes from an opening quote up to (not including) its closing quote.
inline std::uint64_t prefixXor(std::uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

} // namespace npuscope
