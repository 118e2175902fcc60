#pragma once
// Buffered output file with std::to_chars number formatting: the generator writes gigabytes,
// so no iostream formatting and no whole-file strings.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace npuscope::synth {

class OutFile {
public:
    OutFile() = default;
    ~OutFile() { close(); }
    OutFile(const OutFile&) = delete;
    OutFile& operator=(const OutFile&) = delete;

    bool open(const std::string& path);
    // An in-memory buffer that grows instead of flushing (view() and clear() read and reset it).
    void openMemory();
    bool close(); // flushes; false on a write error
    bool isOpen() const { return m_file != nullptr || m_memory; }
    bool failed() const { return m_failed; }
    std::uint64_t bytes() const { return m_written + m_used; }
    const std::string& path() const { return m_path; }

    std::string_view view() const { return {m_buf.data(), m_used}; }
    void clear() { m_used = 0; }

    OutFile& str(std::string_view s)
    {
        if (m_used + s.size() > m_buf.size())
            flush(s.size());
        if (s.size() > m_buf.size()) {
            writeRaw(s.data(), s.size());
            return *this;
        }
        std::copy(s.begin(), s.end(), m_buf.data() + m_used);
        m_used += s.size();
        return *this;
    }
    OutFile& ch(char c)
    {
        if (m_used + 1 > m_buf.size())
            flush();
        m_buf[m_used++] = c;
        return *this;
    }
    OutFile& i64(std::int64_t v) { return num(v); }
    OutFile& u64(std::uint64_t v) { return num(v); }
    // ns as µs text with exactly 3 fraction digits ("1780748105187895.870").
    OutFile& us3(std::int64_t ns);
    // ns as µs with trailing fraction zeros trimmed, at least one digit ("96.16", "12.0").
    OutFile& usTrim(std::int64_t ns);
    // Fixed with `prec` digits, then trailing zeros trimmed to at least one ("0.0", "6.54").
    OutFile& fixTrim(double v, int prec);
    OutFile& fix(double v, int prec);
    // Shortest round-trip text as Python's repr() writes a float ("4e-06", "20.97152", "12.0",
    // "100000.0"): what json.dump writes for a float.
    OutFile& shortest(double v);
    // Appends the whole of another file's bytes (false if it cannot be read).
    bool append(const std::string& path);

private:
    template <typename T>
    OutFile& num(T v)
    {
        if (m_used + 32 > m_buf.size())
            flush();
        auto r = std::to_chars(m_buf.data() + m_used, m_buf.data() + m_buf.size(), v);
        m_used = static_cast<std::size_t>(r.ptr - m_buf.data());
        return *this;
    }
    // Makes room for `need` more bytes: writes the buffer out, or grows it in memory mode.
    void flush(std::size_t need = 0);
    void writeRaw(const char* p, std::size_t n);

    std::FILE* m_file = nullptr;
    std::string m_path;
    std::vector<char> m_buf = std::vector<char>(1 << 20);
    std::size_t m_used = 0;
    std::uint64_t m_written = 0;
    bool m_failed = false;
    bool m_memory = false;
};

// The same formatting into a std::string (small files, keys).
// shortestText is Python's float repr: fixed notation from 1e-4 up to 1e16, else "1e-05" style.
std::string us3Text(std::int64_t ns);
std::string shortestText(double v);

} // namespace npuscope::synth
