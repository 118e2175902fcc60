#pragma once
// What a load found, read, skipped and why. Nothing is dropped silently: every skipped row or
// event is counted here with its file, location and reason.
#include <cstdint>
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

struct FileRecord {
    std::string path;
    std::string kind;   // "timeline", "kernel_details", "op_summary", "communication", ... or "" when unknown
    FileStatus status = FileStatus::Loaded;
    std::string note;   // why ignored/failed, or "newest of 2 op_summary files", ...
    std::uint64_t bytes = 0;
    std::uint64_t records = 0; // rows or events kept
    std::uint64_t skipped = 0; // rows or events skipped (each counted in a Diagnostic)
};

// Whether the file was read, whole or in part.
inline bool wasRead(const FileRecord& f)
{
    return f.status == FileStatus::Loaded || f.status == FileStatus::Partial;
}

const char* severityName(Severity s);
const char* fileStatusName(FileStatus s);

} // namespace npuscope
