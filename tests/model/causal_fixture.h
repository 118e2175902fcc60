#pragma once
// A hand-built rank for the step graph, idle cause and critical path tests: one step
// (ProfilerStep#1, [0, 1 ms)) whose device is idle in eight planted gaps of 20 µs, each with one
// cause worked out by hand in `plantedCauses` below. Times in ns.
//
// Stream 2 runs T0..T6 and T8 (10 µs each), stream 4 the collective task T7, stream 3 one
// EVENT_RECORD that stream 2's EVENT_WAIT waits for. The Python main thread (tid 1) launches
// every task through async_npu flows except T8, which goes through the task queue: Enqueue on
// tid 1, Dequeue on tid 7, Node@launch on the CANN thread 7, HostToDevice to T8.
#include "analysis_fixtures.h"

#include <string>

namespace npuscope::fixtures {

struct CausalFixture {
    Profile p;
    TrackId py, py7, cann1, cann7, s2, s3, s4;

    void flow(const char* cat, TrackId srcTrack, TimeNs srcTs, TrackId dstTrack, TimeNs dstTs)
    {
        FlowTable& f = p.flows;
        f.category.push_back(p.strings.intern(cat));
        f.name.push_back(p.strings.intern(cat));
        f.addId(std::to_string(f.size() + 1), p.strings);
        f.srcTs.push_back(srcTs);
        f.dstTs.push_back(dstTs);
        f.srcTrack.push_back(srcTrack);
        f.dstTrack.push_back(dstTrack);
    }
    void task(const char* name, TimeNs start, TrackId stream = {}, const char* type = "AI_CORE", TimeNs dur = 10000)
    {
        addSlice(p, stream.valid() ? stream : s2, name, type, start, dur);
    }
    // A cpu_op [start, start + 2 µs) launching the task at `taskStart` at start + 1 µs.
    void op(const char* name, TimeNs start, TimeNs taskStart, TrackId stream = {})
    {
        addSlice(p, py, name, "cpu_op", start, 2000);
        flow("async_npu", py, start + 1000, stream.valid() ? stream : s2, taskStart);
    }

    CausalFixture()
    {
        py = addTrack(p, 100, 1, TrackKind::Python, "Python", "Thread 1");
        py7 = addTrack(p, 100, 7, TrackKind::Python, "Python", "Thread 7");
        cann1 = addTrack(p, 200, 1, TrackKind::Cann, "CANN", "Thread 1");
        cann7 = addTrack(p, 200, 7, TrackKind::Cann, "CANN", "Thread 7");
        s2 = addTrack(p, 300, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2");
        s3 = addTrack(p, 300, 3, TrackKind::Stream, "Ascend Hardware", "Stream 3");
        s4 = addTrack(p, 300, 4, TrackKind::Stream, "Ascend Hardware", "Stream 4");
        addSlice(p, py, "ProfilerStep#1", "cpu_op", 0, 1000000);
        // T0: the first device work (deviceBegin = 10 µs).
        op("aten::empty", 1000, 10000);
        task("MatMul_T0", 10000);
        // Gap 1 [20, 40) µs before T1: Python work, then T1's own launch call, then dispatch.
        addSlice(p, py, "python_work", "python_function", 15000, 21000);
        op("aten::add", 36000, 40000);
        task("Add_T1", 40000);
        // Gap 2 [50, 70): a synchronize on the CANN thread of tid 1.
        addSlice(p, cann1, "AscendCL@aclrtSynchronizeStream", "", 45000, 21000);
        op("aten::mul", 66000, 70000);
        task("Mul_T2", 70000);
        // Gap 3 [80, 100): an op compile.
        addSlice(p, cann1, "AscendCL@aclopCompileAndExecute", "", 75000, 21000);
        op("aten::conv", 96000, 100000);
        task("Conv_T3", 100000);
        // Gap 4 [110, 130): the data loader.
        addSlice(p, py, "torch/utils/data/dataloader.py(630): __next__", "python_function", 105000, 21000);
        op("aten::relu", 126000, 130000);
        task("Relu_T4", 130000);
        // Gap 5 [140, 160): nothing recorded on the host until T5's launch call.
        op("aten::sub", 156000, 160000);
        task("Sub_T5", 160000);
        // Gap 6 [170, 190): T6 was launched at 158.5 µs, before the gap; stream 2 waits on an
        // event recorded on stream 3 (a dependency).
        addSlice(p, py, "aten::div", "cpu_op", 158000, 1000);
        flow("async_npu", py, 158500, s2, 190000);
        task("EVENT_WAIT", 180000, s2, "EVENT_WAIT_SQE", 9000);
        task("EVENT_RECORD", 185000, s3, "EVENT_RECORD_SQE", 100);
        task("Div_T6", 190000);
        // Gap 7 [200, 220): the collective T7 was launched at 181 µs: it waited for its peers.
        op("HcclAllreduce", 180000, 220000, s4);
        task("hcom_allReduce__1_T7", 220000, s4, "COMMUNICATION");
        // Gap 8 [230, 250): the task queue. Python work to 232 µs, Enqueue [232, 233) whose flow
        // leaves at 232.5, Dequeue [245, 248) on tid 7, Node@launch [246, 247) submitting at 246.5.
        addSlice(p, py, "optimizer_step", "python_function", 225000, 7000);
        addSlice(p, py, "Enqueue", "enqueue", 232000, 1000);
        flow("async_task_queue", py, 232500, py7, 245000);
        addSlice(p, py7, "Dequeue@aten::gelu", "dequeue", 245000, 3000);
        addSlice(p, cann7, "Node@launch", "", 246000, 1000);
        flow("HostToDevice", cann7, 246500, s2, 250000);
        task("Gelu_T8", 250000);
        // A flow drawn backwards: leaves at 300.5 µs for T8, which started at 250 µs.
        addSlice(p, py, "aten::late", "cpu_op", 300000, 1000);
        flow("async_npu", py, 300500, s2, 250000);
        p.finalize();
    }

    std::uint32_t row(const std::string& name) const
    {
        for (std::uint32_t r = 0; r < p.slices.size(); ++r)
            if (p.str(p.slices.name[r]) == name)
                return r;
        return kNone;
    }
};

} // namespace npuscope::fixtures
