// `npuscope cache list|clear`: the session cache's entries (model/cache/session_cache.h).
#include "app/cli.h"

#include "model/cache/session_cache.h"
#include "model/io/memory_budget.h"

#include <cstdio>
#include <ctime>
#include <string>

namespace npuscope::cli {

namespace {

void printCacheHelp()
{
    std::fputs("Usage: npuscope cache list|clear\n"
               "\n"
               "info, analyze, advise, compare and the window keep what they loaded in a session cache,\n"
               "so that opening the same input again reads the finished tables instead of the files.\n"
               "An entry is used only while every input file has the size, time and first and last MiB\n"
               "it had, and the entry itself checks out; otherwise the files are read again and the\n"
               "entry rewritten. --no-cache on a verb (and the window's Preferences) turns it off.\n"
               "\n"
               "  list   every entry: size, when last used, the paths it holds, any problem with it\n"
               "  clear  remove every entry\n"
               "\n"
               "Directory: $XDG_CACHE_HOME/npuscope, else ~/.cache/npuscope. Size cap: NPUSCOPE_CACHE_MAX\n"
               "(bytes, or with K/M/G; default 10G); past it, the least recently used entries go.\n"
               "Exit codes: 0 ok, 1 no cache directory known, 2 usage.\n",
               stdout);
}

std::string when(std::int64_t ns)
{
    const std::time_t t = static_cast<std::time_t>(ns / 1000000000);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

} // namespace

int cache(const Args& args)
{
    if (wantsHelp(args)) {
        printCacheHelp();
        return 0;
    }
    if (args.size() != 1 || (args[0] != "list" && args[0] != "clear")) {
        std::fprintf(stderr, "npuscope cache: give list or clear\nTry 'npuscope cache --help'.\n");
        return 2;
    }
    const std::string dir = defaultSessionCacheDir();
    if (dir.empty()) {
        std::fprintf(stderr, "npuscope cache: no cache directory: neither XDG_CACHE_HOME nor HOME is set\n");
        return 1;
    }
    if (args[0] == "clear") {
        std::uint64_t bytes = 0;
        const std::size_t n = clearSessionCache(dir, &bytes);
        std::printf("removed %zu entr%s (%s) from %s\n", n, n == 1 ? "y" : "ies", formatBytes(bytes).c_str(),
                    dir.c_str());
        return 0;
    }
    const auto entries = listSessionCache(dir);
    std::uint64_t total = 0;
    for (const auto& e : entries) {
        total += e.bytes;
        std::printf("%s  %s  last used %s UTC\n", e.file.c_str(), formatBytes(e.bytes).c_str(),
                    when(e.lastUsedNs).c_str());
        for (const auto& p : e.inputs)
            std::printf("    %s\n", p.c_str());
        if (!e.problem.empty())
            std::printf("    not usable: %s\n", e.problem.c_str());
    }
    std::printf("%zu entr%s, %s of %s, in %s\n", entries.size(), entries.size() == 1 ? "y" : "ies",
                formatBytes(total).c_str(), formatBytes(defaultSessionCacheMaxBytes()).c_str(), dir.c_str());
    return 0;
}

} // namespace npuscope::cli
