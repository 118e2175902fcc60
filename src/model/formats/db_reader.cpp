// Readers of the SQLite exports (FORMATS-DB.md): the profiler database (msprof_*.db,
// ascend_pytorch_profiler[_N].db) and torch_npu's analysis.db, into the same Profile the text
// readers build: device tasks with names, types, shapes and PMU metrics, communication ops and
// tasks, CANN and PyTorch API spans, flows, counters, steps and communication analysis.
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

// Synthetic pids for the tracks a database implies (the db has no trace pids).
constexpr std::int64_t kDevicePid = 1LL << 40;   // + deviceId: "Ascend Hardware"
constexpr std::int64_t kCommPid = 2LL << 40;     // + deviceId: "Communication"
constexpr std::int64_t kOverlapPid = 3LL << 40;  // + deviceId: "Overlap Analysis"
constexpr std::int64_t kCannPid = 4LL << 40;     // + host pid: "CANN"
constexpr std::int64_t kPythonPid = 5LL << 40;   // + host pid: "Python"
constexpr std::int64_t kCounterPid = 6LL << 40;  // + table index: counters

class DbLoader {
public:
    DbLoader(const db::Database& d, Profile& p, const ReadContext& ctx, FileRecord& rec)
        : m_db(d), m_p(p), m_ctx(ctx), m_rec(rec)
    {
    }

    void run()
    {
        loadStrings();
        loadEnums();
        loadMeta();
        checkSchema();
        loadSteps();
        if (m_ctx.cancelled())
            return;
        loadDeviceTasks();
        loadPmu();
        loadCommOps();
        loadCommTasks();
        if (m_ctx.cancelled())
            return;
        loadCannApi();
        loadPytorchApi();
        loadFlows();
        loadOverlap();
        loadCounters();
        loadOpMemory();
        fillWaitTimes();
    }

private:
    // ---- helpers ----
    NameId str(std::optional<std::int64_t> id)
    {
        if (!id)
            return NameId(0);
        auto it = m_strings.find(*id);
        return it == m_strings.end() ? NameId(0) : it->second;
    }

    std::string enumName(const std::map<std::int64_t, std::string>& e, std::optional<std::int64_t> id)
    {
        if (!id)
            return {};
        auto it = e.find(*id);
        return it == e.end() ? std::to_string(*id) : it->second;
    }

    db::Statement select(const std::string& table, const std::vector<std::string>& cols, const std::string& tail = {})
    {
        std::string err;
        db::Statement st = m_db.selectColumns(table, cols, tail, &err);
        if (!st.valid())
            tableError(table, err);
        return st;
    }

    // A table that cannot be read (corrupt pages, truncated file): named, the rest still loads.
    void tableError(const std::string& table, const std::string& why)
    {
        ++m_tableErrors;
        m_p.report(Severity::Error, m_ctx.file, -1, -1, "table " + table + ": " + why + " (rows before the damage kept)");
    }

    void finish(db::Statement& st, const std::string& table)
    {
        if (!st.error().empty())
            tableError(table, st.error());
    }

    bool need(const std::string& table)
    {
        if (m_db.hasTable(table))
            return true;
        return false;
    }

public:
    int tableErrors() const { return m_tableErrors; }

private:

    TrackId track(std::int64_t pid, std::int64_t tid, TrackKind kind, std::string_view process, const std::string& thread,
                  int device, std::int64_t stream = -1)
    {
        const TrackId t = m_p.trackFor(pid, tid);
        Track& tr = m_p.tracks[t.v];
        if (!tr.process.valid()) {
            tr.kind = kind;
            tr.process = m_p.strings.intern(process);
            tr.thread = m_p.strings.intern(thread);
            tr.device = device;
            tr.streamId = stream;
        }
        return t;
    }

    std::int64_t stepOf(TimeNs t) const
    {
        for (const auto& [id, range] : m_steps)
            if (t >= range.first && t < range.second)
                return id;
        return -1;
    }

    // A row's startNs/endNs as its start and duration. A row without both times, with a time
    // beyond +-kMaxTimeNs (the bound the text readers keep, so that start + duration and the
    // difference of any two times fit in 64 bits) or ending before it starts is counted as
    // skipped and reported (once per table and reason, with the count of repeats).
    struct Interval {
        TimeNs start = 0;
        TimeNs dur = 0;
    };
    std::optional<Interval> interval(const db::Statement& st, int startCol, int endCol, const char* table)
    {
        const auto start = st.int64(startCol);
        const auto end = st.int64(endCol);
        const char* why = nullptr;
        if (!start || !end)
            why = "without a readable startNs and endNs";
        else if (!timeInRange(*start) || !timeInRange(*end))
            why = "with a time beyond 4e18 ns";
        else if (*end < *start)
            why = "with endNs before startNs";
        if (why) {
            skipRow(std::string(table) + " row " + why + " skipped");
            return std::nullopt;
        }
        return Interval{*start, *end - *start};
    }

    // A counter sample's timestamp, or nullopt (counted and reported like interval()).
    std::optional<TimeNs> sampleTime(const db::Statement& st, int col, const char* table)
    {
        const auto t = st.int64(col);
        if (t && timeInRange(*t))
            return t;
        skipRow(std::string(table) + (t ? " sample with a time beyond 4e18 ns skipped"
                                        : " sample without a readable timestamp skipped"));
        return std::nullopt;
    }

    // The device id in column col, or fallback when the cell is NULL; an id beyond 0..65535 is
    // reported and reads as -1 (unknown).
    int deviceAt(const db::Statement& st, int col, int fallback)
    {
        const auto v = st.int64(col);
        if (!v)
            return fallback;
        const int id = deviceIdOf(*v);
        if (id < 0)
            m_p.report(Severity::Warning, m_ctx.file, -1, -1, "device id beyond 0..65535 read as unknown");
        return id;
    }

    // Counts a row left out of the model and reports why (the report is merged per reason).
    void skipRow(std::string reason)
    {
        ++m_rec.skipped;
        m_p.report(Severity::Warning, m_ctx.file, -1, -1, std::move(reason));
    }

    static bool timeInRange(std::int64_t t) { return t >= -kMaxTimeNs && t <= kMaxTimeNs; }

    // ---- tables ----
    void loadStrings()
    {
        if (!need("STRING_IDS"))
            return;
        auto st = select("STRING_IDS", {"id", "value"});
        while (st.step())
            if (auto id = st.int64(0))
                m_strings.emplace(*id, m_p.strings.intern(st.text(1)));
        finish(st, "STRING_IDS");
    }

    void loadEnums()
    {
        auto load = [this](const char* table, std::map<std::int64_t, std::string>& out) {
            if (!need(table))
                return;
            auto st = select(table, {"id", "name"});
            while (st.step())
                if (auto id = st.int64(0))
                    out.emplace(*id, std::string(st.text(1)));
        };
        load("ENUM_API_TYPE", m_apiTypes);
        load("ENUM_HCCL_TRANSPORT_TYPE", m_transport);
        load("ENUM_HCCL_LINK_TYPE", m_linkType);
        load("ENUM_HCCL_DATA_TYPE", m_dataType);
        load("ENUM_MODULE", m_modules);
    }

    void loadMeta()
    {
        if (need("META_DATA")) {
            auto st = select("META_DATA", {"name", "value"});
            while (st.step()) {
                const std::string name(st.text(0));
                const std::string value(st.text(1));
                if (name == "ENV_VARIABLES") {
                    auto j = nlohmann::json::parse(value, nullptr, false);
                    if (j.is_object())
                        for (auto& [k, v] : j.items())
                            m_p.meta.env[k] = v.is_string() ? v.get<std::string>() : v.dump();
                } else if (name == "SCHEMA_VERSION") {
                    m_schema = value;
                }
            }
        }
        if (need("NPU_INFO")) {
            auto st = select("NPU_INFO", {"id", "name"});
            while (st.step()) {
                DeviceInfo* di = nullptr;
                const int dev = deviceAt(st, 0, -1);
                for (auto& d : m_p.deviceInfo)
                    if (d.device == dev)
                        di = &d;
                if (!di) {
                    m_p.deviceInfo.push_back(DeviceInfo{});
                    di = &m_p.deviceInfo.back();
                    di->device = dev;
                }
                di->chip = std::string(st.text(1));
            }
        }
        if (need("RANK_DEVICE_MAP")) {
            auto st = select("RANK_DEVICE_MAP", {"rankId", "deviceId"});
            while (st.step()) {
                if (const int rank = rankOf(st.int64(0).value_or(-1)); rank >= 0 && m_p.rank < 0)
                    m_p.rank = rank;
                if (m_ctx.device < 0)
                    m_device = deviceAt(st, 1, m_device); // a NULL deviceId keeps the last one
            }
        }
    }

    // Schema 1.x is what FORMATS-DB.md describes; newer majors are read by column name as far
    // as they match. Tables every profiler level writes are named when absent.
    void checkSchema()
    {
        if (!m_schema.empty()) {
            const auto major = parseInt64(std::string_view(m_schema).substr(0, m_schema.find('.')));
            if (!major || *major != 1)
                m_p.report(Severity::Warning, m_ctx.file, -1, -1,
                           "table META_DATA: unknown SCHEMA_VERSION " + m_schema
                               + " (1.x known): columns are read by name, missing ones stay empty");
        }
        for (const char* t : {"COMPUTE_TASK_INFO", "COMMUNICATION_OP", "CANN_API", "STEP_TIME"})
            if (!m_db.hasTable(t))
                m_p.report(Severity::Warning, m_ctx.file, -1, -1, std::string("table ") + t + " missing: "
                               + (std::string(t) == "COMPUTE_TASK_INFO" ? "device tasks keep only their task type"
                                  : std::string(t) == "COMMUNICATION_OP" ? "no communication ops"
                                  : std::string(t) == "CANN_API"         ? "no CANN API spans or HostToDevice flows"
                                                                         : "no step ids"));
    }

    void loadSteps()
    {
        if (!need("STEP_TIME"))
            return;
        auto st = select("STEP_TIME", {"id", "startNs", "endNs"});
        while (st.step()) {
            const auto span = interval(st, 1, 2, "STEP_TIME");
            if (!span)
                continue;
            if (const auto id = st.int64(0))
                m_steps.push_back({*id, {span->start, span->start + span->dur}});
            else
                skipRow("STEP_TIME row without an id skipped");
        }
    }

    void loadDeviceTasks()
    {
        if (!need("TASK")) {
            m_p.report(Severity::Warning, m_ctx.file, -1, -1, "table TASK missing: no device tasks");
            return;
        }
        const bool compute = need("COMPUTE_TASK_INFO");
        const std::string blockCol = m_db.hasColumn("COMPUTE_TASK_INFO", "blockNum") ? "blockNum" : "blockDim";
        const std::string mixCol = m_db.hasColumn("COMPUTE_TASK_INFO", "mixBlockNum") ? "mixBlockNum" : "mixBlockDim";
        std::string sql = "SELECT t.startNs, t.endNs, t.deviceId, t.connectionId, t.globalTaskId, t.taskType, "
                          "t.contextId, t.streamId, t.taskId, t.modelId";
        const char* cinfo[] = {"name", "opType", "taskType", "inputFormats", "inputDataTypes", "inputShapes",
                               "outputFormats", "outputDataTypes", "outputShapes", "opState"};
        for (const char* c : cinfo)
            sql += compute && m_db.hasColumn("COMPUTE_TASK_INFO", c) ? std::string(", c.\"") + c + "\"" : ", NULL";
        sql += compute && m_db.hasColumn("COMPUTE_TASK_INFO", blockCol) ? ", c.\"" + blockCol + "\"" : ", NULL";
        sql += compute && m_db.hasColumn("COMPUTE_TASK_INFO", mixCol) ? ", c.\"" + mixCol + "\"" : ", NULL";
        sql += compute ? ", c.globalTaskId" : ", NULL";
        sql += " FROM TASK t";
        if (compute)
            sql += " LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId";
        sql += " ORDER BY t.startNs";
        std::string err;
        auto st = m_db.prepare(sql, &err);
        if (!st.valid()) {
            tableError("TASK", err);
            return;
        }
        KernelTable& k = m_p.kernels;
        while (st.step()) {
            const auto span = interval(st, 0, 1, "TASK");
            if (!span)
                continue;
            const TimeNs start = span->start;
            const TimeNs dur = span->dur;
            const int device = deviceAt(st, 2, m_device);
            const std::int64_t stream = st.int64(7).value_or(-1);
            const std::int64_t taskId = st.int64(8).value_or(-1);
            const NameId hwType = str(st.int64(5));
            const bool hasCompute = !st.isNull(20);
            const NameId name = hasCompute ? str(st.int64(10)) : hwType;
            const NameId coreType = hasCompute ? str(st.int64(12)) : hwType;
            // Level 0 writes COMPUTE_TASK_INFO.taskType N/A: the slice keeps the hardware type,
            // as the text timeline's "Task Type" does.
            const NameId category = hasCompute && m_p.str(coreType) != "N/A" ? coreType : hwType;
            const TrackId t = track(kDevicePid + device, stream, TrackKind::Stream, "Ascend Hardware",
                                    "Stream " + std::to_string(stream), device, stream);
            const auto row = m_p.slices.add(start, dur, name, category, t,
                                            taskId >= 0 && taskId < kNone ? static_cast<std::uint32_t>(taskId) : kNone);
            ++m_rec.records;
            ++m_p.join.deviceTasks;
            if (const auto g = st.int64(4))
                m_taskSlice[*g] = row;
            if (const auto c = st.int64(3); c && *c != 4294967295LL)
                m_connTargets[*c].push_back(row);
            if (!hasCompute)
                continue;
            const auto kr = static_cast<std::uint32_t>(k.size());
            k.device.push_back(device);
            k.step.push_back(stepOf(start));
            const auto model = st.int64(9).value_or(-1);
            k.modelId.push_back(model == 4294967295LL ? -1 : model);
            k.streamId.push_back(stream);
            k.taskId.push_back(taskId);
            const auto ctxId = st.int64(6).value_or(-1);
            k.contextId.push_back(ctxId == 4294967295LL ? -1 : ctxId);
            k.start.push_back(start);
            k.dur.push_back(dur);
            k.wait.push_back(0);
            k.name.push_back(name);
            k.type.push_back(str(st.int64(11)));
            k.taskType.push_back(coreType);
            k.inputFormats.push_back(str(st.int64(13)));
            k.inputDtypes.push_back(str(st.int64(14)));
            k.inputShapes.push_back(str(st.int64(15)));
            k.outputFormats.push_back(str(st.int64(16)));
            k.outputDtypes.push_back(str(st.int64(17)));
            k.outputShapes.push_back(str(st.int64(18)));
            k.opState.push_back(str(st.int64(19)));
            k.blockDim.push_back(st.int64(20).value_or(-1));
            k.mixBlockDim.push_back(st.int64(21).value_or(-1));
            k.slice.push_back(row);
            for (auto& m : k.metrics)
                m.push_back(kNaN);
            for (auto& e : k.extra)
                e.push_back(NameId(0));
            m_p.slices.kernel[row] = kr;
            ++m_p.join.kernelRows;
            ++m_p.join.matchedExact;
            if (const auto g = st.int64(22))
                m_kernelOfTask[*g] = kr;
        }
        finish(st, "TASK");
    }

    // TASK_PMU_INFO pivoted into metric columns named as the CSV exports name them.
    static std::pair<std::string, double> csvMetricName(const std::string& dbName)
    {
        if (dbName == "aic_total_time")
            return {"aicore_time(us)", 1e-3};
        if (dbName == "aiv_total_time")
            return {"aiv_time(us)", 1e-3};
        if (dbName.size() > 5 && dbName.compare(dbName.size() - 5, 5, "_time") == 0)
            return {dbName + "(us)", 1e-3}; // *_time are ns in the db, µs in the CSV
        if (dbName.size() > 3 && dbName.compare(dbName.size() - 3, 3, "_bw") == 0)
            return {dbName + "(GB/s)", 1.0}; // msprof's memory metric names: main_mem_read_bw, ...
        return {dbName, 1.0};
    }

    void loadPmu()
    {
        if (!need("TASK_PMU_INFO"))
            return;
        KernelTable& k = m_p.kernels;
        std::unordered_map<std::uint32_t, std::pair<int, double>> columnOf; // string id -> (metric, scale)
        auto st = select("TASK_PMU_INFO", {"globalTaskId", "name", "value"});
        while (st.step()) {
            const auto g = st.int64(0);
            const auto nameId = str(st.int64(1));
            const auto v = st.real(2);
            if (!g || !v)
                continue;
            auto kr = m_kernelOfTask.find(*g);
            if (kr == m_kernelOfTask.end())
                continue;
            auto it = columnOf.find(nameId.v);
            if (it == columnOf.end()) {
                const auto [csvName, scale] = csvMetricName(std::string(m_p.str(nameId)));
                int m = k.metricIndex(csvName);
                if (m < 0) {
                    k.metricNames.push_back(csvName);
                    k.metrics.emplace_back(k.size(), kNaN);
                    m = static_cast<int>(k.metrics.size() - 1);
                }
                it = columnOf.emplace(nameId.v, std::make_pair(m, scale)).first;
            }
            k.metrics[it->second.first].set(kr->second, *v * it->second.second);
        }
        finish(st, "TASK_PMU_INFO");
    }

    void loadCommOps()
    {
        if (!need("COMMUNICATION_OP"))
            return;
        auto st = select("COMMUNICATION_OP",
                         {"opName", "startNs", "endNs", "connectionId", "groupName", "opId", "opType", "deviceId"},
                         "ORDER BY startNs");
        KernelTable& k = m_p.kernels;
        while (st.step()) {
            const auto span = interval(st, 1, 2, "COMMUNICATION_OP");
            if (!span)
                continue;
            const TimeNs start = span->start;
            const TimeNs dur = span->dur;
            const int device = deviceAt(st, 7, m_device);
            const NameId group = str(st.int64(4));
            auto [git, fresh] = m_groupIndex.emplace(group.v, static_cast<int>(m_groupIndex.size()));
            (void)fresh;
            const TrackId t = track(kCommPid + std::max(device, 0), git->second, TrackKind::CommGroup, "Communication",
                                    "Group " + std::to_string(git->second) + " Communication", device);
            const NameId name = str(st.int64(0));
            const NameId opType = str(st.int64(6));
            const auto row = m_p.slices.add(start, dur, name, opType, t);
            ++m_rec.records;
            if (const auto c = st.int64(3); c && *c != 4294967295LL)
                m_connTargets[*c].push_back(row);
            // The kernel_details view has one HCCL row per communication op.
            k.device.push_back(device);
            k.step.push_back(stepOf(start));
            k.modelId.push_back(-1);
            k.streamId.push_back(-1);
            k.taskId.push_back(-1);
            k.contextId.push_back(-1);
            k.start.push_back(start);
            k.dur.push_back(dur);
            k.wait.push_back(0);
            k.name.push_back(name);
            k.type.push_back(opType);
            k.taskType.push_back(m_p.strings.intern("HCCL"));
            for (auto* col : {&k.opState, &k.inputShapes, &k.inputDtypes, &k.inputFormats, &k.outputShapes,
                              &k.outputDtypes, &k.outputFormats})
                col->push_back(NameId(0));
            k.blockDim.push_back(-1);
            k.mixBlockDim.push_back(-1);
            k.slice.push_back(row);
            for (auto& m : k.metrics)
                m.push_back(kNaN);
            for (auto& e : k.extra)
                e.push_back(NameId(0));
            m_p.slices.kernel[row] = static_cast<std::uint32_t>(k.size() - 1);
            ++m_p.join.kernelRows;
            ++m_p.join.matchedExact;
        }
        finish(st, "COMMUNICATION_OP");
    }

    void loadCommTasks()
    {
        if (!need("COMMUNICATION_TASK_INFO") || !need("TASK"))
            return;
        std::string err;
        auto st = m_db.prepare("SELECT t.startNs, t.endNs, t.deviceId, i.taskType, i.planeId, i.srcRank, i.dstRank, "
                               "i.transportType, i.size, i.linkType, i.dataType FROM COMMUNICATION_TASK_INFO i "
                               "JOIN TASK t ON t.globalTaskId = i.globalTaskId ORDER BY t.startNs",
                               &err);
        if (!st.valid()) {
            m_p.report(Severity::Warning, m_ctx.file, -1, -1, "table COMMUNICATION_TASK_INFO: " + err);
            return;
        }
        const NameId kSrc = m_p.strings.intern("src rank"), kDst = m_p.strings.intern("dst rank"),
                     kTransport = m_p.strings.intern("transport type"), kSize = m_p.strings.intern("size(Byte)"),
                     kLink = m_p.strings.intern("link type"), kData = m_p.strings.intern("data type");
        while (st.step()) {
            const auto span = interval(st, 0, 1, "COMMUNICATION_TASK_INFO");
            if (!span)
                continue;
            const int device = deviceAt(st, 2, m_device);
            const auto plane = st.int64(4).value_or(0);
            // tid 1000 + plane, wrapping rather than overflowing on a damaged planeId.
            const auto planeTid = static_cast<std::int64_t>(1000ULL + static_cast<std::uint64_t>(plane));
            const TrackId t = track(kCommPid + std::max(device, 0), planeTid, TrackKind::CommPlane,
                                    "Communication", "Plane " + std::to_string(plane), device);
            auto num = [this](std::optional<std::int64_t> v) { return m_p.strings.intern(v ? std::to_string(*v) : "N/A"); };
            const std::uint32_t args = m_p.args.addRow({{kSrc, num(st.int64(5))},
                                                        {kDst, num(st.int64(6))},
                                                        {kTransport, m_p.strings.intern(enumName(m_transport, st.int64(7)))},
                                                        {kSize, num(st.int64(8))},
                                                        {kLink, m_p.strings.intern(enumName(m_linkType, st.int64(9)))},
                                                        {kData, m_p.strings.intern(enumName(m_dataType, st.int64(10)))}});
            const NameId type = str(st.int64(3));
            m_p.slices.add(span->start, span->dur, type, type, t, kNone, args);
            ++m_rec.records;
        }
        finish(st, "COMMUNICATION_TASK_INFO");
    }

    static std::string apiPrefix(const std::string& type)
    {
        if (type == "acl")
            return "AscendCL";
        if (type == "node")
            return "Node";
        if (type == "runtime")
            return "Runtime";
        if (type == "model")
            return "Model";
        if (type == "hccl" || type == "communication")
            return "Hccl";
        return type;
    }

    void loadCannApi()
    {
        if (!need("CANN_API"))
            return;
        auto st = select("CANN_API", {"startNs", "endNs", "type", "globalTid", "connectionId", "name"});
        std::map<std::int64_t, NameId> categories;
        while (st.step()) {
            const auto span = interval(st, 0, 1, "CANN_API");
            if (!span)
                continue;
            const std::int64_t gtid = st.int64(3).value_or(0);
            const std::int64_t pid = gtid >> 32;
            const std::int64_t tid = gtid & 0xffffffffLL;
            const TrackId t = track(kCannPid + pid, tid, TrackKind::Cann, "CANN", "Thread " + std::to_string(tid), -1);
            const auto typeId = st.int64(2).value_or(-1);
            auto cat = categories.find(typeId);
            if (cat == categories.end())
                cat = categories.emplace(typeId, m_p.strings.intern(enumName(m_apiTypes, typeId))).first;
            const std::string name = apiPrefix(std::string(m_p.str(cat->second))) + "@" + std::string(m_p.str(str(st.int64(5))));
            const auto row = m_p.slices.add(span->start, span->dur, m_p.strings.intern(name), cat->second, t);
            ++m_rec.records;
            if (const auto c = st.int64(4))
                m_cannByConn[*c] = row;
        }
        finish(st, "CANN_API");
    }

    // PYTORCH_CALLCHAINS: one call stack per id, frames in stackDepth order, joined the way
    // torch_npu writes the "Call stack" arg of trace_view.json (";\r\n").
    std::unordered_map<std::int64_t, NameId> loadCallChains()
    {
        std::unordered_map<std::int64_t, NameId> out;
        if (!need("PYTORCH_CALLCHAINS"))
            return out;
        auto st = select("PYTORCH_CALLCHAINS", {"id", "stack", "stackDepth"}, "ORDER BY id, stackDepth");
        std::int64_t current = 0;
        bool open = false;
        std::string text;
        auto flush = [&] {
            if (open)
                out.emplace(current, m_p.strings.intern(text));
        };
        while (st.step()) {
            const auto id = st.int64(0);
            if (!id)
                continue;
            if (!open || *id != current) {
                flush();
                current = *id;
                open = true;
                text.clear();
            } else {
                text += ";\r\n";
            }
            text += m_p.str(str(st.int64(1)));
        }
        flush();
        finish(st, "PYTORCH_CALLCHAINS");
        return out;
    }

    // Shapes are digits, commas, minus signs and separators; dtypes have letters.
    static bool looksLikeShapes(std::string_view s)
    {
        return std::all_of(s.begin(), s.end(), [](char c) {
            return (c >= '0' && c <= '9') || c == ',' || c == ';' || c == '-' || c == '"' || c == ' ' || c == '\r'
                || c == '\n';
        });
    }

    // Multi-tensor values are ";\n"-separated in the database, ";\r\n" in trace_view.json.
    NameId crlfText(NameId id)
    {
        const std::string_view v = m_p.str(id);
        if (v.find('\n') == std::string_view::npos)
            return id;
        std::string out;
        out.reserve(v.size() + 8);
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (v[i] == '\n' && (i == 0 || v[i - 1] != '\r'))
                out += '\r';
            out += v[i];
        }
        return m_p.strings.intern(out);
    }

    void loadPytorchApi()
    {
        if (!need("PYTORCH_API"))
            return;
        const std::unordered_map<std::int64_t, NameId> stacks = loadCallChains();
        const NameId kSeq = m_p.strings.intern("Sequence number"), kFwd = m_p.strings.intern("Fwd thread id"),
                     kDims = m_p.strings.intern("Input Dims"), kType = m_p.strings.intern("Input type"),
                     kStack = m_p.strings.intern("Call stack");
        const NameId catOp = m_p.strings.intern("cpu_op"), catEnqueue = m_p.strings.intern("enqueue"),
                     catDequeue = m_p.strings.intern("dequeue"), catPython = m_p.strings.intern("python_function");
        enum Kind { Other, Op, Queue };
        std::map<std::int64_t, std::pair<NameId, Kind>> categories;
        std::vector<std::pair<NameId, NameId>> args;
        auto st = select("PYTORCH_API", {"startNs", "endNs", "globalTid", "connectionId", "name", "type",
                                         "sequenceNumber", "fwdThreadId", "inputDtypes", "inputShapes", "callchainId"});
        while (st.step()) {
            // startNs/endNs are TEXT in the samples: int64() parses them exactly.
            const auto span = interval(st, 0, 1, "PYTORCH_API");
            if (!span)
                continue;
            const std::int64_t gtid = st.int64(2).value_or(0);
            const std::int64_t pid = gtid >> 32;
            const std::int64_t tid = gtid & 0xffffffffLL;
            const TrackId t = track(kPythonPid + pid, tid, TrackKind::Python, "Python", "Thread " + std::to_string(tid), -1);
            const NameId name = str(st.int64(4));
            // Categories as trace_view.json names them: cpu_op, enqueue/dequeue, python_function.
            const std::int64_t typeId = st.int64(5).value_or(-1);
            auto cit = categories.find(typeId);
            if (cit == categories.end()) {
                const std::string type = enumName(m_apiTypes, typeId);
                const NameId c = type == "op" ? catOp : type == "trace" ? catPython : m_p.strings.intern(type);
                cit = categories.emplace(typeId, std::make_pair(c, type == "op" ? Op : type == "queue" ? Queue : Other))
                          .first;
            }
            NameId cat = cit->second.first;
            std::uint32_t argsRow = kNone;
            if (cit->second.second == Queue) {
                const std::string_view n = m_p.str(name);
                cat = n.find("Dequeue") != std::string_view::npos || n.find("dequeue") != std::string_view::npos ? catDequeue
                                                                                                                 : catEnqueue;
            } else if (cit->second.second == Op) {
                // The cpu_op args of trace_view.json, in its key order.
                args.clear();
                if (const auto v = st.int64(6))
                    args.emplace_back(kSeq, m_p.strings.intern(std::to_string(*v)));
                if (const auto v = st.int64(7))
                    args.emplace_back(kFwd, m_p.strings.intern(std::to_string(*v)));
                NameId dims = str(st.int64(8));  // documented as dtypes; the samples hold shapes here
                NameId types = str(st.int64(9)); // and the dtypes here: decide by content
                if (!looksLikeShapes(m_p.str(dims)) && looksLikeShapes(m_p.str(types)))
                    std::swap(dims, types);
                if (!st.isNull(8))
                    args.emplace_back(kDims, crlfText(dims));
                if (!st.isNull(9))
                    args.emplace_back(kType, crlfText(types));
                if (const auto c = st.int64(10)) {
                    auto s = stacks.find(*c);
                    if (s != stacks.end())
                        args.emplace_back(kStack, s->second);
                }
                if (!args.empty())
                    argsRow = m_p.args.addRow(args);
            }
            const auto row = m_p.slices.add(span->start, span->dur, name, cat, t, kNone, argsRow);
            ++m_rec.records;
            if (const auto c = st.int64(3))
                m_pyByConnRow[*c].push_back(row);
        }
        finish(st, "PYTORCH_API");
    }

    void addFlow(const char* cat, const std::string& id, std::uint32_t src, std::uint32_t dst)
    {
        FlowTable& f = m_p.flows;
        f.category.push_back(m_p.strings.intern(cat));
        f.name.push_back(m_p.strings.intern(cat));
        f.addId(id, m_p.strings);
        f.srcTs.push_back(m_p.slices.start[src]);
        f.dstTs.push_back(m_p.slices.start[dst]);
        f.srcTrack.push_back(m_p.slices.track[src]);
        f.dstTrack.push_back(m_p.slices.track[dst]);
        f.srcSlice.push_back(src);
        f.dstSlice.push_back(dst);
    }

    void loadFlows()
    {
        // HostToDevice: the launching CANN API shares its connectionId with the device task(s).
        for (const auto& [conn, targets] : m_connTargets) {
            auto c = m_cannByConn.find(conn);
            if (c == m_cannByConn.end())
                continue;
            for (auto dst : targets)
                addFlow("HostToDevice", std::to_string(static_cast<std::uint64_t>(conn) << 32), c->second, dst);
        }
        if (!need("CONNECTION_IDS"))
            return;
        // PYTORCH_API.connectionId -> CONNECTION_IDS.id -> 1..n connection ids.
        std::map<std::int64_t, std::vector<std::uint32_t>> pyByConnection;
        auto st = select("CONNECTION_IDS", {"id", "connectionId"});
        while (st.step()) {
            const auto id = st.int64(0);
            const auto conn = st.int64(1);
            if (!id || !conn)
                continue;
            auto it = m_pyByConnRow.find(*id);
            if (it == m_pyByConnRow.end())
                continue;
            for (auto row : it->second)
                pyByConnection[*conn].push_back(row);
        }
        for (auto& [conn, rows] : pyByConnection) {
            auto targets = m_connTargets.find(conn);
            if (targets != m_connTargets.end()) {
                for (auto src : rows)
                    for (auto dst : targets->second)
                        addFlow("async_npu", std::to_string(m_p.slices.start[dst]), src, dst);
            } else if (rows.size() == 2) {
                std::sort(rows.begin(), rows.end(),
                          [this](auto a, auto b) { return m_p.slices.start[a] < m_p.slices.start[b]; });
                const std::string_view n = m_p.str(m_p.slices.name[rows[0]]);
                const bool queue = n.find("queue") != std::string_view::npos || n.find("Queue") != std::string_view::npos;
                addFlow(queue ? "async_task_queue" : "fwdbwd", std::to_string(conn), rows[0], rows[1]);
            }
        }
    }

    void loadOverlap()
    {
        if (!need("OVERLAP_ANALYSIS"))
            return;
        static const char* names[] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
        auto st = select("OVERLAP_ANALYSIS", {"deviceId", "startNs", "endNs", "type"}, "ORDER BY startNs");
        while (st.step()) {
            const auto span = interval(st, 1, 2, "OVERLAP_ANALYSIS");
            if (!span)
                continue;
            const auto type = st.int64(3);
            if (!type || *type < 0 || *type > 3) {
                skipRow("OVERLAP_ANALYSIS row with an unknown type skipped");
                continue;
            }
            const int device = deviceAt(st, 0, m_device);
            const TrackId t = track(kOverlapPid + std::max(device, 0), *type, TrackKind::Overlap, "Overlap Analysis",
                                    names[*type], device);
            m_p.slices.add(span->start, span->dur, m_p.strings.intern(names[*type]), NameId(0), t);
            ++m_rec.records;
        }
    }

    void counter(int table, const std::string& process, const std::string& name, const std::string& key, TimeNs ts,
                 double v, int device)
    {
        CounterSeries& c = m_p.counterFor(kCounterPid + table, m_p.strings.intern(name), m_p.strings.intern(key));
        c.process = m_p.strings.intern(process);
        c.device = device;
        c.ts.push_back(ts);
        c.value.push_back(v);
    }

    void loadCounters()
    {
        if (need("AICORE_FREQ")) {
            auto st = select("AICORE_FREQ", {"deviceId", "timestampNs", "freq"});
            while (st.step())
                if (auto t = sampleTime(st, 1, "AICORE_FREQ"); t && st.real(2))
                    counter(0, "AI Core Freq", "AI Core Freq", "MHz", *t, *st.real(2),
                            deviceAt(st, 0, m_device));
        }
        if (need("HBM")) {
            auto st = select("HBM", {"deviceId", "timestampNs", "bandwidth", "hbmId", "type"});
            while (st.step()) {
                const auto t = sampleTime(st, 1, "HBM");
                const auto bw = st.real(2);
                if (!t || !bw)
                    continue;
                const std::string dir(m_p.str(str(st.int64(4))));
                const std::string key = (dir == "write" ? "Write" : "Read") + std::string("(MB/s)");
                counter(1, "HBM", "HBM " + std::to_string(st.int64(3).value_or(0)), key, *t, *bw / 1e6,
                        deviceAt(st, 0, m_device));
            }
        }
        if (need("LLC")) {
            auto st = select("LLC", {"deviceId", "llcId", "timestampNs", "hitRate", "throughput", "mode"});
            while (st.step()) {
                const auto t = sampleTime(st, 2, "LLC");
                if (!t)
                    continue;
                const std::string name = "LLC " + std::to_string(st.int64(1).value_or(0)) + " "
                    + std::string(m_p.str(str(st.int64(5))));
                const int dev = deviceAt(st, 0, m_device);
                if (auto h = st.real(3))
                    counter(2, "LLC", name, "Hit Rate(%)", *t, *h, dev);
                if (auto th = st.real(4))
                    counter(2, "LLC", name, "Throughput(MB/s)", *t, *th / 1e6, dev);
            }
        }
        if (need("NPU_MEM")) {
            auto st = select("NPU_MEM", {"type", "ddr", "hbm", "timestampNs", "deviceId"});
            while (st.step()) {
                const auto t = sampleTime(st, 3, "NPU_MEM");
                if (!t)
                    continue;
                const std::string name(m_p.str(str(st.int64(0))));
                const int dev = deviceAt(st, 4, m_device);
                if (auto v = st.real(1))
                    counter(3, "NPU MEM", name, "DDR(KB)", *t, *v / 1024.0, dev);
                if (auto v = st.real(2))
                    counter(3, "NPU MEM", name, "HBM(KB)", *t, *v / 1024.0, dev);
            }
        }
        if (need("NPU_MODULE_MEM")) {
            auto st = select("NPU_MODULE_MEM", {"moduleId", "timestampNs", "totalReserved", "deviceId"});
            while (st.step())
                if (auto t = sampleTime(st, 1, "NPU_MODULE_MEM"); t && st.real(2))
                    counter(4, "npu_module_mem", enumName(m_modules, st.int64(0)), "Total Reserved(MB)", *t,
                            *st.real(2) / 1048576.0, deviceAt(st, 3, m_device));
        }
        if (need("MEMORY_RECORD")) {
            auto st = select("MEMORY_RECORD",
                             {"component", "timestamp", "totalAllocated", "totalReserved", "totalActive", "deviceId"});
            while (st.step()) {
                const auto t = sampleTime(st, 1, "MEMORY_RECORD");
                if (!t)
                    continue;
                const std::string comp(m_p.str(str(st.int64(0))));
                const int dev = deviceAt(st, 5, m_device);
                if (auto v = st.real(2))
                    counter(5, "memory_record", comp, "Total Allocated(MB)", *t, *v / 1048576.0, dev);
                if (auto v = st.real(3))
                    counter(5, "memory_record", comp, "Total Reserved(MB)", *t, *v / 1048576.0, dev);
                if (auto v = st.real(4))
                    counter(5, "memory_record", comp, "Total Active(MB)", *t, *v / 1048576.0, dev);
            }
        }
    }

    // OP_MEMORY: operator_memory.csv's rows; bytes and ns, NULL release = still held at the end.
    void loadOpMemory()
    {
        if (!need("OP_MEMORY"))
            return;
        auto st = select("OP_MEMORY",
                         {"name", "size", "allocationTime", "releaseTime", "activeReleaseTime", "duration",
                          "allocationTotalAllocated", "allocationTotalReserved", "allocationTotalActive",
                          "releaseTotalAllocated", "releaseTotalReserved", "releaseTotalActive", "streamPtr",
                          "deviceId"});
        auto time = [&st](int col) -> std::optional<TimeNs> {
            const auto v = st.int64(col);
            return v && timeInRange(*v) ? v : std::nullopt;
        };
        while (st.step()) {
            const auto at = time(2);
            if (!at) {
                skipRow("OP_MEMORY row without a readable allocationTime skipped");
                continue;
            }
            OpAllocation a;
            a.name = str(st.int64(0));
            a.bytes = st.real(1).value_or(kNaN);
            a.allocAt = *at;
            a.releaseAt = time(3);
            a.activeReleaseAt = time(4);
            a.duration = time(5);
            a.allocTotalAllocated = st.real(6).value_or(kNaN);
            a.allocTotalReserved = st.real(7).value_or(kNaN);
            a.allocTotalActive = st.real(8).value_or(kNaN);
            a.releaseTotalAllocated = st.real(9).value_or(kNaN);
            a.releaseTotalReserved = st.real(10).value_or(kNaN);
            a.releaseTotalActive = st.real(11).value_or(kNaN);
            a.streamPtr = st.int64(12).value_or(-1);
            a.device = deviceAt(st, 13, m_device);
            m_p.opMemory.push_back(a);
            ++m_rec.records;
        }
        finish(st, "OP_MEMORY");
    }

    // Wait Time = start − end of the previous row in start order (per device), floor 0.
    void fillWaitTimes()
    {
        KernelTable& k = m_p.kernels;
        std::vector<std::uint32_t> order(k.size());
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&k](auto a, auto b) {
            return k.device[a] != k.device[b] ? k.device[a] < k.device[b] : k.start[a] < k.start[b];
        });
        for (std::size_t i = 0; i < order.size(); ++i) {
            const auto r = order[i];
            if (i == 0 || k.device[order[i - 1]] != k.device[r]) {
                k.wait[r] = 0;
                continue;
            }
            const auto p = order[i - 1];
            k.wait[r] = std::max<TimeNs>(0, k.start[r] - (k.start[p] + k.dur[p]));
        }
    }

    const db::Database& m_db;
    Profile& m_p;
    const ReadContext& m_ctx;
    FileRecord& m_rec;
    int m_device = -1;
    std::string m_schema;
    std::unordered_map<std::int64_t, NameId> m_strings;
    std::map<std::int64_t, std::string> m_apiTypes, m_transport, m_linkType, m_dataType, m_modules;
    std::vector<std::pair<std::int64_t, std::pair<TimeNs, TimeNs>>> m_steps;
    std::unordered_map<std::int64_t, std::uint32_t> m_taskSlice;    // globalTaskId -> slice
    std::unordered_map<std::int64_t, std::uint32_t> m_kernelOfTask; // globalTaskId -> kernel row
    std::map<std::int64_t, std::vector<std::uint32_t>> m_connTargets; // connectionId -> device task / comm op slices
    std::unordered_map<std::int64_t, std::uint32_t> m_cannByConn;
    std::unordered_map<std::int64_t, std::vector<std::uint32_t>> m_pyByConnRow; // PYTORCH_API.connectionId -> slices
    std::map<std::uint32_t, int> m_groupIndex;
    int m_tableErrors = 0;
};

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
    rec.kind = "db";
    rec.status = FileStatus::Failed;
    rec.note = err;
    sink.report(Severity::Error, path, -1, -1, err);
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
    std::string err;
    auto d = db::Database::open(path, &err);
    if (!d)
        return openFailed(path, err, sink);
    FileRecord rec;
    rec.path = path;
    rec.kind = "profiler db";
    if (!d->hasTable("STRING_IDS") || !d->hasTable("TASK")) {
        rec.status = FileStatus::Failed;
        rec.note = "not a profiler database (no STRING_IDS/TASK table)";
        sink.report(Severity::Error, path, -1, -1, "table STRING_IDS or TASK missing: not a profiler database");
        return rec;
    }
    noteSnapshot(*d, sink);
    DbLoader loader(*d, sink, ctx, rec);
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
    return rec;
}

FileRecord readAnalysisDb(const std::string& path, Profile& sink, const ReadContext& ctx)
{
    std::string err;
    auto d = db::Database::open(path, &err);
    if (!d)
        return openFailed(path, err, sink);
    FileRecord rec;
    rec.path = path;
    rec.kind = "analysis db";
    noteSnapshot(*d, sink);
    readAnalysis(*d, sink, ctx, rec);
    if (rec.skipped)
        rec.status = FileStatus::Partial;
    return rec;
}

} // namespace npuscope::readers
