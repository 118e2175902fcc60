// The runs in a plan (ranks kept in one job folder) and a plan cut to one of them.
#include "model/formats/layout_internal.h"

#include <sys/stat.h>

#include <filesystem>
#include <map>

namespace npuscope::layout {

using namespace detail;

namespace fs = std::filesystem;

namespace {

// The folder a rank's job is kept in: the folder holding the rank folder, or the one above
// when each rank sits in a wrapper of its own (rank_0/, node1/, 3/).
std::string jobFolder(const std::string& planRoot, const RankPlan& r)
{
    const fs::path root = fs::path(r.root).lexically_normal();
    fs::path top = fs::path(planRoot).lexically_normal();
    if (top.filename().empty() && top.has_parent_path())
        top = top.parent_path();
    if (root == top || r.root == planRoot || !root.has_parent_path())
        return r.root;
    fs::path parent = root.parent_path();
    const std::string name = lower(parent.filename().string());
    std::size_t digits = 0;
    while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[name.size() - 1 - digits])))
        ++digits;
    const std::string head = name.substr(0, name.size() - digits);
    const bool wrapper = digits > 0
                         && (head.empty() || head == "rank" || head == "rank_" || head == "rank-" || head == "node"
                             || head == "node_" || head == "node-" || head == "worker" || head == "worker_");
    if (wrapper && parent != top && parent.has_parent_path())
        parent = parent.parent_path();
    return parent.string();
}

bool under(const std::string& path, const std::string& folder)
{
    if (path == folder)
        return true;
    if (path.size() <= folder.size() || path.compare(0, folder.size(), folder) != 0)
        return false;
    return path[folder.size()] == '/' || (!folder.empty() && folder.back() == '/');
}

} // namespace

std::string detail::sessionLayout(const std::vector<RankPlan>& ranks)
{
    if (ranks.size() == 1)
        return ranks.front().layout;
    if (ranks.empty())
        return "cluster files";
    std::string common = ranks.front().layout;
    for (const auto& r : ranks)
        if (r.layout != common)
            common = "mixed";
    return "cluster (" + std::to_string(ranks.size()) + " ranks, " + common + ")";
}

std::vector<RunInfo> listRuns(const Plan& plan)
{
    std::vector<RunInfo> runs;
    std::map<std::string, std::size_t> byFolder;
    for (std::size_t i = 0; i < plan.ranks.size(); ++i) {
        const RankPlan& r = plan.ranks[i];
        const std::string key = jobFolder(plan.root, r);
        auto [it, added] = byFolder.emplace(key, runs.size());
        if (added) {
            RunInfo run;
            run.root = key;
            runs.push_back(std::move(run));
        }
        RunInfo& run = runs[it->second];
        run.rankIndexes.push_back(i);
        ++run.ranks;
        run.bytes += r.bytesToRead();
        struct stat st {};
        if (::stat(r.root.c_str(), &st) == 0)
            run.modified = std::max<std::int64_t>(run.modified, static_cast<std::int64_t>(st.st_mtime));
    }
    for (auto& run : runs) {
        std::vector<RankPlan> ranks;
        for (std::size_t i : run.rankIndexes)
            ranks.push_back(RankPlan{plan.ranks[i].name, plan.ranks[i].root, plan.ranks[i].layout, -1, {}, {}});
        run.layout = sessionLayout(ranks);
        for (const auto& f : plan.files)
            if (f.toRead() && under(f.path, run.root))
                run.bytes += f.bytes;
    }
    std::sort(runs.begin(), runs.end(), [](const RunInfo& a, const RunInfo& b) { return a.root < b.root; });
    return runs;
}

Plan selectRun(const Plan& plan, std::size_t index)
{
    const std::vector<RunInfo> runs = listRuns(plan);
    if (index >= runs.size())
        return plan;
    const RunInfo& run = runs[index];
    Plan out;
    out.root = run.root;
    out.sqliteFiles = plan.sqliteFiles;
    for (std::size_t i : run.rankIndexes)
        out.ranks.push_back(plan.ranks[i]);
    for (const auto& f : plan.files)
        if (under(f.path, run.root))
            out.files.push_back(f);
    for (const auto& d : plan.diagnostics)
        if (under(d.file, run.root) || !under(d.file, plan.root) || d.file == plan.root)
            out.diagnostics.push_back(d);
    out.layout = sessionLayout(out.ranks);
    return out;
}

} // namespace npuscope::layout
