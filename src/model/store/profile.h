#pragma once
// The columnar in-memory model of one rank's profiling data. Readers append into a Profile
// (it is the "sink"), then Profile::finalize() sorts and indexes it; after that it is shared
// as an immutable std::shared_ptr<const Profile> between threads, views and the advisor.
//
// Conventions:
//  - Times are int64 ns (TimeNs). Text µs timestamps are converted by digit shifting
//    (formats/number_text.h), never through a double.
//  - Strings are interned in `strings`; tables hold NameId.
//  - Missing numeric metrics are NaN (never 0). Missing ids are kNone / -1 as documented.
//  - Tables are structure-of-arrays. After finalize(), `slices` is sorted by
//    (track, start, -dur, file order), so a track's slices are one contiguous, start-sorted
//    range [Track::sliceBegin, Track::sliceEnd).
#include "model/store/diagnostics.h"
#include "model/store/ids.h"
#include "model/store/metric_column.h"
#include "model/store/string_pool.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace npuscope {

inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline bool isMissing(double v) { return std::isnan(v); }

enum class TrackKind : std::uint8_t {
    Stream,      // "Ascend Hardware" / "Stream <id>": device tasks
    CommGroup,   // "Communication" (old "HCCL") / "Group <g> Communication": collective ops
    CommPlane,   // "Communication" / "Plane <n>": comm tasks on a plane
    Overlap,     // "Overlap Analysis" / Computing, Communication, Communication(Not Overlapped), Free
    Cann,        // "CANN" / "Thread <tid>": AscendCL@, Runtime@, Node@launch
    Python,      // "Python" (torch_npu) / "Thread <tid>": cpu_op, enqueue/dequeue
    Other        // anything else (generic Chrome traces, task_time fallback, simplified JSON)
};

const char* trackKindName(TrackKind k);

struct Track {
    TrackKind kind = TrackKind::Other;
    std::int64_t pid = 0;      // raw pid from the file (opaque, may exceed 2^32)
    std::int64_t tid = 0;      // raw tid from the file
    NameId process;            // process_name, e.g. "Ascend Hardware"
    NameId thread;             // thread_name, e.g. "Stream 2", "Free", "Group 0 Communication"
    NameId processLabel;       // process_labels ("NPU 0", "CPU"), may be empty
    int device = -1;           // device id when known (msprof: pid & 31 unless 31 = host)
    std::int64_t streamId = -1;// Stream tracks: the stream id (tid)
    int processSort = 0;       // process_sort_index
    int threadSort = 0;        // thread_sort_index
    std::uint32_t sliceBegin = 0; // filled by finalize()
    std::uint32_t sliceEnd = 0;
    std::uint16_t maxDepth = 0;   // deepest nesting level on this track (0 = flat)
};

// Timeline slices (X, B/E pairs, instants with dur 0, task_time rows, simplified tasks).
struct SliceTable {
    std::vector<TimeNs> start;
    std::vector<TimeNs> dur;           // >= 0
    std::vector<NameId> name;
    std::vector<NameId> category;      // "cat"; for device tasks the args "Task Type"
    std::vector<TrackId> track;
    std::vector<std::uint32_t> taskId; // device tasks: args "Task Id"; else kNone
    std::vector<std::uint32_t> kernel; // row in KernelTable joined to this task, else kNone
    std::vector<std::uint32_t> args;   // row in ArgTable, else kNone
    std::vector<std::uint16_t> depth;  // nesting depth on its track (finalize())
    // "Subtask Id" of MIX device tasks (MIX_AIC, MIX_AIV), which join their kernel rows on it
    // (= "Context ID", FORMATS.md §3). Sparse, as few tasks are MIX: the slice rows in ascending
    // order and their ids; finalize() renumbers the rows.
    std::vector<std::uint32_t> subtaskRow, subtaskId;

    std::size_t size() const { return start.size(); }
    // Records `row`'s subtask id; rows are given in ascending order (as they are added).
    void setSubtask(std::uint32_t row, std::uint32_t id);
    // The subtask id of a MIX task's slice, kNone for any other slice.
    std::uint32_t subtask(std::uint32_t row) const;
    TimeNs end(std::size_t i) const { return start[i] + dur[i]; }
    // Append one slice; returns its (pre-finalize) row.
    std::uint32_t add(TimeNs s, TimeNs d, NameId n, NameId cat, TrackId t,
                      std::uint32_t taskIdValue = kNone, std::uint32_t argsRow = kNone);
    // Room for n slices. With `cancel`, the columns grow in steps that look at it: false when it
    // was set (some columns then have their old room).
    bool reserve(std::size_t n, const std::atomic<bool>* cancel = nullptr);
};

// A timeline file whose events' arguments are read again when asked for (ArgTable's lazy
// rows): its path, and its size and modification time when it was read, which must still hold.
struct ArgFile {
    std::string path;
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    bool operator==(const ArgFile&) const = default;
};

// Reads the arguments of the event at a byte offset of an ArgFile again (the timeline reader's
// parse, formats/lazy_args.h); the model itself parses no JSON.
class ArgReader {
public:
    using Visit = std::function<void(std::string_view key, std::string_view value)>;
    virtual ~ArgReader() = default;
    // Calls visit(key, value) for each argument of the event, in order (visit reads no arguments
    // itself: the views may live in the reader's per-thread buffers). False, with `error` set
    // to a sentence naming the file, when it cannot be read again (changed, removed).
    virtual bool read(const ArgFile& file, std::uint64_t offset, const Visit& visit, std::string* error) const = 0;
    // read() of the events at offsets[i] of one file, in ascending order, calling
    // visit(i, key, value): a reader may read nearby events at once. Every event that can be
    // read is visited; false, with `error` naming the first that cannot, when one cannot. This
    // one reads them one by one.
    using VisitAt = std::function<void(std::size_t i, std::string_view key, std::string_view value)>;
    virtual bool readMany(const ArgFile& file, const std::vector<std::uint64_t>& offsets, const VisitAt& visit,
                          std::string* error) const;
};

// Key/value arguments of slices that keep them (all but device tasks, whose known args are
// columns). Values are kept as text (numbers as written), so ids > 2^53 stay exact. Short values
// (numbers, ids, modes: most of them, and mostly distinct) are stored in the argument itself;
// longer ones (shapes, call stacks: few distinct, often repeated) once in the string pool.
// Keys are few (tens in a profile), so an argument names its key by an index into `keys`.
// The arguments of a large timeline file are not kept at all: a lazy row holds the event's byte
// offset in one of `files`, and `reader` parses them again when they are asked for.
struct ArgTable {
    // An eager row: `count` arguments from `begin`. A lazy row: kLazy set in `count`, the file's
    // index in its bits 16-30 and the offset's bits 32-47 in its bits 0-15; `begin` holds the
    // offset's bits 0-31.
    struct Range { std::uint32_t begin = 0, count = 0; };
    static constexpr std::uint32_t kLazy = 0x80000000u;
    static constexpr std::uint32_t kMaxLazyFiles = 0x7FFF;
    static constexpr std::uint64_t kMaxLazyOffset = (std::uint64_t{1} << 48) - 1;
    static constexpr std::size_t kInline = 9;
    static constexpr std::uint8_t kPooled = 0xFF;
    // The key index of an argument whose key came after 65,535 others: its key's NameId is in
    // text[0, 4) and its value, always pooled, in text[4, 8).
    static constexpr std::uint16_t kKeyInText = 0xFFFF;
    struct Arg {
        std::uint16_t key = 0;       // index in `keys`, or kKeyInText
        std::uint8_t size = kPooled; // length of the inline text, or kPooled
        char text[kInline] = {};     // the inline text; when pooled, the value's NameId
    };
    std::vector<Range> rows;
    std::vector<Arg> args;
    std::vector<NameId> keys; // the distinct keys, by index
    std::vector<ArgFile> files;                // of the lazy rows, by index
    std::shared_ptr<const ArgReader> reader;   // reads the lazy rows; set with `files`

    // The index of `key` in `keys` (added when new), or kKeyInText when 65,535 are taken.
    std::uint16_t keyIndex(NameId key);
    // A row of pooled values.
    std::uint32_t addRow(const std::vector<std::pair<NameId, NameId>>& pairs);
    // Appends one argument of the row being built (short values inline, others interned), its
    // key `key` and `index` = keyIndex(key) ...
    void addArg(std::uint16_t index, NameId key, std::string_view value, StringPool& pool);
    // ... and closes the row made of the arguments from `firstArg` on; returns its index.
    std::uint32_t endRow(std::size_t firstArg);

    // The index of `file` in `files` (added when new), or kNone when kMaxLazyFiles are taken.
    std::uint32_t fileIndex(const ArgFile& file);
    // A lazy row: the arguments of the event at `offset` of files[file] (offset <= kMaxLazyOffset).
    std::uint32_t addLazyRow(std::uint32_t file, std::uint64_t offset);
    bool isLazy(std::uint32_t row) const { return row < rows.size() && (rows[row].count & kLazy); }
    // True when `row` exists and has arguments (a lazy row always has).
    bool hasArgs(std::uint32_t row) const { return row < rows.size() && rows[row].count > 0; }

    // Calls visit(key, value) for each argument of `row`, in order (none for kNone). False, with
    // `error` set, when a lazy row could not be read again.
    bool forEach(std::uint32_t row, const StringPool& pool, const ArgReader::Visit& visit,
                 std::string* error = nullptr) const;
    // The value of `key` in `row`; empty when the row or the key is absent (or unreadable).
    std::string find(std::uint32_t row, std::string_view key, const StringPool& pool) const;
    // The values of several keys in one pass over `row` (one read of a lazy row).
    std::vector<std::string> find(std::uint32_t row, std::initializer_list<std::string_view> keys,
                                  const StringPool& pool) const;
    // find(rows[i], keys) of many rows at once, out[i] in the order of `rows`: the lazy rows are
    // read in file order, nearby events with one read (ArgReader::readMany).
    std::vector<std::vector<std::string>> findMany(const std::vector<std::uint32_t>& rows,
                                                   std::initializer_list<std::string_view> keys,
                                                   const StringPool& pool) const;

    NameId key(std::size_t arg) const;
    std::string_view value(std::size_t arg, const StringPool& pool) const;
    // Rebuilds the lookup of `keys` (for a table whose columns were filled directly: the cache).
    void rebuildKeyIndex();

private:
    std::unordered_map<std::uint32_t, std::uint16_t> m_keyIndex; // NameId -> index in `keys`
};
static_assert(sizeof(ArgTable::Arg) == 12);

// Flows (s/f pairs, HostToDevice, async_npu, ...). Endpoints are bound to slices by finalize().
struct FlowTable {
    std::vector<NameId> category; // "cat", e.g. "HostToDevice", "async_npu"
    // As written; invalid when it is the category followed by the id (msprof names every
    // HostToDevice flow so, "HostToDevice197568495616": one distinct string per flow): nameOf().
    std::vector<NameId> name;
    // The id exactly as written. A plain decimal number (no sign or leading zero, at most 19
    // digits: msprof's ids, one per flow) is kept by value with an invalid idText; any other
    // id (e.g. "0x403") as text. idOf() gives the text either way.
    std::vector<std::uint64_t> idNumber;
    std::vector<NameId> idText;
    std::vector<TimeNs> srcTs, dstTs;
    std::vector<TrackId> srcTrack, dstTrack;
    std::vector<std::uint32_t> srcSlice, dstSlice; // slice rows after finalize(), or kNone
    std::size_t size() const { return srcTs.size(); }

    // True, with the number in `value`, when `text` is a plain decimal number as above.
    static bool plainNumber(std::string_view text, std::uint64_t& value);
    // Appends one flow's id column entries for `text`.
    void addId(std::string_view text, StringPool& pool);
    std::string idOf(std::size_t flow, const StringPool& pool) const;
    std::string nameOf(std::size_t flow, const StringPool& pool) const;
};

// A counter time series: one per (process/track, counter name, args key).
// A value holds until the next sample.
struct CounterSeries {
    NameId process;      // e.g. "AI Core Freq", "HBM", "memory_record"
    NameId name;         // event name, e.g. "AI Core Freq", "HBM 0"
    NameId key;          // args key, e.g. "MHz", "Read(MB/s)", "Total Allocated(MB)"
    std::int64_t pid = 0;
    int device = -1;
    std::vector<TimeNs> ts;    // sorted by finalize()
    std::vector<double> value;
};

// op_summary / kernel_details rows: device tasks with their hardware (PMU) metrics.
struct KernelTable {
    std::vector<int> device;          // Device_id, or the profile's device when absent; -1 host
    std::vector<std::int64_t> step;   // "Step Id", -1 when absent
    std::vector<std::int64_t> modelId;// "Model ID", -1 when absent or 4294967295
    std::vector<std::int64_t> streamId;
    std::vector<std::int64_t> taskId; // -1 when N/A (comm rows)
    std::vector<std::int64_t> contextId; // "Context ID" (MIX subtasks), -1 when N/A
    std::vector<TimeNs> start, dur, wait; // wait: TimeNs min when missing
    std::vector<NameId> name, type;   // Op Name/Name, OP Type/Type
    std::vector<NameId> taskType;     // Task Type / Accelerator Core (AI_CORE, MIX_AIC, HCCL, ...)
    std::vector<NameId> opState;      // "dynamic"/"static"/""
    std::vector<NameId> inputShapes, inputDtypes, inputFormats;
    std::vector<NameId> outputShapes, outputDtypes, outputFormats;
    std::vector<std::int64_t> blockDim, mixBlockDim; // -1 when missing
    // Every other numeric column (PMU metrics, cube_utilization(%), ...) under its header name
    // as written (e.g. "aic_mac_ratio", older files "mac_ratio"). NaN = N/A or empty.
    // Compacted (MetricColumn::compact) once the table is read.
    std::vector<std::string> metricNames;
    std::vector<MetricColumn> metrics; // metrics[m][row]
    // Unknown text columns, kept: extraNames[c], extra[c][row].
    std::vector<std::string> extraNames;
    std::vector<std::vector<NameId>> extra;
    std::vector<std::uint32_t> slice; // joined timeline slice row, or kNone

    std::size_t size() const { return start.size(); }
    // Index of the first name in `names` that exists as a metric column, or -1.
    int metricIndex(std::initializer_list<const char*> names) const;
    int metricIndex(const std::string& name) const;
    double metric(int m, std::size_t row) const { return m < 0 ? kNaN : metrics[m][row]; }
    void compactMetrics()
    {
        for (auto& m : metrics)
            m.compact();
    }
};

struct SizeBucket {
    std::string sizeMB; // as written ("4e-06")
    double count = 0;
    double timeMs = 0;
};

struct CommBandwidth {
    NameId transport;          // RDMA, HCCS, PCIE, SDMA, SIO
    double sizeMB = kNaN;      // Transit Size(MB)
    double timeMs = kNaN;      // Transit Time(ms)
    double bandwidthGBps = kNaN;
    double largePacketRatio = kNaN;
    std::vector<SizeBucket> sizes;
};

// One communication op of communication.json (or the cluster file: rank >= 0).
struct CommOp {
    std::string step;          // "step2", or "" when the file has no step level
    std::string kind;          // "p2p" / "collective" / cluster group key "(0, 1)"
    std::string fullName;      // "hcom_allReduce__184_0_1@7452643344416017458" or "Total Op Info"
    std::string opName;        // before '@'
    std::string group;         // after '@' (hash), or ""
    bool totalInfo = false;    // the "Total Op Info" summary entry
    int rank = -1;             // cluster file: the rank key
    std::optional<TimeNs> start;     // Start Timestamp(us), from text
    double elapseMs = kNaN, transitMs = kNaN, waitMs = kNaN, syncMs = kNaN, idleMs = kNaN;
    double waitRatio = kNaN, syncRatio = kNaN;
    std::vector<CommBandwidth> bandwidth;
};

// One link of communication_matrix.json (or the cluster matrix). Names are interned in the pool
// of the table holding the link (Profile::strings, ClusterData::strings): a 1 GB profile has
// 235 k links that repeat a few thousand names.
struct CommLink {
    NameId step, kind;  // "step2", "p2p" / "collective" / group key; empty when absent
    NameId fullName;    // "hcom_allReduce__184_0_1@7452643344416017458"
    NameId opName;      // before '@'
    NameId group;       // after '@', or empty
    int src = -1, dst = -1;
    NameId transport;  // LOCAL, HCCS, PCIE, SDMA, RDMA, SIO
    double sizeMB = kNaN, timeMs = kNaN, bandwidthGBps = kNaN;
    // How many links of the files this one stands for: 1 as read; a cluster summary's per-rank
    // totals (one per collective, src, dst and transport) carry the count they add up.
    std::uint32_t count = 1;
};

// step_trace_time.csv row (also cluster_step_trace_time.csv: type/index set).
struct StepRow {
    std::string step;            // as written
    int device = -1;
    std::string type;            // cluster: "rank" / "stage"
    std::string index;           // cluster: rank number or "(0, 1, …)"
    std::optional<TimeNs> computing, commNotOverlapped, overlapped, communication, free, stage,
        bubble, commNotOverlappedExclReceive, preparing;
};

// op_statistic / communication_statistic (hccl_statistic) / api_statistic rows.
struct StatRow {
    int device = -1;
    std::string kind;     // "op_statistic", "communication_statistic", "api_statistic"
    NameId name;          // OP Type / API Name
    NameId coreType;      // Core Type / Level
    std::uint64_t count = 0;
    TimeNs total = 0, min = 0, avg = 0, max = 0;
    double ratio = kNaN;  // Ratio(%)
    double variance = kNaN;
};

struct L2Row {
    int device = -1;
    std::int64_t streamId = -1, taskId = -1;
    double hitRate = kNaN, victimRate = kNaN; // 0..1 (a value > 1 in the file is % and divided)
    NameId opName;
};

// operator_details.csv rows (torch_npu ASCEND_PROFILER_OUTPUT): one host operator (PyTorch op,
// named as its cpu_op slice) with its input shapes, call stack (with_stack) and the host and
// device time spent under it, as torch_npu sums them. Durations are empty cells -> missing.
// A row takes 64 bytes (112 with std::optional<TimeNs>): a 10 GB profile has 4 M of them.
struct OpDetailRow {
    // A time that may be missing, in the 8 bytes of the time: the lowest TimeNs stands for
    // "missing" (no cell in microseconds reads as it).
    class MaybeNs {
    public:
        MaybeNs() = default;
        MaybeNs(std::optional<TimeNs> t) : m_ns(t.value_or(kMissing)) {}
        bool has_value() const { return m_ns != kMissing; }
        TimeNs operator*() const { return m_ns; }
        TimeNs value_or(TimeNs fallback) const { return has_value() ? m_ns : fallback; }
        std::optional<TimeNs> optional() const { return has_value() ? std::optional<TimeNs>(m_ns) : std::nullopt; }

    private:
        static constexpr TimeNs kMissing = std::numeric_limits<TimeNs>::min();
        TimeNs m_ns = kMissing;
    };
    NameId name;        // Name, e.g. "aten::add"
    NameId inputShapes; // Input Shapes as written ("[[32, 1000], []]"-style or ";\n"-separated), may be empty
    NameId callStack;   // Call Stack, frames "file(line): func" separated by ";\n", empty without with_stack
    MaybeNs hostSelf, hostTotal;                 // Host Self / Total Duration(us)
    MaybeNs deviceSelf, deviceTotal;             // Device Self / Total Duration(us)
    MaybeNs deviceSelfAiCore, deviceTotalAiCore; // ... With AICore(us)
};
static_assert(sizeof(OpDetailRow) == 64);

// operator_memory.csv / OP_MEMORY rows: one block the framework's caching allocator handed to an
// operator (torch_npu with profile_memory=True). Sizes and the allocator's totals right after the
// allocation / the release are in bytes (the CSV's KB and MB are binary), NaN when missing.
struct OpAllocation {
    NameId name;                          // the operator that asked for it ("aten::mm", "cann::Conv2D1")
    double bytes = kNaN;                  // Size(KB) × 1024; may be negative at capture edges
    TimeNs allocAt = 0;                   // Allocation Time(us)
    std::optional<TimeNs> releaseAt;      // Release Time(us); none: still held when the capture ended
    std::optional<TimeNs> activeReleaseAt;// Active Release Time(us) (newer torch_npu)
    std::optional<TimeNs> duration;       // Duration(us) as written
    double allocTotalAllocated = kNaN, allocTotalReserved = kNaN, allocTotalActive = kNaN;
    double releaseTotalAllocated = kNaN, releaseTotalReserved = kNaN, releaseTotalActive = kNaN;
    std::int64_t streamPtr = -1;
    int device = -1;
    bool released() const { return releaseAt.has_value(); }
};

struct DeviceInfo {
    int device = -1;
    int aiCoreNum = -1;
    int aivNum = -1;
    double aicFrequencyMHz = kNaN;
    std::string chip;            // e.g. "Ascend910B", as far as known
    double hbmPeakGBps = kNaN;   // when the profile says
};

struct ParallelGroup {
    std::string name;           // e.g. "tp", group hash
    std::string groupName;
    std::vector<int> ranks;
};

struct Metadata {
    std::map<std::string, std::string> env;   // profiler_metadata.json ENV_VARIABLES
    std::vector<ParallelGroup> groups;        // parallel_group_info
    std::string profilerLevel;                // "Level0", "Level1", "Level2", or ""
    std::string exportType;                   // "text" / "db"
    std::string cannVersion, torchNpuVersion;
    nlohmann::json profilerInfo;              // profiler_info[_N].json as read
    nlohmann::json profilerMetadata;          // profiler_metadata.json as read
};

struct JoinStats {
    std::uint64_t deviceTasks = 0;       // timeline slices on Stream tracks
    std::uint64_t kernelRows = 0;        // op_summary/kernel_details rows
    std::uint64_t matchedExact = 0;      // joined on (device, stream, task id, exact start)
    std::uint64_t matchedNearest = 0;    // joined on nearest start within 1 µs
    std::uint64_t unmatchedTasks = 0;    // device tasks with no kernel row
    std::uint64_t unmatchedKernels = 0;  // kernel rows with no timeline task
};

class Profile {
public:
    std::string name;      // display name (folder name, "rank 0", file name)
    std::string root;      // folder or file it was read from
    std::string layout;    // "torch_npu", "msprof", "msprof-legacy", "chrome-trace", "simplified JSON", "csv", "db"
    int rank = -1;         // rank id when known
    std::vector<int> devices;

    StringPool strings;
    std::vector<Track> tracks;
    SliceTable slices;
    ArgTable args;
    FlowTable flows;
    std::vector<CounterSeries> counters;
    KernelTable kernels;
    std::vector<CommOp> commOps;
    std::vector<CommLink> commLinks;
    std::vector<StepRow> steps;
    std::vector<StatRow> stats;
    std::vector<L2Row> l2;
    std::vector<OpAllocation> opMemory; // operator_memory rows, in file order
    std::vector<OpDetailRow> opDetails; // operator_details rows, in file order
    std::vector<DeviceInfo> deviceInfo;
    Metadata meta;
    JoinStats join;

    std::vector<FileRecord> files;
    std::vector<Diagnostic> diagnostics;

    TimeNs begin = 0, end = 0; // span of everything with a time (finalize())

    // Find or create a track for (pid, tid); used by readers while appending.
    TrackId trackFor(std::int64_t pid, std::int64_t tid);
    // Find or create the counter series for (pid, name, key).
    CounterSeries& counterFor(std::int64_t pid, NameId name, NameId key);

    // Sort slices per track (stable: start, -dur, file order), set track ranges and depths,
    // bind flow endpoints to slices, sort counters, compute [begin, end]. Idempotent.
    // With `cancel` set (polled between its steps and every 64 Ki flows), it may stop early and
    // return false: the tables are then half indexed, fit only to be thrown away.
    bool finalize(const std::atomic<bool>* cancel = nullptr);
    bool finalized() const { return m_finalized; }
    // The slice rows of each track of `kind` that holds any, as [begin, end) in track order: once
    // finalized, slices lie in track order, so the ranges ascend and whether a row is on such a
    // track is found among them (a few) instead of by reading its track.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> sliceRanges(TrackKind kind) const;
    // For a Profile whose tables were filled directly from a finalized one (the session cache):
    // rebuilds the track, counter and argument-key lookups and sets whether it was finalized.
    void restoreIndexes(bool finalized);

    // Appends the tables that the side-file readers fill (kernels, statistics, steps, L2,
    // communication ops and links, device info, metadata, rank, diagnostics) from `other`, a
    // Profile read in parallel with this one, re-interning its strings into this pool. Tracks,
    // slices, flows and counters are not moved. False when `cancel` was set before the end:
    // then this profile is half merged, to be dropped.
    bool absorbSideTables(Profile&& other, const std::atomic<bool>* cancel = nullptr);

    // Report a problem (merges repeated reasons of one file into a count).
    void report(Severity s, std::string file, std::int64_t line, std::int64_t byteOffset, std::string reason);

    // Convenience lookups (after finalize()).
    std::string_view str(NameId id) const { return strings.view(id); }
    const DeviceInfo* info(int device) const;
    std::uint64_t skippedTotal() const;

private:
    std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> m_trackIndex;
    std::map<std::tuple<std::int64_t, std::uint32_t, std::uint32_t>, std::uint32_t> m_counterIndex;
    bool m_finalized = false;
};

using ProfilePtr = std::shared_ptr<const Profile>;

} // namespace npuscope
