#include "model/synth/synth.h"

#include "model/synth/comm_json.h"
#include "model/synth/db_writer.h"
#include "model/synth/json_out.h"
#include "model/synth/memory_writer.h"
#include "model/synth/out_file.h"
#include "model/synth/planted.h"
#include "model/synth/rank_writer.h"
#include "model/synth/synth_model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>

namespace npuscope::synth {

namespace fs = std::filesystem;

namespace {

// A fixed capture time keeps the output byte-identical for a seed (no wall clock).
constexpr std::int64_t kBaseNs = 1780748090000000000; // 2026-06-06 12:14:50 UTC
const char* const kFolderStamp = "20260606121448940";  // yyyymmddHHMMSSmmm
const char* const kFileStamp = "20260606121514";       // msprof 14-digit file stamp
const char* const kHost = "atlas-node0";
constexpr std::int64_t kBasePid = 2732569;

std::string randLetters(std::mt19937_64& rng, int n)
{
    std::string s;
    for (int i = 0; i < n; ++i)
        s += static_cast<char>('A' + rng() % 26);
    return s;
}

bool writeText(const std::string& path, const std::string& text, std::uint64_t& bytes, std::string& error)
{
    OutFile f;
    if (!f.open(path)) {
        error = "cannot write " + path;
        return false;
    }
    f.str(text);
    bytes += f.bytes();
    if (!f.close()) {
        error = "write failed: " + path;
        return false;
    }
    return true;
}

std::string infoJson(int device, std::int64_t pid, double hbmPeak)
{
    nlohmann::ordered_json dev;
    dev["id"] = device;
    dev["env_type"] = 3;
    dev["ctrl_cpu_id"] = "ARMv8_Cortex_A55";
    dev["ctrl_cpu_core_num"] = 1;
    dev["ctrl_cpu_endian_little"] = 1;
    dev["ts_cpu_core_num"] = 1;
    dev["ai_cpu_core_num"] = 6;
    dev["ai_core_num"] = 24;
    dev["ai_cpu_core_id"] = 2;
    dev["ai_core_id"] = 0;
    dev["aicpu_occupy_bitmap"] = 252;
    dev["ctrl_cpu"] = "0";
    dev["ai_cpu"] = "2,3,4,5,6,7";
    dev["aiv_num"] = 48;
    dev["hwts_frequency"] = "50";
    dev["aic_frequency"] = "1800";
    dev["aiv_frequency"] = "1800";
    // not written by msprof: the HBM peak the generator modelled, for the bandwidth share
    dev["hbm_peak_gbps"] = hbmPeak;
    nlohmann::ordered_json j;
    j["jobInfo"] = "NA";
    j["devices"] = std::to_string(device);
    nlohmann::ordered_json cpu;
    cpu["Id"] = 0;
    cpu["Name"] = "HiSilicon";
    cpu["Frequency"] = "100.000000";
    cpu["Logical_CPU_Count"] = 192;
    cpu["Type"] = "Kunpeng-920";
    j["CPU"] = nlohmann::ordered_json::array({cpu});
    j["DeviceInfo"] = nlohmann::ordered_json::array({dev});
    j["platform_version"] = "5";
    j["pid"] = std::to_string(pid);
    return pythonJson(j);
}

// The raw folder's start and end records (PROF_*/host/start_info, end_info and the device_N
// copies), with the keys their readers take: the wall clock and the monotonic raw clock.
std::string startInfo(std::int64_t wallNs, std::int64_t monotonicNs, bool end)
{
    nlohmann::ordered_json j;
    j[end ? "collectionDateEnd" : "collectionDateBegin"] = end ? "2026-06-06 12:15:14.000000" : "2026-06-06 12:14:49.000000";
    j[end ? "collectionTimeEnd" : "collectionTimeBegin"] = std::to_string(wallNs / 1000);
    j["clockMonotonicRaw"] = std::to_string(monotonicNs);
    return pythonJson(j);
}

std::string profilerInfo(int rank, std::int64_t startNs, std::int64_t endNs, const std::string& exportType,
                        bool profileMemory, int level, bool withStack)
{
    nlohmann::ordered_json j;
    auto& common = j["config"]["common_config"];
    common["activities"] = {"ProfilerActivity.CPU", "ProfilerActivity.NPU"};
    common["schedule"] = {{"wait", 0}, {"active", 1}, {"warmup", 1}, {"repeat", 1}, {"skip_first", 10}};
    common["record_shapes"] = true;
    common["profile_memory"] = profileMemory;
    common["with_stack"] = withStack;
    common["with_flops"] = false;
    common["with_modules"] = false;
    auto& exp = j["config"]["experimental_config"];
    exp["_profiler_level"] = "Level" + std::to_string(level);
    exp["_aic_metrics"] = level == 0 ? "ACL_AICORE_NONE" : "ACL_AICORE_PIPE_UTILIZATION";
    exp["_l2_cache"] = true;
    exp["_msprof_tx"] = false;
    exp["_data_simplification"] = true;
    exp["record_op_args"] = false;
    if (exportType == "both")
        exp["_export_type"] = {"text", "db"};
    else
        exp["_export_type"] = exportType;
    exp["_op_attr"] = false;
    exp["_gc_detect_threshold"] = nullptr;
    j["start_info"] = {{"syscnt_enable", true}, {"freq", 100}, {"start_cnt", 17238197612056LL},
                       {"start_monotonic", 172163581670080LL}};
    j["end_info"] = {{"collectionTimeEnd", endNs}, {"MonotonicTimeEnd", 172163581670080LL + (endNs - startNs)}};
    j["rank_id"] = rank;
    return pythonJson(j, 4);
}

std::string groupTuple(int n)
{
    std::string s = "(";
    for (int i = 0; i < n; ++i)
        s += (i ? ", " : "") + std::to_string(i);
    return s + ")";
}

std::string profilerMetadata(const Scenario& sc, int rank, int ranks, int group)
{
    nlohmann::ordered_json j;
    const bool grouped = ranks > Scheduler::kMeshRanks; // TP groups of `group`, data parallel across
    if (ranks > 1)
        j["distributed_args"] = {{"tensor_model_parallel_size", grouped ? group : ranks}, {"pipeline_model_parallel_size", 1},
                                 {"data_parallel_size", grouped ? (ranks + group - 1) / group : 1}, {"rank", rank},
                                 {"world_size", ranks}};
    auto& env = j["ENV_VARIABLES"];
    env = nlohmann::ordered_json::object();
    for (const auto& [k, v] : sc.env)
        env[k] = v;
    nlohmann::ordered_json g;
    g["group_name"] = "tp";
    const int base = grouped ? rank - rank % group : 0;
    g["group_rank"] = rank - base;
    std::vector<int> members;
    for (int i = base; i < base + group && (!grouped || i < ranks); ++i)
        members.push_back(i);
    g["global_ranks"] = members;
    j["parallel_group_info"]["10.0.0.1%enp189s0f1_60000_0_1780748089123456"] = g;
    return pythonJson(j, 4);
}

// Cluster files (several ranks): written step by step alongside the ranks.
class ClusterWriter {
public:
    // commFiles: the cluster communication files, made from the ranks' (level 1 and up)
    bool open(const std::string& dir, int ranks, bool commFiles, std::string& error)
    {
        m_ranks = ranks;
        m_tuple = groupTuple(ranks);
        if (!m_stt.open(dir + "/cluster_step_trace_time.csv")
            || (commFiles
                && (!m_comm.open(dir + "/cluster_communication.json")
                    || !m_matrix.open(dir + "/cluster_communication_matrix.json")))) {
            error = "cannot write in " + dir;
            return false;
        }
        m_commFiles = commFiles;
        m_stt.str("Step,Type,Index,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,"
                  "Bubble,Communication(Not Overlapped and Exclude Receive)\n");
        m_comm.str("{\"").str(m_tuple).str("\":{");
        m_matrix.str("{\"").str(m_tuple).str("\":{");
        return true;
    }

    void step(const StepPlan& plan, const std::vector<StepBreakdown>& bd)
    {
        StepBreakdown mx;
        auto row = [&](const char* type, const std::string& index, const StepBreakdown& b) {
            m_stt.i64(plan.index).ch(',').str(type).ch(',').str(index).ch(',').us3(b.computing).ch(',');
            m_stt.us3(b.commNotOverlapped).ch(',').us3(b.overlapped).ch(',').us3(b.comm).ch(',').us3(b.free).ch(',');
            m_stt.us3(b.stage).str(",0,").us3(b.commNotOverlapped).ch('\n');
        };
        for (int r = 0; r < m_ranks; ++r) {
            const auto& b = bd[static_cast<std::size_t>(r)];
            row("rank", std::to_string(r), b);
            mx.computing = std::max(mx.computing, b.computing);
            mx.commNotOverlapped = std::max(mx.commNotOverlapped, b.commNotOverlapped);
            mx.overlapped = std::max(mx.overlapped, b.overlapped);
            mx.comm = std::max(mx.comm, b.comm);
            mx.free = std::max(mx.free, b.free);
            mx.stage = std::max(mx.stage, b.stage);
        }
        row("stage", "\"" + m_tuple + "\"", mx);
        if (!m_commFiles)
            return;

        // each rank's collectives, in order (a late rank's extra op moves its positions)
        std::vector<std::vector<std::size_t>> rankPos(static_cast<std::size_t>(m_ranks));
        for (std::size_t r = 0; r < rankPos.size(); ++r) {
            const auto& tasks = plan.ranks[r].tasks;
            for (std::size_t i = 0; i < tasks.size(); ++i)
                if (!tasks[i].links.empty())
                    rankPos[r].push_back(i);
        }
        const auto& tasks0 = plan.ranks[0].tasks;
        const std::vector<std::size_t>& pos = rankPos[0];
        const std::string key = "\"step" + std::to_string(plan.index) + "\":{";
        if (!m_first) {
            m_comm.ch(',');
            m_matrix.ch(',');
        }
        m_first = false;
        m_comm.str(key);
        m_matrix.str(key);
        std::vector<CommTotals> totals(static_cast<std::size_t>(m_ranks));
        for (std::size_t k = 0; k < pos.size(); ++k) {
            const Task& t0 = tasks0[pos[k]];
            if (k) {
                m_comm.ch(',');
                m_matrix.ch(',');
            }
            m_comm.ch('"').str(commOpKey(t0)).str("\":{");
            m_matrix.ch('"').str(commOpKey(t0)).str("\":{");
            bool firstLink = true;
            for (int r = 0; r < m_ranks; ++r) {
                const auto ri = static_cast<std::size_t>(r);
                const Task& t = plan.ranks[ri].tasks[rankPos[ri][k]];
                if (r)
                    m_comm.ch(',');
                m_comm.ch('"').i64(r).str("\":");
                writeCommOp(m_comm, t, kCompact);
                writeCommLinks(m_matrix, t, firstLink, kCompact);
                totals[static_cast<std::size_t>(r)].add(t);
            }
            m_comm.ch('}');
            m_matrix.ch('}');
        }
        m_comm.str(pos.empty() ? "\"Total Op Info\":{" : ",\"Total Op Info\":{");
        for (int r = 0; r < m_ranks; ++r) {
            if (r)
                m_comm.ch(',');
            m_comm.ch('"').i64(r).str("\":");
            writeCommTotal(m_comm, totals[static_cast<std::size_t>(r)], kCompact);
        }
        m_comm.str("}}");
        m_matrix.ch('}');
    }

    bool finish(std::uint64_t& bytes, std::string& error)
    {
        if (m_commFiles) {
            m_comm.str("}}");
            m_matrix.str("}}");
        }
        bool ok = true;
        for (auto* f : {&m_stt, &m_comm, &m_matrix}) {
            if (!f->isOpen())
                continue;
            const std::string path = f->path();
            bytes += f->bytes();
            if (!f->close()) {
                error = "write failed: " + path;
                ok = false;
            }
        }
        return ok;
    }

private:
    OutFile m_stt, m_comm, m_matrix;
    int m_ranks = 0;
    std::string m_tuple;
    bool m_first = true;
    bool m_commFiles = true;
    const JsonStyle kCompact = JsonStyle::compact(); // msprof-analyze's cluster files, as before
};

bool makeDirs(const std::string& path, std::string& error)
{
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec) {
        error = "cannot create " + path + ": " + ec.message();
        return false;
    }
    return true;
}

// The options a scenario and a layout are checked against before anything is written; an
// error message, empty when they hold. `ranks` is the number of ranks to write.
std::string checkScenario(const SynthOptions& o, int ranks)
{
    const auto names = scenarioNames();
    if (std::find(names.begin(), names.end(), o.scenario) == names.end())
        return "unknown scenario '" + o.scenario + "'";
    if (o.layout != "torch_npu" && o.layout != "msprof")
        return "unknown layout '" + o.layout + "'";
    if (ranks < 1 || ranks > 512)
        return "ranks must be 1..512";
    if (o.steps < 1 || o.targetMB < 0)
        return "steps must be >= 1 and target size >= 0";
    if (o.slowRank >= ranks || o.slowLinkSrc >= ranks || o.slowLinkDst >= ranks)
        return "slow rank / link outside 0.." + std::to_string(ranks - 1);
    return {};
}

// The output's format and level, checked once the output folder exists.
std::string checkOutput(const SynthOptions& o)
{
    if (o.format != "text" && o.format != "db" && o.format != "both")
        return "format must be text, db or both";
    if (o.layout == "msprof" && o.format != "text")
        return "the db format is written in the torch_npu layout only";
    if (o.level < 0 || o.level > 2)
        return "level must be 0, 1 or 2";
    if (o.flowOrder != "time" && o.flowOrder != "starts-first" && o.flowOrder != "ends-first")
        return "flow order must be time, starts-first or ends-first";
    if (o.devicePerPyOp < 1)
        return "device tasks per Python op must be 1 or more";
    const bool shaped = o.processOrdered || o.flowOrder != "time" || o.devicePerPyOp != 1;
    if (shaped && (o.layout != "torch_npu" || o.format != "text"))
        return "the shapes are written in the torch_npu layout's text export only";
    return {};
}

// The scenario with its slow rank and link: the cluster scenario's defaults, else as asked.
Scenario scenarioFor(const SynthOptions& o, int ranks, bool cluster)
{
    Scenario sc = makeScenario(o.scenario);
    if (cluster) {
        sc.slowRank = o.slowRank >= 0 ? o.slowRank : ranks - 1;
        sc.slowSrc = o.slowLinkSrc >= 0 ? o.slowLinkSrc : 1 % ranks;
        sc.slowDst = o.slowLinkDst >= 0 ? o.slowLinkDst : 2 % ranks;
    } else {
        sc.slowRank = o.slowRank;
        sc.slowSrc = o.slowLinkSrc;
        sc.slowDst = o.slowLinkDst;
    }
    return sc;
}

// What the run writes, and every rank's writers.
struct Outputs {
    bool msprof = false;
    bool textOut = true, dbOut = false;
    bool memoryOut = false;
    std::vector<std::unique_ptr<RankWriter>> text;
    std::vector<std::unique_ptr<DbRankWriter>> db;
    std::vector<std::unique_ptr<MemoryWriter>> memory;
    std::vector<std::string> rawDirs; // torch_npu: each rank's PROF_* folder
};

// Rank r's folders and its device's info.json, and its writers opened; false with res.error set
// on failure.
bool openRank(int r, const std::string& outDir, const SynthOptions& o, const Scenario& sc, const Scheduler& sched,
              Outputs& out, std::mt19937_64& nameRng, SynthResult& res)
{
    RankLayout l;
    l.msprof = out.msprof;
    l.rank = r;
    l.device = r % 8;
    l.hostPid = kBasePid + 101 * r;
    l.ts14 = kFileStamp;
    l.discardText = !out.textOut;
    l.level = o.level;
    l.withStack = o.withStack;
    l.compactJson = o.compactJson;
    l.processOrdered = o.processOrdered;
    l.flowOrder = o.flowOrder == "ends-first"     ? TraceWriter::FlowOrder::EndsFirst
                  : o.flowOrder == "starts-first" ? TraceWriter::FlowOrder::StartsFirst
                                                  : TraceWriter::FlowOrder::Time;
    l.devicePerPyOp = o.devicePerPyOp;
    const std::string prof = "PROF_" + std::string(5 - std::to_string(r + 1).size() + 1, '0') + std::to_string(r + 1)
                             + "_" + kFolderStamp + "_" + randLetters(nameRng, 16);
    std::string devDir;
    if (out.msprof) {
        l.dir = outDir + "/" + prof;
        l.outputDir = l.dir + "/mindstudio_profiler_output";
        l.analyzeDir = l.dir + "/analyze";
        devDir = l.dir + "/device_" + std::to_string(l.device);
        if (!makeDirs(l.outputDir, res.error) || !makeDirs(l.analyzeDir, res.error)
            || !makeDirs(l.dir + "/host", res.error))
            return false;
    } else {
        l.dir = outDir + "/" + kHost + "_" + std::to_string(l.hostPid) + "_" + kFolderStamp + "_ascend_pt";
        l.outputDir = l.dir + "/ASCEND_PROFILER_OUTPUT";
        // torch_npu keeps the raw msprof folder inside the rank folder; with data simplification
        // (the default) it deletes FRAMEWORK/ and the raw folder's exports, and keeps the
        // device and host facts: info.json, start_info, end_info
        devDir = l.dir + "/" + prof + "/device_" + std::to_string(l.device);
        out.rawDirs.push_back(l.dir + "/" + prof);
        if (!makeDirs(l.outputDir, res.error) || !makeDirs(l.dir + "/" + prof + "/host", res.error))
            return false;
    }
    if (!makeDirs(devDir, res.error))
        return false;
    const std::string dev = std::to_string(l.device);
    if (!writeText(devDir + "/info.json." + dev, infoJson(l.device, l.hostPid, sc.hbmPeak),
                   res.bytesWritten, res.error))
        return false;
    res.rankDirs.push_back(l.dir);
    out.text.push_back(std::make_unique<RankWriter>(sched.scenario(), l));
    if (!out.text.back()->open(res.error))
        return false;
    if (out.dbOut) {
        out.db.push_back(std::make_unique<DbRankWriter>(sched.scenario(), l));
        if (!out.db.back()->open(res.error))
            return false;
    }
    if (out.memoryOut) {
        out.memory.push_back(std::make_unique<MemoryWriter>(sched.scenario(), l));
        if (out.dbOut)
            out.memory.back()->keepForDb();
        if (!out.memory.back()->open(res.error))
            return false;
    }
    return true;
}

// Writes steps until the target size (or step count) is reached; [first start, last end) of
// what was written.
std::pair<std::int64_t, std::int64_t> writeSteps(Scheduler& sched, int ranks, const SynthOptions& o, Outputs& out,
                                                 ClusterWriter* cluster, TruthBuilder& truth)
{
    const double targetBytes = o.targetMB * 1024.0 * 1024.0;
    std::int64_t firstStart = 0, lastEnd = 0;
    std::vector<StepBreakdown> bd(static_cast<std::size_t>(ranks));
    const auto offs = rankOffsets(o, ranks);
    const bool shifted = std::any_of(offs.begin(), offs.end(), [](std::int64_t v) { return v != 0; });
    for (int step = 0;; ++step) {
        const StepPlan plan = sched.next();
        truth.step(plan);
        if (step == 0)
            firstStart = plan.start;
        lastEnd = plan.end;
        // --clock-offset: each rank writes its own clock (true time + its offset)
        std::optional<StepPlan> shiftedPlan, shiftedView;
        if (shifted)
            shiftedPlan = shiftPlan(plan, offs);
        const StepPlan& written = shifted ? *shiftedPlan : plan;
        for (std::size_t r = 0; r < static_cast<std::size_t>(ranks); ++r) {
            if (shifted)
                shiftedView = rankView(plan, offs[r]);
            const StepPlan& view = shifted ? *shiftedView : plan;
            out.text[r]->writeStep(view, written.ranks[r], bd[r]);
            if (out.dbOut)
                out.db[r]->writeStep(view, written.ranks[r]);
            if (out.memoryOut)
                out.memory[r]->writeStep(view, written.ranks[r]);
        }
        if (cluster)
            cluster->step(written, bd);
        const double done = targetBytes > 0 ? static_cast<double>(out.text[0]->timelineBytes()) / targetBytes
                                            : static_cast<double>(step + 1) / o.steps;
        if (o.progress)
            o.progress(std::min(1.0, done));
        if (done >= 1.0)
            break;
    }
    return {firstStart, lastEnd};
}

// The files torch_npu writes around a capture: the raw folder's host and device facts and the
// rank folder's profiler_info / profiler_metadata.
bool writeCaptureFacts(int r, int ranks, std::int64_t firstStart, std::int64_t lastEnd, const SynthOptions& o,
                       const Scenario& sc, const Scheduler& sched, const Outputs& out, SynthResult& res)
{
    const std::string& dir = res.rankDirs[static_cast<std::size_t>(r)];
    const std::string& raw = out.rawDirs[static_cast<std::size_t>(r)];
    const std::int64_t mono0 = 172163581670080LL, mono1 = mono0 + (lastEnd - firstStart);
    const std::string dev = std::to_string(r % 8), devDir = raw + "/device_" + dev;
    const std::string hostStart = "[Host]\nclock_monotonic_raw=" + std::to_string(mono0)
                                  + "\ncntvct=17238197612056\ncntvct_diff=0\n";
    if (!writeText(raw + "/host/info.json", infoJson(r % 8, kBasePid + 101 * r, sc.hbmPeak), res.bytesWritten, res.error)
        || !writeText(raw + "/host/start_info", startInfo(firstStart, mono0, false), res.bytesWritten, res.error)
        || !writeText(raw + "/host/end_info", startInfo(lastEnd, mono1, true), res.bytesWritten, res.error)
        || !writeText(raw + "/host/host_start.log", hostStart, res.bytesWritten, res.error)
        || !writeText(devDir + "/start_info." + dev, startInfo(firstStart, mono0, false), res.bytesWritten, res.error)
        || !writeText(devDir + "/end_info." + dev, startInfo(lastEnd, mono1, true), res.bytesWritten, res.error))
        return false;
    return writeText(dir + "/profiler_info_" + std::to_string(r) + ".json",
                     profilerInfo(r, firstStart, lastEnd, o.format, out.memoryOut, o.level, o.withStack),
                     res.bytesWritten, res.error)
           && writeText(dir + "/profiler_metadata.json", profilerMetadata(sc, r, ranks, sched.groupSize()),
                        res.bytesWritten, res.error);
}

// Closes rank r's writers and adds what they wrote to `res`.
bool finishRank(int r, Outputs& out, SynthResult& res)
{
    const auto i = static_cast<std::size_t>(r);
    auto& w = *out.text[i];
    if (!w.finish(res.error))
        return false;
    if (out.textOut)
        res.bytesWritten += w.bytesWritten();
    if (out.dbOut) {
        if (!out.db[i]->finish(res.error))
            return false;
        res.bytesWritten += out.db[i]->bytesWritten();
    }
    if (out.memoryOut) {
        auto& m = *out.memory[i];
        if (!m.finish(res.error) || (out.dbOut && !m.writeDb(out.db[i]->path(), res.error)))
            return false;
        res.bytesWritten += m.bytesWritten();
    }
    res.deviceTasks += w.totals().deviceTasks;
    return true;
}

// The modelled truths, measured over what rank 0's writer wrote.
void measureTruths(const RankTotals& t, const Scenario& sc, SynthResult& res)
{
    res.steps = t.steps;
    res.stepMs = t.steps ? static_cast<double>(t.stepNs) / t.steps / 1e6 : 0;
    res.aicUtil = t.computeDur > 0 ? t.utilDur / t.computeDur : 0;
    res.l2Hit = t.l2Hit + t.l2Miss ? static_cast<double>(t.l2Hit) / static_cast<double>(t.l2Hit + t.l2Miss) : 0;
    res.hbmPeakGBps = sc.hbmPeak;
    res.hbmUtil = t.computeDur > 0 ? t.gbDur / t.computeDur / sc.hbmPeak : 0;
    res.exposedCommShare = t.stepNs ? static_cast<double>(t.commNoNs) / static_cast<double>(t.stepNs) : 0;
}

} // namespace

SynthResult synthesize(const std::string& outDir, const SynthOptions& o)
{
    SynthResult res;
    const bool cluster = o.scenario == "cluster-slowrank";
    const int ranks = cluster && o.ranks < 2 ? 4 : o.ranks;
    res.error = checkScenario(o, ranks);
    if (!res.error.empty())
        return res;
    const Scenario sc = scenarioFor(o, ranks, cluster);
    if (!makeDirs(outDir, res.error))
        return res;
    res.error = checkOutput(o);
    if (res.error.empty() && plantsGiven(o))
        res.error = checkPlants(o, sc, ranks);
    if (!res.error.empty())
        return res;

    Outputs out;
    out.msprof = o.layout == "msprof";
    out.dbOut = o.format != "text";
    out.textOut = o.format != "db";
    // Memory files (profile_memory=True) in torch_npu profiles of their natural size, and always
    // in the scenario whose leak they show.
    out.memoryOut = !out.msprof
                    && (o.memoryFiles >= 0 ? o.memoryFiles == 1 : o.targetMB == 0 || MemoryWriter::leaks(o.scenario));
    std::mt19937_64 nameRng(o.seed ^ 0x5DEECE66Dull);
    Scheduler sched(sc, ranks, o.seed, kBaseNs);
    const PlantConfig plants = plantsGiven(o) ? plantConfig(o, sc) : PlantConfig{};
    if (plantsGiven(o))
        sched.setPlants(plants);
    TruthBuilder truth(o, sched.scenario(), ranks, plants);
    for (int r = 0; r < ranks; ++r)
        if (!openRank(r, outDir, o, sc, sched, out, nameRng, res))
            return res;
    ClusterWriter clusterOut;
    const bool clusterFiles = ranks > 1;
    if (clusterFiles) {
        const std::string dir = outDir + "/cluster_analysis_output";
        if (!makeDirs(dir, res.error) || !clusterOut.open(dir, ranks, out.msprof || o.level >= 1, res.error))
            return res;
    }

    const auto [firstStart, lastEnd] = writeSteps(sched, ranks, o, out, clusterFiles ? &clusterOut : nullptr, truth);
    const auto offs = rankOffsets(o, ranks);
    for (int r = 0; r < ranks; ++r) {
        if (!finishRank(r, out, res))
            return res;
        const std::int64_t off = offs[static_cast<std::size_t>(r)];
        if (!out.msprof && !writeCaptureFacts(r, ranks, firstStart + off, lastEnd + off, o, sc, sched, out, res))
            return res;
    }
    if (clusterFiles && !clusterOut.finish(res.bytesWritten, res.error))
        return res;

    measureTruths(out.text[0]->totals(), sc, res);
    res.truth = truth.finish();
    res.ok = true;
    return res;
}

} // namespace npuscope::synth
