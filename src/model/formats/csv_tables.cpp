// The smaller CSV tables of FORMATS.md §2: statistics, task_time, step traces, memory, l2_cache.
#include "model/formats/csv.h"
#include "model/formats/number_text.h"
#include "model/formats/readers.h"

#include <cmath>
#include <limits>

namespace npuscope::readers {

namespace {

// A count: an integer, or a number such as "12.0" rounded; at most 2^64 - 1.
std::optional<std::uint64_t> countOf(std::string_view text)
{
    if (auto u = parseUInt64(text))
        return *u;
    if (auto d = parseDouble(text); d && *d >= 0)
        return *d < 18446744073709551616.0 ? static_cast<std::uint64_t>(std::round(*d))
                                           : std::numeric_limits<std::uint64_t>::max();
    return std::nullopt;
}

// op_statistic, communication_statistic (hccl_statistic) and api_statistic share one shape.
FileRecord readStatCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx, const char* kind)
{
    return readCsvTable(bytes, ctx, profileReport(sink, ctx), [&](CsvTable& t, FileRecord& rec) {
        const bool api = std::string_view(kind) == "api_statistic";
        const int dev = t.column("Device_id");
        const int name = api ? t.column("API Name") : t.column({"OP Type", "Op Type"});
        const int core = api ? t.column("Level") : t.column("Core Type");
        const int count = t.column("Count");
        const int total = api ? t.column("Time(us)") : t.column("Total Time(us)");
        const int mn = api ? t.column("Min(us)") : t.column("Min Time(us)");
        const int avg = api ? t.column("Avg(us)") : t.column("Avg Time(us)");
        const int mx = api ? t.column("Max(us)") : t.column("Max Time(us)");
        const int ratio = t.column("Ratio(%)");
        const int variance = t.column("Variance");
        if (!t.require(name, api ? "API Name" : "OP Type") || !t.require(count, "Count") ||
            !t.require(total, api ? "Time(us)" : "Total Time(us)"))
            return;
        UnreadableCells unreadable(t);
        UnreadableCells devices(t);
        while (t.nextRow()) {
            const auto n = countOf(t.cell(count));
            const auto time = parseMicrosToNs(t.cell(total));
            if (!n || !time) {
                t.skipRow(!n ? "bad Count '" + std::string(t.cell(count)) + "'"
                             : "bad total time '" + std::string(t.cell(total)) + "'");
                continue;
            }
            StatRow r;
            r.device = devices.device(dev, ctx.device);
            r.kind = kind;
            r.name = sink.strings.intern(t.cell(name));
            r.coreType = core >= 0 ? sink.strings.intern(t.cell(core)) : NameId(0);
            r.count = *n;
            r.total = *time;
            r.min = unreadable.micros(mn).value_or(0);
            r.avg = unreadable.micros(avg).value_or(0);
            r.max = unreadable.micros(mx).value_or(0);
            r.ratio = unreadable.number(ratio).value_or(kNaN);
            r.variance = unreadable.number(variance).value_or(kNaN);
            sink.stats.push_back(r);
            ++rec.records;
        }
        unreadable.report(sink.diagnostics, ctx, "min, avg, max, ratio or variance cells");
        devices.reportDevices(sink.diagnostics, ctx);
        t.finish();
    });
}

struct StepColumns {
    int computing, commNotOverlapped, overlapped, communication, free, stage, bubble, exclReceive, preparing;
};

StepColumns stepColumns(const CsvTable& t)
{
    return StepColumns{t.column("Computing"),
                       t.column("Communication(Not Overlapped)"),
                       t.column("Overlapped"),
                       t.column("Communication"),
                       t.column("Free"),
                       t.column("Stage"),
                       t.column("Bubble"),
                       t.column("Communication(Not Overlapped and Exclude Receive)"),
                       t.column("Preparing")};
}

void fillStep(StepRow& r, UnreadableCells& cells, const StepColumns& c)
{
    r.computing = cells.micros(c.computing);
    r.commNotOverlapped = cells.micros(c.commNotOverlapped);
    r.overlapped = cells.micros(c.overlapped);
    r.communication = cells.micros(c.communication);
    r.free = cells.micros(c.free);
    r.stage = cells.micros(c.stage);
    r.bubble = cells.micros(c.bubble);
    r.commNotOverlappedExclReceive = cells.micros(c.exclReceive);
    r.preparing = cells.micros(c.preparing);
}

// Synthetic pids for series and tracks that come from CSV files (never a real pid: negative).
constexpr std::int64_t kTaskTimePidBase = -1000;   // - device
constexpr std::int64_t kMemoryRecordPid = -2100;   // - device
constexpr std::int64_t kNpuMemPid = -2200;         // - device
constexpr std::int64_t kNpuModuleMemPid = -2300;   // - device

} // namespace

FileRecord readOpStatisticCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    return readStatCsv(bytes, sink, ctx, "op_statistic");
}

FileRecord readApiStatisticCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    return readStatCsv(bytes, sink, ctx, "api_statistic");
}

FileRecord readCommStatisticCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    return readStatCsv(bytes, sink, ctx, "communication_statistic");
}

FileRecord readTaskTimeCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    return readCsvTable(bytes, ctx, profileReport(sink, ctx), [&](CsvTable& t, FileRecord& rec) {
        const int dev = t.column("Device_id");
        const int name = t.column("kernel_name");
        const int type = t.column("kernel_type");
        const int stream = t.column("stream_id");
        const int task = t.column("task_id");
        const int dur = t.column("task_time(us)");
        const int start = t.column("task_start(us)");
        const int stop = t.column("task_stop(us)");
        if (!t.require(stream, "stream_id") || !t.require(start, "task_start(us)") ||
            !t.require(dur >= 0 ? dur : stop, "task_time(us)"))
            return;
        const NameId hw = sink.strings.intern("Ascend Hardware");
        UnreadableCells unreadable(t); // task ids
        UnreadableCells devices(t);
        while (t.nextRow()) {
            const auto s = parseMicrosToNs(t.cell(start));
            TimeNs durNs = -1;
            if (auto d = dur >= 0 ? parseMicrosToNs(t.cell(dur)) : std::nullopt)
                durNs = *d;
            else if (auto e = stop >= 0 ? parseMicrosToNs(t.cell(stop)) : std::nullopt; e && s)
                durNs = *e - *s;
            const std::int64_t streamId = parseIdText(t.cell(stream));
            if (!s || durNs < 0 || streamId < 0) {
                t.skipRow("bad start, duration or stream id");
                continue;
            }
            const int device = devices.device(dev, ctx.device);
            const TrackId tr = sink.trackFor(kTaskTimePidBase - device, streamId);
            Track& track = sink.tracks[tr.v];
            if (!track.process.valid() || track.process.v == 0) {
                track.kind = TrackKind::Stream;
                track.process = hw;
                track.thread = sink.strings.intern("Stream " + std::to_string(streamId));
                track.streamId = streamId;
                track.device = device;
            }
            const std::int64_t taskId = unreadable.id(task);
            sink.slices.add(*s, durNs, sink.strings.intern(name >= 0 ? t.cell(name) : std::string_view("task")),
                            type >= 0 ? sink.strings.intern(t.cell(type)) : NameId(0), tr,
                            taskId < 0 || taskId >= kNone ? kNone : static_cast<std::uint32_t>(taskId));
            ++rec.records;
        }
        unreadable.report(sink.diagnostics, ctx, "task id cells");
        devices.reportDevices(sink.diagnostics, ctx);
        t.finish();
    });
}

FileRecord readStepTraceCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    return readCsvTable(bytes, ctx, profileReport(sink, ctx), [&](CsvTable& t, FileRecord& rec) {
        const int dev = t.column("Device_id");
        const int step = t.column("Step");
        const StepColumns c = stepColumns(t);
        if (!t.require(step, "Step") || !t.require(c.computing, "Computing"))
            return;
        UnreadableCells unreadable(t);
        UnreadableCells devices(t);
        while (t.nextRow()) {
            StepRow r;
            r.step = std::string(t.cell(step));
            r.device = devices.device(dev, ctx.device);
            fillStep(r, unreadable, c);
            sink.steps.push_back(std::move(r));
            ++rec.records;
        }
        unreadable.report(sink.diagnostics, ctx, "time cells");
        devices.reportDevices(sink.diagnostics, ctx);
        t.finish();
    });
}

FileRecord readClusterStepTraceCsv(std::string_view bytes, ClusterData& sink, std::vector<Diagnostic>& diags,
                                   const ReadContext& ctx)
{
    return readCsvTable(bytes, ctx, vectorReport(diags, ctx), [&](CsvTable& t, FileRecord& rec) {
        const int step = t.column("Step");
        const int type = t.column("Type");
        const int index = t.column("Index");
        const StepColumns c = stepColumns(t);
        if (!t.require(step, "Step") || !t.require(type, "Type") || !t.require(index, "Index") ||
            !t.require(c.computing, "Computing"))
            return;
        UnreadableCells unreadable(t);
        while (t.nextRow()) {
            StepRow r;
            r.step = std::string(t.cell(step));
            r.type = std::string(t.cell(type));
            r.index = std::string(t.cell(index));
            if (r.type == "rank")
                r.device = -1;
            fillStep(r, unreadable, c);
            sink.stepTrace.push_back(std::move(r));
            ++rec.records;
        }
        unreadable.report(diags, ctx, "time cells");
        t.finish();
    });
}

// npu_mem, memory_record and npu_module_mem: one counter series per (component or event, value
// column). operator_memory (allocation intervals, not a time series) goes to readOperatorMemoryCsv.
FileRecord readMemoryCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    return readCsvTable(bytes, ctx, profileReport(sink, ctx), [&](CsvTable& t, FileRecord& rec) {
        const int dev = t.column("Device_id");
        const int deviceText = t.column({"Device Type", "Device"});
        int nameCol = -1, tsCol = -1;
        std::int64_t pidBase = 0;
        std::string_view form; // the counters' process name
        std::vector<int> values;
        auto addIfPresent = [&](std::initializer_list<std::string_view> names) {
            for (auto n : names)
                if (int c = t.column(n); c >= 0)
                    values.push_back(c);
        };
        if (t.column("Allocation Time(us)") >= 0) {
            rec = readOperatorMemoryCsv(bytes, sink, ctx); // allocation intervals, not a time series
            return;
        }
        if (t.column("event") >= 0) {
            form = "npu_mem";
            pidBase = kNpuMemPid;
            nameCol = t.column("event");
            tsCol = t.column("timestamp(us)");
            addIfPresent({"ddr(KB)", "hbm(KB)", "memory(KB)"});
        } else if (t.column({"Total Allocated(MB)", "Total Allocated(KB)"}) >= 0) {
            form = "memory_record";
            pidBase = kMemoryRecordPid;
            nameCol = t.column("Component");
            tsCol = t.column("Timestamp(us)");
            addIfPresent({"Total Allocated(MB)", "Total Allocated(KB)", "Total Reserved(MB)", "Total Reserved(KB)",
                          "Total Active(MB)", "Total Active(KB)"});
        } else {
            form = "npu_module_mem";
            pidBase = kNpuModuleMemPid;
            nameCol = t.column("Component");
            tsCol = t.column("Timestamp(us)");
            addIfPresent({"Total Reserved(KB)", "Total Reserved(MB)"});
        }
        if (!t.require(nameCol, form == "npu_mem" ? "event" : "Component") ||
            !t.require(tsCol, form == "npu_mem" ? "timestamp(us)" : "Timestamp(us)") ||
            !t.require(values.empty() ? -1 : 0, "a memory value column"))
            return;
        const NameId process = sink.strings.intern(form);
        std::vector<NameId> keys;
        for (int v : values)
            keys.push_back(sink.strings.intern(t.header()[static_cast<std::size_t>(v)]));
        std::uint64_t emptyCells = 0;
        UnreadableCells unreadable(t);
        UnreadableCells devices(t);
        while (t.nextRow()) {
            const auto ts = parseMicrosToNs(t.cell(tsCol));
            if (!ts) {
                t.skipRow("bad timestamp '" + std::string(t.cell(tsCol)) + "'");
                continue;
            }
            const int device = devices.device(dev >= 0 ? dev : deviceText, ctx.device);
            const NameId name = sink.strings.intern(t.cell(nameCol));
            for (std::size_t k = 0; k < values.size(); ++k) {
                const auto v = unreadable.number(values[k]);
                if (!v) {
                    emptyCells += isMissingText(t.cell(values[k])) ? 1 : 0; // capture edges leave cells empty
                    continue;
                }
                CounterSeries& s = sink.counterFor(pidBase - device, name, keys[k]);
                s.process = process;
                s.device = device;
                s.ts.push_back(*ts);
                s.value.push_back(*v);
            }
            ++rec.records;
        }
        if (emptyCells > 0)
            sink.diagnostics.push_back(
                Diagnostic{Severity::Info, ctx.file, -1, -1, "empty or N/A value cells skipped", emptyCells});
        unreadable.report(sink.diagnostics, ctx, "value cells");
        devices.reportDevices(sink.diagnostics, ctx);
        t.finish();
    });
}

FileRecord readL2CacheCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    return readCsvTable(bytes, ctx, profileReport(sink, ctx), [&](CsvTable& t, FileRecord& rec) {
        const int dev = t.column("Device_id");
        const int stream = t.column({"Stream Id", "Stream ID"});
        const int task = t.column({"Task Id", "Task ID"});
        const int hit = t.column("Hit Rate");
        const int victim = t.column("Victim Rate");
        const int op = t.column({"Op Name", "Name"});
        if (!t.require(stream, "Stream Id") || !t.require(task, "Task Id") || !t.require(hit, "Hit Rate"))
            return;
        UnreadableCells unreadable(t);
        UnreadableCells devices(t);
        auto rate = [&unreadable](int col) {
            const auto v = unreadable.number(col);
            if (!v)
                return kNaN;
            return *v > 1.0 ? *v / 100.0 : *v; // a value above 1 is a percentage
        };
        // Room for the whole file, guessed from the bytes of its first rows (875 k rows in a
        // level-1 profile of 1.2 GB).
        const std::size_t before = sink.l2.size();
        while (t.nextRow()) {
            if (rec.records == CsvTable::kSampleRows)
                sink.l2.reserve(before + t.rowsExpected(CsvTable::kSampleRows));
            L2Row r;
            r.device = devices.device(dev, ctx.device);
            r.streamId = unreadable.id(stream);
            r.taskId = unreadable.id(task);
            r.hitRate = rate(hit);
            r.victimRate = rate(victim);
            r.opName = op >= 0 ? sink.strings.intern(t.cell(op)) : NameId(0);
            sink.l2.push_back(r);
            ++rec.records;
        }
        unreadable.report(sink.diagnostics, ctx, "id or rate cells");
        devices.reportDevices(sink.diagnostics, ctx);
        t.finish();
    });
}

} // namespace npuscope::readers
