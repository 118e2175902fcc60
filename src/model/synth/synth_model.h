#pragma once
// The modelled workload: per-layer operator templates of a LLaMA-2 7B decode step, and a
// lock-step scheduler that lays out device tasks, host launches and collectives for all
// ranks one step at a time (collectives need every rank's arrival time).
#include "model/synth/synth.h"

#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

namespace npuscope::synth {

enum class Core { AiCore, AiVector, MixAic, Comm };

struct OpKind {
    std::string type;  // OP Type ("MatMulV2")
    std::string name;  // kernel name (kernel_details Name)
    std::string acl;   // host API ("aclnnMatmul")
    std::string aten;  // Python op ("aten::mm")
    Core core = Core::AiCore;
    double durUs = 10;   // modelled duration
    double cubeRel = 0;  // relative cube activity (0 = no cube work)
    double memRel = 1;   // relative main-memory bandwidth
    double gapUs = 0;    // idle gap before it on the compute stream (dependency wait)
    // pipe ratios (aic side for cube ops, aiv side for vector ops)
    double mac = 0, mte1 = 0, mte2 = 0, fixpipe = 0, scalar = 0;
    double vec = 0, vMte2 = 0, vMte3 = 0, vScalar = 0;
    int blockDim = 24, mixBlockDim = 0;
    std::string inShapes, inTypes, inFormats, outShapes, outTypes, outFormats;
};

struct Scenario {
    std::string name;
    std::vector<OpKind> ops; // one layer, in issue order; the collective is Core::Comm
    int layers = 32;
    bool overlapComm = false;
    double linkGBps = 12;          // HCCS per link
    std::uint64_t msgBytes = 0;    // all-reduce message per rank
    double targetUtil = 38, targetL2 = 0.45, targetHbm = 0.62, hbmPeak = 1200;
    double slowFactor = 1.25;      // cluster-slowrank: compute time of the slow rank
    int slowRank = -1, slowSrc = -1, slowDst = -1;
    double slowLinkShare = 0.4;
    // filled by calibrate(): cube utilisation (%) and bandwidth (GB/s) per relative unit
    double utilPerRel = 0, gbpsPerRel = 0;
    std::vector<std::pair<std::string, std::string>> env; // profiler_metadata ENV_VARIABLES
};

Scenario makeScenario(const std::string& name);

struct Link {
    int src = 0, dst = 0;
    bool local = false;
    double mb = 0;      // 10^6 B
    std::int64_t ns = 0; // transit time
};

struct Task {
    int op = 0;       // index in Scenario::ops
    int layer = 0;
    std::int64_t start = 0, dur = 0; // device ns
    std::int64_t aclStart = 0, aclDur = 0, nodeStart = 0, nodeDur = 0, pyStart = 0, pyDur = 0;
    std::uint64_t conn = 0;
    std::uint32_t taskId = 0;
    int stream = 0;
    std::int64_t waitBefore = 0; // idle gap before it on its stream
    // compute PMU draws
    double util = 0;     // cube utilisation %
    double coreFrac = 0; // aicore_time / dur
    double jit = 1;      // pipe-ratio jitter
    double gbps = 0;     // main-memory bandwidth
    double l2Hit = 0;
    // collective
    std::uint64_t commIndex = 0;
    std::int64_t waitNs = 0, transitNs = 0, syncNs = 0;
    std::int64_t transferStart = 0;
    std::vector<Link> links;
};

// A host slice a plant adds (planted_sched.cpp): a Python cpu_op or a CANN API call.
struct HostSlice {
    enum class Where : std::uint8_t { Python, CannMain, CannQueue }; // CANN: main or task-queue thread
    Where where = Where::Python;
    std::string name;
    std::string plant, cause; // empty for a slice nested in a planted one
    std::string stack;        // with_stack: the Python slice's "Call stack"
    std::int64_t start = 0, dur = 0;
    std::size_t beforeTask = 0; // written before tasks[beforeTask] of its rank
    std::uint64_t conn = 0;
};

// The late rank's delay in one step (LateRankSpec).
struct LateStep {
    int rank = -1;          // -1: none
    std::size_t task = 0;   // the delayed collective's index in that rank's tasks
    std::string delayedBy;  // the extra kernel's or Python slice's name
    std::int64_t delayNs = 0;
};

struct RankStep {
    std::vector<Task> tasks; // issue order
    std::vector<HostSlice> extra; // planted host slices, in time order
    std::int64_t syncStart = 0, syncDur = 0; // host aclrtSynchronizeStream at the step end
    std::uint64_t syncConn = 0;
};

struct StepPlan {
    int index = 0; // ProfilerStep number
    std::int64_t start = 0, end = 0;
    std::vector<RankStep> ranks;
    LateStep late;
};

// What the scheduler plants (planted.cpp builds it from SynthOptions): plants with their µs,
// device-time factors per op of Scenario::ops (empty: none), the late rank, and the launch
// queue's depth per rank (0: unbounded, as without plants).
struct PlantConfig {
    std::vector<PlantSpec> plants;
    std::vector<double> speed;
    LateRankSpec late;
    int queueDepth = 0;
    std::uint64_t seed = 0;
};

class Scheduler {
public:
    Scheduler(Scenario sc, int ranks, std::uint64_t seed, std::int64_t baseNs);
    StepPlan next();
    // Ranks of one communication group: all ranks up to kMeshRanks, else TP groups of 8.
    int groupSize() const { return m_group; }
    static constexpr int kMeshRanks = 64;
    const Scenario& scenario() const { return m_sc; }
    // Before the first next(); a default PlantConfig plants nothing and draws nothing.
    void setPlants(PlantConfig p);

    static constexpr int kComputeStream = 2;
    static constexpr int kCommStream = 8;

private:
    // A step's clocks per rank: where the host, the compute stream and the communication stream are.
    struct StepClock {
        std::vector<std::int64_t> host, dev, hccl;
        std::vector<bool> afterComm; // the next compute task waits on a collective's completion
        int collectives = 0;         // collectives scheduled so far in the step
    };
    void launch(StepClock& c, std::size_t r, Task& t, double aclUs);
    std::uint32_t nextTaskId(int which, std::size_t r);
    std::vector<Link> linksOf(int self, std::int64_t& transit);
    void scheduleCollective(StepPlan& plan, StepClock& c, int layer, std::size_t oi);
    void scheduleCompute(StepPlan& plan, StepClock& c, int layer, std::size_t oi);
    void finishStep(StepPlan& plan, StepClock& c);
    // planted_sched.cpp
    void plantBefore(StepPlan& plan, StepClock& c, int layer, std::size_t oi);
    void plantPython(StepPlan& plan, StepClock& c, std::size_t r, const char* plant, const char* name,
                     const char* cause, double us, std::string stack);
    void plantSync(StepPlan& plan, StepClock& c, std::size_t r, double us);
    void plantCompile(StepPlan& plan, StepClock& c, std::size_t r, double us);
    void plantLateOp(StepPlan& plan, StepClock& c, std::size_t r, int layer, double us);
    void waitQueue(StepClock& c, std::size_t r);
    void issued(std::size_t r, std::int64_t start);
    double plantJitter(); // 1 ± 5 %, from the plants' own generator
    int collectiveOrdinal(std::size_t oi) const; // which collective of the layer op oi is, or -1
    double u01(int rank);
    double jitter(int rank, double spread) { return 1.0 + spread * (2.0 * u01(rank) - 1.0); }
    std::int64_t us(double v) const { return static_cast<std::int64_t>(v * 1000.0 + 0.5); }

    Scenario m_sc;
    int m_ranks;
    int m_group;
    std::vector<std::mt19937_64> m_rng;
    std::vector<std::uint32_t> m_taskId[2];
    std::vector<std::uint64_t> m_conn;
    std::uint64_t m_commCounter = 0;
    std::int64_t m_now;
    int m_step = 0;
    // plants (all empty or zero without them)
    PlantConfig m_plant;
    bool m_planting = false;
    std::mt19937_64 m_plantRng;
    std::vector<std::deque<std::int64_t>> m_issued; // per rank: device starts of the last launches
    int m_collectivesPerLayer = 0;
};

} // namespace npuscope::synth
