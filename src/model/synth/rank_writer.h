#pragma once
// Writes one rank's files step by step: the timeline JSON (trace_writer.h), kernel_details/
// op_summary, l2_cache, operator_details, step breakdown and communication files, in the
// torch_npu or msprof layout, with what the profiler level writes.
#include "model/synth/comm_json.h"
#include "model/synth/out_file.h"
#include "model/synth/overlap.h"
#include "model/synth/python_side.h"
#include "model/synth/synth_model.h"
#include "model/synth/trace_writer.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace npuscope::synth {

// One step_trace_time row (ns): Stage is the device part (Computing + Communication(Not
// Overlapped) + Free), Preparing the step's start to its first device work.
struct StepBreakdown {
    std::int64_t computing = 0, commNotOverlapped = 0, overlapped = 0, comm = 0, free = 0, stage = 0, preparing = 0;
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
    int level = 1;            // torch_npu profiler level 0, 1 or 2
    bool withStack = false;   // with_stack=True: call stacks and python_function slices
    bool compactJson = false; // "," and ":" instead of Python's ", " and ": " (not what torch_npu writes)
    // the shapes of SynthOptions (torch_npu only)
    bool processOrdered = false;
    TraceWriter::FlowOrder flowOrder = TraceWriter::FlowOrder::Time;
    int devicePerPyOp = 1;
    // torch_npu's task queue: Python ops enqueue, a second thread dequeues and calls CANN
    std::int64_t dequeueTid() const { return hostPid + 3198; }
};

class RankWriter {
public:
    RankWriter(const Scenario& sc, RankLayout layout);
    bool open(std::string& error);
    void writeStep(const StepPlan& plan, const RankStep& rs, StepBreakdown& out);
    bool finish(std::string& error);

    std::uint64_t timelineBytes() const { return m_trace ? m_trace->bytes() : 0; }
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

    struct StepState;
    void openStepCommFiles(const StepPlan& plan);
    void writeStepTask(const StepPlan& plan, const RankStep& rs, std::size_t i, StepState& st);
    void writeCommOpFiles(const Task& t, StepState& st);
    void flushHbmLayer(const StepState& st);
    void flushPythonLayer(const StepState& st);
    void writeStepSync(const RankStep& rs);
    void writeHostSlice(const HostSlice& h);
    void closeStepCommFiles(const StepState& st);
    void writeStepLanes(const StepPlan& plan, const RankStep& rs, const StepState& st, const Overlap& ov);
    void writeStepBreakdown(const StepPlan& plan, const Overlap& ov, StepBreakdown& out);
    void writeTask(const StepPlan& plan, const Task& t);
    // cpuOpDur < 0: the task is launched under an earlier task's cpu_op (devicePerPyOp > 1),
    // by the same queue entry and AscendCL call
    void writePython(const Task& t, std::int64_t layerFrameId, std::int64_t cpuOpDur);
    void cannApi(std::int64_t tid, std::string_view name, const char* mode, const char* level, std::string_view id,
                 std::string_view item, std::uint64_t conn, std::int64_t ts, std::int64_t dur);
    void writeKernelRow(const StepPlan& plan, const Task& t);
    void writeCommRow(const StepPlan& plan, const Task& t);
    void writeL2Row(const Task& t);
    void writeOperatorDetails(const Task& t);
    bool openTables(std::string& error); // l2_cache, operator_details (rank_tables.cpp)
    void addApi(const std::string& level, const std::string& name, std::int64_t dur);
    bool writeStatistics(std::string& error); // op_statistic, api_statistic (rank_tables.cpp)
    static const char* kernelPmuHeader();
    std::int64_t pidOf(int sortIndex, bool host) const;
    Dur deviceDur(const Task& t) const; // the hardware clock's sub-ns fraction, rounding back to t.dur

    const Scenario& m_sc;
    RankLayout m_l;
    std::vector<PythonSide> m_py; // per operator of a layer
    std::unique_ptr<TraceWriter> m_trace;
    OutFile m_kernels, m_steps, m_comm, m_matrix, m_l2, m_opDetails;
    JsonStyle m_style;
    bool m_firstCommStep = true;
    std::uint64_t m_correlation = 8000; // task-queue correlation ids
    std::int64_t m_pythonId = 1;        // python_function ids
    std::uint64_t m_bytesClosed = 0;
    std::string m_args; // scratch
    std::map<std::pair<std::string, std::string>, OpAgg> m_ops;
    std::map<std::pair<std::string, std::string>, ApiAgg> m_apis;
    CommTotals m_runComm; // msprof analyze: one Total Op Info over the run
    RankTotals m_totals;
    std::int64_t m_pyPid = 0, m_cannPid = 0, m_hwPid = 0, m_freqPid = 0, m_commPid = 0, m_hbmPid = 0, m_ovPid = 0;
    std::int64_t m_tid = 0, m_deqTid = 0;
    bool m_groupLead = true; // the task leads its cpu_op's launches (always, with devicePerPyOp 1)
};

} // namespace npuscope::synth
