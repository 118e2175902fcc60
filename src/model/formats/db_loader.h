#pragma once
// The reader of a profiler database (db_reader.cpp): one DbLoader a file, which reads its tables
// into the Profile in the order run() gives. Its table readers are split by what they read:
// strings, enums, meta and steps (db_loader.cpp), device tasks, PMU and communication
// (db_device_tables.cpp), host APIs, flows, counters and memory (db_host_tables.cpp).
#include "model/formats/readers.h"
#include "model/formats/sqlite_db.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace npuscope::readers::dbread {

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

    void run();
    int tableErrors() const { return m_tableErrors; }

private:
    // ---- helpers ----
    NameId str(std::optional<std::int64_t> id);

    std::string enumName(const std::map<std::int64_t, std::string>& e, std::optional<std::int64_t> id);

    db::Statement select(const std::string& table, const std::vector<std::string>& cols, const std::string& tail = {});

    // A table that cannot be read (corrupt pages, truncated file): named, the rest still loads.
    void tableError(const std::string& table, const std::string& why);

    void finish(db::Statement& st, const std::string& table);

    bool need(const std::string& table);

    TrackId track(std::int64_t pid, std::int64_t tid, TrackKind kind, std::string_view process, const std::string& thread,
                  int device, std::int64_t stream = -1);

    std::int64_t stepOf(TimeNs t) const;

    // A row's startNs/endNs as its start and duration. A row without both times, with a time
    // beyond +-kMaxTimeNs (the bound the text readers keep, so that start + duration and the
    // difference of any two times fit in 64 bits) or ending before it starts is counted as
    // skipped and reported (once per table and reason, with the count of repeats).
    struct Interval {
        TimeNs start = 0;
        TimeNs dur = 0;
    };
    std::optional<Interval> interval(const db::Statement& st, int startCol, int endCol, const char* table);

    // A counter sample's timestamp, or nullopt (counted and reported like interval()).
    std::optional<TimeNs> sampleTime(const db::Statement& st, int col, const char* table);

    // The device id in column col, or fallback when the cell is NULL; an id beyond 0..65535 is
    // reported and reads as -1 (unknown).
    int deviceAt(const db::Statement& st, int col, int fallback);

    // Counts a row left out of the model and reports why (the report is merged per reason).
    void skipRow(std::string reason);

    static bool timeInRange(std::int64_t t) { return t >= -kMaxTimeNs && t <= kMaxTimeNs; }

    // ---- tables ----
    void loadStrings();

    void loadEnums();

    void loadMeta();

    // Schema 1.x is what FORMATS-DB.md describes; newer majors are read by column name as far
    // as they match. Tables every profiler level writes are named when absent.
    void checkSchema();

    void loadSteps();

    void loadDeviceTasks();

    // TASK_PMU_INFO pivoted into metric columns named as the CSV exports name them.
    static std::pair<std::string, double> csvMetricName(const std::string& dbName);

    void loadPmu();

    void loadCommOps();

    void loadCommTasks();

    static std::string apiPrefix(const std::string& type);

    void loadCannApi();

    // PYTORCH_CALLCHAINS: one call stack per id, frames in stackDepth order, joined the way
    // torch_npu writes the "Call stack" arg of trace_view.json (";\r\n").
    std::unordered_map<std::int64_t, NameId> loadCallChains();

    // Shapes are digits, commas, minus signs and separators; dtypes have letters.
    static bool looksLikeShapes(std::string_view s);

    // Multi-tensor values are ";\n"-separated in the database, ";\r\n" in trace_view.json.
    NameId crlfText(NameId id);

    void loadPytorchApi();

    void addFlow(const char* cat, const std::string& id, std::uint32_t src, std::uint32_t dst);

    void loadFlows();

    void loadOverlap();

    void counter(int table, const std::string& process, const std::string& name, const std::string& key, TimeNs ts,
                 double v, int device);

    void loadCounters();

    // OP_MEMORY: operator_memory.csv's rows; bytes and ns, NULL release = still held at the end.
    void loadOpMemory();

    // Wait Time = start − end of the previous row in start order (per device), floor 0.
    void fillWaitTimes();

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

} // namespace npuscope::readers::dbread
