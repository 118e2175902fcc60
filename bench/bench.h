#pragma once
// `npuscope-bench`: the loading, cancelling, advising, cache and painting benchmarks (bench.cpp),
// a program of its own so that the shipped `npuscope` carries none of them.
#include <string>
#include <vector>

namespace npuscope::bench {

using Args = std::vector<std::string>;

// Runs the benchmarks the options (argv without the program name) ask for; the exit code: 0
// ok, 1 a measurement failed, 2 usage.
int run(const Args& args);

} // namespace npuscope::bench
