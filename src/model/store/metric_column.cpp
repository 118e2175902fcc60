#include "model/store/metric_column.h"

#include <algorithm>
#include <bit>

namespace npuscope {

namespace {

constexpr std::size_t kMaxDistinct = std::size_t(1) << 16;
constexpr std::uint32_t kNoCode = ~0u;

std::uint64_t bitsOf(double v)
{
    return std::bit_cast<std::uint64_t>(v);
}

std::size_t slotOf(std::uint64_t bits, std::size_t mask)
{
    return static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}

} // namespace

void MetricColumn::rehash(std::size_t slots)
{
    m_slots.assign(slots, 0);
    const std::size_t mask = slots - 1;
    for (std::size_t c = 0; c < m_values.size(); ++c) {
        std::size_t s = slotOf(bitsOf(m_values[c]), mask);
        while (m_slots[s] != 0)
            s = (s + 1) & mask;
        m_slots[s] = static_cast<std::uint32_t>(c + 1);
    }
}

bool MetricColumn::repeatsLast(std::uint64_t bits) const
{
    return bits == m_lastBits && m_lastCode != kNoCode;
}

// Open addressing over the distinct values, kept at most half full; it starts small so that
// columns of a few values stay in cache.
std::uint32_t MetricColumn::codeOf(std::uint64_t bits)
{
    if (m_slots.empty()) // first value, or appending again after compact()
        rehash(std::max<std::size_t>(1024, std::bit_ceil(2 * m_values.size() + 2)));
    const std::size_t mask = m_slots.size() - 1;
    std::size_t s = slotOf(bits, mask);
    while (m_slots[s] != 0 && bitsOf(m_values[m_slots[s] - 1]) != bits)
        s = (s + 1) & mask;
    if (m_slots[s] != 0)
        return m_slots[s] - 1;
    m_values.push_back(std::bit_cast<double>(bits));
    m_slots[s] = static_cast<std::uint32_t>(m_values.size());
    if (m_values.size() * 2 > m_slots.size())
        rehash(m_slots.size() * 2);
    return static_cast<std::uint32_t>(m_values.size() - 1);
}

// A 65,537th distinct value (already appended to m_values): the codes so far become doubles,
// and so does everything appended after them.
void MetricColumn::becomeWide()
{
    m_values.pop_back();
    const std::size_t capacity = m_codes.capacity();
    expand();
    m_manyValues = true;
    m_raw.reserve(capacity);
}

void MetricColumn::pushCoded(double v)
{
    const std::uint64_t bits = bitsOf(v);
    if (!repeatsLast(bits)) {
        const std::uint32_t code = lookUp(bits);
        if (code == kNoCode) {
            becomeWide();
            m_raw.push_back(v);
            return;
        }
        m_lastCode = code;
        m_lastBits = bits;
    }
    m_codes.push_back(static_cast<std::uint16_t>(m_lastCode));
}

std::uint32_t MetricColumn::lookUp(std::uint64_t bits)
{
    std::uint32_t code = bits == 0 ? m_zeroCode : kNoCode;
    if (code != kNoCode)
        return code;
    code = codeOf(bits);
    if (code >= kMaxDistinct)
        return kNoCode;
    if (bits == 0)
        m_zeroCode = code;
    return code;
}

void MetricColumn::appendBlock(const double* values, std::size_t n)
{
    if (m_wide) {
        m_raw.insert(m_raw.end(), values, values + n);
        return;
    }
    // The codes are written in place, and a run of the last value (a third of a kernel table's
    // metric cells) is written without a lookup. The values ahead are known: in an index too
    // large for the cache, their slots are fetched 16 values ahead and, once there, the distinct
    // value a slot points at 8 values ahead, so that the lookups overlap their cache misses
    // instead of waiting for each in turn.
    constexpr std::size_t kAhead = 8, kCachedSlots = 16384;
    const std::size_t at = m_codes.size();
    m_codes.resize(at + n);
    std::uint16_t* out = m_codes.data() + at;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t bits = bitsOf(values[i]);
        if (!repeatsLast(bits)) {
            if (m_slots.size() > kCachedSlots) {
                const std::size_t mask = m_slots.size() - 1;
                if (i + 2 * kAhead < n)
                    __builtin_prefetch(&m_slots[slotOf(bitsOf(values[i + 2 * kAhead]), mask)]);
                if (i + kAhead < n)
                    if (const std::uint32_t code = m_slots[slotOf(bitsOf(values[i + kAhead]), mask)])
                        __builtin_prefetch(&m_values[code - 1]);
            }
            const std::uint32_t code = lookUp(bits);
            if (code == kNoCode) { // too many distinct values: the rest as doubles
                m_codes.resize(at + i);
                becomeWide();
                m_raw.insert(m_raw.end(), values + i, values + n);
                return;
            }
            m_lastCode = code;
            m_lastBits = bits;
        }
        out[i] = static_cast<std::uint16_t>(m_lastCode);
    }
}

void MetricColumn::resize(std::size_t rows, double v)
{
    if (!m_wide && rows > size()) {
        m_codes.reserve(rows);
        while (size() < rows && !m_wide)
            pushCoded(v);
    }
    if (rows == size())
        return;
    expand();
    m_raw.resize(rows, v);
}

void MetricColumn::expand()
{
    m_slots = std::vector<std::uint32_t>();
    m_lastCode = m_zeroCode = kNoCode;
    if (m_wide)
        return;
    m_wide = true;
    std::vector<double> raw;
    raw.reserve(m_codes.size());
    for (const std::uint16_t c : m_codes)
        raw.push_back(m_values[c]);
    m_raw = std::move(raw);
    m_codes = std::vector<std::uint16_t>();
    m_values = std::vector<double>();
}

void MetricColumn::append(MetricColumn&& other)
{
    if (empty()) {
        *this = std::move(other);
        return;
    }
    if (!m_wide) {
        // Same dictionary, compared by bits (0.0 == -0.0 and NaN != NaN as doubles): codes as
        // they are; else each value is coded again.
        const auto sameBits = [](double a, double b) { return bitsOf(a) == bitsOf(b); };
        if (other.coded()
            && std::equal(m_values.begin(), m_values.end(), other.m_values.begin(), other.m_values.end(), sameBits)) {
            m_codes.insert(m_codes.end(), other.m_codes.begin(), other.m_codes.end());
            return;
        }
        m_codes.reserve(size() + other.size());
        for (std::size_t r = 0; r < other.size(); ++r)
            push_back(other[r]);
        return;
    }
    m_raw.reserve(size() + other.size());
    for (std::size_t r = 0; r < other.size(); ++r)
        m_raw.push_back(other[r]);
}

void MetricColumn::compact()
{
    if (!m_wide) {
        m_slots = std::vector<std::uint32_t>();
        m_lastCode = m_zeroCode = kNoCode;
        // Codes pay off while 2 bytes a row plus 8 a distinct value stay under 8 bytes a row.
        const std::size_t n = m_codes.size();
        if (n && m_values.size() > (3 * n - 1) / 4)
            expand();
        else
            m_values.shrink_to_fit();
        return;
    }
    if (m_raw.empty() || m_manyValues)
        return;
    // The doubles appended again as codes, given up at the first value past what pays off.
    const std::size_t n = m_raw.size();
    const std::size_t maxDistinct = std::min(kMaxDistinct, (3 * n - 1) / 4);
    MetricColumn coded;
    coded.m_codes.reserve(n);
    for (const double v : m_raw) {
        coded.pushCoded(v);
        if (coded.m_wide || coded.distinct() > maxDistinct) {
            m_manyValues = true; // stays as doubles
            return;
        }
    }
    coded.compact(); // frees the lookup index
    *this = std::move(coded);
}

} // namespace npuscope
