#include "model/store/input_problems.h"

namespace npuscope {

namespace {

std::string located(const Diagnostic& d)
{
    std::string where;
    if (d.line >= 0)
        where = "line " + std::to_string(d.line) + ": ";
    else if (d.byteOffset >= 0)
        where = "byte " + std::to_string(d.byteOffset) + ": ";
    return where + d.reason;
}

// The file's own note, else its most severe diagnostic (the first of those).
std::string reasonFor(const FileRecord& f, const std::vector<Diagnostic>& diagnostics)
{
    if (!f.note.empty() && f.status == FileStatus::Failed)
        return f.note;
    const Diagnostic* best = nullptr;
    for (const auto& d : diagnostics)
        if (d.file == f.path && d.severity != Severity::Info && (!best || d.severity > best->severity))
            best = &d;
    if (best)
        return located(*best);
    if (!f.note.empty())
        return f.note;
    return f.status == FileStatus::Partial ? "read in part" : "not read";
}

void collect(int rank, const std::vector<FileRecord>& files, const std::vector<Diagnostic>& diagnostics,
             std::vector<InputProblem>& out)
{
    for (const auto& f : files) {
        const bool problem = f.status == FileStatus::Partial || f.status == FileStatus::Failed || f.skipped > 0;
        if (!problem)
            continue;
        InputProblem p;
        p.rank = rank;
        p.file = f.path;
        p.status = f.status == FileStatus::Failed ? "failed" : "partial";
        p.reason = reasonFor(f, diagnostics);
        p.skipped = f.skipped;
        out.push_back(std::move(p));
    }
}

} // namespace

std::vector<InputProblem> inputProblems(const Session& s)
{
    std::vector<InputProblem> out;
    for (const auto& r : s.ranks)
        collect(r->rank, r->files, r->diagnostics, out);
    collect(-1, s.files, s.diagnostics, out);
    return out;
}

std::string describe(const InputProblem& p)
{
    std::string out = p.file + ": " + p.status;
    if (p.skipped > 0)
        out += ", " + std::to_string(p.skipped) + (p.skipped == 1 ? " record skipped" : " records skipped");
    if (!p.reason.empty())
        out += ": " + p.reason;
    return out;
}

std::string incompleteInputHeadline(std::size_t files)
{
    if (files == 0)
        return {};
    return "Incomplete input: " + std::to_string(files) + (files == 1 ? " file was" : " files were")
           + " read in part or not at all. The numbers cover only what was read.";
}

nlohmann::ordered_json toJson(const std::vector<InputProblem>& problems)
{
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& p : problems) {
        nlohmann::ordered_json j;
        j["rank"] = p.rank >= 0 ? nlohmann::ordered_json(p.rank) : nlohmann::ordered_json(nullptr);
        j["file"] = p.file;
        j["status"] = p.status;
        j["skipped"] = p.skipped;
        j["reason"] = p.reason;
        out.push_back(std::move(j));
    }
    return out;
}

} // namespace npuscope
