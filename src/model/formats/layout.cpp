#include "model/formats/layout.h"
#include "model/formats/layout_internal.h"
#include "model/formats/layout_search.h"
#include "model/store/cancellable_rows.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>

namespace npuscope::layout {

using namespace detail;

namespace fs = std::filesystem;

namespace {

constexpr const char* kRawTorchNote = "raw msprof output: ASCEND_PROFILER_OUTPUT used instead";

struct Entry {
    std::string name;
    fs::path path;
    std::uint64_t bytes = 0;
};

struct Listing {
    std::vector<Entry> files, dirs;
    std::string error;
    const Entry* dir(std::string_view name) const
    {
        for (const auto& d : dirs)
            if (d.name == name)
                return &d;
        return nullptr;
    }
};

// One readdir; sizes come from one stat per file. Sorted by name so plans are deterministic.
Listing listDir(const fs::path& dir)
{
    Listing out;
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
        out.error = ec.message();
        return out;
    }
    for (const fs::directory_iterator end; it != end; it.increment(ec)) {
        if (ec) {
            out.error = ec.message();
            break;
        }
        const fs::directory_entry& e = *it;
        Entry x;
        x.path = e.path();
        x.name = x.path.filename().string();
        std::error_code ec2;
        if (e.is_directory(ec2)) { // follows symlinks; loops are caught by the visited set
            out.dirs.push_back(std::move(x));
            continue;
        }
        const auto size = e.file_size(ec2);
        x.bytes = ec2 ? 0 : size;
        out.files.push_back(std::move(x));
    }
    auto byName = [](const Entry& a, const Entry& b) { return a.name < b.name; };
    std::sort(out.files.begin(), out.files.end(), byName);
    std::sort(out.dirs.begin(), out.dirs.end(), byName);
    return out;
}

// The folder's own name, also for "." and "..".
std::string displayName(const fs::path& dir)
{
    std::string name = dir.filename().string();
    if (name.empty() || name == "." || name == "..")
        name = fs::absolute(dir).lexically_normal().parent_path().filename().string();
    return name;
}

bool isClusterKind(FileKind k)
{
    return kindRow(k).into == ReadsInto::Cluster;
}

// Read order inside a rank (FileKindRow::order): identity and device facts first (the rank id
// and core counts are known before tables arrive), then the timeline, then tables that the join
// uses.
int kindOrder(FileKind k)
{
    return kindRow(k).order;
}

// Folders holding raw, unexported profiler data: one record for the folder, not one per file.
bool isRawFolder(std::string_view name)
{
    return name == "data" || name == "FRAMEWORK" || name == "mindstudio_profiler_log" || name == "sqlite";
}

bool isDeviceFolder(std::string_view name, int* device)
{
    if (!startsWith(name, "device_") || !allDigits(name.substr(7)))
        return false;
    *device = toInt(name.substr(7), -1);
    return true;
}

class Walker {
public:
    explicit Walker(Plan& plan, const std::atomic<bool>* cancel = nullptr, int maxFolders = kMaxFolders)
        : m_plan(plan), m_cancel(cancel), m_maxFolders(maxFolders)
    {
    }

    void scanTop(const std::string& path);

private:
    bool enter(const fs::path& dir);
    void scan(const fs::path& dir, int depth);
    void collectTorch(const fs::path& root, const Listing& listing, int depth);
    void collectMsprof(RankPlan& r, const Listing& listing, int depth);
    void collectDevice(RankPlan& r, const fs::path& dir, int device, bool exported, int depth);
    void collectTree(RankPlan& r, const fs::path& dir, int depth, int device, const std::string& ignoreNote);
    void collectFiles(RankPlan& r, const Listing& listing, int device, const std::string& ignoreNote);
    void summarise(std::vector<PlannedFile>& out, const fs::path& dir, const std::string& why);
    void addFile(RankPlan* r, const Entry& e, int device, const std::string& ignoreNote);
    void warnListing(const fs::path& dir, const std::string& error);

    Plan& m_plan;
    const std::atomic<bool>* m_cancel = nullptr;
    int m_maxFolders = kMaxFolders;
    std::set<std::pair<std::uint64_t, std::uint64_t>> m_visited;
    int m_tooDeep = 0;
    int m_folders = 0;
    bool m_capped = false;
};

bool Walker::enter(const fs::path& dir)
{
    if (isCancelled(m_cancel)) {
        m_plan.cancelled = true;
        return false;
    }
    if (m_folders >= m_maxFolders) {
        m_capped = true;
        return false;
    }
    ++m_folders;
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0)
        return true; // listing will report the reason
    const auto key = std::make_pair(static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino));
    if (!m_visited.insert(key).second) {
        m_plan.diagnostics.push_back(
            {Severity::Info, dir.string(), -1, -1, "folder already visited (symlink loop or link): skipped", 1});
        return false;
    }
    return true;
}

void Walker::warnListing(const fs::path& dir, const std::string& error)
{
    m_plan.diagnostics.push_back({Severity::Warning, dir.string(), -1, -1, "cannot list folder: " + error, 1});
}

void Walker::addFile(RankPlan* r, const Entry& e, int device, const std::string& ignoreNote)
{
    const Classification c = classifyFileName(e.name);
    PlannedFile f;
    f.path = e.path.string();
    f.kind = c.kind;
    f.kindName = c.kindName;
    f.bytes = e.bytes;
    const FileName fn = parseFileName(e.name);
    f.module = fn.module;
    f.timestamp = fn.timestamp;
    f.slice = fn.slice;
    f.device = device;
    if (c.kind == FileKind::DeviceInfo && fn.module == "info.json" && !fn.middle.empty())
        f.device = toInt(fn.middle, device);
    f.group = c.kindName + '|' + fn.module + '|' + fn.middle + '|' + std::to_string(f.device);
    const bool sqliteExport = c.row && c.row->exportKind == Export::Sqlite;
    if (c.kind == FileKind::Unknown) {
        f.status = FileStatus::Ignored;
        f.note = c.note;
        if (sqliteExport)
            ++m_plan.sqliteFiles;
    } else if (sqliteExport) {
        ++m_plan.sqliteFiles;
        if (!ignoreNote.empty()) {
            f.status = FileStatus::Ignored;
            f.note = ignoreNote;
        }
    } else if (!ignoreNote.empty()
               && !(ignoreNote == kRawTorchNote && c.kind == FileKind::DeviceInfo && !fn.middle.empty())) {
        // torch_npu writes the device facts (info.json.N) only in its raw PROF_* folder: they
        // are read from there although the rest of that folder is replaced by the export.
        f.status = FileStatus::Ignored;
        f.note = ignoreNote;
    }
    if (r && c.kind == FileKind::ProfilerInfo && r->rank < 0 && !fn.middle.empty())
        r->rank = toInt(fn.middle, -1);
    // Cluster files belong to the session wherever they sit.
    if (!r || isClusterKind(c.kind))
        m_plan.files.push_back(std::move(f));
    else
        r->files.push_back(std::move(f));
}

void Walker::summarise(std::vector<PlannedFile>& out, const fs::path& dir, const std::string& why)
{
    // Count without a stat per file: raw folders can hold tens of thousands of small files.
    std::uint64_t n = 0;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        if (it.depth() >= kMaxDepth)
            it.disable_recursion_pending();
        std::error_code ec2;
        if (!it->is_directory(ec2))
            ++n;
    }
    PlannedFile f;
    f.path = (dir / "").string();
    f.status = FileStatus::Ignored;
    f.note = why + " (" + std::to_string(n) + (n == 1 ? " file)" : " files)");
    out.push_back(std::move(f));
}

void Walker::collectFiles(RankPlan& r, const Listing& listing, int device, const std::string& ignoreNote)
{
    for (const auto& e : listing.files)
        addFile(&r, e, device, ignoreNote);
}

void Walker::collectTree(RankPlan& r, const fs::path& dir, int depth, int device, const std::string& ignoreNote)
{
    if (!enter(dir))
        return;
    const Listing listing = listDir(dir);
    if (!listing.error.empty())
        warnListing(dir, listing.error);
    collectFiles(r, listing, device, ignoreNote);
    for (const auto& d : listing.dirs) {
        if (isRawFolder(d.name))
            summarise(r.files, d.path, "raw profiler data, not read");
        else if (depth + 1 > kMaxDepth)
            ++m_tooDeep;
        else
            collectTree(r, d.path, depth + 1, device, ignoreNote);
    }
}

void Walker::collectDevice(RankPlan& r, const fs::path& dir, int device, bool exported, int depth)
{
    if (!enter(dir))
        return;
    const Listing listing = listDir(dir);
    if (!listing.error.empty())
        warnListing(dir, listing.error);
    collectFiles(r, listing, device, {});
    for (const auto& d : listing.dirs) {
        if (isRawFolder(d.name))
            summarise(r.files, d.path, "raw profiler data, not read");
        else if (depth + 1 > kMaxDepth)
            ++m_tooDeep;
        else if ((d.name == "summary" || d.name == "timeline") && exported)
            collectTree(r, d.path, depth + 1, device, "mindstudio_profiler_output used instead");
        else
            collectTree(r, d.path, depth + 1, device, {});
    }
}

void Walker::collectMsprof(RankPlan& r, const Listing& listing, int depth)
{
    const bool exported = listing.dir("mindstudio_profiler_output") != nullptr;
    bool legacy = false;
    for (const auto& d : listing.dirs) {
        int dev = -1;
        if (isDeviceFolder(d.name, &dev) || d.name == "host") {
            std::error_code ec;
            if (fs::is_directory(d.path / "summary", ec) || fs::is_directory(d.path / "timeline", ec))
                legacy = true;
        }
    }
    if (!exported && legacy)
        r.layout = "msprof-legacy";
    collectFiles(r, listing, -1, {});
    for (const auto& d : listing.dirs) {
        int dev = -1;
        if (isRawFolder(d.name))
            summarise(r.files, d.path, "raw profiler data, not read");
        else if (depth + 1 > kMaxDepth)
            ++m_tooDeep;
        else if (isDeviceFolder(d.name, &dev))
            collectDevice(r, d.path, dev, exported, depth + 1);
        else if (d.name == "host")
            collectDevice(r, d.path, -1, exported, depth + 1);
        else if ((d.name == "timeline" || d.name == "summary") && exported)
            collectTree(r, d.path, depth + 1, -1, "mindstudio_profiler_output used instead");
        else
            collectTree(r, d.path, depth + 1, -1, {});
    }
}

void Walker::collectTorch(const fs::path& root, const Listing& listing, int depth)
{
    RankPlan r;
    r.name = displayName(root);
    r.root = root.string();
    r.layout = "torch_npu";
    collectFiles(r, listing, -1, {});
    // The exported folder wins over the raw msprof folders nested beside it.
    bool outputHasData = false;
    if (const Entry* out = listing.dir("ASCEND_PROFILER_OUTPUT")) {
        for (const auto& e : listDir(out->path).files) {
            const FileKind k = classifyFileName(e.name).kind;
            if (k == FileKind::Timeline || k == FileKind::Kernels) {
                outputHasData = true;
                break;
            }
        }
    }
    for (const auto& d : listing.dirs) {
        if (isRawFolder(d.name))
            summarise(r.files, d.path, "raw profiler data, not read");
        else if (depth + 1 > kMaxDepth)
            ++m_tooDeep;
        else if (startsWith(d.name, "PROF_")) {
            if (outputHasData) {
                collectTree(r, d.path, depth + 1, -1, kRawTorchNote);
            } else if (enter(d.path)) {
                const Listing sub = listDir(d.path);
                if (!sub.error.empty())
                    warnListing(d.path, sub.error);
                collectMsprof(r, sub, depth + 1);
                r.layout = "torch_npu"; // the rank is still a torch_npu one
            }
        } else {
            collectTree(r, d.path, depth + 1, -1, {});
        }
    }
    m_plan.ranks.push_back(std::move(r));
}

bool isTorchRoot(std::string_view name, const Listing& listing)
{
    if (endsWith(name, "_ascend_pt") || endsWith(name, "_ascend_ms"))
        return true;
    if (listing.dir("ASCEND_PROFILER_OUTPUT"))
        return true;
    for (const auto& f : listing.files)
        if (classifyFileName(f.name).kind == FileKind::ProfilerInfo)
            return true;
    return false;
}

void Walker::scan(const fs::path& dir, int depth)
{
    if (!enter(dir))
        return;
    const Listing listing = listDir(dir);
    if (!listing.error.empty()) {
        if (depth == 0)
            m_plan.error = dir.string() + ": " + listing.error;
        else
            warnListing(dir, listing.error);
        return;
    }
    const std::string name = displayName(dir);
    // Inside a run the depth counts from the run's root.
    if (isTorchRoot(name, listing)) {
        collectTorch(dir, listing, 0);
        return;
    }
    if (startsWith(name, "PROF_")) {
        RankPlan r;
        r.name = name;
        r.root = dir.string();
        r.layout = "msprof";
        collectMsprof(r, listing, 0);
        m_plan.ranks.push_back(std::move(r));
        return;
    }
    // A folder holding exported files directly (an opened ASCEND_PROFILER_OUTPUT or
    // mindstudio_profiler_output, a rank_N folder of loose files) is a rank of its own.
    bool loose = false;
    std::string guess = "folder";
    for (const auto& f : listing.files) {
        const Classification c = classifyFileName(f.name);
        if (c.kind == FileKind::Unknown || isClusterKind(c.kind))
            continue;
        loose = true;
        const std::string m = parseFileName(f.name).module;
        if (m == "trace_view" || m == "kernel_details")
            guess = "torch_npu";
        else if ((m == "msprof" || m == "op_summary") && guess == "folder")
            guess = "msprof";
    }
    if (loose) {
        RankPlan r;
        r.name = name.empty() ? dir.string() : name;
        r.root = dir.string();
        r.layout = guess;
        collectFiles(r, listing, -1, {});
        m_plan.ranks.push_back(std::move(r));
    } else {
        for (const auto& f : listing.files)
            addFile(nullptr, f, -1, {});
    }
    for (const auto& d : listing.dirs) {
        if (isRawFolder(d.name))
            summarise(m_plan.files, d.path, "raw profiler data, not read");
        else if (depth + 1 > kMaxSearchDepth)
            ++m_tooDeep;
        else
            scan(d.path, depth + 1);
    }
}

// Newest timestamp wins within a group; slices read in k order; task_time only without a
// timeline JSON; a merged legacy timeline replaces the per-device ones.
void resolveRank(RankPlan& r)
{
    std::map<std::string, std::string> newest; // group -> newest timestamp
    std::map<std::string, std::string> newestName;
    auto tsLess = [](const std::string& a, const std::string& b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
    };
    for (const auto& f : r.files) {
        if (!f.toRead())
            continue;
        auto it = newest.find(f.group);
        if (it == newest.end() || tsLess(it->second, f.timestamp)) {
            newest[f.group] = f.timestamp;
            newestName[f.group] = fs::path(f.path).filename().string();
        }
    }
    for (auto& f : r.files) {
        if (!f.toRead() || f.timestamp == newest[f.group])
            continue;
        f.status = FileStatus::Ignored;
        f.note = "older than " + newestName[f.group];
        r.diagnostics.push_back({Severity::Warning, f.path, -1, -1,
                                 "several " + f.module + " exports; read the newest, " + newestName[f.group], 1});
    }
    bool hasTimeline = false, hasMergedTimeline = false, hasDeviceTimeline = false;
    for (const auto& f : r.files) {
        if (f.toRead() && f.kind == FileKind::Timeline) {
            hasTimeline = true;
            (f.device < 0 ? hasMergedTimeline : hasDeviceTimeline) = true;
        }
    }
    for (auto& f : r.files) {
        if (!f.toRead())
            continue;
        if (f.kind == FileKind::TaskTime && hasTimeline) {
            f.status = FileStatus::Ignored;
            f.note = "timeline JSON used instead";
        } else if (f.kind == FileKind::Timeline && f.device >= 0 && hasMergedTimeline && hasDeviceTimeline
                   && r.layout == "msprof-legacy") {
            f.status = FileStatus::Ignored;
            f.note = "merged timeline used instead";
        }
    }
    std::stable_sort(r.files.begin(), r.files.end(), [](const PlannedFile& a, const PlannedFile& b) {
        if (a.toRead() != b.toRead())
            return a.toRead();
        if (!a.toRead())
            return false; // ignored ones keep their discovery order
        const int ka = kindOrder(a.kind), kb = kindOrder(b.kind);
        if (ka != kb)
            return ka < kb;
        if (a.group != b.group)
            return a.group < b.group;
        return a.slice < b.slice;
    });
}

void Walker::scanTop(const std::string& path)
{
    std::error_code ec;
    fs::path p = fs::path(path).lexically_normal();
    if (p.filename().empty() && p.has_parent_path())
        p = p.parent_path(); // "level1/" names the folder "level1"
    const fs::file_status st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
        m_plan.error = path + ": " + (ec ? ec.message() : std::string("No such file or directory"));
        return;
    }
    if (fs::is_directory(st)) {
        scan(p, 0);
    } else if (fs::is_regular_file(st)) {
        Entry e;
        e.path = p;
        e.name = p.filename().string();
        const auto size = fs::file_size(p, ec);
        e.bytes = ec ? 0 : size;
        Classification c = classifyFileName(e.name);
        const FileName fn = parseFileName(e.name);
        if (c.kind == FileKind::Unknown && fn.ext == "json") {
            // Any JSON opened alone is taken as a trace; the loader sniffs the simplified format.
            c.kind = FileKind::Timeline;
            c.kindName = kindRow(FileKind::Timeline).name;
        }
        if (c.kind == FileKind::Unknown) {
            m_plan.error = path + ": " + c.note + " (expected a timeline JSON or an op_summary/kernel_details CSV)";
            return;
        }
        if (isClusterKind(c.kind)) {
            addFile(nullptr, e, -1, {});
        } else {
            RankPlan r;
            r.name = e.name;
            r.root = path;
            if (c.kind == FileKind::Timeline)
                r.layout = fn.module == "msprof" ? "msprof" : fn.module == "trace_view" ? "torch_npu" : "chrome-trace";
            else
                r.layout = fn.ext == "csv" ? "csv" : "json";
            PlannedFile f;
            f.path = path;
            f.kind = c.kind;
            f.kindName = c.kindName;
            f.module = fn.module;
            f.bytes = e.bytes;
            r.files.push_back(std::move(f));
            m_plan.ranks.push_back(std::move(r));
        }
    } else {
        m_plan.error = path + ": not a regular file or folder";
    }
    if (m_tooDeep > 0)
        m_plan.diagnostics.push_back({Severity::Info, path, -1, -1,
                                      "folders deeper than " + std::to_string(kMaxSearchDepth)
                                          + " levels below it, or " + std::to_string(kMaxDepth)
                                          + " below a run's root, not searched",
                                      static_cast<std::uint64_t>(m_tooDeep)});
    if (m_capped)
        m_plan.diagnostics.push_back({Severity::Warning, path, -1, -1,
                                      "search stopped after " + std::to_string(m_maxFolders)
                                          + " folders: runs further down were not looked for",
                                      1});
    if (m_plan.cancelled)
        m_plan.error = path + ": search cancelled";
}


void finishPlan(Plan& plan)
{
    if (plan.cancelled) {
        plan.ranks.clear();
        plan.files.clear();
        return;
    }
    for (auto& r : plan.ranks)
        resolveRank(r);
    // Several copies of a cluster file: newest timestamp wins, as for rank files.
    RankPlan cluster;
    cluster.files = std::move(plan.files);
    resolveRank(cluster);
    plan.files = std::move(cluster.files);
    plan.diagnostics.insert(plan.diagnostics.end(), cluster.diagnostics.begin(), cluster.diagnostics.end());

    bool anyRead = false;
    for (const auto& r : plan.ranks)
        for (const auto& f : r.files)
            anyRead = anyRead || f.toRead();
    for (const auto& f : plan.files)
        anyRead = anyRead || f.toRead();
    if (!anyRead) {
        if (plan.error.empty()) {
            plan.error = noDataMessage(plan.root);
            if (plan.sqliteFiles > 0)
                plan.error += "; found " + std::to_string(plan.sqliteFiles) + " SQLite file(s) of kinds not read";
        }
        plan.ranks.clear();
        return;
    }
    plan.error.clear(); // some path failed but others loaded: diagnostics say which
    // Drop ranks with nothing to read (e.g. a rank_N folder of logs only) into the session's
    // file list, so their files are still shown.
    std::vector<RankPlan> kept;
    for (auto& r : plan.ranks) {
        const bool reads = std::any_of(r.files.begin(), r.files.end(), [](const PlannedFile& f) { return f.toRead(); });
        if (reads) {
            kept.push_back(std::move(r));
        } else {
            plan.files.insert(plan.files.end(), r.files.begin(), r.files.end());
            plan.diagnostics.insert(plan.diagnostics.end(), r.diagnostics.begin(), r.diagnostics.end());
        }
    }
    plan.ranks = std::move(kept);
    plan.layout = sessionLayout(plan.ranks);
}


} // namespace


std::uint64_t RankPlan::bytesToRead() const
{
    std::uint64_t n = 0;
    for (const auto& f : files)
        if (f.toRead())
            n += f.bytes;
    return n;
}

std::uint64_t Plan::bytesToRead() const
{
    std::uint64_t n = 0;
    for (const auto& r : ranks)
        n += r.bytesToRead();
    for (const auto& f : files)
        if (f.toRead())
            n += f.bytes;
    return n;
}

std::string noDataMessage(const std::string& path)
{
    return path
        + ": no profiling data found (looked for PROF_*, *_ascend_pt, trace_view.json, msprof_*.json, "
          "kernel_details.csv, op_summary_*.csv)";
}

Plan detect(const std::string& path, const std::atomic<bool>* cancel)
{
    return detectWithin(path, cancel, kMaxFolders);
}

Plan detectWithin(const std::string& path, const std::atomic<bool>* cancel, int maxFolders)
{
    Plan plan;
    plan.root = path;
    Walker w(plan, cancel, maxFolders);
    w.scanTop(path);
    finishPlan(plan);
    return plan;
}

Plan detect(const std::vector<std::string>& paths)
{
    if (paths.size() == 1)
        return detect(paths.front());
    Plan plan;
    std::vector<std::pair<std::string, std::string>> errors; // path, message
    for (const auto& p : paths) {
        Plan one;
        one.root = p;
        Walker w(one);
        w.scanTop(p);
        if (!one.error.empty())
            errors.emplace_back(p, one.error);
        for (auto& r : one.ranks)
            plan.ranks.push_back(std::move(r));
        plan.files.insert(plan.files.end(), one.files.begin(), one.files.end());
        plan.diagnostics.insert(plan.diagnostics.end(), one.diagnostics.begin(), one.diagnostics.end());
        plan.sqliteFiles += one.sqliteFiles;
    }
    // The session root: the folder the paths share, for relative names in reports.
    if (!paths.empty()) {
        fs::path common = fs::path(paths.front()).parent_path();
        for (const auto& p : paths) {
            const fs::path pp = fs::path(p).parent_path();
            while (!common.empty() && pp.string().rfind(common.string(), 0) != 0)
                common = common.parent_path();
        }
        plan.root = common.empty() ? paths.front() : common.string();
    }
    for (const auto& [p, e] : errors)
        plan.diagnostics.push_back({Severity::Error, p, -1, -1, e, 1});
    if (plan.ranks.empty() && !errors.empty()) {
        plan.error = errors.front().second;
        for (std::size_t i = 1; i < errors.size(); ++i)
            plan.error += "; " + errors[i].second;
    }
    finishPlan(plan);
    return plan;
}

} // namespace npuscope::layout
