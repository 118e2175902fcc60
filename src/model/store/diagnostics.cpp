#include "model/store/diagnostics.h"

namespace npuscope {

const char* severityName(Severity s)
{
    switch (s) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
    }
    return "?";
}

const char* fileStatusName(FileStatus s)
{
    switch (s) {
    case FileStatus::Loaded: return "loaded";
    case FileStatus::Partial: return "partial";
    case FileStatus::Ignored: return "ignored";
    case FileStatus::Failed: return "failed";
    case FileStatus::NotRead: return "not read";
    }
    return "?";
}

} // namespace npuscope
