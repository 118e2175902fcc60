#pragma once
// `npuscope bench --db`: the same generated rank loaded from its text export and from its
// SQLite export (FORMATS-DB.md), each in its own process, in the same run.
#include <cstdint>
#include <string>

namespace npuscope::bench {

// Generates (once, then reuses) a torch_npu profile written in both exports whose
// trace_view.json is about sizeMb MB under dir, then loads it with --prefer text and
// --prefer db. Prints seconds, MB/s of each export's bytes, the ratio and both Profiles'
// task counts and Σ kernel durations. Returns 0 when both loads succeed and agree.
int dbVsTextBench(double sizeMb, const std::string& dir, std::uint64_t seed);

} // namespace npuscope::bench
