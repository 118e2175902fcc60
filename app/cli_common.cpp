#include "app/cli.h"

#include "model/cache/session_cache.h"

#include <cstdio>

namespace npuscope::cli {

bool wantsHelp(const Args& args)
{
    for (const auto& a : args)
        if (a == "--help" || a == "-h")
            return true;
    return false;
}

bool parsePrefer(const std::string& value, Prefer& out)
{
    if (value == "text")
        out = Prefer::Text;
    else if (value == "db")
        out = Prefer::Db;
    else
        return false;
    return true;
}

LoadResult loadForVerb(const char* verb, const std::vector<std::string>& paths, const LoadOptions& options,
                       bool useCache, std::string* cacheNote)
{
    if (!useCache)
        return paths.size() == 1 ? loadSession(paths.front(), options) : loadSessions(paths, options);
    SessionCacheReport report;
    LoadResult r = loadSessionsCached(paths, options, {}, &report);
    for (const std::string* note : {&report.note, &report.storeError}) {
        if (note->empty())
            continue;
        std::fprintf(stderr, "npuscope %s: note: %s%s\n", verb, note == &report.storeError ? "cache not written: " : "",
                     note->c_str());
        if (cacheNote && cacheNote->empty())
            *cacheNote = *note;
    }
    return r;
}

} // namespace npuscope::cli
