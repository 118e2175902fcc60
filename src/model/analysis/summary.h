#pragma once
// One-line health of a rank: step time and its split, and the hardware efficiency headline
// numbers used by `compare`, the CLI and the summary views.
//
// HBM peak bandwidth (for bandwidth utilisation), first that is known:
//  1. the caller's value (CLI --peak-hbm-gbps),
//  2. DeviceInfo::hbmPeakGBps when the profile states it,
//  3. a per-chip default: Ascend910B* 1600 GB/s (HBM2e, 4 stacks), Ascend910 (A) 1200 GB/s,
//  4. 1200 GB/s, the generic default of ADVISOR.md's thresholds (soc.default.hbm_peak_gbps).
#include "model/analysis/overlap.h"
#include "model/store/profile.h"

#include <cmath>
#include <string>
#include <vector>

namespace npuscope {

inline constexpr double kDefaultHbmPeakGBps = 1200.0;
// Per-chip default peak HBM bandwidth (GB/s), NaN when the chip is not known.
double chipHbmPeakGBps(const std::string& chip);
// The peak used for `p` (rules above); `overrideGBps` wins when it is a positive number.
double hbmPeakFor(const Profile& p, double overrideGBps, std::string* source = nullptr);

// The step of a breakdown that T stands for: T, the median of the complete steps, and the median
// step's split (OverlapResult::typical), with how many steps there were and how many were left
// out as partial. The one step split: what the summary strip, the advisor, `compare`, `info` and
// the cluster analysis show.
struct StepSplit {
    int steps = 0, partial = 0;
    std::string source;           // OverlapResult::stepTimeSource
    TimeNs stepTime = 0, computing = 0, commNotOverlapped = 0, free = 0;
    double min = 0, median = 0, max = 0; // of the complete steps, ns (T is the median step's split)
    int complete() const { return steps - partial; }
    // "median of 5 complete steps; 1 partial excluded", "1 step", "median of 3 steps".
    std::string countText() const;
};
StepSplit stepSplit(const OverlapResult& o);
// The same of steps read elsewhere (a cluster step trace's rows of one rank), in step order.
StepSplit stepSplit(std::vector<StepBreakdown> steps, std::string source);

struct ProfileSummary {
    StepSplit step;               // T and the median step's split (they add up to T)
    double computeShare = kNaN, commExposedShare = kNaN, freeShare = kNaN; // of T
    double aicUtil = kNaN;        // 0..1, duration-weighted over compute tasks
    double l2Hit = kNaN;          // 0..1
    double readGBps = kNaN, writeGBps = kNaN; // duration-weighted main-memory bandwidth of tasks
    double hbmBwGBps = kNaN;      // read + write
    double hbmBwUtil = kNaN;      // hbmBwGBps / hbmPeakGBps
    double hbmPeakGBps = kDefaultHbmPeakGBps;
    std::string hbmPeakSource;
    TimeNs deviceBusy = 0;        // Σ compute task durations
    std::uint64_t taskCount = 0;
    std::string utilizationSource;
};

ProfileSummary computeSummary(const Profile& p, double peakHbmGBps = kNaN);

// The spread of one number over the ranks of a cluster. NaN values are left out; all NaN when
// none is left. The median of an even count is the mean of the two middle values.
struct RankSpread {
    double min = kNaN, median = kNaN, max = kNaN;
    int count = 0; // values that were not NaN
};
RankSpread rankSpread(std::vector<double> values);

} // namespace npuscope
