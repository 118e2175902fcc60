#pragma once
// What the generator planted in a run and what it did to the device, measured from the times it
// wrote: the ground truth the idle-cause attribution, the critical path, the what-if replay and
// the clock alignment are checked against. Times are as the rank's files hold them (true time
// plus the rank's clock offset).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace npuscope::synth {

// One planted cause: python_stall, dataloader, sync or compile, of `us` µs (0: its default).
struct PlantSpec {
    std::string cause;
    double us = 0;
};

// The late rank: before collective `collective` of each step (-1: the middle one) an extra
// delay of `us` µs, an extra MatMulV2 (kind "op") or a Python stall (kind "host").
struct LateRankSpec {
    int rank = -1; // -1: none
    int collective = -1;
    double us = 600;
    std::string kind = "op";
};

// A planted host slice as written.
struct PlantedSlice {
    std::string plant; // python_stall, dataloader, sync, sync_python, compile, late_host
    std::string cause; // the attribution's cause: host_python, dataloader, sync, compile
    std::string name;  // the slice's name ("log_metrics", "AscendCL@aclrtSynchronizeStream", ...)
    std::int64_t start = 0, end = 0;
    std::int64_t idleNs = 0; // |device idle of its step ∩ [start, end)|
    // the part of idleNs when no launched task was waiting either (a task launched but held by
    // its dependency gap is not starved): the idle the host slice alone explains
    std::int64_t starvedNs = 0;
    // the part of idleNs inside the step's device part (first to last busy instant: where
    // step_trace_time counts Free; before it is Preparing)
    std::int64_t freeNs = 0;
};

struct StepTruth {
    int index = 0;                               // ProfilerStep number
    std::int64_t start = 0, end = 0;             // the ProfilerStep span
    std::int64_t idleNs = 0;                     // span − ∪ device busy (compute and communication tasks)
    std::int64_t deviceBegin = 0, deviceEnd = 0; // first and last busy instant inside the span
    std::int64_t freeNs = 0;                     // idle inside [deviceBegin, deviceEnd): step_trace_time's Free
    std::vector<PlantedSlice> slices;
};

struct RankTruth {
    int rank = 0;
    std::int64_t clockOffsetNs = 0;
    std::vector<StepTruth> steps;
    // Σ over steps of the slices' idleNs, per attribution cause
    std::vector<std::pair<std::string, std::int64_t>> causeIdleNs;
};

// The late rank in one step: the collective it delayed.
struct LateTruth {
    int step = 0;
    std::string collective; // the collective instance's name (hcom_allReduce__482_<k>_1)
    int rank = 0;
    std::string delayedBy;         // the kernel name of the extra op, or the Python slice's name
    std::int64_t delayNs = 0;      // the planted delay
    std::int64_t arrivalLagNs = 0; // the late rank's collective start − the latest other rank's
};

struct SynthTruth {
    std::vector<RankTruth> ranks;
    std::int64_t medianStepNs = 0; // median ProfilerStep span over the written steps
    std::vector<PlantSpec> plants; // as applied (µs filled in)
    std::vector<std::pair<std::string, double>> speedups;
    std::vector<std::pair<int, std::int64_t>> clockOffsets;
    std::vector<LateTruth> late;
};

// The truth as a JSON document (pretty-printed, for `npuscope synth --truth FILE`).
std::string truthJson(const SynthTruth& t);

} // namespace npuscope::synth
