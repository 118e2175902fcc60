#pragma once
// What the Operator detail shows for a key: the device tasks of an operator group (one rank, or
// every rank with "All ranks"), the instances of a collective (its slices on the communication
// tracks, with the transit size and time of communication.json), or the calls of a host API (a
// CANN or Python slice with no device task of that name), and the fields' reading of a group
// whose rows lie in several ranks. Built from the model's columns and computeOpStats; nothing is
// parsed.
#include "model/analysis/op_stats.h"

#include <QString>

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace npuscope {

enum class DetailKind { Device, Collective, Host };

struct DetailGroup {
    DetailKind kind = DetailKind::Device;
    OpGroupStats stats;       // count, total, extremes, percentiles; metrics for device tasks
    bool rowsAreSlices = false;
    GroupBy shownBy = GroupBy::Type;
    TimeNs shareOf = 0;       // what Share divides by (Σ of the tasks counted alike)
    std::vector<double> bandwidthGBps; // Collective: per row of stats.rows, NaN when unknown
    // Collective, Σ over its ops: transit size and the time the transports carrying it took
    // (the bandwidth is their ratio), and the wait time.
    double volumeGB = kNaN, transitMs = kNaN, waitMs = kNaN;
    std::uint64_t commOps = 0; // Collective: ops of communication.json counted for the above
};

// Nearest-rank p50/p90/p99, count, total, min, max and mean of `durs` into `g`.
void fillDurationStats(OpGroupStats& g, std::vector<TimeNs> durs);

// The collective `key` (a computeCommStats key, "hcom_allReduce") over `profiles`: its slices on
// the communication tracks (rows, and rowProfile when there are several profiles).
std::optional<DetailGroup> findCollective(const std::vector<ProfilePtr>& profiles, const std::string& key);

// The slices named `key` on host tracks (CANN, Python, other threads) of `profiles`.
std::optional<DetailGroup> findHostCalls(const std::vector<ProfilePtr>& profiles, const std::string& key);

// The rows of a group split by profile: fields that read a profile's columns read them per part.
struct GroupPart {
    const Profile* p;
    std::vector<std::uint32_t> rows;
};
std::vector<GroupPart> partsOf(const std::vector<ProfilePtr>& profiles, const OpGroupStats& g);

// Most frequent value of a kernel column over the parts' rows, by text (ids are per rank):
// "value" or "value (+N other)", "—" when none.
QString mostCommon(const std::vector<GroupPart>& parts, std::vector<NameId> KernelTable::*col);
QString mostCommonInt(const std::vector<GroupPart>& parts, std::vector<std::int64_t> KernelTable::*col);
// The same over counts already taken.
QString mostFrequentText(const std::map<std::string, std::uint64_t>& counts);
// Duration-weighted mean of the first present metric column of `names` over the parts' rows
// (its name into `column`); NaN if none.
double weightedMetric(const std::vector<GroupPart>& parts, std::initializer_list<const char*> names, QString* column);

} // namespace npuscope
