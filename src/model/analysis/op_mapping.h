#pragma once
// Operator mapping between a baseline and an optimized run: which device operators stayed,
// which changed time, and which windows of baseline operators were replaced by a window of
// optimized ones (BatchMatMul→SoftmaxV2→BatchMatMul ⇒ FlashAttentionScore).
//
// How it is computed (nothing is a list of known fusions):
//  1. Each run is cut into steps (ProfilerStep#N spans, else the whole profile as one step) and
//     each step into per-stream sequences of computation operators in start order, from the
//     kernel table (OP Type + input shapes) or, without one, from the device tasks (name).
//  2. The i-th step of the baseline is paired with the i-th step of the optimized run; streams
//     are paired by their rank in operator count (busiest with busiest).
//  3. A Myers shortest edit script over the (type, shapes) keys of a stream pair gives the
//     anchors: the same operator on both sides, unchanged or changed in time.
//  4. Between two anchors, the leftover windows are cut again by a longest common subsequence
//     over runs of one type (3 × MatMulV2 against 1 × MatMulV2): every piece with operators on
//     both sides and at most kMaxReplacementWindow on each is a replacement; longer pieces and
//     one-sided ones are removed / added operators.
//  5. A stream pair whose anchors cover less than a third of its shorter sequence is not the
//     same program: it is not mapped (its operators count as removed and added), so unrelated
//     runs give no replacements.
// Rows with the same signature (the types, or the key for anchors) are summed; times are per
// aligned step. The first rank of each session is compared.
#include "model/store/profile.h"
#include "model/store/session.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace npuscope {

inline constexpr std::size_t kMaxReplacementWindow = 8;

enum class MappingKind { Unchanged, Changed, Replaced, Removed, Added };
const char* mappingKindName(MappingKind k); // "unchanged", "changed", "replaced", "removed", "added"

// A two-sided interval on a per-step quantity: optimized / baseline means, percentile bootstrap.
struct RatioInterval {
    double ratio = std::numeric_limits<double>::quiet_NaN(); // median(optimized) / median(baseline)
    double low = std::numeric_limits<double>::quiet_NaN(), high = std::numeric_limits<double>::quiet_NaN();
    int baselineSteps = 0, optimizedSteps = 0;
    bool valid() const { return !std::isnan(low) && !std::isnan(high); }
};

// Percentile bootstrap (2000 resamples, a fixed seed, so a report is reproducible) of
// median(optimized) / median(baseline) at `level` (0.95): the step time is a median
// (overlap.h). With fewer than 2 values on a side the interval is the point ratio alone.
RatioInterval bootstrapRatio(const std::vector<double>& baseline, const std::vector<double>& optimized,
                             double level = 0.95);
// "improved", "regressed" or "same" for a lower-is-better per-step quantity: the change must
// exceed `sameWithin` of the larger mean (the floor) and the interval must exclude 1.
std::string intervalVerdict(const RatioInterval& ci, double sameWithin);

struct OpMappingRow {
    MappingKind kind = MappingKind::Unchanged;
    std::string baseline;   // "BatchMatMul→SoftmaxV2→BatchMatMul"; anchors: the type; empty when added
    std::string optimized;  // "FlashAttentionScore"; empty when removed
    std::string shapes;     // anchors: the input shapes; else empty
    std::uint64_t occurrences = 0; // windows (or operators) over all aligned steps
    double beforeNs = 0, afterNs = 0; // mean per aligned step
    std::vector<double> beforePerStep, afterPerStep; // ns, one value per aligned step
    RatioInterval ci;
    std::string verdict;    // intervalVerdict of ci; "" for removed / added
};

struct OpMapping {
    int steps = 0;                    // aligned step pairs
    int baselineSteps = 0, optimizedSteps = 0;
    int streamPairs = 0, mappedStreamPairs = 0;
    std::string source;               // "kernel table" or "device tasks" (of the baseline)
    std::vector<OpMappingRow> rows;   // replaced, changed, unchanged, removed, added; each by |Δ| desc.
    std::size_t count(MappingKind k) const;
};

// One device operator in start order, as the mapping sees it.
struct MappedOp {
    std::string type, shapes;
    TimeNs start = 0, dur = 0;
};
// The per-step, per-stream sequences of a profile: steps[s][stream index] (streams by op count).
std::vector<std::vector<std::vector<MappedOp>>> mappingSequences(const Profile& p, std::string* source = nullptr);

OpMapping mapOperators(const Profile& baseline, const Profile& optimized, double sameWithin = 0.01);
OpMapping mapOperators(const Session& baseline, const Session& optimized, double sameWithin = 0.01);

} // namespace npuscope
