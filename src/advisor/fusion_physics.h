#pragma once
// What fusing consecutive device tasks saves, physically (CMP-FUSE): each intermediate's HBM
// round trip (its bytes written by the producer and read back by the consumer, each side at
// that op's achieved bandwidth, never more than the op's data-movement time) and the launch
// gaps between the fused tasks.
#include "advisor/rule_context.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace npuscope::advisor {

// The data-movement time of a task: dur · (mte2 + max(fixpipe, mte3)), at most dur; 0 without
// PMU ratios.
struct MteTime {
    const KernelTable& k;
    std::vector<int> mte2, mte3, fix;
    explicit MteTime(const KernelTable& kt);
    double operator()(const Task& t) const;
};

// The bytes of a kernel row's outputs (Output Shapes × dtype sizes); NaN when unknown.
double outputBytes(const Profile& p, std::uint32_t row);

struct ChainSaving {
    std::vector<double> taskNs;            // per task of the chain: the round-trip time it loses
    double roundTripNs = 0;                // Σ taskNs
    double gapNs = 0;                      // Σ inner gaps
    double bytes = 0;                      // Σ intermediate bytes (one way)
    std::size_t boundaries = 0, known = 0; // intermediates, and those whose bytes are known
    double total() const { return roundTripNs + gapNs; }
};

// Bandwidth, bytes and mte columns of a kernel table, found once; each distinct (output shapes,
// output dtypes) pair's bytes parsed once. One instance per thread: the bytes are memoised.
class FusionPhysics {
public:
    explicit FusionPhysics(const Profile& p);
    // One intermediate between consecutive tasks: the time each side loses and its bytes.
    // 24 bytes: CMP-FUSE keeps one per task.
    struct Boundary {
        double prodNs = 0, consNs = 0, bytes = 0; // bytes > 0 when known
        bool known() const { return bytes > 0; }
    };
    Boundary boundary(const Task& prod, const Task& cons) const;
    // The most a task can lose: its data-movement time, or its duration without PMU ratios.
    double cap(const Task& t) const;
    // The same, given the task's data-movement time `mte` (mte()(t)).
    static double cap(const Task& t, double mte);
    // The saving of fusing `chain` (consecutive tasks of one stream, in order).
    ChainSaving chain(const std::vector<const Task*>& chain) const;
    const MteTime& mte() const { return m_mte; }

private:
    double achievedBandwidth(const Task& t) const;       // bytes per ns (= GB/s); NaN when unknown
    double outputBytesOf(std::uint32_t kernelRow) const; // outputBytes(), memoised by its strings
    const Profile& m_p;
    const KernelTable& m_k;
    MteTime m_mte;
    std::vector<int> m_aicR, m_aicW, m_aivR, m_aivW;
    mutable std::unordered_map<std::uint64_t, double> m_bytesByStrings;
};

// Whether an op type is elementwise (a GEMM epilogue can take it): Add, Mul, Cast, activations...
bool isElementwiseType(const std::string& lowerType);

} // namespace npuscope::advisor
