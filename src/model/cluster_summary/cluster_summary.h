#pragma once
// Cluster summaries (docs/CLUSTER-SUMMARY.md): each rank folder of a large job is loaded on its
// own, reduced to a compact JSON summary (step breakdown per step, per-op-type aggregates with
// percentiles, communication ops and links, a down-sampled overview of every stream), and the
// summaries of all ranks are assembled into one versioned file that the advisor, `compare`,
// `analyze` and the GUI read instead of the ranks' full folders.
//
// The reduction is a pure function of one loaded Profile, so it gives the same bytes whichever
// process or thread computes it; the file is assembled in canonical order (ranks by id, then
// folder), so it is the same whatever the number of processes.
#include "model/analysis/compare.h"
#include "model/store/session.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace npuscope::cluster_summary {

inline constexpr const char* kFormatName = "npuscope-cluster-summary";
inline constexpr int kFormatVersion = 3; // 3: the late ranks at collectives (summary_late.h)
inline constexpr int kDefaultBuckets = 4096;

// One rank folder to summarise.
struct RankFolder {
    std::string path;        // as read (ROOT joined with the folder, or a line of --ranks-from)
    std::string folder;      // the path relative to ROOT (the name shown and sorted on)
    int rank = -1;           // from the folder's profiler_info_<N>.json name, -1 when unknown
    std::uint64_t bytes = 0; // bytes its files hold (the balance key)
};

// The rank folders under `root` (layout detection; no file is parsed). With `ranksFrom` set,
// the folders listed there instead, one per line (blank lines and '#' comments skipped;
// relative lines are taken from `root`). Sorted by folder. Empty with *error set when nothing
// is found or the list cannot be read.
std::vector<RankFolder> listRankFolders(const std::string& root, const std::string& ranksFrom, std::string* error);

// Indices of `folders` per process (P lists) so that the bytes are balanced: largest first,
// each to the process with the fewest bytes so far (ties to the lowest process). Deterministic.
std::vector<std::vector<std::size_t>> assignByBytes(const std::vector<RankFolder>& folders, int processes);

// The model part of one rank's summary (everything but the advisor findings, which the caller
// adds under "findings" and "advisor_split"): rank, folder, layout, steps, op_types,
// comm_ops, links, comm_stats, overview. `buckets` sets the overview resolution.
nlohmann::json reduceProfile(const Profile& p, const RankFolder& folder, int buckets = kDefaultBuckets);

// What the file keeps of the gathered rank summaries, once the cluster section is computed from
// them: each rank's communication ops become its totals per transport (`comm_transport`) and its
// links, de-duplicated over the whole cluster, totals per collective, src, dst and transport
// (`link_totals`). Per-op detail grows with steps × collectives and stays in the folders.
void compactForFile(nlohmann::json& doc);

// A rank folder that could not be summarised.
nlohmann::json failedRank(const RankFolder& folder, const std::string& reason);

// Canonical order of rank summaries and failures: by rank id (unknown last), then folder.
void sortCanonical(std::vector<nlohmann::json>& ranks);

// The file's text: "format" and "version" first (so a reader can tell the file by its first
// bytes), then the other keys in sorted order, one line.
std::string dumpSummary(const nlohmann::json& doc);

// The bytes to write at `path`: dumpSummary's text, gzip-compressed when `path` ends in ".gz"
// (deterministic: no name or time in the header). Empty if compression fails.
std::string fileBytes(const nlohmann::json& doc, const std::string& path);

// Whether `path` is a cluster summary file, plain or gzip-compressed (checks the first bytes only).
bool isSummaryFile(const std::string& path);

// Reads (inflating a gzip-compressed file) and validates a summary file. False with *error
// naming the file and why.
bool readSummary(const std::string& path, nlohmann::json& out, std::string* error);

// FileRecord::kind of a rank folder a summary names (note: "rank N"; status Failed with the
// reason when it could not be summarised).
inline constexpr const char* kRankFolderKind = "rank_folder";

// The folder of rank `rank` named by a summary Session, or "" when it names none.
std::string rankFolderOf(const Session& s, int rank);

// Session::source of a Session read from a summary.
inline constexpr const char* kSessionSource = "summary";
bool isSummarySession(const Session& s);

// A Session holding what the cluster analysis and the advisor's cluster rules read: per rank
// one cluster_step_trace_time row per step (type "rank"), the communication ops (rank set) and
// links, in Session::cluster. It has no ranks (their full data stays in the folders).
SessionPtr sessionFromSummary(const nlohmann::json& summary, const std::string& path);

// A run's side of `compare` from its summary: the slowest rank's (largest advisor_split T) mean
// step and split and its per-step values (`steps`), and the op types summed over ranks. A summary
// keeps types, not operator names: the operators are by type whatever the grouping asked.
CompareSide compareSideOf(const nlohmann::json& summary);
// The first rank's steps that have a span, with their split (no operator types: the summary keeps
// them per rank, not per step), for the steps side by side.
std::vector<StepSpan> stepSpansOf(const nlohmann::json& summary);

// `compare` of two loaded runs, either of which may be a summary Session (its file is read
// again): compareSessions on two folders; otherwise each side from compareSide or compareSideOf,
// the steps side by side from stepSpans or stepSpansOf. When a summary cannot be read again,
// *error says why and the result is empty but for that side's input problem.
CompareResult compareRuns(const Session& base, const Session& cur, const CompareOptions& co, std::string* error);

} // namespace npuscope::cluster_summary
