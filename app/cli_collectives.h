#pragma once
// The cluster's clocks and collectives on the command line: `--clock raw|aligned` and
// `--clock-offset RANK=NS` (analyze, info), `analyze --metric collectives`, and the offsets
// `info` prints (docs/CLUSTER.md).
#include "model/analysis/clock_align.h"
#include "model/analysis/text_table.h"
#include "model/store/input_problems.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace npuscope::cli {

// Reads `--clock V` / `--clock-offset V` (value already split off). Returns "" when fine, else
// the usage message.
std::string parseClockOption(const std::string& flag, const std::string& value, ClockOptions& o);
// `--clock raw|aligned` or `--clock-offset RANK=NS` at args[i], its value after '=' or the next
// argument (then i moves past it), read by parseClockOption; false when args[i] is neither; `why`
// says what is wrong with it ("" when read).
bool clockFlag(const std::vector<std::string>& args, std::size_t& i, ClockOptions& clock, std::string& why);
inline constexpr const char* kClockHelp =
    "  --clock raw|aligned     times of a cluster in each rank's own clock, or aligned by the ends of\n"
    "                          the collectives (default aligned; a single rank is never moved)\n"
    "  --clock-offset R=NS     rank R's clock offset (aligned = file time - NS; NS in ns or with a\n"
    "                          unit, e.g. 1=-5.6ms); repeatable; overrides the estimate\n";

// `analyze --metric collectives`: the whole output in `format` (table, csv, json); `t` is the
// metric's empty table, its columns in the order of kCollectivesColumns.
std::string collectivesReport(const Session& s, const ClockOptions& clock, text::Table t, const std::string& format,
                              long top, bool ascending, const std::vector<InputProblem>& problems);
// The columns, as the metric's row in cli_analyze.cpp lists them.
inline constexpr const char* kCollectivesColumns[] = {
    "collective",      "group",  "step",    "spread_ns",  "last_rank",
    "wait_caused_ns",  "reason", "index",   "first_rank", "first_arrival_ns",
    "last_arrival_ns", "cause",  "cause_ns"};
// What `analyze --metric collectives --help` lists under its columns.
inline constexpr const char* kCollectivesHelp =
    "one row per collective instance (same group lane, same sequence index on every rank):\n"
    "its arrival spread, the last rank to arrive (empty below 10 us), the wait it caused the\n"
    "others (sum of last arrival - their arrival) and the reason; sorted by wait_caused_ns;\n"
    "the table and JSON add each rank's waiting caused per step and the clock offsets\n";

// {"0": 0, "1": 7843, ...}: rank id → offset in ns, and the text lines of `info`.
nlohmann::ordered_json clockOffsetsJson(const ClockAlignment& a);
nlohmann::ordered_json clockJson(const ClockAlignment& a);
std::string clockText(const ClockAlignment& a);

} // namespace npuscope::cli
