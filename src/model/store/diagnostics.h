#pragma once
// What a load found, read, skipped and why. Nothing is dropped silently: every skipped row or
// event is counted here with its file, location and reason.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace npuscope {

enum class Severity : std::uint8_t { Info, Warning, Error };

struct Diagnostic {
    Severity severity = Severity::Warning;
    std::string file;             // path as given to the loader
    std::int64_t line = -1;       // 1-based line, -1 when not line-oriented
    std::int64_t byteOffset = -1; // 0-based byte offset, -1 when unknown
    std::string reason;           // human sentence, e.g. "missing column 'Task Duration(us)'"
    std::uint64_t count = 1;      // how many rows/events this diagnostic stands for
};

enum class FileStatus : std::uint8_t { Loaded, Partial, Ignored, Failed, NotRead };

// What a file is to the code that reads the model, one bit each. The row of its kind in the table
// of file kinds (model/formats/file_kinds.cpp) lists them, and the loader sets them on the
// file's record with its kind: code above the readers asks a record for a role, never compares
// its kind's name.
enum class FileRole : std::uint16_t {
    // The Chrome-trace timeline (trace_view.json, msprof*.json): read in part, the run is cut
    // where it stops and the step it stops in is incomplete.
    Timeline = 1 << 0,
    // A JSON file whose events become the rank's slices (the timeline, the simplified task
    // list): what is wrong with the slices is said of it.
    Slices = 1 << 1,
    // A kernel table (op_summary, kernel_details): the file the per-operator views and rules
    // name as the source of the device tasks.
    Kernels = 1 << 2,
    // A file of the cluster analysis (cluster_analysis_output): read into the session's cluster
    // data, wherever it sits.
    Cluster = 1 << 3,
    // A side file whose numbers the header strip and the Advisor read beside the timeline's
    // (step times, kernel tables, operator statistics, communication): read whole, it covers the
    // run past a timeline's cut.
    CoversRunBeside = 1 << 4,
    // The framework's memory records (memory_record): allocated, reserved and active memory per
    // component over time.
    MemoryRecords = 1 << 5,
    // Each operator's allocations and frees (operator_memory).
    OperatorMemory = 1 << 6,
};

// A set of FileRoles: `FileRoles {FileRole::A, FileRole::B}`, or one role alone. (No operator|:
// declared in this namespace, it would hide the global ones of other libraries' flags.)
struct FileRoles {
    std::uint16_t bits = 0;

    constexpr FileRoles() = default;
    constexpr FileRoles(FileRole r) : bits(static_cast<std::uint16_t>(r)) {}
    constexpr FileRoles(std::initializer_list<FileRole> roles)
    {
        for (FileRole r : roles)
            bits = static_cast<std::uint16_t>(bits | static_cast<std::uint16_t>(r));
    }
    constexpr bool has(FileRole r) const { return (bits & static_cast<std::uint16_t>(r)) != 0; }
    friend constexpr bool operator==(FileRoles, FileRoles) = default;
};

struct FileRecord {
    std::string path;
    std::string kind; // "timeline", "kernel_details", "op_summary", "communication", ... or "" when unknown
    FileRoles roles;  // its kind's roles (none for a kind the table of file kinds does not list)
    FileStatus status = FileStatus::Loaded;
    std::string note; // why ignored/failed, or "newest of 2 op_summary files", ...
    std::uint64_t bytes = 0;
    std::uint64_t records = 0; // rows or events kept
    std::uint64_t skipped = 0; // rows or events skipped (each counted in a Diagnostic)

    bool has(FileRole r) const { return roles.has(r); }
};

// Whether the file was read, whole or in part.
inline bool wasRead(const FileRecord& f)
{
    return f.status == FileStatus::Loaded || f.status == FileStatus::Partial;
}

const char* severityName(Severity s);
const char* fileStatusName(FileStatus s);

} // namespace npuscope
