#pragma once
// The modelled device (Atlas A2 class: 24 AI Cores, 48 vector cores at 1800 MHz) and small
// helpers shared by the rank writer's timeline and table halves.
#include "model/synth/synth_model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace npuscope::synth {

inline constexpr double kFreqMHz = 1800;
inline constexpr int kAiCores = 24;
inline constexpr int kAivCores = 48;
inline constexpr std::int64_t kNoId = 4294967295; // UINT32_MAX: "none" for Model ID / Subtask Id

// Values are written with 3 decimals; sums for the reported truths use the written value.
inline double r3(double v)
{
    return std::round(v * 1000.0) / 1000.0;
}

// One compute task's PMU values, computed once for both exports: the text writer formats them
// into kernel_details columns, the db writer stores them in TASK_PMU_INFO. The side a task does
// not run on (cube or vector) is all zeros, as both exports write it.
struct KernelPmu {
    bool cube = false, vector = false;
    double aicTime = 0;                  // aicore_time(us)
    std::int64_t aicCycles = 0;
    double aicRatio[5] = {}, aicPipe[5] = {}; // mac, scalar, mte1, mte2, fixpipe: ratio, time(us)
    double aicIcacheMiss = 0;
    double aivTime = 0;                  // aiv_time(us)
    std::int64_t aivCycles = 0;
    double aivRatio[4] = {}, aivPipe[4] = {}; // vec, scalar, mte2, mte3
    double aivIcacheMiss = 0;
    double readGBps = 0, writeGBps = 0;  // main memory, on the side the task runs on (cube first)
    std::int64_t hit[3] = {}, miss[3] = {}; // L2: write, r0 read, r1 read
    double util = 0;                     // cube_utilization(%) from the cycles (FORMATS.md §5)
};

inline KernelPmu kernelPmu(const OpKind& op, const Task& t)
{
    KernelPmu p;
    const double durUs = static_cast<double>(t.dur) / 1000.0;
    p.cube = op.core == Core::AiCore || op.core == Core::MixAic;
    p.vector = op.core == Core::AiVector || op.core == Core::MixAic;
    if (p.cube) {
        p.aicTime = r3(durUs * t.coreFrac);
        p.aicCycles = std::llround(t.util / 100.0 * kFreqMHz * kAiCores * durUs);
        const double ratios[] = {op.mac, op.scalar, op.mte1, op.mte2, op.fixpipe};
        for (int i = 0; i < 5; ++i) {
            p.aicRatio[i] = r3(std::min(0.999, ratios[i] * t.jit));
            p.aicPipe[i] = r3(p.aicTime * p.aicRatio[i]);
        }
        p.aicIcacheMiss = 0.05;
    }
    if (p.vector) {
        p.aivTime = r3(durUs * t.coreFrac * (p.cube ? 0.95 : 1.0));
        p.aivCycles = std::llround(p.aivTime * kFreqMHz * kAivCores * 0.7);
        const double ratios[] = {op.vec, op.vScalar, op.vMte2, op.vMte3};
        for (int i = 0; i < 4; ++i) {
            p.aivRatio[i] = r3(std::min(0.999, ratios[i] * t.jit));
            p.aivPipe[i] = r3(p.aivTime * p.aivRatio[i]);
        }
        p.aivIcacheMiss = 0.03;
    }
    // main memory: reads are three quarters of the traffic
    p.readGBps = r3(t.gbps * 0.75);
    p.writeGBps = r3(t.gbps * 0.25);
    // L2 counters: accesses in 128-byte lines, hits at the modelled rate
    const double lines = (p.readGBps + p.writeGBps) * durUs * 1e3 / 128.0;
    const double shares[] = {0.25, 0.45, 0.30}; // write, r0, r1
    for (int i = 0; i < 3; ++i) {
        const auto total = static_cast<std::int64_t>(std::llround(lines * shares[i]));
        p.hit[i] = std::llround(static_cast<double>(total) * t.l2Hit);
        p.miss[i] = total - p.hit[i];
    }
    p.util = p.cube && durUs > 0 ? r3(static_cast<double>(p.aicCycles) / (kFreqMHz * kAiCores * durUs) * 100.0) : 0;
    return p;
}

inline const char* taskType(Core c)
{
    switch (c) {
    case Core::AiCore: return "AI_CORE";
    case Core::AiVector: return "AI_VECTOR_CORE";
    case Core::MixAic: return "MIX_AIC";
    case Core::Comm: return "COMMUNICATION";
    }
    return "AI_CORE";
}

} // namespace npuscope::synth
