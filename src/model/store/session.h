#pragma once
// A Session is what one "open" produced: one Profile per rank plus cluster-wide files.
#include "model/store/profile.h"

#include <memory>
#include <string>
#include <vector>

namespace npuscope {

// One device stream or collective lane of a rank, down-sampled (a cluster summary's overview):
// the busy share of each of busyPermille.size() equal parts of [begin, end), in ‰.
struct StreamOverview {
    int rank = -1;
    std::string process, thread, kind; // kind: trackKindName ("Stream", "CommGroup")
    std::uint64_t tasks = 0;
    TimeNs begin = 0, end = 0;
    std::vector<std::uint16_t> busyPermille;
};

struct ClusterData {
    std::vector<StepRow> stepTrace;  // cluster_step_trace_time.csv
    std::vector<CommOp> comm;        // cluster_communication.json (CommOp::rank set)
    std::vector<CommLink> links;     // cluster_communication_matrix.json
    std::vector<ParallelGroup> groups;
    std::vector<StreamOverview> overview; // a cluster summary's lanes, by rank then as listed
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
    // The bytes of every file read into it (its own and its ranks'), as on disk.
    std::uint64_t loadedBytes() const;
};

using SessionPtr = std::shared_ptr<const Session>;

} // namespace npuscope
