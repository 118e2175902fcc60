#include "model/synth/synth_model.h"

#include <algorithm>
#include <cmath>

namespace npuscope::synth {

namespace {

OpKind vectorOp(std::string type, std::string name, std::string acl, std::string aten, double durUs,
                double vec, double mte2, double mte3, std::string shapes, std::string inTypes,
                std::string outShapes, std::string outTypes)
{
    OpKind k;
    k.type = std::move(type);
    k.name = std::move(name);
    k.acl = std::move(acl);
    k.aten = std::move(aten);
    k.core = Core::AiVector;
    k.durUs = durUs;
    k.cubeRel = 0;
    k.memRel = 0.6;
    k.vec = vec;
    k.vMte2 = mte2;
    k.vMte3 = mte3;
    k.vScalar = 0.08;
    k.blockDim = 48;
    k.inShapes = std::move(shapes);
    k.inTypes = std::move(inTypes);
    k.inFormats = "ND";
    k.outShapes = std::move(outShapes);
    k.outTypes = std::move(outTypes);
    k.outFormats = "ND";
    return k;
}

OpKind cubeOp(std::string type, std::string name, std::string acl, std::string aten, double durUs,
              double mac, double mte2, std::string shapes, std::string outShapes)
{
    OpKind k;
    k.type = std::move(type);
    k.name = std::move(name);
    k.acl = std::move(acl);
    k.aten = std::move(aten);
    k.core = Core::AiCore;
    k.durUs = durUs;
    k.cubeRel = 1;
    k.memRel = 1.2;
    k.mac = mac;
    k.mte2 = mte2;
    k.mte1 = 0.28;
    k.fixpipe = 0.09;
    k.scalar = 0.05;
    k.blockDim = 24;
    k.inShapes = std::move(shapes);
    k.inTypes = "FLOAT16;FLOAT16";
    k.inFormats = "ND;ND";
    k.outShapes = std::move(outShapes);
    k.outTypes = "FLOAT16";
    k.outFormats = "ND";
    return k;
}

OpKind allReduce()
{
    OpKind k;
    k.type = "hcom_allReduce_";
    k.name = "hcom_allReduce_";
    k.acl = "hcom_allReduce_";
    k.aten = "c10d::allreduce_";
    k.core = Core::Comm;
    k.cubeRel = 0;
    k.memRel = 0;
    return k;
}

// Unfused RMSNorm of the baseline: Cast, LayerNorm, Cast, then the residual Add.
void addUnfusedNorm(std::vector<OpKind>& ops)
{
    ops.push_back(vectorOp("Cast", "aclnnCast_Cast_Cast", "aclnnCast", "aten::to", 11, 0.21, 0.76, 0.41,
                           "\"256,4096\"", "FLOAT16", "\"256,4096\"", "FLOAT"));
    ops.push_back(vectorOp("LayerNorm", "aclnnLayerNorm_LayerNorm_LayerNorm", "aclnnLayerNorm",
                           "aten::native_layer_norm", 28, 0.22, 0.79, 0.33, "\"256,4096;4096;4096\"",
                           "FLOAT;FLOAT;FLOAT", "\"256,4096;256,1;256,1\"", "FLOAT;FLOAT;FLOAT"));
    ops.push_back(vectorOp("Cast", "aclnnCast_Cast_Cast", "aclnnCast", "aten::to", 11, 0.21, 0.76, 0.41,
                           "\"256,4096\"", "FLOAT", "\"256,4096\"", "FLOAT16"));
    ops.push_back(vectorOp("Add", "aclnnAdd_Add_Add", "aclnnAdd", "aten::add", 10, 0.15, 0.81, 0.46,
                           "\"256,4096;256,4096\"", "FLOAT16;FLOAT16", "\"256,4096\"", "FLOAT16"));
}

OpKind fusedNorm()
{
    OpKind k = vectorOp("AddRmsNorm", "aclnnAddRmsNorm_AddRmsNorm_AddRmsNorm", "aclnnAddRmsNorm",
                        "npu::npu_add_rms_norm", 9, 0.56, 0.48, 0.27, "\"256,4096;256,4096;4096\"",
                        "FLOAT16;FLOAT16;FLOAT16", "\"256,4096;256,1;256,4096\"", "FLOAT16;FLOAT;FLOAT16");
    k.memRel = 0.8;
    return k;
}

Scenario baseline()
{
    Scenario sc;
    sc.name = "llama2-baseline";
    auto& ops = sc.ops;
    auto mm = [](double dur, const char* w) {
        return cubeOp("MatMulV2", "aclnnMatmul_MatMulCommon_MatMulV2", "aclnnMatmul", "aten::mm", dur, 0.35, 0.86,
                      std::string("\"256,4096;") + w + "\"",
                      "\"256," + std::string(w).substr(std::string(w).find(',') + 1) + "\"");
    };
    addUnfusedNorm(ops);
    ops.push_back(mm(62, "4096,512"));
    ops.back().gapUs = 35;
    ops.push_back(mm(62, "4096,512"));
    ops.push_back(mm(62, "4096,512"));
    OpKind bmm = cubeOp("BatchMatMul", "aclnnBatchMatMul_BatchMatMul_BatchMatMul", "aclnnBatchMatMul",
                        "aten::bmm", 38, 0.41, 0.72, "\"4,256,128;4,128,1024\"", "\"4,256,1024\"");
    bmm.cubeRel = 0.8;
    bmm.memRel = 0.8;
    bmm.blockDim = 20; // not a multiple of the 24 AI Cores: the baseline leaves cores idle
    bmm.gapUs = 30;
    ops.push_back(bmm);
    ops.push_back(vectorOp("SoftmaxV2", "aclnnSoftmax_SoftmaxV2_SoftmaxV2", "aclnnSoftmax", "aten::_softmax", 30,
                           0.34, 0.62, 0.3, "\"4,256,1024\"", "FLOAT16", "\"4,256,1024\"", "FLOAT16"));
    bmm.gapUs = 0;
    bmm.inShapes = "\"4,256,1024;4,1024,128\"";
    bmm.outShapes = "\"4,256,128\"";
    ops.push_back(bmm);
    ops.push_back(mm(62, "512,4096"));
    addUnfusedNorm(ops);
    ops.push_back(mm(160, "4096,1376"));
    ops.back().gapUs = 30;
    ops.push_back(mm(160, "4096,1376"));
    ops.push_back(vectorOp("Swish", "aclnnSilu_Swish_Swish", "aclnnSilu", "aten::silu", 14, 0.27, 0.71, 0.4,
                           "\"256,1376\"", "FLOAT16", "\"256,1376\"", "FLOAT16"));
    ops.push_back(vectorOp("Mul", "aclnnMul_Mul_Mul", "aclnnMul", "aten::mul", 12, 0.18, 0.78, 0.44,
                           "\"256,1376;256,1376\"", "FLOAT16;FLOAT16", "\"256,1376\"", "FLOAT16"));
    ops.push_back(mm(160, "1376,4096"));
    ops.back().gapUs = 25;
    ops.push_back(allReduce());
    sc.overlapComm = false;
    sc.linkGBps = 10;
    sc.msgBytes = 16777216;
    sc.targetUtil = 38;
    sc.targetL2 = 0.45;
    sc.targetHbm = 0.62;
    sc.env = {{"ASCEND_GLOBAL_LOG_LEVEL", "1"}, {"HCCL_RDMA_TC", ""},          {"HCCL_RDMA_SL", ""},
              {"ACLNN_CACHE_LIMIT", ""},        {"HOST_CACHE_CAPACITY", ""},   {"ASCEND_ENHANCE_ENABLE", ""},
              {"PYTORCH_NPU_ALLOC_CONF", ""},   {"ASCEND_LAUNCH_BLOCKING", ""}, {"HCCL_ALGO", ""}};
    return sc;
}

Scenario optimized()
{
    Scenario sc;
    sc.name = "llama2-optimized";
    auto& ops = sc.ops;
    auto mm = [](double dur, const char* w, const char* out) {
        OpKind k = cubeOp("MatMulV2", "aclnnMatmul_MatMulCommon_MatMulV2", "aclnnMatmul", "aten::mm", dur, 0.74, 0.52,
                          std::string("\"256,4096;") + w + "\"", std::string("\"256,") + out + "\"");
        k.memRel = 1.0;
        return k;
    };
    ops.push_back(fusedNorm());
    ops.push_back(mm(114, "4096,1536", "1536"));
    OpKind fa = cubeOp("FlashAttentionScore", "aclnnFlashAttentionScore_FlashAttentionScore_FlashAttentionScore",
                       "aclnnFlashAttentionScore", "npu::npu_fusion_attention", 52, 0.66, 0.45,
                       "\"1,256,512;1,1024,512;1,1024,512\"", "\"1,256,512\"");
    fa.core = Core::MixAic;
    fa.cubeRel = 0.8;
    fa.memRel = 0.7;
    fa.mixBlockDim = 48;
    fa.vec = 0.42;
    fa.vMte2 = 0.3;
    fa.vMte3 = 0.2;
    fa.vScalar = 0.1;
    fa.inTypes = "FLOAT16;FLOAT16;FLOAT16";
    fa.inFormats = "ND;ND;ND";
    ops.push_back(fa);
    ops.push_back(mm(43, "512,4096", "4096"));
    ops.push_back(fusedNorm());
    ops.push_back(mm(98, "4096,1376", "1376"));
    ops.push_back(mm(98, "4096,1376", "1376"));
    OpKind silu = vectorOp("Swish", "aclnnSilu_Swish_Swish", "aclnnSilu", "aten::silu", 6, 0.58, 0.45, 0.3,
                           "\"256,1376\"", "FLOAT16", "\"256,1376\"", "FLOAT16");
    silu.memRel = 0.8;
    ops.push_back(silu);
    OpKind mul = vectorOp("Mul", "aclnnMul_Mul_Mul", "aclnnMul", "aten::mul", 5, 0.52, 0.47, 0.31,
                          "\"256,1376;256,1376\"", "FLOAT16;FLOAT16", "\"256,1376\"", "FLOAT16");
    mul.memRel = 0.8;
    ops.push_back(mul);
    ops.push_back(mm(98, "1376,4096", "4096"));
    ops.push_back(allReduce());
    sc.overlapComm = true;
    sc.linkGBps = 18;
    sc.msgBytes = 16777216;
    sc.targetUtil = 78;
    sc.targetL2 = 0.72;
    sc.targetHbm = 0.85;
    sc.env = {{"ASCEND_GLOBAL_LOG_LEVEL", "3"},
              {"HCCL_RDMA_TC", ""},
              {"HCCL_RDMA_SL", ""},
              {"ACLNN_CACHE_LIMIT", "100000"},
              {"HOST_CACHE_CAPACITY", "20"},
              {"ASCEND_ENHANCE_ENABLE", "1"},
              {"PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True"},
              {"ASCEND_LAUNCH_BLOCKING", "0"},
              {"HCCL_ALGO", ""}};
    return sc;
}

// Scales cube utilisation and bandwidth per relative unit so that the duration-weighted
// aggregates over one layer hit the scenario's targets (jitter is symmetric around them).
void calibrate(Scenario& sc)
{
    double all = 0, cube = 0, mem = 0;
    for (const auto& op : sc.ops) {
        if (op.core == Core::Comm)
            continue;
        all += op.durUs;
        cube += op.cubeRel * op.durUs;
        mem += op.memRel * op.durUs;
    }
    sc.utilPerRel = cube > 0 ? sc.targetUtil * all / cube : 0;
    sc.gbpsPerRel = mem > 0 ? sc.targetHbm * sc.hbmPeak * all / mem : 0;
}

} // namespace

std::vector<std::string> scenarioNames()
{
    return {"llama2-baseline", "llama2-optimized", "cluster-slowrank", "llama2-leak"};
}

Scenario makeScenario(const std::string& name)
{
    Scenario sc;
    if (name == "llama2-optimized") {
        sc = optimized();
    } else {
        sc = baseline();
        if (name == "cluster-slowrank" || name == "llama2-leak") // the leak: memory_writer.h
            sc.name = name;
    }
    calibrate(sc);
    return sc;
}

Scheduler::Scheduler(Scenario sc, int ranks, std::uint64_t seed, std::int64_t baseNs)
    : m_sc(std::move(sc)), m_ranks(ranks), m_group(ranks > kMeshRanks ? 8 : ranks > 1 ? ranks : 8), m_now(baseNs)
{
    for (int r = 0; r < ranks; ++r) {
        m_rng.emplace_back(seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(r) * 0xD1B54A32D192ED03ull + 1);
        m_taskId[0].push_back(1024 + 37u * static_cast<std::uint32_t>(r));
        m_taskId[1].push_back(16);
        m_conn.push_back(2000);
    }
}

double Scheduler::u01(int rank)
{
    // Own mapping (not std::uniform_real_distribution) so bytes match across standard libraries.
    return static_cast<double>(m_rng[static_cast<std::size_t>(rank)]() >> 11) * 0x1.0p-53;
}

void Scheduler::launch(StepClock& c, std::size_t r, Task& t, double aclUs)
{
    const auto ri = static_cast<int>(r);
    t.pyStart = c.host[r];
    t.aclStart = t.pyStart + us(2 + u01(ri));
    t.aclDur = us(aclUs * jitter(ri, 0.2));
    t.nodeStart = t.aclStart + us(1.5 + u01(ri));
    t.nodeDur = std::max<std::int64_t>(t.aclDur - (t.nodeStart - t.aclStart) - us(1), us(1));
    t.pyDur = t.aclStart - t.pyStart + t.aclDur + us(2 + 2 * u01(ri));
    c.host[r] = t.pyStart + t.pyDur + us(1 + 3 * u01(ri));
    t.conn = m_conn[r] + 1; // the acl call takes m_conn, its node launch the next
    m_conn[r] += 2;
}

std::uint32_t Scheduler::nextTaskId(int which, std::size_t r)
{
    auto& id = m_taskId[which][r];
    const auto v = id;
    id = id >= 65535 ? 0 : id + 1;
    return v;
}

// The links rank `self` sends a collective's chunks on; `transit` is its slowest peer link.
std::vector<Link> Scheduler::linksOf(int self, std::int64_t& transit)
{
    // Each peer link carries the chunk of an 8-way mesh whatever the group size, so a small
    // cluster keeps the per-link time of the single-rank model.
    constexpr double kChunks = 8;
    std::vector<Link> links;
    transit = 0;
    // Up to kMeshRanks ranks form one mesh; more form TP groups of 8 (base..base+7).
    const int base = m_ranks > kMeshRanks ? self - self % m_group : 0;
    for (int p = base; p < base + m_group && p < std::max(m_ranks, m_group); ++p) {
        Link l;
        l.src = self;
        l.dst = p;
        if (p == self) {
            l.local = true;
            l.mb = static_cast<double>(m_sc.msgBytes) / kChunks / 1e6;
            l.ns = static_cast<std::int64_t>(l.mb / (430.0 * jitter(self, 0.05)) * 1e6);
        } else {
            l.mb = 2.0 * static_cast<double>(m_sc.msgBytes) / kChunks / 1e6;
            double bw = m_sc.linkGBps * jitter(self, 0.04);
            if (self == m_sc.slowSrc && p == m_sc.slowDst)
                bw *= m_sc.slowLinkShare;
            l.ns = static_cast<std::int64_t>(l.mb / bw * 1e6);
            transit = std::max(transit, l.ns);
        }
        links.push_back(l);
    }
    return links;
}

// One collective on every rank: each starts when its streams and launch allow, the transfer
// starts when the last has arrived, and all end together after the slowest link.
void Scheduler::scheduleCollective(StepPlan& plan, StepClock& c, int layer, std::size_t oi)
{
    const auto R = static_cast<std::size_t>(m_ranks);
    std::vector<Task> ts(R);
    std::int64_t maxA = 0;
    for (std::size_t r = 0; r < R; ++r) {
        Task& t = ts[r];
        t.op = static_cast<int>(oi);
        t.layer = layer;
        t.stream = kCommStream;
        waitQueue(c, r);
        launch(c, r, t, 38);
        t.start = std::max({c.dev[r] + us(1), c.hccl[r] + us(1), t.nodeStart + t.nodeDur + us(3)});
        t.waitBefore = t.start - c.hccl[r];
        t.taskId = nextTaskId(1, r);
        maxA = std::max(maxA, t.start);
    }
    // One rank alone stands for a TP group of 8: its peers arrive a little later.
    const std::int64_t peerWait = m_ranks == 1 ? us(8 + 30 * u01(0)) : 0;
    const std::int64_t transferStart = maxA + peerWait + us(2);
    std::int64_t groupTransit = 0;
    for (std::size_t r = 0; r < R; ++r) {
        Task& t = ts[r];
        t.links = linksOf(static_cast<int>(r), t.transitNs);
        groupTransit = std::max(groupTransit, t.transitNs);
    }
    const std::int64_t end = transferStart + groupTransit + us(4 + 2 * u01(0));
    for (std::size_t r = 0; r < R; ++r) {
        Task& t = ts[r];
        t.dur = end - t.start;
        t.transferStart = transferStart;
        t.waitNs = transferStart - t.start;
        t.syncNs = t.waitNs * 49 / 50;
        t.commIndex = m_commCounter;
        issued(r, t.start);
        c.hccl[r] = end;
        if (!m_sc.overlapComm) {
            c.dev[r] = end;
            c.afterComm[r] = true;
        }
        plan.ranks[r].tasks.push_back(std::move(t));
    }
    ++m_commCounter;
}

// One compute op on every rank's compute stream, after its launch and the previous task.
void Scheduler::scheduleCompute(StepPlan& plan, StepClock& c, int layer, std::size_t oi)
{
    const OpKind& op = m_sc.ops[oi];
    for (std::size_t r = 0; r < static_cast<std::size_t>(m_ranks); ++r) {
        const int ri = static_cast<int>(r);
        Task t;
        t.op = static_cast<int>(oi);
        t.layer = layer;
        t.stream = kComputeStream;
        waitQueue(c, r);
        launch(c, r, t, 14);
        double gapUs = op.gapUs > 0 ? op.gapUs * jitter(ri, 0.25) : 1.2 + 1.5 * u01(ri);
        if (c.afterComm[r]) {
            // waits on the collective's completion event: a dependency gap
            gapUs += 21 + 8 * u01(ri);
            c.afterComm[r] = false;
        }
        t.start = std::max(c.dev[r] + us(gapUs), t.nodeStart + t.nodeDur + us(3));
        const double slow = ri == m_sc.slowRank ? m_sc.slowFactor : 1.0;
        double durUs = op.durUs * jitter(ri, 0.06) * slow;
        if (!m_plant.speed.empty()) // --speedup: the same draws, the device time divided
            durUs /= m_plant.speed[oi];
        t.dur = us(durUs);
        t.waitBefore = t.start - c.dev[r];
        t.taskId = nextTaskId(0, r);
        t.coreFrac = 0.9 + 0.08 * u01(ri);
        // the cube cannot be busier than the core was active
        t.util = std::min(t.coreFrac * 99.0, m_sc.utilPerRel * op.cubeRel * jitter(ri, 0.05));
        t.jit = jitter(ri, 0.04);
        t.gbps = m_sc.gbpsPerRel * op.memRel * jitter(ri, 0.06);
        t.l2Hit = std::clamp(m_sc.targetL2 + 0.06 * (2 * u01(ri) - 1), 0.02, 0.98);
        c.dev[r] = t.start + t.dur;
        issued(r, t.start);
        plan.ranks[r].tasks.push_back(std::move(t));
    }
}

// The step-end synchronisation on every rank, after the last device task of all ranks, and the
// host's time before the next step.
void Scheduler::finishStep(StepPlan& plan, StepClock& c)
{
    const auto R = static_cast<std::size_t>(m_ranks);
    std::int64_t devEnd = 0;
    for (std::size_t r = 0; r < R; ++r)
        devEnd = std::max({devEnd, c.dev[r], c.hccl[r]});
    std::int64_t hostEnd = devEnd + us(6);
    for (std::size_t r = 0; r < R; ++r) {
        auto& rs = plan.ranks[r];
        rs.syncStart = std::min(c.host[r], devEnd - us(1));
        rs.syncStart = std::max(rs.syncStart, c.host[r]);
        rs.syncDur = std::max<std::int64_t>(devEnd + us(5) - rs.syncStart, us(2));
        hostEnd = std::max(hostEnd, rs.syncStart + rs.syncDur);
        rs.syncConn = m_conn[r]++;
    }
    // token sampling and the next step's Python before the next launches
    plan.end = hostEnd + us(35 + 10 * u01(0));
    m_now = plan.end;
}

StepPlan Scheduler::next()
{
    StepPlan plan;
    plan.index = ++m_step;
    plan.start = m_now;
    plan.ranks.resize(static_cast<std::size_t>(m_ranks));
    const auto R = static_cast<std::size_t>(m_ranks);
    StepClock clock{std::vector<std::int64_t>(R, m_now + us(5)), std::vector<std::int64_t>(R, m_now),
                    std::vector<std::int64_t>(R, m_now), std::vector<bool>(R, false)};
    for (int layer = 0; layer < m_sc.layers; ++layer) {
        for (std::size_t oi = 0; oi < m_sc.ops.size(); ++oi) {
            if (m_planting)
                plantBefore(plan, clock, layer, oi);
            if (m_sc.ops[oi].core == Core::Comm) {
                scheduleCollective(plan, clock, layer, oi);
                ++clock.collectives;
            } else {
                scheduleCompute(plan, clock, layer, oi);
            }
        }
    }
    finishStep(plan, clock);
    return plan;
}

} // namespace npuscope::synth
