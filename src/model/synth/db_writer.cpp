#include "model/synth/db_writer.h"

#include "model/synth/comm_json.h"
#include "model/synth/device_model.h"
#include "model/synth/overlap.h"
#include "model/synth/python_side.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace npuscope::synth {

namespace {

constexpr std::int64_t kNoneId = 4294967295LL;
// ENUM_API_TYPE ids (FORMATS-DB.md §2)
constexpr std::int64_t kApiAcl = 20000, kApiNode = 10000, kApiRuntime = 5000, kApiOp = 50001, kApiQueue = 50002,
                       kApiTrace = 50003;

const char* const kSchema[] = {
    "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT)",
    "CREATE TABLE META_DATA (name TEXT,value TEXT)",
    "CREATE TABLE ENUM_API_TYPE (id INTEGER PRIMARY KEY,name TEXT)",
    "CREATE TABLE NPU_INFO (id INTEGER,name TEXT)",
    "CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER)",
    "CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,globalTaskId INTEGER,"
    "globalPid INTEGER,taskType INTEGER,contextId INTEGER,streamId INTEGER,taskId INTEGER,modelId INTEGER)",
    "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,blockDim INTEGER,"
    "mixBlockDim INTEGER,taskType INTEGER,opType INTEGER,inputFormats INTEGER,inputDataTypes INTEGER,"
    "inputShapes INTEGER,outputFormats INTEGER,outputDataTypes INTEGER,outputShapes INTEGER,attrInfo INTEGER,"
    "opState INTEGER,hf32Eligible INTEGER)",
    "CREATE TABLE TASK_PMU_INFO (globalTaskId INTEGER,name INTEGER,value NUMERIC)",
    "CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,connectionId INTEGER,"
    "groupName INTEGER,opId INTEGER PRIMARY KEY,relay INTEGER,retry INTEGER,dataType INTEGER,algType INTEGER,"
    "count NUMERIC,opType INTEGER,deviceId INTEGER)",
    "CREATE TABLE CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,globalTid INTEGER,"
    "connectionId INTEGER PRIMARY KEY,name INTEGER)",
    "CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER, "
    "sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, callchainId INTEGER, "
    "type INTEGER)",
    "CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER)",
    "CREATE TABLE PYTORCH_CALLCHAINS (id INTEGER, stack INTEGER, stackDepth INTEGER)",
    "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER)",
    "CREATE TABLE AICORE_FREQ (deviceId INTEGER,timestampNs NUMERIC,freq INTEGER)",
    "CREATE TABLE HBM (deviceId INTEGER,timestampNs INTEGER,bandwidth NUMERIC,hbmId INTEGER,type INTEGER)",
    "CREATE TABLE OVERLAP_ANALYSIS (deviceId INTEGER,startNs INTEGER,endNs INTEGER,type INTEGER)",
};

std::uint64_t fileSize(const std::string& path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

} // namespace

DbRankWriter::DbRankWriter(const Scenario& sc, RankLayout layout) : m_sc(sc), m_l(std::move(layout))
{
    m_globalTid = (m_l.hostPid << 32) | m_l.hostPid;
    m_dequeueTid = (m_l.hostPid << 32) | m_l.dequeueTid();
}

DbRankWriter::~DbRankWriter() = default;

bool DbRankWriter::open(std::string& error)
{
    m_path = m_l.outputDir + "/ascend_pytorch_profiler_" + std::to_string(m_l.rank) + ".db";
    m_analysisPath = m_l.outputDir + "/analysis.db";
    m_db = db::Writer::create(m_path, &error);
    if (!m_db)
        return false;
    // A generated file nobody reads while it is written: no journal, no syncs.
    bool ok = m_db->exec("PRAGMA journal_mode=OFF") && m_db->exec("PRAGMA synchronous=OFF")
              && m_db->exec("PRAGMA page_size=65536") && m_db->exec("BEGIN");
    for (const char* sql : kSchema)
        ok = ok && m_db->exec(sql);
    if (!ok) {
        error = m_db->error();
        return false;
    }
    m_string = m_db->prepare("INSERT INTO STRING_IDS VALUES (?,?)");
    m_task = m_db->prepare("INSERT INTO TASK VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    m_compute = m_db->prepare("INSERT INTO COMPUTE_TASK_INFO VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    m_pmu = m_db->prepare("INSERT INTO TASK_PMU_INFO VALUES (?,?,?)");
    m_commOp = m_db->prepare("INSERT INTO COMMUNICATION_OP VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
    m_cann = m_db->prepare("INSERT INTO CANN_API VALUES (?,?,?,?,?,?)");
    m_py = m_db->prepare("INSERT INTO PYTORCH_API VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    m_conn = m_db->prepare("INSERT INTO CONNECTION_IDS VALUES (?,?)");
    m_step = m_db->prepare("INSERT INTO STEP_TIME VALUES (?,?,?)");
    m_freq = m_db->prepare("INSERT INTO AICORE_FREQ VALUES (?,?,?)");
    m_hbm = m_db->prepare("INSERT INTO HBM VALUES (?,?,?,?,?)");
    m_overlap = m_db->prepare("INSERT INTO OVERLAP_ANALYSIS VALUES (?,?,?,?)");
    m_chain = m_db->prepare("INSERT INTO PYTORCH_CALLCHAINS VALUES (?,?,?)");
    for (auto* st : {&m_string, &m_task, &m_compute, &m_pmu, &m_commOp, &m_cann, &m_py, &m_conn, &m_step, &m_freq,
                     &m_hbm, &m_overlap, &m_chain})
        if (!st->valid()) {
            error = m_db->error();
            return false;
        }
    ok = m_db->exec("INSERT INTO META_DATA VALUES ('SCHEMA_VERSION_MICRO','0'),('SCHEMA_VERSION_MINOR','2'),"
                    "('SCHEMA_VERSION_MAJOR','1'),('SCHEMA_VERSION','1.2.0')")
         && m_db->exec("INSERT INTO ENUM_API_TYPE VALUES (5000,'runtime'),(5500,'hccl'),(10000,'node'),"
                       "(15000,'model'),(20000,'acl'),(50001,'op'),(50002,'queue'),(50003,'trace'),(50004,'mstx')")
         && m_db->exec("INSERT INTO NPU_INFO VALUES (" + std::to_string(m_l.device) + ",'Ascend910B')")
         && m_db->exec("INSERT INTO RANK_DEVICE_MAP VALUES (" + std::to_string(m_l.rank) + ","
                       + std::to_string(m_l.device) + ")");
    if (!ok) {
        error = m_db->error();
        return false;
    }
    // Framework strings take ids from 2^28 (FORMATS-DB.md §2); one range is enough here.
    m_nextString = 1LL << 28;
    // What the text export writes of each operator's Python side: its inputs (record_shapes) and
    // call stack (with_stack). Multi-tensor values are ";\n"-separated here, and the samples hold
    // the shapes in inputDtypes and the dtypes in inputShapes.
    std::int64_t chain = 0;
    m_sides = pythonSides(m_sc);
    for (const PythonSide& py : m_sides) {
        auto lf = [](std::string v) {
            for (std::size_t at = 0; (at = v.find("\r\n", at)) != std::string::npos;)
                v.erase(at, 1);
            return v;
        };
        m_inputs.emplace_back(py.dims.empty() ? -1 : sid(lf(py.dims)), py.types.empty() ? -1 : sid(lf(py.types)));
        if (!m_l.withStack) {
            m_chainOf.push_back(-1);
            continue;
        }
        ++chain;
        for (std::size_t d = 0; d < py.stack.size(); ++d)
            m_failed |= !m_chain.i64(1, chain).i64(2, sid(py.stack[d])).i64(3, static_cast<std::int64_t>(d)).run();
        m_chainOf.push_back(chain);
    }
    return !m_failed;
}

std::int64_t DbRankWriter::sid(const std::string& s)
{
    auto [it, fresh] = m_ids.try_emplace(s, m_nextString);
    if (fresh) {
        ++m_nextString;
        m_failed |= !m_string.i64(1, it->second).text(2, s).run();
    }
    return it->second;
}

void DbRankWriter::pmu(std::int64_t task, const char* name, double value)
{
    m_failed |= !m_pmu.i64(1, task).i64(2, sid(name)).real(3, value).run();
}

void DbRankWriter::pythonRow(std::int64_t start, std::int64_t dur, std::int64_t name, std::optional<std::int64_t> conn,
                             std::int64_t type, int op, std::int64_t tid)
{
    char ts[2][24];
    const auto a = std::to_chars(ts[0], ts[0] + 24, start).ptr;
    const auto b = std::to_chars(ts[1], ts[1] + 24, start + dur).ptr;
    m_py.text(1, std::string_view(ts[0], static_cast<std::size_t>(a - ts[0])))
        .text(2, std::string_view(ts[1], static_cast<std::size_t>(b - ts[1])))
        .i64(3, tid ? tid : m_globalTid);
    if (conn)
        m_py.i64(4, *conn);
    else
        m_py.null(4);
    m_py.i64(5, name);
    if (type == kApiOp)
        m_py.i64(6, -1).i64(7, 0);
    else
        m_py.null(6).null(7);
    const auto in = op >= 0 ? m_inputs[static_cast<std::size_t>(op)] : std::pair<std::int64_t, std::int64_t>{-1, -1};
    in.first >= 0 ? m_py.i64(8, in.first) : m_py.null(8);
    in.second >= 0 ? m_py.i64(9, in.second) : m_py.null(9);
    const std::int64_t chain = op >= 0 ? m_chainOf[static_cast<std::size_t>(op)] : -1;
    chain >= 0 ? m_py.i64(10, chain) : m_py.null(10);
    m_failed |= !m_py.i64(11, type).run();
}

void DbRankWriter::writeLaunch(const Task& t, const OpKind& op, std::int64_t enqueue)
{
    const auto conn = static_cast<std::int64_t>(t.conn);
    // Python op -> CONNECTION_IDS -> the device task (async_npu)
    const std::int64_t pyConn = m_connRow++;
    m_failed |= !m_conn.i64(1, pyConn).i64(2, conn).run();
    pythonRow(t.pyStart, t.pyDur, sid(op.aten), pyConn, kApiOp, t.op);
    // the task queue: Enqueue and Dequeue reach one connection id (async_task_queue)
    const std::int64_t lead = t.aclStart - t.pyStart;
    for (int k = 0; k < 2; ++k) {
        const std::int64_t row = m_connRow++;
        m_failed |= !m_conn.i64(1, row).i64(2, m_queueConn).run();
        if (k == 0)
            pythonRow(t.pyStart + lead / 3, std::max<std::int64_t>(lead / 3, 10), enqueue, row, kApiQueue);
        else
            pythonRow(t.aclStart - 400, t.aclDur + 700, sid("Dequeue@" + op.acl), row, kApiQueue, -1, m_dequeueTid);
    }
    ++m_queueConn;
}

// A planted host slice: a Python op row, or an acl CANN_API row on the main or the task queue's
// thread (as the text export writes them; the db keeps no call stack for them).
void DbRankWriter::writeHostSlice(const HostSlice& h)
{
    if (h.where == HostSlice::Where::Python) {
        pythonRow(h.start, h.dur, sid(h.name), std::nullopt, kApiOp);
        return;
    }
    if (m_l.level == 0)
        return;
    const std::int64_t tid = h.where == HostSlice::Where::CannMain ? m_globalTid : m_dequeueTid;
    m_failed |= !m_cann.i64(1, h.start).i64(2, h.start + h.dur).i64(3, kApiAcl).i64(4, tid)
                     .i64(5, static_cast<std::int64_t>(h.conn)).i64(6, sid(h.name.substr(h.name.find('@') + 1))).run();
}

void DbRankWriter::writeCannApis(const Task& t, const OpKind& op, std::int64_t launch)
{
    const auto conn = static_cast<std::int64_t>(t.conn);
    // host API and its launch on the task queue's thread (HostToDevice: Node@launch shares the
    // task's connectionId), from level 1 on; the level-2 runtime call under the launch.
    // (The real level-0 db sample does hold acl and node CANN_API rows, which its text export
    // does not write; here level 0 writes none in either, so both exports hold the same data.)
    if (m_l.level != 0) {
        m_failed |= !m_cann.i64(1, t.aclStart).i64(2, t.aclStart + t.aclDur).i64(3, kApiAcl).i64(4, m_dequeueTid)
                         .i64(5, conn - 1).i64(6, sid(op.acl)).run();
        m_failed |= !m_cann.i64(1, t.nodeStart).i64(2, t.nodeStart + t.nodeDur).i64(3, kApiNode).i64(4, m_dequeueTid)
                         .i64(5, conn).i64(6, launch).run();
    }
    if (m_l.level >= 2 && op.core != Core::Comm)
        m_failed |= !m_cann.i64(1, t.nodeStart + t.nodeDur / 4).i64(2, t.nodeStart + t.nodeDur / 4 + t.nodeDur / 2)
                         .i64(3, kApiRuntime).i64(4, m_dequeueTid).i64(5, conn | (1LL << 31))
                         .i64(6, sid("KernelLaunchWithHandle")).run();
}

void DbRankWriter::writeCommOp(const Task& t, const OpKind& op)
{
    // The collective on its group lane: one kernel_details row (HCCL) per op.
    m_failed |= !m_commOp.i64(1, sid(commOpName(t))).i64(2, t.start).i64(3, t.start + t.dur).i64(4, kNoneId)
                     .i64(5, sid("7452643344416017458")).i64(6, m_opId++).i64(7, 0).i64(8, 0).i64(9, 65535)
                     .i64(10, sid("MESH-RING")).i64(11, static_cast<std::int64_t>(m_sc.msgBytes / 2))
                     .i64(12, sid(m_l.level == 0 ? "N/A" : op.type)).i64(13, m_l.device).run();
}

void DbRankWriter::writeComputeInfo(std::int64_t g, const OpKind& op)
{
    const bool level0 = m_l.level == 0;
    // Level 0 knows a kernel's name and times only: types, shapes and formats N/A, block dims 0
    // (FORMATS-DB.md §6), as its kernel_details has no such columns.
    auto l1 = [&](const std::string& v) { return sid(level0 ? std::string("N/A") : v); };
    m_compute.i64(1, sid(op.name)).i64(2, g).i64(3, level0 ? 0 : op.blockDim).i64(4, level0 ? 0 : op.mixBlockDim)
        .i64(5, l1(taskType(op.core))).i64(6, l1(op.type)).i64(7, l1(op.inFormats))
        .i64(8, l1(op.inTypes)).i64(9, l1(op.inShapes)).i64(10, l1(op.outFormats))
        .i64(11, l1(op.outTypes)).i64(12, l1(op.outShapes)).null(13);
    // OP State and HF32 Eligible, as kernel_details has them from level 1 on
    if (m_l.level > 0)
        m_compute.i64(14, sid(m_sc.overlapComm ? "static" : "dynamic")).i64(15, sid("NO"));
    else
        m_compute.null(14).null(15);
    m_failed |= !m_compute.run();
}

void DbRankWriter::writePmu(std::int64_t g, const OpKind& op, const Task& t)
{
    // The values of the text rows (kernelPmu), every name on every task as the samples hold them
    // (the side a task does not run on is zeros); *_time in ns, *_bw in GB/s.
    // cube_utilization(%) is not stored: the reader derives it from aic_total_cycles.
    const KernelPmu p = kernelPmu(op, t);
    pmu(g, "aic_total_time", p.aicTime * 1000.0);
    pmu(g, "aic_total_cycles", static_cast<double>(p.aicCycles));
    const char* aicPipes[] = {"aic_mac", "aic_scalar", "aic_mte1", "aic_mte2", "aic_fixpipe"};
    for (int i = 0; i < 5; ++i) {
        pmu(g, (std::string(aicPipes[i]) + "_time").c_str(), p.aicPipe[i] * 1000.0);
        pmu(g, (std::string(aicPipes[i]) + "_ratio").c_str(), p.aicRatio[i]);
    }
    pmu(g, "aic_icache_miss_rate", p.aicIcacheMiss);
    pmu(g, "aiv_total_time", p.aivTime * 1000.0);
    pmu(g, "aiv_total_cycles", static_cast<double>(p.aivCycles));
    const char* aivPipes[] = {"aiv_vec", "aiv_scalar", "aiv_mte2", "aiv_mte3"};
    for (int i = 0; i < 4; ++i) {
        pmu(g, (std::string(aivPipes[i]) + "_time").c_str(), p.aivPipe[i] * 1000.0);
        pmu(g, (std::string(aivPipes[i]) + "_ratio").c_str(), p.aivRatio[i]);
    }
    pmu(g, "aiv_icache_miss_rate", p.aivIcacheMiss);
    pmu(g, "aic_main_mem_read_bw", p.cube ? p.readGBps : 0);
    pmu(g, "aic_main_mem_write_bw", p.cube ? p.writeGBps : 0);
    pmu(g, "aiv_main_mem_read_bw", p.cube ? 0 : p.readGBps);
    pmu(g, "aiv_main_mem_write_bw", p.cube ? 0 : p.writeGBps);
    const char* l2[] = {"write_cache", "r0_read_cache", "r1_read_cache"};
    for (int cubeSide = 1; cubeSide >= 0; --cubeSide) {
        const std::string side = cubeSide ? "aic_" : "aiv_";
        const bool on = cubeSide ? p.cube : !p.cube;
        for (int i = 0; i < 3; ++i) {
            pmu(g, (side + l2[i] + "_hit").c_str(), on ? static_cast<double>(p.hit[i]) : 0);
            pmu(g, (side + l2[i] + "_miss_allocate").c_str(), on ? static_cast<double>(p.miss[i]) : 0);
        }
    }
}

void DbRankWriter::writeOverlap(const StepPlan& plan, const std::vector<Interval>& compute,
                                const std::vector<Interval>& comm)
{
    // Overlap lanes (type 0 compute, 1 comm, 2 comm not overlapped, 3 free) and the step row
    const Overlap ov = computeOverlap(compute, comm, plan.start, plan.end);
    const std::vector<Interval>* lanes[4] = {&ov.computing, &ov.communication, &ov.notOverlapped, &ov.free};
    for (int type = 0; type < 4; ++type)
        for (const auto& iv : *lanes[type])
            m_failed |= !m_overlap.i64(1, m_l.device).i64(2, iv.first).i64(3, iv.second).i64(4, type).run();
    StepBreakdown b;
    b.computing = total(ov.computing);
    b.comm = total(ov.communication);
    b.commNotOverlapped = total(ov.notOverlapped);
    b.overlapped = b.comm - b.commNotOverlapped;
    b.free = total(ov.free);
    b.stage = ov.deviceEnd - ov.deviceBegin; // the device part, as the profiler writes it
    b.preparing = ov.deviceBegin - plan.start;
    m_breakdowns.emplace_back(plan.index, b);
}

void DbRankWriter::writeStep(const StepPlan& plan, const RankStep& rs)
{
    if (!m_db || m_failed)
        return;
    const std::int64_t dev = m_l.device;
    m_failed |= !m_step.i64(1, plan.index).i64(2, plan.start).i64(3, plan.end).run();
    m_failed |= !m_freq.i64(1, dev).i64(2, plan.start).i64(3, static_cast<std::int64_t>(kFreqMHz)).run();
    pythonRow(plan.start, plan.end - plan.start, sid("ProfilerStep#" + std::to_string(plan.index)), std::nullopt, kApiOp);
    // with_stack: the python_function slices of the text export (rank_writer.cpp), as "trace" rows
    const bool stack = m_l.withStack;
    const std::int64_t enqueue = sid("Enqueue"); // interned before the step frame and the tasks: STRING_IDS order
    int pyLayer = -1;
    std::int64_t layerFrom = 0, layerTo = 0;
    auto flushPyLayer = [&] {
        if (pyLayer >= 0 && stack)
            pythonRow(layerFrom, layerTo - layerFrom, sid(layerFrame()), std::nullopt, kApiTrace);
    };
    if (stack)
        pythonRow(plan.start + 2000, rs.syncStart + rs.syncDur + 1000 - (plan.start + 2000), sid(stepFrame()),
                  std::nullopt, kApiTrace);
    const std::int64_t launch = sid("launch");

    std::vector<Interval> compute, comm;
    int layer = -1;
    std::int64_t layerStart = 0, layerEnd = 0;
    double layerBytes = 0;
    auto flushLayer = [&] {
        if (layer < 0 || layerEnd <= layerStart)
            return;
        const double mbps = layerBytes / 1e6 / (static_cast<double>(layerEnd - layerStart) / 1e9);
        m_failed |= !m_hbm.i64(1, dev).i64(2, layerStart).real(3, r3(mbps * 0.75) * 1e6).i64(4, 0).i64(5, sid("read")).run();
        m_failed |= !m_hbm.i64(1, dev).i64(2, layerStart).real(3, r3(mbps * 0.25) * 1e6).i64(4, 0).i64(5, sid("write")).run();
    };
    std::size_t extra = 0; // planted host slices, each before the task it precedes
    for (std::size_t i = 0; i < rs.tasks.size(); ++i) {
        for (; extra < rs.extra.size() && rs.extra[extra].beforeTask <= i; ++extra)
            writeHostSlice(rs.extra[extra]);
        const Task& t = rs.tasks[i];
        const OpKind& op = m_sc.ops[static_cast<std::size_t>(t.op)];
        writeLaunch(t, op, enqueue);
        if (stack) {
            if (t.layer != pyLayer) {
                flushPyLayer();
                pyLayer = t.layer;
                layerFrom = t.pyStart - 800;
            }
            layerTo = t.pyStart + t.pyDur + 600;
            pythonRow(t.pyStart - 300, t.pyDur + 500, sid(m_sides[static_cast<std::size_t>(t.op)].caller), std::nullopt,
                      kApiTrace);
        }
        writeCannApis(t, op, launch);
        const std::int64_t g = m_globalTask++;
        const bool mix = op.core == Core::MixAic;
        m_failed |= !m_task.i64(1, t.start).i64(2, t.start + t.dur).i64(3, dev).i64(4, static_cast<std::int64_t>(t.conn))
                         .i64(5, g).i64(6, m_l.hostPid).i64(7, sid(taskType(op.core))).i64(8, mix ? 0 : kNoneId)
                         .i64(9, t.stream).i64(10, t.taskId).i64(11, kNoneId).run();
        if (op.core == Core::Comm) {
            writeCommOp(t, op);
            comm.push_back({t.start, t.start + t.dur});
            if (m_l.level >= 1) // communication analysis from level 1 on, as the text export
                m_commTasks.emplace_back(plan.index, t);
            continue;
        }
        compute.push_back({t.start, t.start + t.dur});
        writeComputeInfo(g, op);
        if (m_l.level > 0) // no PMU at level 0
            writePmu(g, op, t);
        if (t.layer != layer) {
            flushLayer();
            layer = t.layer;
            layerStart = t.start;
            layerBytes = 0;
        }
        layerEnd = t.start + t.dur;
        layerBytes += t.gbps * 1e9 * static_cast<double>(t.dur) / 1e9;
    }
    for (; extra < rs.extra.size(); ++extra)
        writeHostSlice(rs.extra[extra]);
    flushLayer();
    flushPyLayer();
    m_failed |= !m_hbm.i64(1, dev).i64(2, layerEnd).real(3, 0).i64(4, 0).i64(5, sid("read")).run();
    m_failed |= !m_hbm.i64(1, dev).i64(2, layerEnd).real(3, 0).i64(4, 0).i64(5, sid("write")).run();
    if (m_l.level != 0)
        m_failed |= !m_cann.i64(1, rs.syncStart).i64(2, rs.syncStart + rs.syncDur).i64(3, kApiAcl).i64(4, m_globalTid)
                         .i64(5, static_cast<std::int64_t>(rs.syncConn)).i64(6, sid("aclrtSynchronizeStream")).run();
    if (m_l.level >= 2 && rs.syncDur > 2000)
        m_failed |= !m_cann.i64(1, rs.syncStart + 1000).i64(2, rs.syncStart + rs.syncDur - 1000).i64(3, kApiRuntime)
                         .i64(4, m_globalTid).i64(5, static_cast<std::int64_t>(rs.syncConn) | (1LL << 31))
                         .i64(6, sid("StreamSynchronize")).run();
    writeOverlap(plan, compute, comm);
}

// CommAnalyzerTime/Bandwidth/Matrix: the numbers of communication.json and
// communication_matrix.json (comm_json.cpp), one row per op (Time), per transport and packet size
// (Bandwidth) and per link (Matrix). No "Total Op Info": analysis.db does not store it. Only the
// transports that moved data have rows, as in the samples.
bool DbRankWriter::writeCommAnalysis(db::Writer& a)
{
    if (m_commTasks.empty())
        return true;
    bool ok = a.exec("CREATE TABLE CommAnalyzerTime (hccl_op_name TEXT, group_name TEXT, start_timestamp NUMERIC, "
                     "elapse_time NUMERIC, transit_time NUMERIC, wait_time NUMERIC, synchronization_time NUMERIC, "
                     "idle_time NUMERIC, step TEXT, type TEXT)")
              && a.exec("CREATE TABLE CommAnalyzerBandwidth (hccl_op_name TEXT, group_name TEXT, transport_type TEXT, "
                        "transit_size NUMERIC, transit_time NUMERIC, bandwidth NUMERIC, large_packet_ratio NUMERIC, "
                        "package_size NUMERIC, count NUMERIC, total_duration NUMERIC, step TEXT, type TEXT)")
              && a.exec("CREATE TABLE CommAnalyzerMatrix (hccl_op_name TEXT, group_name TEXT, src_rank TEXT, "
                        "dst_rank TEXT, transport_type TEXT, transit_size NUMERIC, transit_time NUMERIC, "
                        "bandwidth NUMERIC, step TEXT, type TEXT, op_name TEXT)");
    auto time = a.prepare("INSERT INTO CommAnalyzerTime VALUES (?,?,?,?,?,?,?,?,?,?)");
    auto bw = a.prepare("INSERT INTO CommAnalyzerBandwidth VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
    auto mx = a.prepare("INSERT INTO CommAnalyzerMatrix VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    ok = ok && time.valid() && bw.valid() && mx.valid();
    for (const auto& [index, t] : m_commTasks) {
        if (!ok)
            break;
        const std::string name = commOpName(t), step = "step" + std::to_string(index);
        ok = time.text(1, name).text(2, kGroupHash).real(3, static_cast<double>(t.start) / 1000.0)
                 .real(4, commMs(t.dur)).real(5, commMs(t.transitNs)).real(6, commMs(t.waitNs))
                 .real(7, commMs(t.syncNs)).real(8, commMs(t.dur - t.transitNs - t.waitNs)).text(9, step)
                 .text(10, "collective").run();
        const LinkSums sums = hccsOf(t);
        const double rate = sums.msTotal > 0 ? round4(sums.mb / sums.msTotal) : 0;
        for (const char* transport : {"HCCS", "SDMA"}) {
            if (!ok || sums.mb <= 0)
                break;
            const bool sized = std::string_view(transport) == "HCCS" && sums.count;
            bw.text(1, name).text(2, kGroupHash).text(3, transport).real(4, sums.mb).real(5, sums.msTotal)
                .real(6, rate).real(7, 0);
            if (sized)
                bw.real(8, sums.packetMB).i64(9, sums.count).real(10, sums.msTotal);
            else
                bw.i64(8, 0).i64(9, 0).i64(10, 0);
            ok = bw.text(11, step).text(12, "collective").run();
        }
        for (const Link& l : t.links) {
            if (!ok)
                break;
            const double lms = commMs(l.ns);
            ok = mx.text(1, name).text(2, kGroupHash).text(3, std::to_string(l.src)).text(4, std::to_string(l.dst))
                     .text(5, l.local ? "LOCAL" : "HCCS").real(6, l.mb).real(7, lms)
                     .real(8, lms > 0 ? round4(l.mb / lms) : 0).text(9, step).text(10, "collective").text(11, name)
                     .run();
        }
    }
    return ok;
}

bool DbRankWriter::finish(std::string& error)
{
    if (!m_db)
        return false;
    for (auto* st : {&m_string, &m_task, &m_compute, &m_pmu, &m_commOp, &m_cann, &m_py, &m_conn, &m_step, &m_freq,
                     &m_hbm, &m_overlap, &m_chain})
        *st = db::Writer::Insert();
    if (m_failed || !m_db->exec("CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId)") || !m_db->exec("COMMIT")
        || !m_db->close()) {
        error = m_db->error().empty() ? m_path + ": write failed" : m_db->error();
        return false;
    }
    m_db.reset();
    m_bytes += fileSize(m_path);

    // analysis.db: StepTraceTime in µs, as torch_npu writes it
    auto a = db::Writer::create(m_analysisPath, &error);
    if (!a)
        return false;
    bool ok = a->exec("BEGIN")
              && a->exec("CREATE TABLE StepTraceTime (step TEXT, computing NUMERIC, communication_not_overlapped NUMERIC, "
                         "overlapped NUMERIC, communication NUMERIC, free NUMERIC, stage NUMERIC, bubble NUMERIC, "
                         "communication_not_overlapped_and_exclude_receive NUMERIC, preparing NUMERIC)");
    auto ins = a->prepare("INSERT INTO StepTraceTime VALUES (?,?,?,?,?,?,?,?,?,?)");
    ok = ok && ins.valid();
    auto us = [](std::int64_t ns) { return static_cast<double>(ns) / 1000.0; };
    for (const auto& [index, b] : m_breakdowns)
        ok = ok && ins.text(1, std::to_string(index)).real(2, us(b.computing)).real(3, us(b.commNotOverlapped))
                       .real(4, us(b.overlapped)).real(5, us(b.comm)).real(6, us(b.free)).real(7, us(b.stage))
                       .real(8, 0).real(9, us(b.commNotOverlapped)).real(10, us(b.preparing)).run();
    ins = db::Writer::Insert();
    ok = ok && writeCommAnalysis(*a);
    ok = ok && a->exec("COMMIT") && a->close();
    if (!ok) {
        error = a->error().empty() ? m_analysisPath + ": write failed" : a->error();
        return false;
    }
    m_bytes += fileSize(m_analysisPath);
    return true;
}

} // namespace npuscope::synth
