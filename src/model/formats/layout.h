#pragma once
// Layout detection (FORMATS.md §1): which folder shape a path has, which ranks it holds and
// which reader each file goes to. Pure filesystem logic on names and directory structure;
// nothing is parsed here (the loader sniffs a lone JSON file for the simplified format when it
// maps it). Every file met is accounted for: planned for a reader, or Ignored with the reason,
// so the user can see what happened to each one.
//
// A folder with no profile at its top is searched below for runs, at most kMaxSearchDepth
// folders deep and kMaxFolders folders in all; inside a run the walk goes at most kMaxDepth
// folders below the run's root. Each real folder is visited once (symlink loops and repeated
// folders are skipped by device/inode) and listed once, so a folder of thousands of unrelated
// files costs one readdir and one stat per file.
#include "model/formats/file_kinds.h"
#include "model/store/diagnostics.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace npuscope::layout {

inline constexpr int kMaxDepth = 5;
inline constexpr int kMaxSearchDepth = 8;
inline constexpr int kMaxFolders = 20000;

// A file name split into its parts: `<module>[_slice_<k>][_<dev>_<model>_<iter>][_<ts>].<ext>`.
struct FileName {
    std::string module;    // "op_summary", "msprof", "kernel_details", "profiler_info", "info.json"
    std::string middle;    // numeric tokens between module and timestamp ("0_1_1" legacy, "0" rank)
    std::string timestamp; // trailing digits of >= 8 characters, "" when none
    int slice = -1;        // k of `_slice_<k>_`, -1 when not sliced
    std::string ext;       // "csv", "json", "db", ... lower-case; info.json.N gives "json"
};
FileName parseFileName(std::string_view name);

struct Classification {
    FileKind kind = FileKind::Unknown;
    std::string kindName; // FileRecord::kind ("timeline", "op_summary", "kernel_details", ...)
    std::string note;     // for Unknown: why it is not read
    const FileKindRow* row = nullptr; // the kind's row (file_kinds.h), null for a name no row matches
};
// What a file is, from its name alone (FORMATS.md §1 table): the first row of file_kinds.h's
// table that matches, else why the name is not read.
Classification classifyFileName(std::string_view name);

struct PlannedFile {
    std::string path;     // full path as built from what the user gave
    std::string kindName; // FileRecord::kind
    FileKind kind = FileKind::Unknown;
    std::string module;   // parseFileName().module, for grouping
    std::string group;    // grouping key: kind/module/middle/device
    std::string timestamp;
    int slice = -1;
    int device = -1;      // device implied by the folder (legacy device_N, info.json.N)
    std::uint64_t bytes = 0;
    // NotRead: to be read by the loader. Ignored/Failed: decided here, `note` says why.
    FileStatus status = FileStatus::NotRead;
    std::string note;
    bool toRead() const { return status == FileStatus::NotRead && kind != FileKind::Unknown; }
};

struct RankPlan {
    std::string name;   // folder name (or file name for a lone file)
    std::string root;   // folder or file it is read from
    std::string layout; // "torch_npu", "msprof", "msprof-legacy", "chrome-trace", "csv", "folder"
    int rank = -1;      // from profiler_info_<N>.json's name; the loader prefers the file's rank_id
    std::vector<PlannedFile> files;          // files to read, in read order, then ignored ones
    std::vector<Diagnostic> diagnostics;     // e.g. older duplicates
    std::uint64_t bytesToRead() const;
};

struct Plan {
    std::string root;                    // what the user gave
    std::string layout;                  // session layout: a rank's layout or "cluster (N ranks, X)"
    std::vector<RankPlan> ranks;
    std::vector<PlannedFile> files;      // cluster files to read, and files outside any rank
    std::vector<Diagnostic> diagnostics; // unreadable folders, skipped symlink loops, ...
    std::string error;                   // set when nothing recognisable was found
    int sqliteFiles = 0;                 // *.db exports seen
    bool cancelled = false;              // the search was stopped by the cancel flag
    std::uint64_t bytesToRead() const;
};

// One run found below a folder: a rank folder (PROF_*, *_ascend_pt, a folder of exported
// files, a single trace) or the ranks of one job (rank folders side by side in one folder, or
// each in its own rank_N/node_N folder there), which open together as a cluster.
struct RunInfo {
    std::string root;                // the rank's folder, or the job folder holding its ranks
    std::string layout;              // the rank's layout, or "cluster (N ranks, X)"
    int ranks = 0;
    std::uint64_t bytes = 0;         // bytes of the files that would be read
    std::int64_t modified = 0;       // newest modification time of its rank folders (Unix seconds)
    std::vector<std::size_t> rankIndexes; // into Plan::ranks
};
// The unrelated runs of a plan, in path order. One entry for a single rank or a cluster.
std::vector<RunInfo> listRuns(const Plan& plan);
// The plan reduced to one of listRuns(plan): its ranks, and the cluster files below its root.
Plan selectRun(const Plan& plan, std::size_t index);

// Detect the layout of one path (a folder of any known shape or a single file). A folder with
// no profile at its top is searched below it; `cancel`, when set, stops the search.
Plan detect(const std::string& path, const std::atomic<bool>* cancel = nullptr);
// Several paths (rank folders given one by one) into one plan; each keeps its own rank(s).
Plan detect(const std::vector<std::string>& paths);

// The message for a path with no profiling data.
std::string noDataMessage(const std::string& path);

} // namespace npuscope::layout
