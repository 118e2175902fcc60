#pragma once
// Writes one rank's timeline JSON as its profiler does.
//
// torch_npu (trace_view.json) is two json.dump calls joined by a bare ",": first the framework
// block (every cpu_op X in completion order, the Enqueue X + s and Dequeue X + f pairs of the
// task queue, the Python process's M events, then the python_function X of with_stack), then the
// CANN block (the M events of the other processes, the msprof timeline sorted by ts, then every
// torch_to_npu s/f pair). Each event's keys are in the writer's order of its kind, separators are
// Python's ", " and ": ". msprof (msprof_<ts>.json) is compact, keys sorted, metadata first.
//
// The blocks are written to side files next to the trace and joined at finish(); the timeline of
// a step is sorted by ts in memory before it is written. The other shapes of synth.h (a CANN
// block by process, flow starts or ends en bloc) reorder the same events.
#include "model/synth/json_out.h"
#include "model/synth/out_file.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace npuscope::synth {

// A duration as the writer formats it. torch_npu writes host and Overlap Analysis durations as
// ns / 1000 (repr of the exact µs), CANN API durations as ns * 0.001 (repr: "5.0200000000000005"),
// device tasks with sub-ns fractions of the hardware clock ("53.7410625").
struct Dur {
    enum class Kind { Exact, Scaled, Clock } kind = Kind::Exact;
    std::int64_t ns = 0;
    int clock32 = 0; // Clock: extra 1/32 ns (0..15, so that rounding gives `ns` back)
};

class TraceWriter {
public:
    struct Ids {
        std::int64_t pyPid = 0, mainTid = 0, dequeueTid = 0;
        std::int64_t cannPid = 0, hwPid = 0, freqPid = 0, commPid = 0, hbmPid = 0, ovPid = 0;
    };
    using ArgsFn = std::function<void(JsonObj&)>;

    enum class FlowOrder { Time, StartsFirst, EndsFirst };
    TraceWriter(bool msprof, bool compact, int level, Ids ids, std::vector<int> streams, int planes);
    // torch_npu only; before open().
    void setShape(bool processOrdered, FlowOrder flows)
    {
        m_processOrdered = processOrdered;
        m_flowOrder = flows;
    }
    bool open(const std::string& path, std::string& error);
    bool finish(std::string& error);
    std::uint64_t bytes() const; // all blocks so far
    const JsonStyle& style() const { return m_style; }

    // The framework block (torch_npu only).
    void cpuOp(std::string_view name, std::int64_t ts, std::int64_t dur, const ArgsFn& args);
    void enqueue(std::int64_t ts, std::int64_t dur, std::uint64_t correlation);
    void dequeue(std::string_view what, std::int64_t ts, std::int64_t dur, std::uint64_t correlation);
    void pyFunction(std::string_view name, std::int64_t ts, std::int64_t dur, std::int64_t id, std::int64_t parent);

    // The step's timeline, sorted by ts at endStep().
    void deviceX(std::int64_t pid, std::int64_t tid, std::string_view name, std::int64_t ts, const Dur& dur,
                 const ArgsFn& args);
    void overlapX(std::int64_t tid, std::string_view name, std::int64_t ts, std::int64_t dur);
    void hostToDevice(bool start, std::string_view id, std::int64_t pid, std::int64_t tid, std::int64_t ts);
    void counter(std::int64_t pid, std::string_view name, std::string_view key, double value, bool integral,
                 std::int64_t ts);
    void endStep();

    // torch_to_npu: the cpu_op launching a device task -> the task (id = the task's ts in ns).
    void torchToNpu(std::int64_t pyTs, std::int64_t devPid, std::int64_t devTid, std::int64_t devTs);

private:
    struct Block {
        OutFile file;
        std::string path;
        std::uint64_t events = 0;
    };
    enum class Flow : std::uint8_t { None, Start, End };
    struct Pending {
        double ts; // µs as Python's float(ts): torch_npu sorts by it (equal below ~0.25 µs)
        std::size_t begin, end;
        std::int64_t pid;
        Flow flow;
    };
    OutFile& begin(Block& b); // separator for the block's next event
    // an event into the step buffer
    OutFile& beginTimeline(std::int64_t ts, std::int64_t pid, Flow flow = Flow::None);
    Block& processBlock(std::int64_t pid); // processOrdered: the side file of pid's events
    void writeDur(OutFile& f, const Dur& d);
    void meta(Block& b, std::int64_t pid, std::int64_t tid, std::string_view name, std::string_view key,
              std::string_view value, bool quoted);
    void processMeta(Block& b, std::int64_t pid, std::string_view name, std::string_view label, int sort,
                     bool named = true);
    void writeFrameworkMeta(Block& b);
    void writeCannMeta(Block& b);
    bool joinBlocks(std::string& error);

    bool m_msprof;
    JsonStyle m_style;
    int m_level;
    Ids m_ids;
    std::vector<int> m_streams;
    int m_planes;
    std::string m_path;
    // torch_npu: main (cpu_op), enqueue, dequeue, pyfunc, timeline, torchToNpu; msprof: main, timeline
    Block m_main, m_enqueue, m_dequeue, m_pyFunc, m_timeline, m_torchToNpu;
    Block m_torchToNpuEnds; // FlowOrder other than Time: the torch_to_npu ends apart from their starts
    bool m_processOrdered = false;
    FlowOrder m_flowOrder = FlowOrder::Time;
    std::vector<std::pair<std::int64_t, std::unique_ptr<Block>>> m_processes; // processOrdered, in file order
    OutFile m_step; // the step's timeline events, unsorted
    std::vector<Pending> m_pending;
    std::uint64_t m_joinedBytes = 0;
};

} // namespace npuscope::synth
