#pragma once
// The generator's plants, speedups, clock offsets and late rank (SynthOptions), turned into the
// scheduler's PlantConfig, and their ground truth (truth.h) measured over what each rank wrote.
#include "model/synth/synth.h"
#include "model/synth/synth_model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npuscope::synth {

// The plant names --plant takes, and a plant's default duration in µs (0 for an unknown name).
std::vector<std::string> plantNames();
double plantDefaultUs(const std::string& cause);

// Whether any of the options is given (without, the run is written exactly as before).
bool plantsGiven(const SynthOptions& o);

// An error message for options that do not fit the scenario, the ranks or the output; empty
// when they hold.
std::string checkPlants(const SynthOptions& o, const Scenario& sc, int ranks);

// The scheduler's configuration (durations filled in, the late collective resolved).
PlantConfig plantConfig(const SynthOptions& o, const Scenario& sc);

// Each rank's clock offset in ns (all zero without --clock-offset).
std::vector<std::int64_t> rankOffsets(const SynthOptions& o, int ranks);

// The step as rank r's files hold it: every time of its tasks and host slices, and the step's
// span, shifted by offs[r]. shiftPlan shifts every rank (for the cluster files);
// rankView gives rank r's span alone, with no task lists (for rank r's writers).
StepPlan shiftPlan(const StepPlan& plan, const std::vector<std::int64_t>& offs);
StepPlan rankView(const StepPlan& plan, std::int64_t off);

// Gathers the truth step by step from the plan as written (shifted).
class TruthBuilder {
public:
    TruthBuilder(const SynthOptions& o, const Scenario& sc, int ranks, const PlantConfig& cfg);
    void step(const StepPlan& written);
    SynthTruth finish();

private:
    const Scenario& m_sc;
    SynthTruth m_t;
    std::vector<std::int64_t> m_spans;
};

} // namespace npuscope::synth
