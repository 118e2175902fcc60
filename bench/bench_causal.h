#pragma once
// The causal benchmark: the step graph, the idle causes and the critical paths of a profile
// (model/analysis/step_graph.h), timed after its load and printed as a ratio against the load.
#include <string>

namespace npuscope::bench {

// Loads `dir` in a child process, then builds every rank's graph, idle causes and critical
// paths; prints one line. False when the load or the measure failed.
bool benchCausal(const std::string& dir);

} // namespace npuscope::bench
