#pragma once
// Cluster analysis of a Session with several ranks: the step breakdown per rank, the
// communication matrix (src rank × dst rank) per collective and for all, the share of each
// rank's and each collective's communication covered by computation, and the slow rank / slow
// link tests of ADVISOR.md (CLU-SLOWRANK, CLU-SLOWLINK), shared with the advisor's rules.
//
// Sources:
//  - Step breakdown, first that exists per rank: cluster_step_trace_time.csv rows of Type
//    "rank" (ClusterData::stepTrace), else the rank's own computeOverlap() (step_trace_time.csv,
//    else the Overlap Analysis lanes, else the device tasks). Each rank's step is T, the median
//    of its complete steps, and the median step's split (summary.h StepSplit), as everywhere else.
//  - Matrix: cluster_communication_matrix.json (ClusterData::links) when loaded, else every
//    rank's communication_matrix.json; a link (step, op, src, dst) written by several files is
//    counted once. Cells sum Transit Size and Transit Time over steps and ops; bandwidth is
//    ΣMB/Σms (= GB/s). "All" leaves out the groups that repeat others: "Total Op Info" (the sum
//    of the ops beside it) and torch_npu's sampled ops "-top1", "-middle", "-bottom1".."-bottom3"
//    (their step's "-total" counts each transfer once); each still has its own matrix.
//  - Slow link: Transit Size/Time per transport from cluster_communication.json when loaded,
//    else every rank's communication.json ("Communication Bandwidth Info").
//  - Overlap: the collectives on each rank's timeline (computeOverlap().collectives).
#include "model/analysis/overlap.h"
#include "model/analysis/summary.h"
#include "model/store/session.h"

#include <map>
#include <string>
#include <vector>

namespace npuscope {

// ---- Step breakdown -------------------------------------------------------------------------

// One rank's step split, and what the cluster tab adds to it: the overlapped and whole
// communication time of the same median step, and the bubble (a mean per step: it is not part of
// the split that adds up to T).
struct RankBreakdown {
    int rank = -1;        // rank id (Profile::rank, the cluster file's Index, else the position)
    int rankIndex = -1;   // index into Session::ranks, -1 when the rank is only in the cluster file
    std::string source;   // "cluster_step_trace_time", "step_trace_time", "Overlap Analysis", "device tasks"
    StepSplit split;      // T, the median complete step's split, the step counts (ns)
    double overlapped = 0, communication = 0; // of the median step, ns
    double bubble = 0;    // mean per step, ns (cluster_step_trace_time / step_trace_time Bubble)
    double stepTime() const { return static_cast<double>(split.stepTime); }
};

// cluster_step_trace_time.csv's rank rows (ClusterData::stepTrace, Type "rank", with a Computing
// value) per rank id, each rank's in step order: the steps its StepSplit is taken over.
std::map<int, std::vector<StepBreakdown>> clusterRankSteps(const ClusterData& cl);

// ---- Communication matrix -------------------------------------------------------------------

struct MatrixCell {
    int src = -1, dst = -1;
    std::string transport;    // the transport carrying most of the bytes (LOCAL, HCCS, RDMA, ...)
    double sizeMB = 0, timeMs = 0;
    int links = 0;            // link records summed into the cell
    bool slow = false;        // bandwidth < bw_ratio × median of the group's cells on its transport
    double bandwidthGBps() const { return timeMs > 0 ? sizeMB / timeMs : kNaN; }
};

struct CommMatrix {
    std::string collective;         // "All" or a collective name ("hcom_allReduce")
    std::vector<MatrixCell> cells;  // sorted by (src, dst)
    const MatrixCell* cell(int src, int dst) const;
};

enum class MatrixMetric { Bandwidth, Size, Time, Transport };
const char* matrixMetricName(MatrixMetric m); // "Bandwidth (GB/s)", ...
// The value a heatmap shows for a cell: GB/s, MB, ms, or transportIndex() (NaN when unknown).
double matrixValue(const MatrixCell& c, MatrixMetric m);
// A stable code per transport for colouring: LOCAL 0, HCCS 1, PCIE 2, SDMA 3, RDMA 4, SIO 5, other 6.
int transportIndex(const std::string& transport);
const std::vector<std::string>& transportNames(); // indexed by transportIndex()

// ---- Overlap of communication with computation ----------------------------------------------

struct RankOverlap {
    int rank = -1, rankIndex = -1;
    int collectives = 0;
    TimeNs communication = 0, covered = 0; // Σ op durations, Σ |op ∩ Computing|
    double ratio() const { return communication > 0 ? double(covered) / double(communication) : kNaN; }
};

struct CollectiveOverlapStats {
    std::string collective; // commBaseName of the op name
    int count = 0;          // instances over all ranks
    TimeNs communication = 0, covered = 0;
    double minRatio = kNaN, maxRatio = kNaN; // over ranks (each rank's Σcovered/Σdur)
    int minRank = -1, maxRank = -1;
    double ratio() const { return communication > 0 ? double(covered) / double(communication) : kNaN; }
};

// ---- Slow rank / slow link (ADVISOR.md) -----------------------------------------------------

inline constexpr double kDefaultSlowRankGapRatio = 0.05; // CLU-SLOWRANK.gap_ratio
inline constexpr double kDefaultSlowLinkBwRatio = 0.8;   // CLU-SLOWLINK.bw_ratio

// A rank's step split as the slow rank test reads it.
struct RankTimes {
    int rank = -1;
    StepSplit split;
};

struct SlowRankDimension {
    std::string name;         // "Computing", "Communication(Not Overlapped)", "Free"
    double min = 0, max = 0, median = 0;
    double spread = 0;        // (max − min) / mean step (the mean over ranks of their T)
    bool fired = false;       // spread > gap ratio
    int slowRank = -1;        // Computing/Free: the rank with the most; Communication: the last
                              // arriver when given, else the rank with the least (it waited least)
    double value = 0;         // the slow rank's value
    double excess = 0;        // max − median (ns per step): the gain of ADVISOR.md
};

struct SlowRankResult {
    bool checked = false;     // ≥ 2 ranks
    double gapRatio = kDefaultSlowRankGapRatio;
    double meanStep = 0;      // the mean over ranks of their T, ns
    std::vector<SlowRankDimension> dimensions; // Computing, Communication(Not Overlapped), Free
    bool fired() const;
};

// The spread test of CLU-SLOWRANK. `lastArriver` (a rank id, or -1) names the rank a
// per-collective test found arriving last; it then is the slow rank of the communication part.
SlowRankResult findSlowRank(const std::vector<RankTimes>& ranks, double gapRatio = kDefaultSlowRankGapRatio,
                            int lastArriver = -1);

struct RankTransportBandwidth {
    int rank = -1;
    std::string transport;
    double sizeMB = 0, timeMs = 0;
    double median = kNaN;     // median bandwidth of the transport over ranks
    bool slow = false;        // bandwidth < bw_ratio × median
    double bandwidthGBps() const { return timeMs > 0 ? sizeMB / timeMs : kNaN; }
    // Σ(t − size/median bw), ms over all steps: the time lost to the slow link.
    double lostMs() const { return median > 0 ? timeMs - sizeMB / median : 0; }
};

struct SlowLinkResult {
    bool checked = false;     // some transport has ≥ 2 ranks
    double bwRatio = kDefaultSlowLinkBwRatio;
    std::vector<RankTransportBandwidth> rows; // by (transport, rank); only transports with ≥ 2 ranks
    std::vector<const RankTransportBandwidth*> slow() const;
};

// Per rank and transport Σ Transit Size / Σ Transit Time over the session's communication ops
// (sizes or times ≤ 0 and the "Total Op Info" entries left out). `source` names the input.
std::vector<RankTransportBandwidth> rankTransportTotals(const Session& s, std::string* source = nullptr);
// The test of CLU-SLOWLINK on such totals: per transport with ≥ 2 ranks, bw < ratio × median.
SlowLinkResult findSlowLinks(std::vector<RankTransportBandwidth> totals, double bwRatio = kDefaultSlowLinkBwRatio);

// ---- Everything for the cluster view --------------------------------------------------------

struct ClusterOptions {
    double gapRatio = kDefaultSlowRankGapRatio;
    double bwRatio = kDefaultSlowLinkBwRatio;
};

struct ClusterAnalysis {
    std::vector<RankBreakdown> ranks;   // sorted by rank id
    std::string breakdownSource;        // the sources used, e.g. "cluster_step_trace_time" or "step_trace_time, device tasks"
    std::vector<int> matrixRanks;       // every rank id seen in the matrix, sorted
    std::vector<CommMatrix> matrices;   // [0] = "All", then per collective by name
    std::string matrixSource;
    std::vector<RankOverlap> rankOverlap;            // sorted by rank id
    std::vector<CollectiveOverlapStats> collectiveOverlap; // by total communication time, descending
    SlowRankResult slowRank;
    SlowLinkResult slowLink;            // per rank and transport (ADVISOR.md)
    std::string slowLinkSource;
    int rankIndexOf(int rank) const;    // index into Session::ranks of a rank id, or -1
};

ClusterAnalysis analyzeCluster(const Session& s, const ClusterOptions& o = {});

double medianOf(std::vector<double> v); // NaN for none

} // namespace npuscope
