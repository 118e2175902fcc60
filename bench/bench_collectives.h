#pragma once
// The cluster clocks and collectives benchmark: a generated 16-rank cluster (cluster-slowrank),
// the clock alignment and the late ranks with their reasons (model/analysis/collectives.h),
// timed after its load and printed as a ratio against the load.
#include <string>

namespace npuscope::bench {

// Generates the cluster in a temporary folder (removed after), loads it in a child process,
// then aligns the clocks and explains every collective; prints one line. False on failure.
bool benchCollectives(int ranks = 16);

} // namespace npuscope::bench
