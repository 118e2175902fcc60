#include "model/cluster_summary/open_session.h"
#include "model/cluster_summary/cluster_summary.h"

#include <nlohmann/json.hpp>

namespace npuscope {

LoadResult openSessions(const std::vector<std::string>& paths, const LoadOptions& options)
{
    if (paths.size() == 1 && cluster_summary::isSummaryFile(paths.front())) {
        nlohmann::json doc;
        std::string error;
        if (!cluster_summary::readSummary(paths.front(), doc, &error))
            return LoadResult{nullptr, false, error, {}};
        if (options.progress)
            options.progress(LoadProgress{"Done", 0});
        return LoadResult{cluster_summary::sessionFromSummary(doc, paths.front()), false, {}, {}};
    }
    return paths.size() == 1 ? loadSession(paths.front(), options) : loadSessions(paths, options);
}

} // namespace npuscope
