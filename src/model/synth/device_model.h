#pragma once
// The modelled device (Atlas A2 class: 24 AI Cores, 48 vector cores at 1800 MHz) and small
// helpers shared by the rank writer's timeline and table halves.
#include "model/synth/synth_model.h"

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
