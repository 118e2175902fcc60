#include "model/formats/csv.h"

#include "model/formats/block_masks.h"
#include "model/formats/number_text.h"
#include "model/store/decimal_digits.h"
#include "model/store/profile.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdint>
#include <cstring>

namespace npuscope {

namespace {

// Nearly every byte is past ' ': one comparison rules it out.
bool isTrim(char c)
{
    return static_cast<unsigned char>(c) <= ' ' && (c == ' ' || c == '\t' || c == '\r');
}

// The first ',' or '\n' at or after p (n when none): eight bytes at a time, then byte by byte.
// In each word, (x - 0x01..) & ~x & 0x80.. flags the zero bytes of x = word ^ delimiter; the
// lowest flag is always a true match (borrows only run upwards), and that is the one taken.
inline std::size_t delimiterAt(const char* d, std::size_t p, std::size_t n)
{
    static_assert(std::endian::native == std::endian::little, "the first byte of a word is its lowest");
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    constexpr std::uint64_t kComma = kOnes * ',', kNewline = kOnes * '\n';
    while (p + 8 <= n) {
        std::uint64_t w;
        std::memcpy(&w, d + p, 8);
        const std::uint64_t a = w ^ kComma, b = w ^ kNewline;
        const std::uint64_t hit = ((a - kOnes) & ~a & kHigh) | ((b - kOnes) & ~b & kHigh);
        if (hit)
            return p + static_cast<std::size_t>(std::countr_zero(hit) / 8);
        p += 8;
    }
    while (p < n && d[p] != ',' && d[p] != '\n')
        ++p;
    return p;
}

// One 64-byte block as bit masks (bit i: byte i): commas, line feeds and quotes.
struct CsvMasks {
    std::uint64_t comma = 0, newline = 0, quote = 0;
};

inline CsvMasks csvMasksOf(const char* p)
{
    const Block64 b(p);
    return CsvMasks{b.eq(','), b.eq('\n'), b.eq('"')};
}

// Progress is reported about every 4 MB, cancel checked every 4096 rows.
constexpr std::uint64_t kProgressStep = 4u << 20;
constexpr std::uint64_t kCancelRows = 4096;

} // namespace

CsvReader::CsvReader(std::string_view bytes, Scan scan) : m_bytes(bytes), m_scan(scan)
{
    if (m_bytes.size() >= 3 && std::memcmp(m_bytes.data(), "\xEF\xBB\xBF", 3) == 0)
        m_pos = 3;
}

[[gnu::always_inline]] inline void CsvReader::finishCell(bool scratch, std::size_t begin, std::size_t length)
{
    // Trim after unquoting: TABs written after timestamps sit inside or outside the quotes.
    const char* base = scratch ? m_scratch.data() : m_bytes.data();
    while (length > 0 && isTrim(base[begin]))
        ++begin, --length;
    while (length > 0 && isTrim(base[begin + length - 1]))
        --length;
    m_spans.emplace_back(scratch, begin, length);
}

bool CsvReader::plainRecord()
{
    // Cells are cut at the commas outside quotes of 64-byte blocks, up to the first line feed
    // outside quotes. Only what the byte-by-byte path would read the same way is taken: cells
    // without quotes, and cells that are one quoted text followed by nothing but blanks, the
    // text holding no quote (`"a,b"`) or being one quoted text itself (`"""a,b"""`, read as
    // `"a,b"`, FORMATS.md §6), and no line feed. Any other record, and one whose blocks would
    // run past the end of the input, is left to that path (nothing is kept from the attempt).
    const std::size_t n = m_bytes.size();
    const char* d = m_bytes.data();
    std::size_t block = m_pos, cellBegin = m_pos;
    std::uint64_t inQuotesCarry = 0; // all ones when the previous block ended inside quotes
    auto bail = [&] {
        m_cells.clear();
        return false;
    };
    // The cell [cellBegin, end), which holds `cellQuotes` quotes.
    auto add = [&](std::size_t end, int cellQuotes) {
        std::size_t b = cellBegin;
        if (cellQuotes != 0) {
            while (b < end && (d[b] == ' ' || d[b] == '\t'))
                ++b;
            std::size_t last = end; // the last quote, with nothing but blanks after it
            while (last > b && isTrim(d[last - 1]))
                --last;
            --last;
            if (b >= end || last <= b || d[b] != '"' || d[last] != '"')
                return false;
            if (cellQuotes == 2) { // "text"
                ++b;
                end = last;
            } else if (cellQuotes == 6 && last >= b + 5 && d[b + 1] == '"' && d[b + 2] == '"' && d[last - 1] == '"'
                       && d[last - 2] == '"') { // """text""" reads "text"
                b += 2;
                end = last - 1;
            } else {
                return false;
            }
        }
        while (b < end && isTrim(d[b]))
            ++b;
        while (end > b && isTrim(d[end - 1]))
            --end;
        m_cells.emplace_back(d + b, end - b);
        return true;
    };
    int pendingQuotes = 0; // quotes of the current cell in earlier blocks
    while (block + 64 <= n) {
        const CsvMasks m = csvMasksOf(d + block);
        const std::uint64_t inQuotes = prefixXor(m.quote) ^ inQuotesCarry;
        inQuotesCarry = static_cast<std::uint64_t>(static_cast<std::int64_t>(inQuotes) >> 63);
        const std::uint64_t newline = m.newline & ~inQuotes;
        // The block's bits up to and including the record's line feed.
        const std::uint64_t upTo = newline ? (newline ^ (newline - 1)) : ~std::uint64_t(0);
        if (m.newline & inQuotes & upTo)
            return bail(); // a line feed inside quotes
        std::uint64_t quotes = m.quote & upTo;
        for (std::uint64_t c = ((m.comma & ~inQuotes) | newline) & upTo; c != 0; c &= c - 1) {
            const int bit = std::countr_zero(c);
            int cellQuotes = pendingQuotes;
            if (quotes != 0) { // most blocks of a kernel table hold none
                const std::uint64_t below = bit == 0 ? 0 : (~std::uint64_t(0) >> (64 - bit));
                cellQuotes += std::popcount(quotes & below);
                quotes &= ~below;
            }
            pendingQuotes = 0;
            const std::size_t at = block + static_cast<std::size_t>(bit);
            if (!add(at, cellQuotes))
                return bail();
            cellBegin = at + 1;
        }
        if (newline) {
            m_pos = block + static_cast<std::size_t>(std::countr_zero(newline)) + 1;
            ++m_line;
            m_terminated = true;
            return true;
        }
        pendingQuotes += std::popcount(quotes);
        block += 64;
    }
    return bail();
}

bool CsvReader::next()
{
    const std::size_t n = m_bytes.size();
    const char* d = m_bytes.data();
    for (;;) {
        m_spans.clear();
        m_scratch.clear();
        m_cells.clear();
        m_terminated = false;
        if (m_pos >= n)
            return false;
        m_recordLine = m_line;
        m_recordOffset = m_pos;
        if (m_scan == Scan::Blocks && plainRecord()) {
            if (m_cells.size() == 1 && m_cells[0].empty())
                continue; // a blank line
            return true;
        }
        bool endOfRecord = false;
        while (!endOfRecord) {
            // One cell starting at m_pos.
            std::size_t p = m_pos;
            while (p < n && (d[p] == ' ' || d[p] == '\t'))
                ++p;
            const std::size_t quoteAt = p;
            const std::int64_t lineAtQuote = m_line;
            if (p < n && d[p] == '"') {
                // Quoted cell: unescape into scratch only when a doubled quote occurs.
                ++p;
                const std::size_t start = p;
                Span s{false, start, 0};
                bool useScratch = false;
                std::size_t scratchBegin = m_scratch.size();
                std::size_t contentEnd = n; // unterminated quote at EOF: keep what is there
                bool closed = false;
                for (;;) {
                    if (p >= n)
                        break;
                    const char c = d[p];
                    if (c == '"') {
                        if (p + 1 < n && d[p + 1] == '"') {
                            if (!useScratch) {
                                useScratch = true;
                                m_scratch.append(d + start, p - start);
                            }
                            m_scratch.push_back('"');
                            p += 2;
                            continue;
                        }
                        contentEnd = p;
                        ++p; // closing quote
                        closed = true;
                        break;
                    }
                    if (c == '\n')
                        ++m_line;
                    if (useScratch)
                        m_scratch.push_back(c);
                    ++p;
                }
                if (!closed && m_line != lineAtQuote) {
                    // A quote never closed, whose cell would swallow every line to the end of
                    // the file (one damaged byte): read it as a plain character. Every quote
                    // after it that opens a cell is then the first of a pair, so this scan to
                    // the end happens at most once per file.
                    m_line = lineAtQuote;
                    m_strayQuoteLine = lineAtQuote;
                    m_strayQuoteOffset = quoteAt;
                    p = delimiterAt(d, m_pos, n);
                    finishCell(false, m_pos, p - m_pos);
                } else {
                    if (useScratch) {
                        s.scratch = true;
                        s.begin = scratchBegin;
                        s.length = m_scratch.size() - scratchBegin;
                    } else {
                        s.length = contentEnd - start;
                    }
                    // Anything between the closing quote and the delimiter is tolerated and
                    // dropped when it is blank (trailing TAB), appended otherwise.
                    std::size_t q = p;
                    while (q < n && d[q] != ',' && d[q] != '\n')
                        ++q;
                    bool blank = true;
                    for (std::size_t k = p; k < q; ++k)
                        blank = blank && isTrim(d[k]);
                    if (!blank) {
                        if (m_textAfterQuoteLine < 0) {
                            m_textAfterQuoteLine = m_recordLine;
                            m_textAfterQuoteOffset = quoteAt;
                        }
                        if (!s.scratch) {
                            s.scratch = true;
                            s.begin = m_scratch.size();
                            m_scratch.append(d + start, s.length);
                        }
                        m_scratch.append(d + p, q - p);
                        s.length = m_scratch.size() - s.begin;
                    }
                    finishCell(s.scratch, s.begin, s.length);
                    p = q;
                }
            } else {
                p = m_pos;
                const std::size_t start = p;
                p = delimiterAt(d, p, n);
                finishCell(false, start, p - start);
            }
            if (p >= n) {
                endOfRecord = true;
                m_pos = n;
            } else if (d[p] == ',') {
                m_pos = p + 1;
                if (m_pos >= n) { // trailing comma at EOF: one more empty cell
                    m_spans.push_back(Span{false, n, 0});
                    endOfRecord = true;
                }
            } else { // '\n'
                m_pos = p + 1;
                ++m_line;
                m_terminated = true;
                endOfRecord = true;
            }
        }
        for (const Span& s : m_spans) {
            const char* base = s.scratch ? m_scratch.data() : m_bytes.data();
            m_cells.emplace_back(base + s.begin, s.length);
        }
        // A blank line is one empty cell: skip it.
        if (m_cells.size() == 1 && m_cells[0].empty())
            continue;
        return true;
    }
}

ReportFn profileReport(Profile& p, const ReadContext& ctx)
{
    return [&p, &ctx](Severity s, std::int64_t line, std::int64_t off, std::string reason) {
        p.report(s, ctx.file, line, off, std::move(reason));
    };
}

ReportFn vectorReport(std::vector<Diagnostic>& diags, const ReadContext& ctx)
{
    return [&diags, &ctx](Severity s, std::int64_t line, std::int64_t off, std::string reason) {
        diags.push_back(Diagnostic{s, ctx.file, line, off, std::move(reason), 1});
    };
}

CsvTable::CsvTable(std::string_view bytes, const ReadContext& ctx, FileRecord& record, ReportFn report)
    : m_reader(bytes), m_ctx(ctx), m_record(record), m_report(std::move(report))
{
    m_record.path = ctx.file;
    m_record.bytes = bytes.size();
}

std::size_t CsvTable::rowsExpected(std::uint64_t rowsRead) const
{
    const std::uint64_t read = m_reader.byteOffset();
    if (rowsRead == 0 || read == 0)
        return 0;
    const double perByte = static_cast<double>(rowsRead) / static_cast<double>(read);
    return static_cast<std::size_t>(perByte * static_cast<double>(m_reader.size()) * 1.1);
}

bool CsvTable::open()
{
    if (!m_reader.next()) {
        m_record.status = FileStatus::Failed;
        m_record.note = "empty file";
        m_report(Severity::Error, 1, 0, "empty file");
        return false;
    }
    m_header.clear();
    for (auto c : m_reader.cells())
        m_header.emplace_back(c);
    return true;
}

int CsvTable::column(std::initializer_list<std::string_view> aliases) const
{
    for (auto a : aliases) {
        for (std::size_t i = 0; i < m_header.size(); ++i)
            if (m_header[i] == a) {
                m_used.resize(m_header.size());
                m_used[i] = true;
                return static_cast<int>(i);
            }
    }
    for (auto a : aliases)
        m_missing.emplace_back(a);
    return -1;
}

void CsvTable::reportNearMisses() const
{
    // A header cell no lookup took, one character off a name looked for and not found, is most
    // likely that column with a damaged byte: it was not read as it, and the file says so.
    m_used.resize(m_header.size());
    for (std::size_t i = 0; i < m_header.size(); ++i) {
        if (m_used[i])
            continue;
        for (const std::string& a : m_missing) {
            if (a.size() < 4 || !oneEditApart(m_header[i], a))
                continue;
            m_report(Severity::Warning, 1, 0,
                     "column " + std::to_string(i + 1) + " '" + m_header[i] + "' is one character off '" + a
                         + "': not read as it");
            break;
        }
    }
}

bool CsvTable::require(int col, std::string_view name)
{
    if (col >= 0)
        return true;
    reportNearMisses();
    m_record.status = FileStatus::Failed;
    std::string reason = "missing column '";
    reason += name;
    reason += "' in ";
    reason += m_ctx.file;
    m_record.note = reason;
    m_report(Severity::Error, 1, 0, std::move(reason));
    return false;
}

bool CsvTable::nextRow()
{
    for (;;) {
        if (m_ctx.cancel && m_rowsSeen % kCancelRows == 0 && m_ctx.cancelled()) {
            m_record.status = FileStatus::Partial;
            m_record.note = "cancelled";
            return false;
        }
        if (!m_reader.next())
            return false;
        ++m_rowsSeen;
        if (m_ctx.progress && m_reader.position() - m_lastProgress >= kProgressStep) {
            m_lastProgress = m_reader.position();
            m_ctx.progress(m_lastProgress);
        }
        const std::size_t got = m_reader.cells().size();
        if (got == m_header.size()) {
            // A complete last row without a line end is kept; a job killed mid-write may have cut
            // its last cell, so say so.
            if (!m_reader.terminated() && m_reader.atEnd())
                m_report(Severity::Info, m_reader.line(), static_cast<std::int64_t>(m_reader.byteOffset()),
                         "last row has no line end (the file may be truncated): kept");
            return true;
        }
        std::string reason;
        if (got < m_header.size() && m_reader.atEnd())
            reason = "truncated last row: " + std::to_string(got) + " of " + std::to_string(m_header.size()) +
                     " cells";
        else
            reason = "row has " + std::to_string(got) + " cells, header has " + std::to_string(m_header.size());
        skipRow(reason);
    }
}

void CsvTable::skipRow(const std::string& reason)
{
    ++m_record.skipped;
    m_report(Severity::Warning, m_reader.line(), static_cast<std::int64_t>(m_reader.byteOffset()), reason);
}

void CsvTable::finish()
{
    if (m_ctx.progress)
        m_ctx.progress(m_reader.size());
    reportNearMisses();
    if (m_reader.textAfterQuoteLine() >= 0)
        m_report(Severity::Warning, m_reader.textAfterQuoteLine(),
                 static_cast<std::int64_t>(m_reader.textAfterQuoteOffset()),
                 "text after a cell's closing quote, kept as part of the cell (first here)");
    if (m_reader.strayQuoteLine() >= 0)
        m_report(Severity::Warning, m_reader.strayQuoteLine(), static_cast<std::int64_t>(m_reader.strayQuoteOffset()),
                 "a quote that opens a cell is never closed: read as a plain character");
    if (m_record.status == FileStatus::Failed || m_record.note == "cancelled")
        return;
    m_record.status = m_record.skipped > 0 ? FileStatus::Partial : FileStatus::Loaded;
}

std::optional<int> deviceTextValue(std::string_view text)
{
    text = trimText(text);
    const auto colon = text.find(':');
    const std::string_view kind = text.substr(0, colon);
    auto is = [kind](std::string_view name) {
        return kind.size() == name.size() && std::equal(kind.begin(), kind.end(), name.begin(), [](char a, char b) {
                   return std::tolower(static_cast<unsigned char>(a)) == b;
               });
    };
    if (is("host") || is("cpu"))
        return -1;
    if (colon != std::string_view::npos)
        text = text.substr(colon + 1);
    const auto v = parseInt64(text);
    if (!v)
        return std::nullopt;
    return deviceIdOf(*v);
}

std::optional<std::int64_t> idTextValue(std::string_view text)
{
    // Plain digits and the missing spellings (a kernel table's Context ID is mostly N/A) first.
    if (std::uint64_t u; digits::plainDecimal(text, 18, u))
        return u == 4294967295ull ? -1 : static_cast<std::int64_t>(u);
    if (isMissingText(trimText(text)))
        return std::nullopt;
    if (auto u = parseUInt64(text)) {
        if (*u == 4294967295ull || *u > static_cast<std::uint64_t>(INT64_MAX))
            return -1;
        return static_cast<std::int64_t>(*u);
    }
    return parseInt64(text);
}

std::int64_t parseIdText(std::string_view text)
{
    return idTextValue(text).value_or(-1);
}

} // namespace npuscope
