#pragma once
// Writes one generated rank as the SQLite export of torch_npu (export_type=db):
// ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_<rank>.db with the tables of FORMATS-DB.md
// (STRING_IDS, TASK, COMPUTE_TASK_INFO, TASK_PMU_INFO, COMMUNICATION_OP, CANN_API, PYTORCH_API,
// CONNECTION_IDS, STEP_TIME, AICORE_FREQ, HBM, OVERLAP_ANALYSIS, META_DATA, ...) and
// analysis.db (StepTraceTime), from the same step plans as the text writer, so both exports of
// one generated rank load to the same device tasks, kernel rows and durations.
// One transaction per file, prepared statements, strings interned once.
#include "model/formats/sqlite_db.h"
#include "model/synth/python_side.h"
#include "model/synth/rank_writer.h"

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace npuscope::synth {

class DbRankWriter {
public:
    DbRankWriter(const Scenario& sc, RankLayout layout);
    ~DbRankWriter();
    bool open(std::string& error);
    void writeStep(const StepPlan& plan, const RankStep& rs);
    bool finish(std::string& error);
    std::uint64_t bytesWritten() const { return m_bytes; }
    std::string path() const { return m_path; }

private:
    std::int64_t sid(const std::string& s); // STRING_IDS id of s
    void pmu(std::int64_t task, const char* name, double value);
    bool writeCommAnalysis(db::Writer& analysis);
    // The rows of one step, by table: a PYTORCH_API row (a Python op `op` >= 0 with its inputs
    // and call chain, a task queue entry or a with_stack frame, by `type`); a task's Python op
    // and task queue rows with their connection ids; its CANN_API rows; a collective's
    // COMMUNICATION_OP row; a kernel's COMPUTE_TASK_INFO and TASK_PMU_INFO rows; the step's
    // OVERLAP_ANALYSIS rows and breakdown.
    void pythonRow(std::int64_t start, std::int64_t dur, std::int64_t name, std::optional<std::int64_t> conn,
                   std::int64_t type, int op = -1, std::int64_t tid = 0);
    void writeLaunch(const Task& t, const OpKind& op, std::int64_t enqueue);
    void writeCannApis(const Task& t, const OpKind& op, std::int64_t launch);
    void writeHostSlice(const HostSlice& h);
    void writeCommOp(const Task& t, const OpKind& op);
    void writeComputeInfo(std::int64_t g, const OpKind& op);
    void writePmu(std::int64_t g, const OpKind& op, const Task& t);
    void writeOverlap(const StepPlan& plan, const std::vector<std::pair<std::int64_t, std::int64_t>>& compute,
                      const std::vector<std::pair<std::int64_t, std::int64_t>>& comm);

    const Scenario& m_sc;
    RankLayout m_l;
    std::string m_path, m_analysisPath;
    std::optional<db::Writer> m_db;
    db::Writer::Insert m_string, m_task, m_compute, m_pmu, m_commOp, m_cann, m_py, m_conn, m_step, m_freq, m_hbm,
        m_overlap, m_chain;
    std::unordered_map<std::string, std::int64_t> m_ids;
    std::int64_t m_nextString = 0;
    std::int64_t m_globalTask = 0, m_opId = 0, m_connRow = 0;
    std::int64_t m_globalTid = 0, m_dequeueTid = 0; // the main thread's and the task queue's
    std::int64_t m_queueConn = 1LL << 40;            // Enqueue/Dequeue pairs: a range of their own
    std::vector<PythonSide> m_sides;                   // per operator of a layer
    std::vector<std::int64_t> m_chainOf;              // PYTORCH_CALLCHAINS id per operator (with_stack)
    std::vector<std::pair<std::int64_t, std::int64_t>> m_inputs; // inputDtypes, inputShapes ids per operator
    std::vector<std::pair<int, StepBreakdown>> m_breakdowns;
    std::vector<std::pair<int, Task>> m_commTasks; // level >= 1: step index, collective (analysis.db)
    std::uint64_t m_bytes = 0;
    bool m_failed = false;
};

} // namespace npuscope::synth
