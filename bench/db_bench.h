#pragma once
// `npuscope-bench --db`: the same generated rank loaded from its text export and from its
// SQLite export (FORMATS-DB.md), each in its own process, in the same run.
#include <cstdint>
#include <string>

namespace npuscope::bench {

// Generates the benchmark's llama2-baseline profile (trace_view.json about sizeMb MB) into dir
// with the project's generator in `format` (text, db or both), printing the time taken to
// stderr: real-shaped (as torch_npu writes it), or with compact JSON separators and exactly
// `steps` steps (the same events as a real-shaped profile of that many steps), in one of the
// generator's shapes (synth::shapeNames(); "real": as torch_npu writes it). Returns the steps
// written; 0, with the reason printed, when generating fails.
int generateProfile(const std::string& dir, double sizeMb, std::uint64_t seed, const std::string& format,
                    bool compact = false, int steps = 0, const std::string& shape = "real");

// Generates (once, then reuses) a torch_npu profile written in both exports whose
// trace_view.json is about sizeMb MB under dir, then loads it with --prefer text and
// --prefer db. Prints seconds, MB/s of each export's bytes, the ratio and both Profiles'
// task counts and Σ kernel durations. Returns 0 when both loads succeed and agree.
int dbVsTextBench(double sizeMb, const std::string& dir, std::uint64_t seed);

} // namespace npuscope::bench
