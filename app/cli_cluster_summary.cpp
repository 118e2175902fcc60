// `npuscope cluster-summary ROOT -o SUMMARY`: every rank folder reduced to a compact summary,
// gathered into one file (docs/CLUSTER-SUMMARY.md). Under mpirun (a build with NPUSCOPE_MPI)
// each process reads its share of the folders; alone, one process reads them all with a pool
// of threads. Either way each folder goes through the same load and the same reduction.
#include "app/cli.h"
#include "app/cluster_world.h"

#include "advisor/cluster_summary_advice.h"
#include "model/analysis/atomic_file.h"
#include "model/cluster_summary/cluster_summary.h"
#include "model/cluster_summary/summary_clock.h"
#include "model/cluster_summary/summary_late.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <variant>

namespace npuscope::cli {

namespace {

namespace cs = cluster_summary;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

void summaryUsage(std::FILE* out)
{
    std::fputs(
        "Usage: npuscope cluster-summary ROOT -o SUMMARY [options]\n"
        "       mpirun -np P npuscope cluster-summary ROOT -o SUMMARY [options]\n"
        "\n"
        "Reduces every rank folder under ROOT to a compact summary (step breakdown, op-type\n"
        "aggregates, communication totals, advisor findings, stream overview), runs the\n"
        "cluster analysis over all ranks and writes one summary file (written atomically).\n"
        "Under mpirun each process reads its share of the folders, balanced by bytes.\n"
        "\n"
        "Options:\n"
        "  -o, --output FILE     the summary file to write (required); a name ending in .gz is\n"
        "                        written gzip-compressed (every reader takes both)\n"
        "  --ranks-from FILE     read the rank folders listed in FILE (one a line, relative to ROOT)\n"
        "                        instead of searching ROOT\n"
        "  --threads N           folders loaded at once per process (default: the cores, 1 under mpirun)\n"
        "  --timeout SEC         give up on a folder after SEC seconds (listed as failed); 0 = none (default)\n"
        "  --buckets N           overview buckets per stream (default 4096)\n"
        "  --advisor-config FILE thresholds override file\n"
        "  --quiet               no progress on stderr\n"
        "\n"
        "Exit codes: 0 written (failed folders are listed in it), 1 input problem or nothing loaded,\n"
        "2 usage.\n",
        out);
    std::fputs(ClusterWorld::builtWithMpi() ? "This build runs under mpirun (Open MPI).\n"
                                            : "This build has no MPI: one process and its threads.\n",
               out);
}

int usageError(const std::string& msg)
{
    std::fprintf(stderr, "npuscope cluster-summary: %s\nTry 'npuscope cluster-summary --help'.\n", msg.c_str());
    return 2;
}

template <typename T>
bool parseNumber(const std::string& s, T& out)
{
    auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

struct SummaryOptions {
    std::string root, output, ranksFrom, config;
    unsigned threads = 0;
    double timeoutS = 0;
    int buckets = cs::kDefaultBuckets;
    bool quiet = false;
};

// One folder: loaded, reduced, advised. Results are JSON values in a list (a folder may hold
// several ranks), or one failure.
std::vector<json> summariseFolder(const cs::RankFolder& folder, const SummaryOptions& o, const advisor::Thresholds& th,
                                  const std::atomic<bool>* cancel, unsigned loadThreads)
{
    LoadOptions lo;
    lo.cancel = cancel;
    lo.threads = loadThreads;
    // Fault injection for the tests of --timeout (docs/CLUSTER-SUMMARY.md): the folder's first
    // read blocks for good, as on a dead network mount, deaf to cancellation.
    if (const char* stall = std::getenv("NPUSCOPE_CLUSTER_SUMMARY_STALL");
        stall && *stall && folder.path.find(stall) != std::string::npos)
        lo.beforeRead = [](const std::string&) {
            for (;;)
                std::this_thread::sleep_for(std::chrono::hours(1));
        };
    const LoadResult loaded = loadSession(folder.path, lo);
    if (loaded.cancelled)
        return {cs::failedRank(folder, "timed out after " + std::to_string(static_cast<long long>(o.timeoutS)) + " s reading "
                                           + folder.path)};
    if (!loaded.session || loaded.session->ranks.empty())
        return {cs::failedRank(folder, loaded.error.empty() ? "no profiling data found in " + folder.path : loaded.error)};
    std::vector<json> out;
    for (const ProfilePtr& p : loaded.session->ranks) {
        const bool anything = p->slices.size() > 0 || p->kernels.size() > 0 || !p->steps.empty() || !p->commOps.empty();
        if (!anything) {
            std::string reason;
            for (const auto& f : p->files)
                if (f.status == FileStatus::Failed)
                    reason += (reason.empty() ? "" : "; ") + f.path + ": " + f.note;
            for (const auto& d : p->diagnostics)
                if (reason.empty() && d.severity == Severity::Error)
                    reason = d.file + ": " + d.reason;
            out.push_back(cs::failedRank(folder, reason.empty() ? "no events, kernels, steps or communication in " + folder.path
                                                                : reason));
            continue;
        }
        json r = cs::reduceProfile(*p, folder, o.buckets);
        r["collective_times"] = cs::collectiveTimesJson(*p); // the file keeps the offsets alone
        Session one;
        one.root = folder.path;
        one.layout = p->layout;
        one.ranks = {p};
        json advice = advisor::rankAdvice(one, th);
        for (auto& [key, value] : advice.items()) // advisor_split, findings, claims, rules
            r[key] = std::move(value);
        out.push_back(std::move(r));
    }
    return out;
}

// The folders of this process, on `threads` workers. A folder still loading `timeout` seconds
// after it began is cancelled; one that does not even stop then (a read blocked in the kernel)
// is given up: listed as failed, its worker left behind (*abandoned set).
std::vector<json> runShare(const std::vector<cs::RankFolder>& folders, const SummaryOptions& o, const advisor::Thresholds& th,
                           unsigned threads, unsigned loadThreads, bool* abandoned)
{
    struct Task {
        std::atomic<bool> cancel{false};
        Clock::time_point started{};
        bool running = false, done = false;
        std::vector<json> result;
    };
    struct State {
        std::mutex m;
        std::condition_variable cv;
        std::deque<std::size_t> queue;
        std::vector<std::unique_ptr<Task>> tasks;
        std::size_t resolved = 0;
    };
    auto st = std::make_shared<State>();
    for (std::size_t i = 0; i < folders.size(); ++i) {
        st->tasks.push_back(std::make_unique<Task>());
        st->queue.push_back(i);
    }
    // Copies the worker owns, so a worker left behind never reads freed memory.
    auto shared = std::make_shared<std::tuple<std::vector<cs::RankFolder>, SummaryOptions, advisor::Thresholds>>(folders, o, th);
    auto worker = [st, shared, loadThreads]() {
        const auto& [fs, opt, thr] = *shared;
        for (;;) {
            std::size_t i;
            Task* t;
            {
                std::lock_guard lock(st->m);
                if (st->queue.empty())
                    return;
                i = st->queue.front();
                st->queue.pop_front();
                t = st->tasks[i].get();
                t->running = true;
                t->started = Clock::now();
            }
            std::vector<json> r;
            try {
                r = summariseFolder(fs[i], opt, thr, &t->cancel, loadThreads);
            } catch (const std::exception& e) {
                r = {cs::failedRank(fs[i], std::string("error while summarising: ") + e.what())};
            }
            std::lock_guard lock(st->m);
            if (!t->done) {
                t->result = std::move(r);
                t->done = true;
                ++st->resolved;
            }
            t->running = false;
            st->cv.notify_all();
        }
    };
    const unsigned n = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(folders.size())));
    for (unsigned w = 0; w < n; ++w)
        std::thread(worker).detach();
    const auto timeout = std::chrono::duration<double>(o.timeoutS);
    const auto grace = std::chrono::seconds(2);
    std::unique_lock lock(st->m);
    while (st->resolved < folders.size()) {
        st->cv.wait_for(lock, std::chrono::milliseconds(100));
        if (o.timeoutS <= 0)
            continue;
        const auto now = Clock::now();
        for (std::size_t i = 0; i < st->tasks.size(); ++i) {
            Task& t = *st->tasks[i];
            if (!t.running || t.done)
                continue;
            if (now - t.started > timeout)
                t.cancel = true;
            if (now - t.started > timeout + grace) {
                t.result = {cs::failedRank(folders[i], "timed out after " + std::to_string(static_cast<long long>(o.timeoutS))
                                                           + " s: a read of " + folders[i].path + " did not return")};
                t.done = true;
                ++st->resolved;
                *abandoned = true;
                std::thread(worker).detach(); // the stuck worker's place
            }
        }
    }
    std::vector<json> out;
    for (auto& t : st->tasks)
        for (auto& r : t->result)
            out.push_back(std::move(r));
    return out;
}

std::string rankList(const std::vector<cs::RankFolder>& folders, const std::vector<std::size_t>& share)
{
    std::string s;
    for (std::size_t i : share)
        s += (s.empty() ? "" : ", ") + (folders[i].rank >= 0 ? std::to_string(folders[i].rank) : folders[i].folder);
    return s.empty() ? "none" : s;
}

// The options from the command line; an exit code instead on a usage error.
std::variant<SummaryOptions, int> parseOptions(const Args& args)
{
    SummaryOptions o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& dst) {
            if (i + 1 >= args.size())
                return false;
            dst = args[++i];
            return true;
        };
        std::string v;
        if (a == "-o" || a == "--output") {
            if (!value(o.output))
                return usageError(a + " needs a file name");
        } else if (a == "--ranks-from") {
            if (!value(o.ranksFrom))
                return usageError("--ranks-from needs a file name");
        } else if (a == "--advisor-config") {
            if (!value(o.config))
                return usageError("--advisor-config needs a file name");
        } else if (a == "--threads") {
            if (!value(v) || !parseNumber(v, o.threads) || o.threads == 0 || o.threads > 256)
                return usageError("--threads needs a number from 1 to 256");
        } else if (a == "--timeout") {
            if (!value(v) || !parseNumber(v, o.timeoutS) || !(o.timeoutS >= 0) || o.timeoutS > 1e6)
                return usageError("--timeout needs seconds (0 for none)");
        } else if (a == "--buckets") {
            if (!value(v) || !parseNumber(v, o.buckets) || o.buckets < 1 || o.buckets > 1 << 20)
                return usageError("--buckets needs a number from 1 to 1048576");
        } else if (a == "--quiet" || a == "-q") {
            o.quiet = true;
        } else if (!a.empty() && a[0] == '-') {
            return usageError("unknown option '" + a + "'");
        } else if (o.root.empty()) {
            o.root = a;
        } else {
            return usageError("one ROOT only (got '" + o.root + "' and '" + a + "')");
        }
    }
    if (o.root.empty() && o.ranksFrom.empty())
        return usageError("needs ROOT (the folder holding the rank folders)");
    if (o.output.empty())
        return usageError("needs -o SUMMARY");
    return o;
}

// The lead process: the gathered ranks into one document, its cluster section, written
// atomically to -o; the exit code. `fail` prints a message and gives the code of a failure.
int writeSummary(const std::vector<std::string>& gathered, const std::vector<cs::RankFolder>& folders, const SummaryOptions& o,
                 const advisor::Thresholds& th, ClusterWorld& world, const std::function<int(const std::string&)>& fail)
{
    int code = 0;
    std::vector<json> ranks, failed;
    for (const std::string& g : gathered) {
        json part = json::parse(g, nullptr, false);
        if (part.is_discarded() || !part.is_array()) {
            std::fprintf(stderr, "npuscope cluster-summary: a process sent an unreadable summary\n");
            world.abort(1);
        }
        for (auto& r : part)
            (r.contains("reason") ? failed : ranks).push_back(std::move(r));
    }
    cs::sortCanonical(ranks);
    cs::sortCanonical(failed);
    json doc;
    doc["format"] = cs::kFormatName;
    doc["version"] = cs::kFormatVersion;
    doc["npuscope_version"] = NPUSCOPE_VERSION;
    doc["root"] = o.root;
    doc["buckets"] = o.buckets;
    doc["rank_folders"] = folders.size();
    doc["ranks"] = json(std::move(ranks));
    doc["failed"] = json(std::move(failed));
    if (doc["ranks"].empty()) {
        code = fail("no rank folder could be summarised (" + std::to_string(doc["failed"].size()) + " failed; first: "
                    + (doc["failed"].empty() ? std::string("none") : doc["failed"][0].value("reason", std::string())) + ")");
    } else {
        const SessionPtr session = cs::sessionFromSummary(doc, o.output);
        const cs::LateSummary late = cs::addLateRanks(doc); // the late ranks at collectives, from the timelines
        doc["cluster"] = advisor::clusterSection(*session, th, &doc, &late); // from every op and link gathered
        cs::compactForFile(doc);                                   // the file keeps their totals
        cs::addClockOffsets(doc);                                  // and the ranks' clock offsets
        std::string werr;
        const std::string bytes = cs::fileBytes(doc, o.output);
        if (bytes.empty() || !writeFileAtomically(o.output, bytes, &werr)) {
            if (werr.empty())
                werr = o.output + ": compression failed";
            code = fail(werr);
        } else if (!o.quiet) {
            std::fprintf(stderr, "npuscope cluster-summary: %zu ranks summarised, %zu failed, %zu cluster findings -> %s\n",
                         doc["ranks"].size(), doc["failed"].size(),
                         static_cast<std::size_t>(std::count_if(
                             doc["cluster"]["findings"].begin(), doc["cluster"]["findings"].end(),
                             [](const json& f) { return f.value("status", std::string()) == "fired"; })),
                         o.output.c_str());
        }
        for (const auto& f : doc["failed"])
            std::fprintf(stderr, "npuscope cluster-summary: failed: %s: %s\n", f.value("folder", std::string()).c_str(),
                         f.value("reason", std::string()).c_str());
    }
    return code;
}

} // namespace

int clusterSummary(const Args& args)
{
    if (wantsHelp(args)) {
        summaryUsage(stderr);
        return 0;
    }
    const auto parsed = parseOptions(args);
    if (const int* code = std::get_if<int>(&parsed))
        return *code;
    const SummaryOptions& o = std::get<SummaryOptions>(parsed);
    ClusterWorld world;
    std::string error;
    if (!world.init(&error)) {
        std::fprintf(stderr, "npuscope cluster-summary: %s\n", error.c_str());
        return 2;
    }
    const bool lead = world.rank() == 0;
    auto fail = [&](const std::string& msg) {
        if (lead)
            std::fprintf(stderr, "npuscope cluster-summary: %s\n", msg.c_str());
        return 1;
    };

    advisor::ThresholdsOptions to;
    to.overrideFile = o.config;
    const advisor::Thresholds th = advisor::Thresholds::load(to);
    if (lead)
        for (const auto& w : th.warnings())
            std::fprintf(stderr, "npuscope cluster-summary: warning: %s\n", w.c_str());

    // Every process lists the same folders and computes the same assignment.
    const std::vector<cs::RankFolder> folders = cs::listRankFolders(o.root, o.ranksFrom, &error);
    if (folders.empty())
        return fail(error);
    const auto shares = cs::assignByBytes(folders, world.size());
    const auto& mineIdx = shares[static_cast<std::size_t>(world.rank())];
    std::vector<cs::RankFolder> mine;
    std::uint64_t myBytes = 0;
    for (std::size_t i : mineIdx) {
        mine.push_back(folders[i]);
        myBytes += folders[i].bytes;
    }
    if (!o.quiet)
        std::fprintf(stderr, "npuscope cluster-summary: process %d of %d reads ranks %s (%.1f MB)\n", world.rank(), world.size(),
                     rankList(folders, mineIdx).c_str(), static_cast<double>(myBytes) / 1e6);

    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const unsigned threads = o.threads ? o.threads : (world.mpi() ? 1u : cores);
    const unsigned loadThreads = threads >= mine.size() ? std::max(1u, cores / std::max<unsigned>(1, threads)) : 1u;
    bool abandoned = false;
    std::vector<json> results = runShare(mine, o, th, threads, loadThreads, &abandoned);

    // Fault injection for the tests of a dying process (docs/CLUSTER-SUMMARY.md).
    if (const char* k = std::getenv("NPUSCOPE_CLUSTER_SUMMARY_KILL_PROCESS"); k && std::atoi(k) == world.rank() && world.size() > 1)
        std::raise(SIGKILL);

    json mineJson = json::array();
    for (auto& r : results)
        mineJson.push_back(std::move(r));
    const std::vector<std::string> gathered = world.gather(mineJson.dump());
    int code = 0;
    if (lead)
        code = writeSummary(gathered, folders, o, th, world, fail);
    code = world.broadcast(code);
    if (abandoned) {
        // A worker is stuck in a read that cannot be interrupted: leave without joining it.
        std::fflush(stdout);
        std::fflush(stderr);
        world.finalize();
        std::_Exit(code);
    }
    return code;
}

} // namespace npuscope::cli
