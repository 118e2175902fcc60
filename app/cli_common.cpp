#include "app/cli.h"
#include "app/qt_parts.h"

#include "model/cache/session_cache.h"
#include "model/cluster_summary/open_session.h"
#include "model/store/safe_text.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace npuscope::cli {

namespace {
char** g_argv = nullptr;
}

void setCommandLine(char** argv) { g_argv = argv; }

char** commandLine() { return g_argv; }

bool wantsHelp(const Args& args)
{
    for (const auto& a : args)
        if (a == "--help" || a == "-h")
            return true;
    return false;
}

std::vector<InputProblem> warnInputProblems(const std::string& verb, const Session& s)
{
    std::vector<InputProblem> problems = inputProblems(s);
    for (const auto& p : problems)
        std::fprintf(stderr, "npuscope %s: warning: %s\n", verb.c_str(), text::forTerminal(describe(p)).c_str());
    return problems;
}

void printError(const std::string& verb, const std::string& message)
{
    std::fprintf(stderr, "npuscope %s: %s\n", verb.c_str(), text::forTerminal(message).c_str());
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
        return openSessions(paths, options);
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

bool parseRun(const std::string& value, std::size_t& out)
{
    if (value.empty() || value.size() > 6 || value.find_first_not_of("0123456789") != std::string::npos)
        return false;
    out = static_cast<std::size_t>(std::stoul(value));
    return out >= 1;
}

std::string runList(const std::vector<layout::RunInfo>& runs)
{
    std::string out;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const layout::RunInfo& r = runs[i];
        char size[32];
        const double mb = static_cast<double>(r.bytes) / (1024.0 * 1024.0);
        std::snprintf(size, sizeof size, mb >= 10 ? "%.0f MB" : "%.2f MB", mb);
        char date[32] = "-";
        const std::time_t t = static_cast<std::time_t>(r.modified);
        std::tm tm {};
        if (r.modified > 0 && ::gmtime_r(&t, &tm))
            std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);
        out += "  " + std::to_string(i + 1) + ". " + r.layout + ", " + std::to_string(r.ranks)
               + (r.ranks == 1 ? " rank, " : " ranks, ") + size + ", " + date + "  " + r.root + "\n";
    }
    return out;
}

} // namespace npuscope::cli
