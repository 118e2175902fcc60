#pragma once
// Time series of hardware use for the utilisation plots, over the profile's span.
//
// Sampled series are the timeline's counters as recorded (a value holds until the next sample).
// Derived series come from per-task metrics of the kernel table, spread over buckets
// (utilization_pyramid.h computes them, and recomputes them for any window and zoom):
//  - AI Core utilisation: Σ_tasks u·|task ∩ bucket| / bucket width, u = cube_utilization(%)/100,
//    else the dominant pipe ratio (max of aic_mac_ratio, aiv_vec_ratio); idle time counts as 0,
//    concurrent tasks add up and the sum is capped at 1.
//  - Memory bandwidth (only without HBM counters): Σ_tasks bw·|task ∩ bucket| / bucket width,
//    bw = main-memory read + write GB/s (aic + aiv) of the task: the average device bandwidth.
//  - L2 hit rate: the L2 hit/miss counters of each task spread in proportion to its time inside
//    the bucket, Σhits/(Σhits+Σmisses); else the time-weighted l2_hit_rate of l2_cache.csv.
//    NaN in buckets without a task (a gap, not a zero).
// Sampled: AI Core frequency (MHz, "AI Core Freq"), HBM Read/Write (MB/s -> GB/s), memory use
// (counters whose key is in KB or MB, shown in MB).
#include "model/analysis/utilization_pyramid.h"
#include "model/store/profile.h"

#include <memory>
#include <string>
#include <vector>

namespace npuscope {

struct Series {
    std::string name, unit;
    std::string source; // "sampled: AI Core Freq counter" or "derived: time-weighted from kernel_details cube_utilization(%)"
    std::vector<TimeNs> t; // sample times (sampled) or bucket starts (derived)
    std::vector<double> v;
    int device = -1;
    // Derived series: the same numbers for any window, at the bin width a view needs; shared by
    // the series of one device. Null for sampled ones.
    std::shared_ptr<const UtilizationPyramid> pyramid;
    DerivedQuantity quantity = DerivedQuantity::AiCoreUtilization;
};

// bucketNs 0 = automatic: the widest power-of-two bins no wider than a 2000th of the span or 1 µs,
// whichever is wider (or the tasks' own edges, on a profile with fewer tasks than that).
// The pyramids read p's kernel table: keep p alive while they are used.
std::vector<Series> utilizationSeries(const Profile& p, TimeNs bucketNs = 0);

} // namespace npuscope
