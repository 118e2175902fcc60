// Readers of the SQLite exports (FORMATS-DB.md): the profiler database (msprof_*.db,
// ascend_pytorch_profiler[_N].db) and torch_npu's analysis.db, into the same Profile the text
// readers build: device tasks with names, types, shapes and PMU metrics, communication ops and
// tasks, CANN and PyTorch API spans, flows, counters, steps and communication analysis.
#include "model/formats/db_loader.h"
#include "model/formats/number_text.h"
#include "model/formats/readers.h"
#include "model/formats/sqlite_db.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <unordered_map>

namespace npuscope::readers {

namespace {

using dbread::DbLoader;

// analysis.db: StepTraceTime (µs), CommAnalyzerTime/Bandwidth/Matrix.
void readAnalysis(const db::Database& d, Profile& p, const ReadContext& ctx, FileRecord& rec)
{
    auto select = [&](const std::string& table, const std::vector<std::string>& cols) {
        std::string err;
        auto st = d.selectColumns(table, cols, {}, &err);
        if (!st.valid()) {
            ++rec.skipped;
            p.report(Severity::Error, ctx.file, -1, -1, "table " + table + ": " + err);
        }
        return st;
    };
    auto finish = [&](const db::Statement& st, const char* table) {
        if (st.error().empty())
            return;
        ++rec.skipped;
        p.report(Severity::Error, ctx.file, -1, -1,
                 std::string("table ") + table + ": " + st.error() + " (rows before the damage kept)");
    };
    auto us = [](const db::Statement& st, int col) -> std::optional<TimeNs> {
        if (st.isNull(col))
            return std::nullopt;
        return parseMicrosToNs(st.numberText(col));
    };
    auto num = [](const db::Statement& st, int col) { return st.real(col).value_or(kNaN); };
    if (d.hasTable("StepTraceTime")) {
        auto st = select("StepTraceTime", {"step", "computing", "communication_not_overlapped", "overlapped",
                                           "communication", "free", "stage", "bubble",
                                           "communication_not_overlapped_and_exclude_receive", "preparing", "deviceId"});
        while (st.step()) {
            StepRow r;
            r.step = std::string(st.text(0));
            r.computing = us(st, 1);
            r.commNotOverlapped = us(st, 2);
            r.overlapped = us(st, 3);
            r.communication = us(st, 4);
            r.free = us(st, 5);
            r.stage = us(st, 6);
            r.bubble = us(st, 7);
            r.commNotOverlappedExclReceive = us(st, 8);
            r.preparing = us(st, 9);
            const auto device = st.int64(10);
            r.device = deviceIdOf(device.value_or(-1));
            if (device && *device != -1 && r.device < 0)
                p.report(Severity::Warning, ctx.file, -1, -1, "StepTraceTime: device id beyond 0..65535 read as unknown");
            p.steps.push_back(std::move(r));
            ++rec.records;
        }
        finish(st, "StepTraceTime");
    }
    std::map<std::string, std::size_t> opIndex; // step|op@group -> commOps index
    if (d.hasTable("CommAnalyzerTime")) {
        auto st = select("CommAnalyzerTime", {"hccl_op_name", "group_name", "start_timestamp", "elapse_time",
                                              "transit_time", "wait_time", "synchronization_time", "idle_time", "step",
                                              "type"});
        while (st.step()) {
            CommOp op;
            op.opName = std::string(st.text(0));
            op.group = std::string(st.text(1));
            op.fullName = op.opName + "@" + op.group;
            if (!st.isNull(2))
                op.start = parseMicrosToNs(st.numberText(2));
            op.elapseMs = num(st, 3);
            op.transitMs = num(st, 4);
            op.waitMs = num(st, 5);
            op.syncMs = num(st, 6);
            op.idleMs = num(st, 7);
            op.step = std::string(st.text(8));
            op.kind = std::string(st.text(9));
            // Not stored: computed, and rounded to 4 decimals as communication.json writes them.
            auto ratio = [](double part, double transit) {
                return part + transit > 0 ? std::round(part / (part + transit) * 1e4) / 1e4 : 0.0;
            };
            op.waitRatio = ratio(op.waitMs, op.transitMs);
            op.syncRatio = ratio(op.syncMs, op.transitMs);
            opIndex[op.step + "|" + op.fullName] = p.commOps.size();
            p.commOps.push_back(std::move(op));
            ++rec.records;
        }
        finish(st, "CommAnalyzerTime");
    }
    if (d.hasTable("CommAnalyzerBandwidth")) {
        auto st = select("CommAnalyzerBandwidth", {"hccl_op_name", "group_name", "transport_type", "transit_size",
                                                   "transit_time", "bandwidth", "large_packet_ratio", "package_size",
                                                   "count", "total_duration", "step"});
        while (st.step()) {
            const std::string key = std::string(st.text(10)) + "|" + std::string(st.text(0)) + "@" + std::string(st.text(1));
            auto it = opIndex.find(key);
            if (it == opIndex.end()) {
                ++rec.skipped;
                p.report(Severity::Warning, ctx.file, -1, -1, "CommAnalyzerBandwidth row for an op missing in CommAnalyzerTime");
                continue;
            }
            CommOp& op = p.commOps[it->second];
            const NameId transport = p.strings.intern(st.text(2));
            CommBandwidth* bw = nullptr;
            for (auto& b : op.bandwidth)
                if (b.transport == transport)
                    bw = &b;
            if (!bw) {
                op.bandwidth.push_back(CommBandwidth{});
                bw = &op.bandwidth.back();
                bw->transport = transport;
                bw->sizeMB = num(st, 3);
                bw->timeMs = num(st, 4);
                bw->bandwidthGBps = num(st, 5);
                bw->largePacketRatio = num(st, 6);
            }
            if (!st.isNull(7) && st.real(8).value_or(0) > 0)
                bw->sizes.push_back(SizeBucket{std::string(st.text(7)), num(st, 8), num(st, 9)});
            ++rec.records;
        }
        finish(st, "CommAnalyzerBandwidth");
    }
    if (d.hasTable("CommAnalyzerMatrix")) {
        auto st = select("CommAnalyzerMatrix", {"hccl_op_name", "group_name", "src_rank", "dst_rank", "transport_type",
                                                "transit_size", "transit_time", "bandwidth", "step", "type", "op_name"});
        while (st.step()) {
            CommLink l;
            l.fullName = p.strings.intern(std::string(st.text(0)) + "@" + std::string(st.text(1)));
            l.group = p.strings.intern(st.text(1));
            l.src = rankOf(parseInt64(st.text(2)).value_or(-1));
            l.dst = rankOf(parseInt64(st.text(3)).value_or(-1));
            l.transport = p.strings.intern(st.text(4));
            l.sizeMB = num(st, 5);
            l.timeMs = num(st, 6);
            l.bandwidthGBps = num(st, 7);
            l.step = p.strings.intern(st.text(8));
            l.kind = p.strings.intern(st.text(9));
            l.opName = p.strings.intern(st.text(10));
            p.commLinks.push_back(l);
            ++rec.records;
        }
        finish(st, "CommAnalyzerMatrix");
    }
}

// A database another connection holds locked is read as it is on disk (immutable snapshot).
void noteSnapshot(const db::Database& d, Profile& sink)
{
    if (d.lockedByOther())
        sink.report(Severity::Warning, d.path(), -1, -1,
                    "database locked by another connection (" + d.snapshotReason()
                        + "): read as it is on disk; rows being written now may be missing");
}

FileRecord openFailed(const std::string& path, const std::string& err, Profile& sink)
{
    FileRecord rec;
    rec.path = path;
    rec.status = FileStatus::Failed;
    rec.note = err;
    sink.report(Severity::Error, path, -1, -1, err);
    return rec;
}

// Every database reader's opening: the file opened and `read(d, rec)`, or the record failed
// with why (also reported).
template <typename Read>
FileRecord readDb(const std::string& path, Profile& sink, Read&& read)
{
    std::string err;
    auto d = db::Database::open(path, &err);
    if (!d)
        return openFailed(path, err, sink);
    FileRecord rec;
    rec.path = path;
    read(*d, rec);
    return rec;
}

} // namespace

void deriveCubeUtilization(Profile& p)
{
    KernelTable& k = p.kernels;
    const int cycles = k.metricIndex(std::string("aic_total_cycles"));
    if (cycles < 0 || k.metricIndex(std::string("cube_utilization(%)")) >= 0)
        return;
    auto usable = [](const DeviceInfo& d) { return d.aiCoreNum > 0 && d.aicFrequencyMHz > 0; };
    const DeviceInfo* any = nullptr;
    for (const DeviceInfo& d : p.deviceInfo)
        if (usable(d) && !any)
            any = &d;
    if (!any)
        return;
    auto infoOf = [&](int device) {
        for (const DeviceInfo& d : p.deviceInfo)
            if (d.device == device && usable(d))
                return &d;
        return any;
    };
    MetricColumn col;
    col.reserve(k.size());
    const MetricColumn& c = k.metrics[static_cast<std::size_t>(cycles)];
    for (std::size_t r = 0; r < k.size(); ++r) {
        const double n = c[r];
        const double durUs = static_cast<double>(k.dur[r]) / 1000.0;
        if (std::isnan(n) || durUs <= 0) {
            col.push_back(std::isnan(n) ? kNaN : 0.0);
            continue;
        }
        const DeviceInfo* d = infoOf(k.device[r]);
        const double util = n / (d->aicFrequencyMHz * d->aiCoreNum * durUs) * 100.0;
        col.push_back(std::round(util * 1000.0) / 1000.0);
    }
    col.compact();
    k.metricNames.emplace_back("cube_utilization(%)");
    k.metrics.push_back(std::move(col));
}

FileRecord readProfilerDb(const std::string& path, Profile& sink, const ReadContext& ctx)
{
    return readDb(path, sink, [&](const db::Database& d, FileRecord& rec) {
        if (!d.hasTable("STRING_IDS") || !d.hasTable("TASK")) {
            rec.status = FileStatus::Failed;
            rec.note = "not a profiler database (no STRING_IDS/TASK table)";
            sink.report(Severity::Error, path, -1, -1, "table STRING_IDS or TASK missing: not a profiler database");
            return;
        }
        noteSnapshot(d, sink);
        DbLoader loader(d, sink, ctx, rec);
        loader.run();
        if (ctx.cancelled()) {
            rec.status = FileStatus::Partial;
            rec.note = "cancelled";
        } else if (loader.tableErrors()) {
            rec.status = FileStatus::Partial;
            rec.note = std::to_string(loader.tableErrors()) + " table(s) could not be read completely";
        } else if (rec.skipped) {
            rec.status = FileStatus::Partial;
        }
    });
}

FileRecord readAnalysisDb(const std::string& path, Profile& sink, const ReadContext& ctx)
{
    return readDb(path, sink, [&](const db::Database& d, FileRecord& rec) {
        noteSnapshot(d, sink);
        readAnalysis(d, sink, ctx, rec);
        if (rec.skipped)
            rec.status = FileStatus::Partial;
    });
}

} // namespace npuscope::readers
