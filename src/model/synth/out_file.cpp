#include "model/synth/out_file.h"

#include <cmath>

namespace npuscope::synth {

namespace {

// Writes |ns| as "<us>.<fff>" into p; returns the end.
char* putUs3(char* p, char* end, std::int64_t ns)
{
    if (ns < 0) {
        *p++ = '-';
        ns = -ns;
    }
    auto r = std::to_chars(p, end, ns / 1000);
    p = r.ptr;
    const auto frac = static_cast<int>(ns % 1000);
    *p++ = '.';
    *p++ = static_cast<char>('0' + frac / 100);
    *p++ = static_cast<char>('0' + frac / 10 % 10);
    *p++ = static_cast<char>('0' + frac % 10);
    return p;
}

// Trims trailing zeros after a '.', keeping one digit.
char* trimZeros(char* begin, char* p)
{
    const char* dot = nullptr;
    for (char* q = begin; q < p; ++q)
        if (*q == '.')
            dot = q;
    if (!dot)
        return p;
    while (p > dot + 2 && p[-1] == '0')
        --p;
    return p;
}

} // namespace

void OutFile::openMemory()
{
    close();
    m_path.clear();
    m_memory = true;
    m_failed = false;
    m_used = 0;
    m_written = 0;
}

bool OutFile::open(const std::string& path)
{
    close();
    m_memory = false;
    m_path = path;
    m_file = std::fopen(path.c_str(), "wb");
    m_failed = m_file == nullptr;
    m_used = 0;
    m_written = 0;
    return m_file != nullptr;
}

bool OutFile::close()
{
    if (m_memory) {
        m_memory = false;
        m_used = 0;
        return !m_failed;
    }
    if (!m_file)
        return !m_failed;
    flush();
    if (std::fclose(m_file) != 0)
        m_failed = true;
    m_file = nullptr;
    return !m_failed;
}

void OutFile::flush(std::size_t need)
{
    if (m_memory) {
        m_buf.resize(std::max(m_buf.size() * 2, m_used + need + 64));
        return;
    }
    if (m_used) {
        writeRaw(m_buf.data(), m_used);
        m_used = 0;
    }
}

void OutFile::writeRaw(const char* p, std::size_t n)
{
    if (m_file && std::fwrite(p, 1, n, m_file) != n)
        m_failed = true;
    m_written += n;
}

OutFile& OutFile::us3(std::int64_t ns)
{
    if (m_used + 32 > m_buf.size())
        flush();
    char* b = m_buf.data() + m_used;
    m_used = static_cast<std::size_t>(putUs3(b, b + 32, ns) - m_buf.data());
    return *this;
}

OutFile& OutFile::usTrim(std::int64_t ns)
{
    if (m_used + 32 > m_buf.size())
        flush();
    char* b = m_buf.data() + m_used;
    m_used = static_cast<std::size_t>(trimZeros(b, putUs3(b, b + 32, ns)) - m_buf.data());
    return *this;
}

OutFile& OutFile::fix(double v, int prec)
{
    if (m_used + 64 > m_buf.size())
        flush();
    if (!std::isfinite(v))
        v = 0;
    char* b = m_buf.data() + m_used;
    auto r = std::to_chars(b, b + 64, v, std::chars_format::fixed, prec);
    m_used = static_cast<std::size_t>(r.ptr - m_buf.data());
    return *this;
}

OutFile& OutFile::fixTrim(double v, int prec)
{
    if (m_used + 64 > m_buf.size())
        flush();
    if (!std::isfinite(v))
        v = 0;
    char* b = m_buf.data() + m_used;
    auto r = std::to_chars(b, b + 64, v, std::chars_format::fixed, prec);
    char* e = r.ptr;
    if (prec == 0) {
        *e++ = '.';
        *e++ = '0';
    }
    e = trimZeros(b, e);
    // "-0.0" reads oddly in a profiler table
    if (e - b == 4 && b[0] == '-' && b[1] == '0' && b[3] == '0') {
        b[0] = '0';
        b[1] = '.';
        b[2] = '0';
        e = b + 3;
    }
    m_used = static_cast<std::size_t>(e - m_buf.data());
    return *this;
}

OutFile& OutFile::shortest(double v)
{
    return str(shortestText(v));
}

bool OutFile::append(const std::string& path)
{
    std::FILE* in = std::fopen(path.c_str(), "rb");
    if (!in)
        return false;
    bool ok = true;
    for (;;) {
        if (m_used == m_buf.size())
            flush(1);
        const std::size_t n = std::fread(m_buf.data() + m_used, 1, m_buf.size() - m_used, in);
        m_used += n;
        if (n == 0) {
            ok = std::ferror(in) == 0;
            break;
        }
    }
    std::fclose(in);
    return ok;
}

std::string us3Text(std::int64_t ns)
{
    char buf[40];
    return std::string(buf, putUs3(buf, buf + sizeof buf, ns));
}

std::string shortestText(double v)
{
    if (!std::isfinite(v))
        v = 0;
    char buf[64];
    // repr() writes the shortest round-trip digits, in fixed notation when the decimal exponent
    // is in [-4, 16), else in scientific notation ("1e-05", "1.5e+16").
    const double a = std::fabs(v);
    const bool fixed = a == 0 || (a >= 1e-4 && a < 1e16);
    auto r = std::to_chars(buf, buf + sizeof buf, v, fixed ? std::chars_format::fixed : std::chars_format::scientific);
    std::string s(buf, r.ptr);
    // Python writes integral floats as "12.0"; to_chars gives "12".
    if (fixed && s.find('.') == std::string::npos)
        s += ".0";
    return s;
}

} // namespace npuscope::synth
