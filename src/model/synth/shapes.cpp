// The named shapes of a generated profile: the same model written as other exporters order
// and mix their events.
//
// How they compare with the real torch_npu samples (msinsight's level{0,1,2}/rank0_ascend_pt
// trace_view.json, FORMATS.md §3) and with a real-shaped 1.2 GB export held out from the
// repository (4.5 M slices, 949 k device tasks, 783 k flows, 1.65 M Overlap Analysis slices):
//
// - Flow order. In the real level-1 sample the 210 HostToDevice pairs are interleaved with the
//   rest: the f is a median 38.5 events after its s (35 at level 0, 50 at level 2), at most
//   2,364; 34 of the 210 f's come before their s, by 2 to 6 events (a launch and its task
//   sorted by a float ts). "real" writes the CANN block sorted by ts, so its f's follow their
//   s's, a median of about 2,000 events apart (the device runs behind the host launches). The held-out export is
//   process-ordered: its Ascend Hardware block precedes its CANN block, so every f comes
//   before its s and waits for the whole block ("process-ordered"). "starts-first" and
//   "ends-first" put each step's s's (or f's) en bloc ahead of its other events, and the
//   run's torch_to_npu starts (or ends) ahead of the other ends.
// - The mix. The real samples hold 533–535 device tasks for 860 cpu_op slices (0.62 per op)
//   and 382 Overlap Analysis slices (0.71 per task); "real" writes 1 device task per cpu_op and
//   2.05 Overlap Analysis slices per task (a Computing and a Free slice per gap: the lanes at
//   full density). The held-out export has more than 2 device tasks per Python op:
//   "device-heavy" launches 3 tasks under each cpu_op (one queue entry, AscendCL call and
//   torch_to_npu flow for the 3, a Node@launch and HostToDevice flow each), the lanes still at
//   2.05 per task.
// - Density. The held-out export holds 949 k device tasks per 1.2 GB of trace_view.json; the
//   level-1 sample 289 k (small steps, many host-only ops), "real" 456 k, "device-heavy" 721 k.
//   "level1-dense" is level 1, process-ordered, 8 device tasks per cpu_op: 884 k per 1.2 GB
//   (tests/model/test_synth_shapes.cpp measures it), 1.25 flows per task where the held-out
//   export has 0.83. A task's own events (its Node@launch, HostToDevice pair, X and two lane
//   slices) take about 1,170 bytes, so more tasks per op would only approach 949 k.
#include "model/synth/synth.h"

namespace npuscope::synth {

std::vector<std::string> shapeNames()
{
    return {"real", "process-ordered", "starts-first", "ends-first", "device-heavy", "level1-dense"};
}

bool applyShape(const std::string& name, SynthOptions& o)
{
    SynthOptions s = o;
    s.processOrdered = false;
    s.flowOrder = "time";
    s.devicePerPyOp = 1;
    if (name == "process-ordered") {
        s.processOrdered = true;
    } else if (name == "starts-first" || name == "ends-first") {
        s.flowOrder = name;
    } else if (name == "device-heavy") {
        s.devicePerPyOp = 3;
    } else if (name == "level1-dense") {
        s.level = 1;
        s.processOrdered = true;
        s.devicePerPyOp = 8;
    } else if (name != "real") {
        return false;
    }
    o = s;
    return true;
}

} // namespace npuscope::synth
