#pragma once
// Everything about one timeline slice, as the selection panel shows it (Perfetto's "Current
// selection"): identity, times relative to the trace start, self time, every argument, the
// kernel-table row joined to a device task, its flows in and out, the host op (and Python call
// stack) that launched it, and its neighbours on the stream. Plain data, no Qt: the panel only
// displays it and tests check it headless.
#include "model/store/profile.h"

#include <optional>
#include <string>
#include <vector>

namespace npuscope {

struct DetailField {
    std::string key, value;
};

// Another slice the selected one points to (a flow end, the host op, a neighbour).
struct SliceLink {
    std::string label;          // flow category, "previous", "next", "host op"
    std::uint32_t slice = kNone;// slice row in the same profile; kNone when the end is unbound
    std::string name;           // the slice's name ("" when unbound)
    std::string track;          // "process · thread" of the other end
    TimeNs start = 0;           // relative to the origin given to describeSlice (flow: its ts)
    TimeNs dur = 0;
};

struct SliceDetail {
    bool valid = false;
    std::uint32_t slice = kNone;
    std::string name, category, track;
    TrackKind trackKind = TrackKind::Other;
    TimeNs start = 0;           // relative to the origin
    TimeNs dur = 0;
    TimeNs self = 0;            // dur minus the union of its direct children on the track
    int depth = 0;
    std::vector<DetailField> args;    // task id and every argument as written, in file order
    std::string argsError;            // why the arguments kept in the trace file could not be read
    std::vector<DetailField> kernel;  // the joined kernel row's fields; empty when none
    std::vector<SliceLink> flowsIn, flowsOut;
    std::optional<SliceLink> hostOp;  // the host op that launched a device task
    std::vector<std::string> callStack;     // Python frames, innermost first, where recorded
    std::vector<std::string> hostAncestors; // slices enclosing the host op, innermost first
    std::optional<SliceLink> previous, next; // on the same track (stream), by start
};

// "process · thread" of a track, e.g. "Ascend Hardware · Stream 2".
std::string trackLabel(const Profile& p, TrackId t);
// Self time of a slice: its duration minus the time covered by its direct children.
TimeNs sliceSelfTime(const Profile& p, std::uint32_t slice);
// The detail of slice row `slice` of a finalized profile; times are relative to `origin`
// (the trace start the views use). Not valid for an out-of-range row.
SliceDetail describeSlice(const Profile& p, std::uint32_t slice, TimeNs origin);

} // namespace npuscope
