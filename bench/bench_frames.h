#pragma once
// Rendering measurements of `npuscope-bench` (see bench_frames.cpp).
#include <cstdint>
#include <string>

namespace npuscope::bench {

// Prints the time to the first timeline frame of the profile in `profileDir` and the paint time
// of one frame of a generated `denseEvents`-event profile at eight zoom levels.
void benchFrames(const std::string& profileDir, std::uint64_t denseEvents);
// Prints the time to build the utilisation curves of a generated `denseTasks`-task kernel table,
// and the time to read them again and replot them at each of the same zoom levels.
void benchCurves(std::uint64_t denseTasks);

} // namespace npuscope::bench
