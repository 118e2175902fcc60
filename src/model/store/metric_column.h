#pragma once
// One metric column of the kernel table (a PMU ratio, a counter, a bandwidth), one double per row.
//
// Readers append doubles. compact() then stores the column as 16-bit codes into a table of its
// distinct values when it has at most 65,536 of them, which most PMU columns have (ratios with
// three decimals, counters that repeat, half of the cells 0 or N/A): 2 bytes per row instead of 8,
// plus 8 per distinct value (so a column coded holds fewer than 3/4 as many values as rows).
// Values are told apart by bit pattern, so every double, NaN and -0.0 included, reads back as it
// was written. A column with more distinct values stays as doubles.
//
// Reading is `col[row]`. Writing into a compacted column (set, fill, push_back) first turns it
// back into doubles; readers write, then compact once when a table is complete.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace npuscope {

class MetricColumn {
public:
    MetricColumn() = default;
    MetricColumn(std::size_t rows, double value) : m_raw(rows, value) {}

    std::size_t size() const { return coded() ? m_codes.size() : m_raw.size(); }
    bool empty() const { return size() == 0; }
    double operator[](std::size_t row) const { return coded() ? m_values[m_codes[row]] : m_raw[row]; }
    // True when the column is stored as codes into its distinct values.
    bool coded() const { return !m_values.empty(); }
    // Distinct values of a coded column, else 0.
    std::size_t distinct() const { return m_values.size(); }
    // Bytes held, capacity included.
    std::size_t bytes() const
    {
        return m_raw.capacity() * sizeof(double) + m_codes.capacity() * sizeof(std::uint16_t)
               + m_values.capacity() * sizeof(double);
    }

    void reserve(std::size_t rows)
    {
        if (!coded())
            m_raw.reserve(rows);
    }
    void push_back(double v)
    {
        expand();
        m_raw.push_back(v);
    }
    void resize(std::size_t rows, double v)
    {
        if (rows == size())
            return;
        expand();
        m_raw.resize(rows, v);
    }
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
    // Stores the column as codes when that takes fewer bytes and it has at most 65,536 distinct
    // values; a no-op when it is coded already or empty.
    void compact();
    // Back to one double per row.
    void expand();

private:
    std::vector<double> m_raw;           // one value per row, when not coded
    std::vector<std::uint16_t> m_codes;  // one code per row, when coded
    std::vector<double> m_values;        // the distinct values the codes index
};

} // namespace npuscope
