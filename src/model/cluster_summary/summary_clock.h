#pragma once
// The clock offsets of a cluster summary (docs/CLUSTER-SUMMARY.md "clock_offsets_ns"): each
// rank's summary carries its collectives' start and end times per group lane
// ("collective_times"), and the assembled file keeps only the offsets estimated from them
// (model/analysis/clock_align.h) and the alignment's status.
#include "model/store/profile.h"

#include <nlohmann/json.hpp>

namespace npuscope::cluster_summary {

// {"<lane>": {"starts_ns": [..], "ends_ns": [..], "names": [[base name, run length], ..]}}.
nlohmann::json collectiveTimesJson(const Profile& p);
// From the gathered rank summaries (doc["ranks"]): sets doc["clock_offsets_ns"] ({"<rank>": ns},
// aligned = file time − ns) and doc["clock"] ({"status", "reference_rank", "problems"}), and
// removes every rank's "collective_times". A file without them (version 2 and older, read back)
// has no offsets: every rank reads as 0.
void addClockOffsets(nlohmann::json& doc);

} // namespace npuscope::cluster_summary
