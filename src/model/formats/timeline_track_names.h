#pragma once
// Names for the tracks of a trace whose metadata was never read. torch_npu writes each process's
// process_name and thread_name events after that process's events (the Python process's after
// its last Python event, the devices' after the last device task), so a trace cut short loses
// the names of the process it was cut in and of every one after it, though their events were
// read. What the events carry tells those processes apart: device tasks have a "Task Id",
// the Python side torch's categories, CANN's API calls the "AscendCL@" prefix, the overlap lanes
// their four fixed names.
#include "model/store/profile.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace npuscope {

struct InferredTrackName {
    std::uint32_t track = 0;
    std::string process; // "" when the process was named by its metadata (or nothing says)
    std::string thread;  // "" when the thread was named by its metadata (or nothing says)
};

// For the tracks of `p` (before finalize()) whose process or thread has no name, the names their
// events give. `processNamed(pid)` and `threadNamed(pid, tid)` say which names the metadata gave.
std::vector<InferredTrackName> inferTrackNames(const Profile& p, const std::function<bool(std::int64_t)>& processNamed,
                                               const std::function<bool(std::int64_t, std::int64_t)>& threadNamed);

} // namespace npuscope
