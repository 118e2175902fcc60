#pragma once
// The replay model's inside (whatif.h), shared by its construction (whatif_build.cpp) and its
// replays (whatif.cpp); nothing else includes it.
#include "model/analysis/whatif.h"

#include "model/analysis/idle_causes.h"
#include "model/analysis/overlap.h"
#include "model/analysis/step_graph.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace npuscope {

namespace whatif_detail {

enum Bind : std::uint8_t { kStream = 0, kLaunch = 1, kDep = 2, kFirst = 3 };

// One device task and its measured constraints.
struct Dev {
    std::uint32_t row = kNone;
    std::uint32_t track = kNone;
    TimeNs start = 0, dur = 0;
    int step = -1;
    bool comm = false, compute = false;
    // The stream predecessor and the latest cross-stream dependency (recorded or inferred): whether
    // the task has one, its measured end, and its dev index (kNone when a sample left it out: it
    // then stays at its measured end).
    bool hasPrev = false, hasDep = false, depComm = false;
    TimeNs prevEnd = 0, depEnd = 0;
    std::uint32_t prev = kNone;
    std::uint32_t dep = kNone;
    std::uint32_t launchSrc = kNone; // slice row of its launch
    std::uint32_t enqueue = kNone;   // the Enqueue feeding the launch's thread, when linked
    TimeNs launchArr = 0;            // when the launch arrived (measured)
    Bind bind = kFirst;
    TimeNs gap[3] = {0, 0, 0};  // gap after each constraint's event, as the replay uses it
    std::uint32_t type = kNone; // NameId of the op type (kernel Type, else name)
};

} // namespace whatif_detail

struct WhatIfModel::Impl {
    using Dev = whatif_detail::Dev;
    const Profile& p;
    StepGraph g;
    std::optional<OverlapResult> ownOverlap; // computeOverlap(p), when the caller gave none
    const OverlapResult* ovp = nullptr;
    const OverlapResult& ov() const { return *ovp; }
    IdleCauses idle;
    std::vector<Dev> dev;                                      // by start
    std::unordered_map<std::uint32_t, std::uint32_t> devOf;    // slice row → dev index
    std::unordered_map<std::uint32_t, std::string> lowerTypes; // NameId → lower-cased type
    std::vector<std::string> notes;
    // The measured time of each step (step_trace_time's where present, matched by name, else its
    // span), where it comes from, and which steps are partial (overlap.h stepStats): the whole
    // run's, whatever a replay covers.
    std::vector<double> measuredNs;
    std::string stepSource;
    std::vector<char> isPartial;
    std::size_t complete = 0;
    // The steps a replay gives, ascending (every step, or the sample), and per step whether it is
    // one of them.
    std::vector<std::size_t> replayed;
    std::vector<char> inReplay;
    bool sampled = false;
    // What every replay reads the same (prepare()): the host rows that synchronize, by row;
    // whether `dev`'s starts never decrease (a replay then merges the host events into it); per
    // step the measured end of its last work and of its device tasks outside `dev`; and the host
    // work of the steps, by thread and end.
    struct HostEnd {
        TimeNs end;
        std::uint32_t thread;
        std::int32_t step;
    };
    std::vector<std::uint32_t> syncRows;
    bool devSorted = false;
    std::vector<TimeNs> lastMeasured, lastFixed;
    std::vector<HostEnd> hostEnds;
    // A replay's per-task columns, kept between replays (one replay at a time uses them), so
    // that each does not fault in fresh pages.
    struct Scratch {
        std::vector<TimeNs> dur, st, en;
        std::vector<char> done;
    };
    mutable std::mutex scratchMutex;
    mutable Scratch scratch;

    Impl(const Profile& prof, const WhatIfOptions& o);

    void measureSteps();
    void chooseSteps(const WhatIfOptions& o);
    void build();
    void classify();
    void prepare();
    // Host tracks of one thread (its Python and CANN tracks) share one history: by tid.
    std::vector<std::uint32_t> threadOf; // track → thread index
    std::size_t threads = 0;
    std::uint32_t thread(std::uint32_t row) const { return threadOf[p.slices.track[row].v]; }
    TimeNs hostShiftAt(const std::vector<std::vector<std::pair<TimeNs, TimeNs>>>& hist, std::uint32_t th, TimeNs t) const
    {
        if (th >= hist.size())
            return 0;
        const auto& h = hist[th];
        auto it = std::upper_bound(h.begin(), h.end(), std::make_pair(t, kMaxTimeNs));
        return it == h.begin() ? 0 : std::prev(it)->second;
    }
    // The Enqueue row of the task queue feeding `row`'s thread (row or an ancestor is a Dequeue).
    std::uint32_t enqueueOf(std::uint32_t row) const
    {
        for (int depth = 0; row != kNone && depth < 64; ++depth, row = g.parent[row]) {
            if (g.role[row] != NodeRole::Dequeue)
                continue;
            for (const GraphEdge& e : g.edgesInto(row))
                if (e.kind == EdgeKind::TaskQueue)
                    return e.src;
        }
        return kNone;
    }
};

} // namespace npuscope
