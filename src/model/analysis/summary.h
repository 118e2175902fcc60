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

struct ProfileSummary {
    TimeNs stepTime = 0;          // T, mean per step (overlap.h)
    int steps = 0;
    std::string stepSource;       // where T comes from
    TimeNs computing = 0, commNotOverlapped = 0, free = 0; // mean per step
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

// The mean step of a breakdown: T and its split, each the sum over the steps divided by their
// count (rounded down to the nanosecond). What the summary strip, `compare` and `info` show.
struct MeanStep {
    int steps = 0;
    std::string source;           // OverlapResult::stepTimeSource
    TimeNs stepTime = 0, computing = 0, commNotOverlapped = 0, free = 0;
};
MeanStep meanStep(const OverlapResult& o);

// The spread of one number over the ranks of a cluster. NaN values are left out; all NaN when
// none is left. The median of an even count is the mean of the two middle values.
struct RankSpread {
    double min = kNaN, median = kNaN, max = kNaN;
    int count = 0; // values that were not NaN
};
RankSpread rankSpread(std::vector<double> values);

} // namespace npuscope
