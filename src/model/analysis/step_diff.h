#pragma once
// The two runs of a comparison side by side, step by step: where each step's time went
// (computing, communication not overlapped, free, and each computation operator type) and which
// baseline step stands beside which optimized step.
//
// Steps are the ProfilerStep#N spans of the first rank (as the operator mapping uses), else the
// first-to-last device task span as one step. Inside a span, the split is computeOverlap's from
// the device tasks (overlap.h, splitSpans): Computing = |compute ∩ span|, Not overlapped =
// |communication − compute| in the span, Free = span − both, so the three add up to the span.
// Operator types are the computation operators of the mapping (op_mapping.h: the kernel table's
// OP Type, else the device task name), each counted in the step its start falls in.
//
// Alignment: one step of each run is the anchor (by default the median step by duration, the
// lower one of an even count); baseline step i stands beside optimized step
// i − anchorBaseline + anchorOptimized, for every i where both exist.
#include "model/analysis/overlap.h"
#include "model/store/profile.h"
#include "model/store/session.h"

#include <string>
#include <utility>
#include <vector>

namespace npuscope {

// A step's breakdown (its `step` is "ProfilerStep#3", or "device span" without steps; computing,
// not overlapped and free add up to end − begin), and what a comparison adds: the device time of
// each computation operator type that starts in the span, by time descending.
struct StepSpan : StepBreakdown {
    std::vector<std::pair<std::string, TimeNs>> opTypes;
    TimeNs duration() const { return end - begin; }
};

std::vector<StepSpan> stepSpans(const Profile& p);
std::vector<StepSpan> stepSpans(const Session& s); // of the first rank; empty without ranks
// The index of the median step by duration (the lower of the two middle ones), -1 when empty.
int medianStep(const std::vector<StepSpan>& steps);

struct OpTypeDelta {
    std::string type;
    TimeNs before = 0, after = 0;
    TimeNs delta() const { return after - before; }
};

struct StepPair {
    int baseline = -1, optimized = -1; // indices into the runs' steps
    TimeNs stepDelta = 0, computingDelta = 0, commDelta = 0, freeDelta = 0; // optimized − baseline
    std::vector<OpTypeDelta> ops; // every type of either step, by |Δ| descending, then name
};

// The pairs around the anchors, in baseline step order. Anchors out of range give no pairs.
std::vector<StepPair> pairSteps(const std::vector<StepSpan>& baseline, const std::vector<StepSpan>& optimized,
                                int anchorBaseline, int anchorOptimized);

} // namespace npuscope
