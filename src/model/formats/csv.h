#pragma once
// A streaming RFC-4180 CSV tokenizer over bytes already in memory (the loader memory-maps the
// file), plus a header-aware row walker used by every CSV reader.
//
// Tokenizer rules (FORMATS.md §6): quoted cells may hold commas and newlines; a doubled quote
// inside quotes is one quote (so `"""2,8193"""` reads `"2,8193"`); CRLF or LF; a leading UTF-8
// BOM is skipped; every cell is trimmed of spaces, TAB and CR after unquoting
// (`…895.870\t` bare or inside quotes). Lines are physical lines, 1-based.
#include "model/formats/number_text.h"
#include "model/formats/read_context.h"
#include "model/store/diagnostics.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace npuscope {

class CsvReader {
public:
    // Records are cut 64 bytes at a time where the block scan can read them exactly as the
    // byte-by-byte walk would, and byte by byte elsewhere; `BytesOnly` walks every record byte by
    // byte (the reference the block scan is tested against).
    enum class Scan { Blocks, BytesOnly };
    explicit CsvReader(std::string_view bytes, Scan scan = Scan::Blocks);

    // Reads the next record. Blank lines are skipped. Returns false at the end of the input. A
    // quote that opens a cell and is never closed, where the cell would run over lines to the
    // end of the input, is read as a plain character (strayQuoteLine()).
    bool next();
    // Cells of the current record; valid until the next call to next().
    const std::vector<std::string_view>& cells() const { return m_cells; }
    std::int64_t line() const { return m_recordLine; }          // first physical line of the record
    std::uint64_t byteOffset() const { return m_recordOffset; } // offset of its first byte
    bool terminated() const { return m_terminated; }            // ended by a newline (not by EOF)
    bool atEnd() const { return m_pos >= m_bytes.size(); }
    std::uint64_t position() const { return m_pos; }
    std::uint64_t size() const { return m_bytes.size(); }
    // Where a quote opening a cell was never closed and was read as a plain character (next()):
    // its line (-1: none) and byte offset.
    std::int64_t strayQuoteLine() const { return m_strayQuoteLine; }
    std::uint64_t strayQuoteOffset() const { return m_strayQuoteOffset; }
    // The first cell with text between its closing quote and the delimiter (`"a"b`, kept as
    // `ab`): its record's line (-1: none) and the cell's opening quote.
    std::int64_t textAfterQuoteLine() const { return m_textAfterQuoteLine; }
    std::uint64_t textAfterQuoteOffset() const { return m_textAfterQuoteOffset; }

private:
    struct Span {
        bool scratch = false; // text lives in m_scratch (unescaped), else in m_bytes
        std::size_t begin = 0, length = 0;
        Span(bool s, std::size_t b, std::size_t l) : scratch(s), begin(b), length(l) {}
    };
    void finishCell(bool scratch, std::size_t begin, std::size_t length);
    // The current record by the block scan, when it can read it as the byte walk would: true
    // with the cells set and the record consumed; false with nothing changed.
    bool plainRecord();

    std::string_view m_bytes;
    Scan m_scan = Scan::Blocks;
    std::size_t m_pos = 0;
    std::int64_t m_line = 1;
    std::int64_t m_recordLine = 0;
    std::uint64_t m_recordOffset = 0;
    bool m_terminated = false;
    std::vector<Span> m_spans;
    std::string m_scratch;
    std::vector<std::string_view> m_cells;
    std::int64_t m_strayQuoteLine = -1;
    std::int64_t m_textAfterQuoteLine = -1;
    std::uint64_t m_textAfterQuoteOffset = 0;
    std::uint64_t m_strayQuoteOffset = 0;
};

// Where a reader's problems go: Profile::report, or a plain vector for the cluster files.
using ReportFn = std::function<void(Severity, std::int64_t line, std::int64_t byteOffset, std::string reason)>;

// A CSV file with a header: column lookup by name (with aliases), row-length checks, skipped-row
// accounting, progress and cancel. Readers open it with readCsvTable (below) and use it as
//   int c = t.column({"Task Duration(us)", "Duration(us)"}); if (!t.require(c, "...")) return;
//   while (t.nextRow()) { ... t.cell(c) ... }
//   t.finish();
class CsvTable {
public:
    CsvTable(std::string_view bytes, const ReadContext& ctx, FileRecord& record, ReportFn report);

    // Reads the header. An empty file fails the record ("empty file").
    bool open();
    // Index of the first alias present in the header, or -1.
    int column(std::initializer_list<std::string_view> aliases) const;
    int column(std::string_view name) const { return column({name}); }
    // Fails the record with an Error naming the file and the column when col < 0.
    bool require(int col, std::string_view name);
    const std::vector<std::string>& header() const { return m_header; }

    // Next row with as many cells as the header; mismatched rows are skipped and reported.
    // Returns false at the end or on cancel (then the record is Partial, note "cancelled").
    bool nextRow();
    std::string_view cell(int col) const
    {
        const auto& c = m_reader.cells();
        return col >= 0 && static_cast<std::size_t>(col) < c.size() ? c[static_cast<std::size_t>(col)]
                                                                    : std::string_view();
    }
    std::int64_t line() const { return m_reader.line(); }
    std::uint64_t byteOffset() const { return m_reader.byteOffset(); }
    // Once `rowsRead` rows are read, the rows the whole file holds if the rest take as many bytes
    // a row, with a tenth to spare (0 before any row): room a reader reserves for its table once,
    // instead of doubling it as it grows (each doubling writes fresh pages and copies all before
    // it). Readers ask after kSampleRows rows.
    std::size_t rowsExpected(std::uint64_t rowsRead) const;
    static constexpr std::uint64_t kSampleRows = 4096;

    // Skip the current row for a reader-specific reason (counted and reported).
    void skipRow(const std::string& reason);
    // Sets Loaded/Partial from the skipped count unless already Failed; call at the end.
    void finish();

private:
    void reportNearMisses() const;

    CsvReader m_reader;
    const ReadContext& m_ctx;
    FileRecord& m_record;
    ReportFn m_report;
    std::vector<std::string> m_header;
    // What column() found and did not find, for reportNearMisses() at finish().
    mutable std::vector<bool> m_used;
    mutable std::vector<std::string> m_missing;
    std::uint64_t m_rowsSeen = 0;
    std::uint64_t m_lastProgress = 0;
};

// An id cell as parseIdText below reads it, but text that is no number (a missing spelling or
// junk) gives none.
std::optional<std::int64_t> idTextValue(std::string_view text);
// "NPU:0" / "npu:1" / "0" -> device number; "host" / "CPU" / "cpu:0" and numbers beyond a device
// id -> -1. Nothing for a missing cell or unreadable text ("NPUx0"), which a reader counts.
std::optional<int> deviceTextValue(std::string_view text);

// Cells whose text is neither a number nor a spelling of "missing" (isMissingText). Their
// value reads as missing, and the file gets one warning with the count and the first place,
// so that a damaged column never turns into zeros or blanks without a word.
class UnreadableCells {
public:
    explicit UnreadableCells(const CsvTable& t) : m_t(t) {}

    // Notes a cell of the current row that gave no value (a "missing" spelling is not counted).
    void note(std::string_view text)
    {
        if (!isMissingText(text) && m_count++ == 0) {
            m_line = m_t.line();
            m_offset = static_cast<std::int64_t>(m_t.byteOffset());
        }
    }
    // Passes the parsed value through; notes the cell when there is none.
    template <typename T>
    std::optional<T> operator()(std::optional<T> value, std::string_view text)
    {
        if (!value)
            note(text);
        return value;
    }
    // The cell of column col (none when col < 0) as µs, as a number or as an integer.
    std::optional<TimeNs> micros(int col) { return cellAs(col, [](std::string_view t) { return parseMicrosToNs(t); }); }
    std::optional<double> number(int col) { return cellAs(col, [](std::string_view t) { return parseDouble(t); }); }
    std::optional<std::int64_t> integer(int col)
    {
        return cellAs(col, [](std::string_view t) { return parseInt64(t); });
    }
    // A device cell (deviceTextValue): -1 when the cell is missing or unreadable; `absent` when
    // the file has no such column (col < 0).
    int device(int col, int absent = -1)
    {
        if (col < 0)
            return absent;
        return cellAs(col, [](std::string_view t) { return deviceTextValue(t); }).value_or(-1);
    }
    // An id cell (parseIdText): -1 when col < 0, the cell is missing, a "none" sentinel or text.
    std::int64_t id(int col)
    {
        return cellAs(col, [](std::string_view t) { return idTextValue(t); }).value_or(-1);
    }

    // "non-numeric text in <what> read as missing (first here)", when there was any.
    void report(std::vector<Diagnostic>& out, const ReadContext& ctx, const std::string& what) const
    {
        if (m_count > 0)
            out.push_back(Diagnostic{Severity::Warning, ctx.file, m_line, m_offset,
                                     "non-numeric text in " + what + " read as missing (first here)", m_count});
    }
    // The same for the device cells read by device().
    void reportDevices(std::vector<Diagnostic>& out, const ReadContext& ctx) const { report(out, ctx, "device cells"); }

private:
    template <typename Parse>
    auto cellAs(int col, Parse parse) -> decltype(parse(std::string_view()))
    {
        if (col < 0)
            return std::nullopt;
        const std::string_view text = m_t.cell(col);
        return (*this)(parse(text), text);
    }

    const CsvTable& m_t;
    std::uint64_t m_count = 0;
    std::int64_t m_line = -1, m_offset = -1;
};

// Id cells: N/A, empty, junk, 4294967295 and 18446744073709551615 (the "none" sentinels) -> -1.
std::int64_t parseIdText(std::string_view text);

class Profile;

// Where a reader's problems go: the Profile it reads into (Profile::report), or a cluster file's
// diagnostics.
ReportFn profileReport(Profile& p, const ReadContext& ctx);
ReportFn vectorReport(std::vector<Diagnostic>& diags, const ReadContext& ctx);

// Every CSV reader's opening: the file's record and its table over `bytes`, problems going to
// `report`. `read(t, rec)` reads the rows once the header is read; a file without one fails the
// record and reads none. Returns the record.
template <typename Read>
FileRecord readCsvTable(std::string_view bytes, const ReadContext& ctx, ReportFn report, Read&& read)
{
    FileRecord rec;
    CsvTable t(bytes, ctx, rec, std::move(report));
    if (t.open())
        read(t, rec);
    return rec;
}

} // namespace npuscope
