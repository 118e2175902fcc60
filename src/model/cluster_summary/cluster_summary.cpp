#include "model/cluster_summary/cluster_summary.h"

#include "model/analysis/op_stats.h"
#include "model/analysis/overlap.h"
#include "model/analysis/step_diff.h"
#include "model/formats/layout.h"
#include "model/store/input_problems.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <zlib.h>

namespace npuscope::cluster_summary {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string relativeTo(const std::string& path, const std::string& root)
{
    std::error_code ec;
    const fs::path rel = fs::relative(fs::path(path), fs::path(root), ec);
    if (ec || rel.empty() || rel.native().rfind("..", 0) == 0)
        return path;
    return rel.generic_string();
}

// NaN is not JSON: a missing value is null.
json num(double v)
{
    return std::isfinite(v) ? json(v) : json(nullptr);
}

double numOr(const json& j, const char* key, double fallback = kNaN)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string strOr(const json& j, const char* key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

json commOpJson(const CommOp& o, const StringPool& pool)
{
    json bw = json::array();
    for (const auto& b : o.bandwidth)
        bw.push_back({{"transport", std::string(pool.view(b.transport))},
                      {"size_mb", num(b.sizeMB)},
                      {"time_ms", num(b.timeMs)},
                      {"bandwidth_gbps", num(b.bandwidthGBps)}});
    return {{"step", o.step},
            {"kind", o.kind},
            {"full_name", o.fullName},
            {"start_ns", o.start ? json(*o.start) : json(nullptr)},
            {"elapse_ms", num(o.elapseMs)},
            {"transit_ms", num(o.transitMs)},
            {"wait_ms", num(o.waitMs)},
            {"sync_ms", num(o.syncMs)},
            {"idle_ms", num(o.idleMs)},
            {"wait_ratio", num(o.waitRatio)},
            {"sync_ratio", num(o.syncRatio)},
            {"bandwidth", std::move(bw)}};
}

// The overview's busy shares as text: one letter per bucket for its level (the share in steps of
// 2 %, 'A' = idle … 'y' = saturated), a run of two or more written once followed by its length.
constexpr std::string_view kLevels = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxy"; // 51 levels
constexpr int kPermillePerLevel = 1000 / (static_cast<int>(kLevels.size()) - 1);

std::string encodeBusy(const std::vector<std::uint16_t>& permille)
{
    auto levelAt = [&](std::size_t i) {
        return std::min<int>((permille[i] + kPermillePerLevel / 2) / kPermillePerLevel, static_cast<int>(kLevels.size()) - 1);
    };
    std::string out;
    for (std::size_t b = 0; b < permille.size();) {
        const int level = levelAt(b);
        std::size_t run = 1;
        while (b + run < permille.size() && levelAt(b + run) == level)
            ++run;
        out += kLevels[static_cast<std::size_t>(level)];
        if (run > 1)
            out += std::to_string(run);
        b += run;
    }
    return out;
}

// The inverse of encodeBusy, in ‰, cut at or padded with 0 to `buckets` values whatever the
// text says (an unknown character is read as idle), so a damaged file cannot make a lane longer
// than its resolution.
std::vector<std::uint16_t> decodeBusy(std::string_view text, std::size_t buckets)
{
    std::vector<std::uint16_t> out;
    out.reserve(buckets);
    for (std::size_t i = 0; i < text.size() && out.size() < buckets;) {
        const auto level = kLevels.find(text[i++]);
        std::size_t run = 0;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9' && run <= buckets)
            run = run * 10 + static_cast<std::size_t>(text[i++] - '0');
        run = std::clamp<std::size_t>(run, 1, buckets - out.size());
        const auto v = static_cast<std::uint16_t>(level == std::string_view::npos ? 0 : level * kPermillePerLevel);
        out.insert(out.end(), run, v);
    }
    out.resize(buckets, 0);
    return out;
}

// Busy time of every device stream and collective lane in `buckets` equal parts of the
// profile's span (encodeBusy).
json overviewJson(const Profile& p, int buckets)
{
    json streams = json::array();
    const TimeNs begin = p.begin, end = p.end;
    const TimeNs span = std::max<TimeNs>(1, end - begin);
    for (const Track& t : p.tracks) {
        if (t.kind != TrackKind::Stream && t.kind != TrackKind::CommGroup)
            continue;
        std::vector<double> busy(static_cast<std::size_t>(buckets), 0.0);
        std::uint64_t tasks = 0;
        for (std::uint32_t i = t.sliceBegin; i < t.sliceEnd; ++i) {
            if (p.slices.depth[i] != 0)
                continue; // nested slices lie inside their parent
            ++tasks;
            const TimeNs s = std::clamp(p.slices.start[i], begin, end);
            const TimeNs e = std::clamp(p.slices.end(i), begin, end);
            if (e <= s)
                continue;
            // Bucket b covers [begin + b·span/buckets, begin + (b+1)·span/buckets).
            auto bucketOf = [&](TimeNs x) {
                return static_cast<std::size_t>(
                    std::min<long double>(buckets - 1, (static_cast<long double>(x - begin) * buckets) / span));
            };
            auto bucketStart = [&](std::size_t b) {
                return begin + static_cast<TimeNs>((static_cast<long double>(span) * b) / buckets);
            };
            for (std::size_t b = bucketOf(s); b <= bucketOf(e - 1); ++b) {
                const TimeNs bs = bucketStart(b), be = b + 1 == busy.size() ? end : bucketStart(b + 1);
                busy[b] += static_cast<double>(std::min(e, be) - std::max(s, bs));
            }
        }
        std::vector<std::uint16_t> permille(busy.size());
        for (std::size_t b = 0; b < busy.size(); ++b) {
            const TimeNs bs = begin + static_cast<TimeNs>((static_cast<long double>(span) * b) / buckets);
            const TimeNs be = b + 1 == busy.size() ? end
                                                  : begin + static_cast<TimeNs>((static_cast<long double>(span) * (b + 1)) / buckets);
            const double width = static_cast<double>(std::max<TimeNs>(1, be - bs));
            permille[b] = static_cast<std::uint16_t>(std::lround(std::min(1.0, busy[b] / width) * 1000));
        }
        streams.push_back({{"process", std::string(p.str(t.process))},
                           {"thread", std::string(p.str(t.thread))},
                           {"kind", trackKindName(t.kind)},
                           {"device", t.device},
                           {"stream_id", t.streamId},
                           {"tasks", tasks},
                           {"busy", encodeBusy(permille)}});
    }
    return {{"begin_ns", begin}, {"end_ns", end}, {"buckets", buckets}, {"streams", std::move(streams)}};
}

} // namespace

std::vector<RankFolder> listRankFolders(const std::string& root, const std::string& ranksFrom, std::string* error)
{
    std::vector<RankFolder> out;
    std::vector<std::string> paths;
    if (!ranksFrom.empty()) {
        std::ifstream in(ranksFrom);
        if (!in) {
            *error = "cannot read the rank list " + ranksFrom + ": " + std::strerror(errno);
            return out;
        }
        std::string line;
        while (std::getline(in, line)) {
            while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
                line.pop_back();
            const auto first = line.find_first_not_of(" \t");
            if (first == std::string::npos || line[first] == '#')
                continue;
            line.erase(0, first);
            paths.push_back(fs::path(line).is_absolute() || root.empty() ? line : (fs::path(root) / line).string());
        }
        if (paths.empty()) {
            *error = "the rank list " + ranksFrom + " names no folder";
            return out;
        }
    }
    const layout::Plan plan = paths.empty() ? layout::detect(root) : layout::detect(paths);
    if (plan.ranks.empty()) {
        *error = plan.error.empty() ? layout::noDataMessage(root) : plan.error;
        return out;
    }
    for (const auto& r : plan.ranks) {
        RankFolder f;
        f.path = r.root;
        f.folder = relativeTo(r.root, root.empty() ? "." : root);
        f.rank = r.rank;
        f.bytes = r.bytesToRead();
        out.push_back(std::move(f));
    }
    // A folder listed twice (or found twice) is summarised once.
    std::sort(out.begin(), out.end(), [](const RankFolder& a, const RankFolder& b) { return a.folder < b.folder; });
    out.erase(std::unique(out.begin(), out.end(), [](const RankFolder& a, const RankFolder& b) { return a.folder == b.folder; }),
              out.end());
    return out;
}

std::vector<std::vector<std::size_t>> assignByBytes(const std::vector<RankFolder>& folders, int processes)
{
    const std::size_t P = static_cast<std::size_t>(std::max(1, processes));
    std::vector<std::vector<std::size_t>> out(P);
    std::vector<std::size_t> order(folders.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return folders[a].bytes > folders[b].bytes; });
    std::vector<std::uint64_t> load(P, 0);
    for (std::size_t i : order) {
        const std::size_t p = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        load[p] += std::max<std::uint64_t>(1, folders[i].bytes);
        out[p].push_back(i);
    }
    return out;
}

json reduceProfile(const Profile& p, const RankFolder& folder, int buckets)
{
    json r;
    r["rank"] = p.rank >= 0 ? p.rank : folder.rank;
    r["folder"] = folder.folder;
    r["path"] = folder.path;
    r["bytes"] = folder.bytes;
    r["layout"] = p.layout;
    r["devices"] = p.devices;

    const OverlapResult ov = computeOverlap(p);
    // step_trace_time rows have no time range: the timeline's ProfilerStep#N span of the same step
    // gives it, so the steps can be shown side by side.
    const std::vector<StepSpan> spans = stepSpans(p);
    auto spanOf = [&spans](const std::string& step) -> const StepSpan* {
        for (const StepSpan& sp : spans)
            if (sp.step == step || sp.step == "ProfilerStep#" + step)
                return &sp;
        return nullptr;
    };
    json steps = json::array();
    for (std::size_t i = 0; i < ov.steps.size(); ++i) {
        const StepBreakdown& s = ov.steps[i];
        const StepSpan* sp = s.end > s.begin ? nullptr : spanOf(s.step);
        steps.push_back({{"step", s.step},
                         {"partial", i < ov.stats.isPartial.size() && ov.stats.isPartial[i] != 0},
                         {"begin_ns", sp ? sp->begin : s.begin},
                         {"end_ns", sp ? sp->end : s.end},
                         {"computing_ns", s.computing},
                         {"comm_not_overlapped_ns", s.commNotOverlapped},
                         {"overlapped_ns", s.overlapped},
                         {"communication_ns", s.communication},
                         {"free_ns", s.free}});
    }
    r["step_source"] = overlapSourceName(ov.source);
    r["steps"] = std::move(steps);

    OpStatsOptions oo;
    const OpStatsResult st = computeOpStats(p, oo);
    json ops = json::array();
    for (const auto& g : st.groups)
        ops.push_back({{"type", g.key},
                       {"task_type", g.taskType},
                       {"count", g.count},
                       {"total_ns", g.total},
                       {"min_ns", g.min},
                       {"p50_ns", g.p50},
                       {"p90_ns", g.p90},
                       {"p99_ns", g.p99},
                       {"max_ns", g.max},
                       {"share", num(g.share)},
                       {"aic_utilization", num(g.aicUtilization)},
                       {"bound", boundTypeName(g.bound)}});
    r["op_types"] = std::move(ops);
    r["device_total_ns"] = st.deviceTotal;

    json comm = json::array();
    for (const auto& o : p.commOps)
        if (!o.totalInfo)
            comm.push_back(commOpJson(o, p.strings));
    r["comm_ops"] = std::move(comm);

    json links = json::array();
    for (const auto& l : p.commLinks)
        links.push_back({{"step", std::string(p.str(l.step))},
                         {"kind", std::string(p.str(l.kind))},
                         {"full_name", std::string(p.str(l.fullName))},
                         {"src", l.src},
                         {"dst", l.dst},
                         {"transport", std::string(p.str(l.transport))},
                         {"size_mb", num(l.sizeMB)},
                         {"time_ms", num(l.timeMs)},
                         {"bandwidth_gbps", num(l.bandwidthGBps)}});
    r["links"] = std::move(links);

    json cs = json::array();
    for (const auto& c : computeCommStats(p))
        cs.push_back({{"key", c.key},
                      {"count", c.count},
                      {"total_ns", c.total},
                      {"volume_gb", num(c.volumeGB)},
                      {"wait_ms", num(c.waitMs)},
                      {"transit_ms", num(c.transitMs)}});
    r["comm_stats"] = std::move(cs);
    r["overview"] = overviewJson(p, buckets);
    std::uint64_t skipped = p.skippedTotal();
    r["skipped_records"] = skipped;
    return r;
}

void compactForFile(json& doc)
{
    // Every link once, as the matrix counts them: (step, op, src, dst), the first file that
    // lists it (in canonical order) keeping it.
    std::set<std::tuple<std::string, std::string, int, int>> seen;
    for (json& r : doc["ranks"]) {
        if (!r.is_object())
            continue;
        std::map<std::string, std::pair<double, double>> perTransport; // transport -> (MB, ms)
        for (const json& o : r.value("comm_ops", json::array()))
            for (const json& b : o.value("bandwidth", json::array())) {
                const double mb = numOr(b, "size_mb"), ms = numOr(b, "time_ms");
                if (!(mb > 0) || !(ms > 0))
                    continue;
                auto& [sumMb, sumMs] = perTransport[strOr(b, "transport")];
                sumMb += mb;
                sumMs += ms;
            }
        json transport = json::array();
        for (const auto& [t, v] : perTransport)
            transport.push_back({{"transport", t}, {"size_mb", v.first}, {"time_ms", v.second}});
        r.erase("comm_ops");
        r["comm_transport"] = std::move(transport);

        struct Total {
            double mb = 0, ms = 0;
            std::uint64_t links = 0;
        };
        std::map<std::tuple<std::string, int, int, std::string>, Total> totals; // (collective, src, dst, transport)
        for (const json& l : r.value("links", json::array())) {
            const int src = l.value("src", -1), dst = l.value("dst", -1);
            const std::string full = strOr(l, "full_name");
            if (src < 0 || dst < 0 || !seen.insert({strOr(l, "step"), full, src, dst}).second)
                continue;
            const std::string op = full.substr(0, full.find('@'));
            Total& t = totals[{commBaseName(op.empty() ? full : op), src, dst, strOr(l, "transport")}];
            const double mb = numOr(l, "size_mb"), ms = numOr(l, "time_ms");
            t.mb += std::isnan(mb) ? 0 : mb;
            t.ms += std::isnan(ms) ? 0 : ms;
            ++t.links;
        }
        json linkTotals = json::array();
        for (const auto& [k, t] : totals)
            linkTotals.push_back({{"collective", std::get<0>(k)},
                                  {"src", std::get<1>(k)},
                                  {"dst", std::get<2>(k)},
                                  {"transport", std::get<3>(k)},
                                  {"size_mb", t.mb},
                                  {"time_ms", t.ms},
                                  {"links", t.links}});
        r.erase("links");
        r["link_totals"] = std::move(linkTotals);
    }
}

json failedRank(const RankFolder& folder, const std::string& reason)
{
    return {{"rank", folder.rank}, {"folder", folder.folder}, {"path", folder.path}, {"bytes", folder.bytes},
            {"reason", reason}};
}

void sortCanonical(std::vector<json>& ranks)
{
    auto key = [](const json& j) {
        const int r = j.value("rank", -1);
        return std::make_tuple(r < 0, r, j.value("folder", std::string()));
    };
    std::stable_sort(ranks.begin(), ranks.end(), [&](const json& a, const json& b) { return key(a) < key(b); });
}

std::string dumpSummary(const json& doc)
{
    std::string out = "{\"format\":" + json(kFormatName).dump() + ",\"version\":" + std::to_string(kFormatVersion);
    for (const auto& [key, value] : doc.items())
        if (key != "format" && key != "version")
            out += "," + json(key).dump() + ":" + value.dump();
    return out + "}\n";
}

std::string fileBytes(const json& doc, const std::string& path)
{
    std::string text = dumpSummary(doc);
    if (path.size() < 3 || path.compare(path.size() - 3, 3, ".gz") != 0)
        return text;
    // gzip (RFC 1952) with zlib's fixed header (no name, no time), so the bytes depend on the text only.
    z_stream z{};
    if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        return {};
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(text.data());
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return rc == Z_STREAM_END ? out : std::string();
}

namespace {

// Up to `limit` bytes of `path`, inflated when it is gzip-compressed (zlib reads a plain file as
// it is). False with *error set when it cannot be read.
bool readText(const std::string& path, std::size_t limit, std::string& out, std::string* error)
{
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) {
        if (error)
            *error = "cannot read " + path + ": " + std::strerror(errno);
        return false;
    }
    gzbuffer(f, 1 << 17);
    out.clear();
    char buf[1 << 16];
    while (out.size() < limit) {
        const int n = gzread(f, buf, static_cast<unsigned>(std::min<std::size_t>(sizeof buf, limit - out.size())));
        if (n < 0) {
            int code = 0;
            if (error)
                *error = path + ": " + gzerror(f, &code);
            gzclose(f);
            return false;
        }
        if (n == 0)
            break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    gzclose(f);
    return true;
}

} // namespace

bool isSummaryFile(const std::string& path)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return false;
    std::string head;
    return readText(path, 255, head, nullptr)
           && head.find(std::string("\"format\":\"") + kFormatName + "\"") != std::string::npos;
}

bool readSummary(const std::string& path, json& out, std::string* error)
{
    std::string text;
    if (!readText(path, std::numeric_limits<std::size_t>::max(), text, error))
        return false;
    out = json::parse(text, nullptr, false);
    if (out.is_discarded() || !out.is_object()) {
        *error = path + " is not valid JSON";
        return false;
    }
    if (out.value("format", std::string()) != kFormatName) {
        *error = path + " is not a cluster summary (no \"format\": \"" + kFormatName + "\")";
        return false;
    }
    const int version = out.value("version", 0);
    if (version < 1 || version > kFormatVersion) {
        *error = path + " has summary version " + std::to_string(version) + "; this npuscope reads versions 1.."
                 + std::to_string(kFormatVersion);
        return false;
    }
    if (!out.contains("ranks") || !out["ranks"].is_array()) {
        *error = path + " has no \"ranks\" array";
        return false;
    }
    return true;
}

namespace {

// A rank's "overview" into lanes: `busy` (decodeBusy) or, in a version 1 file, `busy_permille`
// run-length pairs, taken as written up to `buckets` values (a longer run is cut there, a
// shorter one padded with 0), so a damaged file cannot make a lane longer than its resolution.
void readOverview(const json& rank, int id, std::vector<StreamOverview>& out)
{
    const auto ov = rank.find("overview");
    if (ov == rank.end() || !ov->is_object())
        return;
    auto integer = [](const json& j, const char* key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_number_integer() ? it->get<std::int64_t>() : std::int64_t{0};
    };
    const int buckets = static_cast<int>(std::clamp<std::int64_t>(integer(*ov, "buckets"), 0, 1 << 20));
    const TimeNs begin = integer(*ov, "begin_ns"), end = integer(*ov, "end_ns");
    if (buckets == 0 || end <= begin)
        return;
    for (const json& st : ov->value("streams", json::array())) {
        if (!st.is_object())
            continue;
        StreamOverview lane;
        lane.rank = id;
        lane.process = strOr(st, "process");
        lane.thread = strOr(st, "thread");
        lane.kind = strOr(st, "kind");
        lane.tasks = static_cast<std::uint64_t>(std::max<std::int64_t>(0, integer(st, "tasks")));
        lane.begin = begin;
        lane.end = end;
        if (const auto busy = st.find("busy"); busy != st.end() && busy->is_string()) {
            lane.busyPermille = decodeBusy(busy->get_ref<const std::string&>(), static_cast<std::size_t>(buckets));
        } else { // version 1: [‰, count] pairs
            lane.busyPermille.reserve(static_cast<std::size_t>(buckets));
            for (const json& pair : st.value("busy_permille", json::array())) {
                if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() || !pair[1].is_number_integer())
                    continue;
                const auto v = static_cast<std::uint16_t>(std::clamp<std::int64_t>(pair[0].get<std::int64_t>(), 0, 1000));
                const std::int64_t room = buckets - static_cast<std::int64_t>(lane.busyPermille.size());
                lane.busyPermille.insert(lane.busyPermille.end(),
                                         static_cast<std::size_t>(std::clamp<std::int64_t>(pair[1].get<std::int64_t>(), 0, room)), v);
            }
        }
        lane.busyPermille.resize(static_cast<std::size_t>(buckets), 0);
        out.push_back(std::move(lane));
    }
}

} // namespace

SessionPtr sessionFromSummary(const json& summary, const std::string& path)
{
    auto s = std::make_shared<Session>();
    s->root = path;
    const std::size_t n = summary["ranks"].size();
    s->layout = "cluster summary (" + std::to_string(n) + " ranks)";
    s->source = kSessionSource;
    ClusterData& cl = s->cluster;
    for (const json& r : summary["ranks"]) {
        const int rank = r.value("rank", -1);
        if (rank < 0)
            continue;
        // Each step of the rank, as its folder's breakdown gives it: the cluster rules average
        // a rank's rows and the advisor takes T from them, as they do on the folders. A summary
        // without steps gives the advisor's split once per step.
        auto addRow = [&](const json& from, std::string step) {
            auto ns = [&from](const char* key) { return static_cast<TimeNs>(std::llround(numOr(from, key, 0))); };
            StepRow row;
            row.step = std::move(step);
            row.type = "rank";
            row.index = std::to_string(rank);
            row.computing = ns("computing_ns");
            row.commNotOverlapped = ns("comm_not_overlapped_ns");
            row.free = ns("free_ns");
            if (from.contains("overlapped_ns")) {
                row.overlapped = ns("overlapped_ns");
                row.communication = ns("communication_ns");
            }
            cl.stepTrace.push_back(std::move(row));
        };
        const json stepList = r.value("steps", json::array());
        for (const json& st : stepList)
            if (st.is_object())
                addRow(st, strOr(st, "step"));
        if (const auto sp = r.find("advisor_split"); stepList.empty() && sp != r.end() && sp->is_object())
            for (int i = 0; i < std::max(1, sp->value("steps", 1)); ++i)
                addRow(*sp, std::to_string(i));
        readOverview(r, rank, cl.overview);
        for (const json& o : r.value("comm_ops", json::array())) {
            CommOp op;
            op.rank = rank;
            op.step = strOr(o, "step");
            op.kind = strOr(o, "kind");
            op.fullName = strOr(o, "full_name");
            const auto at = op.fullName.find('@');
            op.opName = op.fullName.substr(0, at);
            op.group = at == std::string::npos ? std::string() : op.fullName.substr(at + 1);
            if (const auto st = o.find("start_ns"); st != o.end() && st->is_number_integer())
                op.start = st->get<TimeNs>();
            op.elapseMs = numOr(o, "elapse_ms");
            op.transitMs = numOr(o, "transit_ms");
            op.waitMs = numOr(o, "wait_ms");
            op.syncMs = numOr(o, "sync_ms");
            op.idleMs = numOr(o, "idle_ms");
            op.waitRatio = numOr(o, "wait_ratio");
            op.syncRatio = numOr(o, "sync_ratio");
            for (const json& b : o.value("bandwidth", json::array())) {
                CommBandwidth cb;
                cb.transport = cl.strings.intern(strOr(b, "transport"));
                cb.sizeMB = numOr(b, "size_mb");
                cb.timeMs = numOr(b, "time_ms");
                cb.bandwidthGBps = numOr(b, "bandwidth_gbps");
                op.bandwidth.push_back(std::move(cb));
            }
            cl.comm.push_back(std::move(op));
        }
        for (const json& l : r.value("links", json::array())) {
            CommLink link;
            link.step = cl.strings.intern(strOr(l, "step"));
            link.kind = cl.strings.intern(strOr(l, "kind"));
            const std::string full = strOr(l, "full_name");
            const auto at = full.find('@');
            link.fullName = cl.strings.intern(full);
            link.opName = cl.strings.intern(full.substr(0, at));
            link.group = cl.strings.intern(at == std::string::npos ? std::string() : full.substr(at + 1));
            link.src = l.value("src", -1);
            link.dst = l.value("dst", -1);
            link.transport = cl.strings.intern(strOr(l, "transport"));
            link.sizeMB = numOr(l, "size_mb");
            link.timeMs = numOr(l, "time_ms");
            link.bandwidthGBps = numOr(l, "bandwidth_gbps");
            cl.links.push_back(link);
        }
        // Version 2 keeps totals: per transport (what the slow-link test sums) and per collective,
        // src, dst and transport (what the matrix sums), stood for by one op and one link each.
        if (const auto ct = r.find("comm_transport"); ct != r.end() && ct->is_array() && !ct->empty()) {
            CommOp op;
            op.rank = rank;
            op.fullName = op.opName = "transport totals";
            for (const json& b : *ct) {
                CommBandwidth cb;
                cb.transport = cl.strings.intern(strOr(b, "transport"));
                cb.sizeMB = numOr(b, "size_mb");
                cb.timeMs = numOr(b, "time_ms");
                cb.bandwidthGBps = cb.timeMs > 0 ? cb.sizeMB / cb.timeMs : kNaN;
                op.bandwidth.push_back(std::move(cb));
            }
            cl.comm.push_back(std::move(op));
        }
        for (const json& l : r.value("link_totals", json::array())) {
            if (!l.is_object())
                continue;
            CommLink link;
            const std::string collective = strOr(l, "collective"), transport = strOr(l, "transport");
            link.step = cl.strings.intern("rank " + std::to_string(rank)); // de-duplicated when written
            link.fullName = cl.strings.intern(collective + "@" + transport);
            link.opName = cl.strings.intern(collective);
            link.src = l.value("src", -1);
            link.dst = l.value("dst", -1);
            link.transport = cl.strings.intern(transport);
            link.sizeMB = numOr(l, "size_mb");
            link.timeMs = numOr(l, "time_ms");
            link.bandwidthGBps = link.timeMs > 0 ? link.sizeMB / link.timeMs : kNaN;
            link.count = static_cast<std::uint32_t>(std::clamp<std::int64_t>(l.value("links", std::int64_t{1}), 1, 1 << 30));
            cl.links.push_back(link);
        }
    }
    FileRecord f;
    f.path = path;
    f.kind = "summary";
    f.status = FileStatus::Loaded;
    f.records = n;
    s->files.push_back(std::move(f));
    // Where each rank's full data lives, for opening it on demand (kRankFolderKind).
    for (const char* list : {"ranks", "failed"})
        for (const json& r : summary.value(list, json::array())) {
            FileRecord rf;
            rf.path = strOr(r, "path");
            rf.kind = kRankFolderKind;
            rf.bytes = r.value("bytes", std::uint64_t(0));
            rf.status = std::string(list) == "ranks" ? FileStatus::Loaded : FileStatus::Failed;
            rf.note = "rank " + std::to_string(r.value("rank", -1)) + (rf.status == FileStatus::Failed ? ": " + strOr(r, "reason") : "");
            s->files.push_back(std::move(rf));
        }
    return s;
}

std::string rankFolderOf(const Session& s, int rank)
{
    const std::string note = "rank " + std::to_string(rank);
    for (const auto& f : s.files)
        if (f.kind == kRankFolderKind && (f.note == note || f.note.rfind(note + ":", 0) == 0))
            return f.path;
    return {};
}

CompareSide compareSideOf(const json& summary)
{
    CompareSide side;
    const json* slowest = nullptr;
    double slowestT = -1;
    const auto ranks = summary.find("ranks");
    if (ranks == summary.end() || !ranks->is_array())
        return side;
    for (const json& r : *ranks) { // by reference: `slowest` points into it
        if (!r.is_object())
            continue;
        if (const auto sp = r.find("advisor_split"); sp != r.end() && sp->is_object()) {
            const double t = numOr(*sp, "T_ns");
            if (!std::isnan(t) && t > slowestT && numOr(*sp, "steps", 0) > 0) {
                slowestT = t;
                slowest = &r;
            }
        }
        for (const json& o : r.value("op_types", json::array())) {
            if (!o.is_object())
                continue;
            auto& [count, total] = side.ops[strOr(o, "type")];
            count += static_cast<std::uint64_t>(std::max(0.0, numOr(o, "count", 0)));
            total += static_cast<TimeNs>(std::llround(numOr(o, "total_ns", 0)));
        }
    }
    if (!slowest)
        return side;
    const json& sp = (*slowest)["advisor_split"];
    side.stepMs = numOr(sp, "T_ns") / 1e6;
    side.computingMs = numOr(sp, "computing_ns") / 1e6;
    side.notOverlappedMs = numOr(sp, "comm_not_overlapped_ns") / 1e6;
    side.freeMs = numOr(sp, "free_ns") / 1e6;
    for (const json& st : slowest->value("steps", json::array())) {
        if (!st.is_object())
            continue;
        StepBreakdown b;
        b.step = strOr(st, "step");
        auto ns = [&st](const char* key) { return static_cast<TimeNs>(std::llround(numOr(st, key, 0))); };
        b.begin = ns("begin_ns");
        b.end = ns("end_ns");
        b.computing = ns("computing_ns");
        b.commNotOverlapped = ns("comm_not_overlapped_ns");
        b.overlapped = ns("overlapped_ns");
        b.communication = ns("communication_ns");
        b.free = ns("free_ns");
        if (!st.value("partial", false)) // a step cut by the capture is no sample of the step time
            side.stepsMs.push_back(static_cast<double>(b.stepTime()) / 1e6);
        side.steps.push_back(std::move(b));
    }
    return side;
}

std::vector<StepSpan> stepSpansOf(const json& summary)
{
    std::vector<StepSpan> spans;
    const json ranks = summary.value("ranks", json::array());
    if (ranks.empty() || !ranks[0].is_object())
        return spans;
    for (const json& st : ranks[0].value("steps", json::array())) {
        if (!st.is_object())
            continue;
        auto ns = [&st](const char* key) { return static_cast<TimeNs>(std::llround(numOr(st, key, 0))); };
        StepSpan s;
        const std::string step = strOr(st, "step");
        s.step = step.rfind("ProfilerStep", 0) == 0 ? step : "ProfilerStep#" + step;
        s.begin = ns("begin_ns");
        s.end = ns("end_ns");
        if (s.end <= s.begin)
            continue;
        s.computing = std::min(ns("computing_ns"), s.duration());
        s.commNotOverlapped = std::min(ns("comm_not_overlapped_ns"), s.duration() - s.computing);
        s.free = s.duration() - s.computing - s.commNotOverlapped;
        spans.push_back(std::move(s));
    }
    return spans;
}

bool isSummarySession(const Session& s)
{
    return s.source == kSessionSource;
}

CompareResult compareRuns(const Session& base, const Session& cur, const CompareOptions& co, std::string* error)
{
    if (!isSummarySession(base) && !isSummarySession(cur))
        return compareSessions(base, cur, co);
    json docs[2];
    const Session* sessions[2] = {&base, &cur};
    for (int i = 0; i < 2; ++i)
        if (isSummarySession(*sessions[i]) && !readSummary(sessions[i]->root, docs[i], error)) {
            CompareResult failed; // says why on the side that failed, as a file read in part would
            (i == 0 ? failed.baselineProblems : failed.currentProblems).push_back({-1, sessions[i]->root, "failed", *error, 0});
            return failed;
        }
    auto side = [&](int i) { return isSummarySession(*sessions[i]) ? compareSideOf(docs[i]) : compareSide(*sessions[i], co); };
    auto spans = [&](int i) { return isSummarySession(*sessions[i]) ? stepSpansOf(docs[i]) : stepSpans(*sessions[i]); };
    CompareResult r = compareSides(side(0), side(1), co);
    alignStepSpans(r, spans(0), spans(1));
    r.baselineProblems = inputProblems(base);
    r.currentProblems = inputProblems(cur);
    return r;
}

} // namespace npuscope::cluster_summary
