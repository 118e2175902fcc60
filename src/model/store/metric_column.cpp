#include "model/store/metric_column.h"

#include <algorithm>
#include <bit>

namespace npuscope {

namespace {

constexpr std::size_t kMaxDistinct = std::size_t(1) << 16;

std::uint64_t bitsOf(double v)
{
    return std::bit_cast<std::uint64_t>(v);
}

std::size_t slotOf(std::uint64_t bits, std::size_t mask)
{
    return static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}

} // namespace

void MetricColumn::expand()
{
    if (!coded())
        return;
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
    // Same dictionary, compared by bits (0.0 == -0.0 and NaN != NaN as doubles).
    const auto sameBits = [](double a, double b) { return bitsOf(a) == bitsOf(b); };
    if (coded() && other.coded()
        && std::equal(m_values.begin(), m_values.end(), other.m_values.begin(), other.m_values.end(), sameBits)) {
        m_codes.insert(m_codes.end(), other.m_codes.begin(), other.m_codes.end());
        return;
    }
    expand();
    other.expand();
    m_raw.insert(m_raw.end(), other.m_raw.begin(), other.m_raw.end());
}

void MetricColumn::compact()
{
    if (coded() || m_raw.empty())
        return;
    // Open addressing over the distinct values found so far (slot = code + 1, 0 = empty), kept at
    // most half full; it starts small so that columns of a few values stay in cache.
    // Codes pay off while 2 bytes a row plus 8 a distinct value stay under 8 bytes a row.
    const std::size_t n = m_raw.size();
    const std::size_t maxDistinct = std::min(kMaxDistinct, (3 * n - 1) / 4);
    std::vector<std::uint32_t> slots(1024, 0);
    std::size_t mask = slots.size() - 1;
    std::vector<double> values;
    std::vector<std::uint16_t> codes(n);
    std::uint64_t lastBits = bitsOf(m_raw[0]) ^ 1; // differs from the first value
    std::uint16_t lastCode = 0;
    for (std::size_t r = 0; r < n; ++r) {
        const std::uint64_t bits = bitsOf(m_raw[r]);
        if (bits != lastBits) {
            std::size_t s = slotOf(bits, mask);
            while (slots[s] != 0 && bitsOf(values[slots[s] - 1]) != bits)
                s = (s + 1) & mask;
            if (slots[s] == 0) {
                if (values.size() == maxDistinct)
                    return; // too many distinct values: stays as doubles
                values.push_back(m_raw[r]);
                slots[s] = static_cast<std::uint32_t>(values.size());
                if (values.size() * 2 > slots.size()) {
                    slots.assign(slots.size() * 2, 0);
                    mask = slots.size() - 1;
                    for (std::size_t c = 0; c < values.size(); ++c) {
                        std::size_t t = slotOf(bitsOf(values[c]), mask);
                        while (slots[t] != 0)
                            t = (t + 1) & mask;
                        slots[t] = static_cast<std::uint32_t>(c + 1);
                    }
                }
                lastCode = static_cast<std::uint16_t>(values.size() - 1);
            } else {
                lastCode = static_cast<std::uint16_t>(slots[s] - 1);
            }
            lastBits = bits;
        }
        codes[r] = lastCode;
    }
    values.shrink_to_fit();
    m_codes = std::move(codes);
    m_values = std::move(values);
    m_raw = std::vector<double>(); // frees it (assigning {} would keep the capacity)
}

} // namespace npuscope
