// Executes a layout::Plan: maps each file, hands it to its reader, finalizes and joins each
// rank, and gathers the ranks into a Session. Ranks are independent Profiles, so they load on
// a small pool of threads; files inside a rank are read in plan order (identity first).
#include "model/formats/loader.h"

#include "model/formats/layout.h"
#include "model/formats/readers.h"
#include "model/io/mapped_file.h"
#include "model/io/memory_budget.h"
#include "model/io/parallel.h"
#include "model/store/cancellable_rows.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace npuscope {

std::uint64_t LoadOptions::defaultLazyArgsFrom()
{
    if (const char* v = std::getenv("NPUSCOPE_LAZY_ARGS_FROM"); v && *v) {
        char* end = nullptr;
        const unsigned long long n = std::strtoull(v, &end, 10);
        if (end && *end == 0)
            return n;
    }
    return kLargeLoadBytes;
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kMinInterval = std::chrono::milliseconds(50); // at most 20 calls per second

// Folds byte counts from every worker into throttled LoadProgress calls. The user callback is
// called from whichever thread crosses the interval, one call at a time (under m_mutex), so it
// needs no locking of its own but must not block for long and must be safe to call off the
// GUI thread (a queued signal, an atomic store). A new stage is reported when it begins, not
// throttled: else a stage that begins within 50 ms of a report and sends no bytes (indexing,
// joining) would not be shown at all.
class ProgressSink {
public:
    explicit ProgressSink(std::function<void(const LoadProgress&)> callback) : m_callback(std::move(callback)) {}

    void setTotal(std::uint64_t totalBytes) // before any worker starts
    {
        m_total = totalBytes;
        m_totalKnown = true;
    }

    void stage(std::string text)
    {
        if (!m_callback)
            return;
        {
            std::lock_guard lock(m_stageMutex);
            m_stage = text;
        }
        emit(false, &text);
    }
    void add(std::uint64_t bytes)
    {
        if (!m_callback || bytes == 0)
            return;
        m_done.fetch_add(bytes, std::memory_order_relaxed);
        emit(false);
    }
    void finish(std::string text)
    {
        if (!m_callback)
            return;
        {
            std::lock_guard lock(m_stageMutex);
            m_stage = std::move(text);
        }
        m_finished = true;
        emit(true);
    }

private:
    // `newStage`: the stage that begins, reported as such even when another thread has begun
    // one since (the later reports of bytes name the latest).
    void emit(bool force, const std::string* newStage = nullptr)
    {
        // Workers never wait on each other for byte counts: a busy callback means "skip this
        // one". A new stage (a few per file) waits for it.
        std::unique_lock lock(m_callMutex, std::defer_lock);
        if (force || newStage)
            lock.lock();
        else if (!lock.try_lock())
            return;
        const auto now = Clock::now();
        if (!force && !newStage && m_emitted && now - m_last < kMinInterval)
            return;
        m_emitted = true;
        m_last = now;
        LoadProgress p;
        if (newStage) {
            p.stage = *newStage;
        } else {
            std::lock_guard stageLock(m_stageMutex);
            p.stage = m_stage;
        }
        const std::uint64_t done = m_done.load(std::memory_order_relaxed);
        if (m_finished)
            p.fraction = 1.0;
        else if (m_totalKnown && m_total > 0)
            p.fraction = std::min(1.0, double(done) / double(m_total));
        m_callback(p);
    }

    std::function<void(const LoadProgress&)> m_callback;
    std::uint64_t m_total = 0;
    bool m_totalKnown = false; // while scanning, the fraction stays 0
    bool m_finished = false;
    std::atomic<std::uint64_t> m_done{0};
    std::mutex m_stageMutex;
    std::string m_stage;
    std::mutex m_callMutex;
    Clock::time_point m_last{};
    bool m_emitted = false;
};

struct Env {
    const LoadOptions& options;
    ProgressSink& progress;
    std::uint64_t memoryBudget = 0; // 0: unknown, no check
    std::atomic<std::uint64_t>& memoryReserved;
    bool cancelled() const { return isCancelled(options.cancel); }

    // Reserves the heap reading `bytes` of `f` as `kind` will take (FileKindRow::heapBytes);
    // false with *why when it does not fit.
    bool reserveMemory(const layout::PlannedFile& f, const layout::FileKindRow& kind, std::string_view bytes,
                       std::string* why) const
    {
        if (memoryBudget == 0)
            return true;
        const std::uint64_t need = kind.heapBytes(bytes.size());
        const std::uint64_t before = memoryReserved.fetch_add(need);
        if (before + need <= memoryBudget)
            return true;
        memoryReserved.fetch_sub(need);
        *why = "not read: '" + f.path + "' (" + formatBytes(bytes.size()) + ") needs about " + formatBytes(need)
            + " of memory, only " + formatBytes(memoryBudget - std::min(before, memoryBudget)) + " of the "
            + formatBytes(memoryBudget) + " memory budget is left (MemAvailable, or NPUSCOPE_MEMORY_BUDGET)";
        return false;
    }
};

std::string baseName(const std::string& path)
{
    std::filesystem::path p(path);
    if (p.filename().empty())
        p = p.parent_path();
    return p.filename().string();
}

FileRecord plannedRecord(const layout::PlannedFile& f)
{
    FileRecord r;
    r.path = f.path;
    r.kind = f.kindName;
    r.roles = layout::kindRoles(f.kindName);
    r.status = f.status == FileStatus::NotRead ? FileStatus::Ignored : f.status;
    r.note = f.note;
    r.bytes = f.bytes;
    return r;
}

// Reads `bytes` of a rank's file with `kind`'s reader (the SQLite exports' from `path`).
FileRecord readRankKind(const layout::FileKindRow& kind, const std::string& path, std::string_view bytes, Profile& p,
                        const ReadContext& ctx)
{
    if (kind.readBytes)
        return kind.readBytes(bytes, p, ctx);
    if (kind.readPath)
        return kind.readPath(path, p, ctx);
    FileRecord r;
    r.status = FileStatus::Ignored;
    r.note = "no reader for this file";
    return r;
}

// How far ahead of a reader's progress the pages of its file are mapped, in files of at least
// kLargeLoadBytes: their pages are then mapped in large runs instead of one fault at a time,
// which saves system time; in small files the pages mapped ahead would raise the peak RSS.
constexpr std::uint64_t kMapAhead = 16ull << 20;

// Maps `f` and runs `read(kind, bytes, ctx)`, `kind` the row `f` is read with
// (layout::kindRowForContent); failures to open become a Failed record plus an Error diagnostic
// naming the file and the reason. Returns the record with path, kind, roles and bytes set: the
// kind is the planned one unless the content chose another.
template <typename ReadFn, typename ReportFn>
FileRecord mapAndRead(const layout::PlannedFile& f, const Env& env, ReadFn&& read, ReportFn&& report)
{
    FileRecord rec;
    std::string error;
    if (env.options.beforeRead)
        env.options.beforeRead(f.path);
    std::optional<MappedFile> mf = MappedFile::open(f.path, &error);
    const layout::FileKindRow& kind = mf ? layout::kindRowForContent(f.kind, mf->bytes()) : layout::kindRow(f.kind);
    bool readAs = false; // read, and named as, a kind its content chose
    if (!mf) {
        rec.status = FileStatus::Failed;
        rec.note = error.empty() ? "cannot open" : error;
        report(Severity::Error, rec.note);
    } else if (!env.reserveMemory(f, kind, mf->bytes(), &error)) {
        rec.status = FileStatus::Failed;
        rec.note = error;
        report(Severity::Error, rec.note);
    } else {
        ReadContext ctx;
        ctx.file = f.path;
        ctx.cancel = env.options.cancel;
        ctx.device = f.device;
        ctx.readableAfterEnd = mf->readableAfterEnd();
        ctx.lazyArgs = mf->size() >= env.options.lazyArgsFrom;
        if (mf->mapped())
            ctx.copyBytes = [&mf](std::uint64_t offset, char* to, std::size_t n) { mf->copyBytes(offset, to, n); };
        std::uint64_t reported = 0;
        const std::uint64_t ahead = mf->size() >= kLargeLoadBytes ? kMapAhead : 0;
        mf->mapAhead(0, ahead);
        ctx.progress = [&](std::uint64_t done) {
            mf->dropPagesBefore(done); // read front to back: what is behind is done with
            mf->mapAhead(done, ahead);
            if (done > reported) {
                env.progress.add(done - reported);
                reported = done;
            }
        };
        try {
            rec = read(kind, mf->bytes(), ctx);
            readAs = kind.kind != f.kind;
        } catch (const std::exception& e) {
            // Readers do not throw on bad input; this is out-of-memory or a bug: keep going.
            rec.status = FileStatus::Failed;
            rec.note = std::string("read failed: ") + e.what();
            report(Severity::Error, rec.note);
        }
        if (f.bytes > reported)
            env.progress.add(f.bytes - reported);
        if (const std::int64_t at = mf->shrankAt(); at >= 0) {
            // The reader saw zeros (a mapped file) or an early end (a read one) from `at` on.
            const std::string note = "the file shrank while it was being read: bytes from offset " +
                                     std::to_string(at) + " on were gone; what came before was kept";
            report(Severity::Error, note);
            rec.note = rec.note.empty() ? note : rec.note + "; " + note;
        }
    }
    rec.path = f.path;
    rec.kind = readAs ? std::string(kind.name) : f.kindName;
    rec.roles = readAs ? kind.roles : layout::kindRoles(f.kindName);
    rec.bytes = mf ? mf->size() : f.bytes;
    return rec;
}

void collectDevices(Profile& p)
{
    std::set<int> devices;
    for (const auto& t : p.tracks)
        if (t.device >= 0)
            devices.insert(t.device);
    for (int d : p.kernels.device)
        if (d >= 0)
            devices.insert(d);
    for (const auto& i : p.deviceInfo)
        if (i.device >= 0)
            devices.insert(i.device);
    p.devices.assign(devices.begin(), devices.end());
}

std::string rankLabel(const Profile& p)
{
    return p.rank >= 0 ? " (rank " + std::to_string(p.rank) + ")" : " (" + p.name + ")";
}

// A cancelled rank's memory (a gigabyte for a large trace) is given back on a thread of its own:
// unmapping it takes longer than the cancel may, and nobody waits for it. `side` and `apart` hold
// the tables read beside the timeline, when they were not merged yet.
std::shared_ptr<Profile> discard(std::shared_ptr<Profile> p, Profile side = {},
                                 std::vector<std::unique_ptr<Profile>> apart = {})
{
    std::thread([p = std::move(p), side = std::move(side), apart = std::move(apart)]() mutable {
        p.reset();
        side = Profile();
        apart.clear();
        releaseFreeHeap();
    }).detach();
    return nullptr;
}

// Which export a rank folder is read from: text when both exist (unless --prefer db), the
// SQLite export when it is alone.
struct ExportChoice {
    bool hasText = false;
    bool useDb = false;
};

ExportChoice chooseExport(const layout::RankPlan& plan, Prefer prefer)
{
    ExportChoice e;
    bool hasDb = false;
    for (const auto& f : plan.files) {
        if (!f.toRead())
            continue;
        e.hasText = e.hasText || f.kind == layout::FileKind::Timeline || f.kind == layout::FileKind::Kernels;
        hasDb = hasDb || f.kind == layout::FileKind::ProfilerDb;
    }
    e.useDb = hasDb && (prefer == Prefer::Db || (prefer == Prefer::Auto && !e.hasText));
    return e;
}

// A rank's reads: records in plan order (those of files not read filled in already), the files
// to read on this thread and on the side thread.
struct RankReads {
    std::vector<std::optional<FileRecord>> records;
    std::vector<std::size_t> mainFiles, sideFiles;
    bool parallel = false;  // side files on a thread of their own, while the timeline is read
    bool largeLoad = false; // at least kLargeLoadBytes to read
};

RankReads planReads(const layout::RankPlan& plan, bool useDb, const Env& env)
{
    RankReads r;
    r.records.resize(plan.files.size());
    bool hasTimeline = false;
    for (std::size_t i = 0; i < plan.files.size(); ++i) {
        const auto& f = plan.files[i];
        const layout::Export exported = layout::kindRow(f.kind).exportKind;
        if (f.toRead()
            && ((useDb && exported == layout::Export::Text) || (!useDb && exported == layout::Export::Sqlite))) {
            layout::PlannedFile skipped = f;
            skipped.status = FileStatus::Ignored;
            skipped.note = useDb ? "SQLite export read instead (--prefer text reads this file)"
                                 : "text export read instead (--prefer db reads the SQLite export)";
            r.records[i] = plannedRecord(skipped);
            env.progress.add(f.bytes);
        } else if (!f.toRead()) {
            r.records[i] = plannedRecord(f);
        } else {
            const bool side = layout::kindRow(f.kind).into == layout::ReadsInto::SideTables;
            (side ? r.sideFiles : r.mainFiles).push_back(i);
            hasTimeline = hasTimeline || f.kind == layout::FileKind::Timeline;
        }
    }
    r.parallel = hasTimeline && !r.sideFiles.empty() && std::thread::hardware_concurrency() > 1;
    if (!r.parallel) {
        r.mainFiles.insert(r.mainFiles.end(), r.sideFiles.begin(), r.sideFiles.end());
        std::sort(r.mainFiles.begin(), r.mainFiles.end());
        r.sideFiles.clear();
    }
    // In small loads (under kLargeLoadBytes), the communication files are read first: their
    // parse holds about 5x their size (simdjson's index and the tree) for a moment, and that
    // moment comes before the kernel table and the timeline have grown instead of at the end,
    // on top of them, which lowers the peak. Larger loads read them last: read first, they
    // slow down the timeline's finalize() (and the peak of a large load is well under the
    // JSON's size either way).
    r.largeLoad = plan.bytesToRead() >= kLargeLoadBytes;
    if (!r.largeLoad)
        std::stable_partition(r.sideFiles.begin(), r.sideFiles.end(), [&](std::size_t i) {
            return plan.files[i].kind == layout::FileKind::Communication
                   || plan.files[i].kind == layout::FileKind::CommunicationMatrix;
        });
    return r;
}

// Reads one planned file of a rank into `sink`; its record, with strings cut to the pool's
// limit named.
FileRecord readRankFile(const layout::PlannedFile& f, Profile& sink, const Env& env, const std::string& label,
                        int plannedRank)
{
    env.progress.stage("Reading " + baseName(f.path) + label);
    const std::size_t cutBefore = sink.strings.cutStrings();
    FileRecord rec = mapAndRead(
        f, env,
        [&](const layout::FileKindRow& kind, std::string_view bytes, const ReadContext& ctx) {
            return readRankKind(kind, f.path, bytes, sink, ctx);
        },
        [&](Severity s, const std::string& why) { sink.report(s, f.path, -1, -1, why); });
    if (const std::size_t cut = sink.strings.cutStrings() - cutBefore; cut > 0) {
        const std::string why = std::to_string(cut) + (cut == 1 ? " string" : " strings") + " longer than "
                                + std::to_string(StringPool::kMaxTextBytes >> 20) + " MiB cut to "
                                + std::to_string(StringPool::kMaxTextBytes >> 20) + " MiB";
        sink.report(Severity::Warning, f.path, -1, -1, why);
        if (rec.status == FileStatus::Loaded)
            rec.status = FileStatus::Partial;
        rec.note += (rec.note.empty() ? "" : "; ") + why;
    }
    // A profiler_info without a usable rank_id (single-device runs write -1) keeps the
    // rank named by the file, profiler_info_<N>.json.
    if (f.kind == layout::FileKind::ProfilerInfo && sink.rank < 0)
        sink.rank = plannedRank;
    return rec;
}

// The side files not begun yet, as positions in RankReads::sideFiles. The side thread takes them
// from the front; the timeline's thread, once its timeline is read and finalized, takes those it
// may read apart from the back, so that both cores stay busy until the last side file is read
// (the dense profiles' communication files and operator_details.csv kept one core idle for a
// third of their load). The side thread's files are so a prefix of the list, the other thread's
// a suffix.
class SideQueue {
public:
    explicit SideQueue(std::size_t files) : m_end(files) {}

    std::optional<std::size_t> front()
    {
        std::lock_guard lock(m_mutex);
        if (m_next >= m_end)
            return std::nullopt;
        return m_next++;
    }
    template <typename Pred>
    std::optional<std::size_t> back(Pred&& apart)
    {
        std::lock_guard lock(m_mutex);
        if (m_next >= m_end || !apart(m_end - 1))
            return std::nullopt;
        return --m_end;
    }

private:
    std::mutex m_mutex;
    std::size_t m_next = 0, m_end;
};

// The side thread's work: the side files into `side`, in order, until `queue` is empty.
void readSideFiles(const layout::RankPlan& plan, RankReads& reads, SideQueue& queue, Profile& side, const Env& env,
                   const std::string& label)
{
    const auto& sideFiles = reads.sideFiles;
    while (!env.cancelled()) {
        const std::optional<std::size_t> next = queue.front();
        if (!next)
            break;
        const std::size_t n = *next;
        reads.records[sideFiles[n]] = readRankFile(plan.files[sideFiles[n]], side, env, label, plan.rank);
        // The kernel table is complete after its last slice: compacted (lookup indexes
        // freed) before the other side files are read. Kernel files are never read apart.
        const auto kindOf = [&](std::size_t k) { return plan.files[sideFiles[k]].kind; };
        if (!env.cancelled() && kindOf(n) == layout::FileKind::Kernels
            && (n + 1 == sideFiles.size() || kindOf(n + 1) != layout::FileKind::Kernels))
            side.kernels.compactMetrics();
    }
    // What the side files freed (the communication files' trees, read last in a large load, and
    // the kernel rows' keys) stays in the heap, where the timeline's remaining growth and its
    // finalize() reuse it instead of faulting in fresh pages. Given back here instead, the 10 GB
    // profile's load took about 1 s longer (17.4 against 16.5 s, median of 3 alternating runs)
    // for a peak only 50-80 MB (1 %) lower. A cancelled load's memory is released by discard()
    // once freed.
}

// The timeline's thread, its own work done: the side files left at the back of `queue` that
// may be read apart, each into its own Profile in `apart` (by position in sideFiles).
void readSideFilesApart(const layout::RankPlan& plan, RankReads& reads, SideQueue& queue,
                        std::vector<std::unique_ptr<Profile>>& apart, const Env& env, const std::string& label)
{
    const auto& sideFiles = reads.sideFiles;
    while (!env.cancelled()) {
        const std::optional<std::size_t> next =
            queue.back([&](std::size_t k) { return layout::kindRow(plan.files[sideFiles[k]].kind).readableApart; });
        if (!next)
            break;
        auto own = std::make_unique<Profile>(); // rank -1: absorbing it leaves the side's rank as it is
        reads.records[sideFiles[*next]] = readRankFile(plan.files[sideFiles[*next]], *own, env, label, plan.rank);
        apart[*next] = std::move(own);
    }
}

// finalize() run while the side thread was still reading: the range of diagnostics it added.
struct EarlyIndex {
    bool done = false;
    std::size_t diagnosticsBefore = 0, diagnostics = 0;
};

// The rank once every file is read: records in plan order, finalized (unless done early),
// joined (through `kernelIndex` when built ahead), its devices known. Null when the load was
// cancelled.
std::shared_ptr<Profile> completeRank(std::shared_ptr<Profile> p, RankReads& reads, const ExportChoice& exp,
                                      const EarlyIndex& early, const Env& env, const std::string& label,
                                      const readers::KernelJoinIndex* kernelIndex = nullptr)
{
    // Kernel rows read on this thread (SQLite export, simplified JSON) or merged from both;
    // columns the side thread compacted and moved in whole are left as they are.
    p->kernels.compactMetrics();
    if (exp.useDb)
        readers::deriveCubeUtilization(*p);
    // The export read, whatever profiler_info's config listed (it may say ["text", "db"]).
    if (exp.useDb)
        p->meta.exportType = "db";
    else if (exp.hasText)
        p->meta.exportType = "text";
    for (auto& r : reads.records)
        if (r)
            p->files.push_back(std::move(*r));
    if (early.done) {
        // finalize()'s reports follow the side files' ones, as when it runs after them.
        const auto at = p->diagnostics.begin() + static_cast<std::ptrdiff_t>(early.diagnosticsBefore);
        std::rotate(at, at + static_cast<std::ptrdiff_t>(early.diagnostics), p->diagnostics.end());
    }
    // Without slices, the span comes from the kernel rows, which only now are in.
    if (!early.done || p->slices.size() == 0) {
        env.progress.stage("Indexing" + label);
        p->finalize(env.options.cancel);
    }
    if (env.cancelled())
        return discard(std::move(p));
    if (p->slices.size() > 0 && p->kernels.size() > 0) {
        env.progress.stage("Joining" + label);
        if (!readers::joinKernels(*p, env.options.cancel, kernelIndex))
            return discard(std::move(p));
    }
    collectDevices(*p);
    // kernel_details has no Device_id column (torch_npu): its rows ran on the rank's device, the
    // one the SQLite export names on every row; filled when the profile has exactly one.
    if (p->devices.size() == 1
        && std::none_of(p->kernels.device.begin(), p->kernels.device.end(), [](int d) { return d >= 0; }))
        std::fill(p->kernels.device.begin(), p->kernels.device.end(), p->devices.front());
    if (p->name.empty())
        p->name = p->rank >= 0 ? "rank " + std::to_string(p->rank) : baseName(p->root);
    return p;
}

std::shared_ptr<Profile> loadRank(const layout::RankPlan& plan, const Env& env)
{
    auto p = std::make_shared<Profile>();
    p->name = plan.name.empty() && plan.rank >= 0 ? "rank " + std::to_string(plan.rank) : plan.name;
    p->root = plan.root;
    p->layout = plan.layout;
    p->rank = plan.rank;
    p->diagnostics = plan.diagnostics;
    const std::string label = rankLabel(*p);
    const ExportChoice exp = chooseExport(plan, env.options.prefer);
    RankReads reads = planReads(plan, exp.useDb, env);

    Profile side;
    side.rank = plan.rank;
    SideQueue queue(reads.sideFiles.size());
    std::vector<std::unique_ptr<Profile>> apart(reads.sideFiles.size());
    EarlyIndex early;
    std::shared_ptr<const readers::KernelJoinIndex> kernelIndex;
    {
        std::jthread worker;
        if (reads.parallel)
            worker = std::jthread([&] {
                readSideFiles(plan, reads, queue, side, env, label);
                // The join's index of the kernel rows, built while the timeline is still read or
                // indexed (a core is free then, not once the join runs); the rows move into the
                // rank's table as they are.
                if (!env.cancelled() && side.kernels.size() > 0)
                    kernelIndex = readers::kernelJoinIndex(side.kernels, env.options.cancel);
            });
        for (std::size_t i : reads.mainFiles) {
            if (env.cancelled())
                break;
            reads.records[i] = readRankFile(plan.files[i], *p, env, label, plan.rank);
        }
        // The timeline is indexed while the side thread may still be reading: finalize() sorts
        // and binds slices, flows and counters, which the side files do not touch, and its serial
        // parts then share the CPU with them instead of running after them with a core idle.
        if (reads.parallel && !env.cancelled()) {
            env.progress.stage("Indexing" + label);
            early.diagnosticsBefore = p->diagnostics.size();
            p->finalize(env.options.cancel);
            early.diagnostics = p->diagnostics.size() - early.diagnosticsBefore;
            early.done = true;
            readSideFilesApart(plan, reads, queue, apart, env, label);
        }
    } // joins the worker
    if (env.cancelled())
        return discard(std::move(p), std::move(side), std::move(apart));
    if (reads.parallel) {
        // The files read apart follow the side thread's in plan order: absorbed into its tables
        // first, the rank's tables, string ids and diagnostics come out as from one thread.
        for (auto& own : apart)
            if (own && !side.absorbSideTables(std::move(*own), env.options.cancel))
                return discard(std::move(p), std::move(side), std::move(apart));
        apart.clear();
        const int sideRank = side.rank;
        if (!p->absorbSideTables(std::move(side), env.options.cancel))
            return discard(std::move(p), std::move(side)); // the rest of the side tables go with it
        p->rank = sideRank;
    }
    // The index holds row numbers: the join takes it only when the side thread's rows are all the
    // kernel rows (the same count).
    return completeRank(std::move(p), reads, exp, early, env, label, kernelIndex.get());
}

void readClusterFiles(const layout::Plan& plan, Session& s, const Env& env)
{
    for (const auto& f : plan.files) {
        if (!f.toRead()) {
            s.files.push_back(plannedRecord(f));
            continue;
        }
        if (env.cancelled())
            return;
        env.progress.stage("Reading " + baseName(f.path) + " (cluster)");
        FileRecord rec = mapAndRead(
            f, env,
            [&](const layout::FileKindRow& kind, std::string_view bytes, const ReadContext& ctx) {
                if (kind.readCluster)
                    return kind.readCluster(bytes, s.cluster, s.diagnostics, ctx);
                FileRecord r;
                r.status = FileStatus::Ignored;
                r.note = "not a cluster file";
                return r;
            },
            [&](Severity sev, const std::string& why) { s.diagnostics.push_back({sev, f.path, -1, -1, why, 1}); });
        s.files.push_back(std::move(rec));
    }
}

bool anythingLoaded(const Session& s)
{
    for (const auto& r : s.ranks)
        if (std::any_of(r->files.begin(), r->files.end(), wasRead))
            return true;
    return s.cluster.present();
}

// The first failure, for an error message when nothing at all could be read.
std::string firstFailure(const Session& s)
{
    // The message names the file: a reader's note may not.
    auto named = [](const FileRecord& f) {
        if (f.note.empty())
            return f.path + ": failed";
        return f.note.find(f.path) == std::string::npos ? f.path + ": " + f.note : f.note;
    };
    for (const auto& r : s.ranks)
        for (const auto& f : r->files)
            if (f.status == FileStatus::Failed)
                return named(f);
    for (const auto& f : s.files)
        if (f.status == FileStatus::Failed)
            return named(f);
    return {};
}

LoadResult loadPlan(const layout::Plan& plan, const LoadOptions& options, ProgressSink& progress)
{
    const LoadAllocationScope allocation(plan.bytesToRead());
    LoadResult result;
    if (!plan.error.empty()) {
        result.error = plan.error;
        return result;
    }
    progress.setTotal(plan.bytesToRead());
    std::atomic<std::uint64_t> memoryReserved{0};
    const Env env{options, progress, options.memoryBudget ? options.memoryBudget : memoryBudgetBytes().value_or(0),
                  memoryReserved};

    auto session = std::make_shared<Session>();
    session->root = plan.root;
    session->layout = plan.layout;
    session->source = "text";
    session->diagnostics = plan.diagnostics;

    std::vector<std::shared_ptr<Profile>> profiles(plan.ranks.size());
    std::vector<std::string> failures(plan.ranks.size());
    parallelFor(plan.ranks.size(), options.threads, [&](std::size_t i) {
        if (env.cancelled())
            return;
        try {
            profiles[i] = loadRank(plan.ranks[i], env);
        } catch (const std::exception& e) {
            failures[i] = plan.ranks[i].root + ": " + e.what();
        }
    });
    if (!env.cancelled())
        readClusterFiles(plan, *session, env);
    if (env.cancelled()) {
        result.cancelled = true;
        result.error = "cancelled";
        return result; // profiles and session are freed here
    }

    for (std::size_t i = 0; i < profiles.size(); ++i) {
        if (profiles[i] && profiles[i]->meta.exportType == "db")
            session->source = "db";
        if (profiles[i])
            session->ranks.push_back(std::move(profiles[i]));
        else if (!failures[i].empty())
            session->diagnostics.push_back({Severity::Error, plan.ranks[i].root, -1, -1, failures[i], 1});
    }
    // Known rank ids first, in order; then unnamed ranks by name.
    std::sort(session->ranks.begin(), session->ranks.end(), [](const ProfilePtr& a, const ProfilePtr& b) {
        const bool ka = a->rank >= 0, kb = b->rank >= 0;
        if (ka != kb)
            return ka;
        if (a->rank != b->rank)
            return a->rank < b->rank;
        return a->name < b->name;
    });
    // Parallel groups are the same in every rank's profiler_metadata.json: keep one copy each.
    std::set<std::pair<std::string, std::string>> seenGroups;
    for (const auto& r : session->ranks)
        for (const auto& g : r->meta.groups)
            if (seenGroups.insert({g.name, g.groupName}).second)
                session->cluster.groups.push_back(g);
    if (session->ranks.size() == 1)
        session->layout = session->ranks.front()->layout; // e.g. "simplified JSON", known after sniffing

    if (!anythingLoaded(*session)) {
        const std::string why = firstFailure(*session);
        result.error = plan.root + ": nothing could be loaded" + (why.empty() ? std::string() : " (" + why + ")");
        return result;
    }
    progress.finish("Done");
    result.session = std::move(session);
    return result;
}

} // namespace

LoadResult loadSession(const std::string& path, const LoadOptions& options)
{
    ProgressSink progress(options.progress);
    progress.stage("Scanning");
    layout::Plan plan = layout::detect(path, options.cancel);
    if (plan.cancelled)
        return LoadResult{nullptr, true, "cancelled", {}};
    std::vector<layout::RunInfo> runs = layout::listRuns(plan);
    if (runs.size() > 1) {
        if (options.run == 0 || options.run > runs.size()) {
            LoadResult r;
            r.error = path + ": " + std::to_string(runs.size()) + " unrelated runs found below it; "
                      + (options.run == 0 ? "choose one" : "there is no run " + std::to_string(options.run));
            r.runs = std::move(runs);
            return r;
        }
        plan = layout::selectRun(plan, options.run - 1);
    } else if (options.run > 1) {
        return LoadResult{nullptr, false, path + ": there is no run " + std::to_string(options.run) + " (one run found)", {}};
    }
    LoadResult result = loadPlan(plan, options, progress);
    if (runs.size() > 1)
        result.runs = std::move(runs);
    return result;
}

LoadResult loadSessions(const std::vector<std::string>& paths, const LoadOptions& options)
{
    if (paths.empty())
        return LoadResult{nullptr, false, "no path given", {}};
    if (paths.size() == 1)
        return loadSession(paths.front(), options); // runs below a folder are chosen there
    ProgressSink progress(options.progress);
    progress.stage("Scanning");
    return loadPlan(layout::detect(paths), options, progress);
}

} // namespace npuscope
