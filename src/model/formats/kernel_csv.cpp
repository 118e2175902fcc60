// op_summary_*.csv and kernel_details.csv -> Profile::kernels (FORMATS.md §2).
#include "model/formats/csv.h"
#include "model/formats/number_text.h"
#include "model/formats/readers.h"
#include "model/store/safe_text.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace npuscope::readers {

namespace {

// Columns the kernel table holds as typed fields; everything else becomes a metric (numeric) or
// an extra text column.
struct KernelColumns {
    int device, step, model, stream, task, context, name, type, taskType, opState, start, dur, wait, block, mixBlock;
    int inShapes, inTypes, inFormats, outShapes, outTypes, outFormats;
};

// Text columns that are text even when every sampled cell is N/A.
bool knownTextColumn(std::string_view h)
{
    return h == "HF32 Eligible" || h == "Model Name" || h == "Op Name" || h == "Name";
}

// A column named like a metric (PMU counters "aic_*"/"aiv_*", times, ratios, rates, bandwidths,
// sizes) is one whatever its cells say: in a table of one row, a damaged number is all the
// sample has. It holds in every real kernel table and op summary.
bool metricName(std::string_view h)
{
    static constexpr std::string_view kSuffixes[] = {"(us)", "(ms)", "(ns)",   "(%)",     "_ratio", "_rate",
                                                     "(GB/s)", "(KB)", "(MB)", "_cycles", "_fops"};
    if (h.starts_with("aic_") || h.starts_with("aiv_"))
        return true;
    for (auto s : kSuffixes)
        if (h.ends_with(s))
            return true;
    return false;
}

// A column whose sampled non-missing cells are at least three quarters numbers is a metric too: a
// damaged cell among them is read as missing and warned about, like one after the sample,
// rather than turning the whole column into text without a word. A column of names, where a
// few names happen to be digits, stays text. The known text columns are metrics only when
// every sampled cell is a number. Sampling the first rows keeps the reader single-pass over the
// rest of a large file. `rowsGuess` is the row count the sample's bytes per row predict for the
// whole file.
std::vector<bool> numericColumns(std::string_view bytes, const std::vector<std::string>& header, std::size_t& rowsGuess)
{
    constexpr int kSampleRows = 512;
    std::vector<int> numeric(header.size(), 0), text(header.size(), 0);
    CsvReader r(bytes);
    r.next(); // header
    const std::uint64_t first = r.position();
    int sampled = 0;
    for (int i = 0; i < kSampleRows && r.next(); ++i) {
        ++sampled;
        const auto& c = r.cells();
        if (c.size() != header.size())
            continue;
        for (std::size_t k = 0; k < c.size(); ++k) {
            if (isMissingText(c[k]))
                continue;
            if (parseDouble(c[k]))
                ++numeric[k];
            else
                ++text[k];
        }
    }
    const std::uint64_t perRow = sampled ? std::max<std::uint64_t>(1, (r.position() - first) / sampled) : 1;
    rowsGuess = sampled ? static_cast<std::size_t>((bytes.size() - first) / perRow) : 0;
    std::vector<bool> out(header.size());
    for (std::size_t k = 0; k < header.size(); ++k)
        out[k] = knownTextColumn(header[k]) ? text[k] == 0 && numeric[k] > 0
                                            : metricName(header[k]) || numeric[k] >= 3 * text[k];
    return out;
}

// Where each typed field of the kernel table is in this file's header (-1: absent).
KernelColumns findKernelColumns(const CsvTable& t)
{
    KernelColumns c{};
    c.device = t.column({"Device_id", "Device Id", "Device ID"});
    c.step = t.column({"Step Id", "Step ID"});
    c.model = t.column({"Model ID", "Model Id"});
    c.stream = t.column({"Stream ID", "Stream Id"});
    c.task = t.column({"Task ID", "Task Id"});
    c.context = t.column({"Context ID", "Context Id"});
    c.name = t.column({"Op Name", "Name"});
    c.type = t.column({"OP Type", "Type", "Op Type"});
    c.taskType = t.column({"Task Type", "Accelerator Core"});
    c.opState = t.column({"OP State", "Op State"});
    c.start = t.column({"Task Start Time(us)", "Start Time(us)", "Task Start Time"});
    c.dur = t.column({"Task Duration(us)", "Duration(us)"});
    c.wait = t.column({"Task Wait Time(us)", "Wait Time(us)"});
    c.block = t.column({"Block Num", "Block Dim"});
    c.mixBlock = t.column({"Mix Block Num", "Mix Block Dim"});
    c.inShapes = t.column("Input Shapes");
    c.inTypes = t.column("Input Data Types");
    c.inFormats = t.column("Input Formats");
    c.outShapes = t.column("Output Shapes");
    c.outTypes = t.column("Output Data Types");
    c.outFormats = t.column("Output Formats");
    return c;
}

// The file's other columns, each with the table's metric or extra column it fills:
// (file column, table column).
struct OtherColumns {
    std::vector<std::pair<int, std::size_t>> metrics, extras;
};

// Maps this file's other columns onto the table's metric/extra columns by name, so slices of
// one table (read one call per slice) line up even when a later slice lacks a column. A column
// new to the table is added, filled for the `before` rows already in it.
OtherColumns mapOtherColumns(KernelTable& K, const std::vector<std::string>& header, const KernelColumns& c,
                             const std::vector<bool>& numeric, std::size_t before)
{
    std::vector<bool> isKnown(header.size(), false);
    for (int k : {c.device, c.step, c.model, c.stream, c.task, c.context, c.name, c.type, c.taskType, c.opState,
                  c.start, c.dur, c.wait, c.block, c.mixBlock, c.inShapes, c.inTypes, c.inFormats, c.outShapes,
                  c.outTypes, c.outFormats})
        if (k >= 0)
            isKnown[static_cast<std::size_t>(k)] = true;
    OtherColumns out;
    for (std::size_t k = 0; k < header.size(); ++k) {
        if (isKnown[k] || header[k].empty())
            continue;
        if (numeric[k]) {
            int m = K.metricIndex(header[k]);
            if (m < 0) {
                K.metricNames.push_back(header[k]);
                K.metrics.emplace_back(); // coded as appended (MetricBlock below)
                K.metrics.back().resize(before, kNaN);
                m = static_cast<int>(K.metrics.size() - 1);
            }
            out.metrics.emplace_back(static_cast<int>(k), static_cast<std::size_t>(m));
        } else {
            auto it = std::find(K.extraNames.begin(), K.extraNames.end(), header[k]);
            std::size_t e = static_cast<std::size_t>(it - K.extraNames.begin());
            if (it == K.extraNames.end()) {
                K.extraNames.push_back(header[k]);
                K.extra.emplace_back(before, NameId(0));
            }
            out.extras.emplace_back(static_cast<int>(k), e);
        }
    }
    return out;
}

// Room for `rows` rows in every column: the columns are filled without being copied as they
// grow. Capacity never written costs no memory.
void reserveRows(KernelTable& K, std::size_t rows)
{
    auto room = [&](auto&... cols) { (cols.reserve(rows), ...); };
    room(K.device, K.step, K.modelId, K.streamId, K.taskId, K.contextId, K.start, K.dur, K.wait, K.name, K.type,
         K.taskType, K.opState, K.inputShapes, K.inputDtypes, K.inputFormats, K.outputShapes, K.outputDtypes,
         K.outputFormats, K.blockDim, K.mixBlockDim, K.slice);
    for (auto& m : K.metrics)
        m.reserve(rows);
    for (auto& e : K.extra)
        e.reserve(rows);
}

// Text cells interned into the string pool. Invalid UTF-8 (a mis-encoded export) is kept
// byte-exact, since a name is an identity, and named once; the writers show it with U+FFFD
// (store/safe_text.h).
class TextCells {
public:
    TextCells(const CsvTable& t, StringPool& strings) : m_t(t), m_strings(strings), m_last(t.header().size()) {}

    // Neighbouring rows often repeat a column's text (type, core, formats, shapes): each text
    // column remembers the id of its last clean cell, whose text in the pool is compared with
    // the next cell before the pool is searched for it.
    NameId operator()(int col)
    {
        if (col < 0)
            return NameId(0);
        const std::string_view cell = m_t.cell(col);
        NameId& l = m_last[static_cast<std::size_t>(col)];
        if (l.valid() && m_strings.view(l) == cell)
            return l;
        const std::uint64_t invalidBefore = m_badUtf8;
        const NameId id = intern(cell);
        l = m_badUtf8 == invalidBefore ? id : NameId(); // an invalid cell is counted every time
        return id;
    }

    void report(std::vector<Diagnostic>& diagnostics, const std::string& file) const
    {
        if (m_badUtf8 > 0)
            diagnostics.push_back(Diagnostic{Severity::Warning, file, m_badUtf8Line, m_badUtf8Offset,
                                             "invalid UTF-8 in text cells, kept as read and shown with U+FFFD (first at this line)",
                                             m_badUtf8});
    }

private:
    NameId intern(std::string_view cell)
    {
        if (!text::isValidUtf8(cell) && m_badUtf8++ == 0) {
            m_badUtf8Line = m_t.line();
            m_badUtf8Offset = static_cast<std::int64_t>(m_t.byteOffset());
        }
        return m_strings.intern(cell);
    }

    const CsvTable& m_t;
    StringPool& m_strings;
    std::vector<NameId> m_last;
    std::uint64_t m_badUtf8 = 0;
    std::int64_t m_badUtf8Line = -1, m_badUtf8Offset = -1;
};

// Metric values gather in blocks of rows, appended to their columns a column at a time: each
// column's dictionary stays in cache while its share of the block is coded. A dictionary of tens
// of thousands of values (a megabyte of lookup index) is out of the cache again when its column's
// turn comes, so a block's first lookups into it miss; the larger the block, the more lookups
// share that cost (32768 rows against 8192: a tenth less CPU for a level-1 kernel table). The
// block costs 8 bytes a row and a metric column (10.7 MB for 41 columns), no more rows than the
// file is expected to hold, and at most 16 MiB: a table of hundreds of columns gets fewer rows.
class MetricBlock {
public:
    MetricBlock(KernelTable& K, const std::vector<std::pair<int, std::size_t>>& cols, std::size_t rowsGuess)
        : m_k(K), m_cols(cols), m_rowsPerBlock(rowsPerBlock(cols.size(), rowsGuess)), m_block(cols.size() * m_rowsPerBlock)
    {
    }

    // rowsGuess >= 1, so a block holds a row at least.
    static std::size_t rowsPerBlock(std::size_t columns, std::size_t rowsGuess)
    {
        constexpr std::size_t kMaxRows = 32768, kMaxBytes = std::size_t{16} << 20;
        const std::size_t byBytes = std::max<std::size_t>(1, kMaxBytes / (sizeof(double) * std::max<std::size_t>(1, columns)));
        return std::min({kMaxRows, byBytes, rowsGuess});
    }

    // The current row's metric cells; an unreadable one is NaN, noted in `unreadable`.
    void addRow(const CsvTable& t, UnreadableCells& unreadable)
    {
        for (std::size_t i = 0; i < m_cols.size(); ++i) {
            const auto cellText = t.cell(m_cols[i].first);
            double v;
            if (!parseDouble(cellText, v)) {
                v = kNaN;
                unreadable.note(cellText);
            }
            m_block[i * m_rowsPerBlock + m_rows] = v;
        }
        if (++m_rows == m_rowsPerBlock)
            flush();
    }

    void flush()
    {
        for (std::size_t i = 0; i < m_cols.size(); ++i)
            m_k.metrics[m_cols[i].second].appendBlock(m_block.data() + i * m_rowsPerBlock, m_rows);
        m_rows = 0;
    }

    // Flushes and frees the block.
    void finish()
    {
        flush();
        m_block = std::vector<double>();
    }

private:
    KernelTable& m_k;
    const std::vector<std::pair<int, std::size_t>>& m_cols;
    const std::size_t m_rowsPerBlock;
    std::vector<double> m_block;
    std::size_t m_rows = 0;
};

// Rows out of start-time order and exact repeats of an earlier row (same device, stream, task,
// start, duration and name) are kept, and named by line: the first of each. Each row's key hash
// is checked after the rows are read: sorting these is far cheaper than a hash map of every
// row, and duplicates are rare. Rows in start-time order (as the profilers write them) have
// their repeats among the rows of the same start: only those few are sorted.
class RowChecks {
public:
    explicit RowChecks(std::size_t rowsGuess) { m_keys.reserve(rowsGuess); }

    void add(const KernelTable& K, std::size_t row, std::int64_t line, std::int64_t offset)
    {
        const TimeNs start = K.start[row];
        if (start < m_lastStart && m_unordered++ == 0) {
            m_unorderedLine = line;
            m_unorderedOffset = offset;
        }
        m_lastStart = std::max(m_lastStart, start);
        std::uint64_t h = std::hash<std::int64_t>{}(start);
        for (std::int64_t v : {std::int64_t(K.device[row]), K.streamId[row], K.taskId[row], K.dur[row],
                               std::int64_t(K.name[row].v)})
            h = (h ^ std::hash<std::int64_t>{}(v)) * 0x9E3779B97F4A7C15ull;
        m_keys.push_back(RowKey{h, row, line, offset});
    }

    // A row repeats the first row with its hash when every key field is equal; the first such
    // row in file order is named, with the line it repeats.
    void findDuplicates(const KernelTable& K)
    {
        if (m_unordered > 0) {
            checkRange(K, m_keys.begin(), m_keys.end());
            return;
        }
        for (auto i = m_keys.begin(); i != m_keys.end();) {
            auto j = i + 1;
            while (j != m_keys.end() && K.start[j->row] == K.start[i->row])
                ++j;
            if (j - i > 1)
                checkRange(K, i, j);
            i = j;
        }
    }

    void clear() { m_keys.clear(); }

    void reportDuplicates(std::vector<Diagnostic>& diagnostics, const std::string& file) const
    {
        if (m_duplicates > 0)
            diagnostics.push_back(Diagnostic{Severity::Warning, file, m_duplicateLine, m_duplicateOffset,
                                             "row is a duplicate of line " + std::to_string(m_duplicateOf)
                                                 + " (same device, stream, task, start, duration and name); "
                                                 + std::to_string(m_duplicates) + " such rows kept",
                                             m_duplicates});
    }
    void reportUnordered(std::vector<Diagnostic>& diagnostics, const std::string& file) const
    {
        if (m_unordered > 0)
            diagnostics.push_back(Diagnostic{Severity::Info, file, m_unorderedLine, m_unorderedOffset,
                                             "rows not in start-time order (first at this line); kept", m_unordered});
    }

private:
    struct RowKey {
        std::uint64_t hash;
        std::size_t row;
        std::int64_t line, offset;
    };
    using Keys = std::vector<RowKey>::iterator;

    // The rows of [from, to) sorted by hash, and each compared with the first of its hash.
    void checkRange(const KernelTable& K, Keys from, Keys to)
    {
        std::sort(from, to,
                  [](const RowKey& a, const RowKey& b) { return a.hash < b.hash || (a.hash == b.hash && a.row < b.row); });
        for (Keys i = from; i != to;) {
            Keys j = i + 1;
            const std::size_t o = i->row;
            for (; j != to && j->hash == i->hash; ++j) {
                const std::size_t r = j->row;
                if (K.start[o] == K.start[r] && K.dur[o] == K.dur[r] && K.device[o] == K.device[r]
                    && K.streamId[o] == K.streamId[r] && K.taskId[o] == K.taskId[r] && K.name[o] == K.name[r]) {
                    ++m_duplicates;
                    if (r < m_firstDuplicate) {
                        m_firstDuplicate = r;
                        m_duplicateLine = j->line;
                        m_duplicateOffset = j->offset;
                        m_duplicateOf = i->line;
                    }
                }
            }
            i = j;
        }
    }

    std::vector<RowKey> m_keys;
    std::size_t m_firstDuplicate = std::numeric_limits<std::size_t>::max();
    std::uint64_t m_duplicates = 0, m_unordered = 0;
    std::int64_t m_duplicateLine = -1, m_duplicateOf = -1, m_duplicateOffset = -1, m_unorderedLine = -1,
                 m_unorderedOffset = -1;
    TimeNs m_lastStart = std::numeric_limits<TimeNs>::min();
};

} // namespace

FileRecord readKernelCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    return readCsvTable(bytes, ctx, profileReport(sink, ctx), [&](CsvTable& t, FileRecord& rec) {
        const KernelColumns c = findKernelColumns(t);
        if (!t.require(c.name, "Op Name|Name") || !t.require(c.start, "Task Start Time(us)|Start Time(us)") ||
            !t.require(c.dur, "Task Duration(us)|Duration(us)"))
            return;

        const auto& header = t.header();
        KernelTable& K = sink.kernels;
        const std::size_t before = K.size();
        std::size_t rowsGuess = 0;
        const std::vector<bool> numeric = numericColumns(bytes, header, rowsGuess);
        const OtherColumns other = mapOtherColumns(K, header, c, numeric, before);

        // Room for the rows the file will hold (a little over the sample's guess). A row holds at
        // least one byte per column, whatever the sample said.
        rowsGuess = std::min(rowsGuess + rowsGuess / 16 + 16, bytes.size() / std::max<std::size_t>(1, header.size()) + 1);
        reserveRows(K, before + rowsGuess);

        const int fileDevice = ctx.device;
        UnreadableCells unreadable(t);
        UnreadableCells devices(t);
        TextCells text(t, sink.strings);
        RowChecks checks(rowsGuess);
        MetricBlock metrics(K, other.metrics, rowsGuess);
        while (t.nextRow()) {
            const auto start = parseMicrosToNs(t.cell(c.start));
            if (!start) {
                t.skipRow("bad start time '" + std::string(t.cell(c.start)) + "'");
                continue;
            }
            const auto dur = parseMicrosToNs(t.cell(c.dur));
            if (!dur) {
                t.skipRow("bad duration '" + std::string(t.cell(c.dur)) + "'");
                continue;
            }
            if (*dur < 0) {
                t.skipRow("negative duration '" + std::string(t.cell(c.dur)) + "'");
                continue;
            }
            K.device.push_back(devices.device(c.device, fileDevice)); // "host" -> -1
            K.step.push_back(unreadable.id(c.step));
            K.modelId.push_back(unreadable.id(c.model));
            K.streamId.push_back(unreadable.id(c.stream));
            K.taskId.push_back(unreadable.id(c.task));
            K.contextId.push_back(unreadable.id(c.context));
            K.start.push_back(*start);
            K.dur.push_back(*dur);
            K.wait.push_back(unreadable.micros(c.wait).value_or(std::numeric_limits<TimeNs>::min()));
            K.name.push_back(text(c.name));
            K.type.push_back(text(c.type));
            K.taskType.push_back(text(c.taskType));
            K.opState.push_back(text(c.opState));
            K.inputShapes.push_back(text(c.inShapes));
            K.inputDtypes.push_back(text(c.inTypes));
            K.inputFormats.push_back(text(c.inFormats));
            K.outputShapes.push_back(text(c.outShapes));
            K.outputDtypes.push_back(text(c.outTypes));
            K.outputFormats.push_back(text(c.outFormats));
            K.blockDim.push_back(unreadable.integer(c.block).value_or(-1));
            K.mixBlockDim.push_back(unreadable.integer(c.mixBlock).value_or(-1));
            K.slice.push_back(kNone);
            metrics.addRow(t, unreadable);
            for (const auto& [col, e] : other.extras)
                K.extra[e].push_back(text(col));
            checks.add(K, K.size() - 1, t.line(), static_cast<std::int64_t>(t.byteOffset()));
            ++rec.records;
        }
        metrics.finish();
        if (ctx.cancelled())
            checks.clear(); // the load is being thrown away
        checks.findDuplicates(K);
        text.report(sink.diagnostics, ctx.file);
        checks.reportDuplicates(sink.diagnostics, ctx.file);
        checks.reportUnordered(sink.diagnostics, ctx.file);
        // Columns this file lacks (another slice had them) stay aligned: NaN / empty.
        for (auto& m : K.metrics)
            m.resize(K.size(), kNaN);
        for (auto& e : K.extra)
            e.resize(K.size(), NameId(0));
        unreadable.report(sink.diagnostics, ctx, "id, metric, wait time or block dim cells");
        devices.reportDevices(sink.diagnostics, ctx);
        t.finish();
    });
}

} // namespace npuscope::readers
