#pragma once
// Baseline vs current (optimised) run: headline table and per-operator diff.
// Conventions (ADVISOR.md §5): delta = current − baseline, ratio = current / baseline, and every
// headline row says whether lower or higher is better.
// Several ranks: the step time is the slowest rank's (the step waits for it); utilisation, L2
// and bandwidth are means over ranks; operator counts and totals are summed over ranks.
#include "model/analysis/op_stats.h"
#include "model/store/input_problems.h"
#include "model/store/session.h"

#include <string>
#include <vector>

namespace npuscope {

enum class Better { Lower, Higher };

struct HeadlineRow {
    std::string metric;   // "Step time"
    std::string unit;     // "ms", "steps/s", "%"
    double baseline = kNaN, current = kNaN;
    double ratio = kNaN;  // current / baseline
    double delta = kNaN;  // current − baseline
    Better better = Better::Lower;
    // True when current is better than baseline, false when worse or equal or unknown.
    bool improved() const;
};

struct OpDiffRow {
    std::string key;
    bool inBaseline = false, inCurrent = false;
    std::uint64_t baselineCount = 0, currentCount = 0;
    TimeNs baselineTotal = 0, currentTotal = 0;
    double baselineAvgNs = kNaN, currentAvgNs = kNaN;
    TimeNs delta = 0;     // currentTotal − baselineTotal
    double ratio = kNaN;  // currentTotal / baselineTotal (NaN when only in current)
};

// A change of less than this share of the larger value is run-to-run noise: "same".
inline constexpr double kSameWithin = 0.01;

struct CompareOptions {
    GroupBy groupBy = GroupBy::Type;
    double peakHbmGBps = kNaN;   // NaN: per profile (summary.h)
    double tokensPerStep = 0;    // > 0 adds a per-token latency row
    double sameWithin = kSameWithin; // the share of the larger value under which a change is "same"
};

struct CompareResult {
    std::vector<HeadlineRow> headline;
    std::vector<OpDiffRow> ops;  // sorted by |delta| descending, then key
    double speedup = kNaN;       // baseline step / current step
    double sameWithin = kSameWithin; // as asked for (CompareOptions)
    // Files of either run read in part or not at all (compareSessions): the report says so first.
    std::vector<InputProblem> baselineProblems, currentProblems;
};

CompareResult compareSessions(const Session& baseline, const Session& current, const CompareOptions& o = {});
CompareResult compareProfiles(const Profile& baseline, const Profile& current, const CompareOptions& o = {});

} // namespace npuscope
