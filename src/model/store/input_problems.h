#pragma once
// What of the input was not fully read, one entry per file: a file read in part (rows or events
// skipped, or cut short) or not read at all because of an error. Every verb and report shows
// this list, so a result computed from half a run never looks like one from the whole run.
// Files ignored by choice (unknown kinds, the text export when the SQLite one is read) are not
// problems: `info` lists them with their reason.
#include "model/store/session.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace npuscope {

struct InputProblem {
    int rank = -1;              // -1: a cluster-level file, or the rank is not known
    std::string file;           // path as the loader saw it (byte-exact)
    std::string status;         // "partial" or "failed"
    std::string reason;         // the file's note, or its first diagnostic with location
    std::uint64_t skipped = 0;  // rows or events skipped
};

std::vector<InputProblem> inputProblems(const Session& s);
// "FILE: partial, 3 records skipped: line 12: bad number" (raw bytes: quote with the writer's
// text policy).
std::string describe(const InputProblem& p);
// "Incomplete input: 2 files were read in part or not at all. The numbers cover only what was
// read." The one line every report and verb opens its list with ("" for n = 0).
std::string incompleteInputHeadline(std::size_t files);
// [{"rank", "file", "status", "skipped", "reason"}, ...]: the JSON outputs' input_problems.
nlohmann::ordered_json toJson(const std::vector<InputProblem>& problems);

} // namespace npuscope
