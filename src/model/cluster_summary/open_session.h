#pragma once
// Opening what the user names: a cluster summary file (one file standing for a whole cluster),
// else profile folders and files through the loader. The loader reads profiler exports only; a
// summary is this program's own file, read here, above both.
#include "model/formats/loader.h"

#include <string>
#include <vector>

namespace npuscope {

// A summary file when `paths` is one (cluster_summary::isSummaryFile), else loadSession (one
// path) or loadSessions (several).
LoadResult openSessions(const std::vector<std::string>& paths, const LoadOptions& options = {});
inline LoadResult openSession(const std::string& path, const LoadOptions& options = {})
{
    return openSessions(std::vector<std::string>{path}, options);
}

} // namespace npuscope
