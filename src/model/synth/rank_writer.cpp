#include "model/synth/rank_writer.h"

#include "model/synth/device_model.h"
#include "model/synth/overlap.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace npuscope::synth {

namespace {

// A step_trace_time value as torch_npu computes it: a Python float sum of µs durations
// ("8873.756000000001", "136581.0").
double sumUs(const std::vector<Interval>& v)
{
    double s = 0;
    for (const auto& iv : v)
        s += static_cast<double>(iv.second - iv.first) / 1000.0;
    return s;
}

} // namespace

RankWriter::RankWriter(const Scenario& sc, RankLayout layout)
    : m_sc(sc), m_l(std::move(layout)),
      m_style(m_l.msprof || m_l.compactJson ? JsonStyle::compact() : JsonStyle::python())
{
    m_tid = m_l.hostPid;
    m_deqTid = m_l.msprof ? m_l.hostPid : m_l.dequeueTid();
    m_pyPid = m_l.hostPid;
    m_cannPid = pidOf(7, true);
    m_hwPid = pidOf(13, false);
    m_freqPid = pidOf(14, false);
    m_commPid = pidOf(15, false);
    m_hbmPid = pidOf(17, false);
    m_ovPid = pidOf(m_l.msprof ? 29 : 23, false);
    m_py = pythonSides(m_sc);
}

std::int64_t RankWriter::pidOf(int sortIndex, bool host) const
{
    // realPid<<10 | sortIndex<<5 | device (msprof marks host processes with device 31)
    const std::int64_t dev = host && m_l.msprof ? 31 : m_l.device;
    return (m_l.hostPid << 10) | (static_cast<std::int64_t>(sortIndex) << 5) | dev;
}

Dur RankWriter::deviceDur(const Task& t) const
{
    return Dur{Dur::Kind::Clock, t.dur, static_cast<int>((t.taskId * 7u + 3u) % 16u)};
}

bool RankWriter::open(std::string& error)
{
    const std::string& out = m_l.outputDir;
    const bool level1 = m_l.msprof || m_l.level >= 1;
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
        if (level1) { // communication files from level 1 on
            comm = out + "/communication.json";
            matrix = out + "/communication_matrix.json";
        }
    }
    if (m_l.discardText)
        for (auto* path : {&trace, &kernels, &comm, &matrix, &stepFile})
            if (!path->empty())
                *path = "/dev/null";
    TraceWriter::Ids ids;
    ids.pyPid = m_pyPid;
    ids.mainTid = m_tid;
    ids.dequeueTid = m_deqTid;
    ids.cannPid = m_cannPid;
    ids.hwPid = m_hwPid;
    ids.freqPid = m_freqPid;
    ids.commPid = m_commPid;
    ids.hbmPid = m_hbmPid;
    ids.ovPid = m_ovPid;
    m_trace = std::make_unique<TraceWriter>(m_l.msprof, m_l.compactJson, m_l.msprof ? 1 : m_l.level, ids,
                                            std::vector<int>{Scheduler::kComputeStream, Scheduler::kCommStream}, 1);
    if (!m_l.msprof)
        m_trace->setShape(m_l.processOrdered, m_l.flowOrder);
    if (!m_trace->open(trace, error))
        return false;
    for (auto [file, path] : {std::pair{&m_kernels, &kernels}, {&m_comm, &comm}, {&m_matrix, &matrix},
                              {&m_steps, &stepFile}}) {
        if (!path->empty() && !file->open(*path)) {
            error = "cannot write " + *path;
            return false;
        }
    }
    if (m_l.msprof)
        m_kernels.str("Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
                      "Task Duration(us),Task Wait Time(us),");
    else if (m_l.level == 0) // no operator or PMU details at level 0
        m_kernels.str("Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\r\n");
    else
        m_kernels.str("Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),"
                      "Duration(us),Wait Time(us),");
    if (level1)
        m_kernels.str("Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,Input Formats,Output Shapes,"
                      "Output Data Types,Output Formats,Context ID,")
            .str(kernelPmuHeader())
            .str(m_l.msprof ? "\n" : "\r\n");
    if (m_steps.isOpen())
        m_steps.str("Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
                    "Communication(Not Overlapped and Exclude Receive),Preparing\r\n");
    if (m_comm.isOpen()) {
        m_comm.ch('{');
        m_matrix.ch('{');
    }
    return openTables(error);
}

void RankWriter::cannApi(std::int64_t tid, std::string_view name, const char* mode, const char* level,
                         std::string_view id, std::string_view item, std::uint64_t conn, std::int64_t ts,
                         std::int64_t dur)
{
    const bool ms = m_l.msprof;
    m_trace->deviceX(m_cannPid, tid, name, ts, Dur{Dur::Kind::Scaled, dur, 0}, [&](JsonObj& a) {
        if (ms) {
            a.str("Mode", mode).i64("Thread Id", tid).u64("connection_id", conn).str("id", id).str("item_id", item);
            a.str("level", level);
        } else {
            a.i64("Thread Id", tid).str("Mode", mode).str("level", level).str("id", id).str("item_id", item);
            a.u64("connection_id", conn);
        }
    });
}

void RankWriter::writePython(const Task& t, std::int64_t layerFrameId, std::int64_t cpuOpDur)
{
    const OpKind& op = m_sc.ops[static_cast<std::size_t>(t.op)];
    const PythonSide& py = m_py[static_cast<std::size_t>(t.op)];
    if (cpuOpDur < 0)
        return;
    m_trace->cpuOp(op.aten, t.pyStart, cpuOpDur, [&](JsonObj& a) {
        a.i64("Sequence number", -1).i64("Fwd thread id", 0);
        // record_shapes=True
        if (!py.dims.empty())
            a.str("Input Dims", jsonEscape(py.dims)).str("Input type", jsonEscape(py.types));
        if (m_l.withStack)
            a.str("Call stack", jsonEscape(joinFrames(py.stack, ";\r\n")));
    });
    // the task queue: the op is enqueued on its thread, dequeued and launched on the queue's
    const std::uint64_t corr = m_correlation++;
    const std::int64_t lead = t.aclStart - t.pyStart;
    m_trace->enqueue(t.pyStart + lead / 3, std::max<std::int64_t>(lead / 3, 10), corr);
    m_trace->dequeue(op.acl, t.aclStart - 400, t.aclDur + 700, corr);
    if (m_l.withStack)
        m_trace->pyFunction(py.caller, t.pyStart - 300, cpuOpDur + 500, m_pythonId++, layerFrameId);
}

void RankWriter::writeTask(const StepPlan& plan, const Task& t)
{
    (void)plan;
    const OpKind& op = m_sc.ops[static_cast<std::size_t>(t.op)];
    const bool comm = op.core == Core::Comm;
    const std::string devName = comm ? commOpName(t) : op.name;
    const bool ms = m_l.msprof;
    const int level = ms ? 1 : m_l.level;
    // host API and its launch, on the task queue's thread (level 0 keeps no CANN slices)
    const std::uint64_t aclConn = t.conn - 1;
    const char* mode = comm ? "HOST_HCCL" : "ACL_NN";
    if (level >= 1) {
        if (m_groupLead)
            cannApi(m_deqTid, "AscendCL@" + op.acl, mode, "acl", op.acl,
                    comm ? std::string_view(op.acl) : std::string_view("0"), aclConn, t.aclStart, t.aclDur);
        cannApi(m_deqTid, "Node@launch", "launch", "node", "0", devName, t.conn, t.nodeStart, t.nodeDur);
        if (level >= 2 && !comm) // the runtime call under the launch
            cannApi(m_deqTid, "Runtime@KernelLaunchWithHandle", "KernelLaunchWithHandle", "runtime", "0", "0",
                    t.conn | (1ull << 31), t.nodeStart + t.nodeDur / 4, t.nodeDur / 2);
    }
    if (m_groupLead)
        addApi("acl", op.acl, t.aclDur);
    addApi("node", "launch", t.nodeDur);
    if (level >= 2 && !comm)
        addApi("runtime", "KernelLaunchWithHandle", t.nodeDur / 2);
    char idBuf[32];
    const auto idEnd = std::to_chars(idBuf, idBuf + sizeof idBuf, t.conn << 32).ptr;
    const std::string_view flowId(idBuf, static_cast<std::size_t>(idEnd - idBuf));
    m_trace->hostToDevice(true, flowId, m_cannPid, m_deqTid, t.nodeStart);
    // the device task
    const bool mix = op.core == Core::MixAic;
    m_trace->deviceX(m_hwPid, t.stream, devName, t.start, deviceDur(t), [&](JsonObj& a) {
        const char* type = taskType(op.core);
        const std::int64_t subtask = mix ? 0 : kNoId;
        if (ms) {
            a.i64("Batch Id", 0).i64("Model Id", 4294967295).i64("Physic Stream Id", t.stream).i64("Subtask Id", subtask);
            a.u64("Task Id", t.taskId).str("Task Type", type).u64("connection_id", t.conn);
        } else {
            a.i64("Model Id", 4294967295).str("Task Type", type).i64("Physic Stream Id", t.stream).u64("Task Id", t.taskId);
            a.i64("Batch Id", 0).i64("Subtask Id", subtask).u64("connection_id", t.conn);
        }
    });
    ++m_totals.deviceTasks;
    m_trace->hostToDevice(false, flowId, m_hwPid, t.stream, t.start);
    if (!ms && m_groupLead)
        m_trace->torchToNpu(t.pyStart, m_hwPid, t.stream, t.start);
    if (!comm)
        return;
    // the collective on the Communication lanes: the op, then its wait and transfer on plane 0
    m_trace->deviceX(m_commPid, 0, devName, t.start, deviceDur(t), [&](JsonObj& a) {
        const std::uint64_t count = m_sc.msgBytes / 2;
        if (ms)
            a.str("alg_type", "MESH-RING").u64("connection_id", t.conn).u64("count", count).str("data_type", "FP16")
                .i64("model id", 4294967295);
        else
            a.u64("connection_id", t.conn).i64("model id", 4294967295).str("data_type", "FP16").str("alg_type", "MESH-RING")
                .u64("count", count);
    });
    if (level < 1) // level 0 writes the collectives without their tasks
        return;
    const Link* peer = nullptr;
    for (const auto& l : t.links)
        if (!l.local) {
            peer = &l;
            break;
        }
    auto planeTask = [&](const char* name, std::int64_t ts, std::int64_t dur, int ctx, const char* transport,
                         std::int64_t bytes, const char* dataType, const char* linkType, double bw) {
        const int dst = peer ? peer->dst : 0;
        const double estimated = static_cast<double>(dur) / 1000.0;
        Dur d{Dur::Kind::Clock, dur, static_cast<int>((t.taskId + static_cast<unsigned>(ctx)) % 16u)};
        m_trace->deviceX(m_commPid, 1, name, ts, d, [&](JsonObj& a) {
            if (ms) {
                a.key("bandwidth(GB/s)").fixTrim(bw, 4);
                a.i64("context id", ctx).str("data type", dataType).i64("dst rank", dst);
                a.key("duration estimated(us)").fixTrim(estimated, 3);
                a.str("link type", linkType).i64("model id", 4294967295).str("notify_id", "0").i64("size(Byte)", bytes);
                a.i64("src rank", m_l.rank).i64("stream id", t.stream).u64("task id", t.taskId).str("task type", name);
                a.str("transport type", transport);
            } else {
                a.str("notify_id", "0").num("duration estimated(us)", estimated).i64("stream id", t.stream);
                a.u64("task id", t.taskId).i64("context id", ctx).str("task type", name).i64("src rank", m_l.rank);
                a.i64("dst rank", dst).str("transport type", transport).i64("size(Byte)", bytes);
                a.str("data type", dataType).str("link type", linkType).num("bandwidth(GB/s)", bw);
                a.i64("model id", 4294967295);
            }
        });
    };
    planeTask("Notify_Wait", t.start, t.transferStart - t.start, 0, "LOCAL", 0, "INVALID_TYPE", "INVALID_TYPE", 0);
    const std::int64_t bytes = peer ? static_cast<std::int64_t>(std::llround(peer->mb * 1e6)) : 0;
    const double bw = peer && peer->ns > 0 ? peer->mb / (static_cast<double>(peer->ns) / 1e6) : 0;
    planeTask("Reduce_Inline", t.transferStart, t.transitNs, 1, "SDMA", bytes, "FP16", "HCCS", bw);
}

// What a step's task loop gathers: the device intervals for the overlap lanes, the step's
// communication totals and the per-layer state of the Python frames and HBM counters.
struct RankWriter::StepState {
    std::vector<Interval> compute, comm;
    CommTotals stepComm;
    bool firstCommOp = true;
    // with_stack: python_function slices of the step (generate), each decoder layer and each op's caller
    std::int64_t stepFrameId = 0, layerFrameId = 0, layerFrom = 0, layerTo = 0;
    int pyLayer = -1;
    // HBM counter per layer: bytes moved over the layer's window
    int layer = -1;
    std::int64_t layerStart = 0, layerEnd = 0;
    double layerBytes = 0;
};

// torch_npu's communication files open a "stepN" object per step.
void RankWriter::openStepCommFiles(const StepPlan& plan)
{
    if (m_l.msprof || !m_comm.isOpen())
        return;
    if (!m_firstCommStep) {
        m_comm.str(m_style.item);
        m_matrix.str(m_style.item);
    }
    for (OutFile* f : {&m_comm, &m_matrix}) {
        f->ch('"').str("step").i64(plan.index).ch('"').str(m_style.colon).ch('{');
        f->str("\"p2p\"").str(m_style.colon).str("{}").str(m_style.item).str("\"collective\"").str(m_style.colon).ch('{');
    }
}

void RankWriter::flushHbmLayer(const StepState& st)
{
    if (st.layer < 0 || st.layerEnd <= st.layerStart)
        return;
    const double mbps = st.layerBytes / 1e6 / (static_cast<double>(st.layerEnd - st.layerStart) / 1e9);
    m_trace->counter(m_hbmPid, "HBM 0/Read", "Read(MB/s)", r3(mbps * 0.75), false, st.layerStart);
    m_trace->counter(m_hbmPid, "HBM 0/Write", "Write(MB/s)", r3(mbps * 0.25), false, st.layerStart);
}

void RankWriter::flushPythonLayer(const StepState& st)
{
    if (st.pyLayer >= 0 && m_l.withStack && !m_l.msprof)
        m_trace->pyFunction(layerFrame(), st.layerFrom, st.layerTo - st.layerFrom, st.layerFrameId, st.stepFrameId);
}

// A collective's entries in the communication and matrix files.
void RankWriter::writeCommOpFiles(const Task& t, StepState& st)
{
    const bool ms = m_l.msprof;
    if (!st.firstCommOp || (ms && !m_firstCommStep)) {
        m_comm.str(m_style.item);
        m_matrix.str(m_style.item);
    }
    st.firstCommOp = false;
    m_comm.ch('"').str(commOpKey(t)).ch('"').str(m_style.colon);
    writeCommOp(m_comm, t, m_style);
    m_matrix.ch('"').str(commOpKey(t)).ch('"').str(m_style.colon).ch('{');
    bool firstLink = true;
    writeCommLinks(m_matrix, t, firstLink, m_style);
    m_matrix.ch('}');
    if (ms)
        m_firstCommStep = false;
}

// Every file's lines of one task: Python and operator details (torch_npu), the timeline, and
// the kernel or communication rows.
void RankWriter::writeStepTask(const StepPlan& plan, const RankStep& rs, std::size_t i, StepState& st)
{
    const Task& t = rs.tasks[i];
    const OpKind& op = m_sc.ops[static_cast<std::size_t>(t.op)];
    if (!m_l.msprof) {
        if (t.layer != st.pyLayer) {
            flushPythonLayer(st);
            st.pyLayer = t.layer;
            st.layerFrameId = m_pythonId++;
            st.layerFrom = t.pyStart - 800;
        }
        st.layerTo = t.pyStart + t.pyDur + 600;
        // With devicePerPyOp = k, every k-th task's cpu_op spans the host time of the next k
        // launches (the host clock only moves forward, so it encloses them); its queue entry,
        // AscendCL call and torch_to_npu flow stand for all k, each task keeps its launch.
        std::int64_t cpuOpDur = -1;
        const auto k = static_cast<std::size_t>(std::max(1, m_l.devicePerPyOp));
        if (i % k == 0) {
            const Task& last = rs.tasks[std::min(rs.tasks.size(), i + k) - 1];
            cpuOpDur = last.pyStart + last.pyDur - t.pyStart;
        }
        m_groupLead = cpuOpDur >= 0;
        writePython(t, st.layerFrameId, cpuOpDur);
        writeOperatorDetails(t);
    }
    writeTask(plan, t);
    if (op.core == Core::Comm) {
        writeCommRow(plan, t);
        st.comm.push_back({t.start, t.start + t.dur});
        st.stepComm.add(t);
        m_runComm.add(t);
        if (m_comm.isOpen())
            writeCommOpFiles(t, st);
        return;
    }
    writeKernelRow(plan, t);
    writeL2Row(t);
    st.compute.push_back({t.start, t.start + t.dur});
    if (t.layer != st.layer) {
        flushHbmLayer(st);
        st.layer = t.layer;
        st.layerStart = t.start;
        st.layerBytes = 0;
    }
    st.layerEnd = t.start + t.dur;
    st.layerBytes += t.gbps * 1e9 * static_cast<double>(t.dur) / 1e9;
}

// A planted host slice: a Python cpu_op, or an AscendCL call on the main or the task queue's thread.
void RankWriter::writeHostSlice(const HostSlice& h)
{
    if (h.where == HostSlice::Where::Python) {
        if (m_l.msprof)
            return;
        m_trace->cpuOp(h.name, h.start, h.dur, [&](JsonObj& a) {
            a.i64("Sequence number", -1).i64("Fwd thread id", 0);
            if (m_l.withStack && !h.stack.empty())
                a.str("Call stack", jsonEscape(h.stack));
        });
        return;
    }
    const bool rts = h.name.find("Synchronize") != std::string::npos;
    const std::string api = h.name.substr(h.name.find('@') + 1);
    if (m_l.msprof || m_l.level >= 1)
        cannApi(h.where == HostSlice::Where::CannMain ? m_tid : m_deqTid, h.name, rts ? "ACL_RTS" : "ACL_OP", "acl",
                api, "0", h.conn, h.start, h.dur);
    addApi("acl", api, h.dur);
}

// The step ends with the host waiting for the device.
void RankWriter::writeStepSync(const RankStep& rs)
{
    const bool ms = m_l.msprof;
    const char* acl = "aclrtSynchronizeStream";
    if (ms || m_l.level >= 1)
        cannApi(m_tid, std::string("AscendCL@") + acl, "ACL_RTS", "acl", acl, "0", rs.syncConn, rs.syncStart,
                rs.syncDur);
    addApi("acl", acl, rs.syncDur);
    if (!ms && m_l.level >= 2 && rs.syncDur > 2000) {
        cannApi(m_tid, "Runtime@StreamSynchronize", "StreamSynchronize", "runtime", "0", "0",
                rs.syncConn | (1ull << 31), rs.syncStart + 1000, rs.syncDur - 2000);
        addApi("runtime", "StreamSynchronize", rs.syncDur - 2000);
    }
}

// torch_npu closes a step's communication objects with its "Total Op Info".
void RankWriter::closeStepCommFiles(const StepState& st)
{
    if (m_l.msprof || !m_comm.isOpen())
        return;
    m_comm.str(st.firstCommOp ? "" : m_style.item).str("\"Total Op Info\"").str(m_style.colon);
    writeCommTotal(m_comm, st.stepComm, m_style);
    m_comm.str("}}");
    m_matrix.str("}}");
    m_firstCommStep = false;
}

// The Overlap Analysis lanes and, for torch_npu, the step's ProfilerStep slice.
void RankWriter::writeStepLanes(const StepPlan& plan, const RankStep& rs, const StepState& st, const Overlap& ov)
{
    const bool ms = m_l.msprof;
    auto lane = [&](const std::vector<Interval>& v, const char* name, int torchTid, int msprofTid) {
        for (const auto& iv : v)
            m_trace->overlapX(ms ? msprofTid : torchTid, name, iv.first, iv.second - iv.first);
    };
    lane(ov.computing, "Computing", 0, 2);
    lane(ov.communication, "Communication", 1, 0);
    lane(ov.notOverlapped, "Communication(Not Overlapped)", 2, 1);
    lane(ov.free, "Free", 3, 3);
    m_trace->endStep();
    if (ms)
        return;
    // the ProfilerStep ends last (cpu_op slices come in completion order), with the step's generate()
    if (m_l.withStack)
        m_trace->pyFunction(stepFrame(), plan.start + 2000, rs.syncStart + rs.syncDur + 1000 - (plan.start + 2000),
                            st.stepFrameId, 0);
    m_trace->cpuOp("ProfilerStep#" + std::to_string(plan.index), plan.start, plan.end - plan.start,
                   [](JsonObj& a) { a.i64("Sequence number", -1).i64("Fwd thread id", 0); });
}

// The step breakdown: returned, added to the totals and written as a step_trace_time row.
void RankWriter::writeStepBreakdown(const StepPlan& plan, const Overlap& ov, StepBreakdown& out)
{
    out.computing = total(ov.computing);
    out.comm = total(ov.communication);
    out.commNotOverlapped = total(ov.notOverlapped);
    out.overlapped = out.comm - out.commNotOverlapped;
    out.free = total(ov.free);
    // as the profiler writes it: Stage the device part, Preparing the step's start to it
    out.stage = ov.deviceEnd - ov.deviceBegin;
    out.preparing = ov.deviceBegin - plan.start;
    if (m_steps.isOpen()) {
        auto& f = m_steps;
        const double computing = sumUs(ov.computing), commAll = sumUs(ov.communication);
        const double notOverlapped = sumUs(ov.notOverlapped);
        f.i64(plan.index).ch(',').shortest(computing).ch(',').shortest(notOverlapped).ch(',');
        f.shortest(commAll - notOverlapped).ch(',').shortest(commAll).ch(',').shortest(sumUs(ov.free)).ch(',');
        f.shortest(static_cast<double>(out.stage) / 1000.0).str(",0,").shortest(notOverlapped).ch(',');
        f.shortest(static_cast<double>(out.preparing) / 1000.0).str("\r\n");
    }
    m_totals.stepNs += out.stage;
    m_totals.commNoNs += out.commNotOverlapped;
    ++m_totals.steps;
}

void RankWriter::writeStep(const StepPlan& plan, const RankStep& rs, StepBreakdown& out)
{
    m_trace->counter(m_freqPid, "AI Core Freq", "MHz", kFreqMHz, true, plan.start);
    StepState st;
    st.compute.reserve(rs.tasks.size());
    openStepCommFiles(plan);
    st.stepFrameId = m_pythonId++;
    std::size_t extra = 0; // planted host slices, each before the task it precedes
    for (std::size_t i = 0; i < rs.tasks.size(); ++i) {
        for (; extra < rs.extra.size() && rs.extra[extra].beforeTask <= i; ++extra)
            writeHostSlice(rs.extra[extra]);
        writeStepTask(plan, rs, i, st);
    }
    for (; extra < rs.extra.size(); ++extra)
        writeHostSlice(rs.extra[extra]);
    flushPythonLayer(st);
    flushHbmLayer(st);
    m_trace->counter(m_hbmPid, "HBM 0/Read", "Read(MB/s)", 0, false, st.layerEnd);
    m_trace->counter(m_hbmPid, "HBM 0/Write", "Write(MB/s)", 0, false, st.layerEnd);
    writeStepSync(rs);
    closeStepCommFiles(st);
    // Overlap Analysis lanes and the step breakdown, from the tasks just written
    const Overlap ov = computeOverlap(st.compute, st.comm, plan.start, plan.end);
    writeStepLanes(plan, rs, st, ov);
    writeStepBreakdown(plan, ov, out);
}

bool RankWriter::finish(std::string& error)
{
    if (m_l.msprof && m_comm.isOpen()) {
        if (!m_firstCommStep)
            m_comm.str(m_style.item);
        m_comm.str("\"Total Op Info\"").str(m_style.colon);
        writeCommTotal(m_comm, m_runComm, m_style);
    }
    if (m_comm.isOpen()) {
        m_comm.ch('}');
        m_matrix.ch('}');
    }
    if (!m_trace->finish(error))
        return false;
    m_bytesClosed += m_trace->bytes();
    if (!writeStatistics(error))
        return false;
    bool ok = true;
    for (auto* p : {&m_kernels, &m_steps, &m_comm, &m_matrix, &m_l2, &m_opDetails}) {
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
