#pragma once
// Writes one generated rank's memory files as torch_npu does with profile_memory=True:
// operator_memory.csv (one row per block the caching allocator handed to an operator),
// memory_record.csv (the allocator's totals per component after every event, APP every 20 ms)
// and npu_module_mem.csv (reserved memory per CANN module every 20 ms), and for the db export
// the OP_MEMORY, MEMORY_RECORD and NPU_MODULE_MEM tables.
//
// The model: the weights and KV cache (12.55 GiB) are allocated before the capture; each
// operator's output is allocated during its Python op (size from its output shape, FLOAT16,
// rounded as the allocator does: +32 B, up to 512 B) and freed when its consumer's Python op
// ends, the layer input (the first op's output) at the end of the layer. The llama2-leak
// scenario also keeps one 48 MiB aten::clone per step (kLeakBytes) that is never freed: the
// allocated floor grows by that much every step.
#include "model/synth/synth_model.h"
#include "model/synth/out_file.h"
#include "model/synth/rank_writer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npuscope::synth {

class MemoryWriter {
public:
    static constexpr double kLeakBytes = 48.0 * 1024 * 1024;
    static constexpr double kWeightsBytes = 12852.25 * 1024 * 1024;
    static constexpr double kGeAllocated = 49.125 * 1024 * 1024, kGeReserved = 74.75 * 1024 * 1024;
    static constexpr double kSegment = 20.0 * 1024 * 1024; // reserved grows in whole segments
    static constexpr double kAppOverhead = 1843.5 * 1024 * 1024; // runtime, HCCL buffers, workspace

    // Whether a scenario plants the leak.
    static bool leaks(const std::string& scenario) { return scenario == "llama2-leak"; }

    MemoryWriter(const Scenario& sc, RankLayout layout);
    bool open(std::string& error);                     // the text files (unless layout.discardText)
    void writeStep(const StepPlan& plan, const RankStep& rs);
    bool finish(std::string& error);                   // closes the text files
    // Adds the memory tables to the rank's profiler db (after DbRankWriter::finish).
    bool writeDb(const std::string& dbPath, std::string& error);
    void keepForDb() { m_keepDb = true; } // keep the rows for writeDb()
    std::uint64_t bytesWritten() const { return m_bytes; }

private:
    struct Alloc {
        std::string name;
        double bytes = 0;
        std::int64_t at = 0, release = -1; // -1: never released
        double aAlloc = 0, aRes = 0, rAlloc = 0, rRes = 0;
    };
    struct Record {
        std::string component;
        std::int64_t ts = 0;
        double allocated = -1, reserved = -1, active = -1; // < 0: empty cell
        bool stream = false;
    };
    struct ModuleSample {
        std::string module;
        std::int64_t ts = 0;
        double reserved = 0;
    };

    void record(const std::string& component, std::int64_t ts, double allocated, double reserved, double active,
                bool stream);
    void appSamples(std::int64_t from, std::int64_t to);
    void writeRecord(const Record& r);

    const Scenario& m_sc;
    RankLayout m_l;
    bool m_leak = false;
    bool m_text = true;
    bool m_keepDb = false;
    OutFile m_opMem, m_record, m_module;
    double m_allocated = kWeightsBytes, m_reserved = 0;
    std::int64_t m_nextApp = -1; // next APP / module sample time
    std::int64_t m_streamPtr = 0;
    bool m_started = false;
    std::vector<Alloc> m_allocs;    // kept for the db
    std::vector<Record> m_records;  // kept for the db
    std::vector<ModuleSample> m_modules;
    std::uint64_t m_bytes = 0;
};

} // namespace npuscope::synth
