#pragma once
// A hand-built rank whose writer records no cross-stream events: one step (ProfilerStep#1,
// [0, 200 µs)), a compute stream (2) and a communication stream (4), every task launched early by
// the Python thread. The collective A1 starts when the computation C0 ends and the computation C1
// starts 5 µs after A1 ends, with nothing but timing to say so. Times in ns.
//
//   stream 2: MatMul_C0 [10, 60)                 Add_C1 [125, 175)
//   stream 4: hcom_broadcast__A0 [10, 40)   hcom_allReduce__A1 [60, 120)
//   group 0:                                hcom_allReduce__A1 [60, 120)   (the collective op)
#include "analysis_fixtures.h"

#include <string>

namespace npuscope::fixtures {

struct TwoStreamFixture {
    Profile p;
    TrackId py, s2, s4, group;

    // A cpu_op [at, at + 2 µs) whose async_npu flow leaves at at + 1 µs for the task at taskStart.
    void launch(const char* name, TimeNs at, TrackId stream, TimeNs taskStart)
    {
        addSlice(p, py, name, "cpu_op", at, 2000);
        FlowTable& f = p.flows;
        f.category.push_back(p.strings.intern("async_npu"));
        f.name.push_back(p.strings.intern("async_npu"));
        f.addId(std::to_string(f.size() + 1), p.strings);
        f.srcTs.push_back(at + 1000);
        f.dstTs.push_back(taskStart);
        f.srcTrack.push_back(py);
        f.dstTrack.push_back(stream);
    }

    TwoStreamFixture()
    {
        py = addTrack(p, 100, 1, TrackKind::Python, "Python", "Thread 1");
        s2 = addTrack(p, 300, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2");
        s4 = addTrack(p, 300, 4, TrackKind::Stream, "Ascend Hardware", "Stream 4");
        group = addTrack(p, 400, 0, TrackKind::CommGroup, "Communication", "Group 0 Communication");
        addSlice(p, py, "ProfilerStep#1", "cpu_op", 0, 200000);
        launch("aten::mm", 1000, s2, 10000);
        launch("HcclBroadcast", 3000, s4, 10000);
        launch("HcclAllreduce", 5000, s4, 60000);
        launch("aten::add", 7000, s2, 125000);
        addSlice(p, s2, "MatMul_C0", "AI_CORE", 10000, 50000);
        addSlice(p, s2, "Add_C1", "AI_CORE", 125000, 50000);
        addSlice(p, s4, "hcom_broadcast__A0", "COMMUNICATION", 10000, 30000);
        addSlice(p, s4, "hcom_allReduce__A1", "COMMUNICATION", 60000, 60000);
        addSlice(p, group, "hcom_allReduce__A1", "communication", 60000, 60000);
        p.finalize();
    }

    // The first row of a name on a track.
    std::uint32_t row(const std::string& name, TrackId t) const
    {
        for (std::uint32_t r = 0; r < p.slices.size(); ++r)
            if (p.str(p.slices.name[r]) == name && p.slices.track[r] == t)
                return r;
        return kNone;
    }
};

} // namespace npuscope::fixtures
