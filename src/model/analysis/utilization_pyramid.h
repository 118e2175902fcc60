#pragma once
// The derived utilisation curves (AI Core utilisation, memory bandwidth, L2 hit rate; see
// utilization.h for what each measures) at any zoom, so that a view draws at least one bin per
// two pixels of whatever window it shows, without going over every task of the profile.
//
// Built once per device of a profile, in one pass over its kernel table:
//  - a pyramid of bin sums: level 0 splits the span into at most a few hundred thousand bins of
//    a power-of-two width (fewer on a small profile), each level above halves the bin count.
//    Every quantity a curve needs is an integral of per-task rates over time (utilisation × ns,
//    GB/s × ns, L2 hits and misses spread in proportion to time), so a bin of a coarser level is
//    the sum of two below it and a window reads O(its bins);
//  - the tasks by class of duration (class c holds durations below 2^c ns), in order of the
//    level-0 bin they start in, so the tasks that overlap any window are found by binary search
//    in each class.
// A window asks for bins no wider than maxBinNs. When level 0 is fine enough, the coarsest
// level whose bins are no wider is read: never a coarser one. Below level 0 the window is
// computed from its own tasks: between the tasks' exact edges when there are no more pieces
// than bins would give, else in power-of-two bins on the same grid, so panning never moves a
// bin edge.
//
// It reads the profile's kernel table as it computes a window: valid while the profile lives.
// No Qt.
#include "model/store/profile.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace npuscope {

enum class DerivedQuantity : std::uint8_t { AiCoreUtilization, Bandwidth, L2HitRate };

// A derived curve over a window: v[i] holds from t[i] to t[i + 1]; the last entry only ends the
// last piece (its value repeats the one before).
struct CurveWindow {
    std::vector<TimeNs> t;
    std::vector<double> v;
    TimeNs binNs = 0; // the bins' width; 0 when the pieces run between the tasks' own edges
};

class UtilizationPyramid {
public:
    // The tasks of `device` (-1: every device) other than communication, over [begin, end).
    UtilizationPyramid(const Profile& p, int device, TimeNs begin, TimeNs end);

    bool has(DerivedQuantity q) const;
    // Which kernel columns the utilisation came from, as a series' source names them.
    const std::string& utilizationSource() const { return m_utilSource; }
    bool l2FromCounters() const { return m_counters; }
    TimeNs begin() const { return m_begin; }
    TimeNs end() const { return m_end; }
    TimeNs finestBinNs() const { return m_width0; }
    int levelCount() const { return static_cast<int>(m_levelSize.size()); }
    std::size_t taskCount() const { return m_rows.size(); }

    // q over [from, to) (clamped to the span), bins no wider than maxBinNs (at least 1 ns).
    CurveWindow window(DerivedQuantity q, TimeNs from, TimeNs to, TimeNs maxBinNs) const;
    // q in the buckets [gridBegin + i·width, + width), i < n, straight from the tasks.
    CurveWindow buckets(DerivedQuantity q, TimeNs gridBegin, TimeNs width, std::size_t n) const;

private:
    // What a task adds per ns of its time, by channel.
    enum Channel : std::size_t { kUtil, kBandwidth, kHits, kMisses, kRateSum, kRateWeight, kChannels };
    // What a task has, as ratesOf says.
    enum Has : unsigned { kHasUtil = 1, kFromCube = 2, kHasBandwidth = 4, kHasCounters = 8, kHasRate = 16 };
    using Rates = std::array<double, kChannels>;
    struct Columns {
        int cube = -1, mac = -1, vec = -1, l2Rate = -1;
        std::vector<int> bwRead, bwWrite, hits, misses;
    };

    unsigned ratesOf(std::size_t row, Rates& r) const; // Has bits; 0: the task adds nothing
    static double value(DerivedQuantity q, bool counters, const Rates& integral, double widthNs);
    double binValue(DerivedQuantity q, int level, std::size_t bin) const;
    std::vector<std::uint32_t> tasksIn(TimeNs from, TimeNs to) const;
    std::size_t binOf(TimeNs t) const; // the level-0 bin holding t (the first or last outside the span)
    CurveWindow exactEdges(DerivedQuantity q, const std::vector<std::uint32_t>& rows, TimeNs from, TimeNs to) const;
    void buildLevels(const std::vector<std::uint8_t>& cls);
    void indexTasks(const std::vector<std::uint8_t>& cls, std::size_t counted);

    const KernelTable* m_k;
    Columns m_cols;
    TimeNs m_begin = 0, m_end = 0;
    TimeNs m_width0 = 1; // level 0's bin width, a power of two
    std::size_t m_bins0 = 0;
    std::string m_utilSource;
    bool m_counters = false;
    std::array<bool, kChannels> m_present{};
    // m_levels[channel] holds every level one after another, level k from m_levelStart[k].
    std::array<std::vector<double>, kChannels> m_levels;
    std::vector<std::size_t> m_levelStart, m_levelSize;
    std::vector<std::uint32_t> m_rows;      // by duration class, then level-0 bin of the start
    std::array<std::size_t, 65> m_classStart{}; // class c: m_rows[m_classStart[c], m_classStart[c + 1])
};

} // namespace npuscope
