// op_summary_*.csv and kernel_details.csv -> Profile::kernels (FORMATS.md §2).
#include "model/formats/csv.h"
#include "model/formats/number_text.h"
#include "model/formats/readers.h"

#include <algorithm>
#include <limits>

namespace npuscope::readers {

namespace {

bool isMissingText(std::string_view s)
{
    return s.empty() || s == "N/A" || s == "NA" || s == "n/a" || s == "null" || s == "None" || s == "-";
}

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

// A column whose sampled non-missing cells all parse as numbers is a metric. Sampling the first
// rows keeps the reader single-pass over the rest of a large file.
std::vector<bool> numericColumns(std::string_view bytes, const std::vector<std::string>& header)
{
    constexpr int kSampleRows = 512;
    std::vector<int> numeric(header.size(), 0), text(header.size(), 0);
    CsvReader r(bytes);
    r.next(); // header
    for (int i = 0; i < kSampleRows && r.next(); ++i) {
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
    std::vector<bool> out(header.size());
    for (std::size_t k = 0; k < header.size(); ++k)
        out[k] = text[k] == 0 && !(numeric[k] == 0 && knownTextColumn(header[k]));
    return out;
}

} // namespace

FileRecord readKernelCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = ctx.file.find("kernel_details") != std::string::npos ? "kernel_details" : "op_summary";
    CsvTable t(bytes, ctx, rec, [&](Severity s, std::int64_t line, std::int64_t off, std::string reason) {
        sink.report(s, ctx.file, line, off, std::move(reason));
    });
    if (!t.open())
        return rec;

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
    if (!t.require(c.name, "Op Name|Name") || !t.require(c.start, "Task Start Time(us)|Start Time(us)") ||
        !t.require(c.dur, "Task Duration(us)|Duration(us)"))
        return rec;

    const auto& header = t.header();
    std::vector<bool> isKnown(header.size(), false);
    for (int k : {c.device, c.step, c.model, c.stream, c.task, c.context, c.name, c.type, c.taskType, c.opState,
                  c.start, c.dur, c.wait, c.block, c.mixBlock, c.inShapes, c.inTypes, c.inFormats, c.outShapes,
                  c.outTypes, c.outFormats})
        if (k >= 0)
            isKnown[static_cast<std::size_t>(k)] = true;

    KernelTable& K = sink.kernels;
    const std::size_t before = K.size();
    // Map this file's other columns onto the table's metric/extra columns by name, so slices of
    // one table (read one call per slice) line up even when a later slice lacks a column.
    const std::vector<bool> numeric = numericColumns(bytes, header);
    std::vector<std::pair<int, std::size_t>> metricCols, extraCols; // (file column, table column)
    for (std::size_t k = 0; k < header.size(); ++k) {
        if (isKnown[k] || header[k].empty())
            continue;
        if (numeric[k]) {
            int m = K.metricIndex(header[k]);
            if (m < 0) {
                K.metricNames.push_back(header[k]);
                K.metrics.emplace_back(before, kNaN);
                m = static_cast<int>(K.metrics.size() - 1);
            }
            metricCols.emplace_back(static_cast<int>(k), static_cast<std::size_t>(m));
        } else {
            auto it = std::find(K.extraNames.begin(), K.extraNames.end(), header[k]);
            std::size_t e = static_cast<std::size_t>(it - K.extraNames.begin());
            if (it == K.extraNames.end()) {
                K.extraNames.push_back(header[k]);
                K.extra.emplace_back(before, NameId(0));
            }
            extraCols.emplace_back(static_cast<int>(k), e);
        }
    }

    const int fileDevice = ctx.device;
    std::uint64_t badMetric = 0;
    auto text = [&](int col) { return col < 0 ? NameId(0) : sink.strings.intern(t.cell(col)); };
    auto id = [&](int col) { return col < 0 ? std::int64_t(-1) : parseIdText(t.cell(col)); };
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
        int device = fileDevice;
        if (c.device >= 0)
            device = parseDeviceText(t.cell(c.device)); // "host" -> -1
        K.device.push_back(device);
        K.step.push_back(id(c.step));
        K.modelId.push_back(id(c.model));
        K.streamId.push_back(id(c.stream));
        K.taskId.push_back(id(c.task));
        K.contextId.push_back(id(c.context));
        K.start.push_back(*start);
        K.dur.push_back(*dur);
        K.wait.push_back(c.wait < 0 ? std::numeric_limits<TimeNs>::min()
                                    : parseMicrosToNs(t.cell(c.wait)).value_or(std::numeric_limits<TimeNs>::min()));
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
        K.blockDim.push_back(c.block < 0 ? -1 : parseInt64(t.cell(c.block)).value_or(-1));
        K.mixBlockDim.push_back(c.mixBlock < 0 ? -1 : parseInt64(t.cell(c.mixBlock)).value_or(-1));
        K.slice.push_back(kNone);
        for (const auto& [col, m] : metricCols) {
            const auto cellText = t.cell(col);
            const auto v = parseDouble(cellText);
            if (!v && !isMissingText(cellText))
                ++badMetric;
            K.metrics[m].push_back(v.value_or(kNaN));
        }
        for (const auto& [col, e] : extraCols)
            K.extra[e].push_back(sink.strings.intern(t.cell(col)));
        ++rec.records;
    }
    // Columns this file lacks (another slice had them) stay aligned: NaN / empty.
    for (auto& m : K.metrics)
        m.resize(K.size(), kNaN);
    for (auto& e : K.extra)
        e.resize(K.size(), NameId(0));
    if (badMetric > 0) {
        sink.diagnostics.push_back(Diagnostic{Severity::Info, ctx.file, -1, -1,
                                              "non-numeric text in metric columns read as missing", badMetric});
    }
    t.finish();
    return rec;
}

} // namespace npuscope::readers
