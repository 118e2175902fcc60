#pragma once
// A Session is what one "open" produced: one Profile per rank plus cluster-wide files.
#include "model/store/profile.h"

#include <memory>
#include <string>
#include <vector>

namespace npuscope {

struct ClusterData {
    std::vector<StepRow> stepTrace;  // cluster_step_trace_time.csv
    std::vector<CommOp> comm;        // cluster_communication.json (CommOp::rank set)
    std::vector<CommLink> links;     // cluster_communication_matrix.json
    std::vector<ParallelGroup> groups;
    StringPool strings;              // NameIds of comm/links (transport names) refer to this pool
    bool present() const { return !stepTrace.empty() || !comm.empty() || !links.empty(); }
};

class Session {
public:
    std::string root;     // what the user opened
    std::string layout;   // "torch_npu", "msprof", "cluster (8 ranks, torch_npu)", ...
    std::string source;   // "text" or "db": which export was read when both exist
    std::vector<ProfilePtr> ranks; // sorted by rank id (then name)
    ClusterData cluster;
    std::vector<FileRecord> files;         // files outside any rank (cluster, ignored, ...)
    std::vector<Diagnostic> diagnostics;   // problems outside any rank

    bool empty() const { return ranks.empty() && !cluster.present(); }
    std::uint64_t skippedTotal() const;
};

using SessionPtr = std::shared_ptr<const Session>;

} // namespace npuscope
