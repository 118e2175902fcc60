#pragma once
// Bit tricks shared by the block scanners (the timeline JSON scanner and the CSV reader), which
// turn 64 bytes at a time into bit masks (bit i: byte i).
//
// The vector code follows the build's target: AVX2 (two 32-byte halves) when the compiler may
// use it, else SSE2 (four 16-byte quarters), else plain bytes. Every translation unit that
// includes this is compiled for the same target, so each inline function has one definition.
#include <cstdint>
#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__PCLMUL__)
#include <wmmintrin.h>
#endif

namespace npuscope {

// Bit i set when an odd number of bits at or below i are set in x: with x the quotes of a block,
// the bytes from an opening quote up to (not including) its closing quote.
inline std::uint64_t prefixXor(std::uint64_t x)
{
#if defined(__PCLMUL__)
    // A carry-less multiplication by all ones is the same prefix sum modulo 2, in one instruction.
    const __m128i v = _mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<long long>(x)), _mm_set1_epi8(char(0xFF)), 0);
    return static_cast<std::uint64_t>(_mm_cvtsi128_si64(v));
#else
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
#endif
}

// 64 bytes loaded once and compared with single characters.
class Block64 {
public:
    // Reads the 64 bytes at p.
    explicit Block64(const void* p)
    {
#if defined(__AVX2__)
        for (int k = 0; k < 2; ++k)
            m_v[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(static_cast<const char*>(p) + 32 * k));
#elif defined(__SSE2__)
        for (int k = 0; k < 4; ++k)
            m_v[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const char*>(p) + 16 * k));
#else
        std::memcpy(m_bytes, p, 64);
#endif
    }

    // The bytes equal to c.
    std::uint64_t eq(char c) const { return match(c, 0); }
    // The bytes b with (b | 0x20) == c: eqFolded('{') finds '{' and '[' (and no other byte),
    // eqFolded('}') finds '}' and ']'.
    std::uint64_t eqFolded(char c) const { return match(c, 0x20); }

private:
    std::uint64_t match(char c, char fold) const
    {
#if defined(__AVX2__)
        const __m256i want = _mm256_set1_epi8(c), f = _mm256_set1_epi8(fold);
        std::uint64_t m = 0;
        for (int k = 0; k < 2; ++k) {
            const __m256i eq = _mm256_cmpeq_epi8(_mm256_or_si256(m_v[k], f), want);
            m |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(eq))) << (32 * k);
        }
        return m;
#elif defined(__SSE2__)
        const __m128i want = _mm_set1_epi8(c), f = _mm_set1_epi8(fold);
        std::uint64_t m = 0;
        for (int k = 0; k < 4; ++k) {
            const __m128i eq = _mm_cmpeq_epi8(_mm_or_si128(m_v[k], f), want);
            m |= static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(eq))) << (16 * k);
        }
        return m;
#else
        std::uint64_t m = 0;
        for (int i = 0; i < 64; ++i)
            m |= static_cast<char>(m_bytes[i] | fold) == c ? std::uint64_t(1) << i : 0;
        return m;
#endif
    }

#if defined(__AVX2__)
    __m256i m_v[2];
#elif defined(__SSE2__)
    __m128i m_v[4];
#else
    char m_bytes[64];
#endif
};

} // namespace npuscope
