#pragma once
// Entry point: turn a path (folder of any real layout, or a single file) into a Session.
// Synchronous; the GUI calls it on a worker thread. Rank folders load in parallel. Profiler
// exports only: a cluster summary file is opened a layer up, by openSessions
// (model/cluster_summary/open_session.h).
#include "model/formats/layout.h"
#include "model/store/session.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace npuscope {

struct LoadProgress {
    std::string stage;    // "Scanning", "Reading trace_view.json", "Joining", ...
    double fraction = 0;  // 0..1 over the whole load
};

enum class Prefer { Auto, Text, Db };

struct LoadOptions {
    // May be called from worker threads (one call at a time, never concurrently), at most 20
    // times a second as bytes are read, once as each stage begins (a file, indexing, joining)
    // and a final {"Done", 1.0}; keep it short and thread-safe (e.g. emit a queued signal).
    // fraction = bytes read / bytes to read.
    std::function<void(const LoadProgress&)> progress;
    const std::atomic<bool>* cancel = nullptr;          // set to true to stop early
    Prefer prefer = Prefer::Auto;                       // text vs SQLite when both exist
    unsigned threads = 0;                               // 0 = hardware concurrency
    // Heap the whole load may use, in bytes; 0 = NPUSCOPE_MEMORY_BUDGET or /proc/meminfo's
    // MemAvailable. A file whose estimated need (FileKindRow::heapBytes) does not fit in what is left
    // is not read: it fails with an Error naming it, the need and the budget.
    std::uint64_t memoryBudget = 0;
    // Called with each planned file's path just before it is opened, on the thread that reads
    // it: files are read in parallel, so the hook must be thread-safe (it lets tests change or
    // remove files between layout detection and reading).
    std::function<void(const std::string& path)> beforeRead;
    // When a folder holds several unrelated runs (layout::listRuns): which one to open,
    // 1-based. 0 opens none of them: the load fails and LoadResult::runs lists them.
    std::size_t run = 0;
    // Timeline files of at least this many bytes keep their events' arguments as byte offsets,
    // read from the file again when asked for (ArgTable's lazy rows); smaller ones store them.
    // The default is NPUSCOPE_LAZY_ARGS_FROM (bytes) when set, else 256 MiB (kLargeLoadBytes).
    std::uint64_t lazyArgsFrom = defaultLazyArgsFrom();
    static std::uint64_t defaultLazyArgsFrom();
};

struct LoadResult {
    SessionPtr session;   // null when nothing could be loaded
    bool cancelled = false;
    std::string error;    // set when session is null: names the path and why
    // The unrelated runs found below the path when there are several (the session, if any,
    // holds the one LoadOptions::run chose); empty when the path holds one run.
    std::vector<layout::RunInfo> runs;
};

LoadResult loadSession(const std::string& path, const LoadOptions& options = {});
// Several paths (a cluster given as rank folders, globs already expanded) into one Session.
LoadResult loadSessions(const std::vector<std::string>& paths, const LoadOptions& options = {});

} // namespace npuscope
