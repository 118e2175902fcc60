#pragma once
// One reader per file kind: a function of (input bytes, sink, context). Readers never throw on
// bad input: they keep every complete record, report what they skipped with file, line or byte
// offset and reason (Profile::report + the FileRecord they return), and stop early on cancel.
// Tests call them directly, without threads. The loader (loader.cpp) maps files and calls them,
// each through its row of the table of file kinds (file_kinds.cpp).
#include "model/formats/read_context.h"
#include "model/store/profile.h"
#include "model/store/session.h"

#include <atomic>
#include <memory>
#include <string>
#include <string_view>

namespace npuscope::readers {

// ---- timeline (timeline_reader.cpp, simplified_tasks_reader.cpp) ----
// msprof_*.json / trace_view.json / any Chrome Trace Event JSON (bare array or
// {"traceEvents":[…]}), streamed in chunks. Classifies Ascend tracks (TrackKind) by process and
// thread names. Does not call Profile::finalize().
FileRecord readTimelineJson(std::string_view bytes, Profile& sink, const ReadContext& ctx);
// The simplified {"tasks":[…]} JSON of FORMATS.md §7.
FileRecord readSimplifiedTasksJson(std::string_view bytes, Profile& sink, const ReadContext& ctx);
// True when the first non-space bytes look like {"tasks": (the simplified format).
bool looksLikeSimplifiedTasks(std::string_view head);

// ---- CSV tables (csv_tables.cpp) ----
// op_summary_*.csv and kernel_details.csv (column aliases of FORMATS.md §2) -> sink.kernels.
FileRecord readKernelCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx);
FileRecord readOpStatisticCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx);     // -> stats
FileRecord readApiStatisticCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx);    // -> stats
FileRecord readCommStatisticCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx);   // -> stats
FileRecord readTaskTimeCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx);        // -> slices (fallback)
FileRecord readStepTraceCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx);       // -> steps
FileRecord readMemoryCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx);          // npu_mem, memory_record, npu_module_mem -> counters
// operator_memory.csv -> opMemory (operator_memory_csv.cpp). readMemoryCsv hands it over too.
FileRecord readOperatorMemoryCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx);
FileRecord readOperatorDetailsCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx); // -> opDetails
FileRecord readL2CacheCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx);         // -> l2
FileRecord readClusterStepTraceCsv(std::string_view bytes, ClusterData& sink, std::vector<Diagnostic>& diags,
                                   const ReadContext& ctx);

// ---- JSON side files (communication: side_json.cpp; info, profiler_info, metadata: info_json.cpp) ----
FileRecord readCommunicationJson(std::string_view bytes, Profile& sink, const ReadContext& ctx);       // -> commOps
FileRecord readCommunicationMatrixJson(std::string_view bytes, Profile& sink, const ReadContext& ctx); // -> commLinks
FileRecord readClusterCommunicationJson(std::string_view bytes, ClusterData& sink, std::vector<Diagnostic>& diags,
                                        const ReadContext& ctx);
FileRecord readClusterCommunicationMatrixJson(std::string_view bytes, ClusterData& sink,
                                              std::vector<Diagnostic>& diags, const ReadContext& ctx);
FileRecord readInfoJson(std::string_view bytes, Profile& sink, const ReadContext& ctx);             // info.json[.N] -> deviceInfo
FileRecord readProfilerInfoJson(std::string_view bytes, Profile& sink, const ReadContext& ctx);     // profiler_info[_N].json -> rank, meta
FileRecord readProfilerMetadataJson(std::string_view bytes, Profile& sink, const ReadContext& ctx); // profiler_metadata.json -> meta
// How the four communication readers above parse, on the calling thread (tests compare the two
// parsers). Auto: simdjson On-Demand, and when it rejects the file for any reason the DOM parser,
// which keeps what was complete; FastOnly: a file simdjson rejects fails; DomOnly: the DOM parser.
enum class CommJsonParser { Auto, FastOnly, DomOnly };
void setCommJsonParser(CommJsonParser parser);

// ---- SQLite exports (db_reader.cpp, its tables db_loader.h; FORMATS-DB.md) ----
// msprof_*.db / ascend_pytorch_profiler[_N].db: tasks, PMU, communication, APIs, flows, counters.
// Opened read-only; the path is needed (SQLite reads the file itself).
FileRecord readProfilerDb(const std::string& path, Profile& sink, const ReadContext& ctx);
// torch_npu analysis.db: StepTraceTime -> steps, CommAnalyzer* -> commOps / commLinks.
FileRecord readAnalysisDb(const std::string& path, Profile& sink, const ReadContext& ctx);
// The SQLite export stores no cube_utilization(%) (the text export computes it when it writes
// kernel_details): derived here, once the kernel rows and info.json are in, from
// aic_total_cycles / (aic_frequency × ai_core_num × duration) × 100 (FORMATS.md §5), rounded to
// 3 decimals as kernel_details writes it. Nothing is added when the column exists, when there are
// no aic_total_cycles, or when no info.json gives the core count and frequency.
void deriveCubeUtilization(Profile& p);

// ---- join (join.cpp) ----
// Join timeline device tasks (Stream tracks) with kernel rows on (device, stream, task id,
// start) per FORMATS.md §3; fills SliceTable::kernel, KernelTable::slice and Profile::join.
// Also folds l2 rows into a kernel metric column "l2_hit_rate" when present.
// Requires finalize() to have run. Returns false, with the join partly done, when `cancel` was
// set (checked between its steps and every 64 Ki slices).
// `prebuilt`: the index of the kernel rows by (stream, task id), built ahead where a core was
// free (kernelJoinIndex) over the table that is now p.kernels, unchanged; built here otherwise,
// or when its row count is not the table's.
class KernelJoinIndex;
bool joinKernels(Profile& p, const std::atomic<bool>* cancel = nullptr, const KernelJoinIndex* prebuilt = nullptr);
// The join's index of `kernels`; null when cancelled.
std::shared_ptr<const KernelJoinIndex> kernelJoinIndex(const KernelTable& kernels, const std::atomic<bool>* cancel);

} // namespace npuscope::readers
