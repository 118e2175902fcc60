#pragma once
// Hand-built profiles for the analysis tests: every number in them is chosen so the expected
// aggregates can be worked out by hand in the test.
#include "model/store/profile.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace npuscope::fixtures {

// Appends one kernel row; metrics not named are NaN (missing).
inline std::uint32_t addKernel(Profile& p, const std::string& name, const std::string& type, const std::string& taskType,
                               TimeNs start, TimeNs dur, const std::map<std::string, double>& metrics = {})
{
    KernelTable& k = p.kernels;
    const auto row = static_cast<std::uint32_t>(k.start.size());
    k.device.push_back(0);
    k.step.push_back(-1);
    k.modelId.push_back(-1);
    k.streamId.push_back(2);
    k.taskId.push_back(row);
    k.contextId.push_back(-1);
    k.start.push_back(start);
    k.dur.push_back(dur);
    k.wait.push_back(0);
    k.name.push_back(p.strings.intern(name));
    k.type.push_back(p.strings.intern(type));
    k.taskType.push_back(p.strings.intern(taskType));
    k.opState.push_back(NameId(0));
    for (auto* col : {&k.inputShapes, &k.inputDtypes, &k.inputFormats, &k.outputShapes, &k.outputDtypes, &k.outputFormats})
        col->push_back(NameId(0));
    k.blockDim.push_back(-1);
    k.mixBlockDim.push_back(-1);
    for (const auto& [m, v] : metrics) {
        int i = k.metricIndex(m);
        if (i < 0) {
            k.metricNames.push_back(m);
            k.metrics.emplace_back(row, kNaN);
            i = static_cast<int>(k.metricNames.size() - 1);
        }
        (void)v;
    }
    for (auto& col : k.metrics)
        col.push_back(kNaN);
    for (const auto& [m, v] : metrics)
        k.metrics[k.metricIndex(m)].set(row, v);
    k.slice.push_back(kNone);
    return row;
}

inline TrackId addTrack(Profile& p, std::int64_t pid, std::int64_t tid, TrackKind kind, const std::string& process,
                        const std::string& thread)
{
    const TrackId t = p.trackFor(pid, tid);
    Track& tr = p.tracks[t.v];
    tr.kind = kind;
    tr.process = p.strings.intern(process);
    tr.thread = p.strings.intern(thread);
    if (kind == TrackKind::Stream)
        tr.streamId = tid;
    return t;
}

inline std::uint32_t addSlice(Profile& p, TrackId t, const std::string& name, const std::string& cat, TimeNs start,
                              TimeNs dur, std::uint32_t taskId = kNone)
{
    return p.slices.add(start, dur, p.strings.intern(name), p.strings.intern(cat), t, taskId);
}

inline CommOp commOp(Profile& p, const std::string& fullName, double elapseMs,
                     const std::vector<std::pair<std::string, double>>& sizesMB, double waitMs = 0, double transitMs = 0)
{
    CommOp op;
    op.fullName = fullName;
    op.opName = fullName.substr(0, fullName.find('@'));
    op.group = fullName.find('@') == std::string::npos ? "" : fullName.substr(fullName.find('@') + 1);
    op.totalInfo = fullName == "Total Op Info";
    op.elapseMs = elapseMs;
    op.waitMs = waitMs;
    op.transitMs = transitMs;
    for (const auto& [transport, mb] : sizesMB) {
        CommBandwidth b;
        b.transport = p.strings.intern(transport);
        b.sizeMB = mb;
        op.bandwidth.push_back(b);
    }
    return op;
}

} // namespace npuscope::fixtures
