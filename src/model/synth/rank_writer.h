#pragma once
// Writes one rank's files step by step: the timeline JSON, kernel_details/op_summary, step
// breakdown and communication files, in the torch_npu or msprof layout.
#include "model/synth/comm_json.h"
#include "model/synth/out_file.h"
#include "model/synth/synth_model.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace npuscope::synth {

struct StepBreakdown {
    std::int64_t computing = 0, commNotOverlapped = 0, overlapped = 0, comm = 0, free = 0, stage = 0;
};

// What was written, measured from the same numbers that went into the files.
struct RankTotals {
    double utilDur = 0, computeDur = 0; // Σ cube_utilization·dur, Σ dur over compute rows (µs)
    double gbDur = 0;                   // Σ bandwidth·dur
    std::uint64_t l2Hit = 0, l2Miss = 0;
    std::int64_t stepNs = 0, commNoNs = 0;
    int steps = 0;
    std::uint64_t deviceTasks = 0;
};

struct RankLayout {
    bool msprof = false;
    int rank = 0, device = 0;
    std::int64_t hostPid = 0;
    std::string dir;        // the rank folder
    std::string outputDir;  // ASCEND_PROFILER_OUTPUT or mindstudio_profiler_output
    std::string analyzeDir; // msprof: analyze/
    std::string ts14;       // msprof file stamp
    bool discardText = false; // db-only export: the text files go to /dev/null (sizes still counted)
};

class RankWriter {
public:
    RankWriter(const Scenario& sc, RankLayout layout);
    bool open(std::string& error);
    void writeStep(const StepPlan& plan, const RankStep& rs, StepBreakdown& out);
    bool finish(std::string& error);

    std::uint64_t timelineBytes() const { return m_trace.bytes(); }
    std::uint64_t bytesWritten() const { return m_bytesClosed; }
    const RankTotals& totals() const { return m_totals; }

private:
    struct OpAgg {
        std::int64_t count = 0, total = 0, min = 0, max = 0;
    };
    struct ApiAgg {
        std::int64_t count = 0, total = 0, min = 0, max = 0;
        double sumSq = 0;
    };

    void writeMetadataEvents();
    void beginEvent();
    void xEvent(std::int64_t pid, std::int64_t tid, std::string_view name, std::int64_t ts, std::int64_t dur,
                std::string_view args, std::string_view cat = {});
    void flowEvent(bool start, std::string_view cat, std::string_view name, std::string_view id, bool quotedId,
                   std::int64_t pid, std::int64_t tid, std::int64_t ts);
    void counterEvent(std::int64_t pid, std::string_view name, std::string_view key, double value, std::int64_t ts);
    void metaEvent(std::int64_t pid, std::int64_t tid, std::string_view name, std::string_view argKey,
                   std::string_view value, bool quoted);
    void writeTask(const StepPlan& plan, const Task& t);
    void writeKernelRow(const StepPlan& plan, const Task& t);
    void writeCommRow(const StepPlan& plan, const Task& t);
    void addApi(const std::string& level, const std::string& name, std::int64_t dur);
    bool writeStatistics(std::string& error); // op_statistic, api_statistic (rank_tables.cpp)
    static const char* kernelPmuHeader();
    std::int64_t pidOf(int sortIndex, bool host) const;

    const Scenario& m_sc;
    RankLayout m_l;
    OutFile m_trace, m_kernels, m_steps, m_comm, m_matrix;
    bool m_firstEvent = true;
    bool m_firstCommStep = true;
    std::uint64_t m_bytesClosed = 0;
    std::string m_args; // scratch
    std::map<std::pair<std::string, std::string>, OpAgg> m_ops;
    std::map<std::pair<std::string, std::string>, ApiAgg> m_apis;
    CommTotals m_runComm; // msprof analyze: one Total Op Info over the run
    RankTotals m_totals;
    std::int64_t m_pyPid = 0, m_cannPid = 0, m_hwPid = 0, m_freqPid = 0, m_commPid = 0, m_hbmPid = 0, m_ovPid = 0;
    std::int64_t m_tid = 0;
};

} // namespace npuscope::synth
