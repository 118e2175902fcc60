#pragma once
// `analyze --metric idle` and `analyze --metric critical_path`: why the device was idle and what
// bound each step, from the step graph (model/analysis/step_graph.h, idle_causes.h,
// critical_path.h). Both write the whole output for the whole session.
#include "model/analysis/text_table.h"
#include "model/store/input_problems.h"
#include "model/store/session.h"

#include <string>
#include <vector>

namespace npuscope::cli {

// The columns of the csv and table outputs, in order (the metrics' rows in cli_analyze.cpp list
// them). `row` says what a line is: "step" (one per step and cause, then "all") or "gap"; `in`
// where it lies: "free" (step_trace_time's Free) or "preparing" (the step's start to its first
// device work).
inline constexpr const char* kIdleColumns[] = {"row",    "rank",         "step",       "cause",   "ns",         "start_ns",
                                               "end_ns", "start_rel_ns", "end_rel_ns", "host_op", "call_stack", "reason",
                                               "in"};
inline constexpr bool kIdleNumeric[] = {false, true, false, false, true, true, true, true, true, false, false, false, false};
inline constexpr const char* kIdleHelp =
    "device idle time of each step (its device part minus Computing and Communication,\n"
    "step_trace_time's Free) by cause: host_python, dataloader, sync, compile, launch,\n"
    "dependency, comm_wait, unknown; the step's Preparing (its start to its first device\n"
    "work) apart, by the same causes. Rows 'step': ns per cause (and 'all') of each step,\n"
    "in 'free' then 'preparing'; rows 'gap': each attributed idle interval (times in ns,\n"
    "_rel_ from the profile's start), the responsible host op, its call stack, the reason\n"
    "and where it lies (in: free or preparing). JSON: {metric, input_problems, totals,\n"
    "preparing_totals, steps (idle_ns, causes, preparing_ns, preparing_causes), gaps (in),\n"
    "missing}; with several ranks every step and gap carries its rank\n";
// `row` is "segment" (the path's segments in time order per step) or "bound_by" (ns per kind).
inline constexpr const char* kCriticalPathColumns[] = {"row",      "rank",         "step",   "kind",  "ns",
                                                       "begin_ns", "begin_rel_ns", "end_ns", "label", "idle_cause"};
inline constexpr bool kCriticalPathNumeric[] = {false, true, false, false, true, true, true, true, false, false};
inline constexpr const char* kCriticalPathHelp =
    "the chain of host ops, launches and device tasks that bound each step, walked back\n"
    "from its last device work: segments (kind host_python, launch, compute, comm,\n"
    "comm_wait or idle, with the idle cause) tiling the step span, then the step's ns per\n"
    "kind (bound_by). JSON: {metric, input_problems, bound_by, steps[{rank, step, length_ns,\n"
    "bound_by, segments}], missing}\n";

std::string idleReport(const Session& s, text::Table t, const std::string& format, const std::vector<InputProblem>& problems);
std::string criticalPathReport(const Session& s, text::Table t, const std::string& format,
                               const std::vector<InputProblem>& problems);

} // namespace npuscope::cli
