#pragma once
// One metric column of the kernel table (a PMU ratio, a counter, a bandwidth), one double per row.
//
// Most PMU columns have few distinct values (ratios with three decimals, counters that repeat,
// half of the cells 0 or N/A), so a column is stored as 16-bit codes into a table of its distinct
// values: 2 bytes per row instead of 8, plus 8 per distinct value. A default-constructed column
// codes values as they are appended; one constructed with (rows, value) holds doubles, appended
// as they come, and compact() codes them a column at a time. Appending row by row across many
// columns misses the cache in their dictionaries (the kernel CSV reader has 41 columns of tens of
// thousands of distinct values each at 1 GB), so the reader gathers 8192 rows and appends them
// a column at a time (appendBlock).
// A column that reaches 65,537 distinct values turns into doubles and stays so.
// compact() ends the appends: it frees the lookup index, and a coded column whose codes take more
// bytes than doubles would (more distinct values than 3/4 of its rows) turns into doubles.
// Values are told apart by bit pattern, so every double, NaN and -0.0 included, reads back as it
// was written.
//
// Reading is `col[row]`. Writing a row (set) or refilling (fill) turns a column into doubles;
// push_back, resize and append keep the codes.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace npuscope {

class MetricColumn {
public:
    MetricColumn() = default;
    MetricColumn(std::size_t rows, double value) : m_raw(rows, value), m_wide(true) {}

    std::size_t size() const { return coded() ? m_codes.size() : m_raw.size(); }
    bool empty() const { return size() == 0; }
    double operator[](std::size_t row) const { return coded() ? m_values[m_codes[row]] : m_raw[row]; }
    // True when the column is stored as codes into its distinct values.
    bool coded() const { return !m_values.empty(); }
    // Distinct values of a coded column, else 0.
    std::size_t distinct() const { return m_values.size(); }
    // Bytes held, capacity and the appends' lookup index included.
    std::size_t bytes() const
    {
        return m_raw.capacity() * sizeof(double) + m_codes.capacity() * sizeof(std::uint16_t)
               + m_values.capacity() * sizeof(double) + m_slots.capacity() * sizeof(std::uint32_t);
    }

    void reserve(std::size_t rows)
    {
        if (m_wide)
            m_raw.reserve(rows);
        else
            m_codes.reserve(rows);
    }
    void push_back(double v)
    {
        if (m_wide)
            m_raw.push_back(v);
        else
            pushCoded(v);
    }
    // Appends n values: one column's share of a block of rows.
    void appendBlock(const double* values, std::size_t n);
    void resize(std::size_t rows, double v);
    void set(std::size_t row, double v)
    {
        expand();
        m_raw[row] = v;
    }
    void fill(double v)
    {
        const std::size_t n = size();
        *this = MetricColumn(n, v);
    }
    // Appends `other`'s rows (moved when this column is empty).
    void append(MetricColumn&& other);
    // Ends the appends (see above); a column of doubles is coded when that is smaller.
    void compact();
    // Back to one double per row.
    void expand();

    // The stored form (the session cache writes it): the doubles of a wide column, or the codes
    // and distinct values of a coded one. A column made back from it reads the same values and,
    // as after compact(), takes no more appends.
    const std::vector<double>& rawValues() const { return m_raw; }
    const std::vector<std::uint16_t>& codes() const { return m_codes; }
    const std::vector<double>& distinctValues() const { return m_values; }
    bool wide() const { return m_wide; }
    bool manyValues() const { return m_manyValues; }
    static MetricColumn fromStored(std::vector<double> raw, std::vector<std::uint16_t> codes,
                                   std::vector<double> values, bool wide, bool manyValues)
    {
        MetricColumn c;
        c.m_raw = std::move(raw);
        c.m_codes = std::move(codes);
        c.m_values = std::move(values);
        c.m_wide = wide;
        c.m_manyValues = manyValues;
        return c;
    }

private:
    void pushCoded(double v);
    // The value (its bits) is the last one appended, whose code is known.
    bool repeatsLast(std::uint64_t bits) const;
    std::uint32_t codeOf(std::uint64_t bits); // adds a value not seen yet
    // The code of a value (0.0 without a lookup), adding it when new; kNoCode when that would
    // be the 65,537th distinct value (then call becomeWide).
    std::uint32_t lookUp(std::uint64_t bits);
    void becomeWide();
    void rehash(std::size_t slots);

    std::vector<double> m_raw;            // one value per row, when not coded
    std::vector<std::uint16_t> m_codes;   // one code per row, when coded
    std::vector<double> m_values;         // the distinct values the codes index
    std::vector<std::uint32_t> m_slots;   // while appending: open addressing, code + 1 (0 = free)
    std::uint64_t m_lastBits = 0;         // the last value appended, and its code
    std::uint32_t m_lastCode = ~0u;
    std::uint32_t m_zeroCode = ~0u;       // the code of 0.0 once appended: about half of a
                                          // kernel table's metric cells (aic_* of vector
                                          // kernels, aiv_* of cube ones)
    bool m_wide = false;                  // stored as doubles (written, or too many values)
    bool m_manyValues = false;            // too many distinct values for codes: compact() skips
};

} // namespace npuscope
