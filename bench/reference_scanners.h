#pragma once
// The references `npuscope-bench` measures the real loader against, in the same run:
//  - the floor: a bare single-threaded simdjson On-Demand scan that reads ts (as text), dur,
//    name, pid, tid and ph of every event, in reused 32 MB chunks cut at event boundaries;
//  - the naive reference: nlohmann/json's SAX parse of the same JSON.
// Both only count and checksum what they read, so the compiler cannot drop the work.
#include <cstdint>
#include <string>
#include <string_view>

namespace npuscope::bench {

struct ScanStats {
    std::uint64_t events = 0;
    std::uint64_t checksum = 0; // mixes ts text length, dur, pid, tid, ph, name length
    bool ok = true;
    std::string error;
};

ScanStats simdjsonFloorScan(std::string_view json, std::size_t chunkBytes = 32u << 20);
ScanStats nlohmannSaxScan(std::string_view json);

// The simdjson kernel this CPU runs (its name and description, e.g. "icelake (Intel/AMD AVX512)"):
// the floor's speed depends on it (about twice as fast with AVX-512 as with AVX2).
std::string simdjsonKernel();

// Where the next event boundary at or before `limit` is: the offset of the ',' that separates
// two top-level events ("},{" with optional white space), or std::string_view::npos.
std::size_t lastEventBoundary(std::string_view json, std::size_t from, std::size_t limit);

} // namespace npuscope::bench
