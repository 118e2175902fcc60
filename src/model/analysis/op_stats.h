#pragma once
// Per-operator aggregates over the kernel table (op_summary / kernel_details), or over device
// tasks of the timeline when a profile has no kernel table. Shared by the CLI `analyze`, the
// ranking view, the advisor and `compare`.
#include "model/store/profile.h"
#include "model/store/session.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace npuscope {

enum class GroupBy { Type, Name };
enum class BoundType { Unknown, Compute, Memory, Latency };
const char* boundTypeName(BoundType b);

struct OpGroupStats {
    std::string key;            // OP Type or Op Name
    std::string taskType;       // dominant accelerator core (AI_CORE, AI_VECTOR_CORE, MIX_AIC, ...)
    std::uint64_t count = 0;
    TimeNs total = 0, min = 0, max = 0;
    double avgNs = 0;
    TimeNs p50 = 0, p90 = 0, p99 = 0;
    TimeNs self = 0;            // Σ self time: total minus nested children (generic slices); = total for device tasks
    double share = 0;           // total / Σ total of all device tasks (0..1)
    // Duration-weighted means; NaN when no row of the group has the metric.
    double aicUtilization = kNaN;  // 0..1: cube_utilization(%)/100, else aic_mac_ratio (labelled)
    double l2HitRate = kNaN;       // 0..1: Σhits/(Σhits+Σmisses), else l2_cache Hit Rate
    double readGBps = kNaN;        // main memory read bandwidth (aic + aiv)
    double writeGBps = kNaN;       // main memory write bandwidth (aic + aiv)
    double macRatio = kNaN, vecRatio = kNaN, mte2Ratio = kNaN, mte3Ratio = kNaN, scalarRatio = kNaN;
    BoundType bound = BoundType::Unknown;
    std::vector<std::uint32_t> rows; // kernel rows (or slice rows when fromTimeline) of the group
    // computeOpStatsAllRanks: for each of `rows`, the index of its profile in the list given;
    // empty for a single profile.
    std::vector<std::uint32_t> rowProfile;
    int rank = -1;                   // the profile's rank (for multi-rank output); -1 when merged
};

struct OpStatsOptions {
    GroupBy groupBy = GroupBy::Type;
    std::optional<TimeNs> rangeBegin, rangeEnd; // only tasks overlapping [begin, end)
    // computeOpStatsAllRanks: per profile, what is added to the range to give that profile's
    // file time (its clock offset when the range is in aligned time); none: every profile 0.
    std::vector<TimeNs> rangeShift;
    bool includeCommunication = false;          // include HCCL/COMMUNICATION rows
    double peakHbmGBps = 1200;                  // for the bandwidth share of the bound type
    // A profile with no device task at all (a generic Chrome trace) ranks every slice by name
    // (OpStatsResult::genericSlices). Off for the advisor, whose rules are about device tasks.
    bool rankGenericSlices = false;
    // Only each group's count and total, the result's deviceTotal and the communication rows
    // left out: no rows, durations, min/max/percentiles, dominant task type or hardware metrics
    // (a listing of counts and totals over a large profile, `info`). Grouped as in full.
    bool countsOnly = false;
};

struct OpStatsResult {
    std::vector<OpGroupStats> groups; // sorted by total, descending
    TimeNs deviceTotal = 0;           // Σ dur of all counted rows
    bool fromTimeline = false;        // true when built from timeline tasks (no kernel table)
    // true when the profile has no device task at all (a generic Chrome trace): every slice of
    // the timeline is ranked by name, with its self time (rows are slice rows, fromTimeline set).
    bool genericSlices = false;
    int profiles = 1;                 // how many profiles were aggregated
    std::string utilizationSource;    // "cube_utilization(%)", "aic_mac_ratio", or ""
    // The communication rows left out (includeCommunication off) that overlap the range: how
    // many, and Σ dur inside it (what includeCommunication would add to the counts and deviceTotal).
    std::uint64_t communicationCount = 0;
    TimeNs communicationTotal = 0;
};

// Nearest-rank percentile of ascending-sorted values: the ceil(p/100·n)-th smallest (p50, p90, p99).
TimeNs nearestRank(const std::vector<TimeNs>& sorted, double p);

OpStatsResult computeOpStats(const Profile& p, const OpStatsOptions& o = {});
// The same over several profiles (the ranks of a cluster) as one population: counts and totals
// add up, percentiles are over every instance of every profile, metrics are duration-weighted
// over all rows. Each group's rowProfile says which profile a row belongs to.
OpStatsResult computeOpStatsAllRanks(const std::vector<ProfilePtr>& profiles, const OpStatsOptions& o = {});
// All counted rows as one group (key "all"): profile-wide weighted utilisation, L2, bandwidth.
// `utilizationSource`, when given, is set as computeOpStats sets OpStatsResult's.
OpGroupStats computeOverallStats(const Profile& p, const OpStatsOptions& o = {}, std::string* utilizationSource = nullptr);
// The numeric suffix of a communication op name removed: "hcom_allReduce__184_0_1" -> "hcom_allReduce".
std::string commBaseName(std::string_view opName);
// True for communication rows: task type HCCL/COMMUNICATION or a type/name starting with "hcom".
bool isCommunicationTask(std::string_view taskType, std::string_view typeOrName);
// HCCL's own device tasks, by task type or name ("Notify Wait", "Notify_Record", "Write Value",
// "Reduce Inline", "RDMA Send"): they run only on communication streams.
bool isHcclTask(std::string_view taskType, std::string_view name);
// Computation tasks, the Overlap Analysis "Computing" lane: kernels of task type AI_CORE,
// AI_VECTOR_CORE, MIX_AIC, MIX_AIV, AI_CPU, DSA_SQE or a database KERNEL_* type. Runtime tasks
// (EVENT_WAIT/EVENT_RECORD, MEMCPY_ASYNC, SDMA, PROFILING_*, ...), HCCL's own tasks and
// communication ops are not. A timeline that does not know the core ("Other", empty) names
// runtime tasks in capitals (MEMCPY_ASYNC) and kernels otherwise (Conv2D1, aclnnMm_...): a
// name with a lower-case letter that is not an HCCL task is a kernel.
// AI CPU computes: its tasks run on the device in the streams of the model's ops and the
// profiler's own Computing lane counts them, so the overlap's Computing and the advisor's compute
// union (rank_facts.h, which classifies on this same function) both hold them; TaskClass::AiCpu
// keeps them apart for the rules about cube and vector work.
bool isComputeTask(std::string_view taskType, std::string_view name);

// Communication ops ranked by total duration: per collective name (op name before '@',
// with its numeric suffix removed, e.g. "hcom_allReduce"), with volume in GB.
struct CommStats {
    std::string key;
    int rank = -1;
    std::uint64_t count = 0;
    TimeNs total = 0;
    double volumeGB = 0;   // RDMA + max(SDMA, HCCS + PCIE + SIO) Transit Size(MB) / 1000
    double waitMs = 0, transitMs = 0;
};
std::vector<CommStats> computeCommStats(const Profile& p);

} // namespace npuscope
