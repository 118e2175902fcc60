#pragma once
// A hand-built profile with known kernel rows for the ranking and detail tests.
//
//   type      name   core            start   dur   cube% mac  vec   read write hit miss
//   MatMulV2  mm_a   AI_CORE          1000  4000   80   0.9   -    120   30   30   10
//   MatMulV2  mm_b   AI_CORE          6000  6000   50   0.9   -    200   10   10   30
//   MatMulV2  mm_a   AI_CORE         20000  2000   20   0.9   -     60   90   60    0
//   Add       add_0  AI_VECTOR_CORE  13000  1000    -    -   0.5   300   20    -    -
//   Add       add_1  AI_VECTOR_CORE  15000  3000    -    -   0.25  300   20    -    -
//   Cast      cast_i AI_VECTOR_CORE  30000 + 2000·i, dur 100·(i+1), i = 0..9, no metrics
//   hcom_allReduce_ (HCCL)           24000  5000   (communication: not in the compute ranking)
//
// The two Add rows are joined to timeline slices on "Stream 7" (with one "Mul" task between
// them at 14000); communication.json-like ops: hcom_allReduce ×2 (1.5 ms, 0.5 ms),
// hcom_broadcast ×1 (0.25 ms).
#include "model/store/session.h"

#include <cstdint>
#include <memory>
#include <string>

namespace npuscope::view_fixture {

inline std::uint32_t addKernel(Profile& p, const std::string& type, const std::string& name,
                               const std::string& core, TimeNs start, TimeNs dur,
                               std::initializer_list<double> metricValues)
{
    auto& k = p.kernels;
    const auto row = static_cast<std::uint32_t>(k.size());
    k.device.push_back(0);
    k.step.push_back(1);
    k.modelId.push_back(-1);
    k.streamId.push_back(core == "HCCL" ? 9 : 7);
    k.taskId.push_back(row);
    k.contextId.push_back(-1);
    k.start.push_back(start);
    k.dur.push_back(dur);
    k.wait.push_back(0);
    k.name.push_back(p.strings.intern(name));
    k.type.push_back(p.strings.intern(type));
    k.taskType.push_back(p.strings.intern(core));
    k.opState.push_back(p.strings.intern("dynamic"));
    k.inputShapes.push_back(p.strings.intern(type == "Add" ? "8,16;8,16" : type == "MatMulV2" ? "64,128;128,256" : "32"));
    k.inputDtypes.push_back(p.strings.intern("FLOAT16"));
    k.inputFormats.push_back(p.strings.intern("ND"));
    k.outputShapes.push_back(p.strings.intern(type == "Add" ? "8,16" : "64,256"));
    k.outputDtypes.push_back(p.strings.intern("FLOAT16"));
    k.outputFormats.push_back(p.strings.intern("ND"));
    k.blockDim.push_back(type == "Add" ? 40 : 20);
    k.mixBlockDim.push_back(0);
    std::size_t m = 0;
    for (double v : metricValues)
        k.metrics[m++].push_back(v);
    for (; m < k.metrics.size(); ++m)
        k.metrics[m].push_back(kNaN);
    k.slice.push_back(kNone);
    return row;
}

inline SessionPtr makeSession()
{
    auto p = std::make_shared<Profile>();
    p->name = "fixture";
    p->layout = "torch_npu";
    p->rank = 0;
    p->devices = {0};
    auto& k = p->kernels;
    k.metricNames = {"cube_utilization(%)", "aic_mac_ratio", "aiv_vec_ratio",
                     "aic_main_mem_read_bw(GB/s)", "aic_main_mem_write_bw(GB/s)",
                     "aic_l2_cache_hit", "aic_l2_cache_miss_allocate"};
    k.metrics.resize(k.metricNames.size());
    addKernel(*p, "MatMulV2", "mm_a", "AI_CORE", 1000, 4000, {80, 0.9, kNaN, 120, 30, 30, 10});
    addKernel(*p, "MatMulV2", "mm_b", "AI_CORE", 6000, 6000, {50, 0.9, kNaN, 200, 10, 10, 30});
    const auto add0 = addKernel(*p, "Add", "add_0", "AI_VECTOR_CORE", 13000, 1000, {kNaN, kNaN, 0.5, 300, 20});
    const auto add1 = addKernel(*p, "Add", "add_1", "AI_VECTOR_CORE", 15000, 3000, {kNaN, kNaN, 0.25, 300, 20});
    addKernel(*p, "MatMulV2", "mm_a", "AI_CORE", 20000, 2000, {20, 0.9, kNaN, 60, 90, 60, 0});
    addKernel(*p, "hcom_allReduce_", "hcom_allReduce__1_0_1", "HCCL", 24000, 5000, {});
    for (int i = 0; i < 10; ++i)
        addKernel(*p, "Cast", "cast_" + std::to_string(i), "AI_VECTOR_CORE", 30000 + 2000 * i, 100 * (i + 1), {});

    // Timeline: the Add rows and one task between them on a device stream.
    const TrackId t = p->trackFor(1000, 7);
    p->tracks[t.v].kind = TrackKind::Stream;
    p->tracks[t.v].process = p->strings.intern("Ascend Hardware");
    p->tracks[t.v].thread = p->strings.intern("Stream 7");
    p->tracks[t.v].streamId = 7;
    p->tracks[t.v].device = 0;
    const NameId cat = p->strings.intern("AI_VECTOR_CORE");
    // Added out of order on purpose: finalize() sorts and must remap kernels.slice.
    const auto s1 = p->slices.add(15000, 3000, p->strings.intern("add_1"), cat, t);
    p->slices.add(14000, 500, p->strings.intern("Mul"), cat, t);
    const auto s0 = p->slices.add(13000, 1000, p->strings.intern("add_0"), cat, t);
    p->slices.kernel[s0] = add0;
    p->slices.kernel[s1] = add1;
    k.slice[add0] = s0;
    k.slice[add1] = s1;

    auto comm = [&](const char* name, double ms) {
        CommOp op;
        op.fullName = std::string(name) + "@7452643344416017458";
        op.opName = name;
        op.group = "7452643344416017458";
        op.elapseMs = ms;
        p->commOps.push_back(op);
    };
    comm("hcom_allReduce__184_0_1", 1.5);
    comm("hcom_allReduce__185_0_1", 0.5);
    comm("hcom_broadcast__1_0_1", 0.25);

    p->finalize();
    auto s = std::make_shared<Session>();
    s->root = "fixture";
    s->layout = "torch_npu";
    s->ranks.push_back(std::move(p));
    return s;
}

} // namespace npuscope::view_fixture
