#pragma once
// Synthetic profile generator: writes torch_npu or msprof folders that look byte-for-byte like
// the real profilers' output (same headers, key names and quirks), modelled on a LLaMA-2 7B
// decode step. Used for demos, tests and benchmarks; deterministic for a seed.
#include "model/synth/truth.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace npuscope::synth {

struct SynthOptions {
    std::string scenario = "llama2-baseline"; // llama2-baseline | llama2-optimized | cluster-slowrank
    std::string layout = "torch_npu";         // torch_npu | msprof
    std::string format = "text";              // text | db (torch_npu SQLite export) | both
    int ranks = 1;                             // cluster-slowrank: < 2 means 4
    int steps = 3;
    std::uint64_t seed = 1;
    double targetMB = 0; // 0 = natural size; else repeat steps until the timeline JSON reaches about this size
    int slowRank = -1;   // cluster-slowrank: -1 = last rank
    int slowLinkSrc = -1, slowLinkDst = -1; // cluster-slowrank: -1 = link 1->2 (mod ranks)
    // torch_npu's experimental_config.profiler_level: 0 (device tasks, no CANN API, operator or
    // PMU details, no statistics or communication files), 1 (the default here: CANN API, PMU,
    // communication) or 2 (adds the runtime API)
    int level = 1;
    bool withStack = false;   // with_stack=True: "Call stack" args, python_function slices
    bool compactJson = false; // JSON with "," and ":" (not how torch_npu writes it; for comparisons)
    // The memory files of profile_memory=True: -1 in torch_npu profiles of natural size (no
    // targetMB) and in llama2-leak, 0 never, 1 always.
    int memoryFiles = -1;
    // The shapes of the timeline's bytes other exporters write (torch_npu layout, text only);
    // applyShape() sets them by name. processOrdered: the CANN block by process, the whole run's
    // Ascend Hardware events first, then CANN, Communication, Overlap Analysis and the counters,
    // each in time order, so that every HostToDevice f comes before its s. flowOrder: "time" (as
    // torch_npu sorts them), "starts-first" or "ends-first": each step's HostToDevice starts (or
    // ends) en bloc ahead of its other events, and the run's torch_to_npu starts (or ends) ahead
    // of the other ends. devicePerPyOp: the device tasks one cpu_op launches (each still
    // enqueued and dequeued on its own), 1 as in the LLaMA model.
    bool processOrdered = false;
    std::string flowOrder = "time";
    int devicePerPyOp = 1;
    std::function<void(double)> progress;    // 0..1, throttled by the caller's taste

    // Planted causes, speedups, clock offsets and a late rank, with their ground truth in
    // SynthResult::truth (planted.h). All off by default: with none, the bytes are unchanged.
    std::vector<PlantSpec> plants;                   // python_stall, dataloader, sync, compile
    std::vector<std::pair<std::string, double>> speedups;       // op type -> factor (device time / F)
    std::vector<std::pair<int, std::int64_t>> clockOffsets;     // rank -> ns (file time = true + ns)
    LateRankSpec lateRank;                           // rank < 0: none
};

struct SynthResult {
    bool ok = false;
    std::string error;
    std::vector<std::string> rankDirs;
    std::uint64_t bytesWritten = 0;
    std::uint64_t deviceTasks = 0; // X events in "Ascend Hardware", all ranks
    // The modelled truths, measured over what was written (rank 0, all steps):
    double stepMs = 0;  // mean step time (Computing + Communication(Not Overlapped) + Free)
    double aicUtil = 0; // duration-weighted cube_utilization(%) over compute tasks, in %
    double l2Hit = 0;   // Σhit / (Σhit + Σmiss) over the L2 counters, 0..1
    double hbmUtil = 0; // duration-weighted main-memory bandwidth / hbmPeakGBps, 0..1
    double hbmPeakGBps = 1200; // the peak used (also written as DeviceInfo hbm_peak_gbps)
    double exposedCommShare = 0; // Σ Communication(Not Overlapped) / Σ step time
    int steps = 0;
    SynthTruth truth; // what was planted and what it did (truth.h); always filled
};

// Writes the profile into outDir (created if missing). Never throws.
SynthResult synthesize(const std::string& outDir, const SynthOptions& o);

// Scenario names accepted by synthesize().
std::vector<std::string> scenarioNames();

// Named shapes (see shapes.cpp for how each compares with the real samples): "real" (the
// defaults), "process-ordered", "starts-first", "ends-first", "device-heavy", "level1-dense".
std::vector<std::string> shapeNames();
// Sets o's shape options for `name`; false for an unknown name (o unchanged).
bool applyShape(const std::string& name, SynthOptions& o);

} // namespace npuscope::synth
