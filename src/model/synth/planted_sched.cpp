// The scheduler's plants (PlantConfig): host slices that hold the launches back, the launch
// queue that lets a host stall reach the device, and the late rank's extra delay. Every plant
// draws from its own generator, so the workload's draws stay as they are.
#include "model/synth/synth_model.h"

#include <algorithm>

namespace npuscope::synth {

namespace {

const char* const kLogMetricsStack = "train.py(88): log_metrics";
const char* const kLoaderStack = "/usr/local/python3.9.19/lib/python3.9/site-packages/torch/utils/data/"
                                 "dataloader.py(630): __next__;\r\ntrain.py(61): train";
const char* const kItemStack = "train.py(86): log_metrics";

} // namespace

void Scheduler::setPlants(PlantConfig p)
{
    m_plant = std::move(p);
    m_planting = !m_plant.plants.empty() || m_plant.late.rank >= 0;
    m_plantRng.seed(m_plant.seed * 0x2545F4914F6CDD1Dull + 0x632BE59BD9B4E019ull);
    m_issued.assign(static_cast<std::size_t>(m_ranks), {});
}

double Scheduler::plantJitter()
{
    const double u = static_cast<double>(m_plantRng() >> 11) * 0x1.0p-53;
    return 1.0 + 0.05 * (2.0 * u - 1.0);
}

// A bounded launch queue: the host waits until the task queueDepth launches back has started.
void Scheduler::waitQueue(StepClock& c, std::size_t r)
{
    if (m_plant.queueDepth <= 0)
        return;
    auto& q = m_issued[r];
    if (static_cast<int>(q.size()) >= m_plant.queueDepth) {
        c.host[r] = std::max(c.host[r], q.front());
        q.pop_front();
    }
}

void Scheduler::issued(std::size_t r, std::int64_t start)
{
    if (m_plant.queueDepth > 0)
        m_issued[r].push_back(start);
}

void Scheduler::plantBefore(StepPlan& plan, StepClock& c, int layer, std::size_t oi)
{
    const int L = m_sc.layers;
    const auto R = static_cast<std::size_t>(m_ranks);
    std::size_t firstCube = 0;
    for (std::size_t i = 0; i < m_sc.ops.size(); ++i)
        if (m_sc.ops[i].cubeRel > 0) {
            firstCube = i;
            break;
        }
    for (const PlantSpec& p : m_plant.plants) {
        for (std::size_t r = 0; r < R; ++r) {
            if (p.cause == "dataloader" && layer == 0 && oi == 0)
                plantPython(plan, c, r, "dataloader", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                            "dataloader", p.us * plantJitter(), kLoaderStack);
            else if (p.cause == "python_stall" && layer == L / 2 && oi == firstCube)
                plantPython(plan, c, r, "python_stall", "log_metrics", "host_python", p.us * plantJitter(), kLogMetricsStack);
            else if (p.cause == "sync" && layer == 3 * L / 4 && oi == 0)
                plantSync(plan, c, r, p.us);
            else if (p.cause == "compile" && layer == L / 4 && oi == firstCube)
                plantCompile(plan, c, r, p.us);
        }
    }
    const LateRankSpec& late = m_plant.late;
    if (late.rank < 0 || m_sc.ops[oi].core != Core::Comm || c.collectives != late.collective)
        return;
    const auto r = static_cast<std::size_t>(late.rank);
    if (late.kind == "host") {
        plantPython(plan, c, r, "late_host", "log_metrics", "host_python", late.us, kLogMetricsStack);
        plan.late.delayedBy = "log_metrics";
    } else {
        plantLateOp(plan, c, r, layer, late.us);
    }
    plan.late.rank = late.rank;
    plan.late.task = plan.ranks[r].tasks.size(); // the collective comes next
    plan.late.delayNs = us(late.us);
}

void Scheduler::plantPython(StepPlan& plan, StepClock& c, std::size_t r, const char* plant, const char* name,
                            const char* cause, double durUs, std::string stack)
{
    HostSlice h;
    h.where = HostSlice::Where::Python;
    h.name = name;
    h.plant = plant;
    h.cause = cause;
    h.stack = std::move(stack);
    h.start = c.host[r];
    h.dur = us(durUs);
    h.beforeTask = plan.ranks[r].tasks.size();
    c.host[r] = h.start + h.dur + us(1);
    plan.ranks[r].extra.push_back(std::move(h));
}

// loss.item(): aten::item → aten::_local_scalar_dense → aclrtSynchronizeStream, which returns
// when the device has run everything launched; then `durUs` of Python before the next launch.
void Scheduler::plantSync(StepPlan& plan, StepClock& c, std::size_t r, double durUs)
{
    auto& extra = plan.ranks[r].extra;
    const std::size_t before = plan.ranks[r].tasks.size();
    const std::int64_t h = c.host[r];
    const std::int64_t drain = std::max(c.dev[r], c.hccl[r]);
    HostSlice sync;
    sync.where = HostSlice::Where::CannMain;
    sync.name = "AscendCL@aclrtSynchronizeStream";
    sync.plant = "sync";
    sync.cause = "sync";
    sync.start = h + us(4);
    const std::int64_t syncEnd = std::max(drain + us(5), sync.start + us(2));
    sync.dur = syncEnd - sync.start;
    sync.conn = m_conn[r]++;
    sync.beforeTask = before;
    HostSlice dense;
    dense.name = "aten::_local_scalar_dense";
    dense.stack = kItemStack;
    dense.start = h + us(2);
    dense.dur = syncEnd - dense.start;
    dense.beforeTask = before;
    HostSlice item = dense;
    item.name = "aten::item";
    item.start = h;
    item.dur = syncEnd - h;
    HostSlice after;
    after.name = "log_loss";
    after.plant = "sync_python";
    after.cause = "host_python";
    after.stack = kLogMetricsStack;
    after.start = syncEnd;
    after.dur = us(durUs * plantJitter());
    after.beforeTask = before;
    c.host[r] = after.start + after.dur + us(1);
    // cpu_op slices in completion order, as torch_npu writes them
    extra.push_back(std::move(sync));
    extra.push_back(std::move(dense));
    extra.push_back(std::move(item));
    extra.push_back(std::move(after));
}

// An operator compiled on first use: aclopCompileAndExecute with opCompile inside, on the
// calling thread's CANN lane (as without the task queue), before the op's own launch.
void Scheduler::plantCompile(StepPlan& plan, StepClock& c, std::size_t r, double durUs)
{
    HostSlice outer;
    outer.where = HostSlice::Where::CannMain;
    outer.name = "AscendCL@aclopCompileAndExecute";
    outer.plant = "compile";
    outer.cause = "compile";
    outer.start = c.host[r];
    outer.dur = us(durUs * plantJitter());
    outer.conn = m_conn[r]++;
    outer.beforeTask = plan.ranks[r].tasks.size();
    HostSlice inner = outer;
    inner.name = "AscendCL@opCompile";
    inner.plant.clear();
    inner.cause.clear();
    inner.start = outer.start + us(2);
    inner.dur = std::max<std::int64_t>(outer.dur - us(4), us(1));
    inner.conn = m_conn[r]++;
    c.host[r] = outer.start + outer.dur + us(1);
    plan.ranks[r].extra.push_back(std::move(outer));
    plan.ranks[r].extra.push_back(std::move(inner));
}

// The late rank's extra MatMulV2 (of exactly durUs) with its launch, on the compute stream; no
// draw from the workload's generator, so the rank's other tasks keep theirs.
void Scheduler::plantLateOp(StepPlan& plan, StepClock& c, std::size_t r, int layer, double durUs)
{
    std::size_t mm = 0;
    for (std::size_t i = 0; i < m_sc.ops.size(); ++i)
        if (m_sc.ops[i].type == "MatMulV2") {
            mm = i;
            break;
        }
    const OpKind& op = m_sc.ops[mm];
    Task t;
    t.op = static_cast<int>(mm);
    t.layer = layer;
    t.stream = kComputeStream;
    waitQueue(c, r);
    t.pyStart = c.host[r];
    t.aclStart = t.pyStart + us(2.5);
    t.aclDur = us(14);
    t.nodeStart = t.aclStart + us(2);
    t.nodeDur = t.aclDur - us(3);
    t.pyDur = t.aclStart - t.pyStart + t.aclDur + us(3);
    c.host[r] = t.pyStart + t.pyDur + us(2);
    t.conn = m_conn[r] + 1;
    m_conn[r] += 2;
    t.start = std::max(c.dev[r] + us(1.5), t.nodeStart + t.nodeDur + us(3));
    t.dur = us(durUs);
    t.waitBefore = t.start - c.dev[r];
    t.taskId = nextTaskId(0, r);
    t.coreFrac = 0.94;
    t.util = std::min(t.coreFrac * 99.0, m_sc.utilPerRel * op.cubeRel);
    t.jit = 1;
    t.gbps = m_sc.gbpsPerRel * op.memRel;
    t.l2Hit = m_sc.targetL2;
    c.dev[r] = t.start + t.dur;
    issued(r, t.start);
    plan.late.delayedBy = op.name;
    plan.ranks[r].tasks.push_back(std::move(t));
}

} // namespace npuscope::synth
