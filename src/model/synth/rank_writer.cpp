#include "model/synth/rank_writer.h"

#include "model/synth/device_model.h"
#include "model/synth/overlap.h"

#include <algorithm>
#include <cmath>

namespace npuscope::synth {

RankWriter::RankWriter(const Scenario& sc, RankLayout layout) : m_sc(sc), m_l(std::move(layout))
{
    m_tid = m_l.hostPid;
    m_pyPid = m_l.hostPid;
    m_cannPid = pidOf(7, true);
    m_hwPid = pidOf(13, false);
    m_freqPid = pidOf(14, false);
    m_commPid = pidOf(15, false);
    m_hbmPid = pidOf(17, false);
    m_ovPid = pidOf(m_l.msprof ? 29 : 23, false);
}

std::int64_t RankWriter::pidOf(int sortIndex, bool host) const
{
    // realPid<<10 | sortIndex<<5 | device (msprof marks host processes with device 31)
    const std::int64_t dev = host && m_l.msprof ? 31 : m_l.device;
    return (m_l.hostPid << 10) | (static_cast<std::int64_t>(sortIndex) << 5) | dev;
}

bool RankWriter::open(std::string& error)
{
    const std::string& out = m_l.outputDir;
    std::string trace, kernels, stepFile, comm, matrix;
    if (m_l.msprof) {
        trace = out + "/msprof_" + m_l.ts14 + ".json";
        kernels = out + "/op_summary_" + m_l.ts14 + ".csv";
        comm = m_l.analyzeDir + "/communication.json";
        matrix = m_l.analyzeDir + "/communication_matrix.json";
    } else {
        trace = out + "/trace_view.json";
        kernels = out + "/kernel_details.csv";
        stepFile = out + "/step_trace_time.csv";
        comm = out + "/communication.json";
        matrix = out + "/communication_matrix.json";
    }
    if (m_l.discardText)
        for (auto* path : {&trace, &kernels, &comm, &matrix, &stepFile})
            if (!path->empty())
                *path = "/dev/null";
    for (auto* p : {&m_trace, &m_kernels, &m_comm, &m_matrix}) {
        const std::string& path = p == &m_trace ? trace : p == &m_kernels ? kernels : p == &m_comm ? comm : matrix;
        if (!p->open(path)) {
            error = "cannot write " + path;
            return false;
        }
    }
    if (!stepFile.empty() && !m_steps.open(stepFile)) {
        error = "cannot write " + stepFile;
        return false;
    }
    m_trace.ch('[');
    writeMetadataEvents();
    if (m_l.msprof)
        m_kernels.str("Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
                      "Task Duration(us),Task Wait Time(us),");
    else
        m_kernels.str("Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),"
                      "Duration(us),Wait Time(us),");
    m_kernels.str("Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,Input Formats,Output Shapes,"
                  "Output Data Types,Output Formats,Context ID,")
        .str(kernelPmuHeader())
        .str(m_l.msprof ? "\n" : "\r\n");
    if (m_steps.isOpen())
        m_steps.str("Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
                    "Communication(Not Overlapped and Exclude Receive),Preparing\r\n");
    m_comm.ch('{');
    m_matrix.ch('{');
    return true;
}

void RankWriter::beginEvent()
{
    if (!m_firstEvent)
        m_trace.ch(',');
    m_firstEvent = false;
}

void RankWriter::metaEvent(std::int64_t pid, std::int64_t tid, std::string_view name, std::string_view argKey,
                           std::string_view value, bool quoted)
{
    beginEvent();
    auto args = [&] {
        m_trace.str("\"args\":{\"").str(argKey).str("\":");
        if (quoted)
            m_trace.ch('"').str(value).ch('"');
        else
            m_trace.str(value);
        m_trace.ch('}');
    };
    if (m_l.msprof) {
        m_trace.ch('{');
        args();
        m_trace.str(",\"name\":\"").str(name).str("\",\"ph\":\"M\",\"pid\":").i64(pid).str(",\"tid\":").i64(tid).ch('}');
    } else if (pid == m_pyPid) {
        m_trace.str("{\"ph\":\"M\",\"name\":\"").str(name).str("\",\"pid\":").i64(pid).str(",\"tid\":").i64(tid).ch(',');
        args();
        m_trace.ch('}');
    } else {
        m_trace.str("{\"name\":\"").str(name).str("\",\"pid\":").i64(pid).str(",\"tid\":").i64(tid).ch(',');
        args();
        m_trace.str(",\"ph\":\"M\"}");
    }
}

void RankWriter::writeMetadataEvents()
{
    const std::string npu = m_l.msprof ? "NPU " + std::to_string(m_l.device) : "NPU";
    auto process = [&](std::int64_t pid, const char* name, const std::string& label, int sort) {
        metaEvent(pid, 0, "process_name", "name", name, true);
        metaEvent(pid, 0, "process_labels", "labels", label, true);
        metaEvent(pid, 0, "process_sort_index", "sort_index", std::to_string(sort), false);
    };
    auto thread = [&](std::int64_t pid, std::int64_t tid, const std::string& name, std::int64_t sort) {
        metaEvent(pid, tid, "thread_name", "name", name, true);
        metaEvent(pid, tid, "thread_sort_index", "sort_index", std::to_string(sort), false);
    };
    const std::string threadName = "Thread " + std::to_string(m_tid);
    if (!m_l.msprof) {
        process(m_pyPid, "Python", "CPU", 0);
        thread(m_pyPid, m_tid, threadName, m_tid);
    }
    process(m_cannPid, "CANN", "CPU", 7);
    thread(m_cannPid, m_tid, threadName, m_tid);
    process(m_hwPid, "Ascend Hardware", npu, 13);
    thread(m_hwPid, Scheduler::kComputeStream, "Stream " + std::to_string(Scheduler::kComputeStream),
           Scheduler::kComputeStream);
    thread(m_hwPid, Scheduler::kCommStream, "Stream " + std::to_string(Scheduler::kCommStream), Scheduler::kCommStream);
    process(m_freqPid, "AI Core Freq", npu, 14);
    process(m_commPid, "Communication", npu, 15);
    thread(m_commPid, 0, "Group 0 Communication", 0);
    thread(m_commPid, 1, "Plane 0", 1);
    process(m_hbmPid, "HBM", npu, 17);
    process(m_ovPid, "Overlap Analysis", npu, m_l.msprof ? 29 : 23);
    // tid order differs between the two profilers (FORMATS.md §3)
    const char* const names[4] = {"Computing", "Communication", "Communication(Not Overlapped)", "Free"};
    const int msprofTid[4] = {2, 0, 1, 3};
    for (int i = 0; i < 4; ++i) {
        const int tid = m_l.msprof ? msprofTid[i] : i;
        thread(m_ovPid, tid, names[i], tid);
    }
}

namespace {

// Writes an X event; `args` writes the args object (or nothing when null).
template <typename Args>
void writeX(OutFile& f, bool msprof, bool pythonStyle, std::int64_t pid, std::int64_t tid, std::string_view name,
            std::int64_t ts, std::int64_t dur, std::string_view cat, Args&& args, bool hasArgs)
{
    if (msprof) {
        f.str("{\"args\":");
        if (hasArgs)
            args();
        else
            f.str("{}");
        f.str(",\"dur\":").usTrim(dur).str(",\"name\":\"").str(name).str("\",\"ph\":\"X\",\"pid\":").i64(pid);
        f.str(",\"tid\":").i64(tid).str(",\"ts\":\"").us3(ts).str("\"}");
        return;
    }
    if (pythonStyle) {
        f.str("{\"ph\":\"X\",\"name\":\"").str(name).str("\",\"pid\":").i64(pid).str(",\"tid\":").i64(tid);
        f.str(",\"ts\":\"").us3(ts).str("\",\"dur\":").usTrim(dur);
        if (!cat.empty())
            f.str(",\"cat\":\"").str(cat).ch('"');
        if (hasArgs) {
            f.str(",\"args\":");
            args();
        }
        f.ch('}');
        return;
    }
    f.str("{\"name\":\"").str(name).str("\",\"pid\":").i64(pid).str(",\"tid\":").i64(tid);
    f.str(",\"ts\":\"").us3(ts).str("\",\"dur\":").usTrim(dur);
    if (hasArgs) {
        f.str(",\"args\":");
        args();
    }
    f.str(",\"ph\":\"X\"}");
}

} // namespace

void RankWriter::flowEvent(bool start, std::string_view cat, std::string_view name, std::string_view id,
                           bool quotedId, std::int64_t pid, std::int64_t tid, std::int64_t ts)
{
    beginEvent();
    auto& f = m_trace;
    auto putId = [&] {
        if (quotedId)
            f.ch('"').str(id).ch('"');
        else
            f.str(id);
    };
    if (m_l.msprof) {
        f.ch('{');
        if (!start)
            f.str("\"bp\":\"e\",");
        f.str("\"cat\":\"").str(cat).str("\",\"id\":");
        putId();
        f.str(",\"name\":\"").str(name).str("\",\"ph\":\"").ch(start ? 's' : 'f').str("\",\"pid\":").i64(pid);
        f.str(",\"tid\":").i64(tid).str(",\"ts\":\"").us3(ts).str("\"}");
    } else if (quotedId) {
        f.str("{\"name\":\"").str(name).str("\",\"ph\":\"").ch(start ? 's' : 'f').str("\",");
        if (start) {
            f.str("\"cat\":\"").str(cat).str("\",\"id\":");
            putId();
            f.str(",\"pid\":").i64(pid).str(",\"tid\":").i64(tid).str(",\"ts\":\"").us3(ts).str("\"}");
        } else {
            f.str("\"id\":");
            putId();
            f.str(",\"ts\":\"").us3(ts).str("\",\"cat\":\"").str(cat).str("\",\"pid\":").i64(pid);
            f.str(",\"tid\":").i64(tid).str(",\"bp\":\"e\"}");
        }
    } else {
        f.str("{\"ph\":\"").ch(start ? 's' : 'f').str("\",\"bp\":\"e\",\"name\":\"").str(name).str("\",\"id\":");
        putId();
        f.str(",\"pid\":").i64(pid).str(",\"tid\":").i64(tid).str(",\"ts\":\"").us3(ts).str("\",\"cat\":\"");
        f.str(cat).str("\"}");
    }
}

void RankWriter::counterEvent(std::int64_t pid, std::string_view name, std::string_view key, double value,
                              std::int64_t ts)
{
    beginEvent();
    auto& f = m_trace;
    auto args = [&] {
        f.str("\"args\":{\"").str(key).str("\":");
        if (value == std::floor(value) && std::fabs(value) < 1e15)
            f.i64(static_cast<std::int64_t>(value));
        else
            f.fixTrim(value, 3);
        f.ch('}');
    };
    if (m_l.msprof) {
        f.ch('{');
        args();
        f.str(",\"name\":\"").str(name).str("\",\"ph\":\"C\",\"pid\":").i64(pid).str(",\"tid\":0,\"ts\":\"").us3(ts);
        f.str("\"}");
    } else {
        f.str("{\"name\":\"").str(name).str("\",\"ts\":\"").us3(ts).str("\",\"pid\":").i64(pid).str(",\"tid\":0,");
        args();
        f.str(",\"ph\":\"C\"}");
    }
}

void RankWriter::xEvent(std::int64_t pid, std::int64_t tid, std::string_view name, std::int64_t ts,
                        std::int64_t dur, std::string_view args, std::string_view cat)
{
    beginEvent();
    writeX(m_trace, m_l.msprof, pid == m_pyPid, pid, tid, name, ts, dur, cat, [&] { m_trace.str(args); },
           !args.empty());
}

void RankWriter::writeTask(const StepPlan& plan, const Task& t)
{
    (void)plan;
    const OpKind& op = m_sc.ops[static_cast<std::size_t>(t.op)];
    const bool comm = op.core == Core::Comm;
    const std::string devName = comm ? commOpName(t) : op.name;
    auto& f = m_trace;
    const bool ms = m_l.msprof;
    if (!ms)
        xEvent(m_pyPid, m_tid, op.aten, t.pyStart, t.pyDur, "{\"Sequence number\":-1,\"Fwd thread id\":0}", "cpu_op");
    // host API and its launch
    const std::uint64_t aclConn = t.conn - 1;
    const char* mode = comm ? "HOST_HCCL" : "ACL_NN";
    auto hostArgs = [&](const char* m, const char* level, std::string_view id, std::string_view item,
                        std::uint64_t conn) {
        if (ms) {
            f.str("{\"Mode\":\"").str(m).str("\",\"Thread Id\":").i64(m_tid).str(",\"connection_id\":").u64(conn);
            f.str(",\"id\":\"").str(id).str("\",\"item_id\":\"").str(item).str("\",\"level\":\"").str(level).str("\"}");
        } else {
            f.str("{\"Thread Id\":").i64(m_tid).str(",\"Mode\":\"").str(m).str("\",\"level\":\"").str(level);
            f.str("\",\"id\":\"").str(id).str("\",\"item_id\":\"").str(item).str("\",\"connection_id\":").u64(conn).ch('}');
        }
    };
    const std::string aclName = "AscendCL@" + op.acl;
    beginEvent();
    writeX(f, ms, false, m_cannPid, m_tid, aclName, t.aclStart, t.aclDur, {},
           [&] { hostArgs(mode, "acl", op.acl, comm ? std::string_view(op.acl) : std::string_view("0"), aclConn); },
           true);
    addApi("acl", op.acl, t.aclDur);
    beginEvent();
    writeX(f, ms, false, m_cannPid, m_tid, "Node@launch", t.nodeStart, t.nodeDur, {},
           [&] { hostArgs("launch", "node", "0", devName, t.conn); }, true);
    addApi("node", "launch", t.nodeDur);
    char idBuf[32];
    const auto idEnd = std::to_chars(idBuf, idBuf + sizeof idBuf, t.conn << 32).ptr;
    const std::string_view flowId(idBuf, static_cast<std::size_t>(idEnd - idBuf));
    const std::string flowName = "HostToDevice" + std::string(flowId);
    flowEvent(true, "HostToDevice", flowName, flowId, true, m_cannPid, m_tid, t.nodeStart);
    // the device task
    beginEvent();
    const bool mix = op.core == Core::MixAic;
    writeX(f, ms, false, m_hwPid, t.stream, devName, t.start, t.dur, {}, [&] {
        const char* type = taskType(op.core);
        const std::int64_t subtask = mix ? 0 : kNoId;
        if (ms) {
            f.str("{\"Batch Id\":0,\"Model Id\":4294967295,\"Physic Stream Id\":").i64(t.stream);
            f.str(",\"Subtask Id\":").i64(subtask).str(",\"Task Id\":").u64(t.taskId).str(",\"Task Type\":\"").str(type);
            f.str("\",\"connection_id\":").u64(t.conn).ch('}');
        } else {
            f.str("{\"Model Id\":4294967295,\"Task Type\":\"").str(type).str("\",\"Physic Stream Id\":").i64(t.stream);
            f.str(",\"Task Id\":").u64(t.taskId).str(",\"Batch Id\":0,\"Subtask Id\":").i64(subtask);
            f.str(",\"connection_id\":").u64(t.conn).ch('}');
        }
    }, true);
    ++m_totals.deviceTasks;
    flowEvent(false, "HostToDevice", flowName, flowId, true, m_hwPid, t.stream, t.start);
    if (!ms) {
        char tsBuf[32];
        const auto tsEnd = std::to_chars(tsBuf, tsBuf + sizeof tsBuf, t.start).ptr;
        const std::string_view tsId(tsBuf, static_cast<std::size_t>(tsEnd - tsBuf));
        flowEvent(true, "async_npu", "torch_to_npu", tsId, false, m_pyPid, m_tid, t.pyStart);
        flowEvent(false, "async_npu", "torch_to_npu", tsId, false, m_hwPid, t.stream, t.start);
    }
    if (!comm)
        return;
    // the collective on the Communication lanes: the op, then its wait and transfer on plane 0
    beginEvent();
    writeX(f, ms, false, m_commPid, 0, devName, t.start, t.dur, {}, [&] {
        const std::uint64_t count = m_sc.msgBytes / 2;
        if (ms) {
            f.str("{\"alg_type\":\"MESH-RING\",\"connection_id\":").u64(t.conn).str(",\"count\":").u64(count);
            f.str(",\"data_type\":\"FP16\",\"model id\":4294967295}");
        } else {
            f.str("{\"connection_id\":").u64(t.conn).str(",\"model id\":4294967295,\"data_type\":\"FP16\",");
            f.str("\"alg_type\":\"MESH-RING\",\"count\":").u64(count).ch('}');
        }
    }, true);
    const Link* peer = nullptr;
    for (const auto& l : t.links)
        if (!l.local) {
            peer = &l;
            break;
        }
    auto planeTask = [&](const char* name, std::int64_t ts, std::int64_t dur, int ctx, const char* transport,
                         std::int64_t bytes, const char* dataType, const char* linkType, double bw) {
        const int dst = peer ? peer->dst : 0;
        beginEvent();
        writeX(f, ms, false, m_commPid, 1, name, ts, dur, {}, [&] {
            if (ms) {
                f.str("{\"bandwidth(GB/s)\":").fixTrim(bw, 4).str(",\"context id\":").i64(ctx);
                f.str(",\"data type\":\"").str(dataType).str("\",\"dst rank\":").i64(dst);
                f.str(",\"duration estimated(us)\":").fixTrim(static_cast<double>(dur) / 1000.0, 3);
                f.str(",\"link type\":\"").str(linkType).str("\",\"model id\":4294967295,\"notify_id\":\"0\"");
                f.str(",\"size(Byte)\":").i64(bytes).str(",\"src rank\":").i64(m_l.rank).str(",\"stream id\":");
                f.i64(t.stream).str(",\"task id\":").u64(t.taskId).str(",\"task type\":\"").str(name);
                f.str("\",\"transport type\":\"").str(transport).str("\"}");
            } else {
                f.str("{\"notify_id\":\"0\",\"duration estimated(us)\":").fixTrim(static_cast<double>(dur) / 1000.0, 3);
                f.str(",\"stream id\":").i64(t.stream).str(",\"task id\":").u64(t.taskId).str(",\"context id\":").i64(ctx);
                f.str(",\"task type\":\"").str(name).str("\",\"src rank\":").i64(m_l.rank).str(",\"dst rank\":").i64(dst);
                f.str(",\"transport type\":\"").str(transport).str("\",\"size(Byte)\":").i64(bytes);
                f.str(",\"data type\":\"").str(dataType).str("\",\"link type\":\"").str(linkType);
                f.str("\",\"bandwidth(GB/s)\":").fixTrim(bw, 4).str(",\"model id\":4294967295}");
            }
        }, true);
    };
    planeTask("Notify_Wait", t.start, t.transferStart - t.start, 0, "LOCAL", 0, "INVALID_TYPE", "INVALID_TYPE", 0);
    const std::int64_t bytes = peer ? static_cast<std::int64_t>(std::llround(peer->mb * 1e6)) : 0;
    const double bw = peer && peer->ns > 0 ? peer->mb / (static_cast<double>(peer->ns) / 1e6) : 0;
    planeTask("Reduce_Inline", t.transferStart, t.transitNs, 1, "SDMA", bytes, "FP16", "HCCS", bw);
}

void RankWriter::writeStep(const StepPlan& plan, const RankStep& rs, StepBreakdown& out)
{
    const bool ms = m_l.msprof;
    counterEvent(m_freqPid, "AI Core Freq", "MHz", kFreqMHz, plan.start);
    if (!ms)
        xEvent(m_pyPid, m_tid, "ProfilerStep#" + std::to_string(plan.index), plan.start, plan.end - plan.start,
               "{\"Sequence number\":-1,\"Fwd thread id\":0}", "cpu_op");

    std::vector<Interval> compute, comm;
    compute.reserve(rs.tasks.size());
    CommTotals stepComm;
    bool firstCommOp = true, firstMatrixOp = true;
    if (!ms) {
        if (!m_firstCommStep) {
            m_comm.ch(',');
            m_matrix.ch(',');
        }
        const std::string key = "\"step" + std::to_string(plan.index) + "\":{\"p2p\":{},\"collective\":{";
        m_comm.str(key);
        m_matrix.str(key);
    }
    // HBM counter per layer: bytes moved over the layer's window
    int layer = -1;
    std::int64_t layerStart = 0, layerEnd = 0;
    double layerBytes = 0;
    auto flushLayer = [&] {
        if (layer < 0 || layerEnd <= layerStart)
            return;
        const double mbps = layerBytes / 1e6 / (static_cast<double>(layerEnd - layerStart) / 1e9);
        counterEvent(m_hbmPid, "HBM 0/Read", "Read(MB/s)", r3(mbps * 0.75), layerStart);
        counterEvent(m_hbmPid, "HBM 0/Write", "Write(MB/s)", r3(mbps * 0.25), layerStart);
    };
    for (const Task& t : rs.tasks) {
        const OpKind& op = m_sc.ops[static_cast<std::size_t>(t.op)];
        writeTask(plan, t);
        if (op.core == Core::Comm) {
            writeCommRow(plan, t);
            comm.push_back({t.start, t.start + t.dur});
            stepComm.add(t);
            m_runComm.add(t);
            if (!firstCommOp || (ms && !m_firstCommStep)) {
                m_comm.ch(',');
                m_matrix.ch(',');
            }
            firstCommOp = false;
            m_comm.ch('"').str(commOpKey(t)).str("\":");
            writeCommOp(m_comm, t);
            m_matrix.ch('"').str(commOpKey(t)).str("\":{");
            bool firstLink = true;
            writeCommLinks(m_matrix, t, firstLink);
            m_matrix.ch('}');
            firstMatrixOp = false;
            if (ms)
                m_firstCommStep = false;
        } else {
            writeKernelRow(plan, t);
            compute.push_back({t.start, t.start + t.dur});
            if (t.layer != layer) {
                flushLayer();
                layer = t.layer;
                layerStart = t.start;
                layerBytes = 0;
            }
            layerEnd = t.start + t.dur;
            layerBytes += t.gbps * 1e9 * static_cast<double>(t.dur) / 1e9;
        }
    }
    (void)firstMatrixOp;
    flushLayer();
    counterEvent(m_hbmPid, "HBM 0/Read", "Read(MB/s)", 0, layerEnd);
    counterEvent(m_hbmPid, "HBM 0/Write", "Write(MB/s)", 0, layerEnd);
    // the step ends with the host waiting for the device
    {
        const char* acl = "aclrtSynchronizeStream";
        beginEvent();
        writeX(m_trace, ms, false, m_cannPid, m_tid, std::string("AscendCL@") + acl, rs.syncStart, rs.syncDur, {},
               [&] {
                   auto& f = m_trace;
                   if (ms) {
                       f.str("{\"Mode\":\"ACL_RTS\",\"Thread Id\":").i64(m_tid).str(",\"connection_id\":").u64(rs.syncConn);
                       f.str(",\"id\":\"").str(acl).str("\",\"item_id\":\"0\",\"level\":\"acl\"}");
                   } else {
                       f.str("{\"Thread Id\":").i64(m_tid).str(",\"Mode\":\"ACL_RTS\",\"level\":\"acl\",\"id\":\"").str(acl);
                       f.str("\",\"item_id\":\"0\",\"connection_id\":").u64(rs.syncConn).ch('}');
                   }
               }, true);
        addApi("acl", acl, rs.syncDur);
    }
    if (!ms) {
        m_comm.str(firstCommOp ? "\"Total Op Info\":" : ",\"Total Op Info\":");
        writeCommTotal(m_comm, stepComm);
        m_comm.str("}}");
        m_matrix.str("}}");
        m_firstCommStep = false;
    }

    // Overlap Analysis lanes and the step breakdown, from the tasks just written
    const Overlap ov = computeOverlap(compute, comm, plan.start, plan.end);
    const std::string_view noArgs = ms ? std::string_view("{}") : std::string_view();
    auto lane = [&](const std::vector<Interval>& v, const char* name, int torchTid, int msprofTid) {
        for (const auto& iv : v)
            xEvent(m_ovPid, ms ? msprofTid : torchTid, name, iv.first, iv.second - iv.first, noArgs);
    };
    lane(ov.computing, "Computing", 0, 2);
    lane(ov.communication, "Communication", 1, 0);
    lane(ov.notOverlapped, "Communication(Not Overlapped)", 2, 1);
    lane(ov.free, "Free", 3, 3);
    out.computing = total(ov.computing);
    out.comm = total(ov.communication);
    out.commNotOverlapped = total(ov.notOverlapped);
    out.overlapped = out.comm - out.commNotOverlapped;
    out.free = total(ov.free);
    out.stage = plan.end - plan.start;
    if (m_steps.isOpen()) {
        auto& f = m_steps;
        f.i64(plan.index).ch(',').us3(out.computing).ch(',').us3(out.commNotOverlapped).ch(',').us3(out.overlapped);
        f.ch(',').us3(out.comm).ch(',').us3(out.free).ch(',').us3(out.stage).str(",0,").us3(out.commNotOverlapped);
        f.str(",0\r\n");
    }
    m_totals.stepNs += out.stage;
    m_totals.commNoNs += out.commNotOverlapped;
    ++m_totals.steps;
}

bool RankWriter::finish(std::string& error)
{
    m_trace.ch(']');
    if (m_l.msprof) {
        if (!m_firstCommStep)
            m_comm.ch(',');
        m_comm.str("\"Total Op Info\":");
        writeCommTotal(m_comm, m_runComm);
    }
    m_comm.ch('}');
    m_matrix.ch('}');

    if (!writeStatistics(error))
        return false;
    bool ok = true;
    for (auto* p : {&m_trace, &m_kernels, &m_steps, &m_comm, &m_matrix}) {
        if (!p->isOpen())
            continue;
        const std::string path = p->path();
        if (!p->close()) {
            error = "write failed: " + path;
            ok = false;
        }
        m_bytesClosed += p->bytes();
    }
    return ok;
}

} // namespace npuscope::synth
