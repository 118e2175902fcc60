#pragma once
// A Session as Chrome Trace Event JSON, readable by Perfetto, chrome://tracing and npuscope.
//
// Shape: {"traceEvents":[ one event per line ],"displayTimeUnit":"ns"}, in this order per rank:
// M events (process_name, process_labels, process_sort_index per process; thread_name,
// thread_sort_index per track), X slices in the store's order (track, start), s/f flow pairs
// (id text as stored, f with bp "e"), C counter samples (one args key per series).
// ts and dur are µs written exactly from int64 ns with 3 decimals (integer math). Device tasks
// get their "Task Type" and "Task Id" args back; other args are written from the ArgTable as
// strings. With several ranks every (rank, pid) becomes its own pid, in rank order, and the
// process label names the rank. Deterministic: exporting a re-import gives the same bytes.
#include "model/store/session.h"

#include <cstdio>
#include <string>

namespace npuscope {

// Streams the JSON to f; false on a write error, or with `error` set when the arguments of
// events kept in a timeline file (ArgTable's lazy rows) could not be read again.
bool writeChromeTrace(const Session& s, std::FILE* f, std::string* error = nullptr);
std::string chromeTraceJson(const Session& s);
// Writes `path` atomically (atomic_file.h). false with *error naming the path and why.
bool exportChromeTrace(const Session& s, const std::string& path, std::string* error);

} // namespace npuscope
