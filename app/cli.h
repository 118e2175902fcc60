#pragma once
// The command-line verbs; each lives in its own cli_<verb>.cpp. args excludes the verb itself.
// Return the process exit code: 0 ok, 1 input problem (message on stderr names file and why),
// 2 usage error (with a hint).
#include "model/formats/loader.h"
#include "model/store/input_problems.h"

#include <memory>
#include <string>
#include <vector>

namespace npuscope::cli {

using Args = std::vector<std::string>;

int info(const Args& args);     // cli_info.cpp
int analyze(const Args& args);  // cli_analyze.cpp
// The names `analyze --metric` takes, in the order of its table, joined by `separator`.
std::string metricNames(const char* separator); // cli_analyze.cpp
int advise(const Args& args);   // cli_advise.cpp
int compare(const Args& args);  // cli_compare.cpp
int synth(const Args& args);    // cli_synth.cpp
int bench(const Args& args);    // cli_bench.cpp
int cache(const Args& args);    // cli_cache.cpp
int clusterSummary(const Args& args); // cli_cluster_summary.cpp
int whatif(const Args& args);   // cli_whatif.cpp
// Prints to stderr and returns true when --help/-h is among args (verb-level help).
bool wantsHelp(const Args& args);
// Never silently partial: one warning line per file read in part or not at all, on stderr
// ("npuscope VERB: warning: FILE: partial, 3 records skipped: line 12: ..."), printed safely.
std::vector<InputProblem> warnInputProblems(const std::string& verb, const Session& s);
// "npuscope VERB: MESSAGE" on stderr, with control characters and invalid UTF-8 made safe.
void printError(const std::string& verb, const std::string& message);
// "text" / "db" for --prefer; false for anything else.
bool parsePrefer(const std::string& value, Prefer& out);
// Opens `paths` for `verb` (openSessions: a summary file, a folder, several), through the session
// cache unless `useCache` is false (--no-cache). Why a cached copy was not used, or could not be
// written, goes to stderr as a note; the first of those also into *cacheNote when given.
LoadResult loadForVerb(const char* verb, const std::vector<std::string>& paths, const LoadOptions& options,
                       bool useCache, std::string* cacheNote = nullptr);
// A --run value: a run number from 1 up; false for anything else.
bool parseRun(const std::string& value, std::size_t& out);
// The runs found below a folder, one line each: number, layout, ranks, size, date, folder.
std::string runList(const std::vector<layout::RunInfo>& runs);

} // namespace npuscope::cli
