#pragma once
// What-if replay: each step's graph (step_graph.h) run again with changed durations and
// dependencies, to predict the step a change would give.
//
// A device task starts at max(stream predecessor end' + its gap, launch' + its latency,
// dependency end' + its gap). The gap of the constraint that bound the task in the measured run
// (the one whose event came last) is the measured one; a non-binding constraint takes the
// typical value of its stream (the median of its binding cases), never more than what the
// measured run shows, so a replay without changes gives every task its measured start. Host
// work the device does not gate keeps its time; a synchronize returns when the device task it
// waited for ends (plus its measured lag), and what follows it on its thread (and the task queue
// thread it feeds) moves by the same shift. The step ends when its last host or device work ends,
// so its span changes by that shift; with step_trace_time, predicted = measured + that change.
// What bounds each replayed step is critical_path.h's walk on the replayed times
// (criticalPathsOn()): its kinds, tiling the replayed span.
//
// A task's cross-stream dependency is the graph's: its recorded wait (EVENT / Notify) or, when the
// data records none, the wait the graph inferred from timing (EdgeKind::InferredWait). A single
// rank's collective keeps its duration (its peers are not in the data). Nothing throws; edges
// pointing back in time are dropped (counted in notes).
#include "model/analysis/intervals.h"
#include "model/store/profile.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace npuscope {

struct StepGraph;

// Slice rows with a value each, as (row, value) pairs sorted by row: a replay's changes are
// copied for every candidate of a plan and composed, so they are flat and merged in one pass
// (millions of fused tasks at 10 GB); a replay looks its tasks up by binary search.
template <typename V>
class RowValues {
public:
    using Entry = std::pair<std::uint32_t, V>;
    bool empty() const { return m_rows.empty(); }
    std::size_t size() const { return m_rows.size(); }
    auto begin() const { return m_rows.begin(); }
    auto end() const { return m_rows.end(); }
    // The value of `row`, or null.
    const V* find(std::uint32_t row) const
    {
        const auto it = std::lower_bound(m_rows.begin(), m_rows.end(), row,
                                         [](const Entry& e, std::uint32_t r) { return e.first < r; });
        return it != m_rows.end() && it->first == row ? &it->second : nullptr;
    }
    // Takes `more` (any order, rows may repeat): a row already held, or repeated, gets
    // combine(value so far, its next value), in the order given.
    template <typename Combine>
    void merge(std::vector<Entry> more, Combine combine)
    {
        stableSortByRuns(more, [](const Entry& a, const Entry& b) { return a.first < b.first; });
        if (m_rows.empty()) { // the rows given, their repeats combined in place
            std::size_t n = 0;
            for (std::size_t i = 0; i < more.size(); ++i) {
                if (n > 0 && more[n - 1].first == more[i].first)
                    more[n - 1].second = combine(more[n - 1].second, more[i].second);
                else
                    more[n++] = more[i];
            }
            more.resize(n);
            m_rows = std::move(more);
            return;
        }
        std::vector<Entry> out;
        out.reserve(m_rows.size() + more.size());
        auto a = m_rows.begin(), b = more.begin();
        while (a != m_rows.end() || b != more.end()) {
            const bool fromA = b == more.end() || (a != m_rows.end() && a->first <= b->first);
            const Entry& e = fromA ? *a++ : *b++;
            if (!out.empty() && out.back().first == e.first)
                out.back().second = combine(out.back().second, e.second);
            else
                out.push_back(e);
        }
        m_rows = std::move(out);
    }
    // The entries whose row keep(row) holds, in order.
    template <typename Keep>
    RowValues filtered(Keep keep) const
    {
        RowValues out;
        for (const Entry& e : m_rows)
            if (keep(e.first))
                out.m_rows.push_back(e);
        return out;
    }

private:
    std::vector<Entry> m_rows;
};

// A set of slice rows, sorted (RowValues without values).
class RowSet {
public:
    bool empty() const { return m_rows.empty(); }
    std::size_t size() const { return m_rows.size(); }
    auto begin() const { return m_rows.begin(); }
    auto end() const { return m_rows.end(); }
    bool contains(std::uint32_t row) const { return std::binary_search(m_rows.begin(), m_rows.end(), row); }
    // Adds `more` (any order, rows may repeat).
    void insert(std::vector<std::uint32_t> more)
    {
        stableSortByRuns(more, std::less<>());
        if (m_rows.empty()) {
            more.erase(std::unique(more.begin(), more.end()), more.end());
            m_rows = std::move(more);
            return;
        }
        std::vector<std::uint32_t> out;
        out.reserve(m_rows.size() + more.size());
        std::set_union(m_rows.begin(), m_rows.end(), more.begin(), more.end(), std::back_inserter(out));
        out.erase(std::unique(out.begin(), out.end()), out.end());
        m_rows = std::move(out);
    }
    template <typename Keep>
    RowSet filtered(Keep keep) const
    {
        RowSet out;
        std::copy_if(m_rows.begin(), m_rows.end(), std::back_inserter(out.m_rows), keep);
        return out;
    }

private:
    std::vector<std::uint32_t> m_rows;
};

// The changes of one replay. They compose: scales multiply, savings add.
struct WhatIfChanges {
    // Device tasks of an op type (kernel Type, else the task's name; case-insensitive) take
    // dur × factor.
    std::vector<std::pair<std::string, double>> scaleTypes;
    RowValues<double> scaleRows; // slice row → factor
    RowValues<TimeNs> saveRows;  // slice row → ns its duration loses (after scaling)
    // Slice rows fused into their stream predecessor: no gap before them and no launch of their own.
    RowSet fusedRows;
    // Idle causes whose time is removed (whatIfCauses()).
    std::vector<std::string> removeCauses;
    // Compute no longer waits for collectives (the collective → compute edges are dropped).
    bool overlapComm = false;

    bool empty() const;
    void add(const WhatIfChanges& o);
    // One line per change ("scale MatMulV2 × 0.5", "fuse 96 tasks into their predecessors", ...).
    std::vector<std::string> describe() const;
};

// The causes `--remove` takes: idle_causes.h's keys ("host_python", "dataloader", "sync",
// "compile", "launch", "dependency", "comm_wait", "unknown"). A host cause's slices (the ones
// idle_causes blames) take no time; a launch, dependency or unknown cause's idle time is cut from
// the wait of the task it ended at.
const std::vector<std::string>& whatIfCauses();

struct WhatIfStep {
    std::string name;
    bool partial = false;   // left out of the medians (overlap.h stepStats)
    double measuredNs = 0;  // the advisor's step time (step_trace_time's where present)
    double predictedNs = 0; // measured + (replayed span − measured span)
    TimeNs spanNs = 0, replayedSpanNs = 0;
    // The replayed critical path of this step (critical_path.h's walk on the replayed times), ns
    // per kind in PathKind order ("host_python", "launch", "compute", "comm", "comm_wait",
    // "idle"); Σ = replayedSpanNs.
    std::vector<std::pair<std::string, TimeNs>> boundBy;
};

struct WhatIfResult {
    bool ok = false;
    std::string error;
    std::string stepSource;     // where measured step times come from
    double measuredStepNs = 0;  // median over complete steps
    double predictedStepNs = 0; // median of the same steps, replayed
    std::vector<WhatIfStep> steps;
    // The replayed critical path's time by kind, critical_path.h's kinds (pathKindKey(): all six,
    // largest first), of the median complete step by replayed span (the lower middle of an even
    // count), boundByStep: Σ = boundBySpanNs exactly. Empty when no step is complete.
    std::vector<std::pair<std::string, double>> boundBy;
    std::string boundByStep;                                 // that step's name
    TimeNs boundBySpanNs = 0;                                // its replayed span
    std::string boundByOf = "median complete step";          // which step boundBy describes
    std::vector<std::pair<std::string, double>> idleByCause; // its "idle" by idle cause (idleCauseKey()), largest first
    // Its replayed path's segments summed by kind and label (compute: the op type; comm and host:
    // the slice's name; idle: the idle cause), largest first, at most kPathTopCount.
    struct PathTop {
        std::string kind, label;
        double ns = 0;
        int count = 0; // segments it sums
    };
    static constexpr std::size_t kPathTopCount = 8;
    std::vector<PathTop> pathTop;
    std::vector<std::string> changes; // WhatIfChanges::describe()
    std::vector<std::string> notes;
};

struct OverlapResult;
struct StepGraph;

// What a model covers, and what it may take from its caller instead of computing it.
struct WhatIfOptions {
    // The rank's step breakdown, computeOverlap(p), when the caller has it (it must outlive the
    // model); null: the model computes it.
    const OverlapResult* overlap = nullptr;
    // The rank's step graph, buildStepGraph(p), when the caller built it already (on another
    // thread, say): the model takes it over (it is moved from); null: the model builds it.
    StepGraph* graph = nullptr;
    // A sample of the steps: these steps alone (indices into the rank's steps, buildStepGraph()'s
    // order), or, when `steps` is empty and the rank has more than `maxSteps` (> 0) complete
    // steps, `maxSteps` of them chosen evenly (the i-th of K is complete step i·N/K of the N).
    // Otherwise every step, which is what `npuscope whatif` and the What-if dock replay. A
    // sample holds, attributes the idle time of, and replays the tasks and host work of its
    // steps alone (the typical gaps of a stream are its tasks'; a stream predecessor or
    // dependency in a step left out stays at its measured end); its steps' partial flags are
    // the whole run's. The step graph is the whole run's.
    std::vector<std::size_t> steps;
    std::size_t maxSteps = 0;
};

// The replay model of one rank: the graph and the measured constraints, built once; run() replays
// any changes on it. Never throws.
class WhatIfModel {
public:
    explicit WhatIfModel(const Profile& p, const WhatIfOptions& options = {});
    ~WhatIfModel();
    WhatIfModel(WhatIfModel&&) noexcept;
    WhatIfModel& operator=(WhatIfModel&&) noexcept;
    // What run() computes: everything, or the steps' replayed times alone (StepsOnly: no
    // critical-path walk, so the steps' and the result's boundBy, idleByCause and pathTop stay
    // empty; every other field is the same).
    enum class Detail { Full, StepsOnly };
    WhatIfResult run(const WhatIfChanges& c, Detail detail = Detail::Full) const;
    // The device task rows (timeline slices) of an op type, as scaleTypes matches them (of the
    // sampled steps, for a sample).
    std::vector<std::uint32_t> rowsOfType(const std::string& type) const;
    // A sample (WhatIfOptions) replays its steps' times alone: run() gives the steps and their
    // medians, and no critical path (Detail::StepsOnly whatever it is asked).
    bool sampled() const;
    // Whether a replay reads a change of this slice row: a device task of the steps it replays.
    bool covers(std::uint32_t row) const;
    // `c` without the row changes no replay reads (rows it does not cover): the same replays.
    WhatIfChanges narrowed(const WhatIfChanges& c) const;
    std::size_t replayedSteps() const; // the steps run() gives: the sample, or every step
    std::size_t completeSteps() const; // the rank's complete steps (the whole run's)

    struct Impl;
    struct Replay;

private:
    std::unique_ptr<Impl> m;
};

// One replay of `p` (builds the model).
WhatIfResult replayWhatIf(const Profile& p, const WhatIfChanges& c);

} // namespace npuscope
