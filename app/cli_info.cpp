// `npuscope info PATH`: what was found, loaded and skipped, per rank.
//
// The report is built once as an ordered JSON value (keys stay in the order below) and the text
// form is rendered from it, so both formats always say the same thing. JSON layout:
//   {"path", "layout", "source",
//    "ranks": [{"rank" (null when unknown), "name", "layout", "root", "devices": [..],
//               "files": [{"path", "kind", "status", "bytes", "records", "skipped", "note"}],
//               "ignored": [{"path", "kind", "note"}],
//               "tracks", "slices", "slices_by_track_kind": {kind: n},
//               "device_tasks", "device_tasks_by_type": {Task Type: n} (count desc),
//               "flows", "counter_series", "counter_samples", "comm_ops", "comm_links", "steps",
//               "kernel_rows", "stat_rows", "l2_rows", "op_detail_rows" (operator_details.csv),
//               "join": {"device_tasks", "kernel_rows", "matched_exact", "matched_nearest",
//                        "unmatched_tasks", "unmatched_kernels"},
//               "time_span": {"begin_ns", "end_ns", "duration_ms"},
//               "step_split": {"source", "steps", "partial_steps", "step_ns", "computing_ns",
//                              "comm_not_overlapped_ns", "free_ns", "step_min_ns", "step_max_ns"}
//                              (T, the median of the complete steps, and the median step's split,
//                              as the summary strip and the advisor give it; null without steps),
//               "skipped_total", "diagnostics": [{"severity", "file", "line", "byte_offset", "reason",
//                                                 "count", "where"}],
//               "op_types": {"source": "kernels"|"timeline", "rows": [{"type", "count", "total_ns",
//                                                                      "total_us"}],
//                            "communication": {"count", "total_ns", "total_us"}}
//                           (the rows of `analyze --metric duration`; communication rows apart),
//               "memory": {"component" (the framework curve: PTA+GE, else PTA, else GE; null
//                          when memory_record is absent), "allocations", "unreleased",
//                          "peak_allocated", "peak_reserved", "peak_active", "app_reserved":
//                          {"bytes", "mb" (2^20 B), "at_ns", "at_ms" (from time_span.begin_ns)} or
//                          null, "capacity_bytes" (null: unknown)}}],
//    "cluster": {"step_trace_rows", "comm_ops", "comm_links", "groups"},
//    "clock_offsets_ns": {rank: ns} (aligned time = file time - offset; the reference rank 0;
//                        every rank 0 for a single rank or when none could be estimated),
//    "clock": {"status", "reference_rank", "ranks": [{"rank", "offset_ns", "estimated", "manual",
//              "shared_collectives", "spread_ns", "threshold_ns", "via_rank", "group", "note"}],
//              "problems"} (model/analysis/clock_align.h),
//    "files": [..], "ignored": [..], "diagnostics": [..],   (outside any rank)
//    "input_problems": [{"rank", "file", "status", "skipped", "reason"}],
//    "repaired_strings": n}   (strings that were not valid UTF-8, written with U+FFFD)
// Paths are relative to PATH (or to its folder when PATH is a file). Names and paths are kept
// byte-exact in the model; the JSON writer repairs invalid UTF-8 and the text form escapes
// control characters (model/store/safe_text.h).
#include "app/cli.h"
#include "app/cli_collectives.h"

#include "model/analysis/memory.h"
#include "model/analysis/op_stats.h"
#include "model/analysis/summary.h"
#include "model/formats/loader.h"
#include "model/io/memory_budget.h"
#include "model/io/parallel.h"
#include "model/io/relative_path.h"
#include "model/store/safe_text.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <string>
#include <unordered_map>

namespace npuscope::cli {

namespace {

using Json = nlohmann::ordered_json;

void printInfoHelp()
{
    std::fputs("Usage: npuscope info PATH... [--format text|json] [--prefer text|db] [--run N] [--no-cache]\n"
               "                     [--clock raw|aligned] [--clock-offset RANK=NS]...\n"
               "\n"
               "Detects the layout of PATH (a torch_npu or msprof profiling folder, a cluster of rank\n"
               "folders, or a single timeline JSON / op_summary / kernel_details CSV), loads it and prints\n"
               "what was found: ranks and devices, every file with what happened to it, counts of\n"
               "slices, device tasks, flows, counters, communication, steps and kernel rows, how well\n"
               "timeline tasks joined kernel rows, the time span, skipped rows with reasons, and the\n"
               "operator types by total duration. Several PATHs load as ranks of one session.\n"
               "A folder with no profile at its top is searched below (8 levels, 20,000 folders); when\n"
               "it holds several unrelated runs, they are listed (layout, ranks, size, date).\n"
               "\n"
               "Options:\n"
               "  --format text|json  output format (default text)\n"
               "  --prefer text|db    which export to read when a folder has both the text files and\n"
               "                      the SQLite .db (default: text; a folder with only a .db reads it)\n"
               "  --run N             show run N of the runs found below PATH\n"
               "  --clock raw|aligned the ranks' clock offsets as estimated from the collectives\n"
               "                      (aligned, default) or all 0 (raw); see 'npuscope analyze --help'\n"
               "  --clock-offset RANK=NS  rank RANK's offset in ns, or with a unit (1=-5.6ms);\n"
               "                      repeatable; overrides the estimate (listed as \"manual offset\")\n"
               "  --no-cache          read the files even when the session cache holds them, and do not\n"
               "                      write the cache (see 'npuscope cache --help')\n"
               "  -h, --help          this help\n"
               "\n"
               "Exit codes: 0 ok, 1 nothing could be loaded, 2 usage.\n",
               stdout);
}

int infoUsage(const std::string& msg)
{
    std::fprintf(stderr, "npuscope info: %s\nTry 'npuscope info --help'.\n", msg.c_str());
    return 2;
}

void addFiles(Json& files, Json& ignored, const std::vector<FileRecord>& records, const Relativizer& rel)
{
    for (const auto& f : records) {
        if (f.status == FileStatus::Ignored || f.status == FileStatus::NotRead) {
            ignored.push_back({{"path", rel(f.path)}, {"kind", f.kind}, {"note", f.note}});
            continue;
        }
        files.push_back({{"path", rel(f.path)},
                         {"kind", f.kind},
                         {"status", fileStatusName(f.status)},
                         {"bytes", f.bytes},
                         {"records", f.records},
                         {"skipped", f.skipped},
                         {"note", f.note}});
    }
}

Json diagnosticsJson(const std::vector<Diagnostic>& diags, const Relativizer& rel)
{
    Json out = Json::array();
    for (const auto& d : diags) {
        std::string where = rel(d.file);
        if (d.line >= 0)
            where += ':' + std::to_string(d.line);
        else if (d.byteOffset >= 0)
            where += " @" + std::to_string(d.byteOffset);
        out.push_back({{"severity", severityName(d.severity)},
                       {"file", rel(d.file)},
                       {"line", d.line},
                       {"byte_offset", d.byteOffset},
                       {"reason", d.reason},
                       {"count", d.count},
                       {"where", where}});
    }
    return out;
}

// Calls f(row) for every slice on a Stream track (a device task), track by track once the
// profile is finalized.
template <typename F>
void forStreamRows(const Profile& p, F f)
{
    if (!p.finalized()) {
        for (std::size_t i = 0; i < p.slices.size(); ++i)
            if (p.tracks[p.slices.track[i].v].kind == TrackKind::Stream)
                f(i);
        return;
    }
    for (const Track& t : p.tracks)
        if (t.kind == TrackKind::Stream)
            for (std::size_t i = t.sliceBegin; i < t.sliceEnd; ++i)
                f(i);
}

// Name -> count, as a JSON object sorted by count (desc) then name.
Json countsByDesc(const std::map<std::string, std::uint64_t>& counts)
{
    std::vector<std::pair<std::string, std::uint64_t>> v(counts.begin(), counts.end());
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    Json out = Json::object();
    for (const auto& [k, n] : v)
        out[k] = n;
    return out;
}

// The operator types as `analyze --metric duration` ranks them (computeOpStats, by OP Type):
// communication rows (HCCL / COMMUNICATION task types, hcom ops) are communication ops, not
// operator types; they are counted apart, as `analyze --metric communication_duration` ranks them.
// One pass that counts and adds up only (countsOnly): the listing shows no other metric.
Json opTypes(const Profile& p)
{
    OpStatsOptions countsOnly;
    countsOnly.countsOnly = true;
    const OpStatsResult ops = computeOpStats(p, countsOnly);
    Json rows = Json::array();
    for (const OpGroupStats& g : ops.groups)
        rows.push_back({{"type", g.key}, {"count", g.count}, {"total_ns", g.total}, {"total_us", double(g.total) / 1000.0}});
    const TimeNs commNs = ops.communicationTotal;
    return Json{
        {"source", ops.fromTimeline ? "timeline" : "kernels"},
        {"rows", rows},
        {"communication", {{"count", ops.communicationCount}, {"total_ns", commNs}, {"total_us", double(commNs) / 1000.0}}}};
}

Json memoryJson(const Profile& p)
{
    const memory::Summary m = memory::summarize(p);
    auto peak = [&p](const memory::Peak& k) {
        if (!k.valid())
            return Json(nullptr);
        return Json{{"bytes", k.bytes},
                    {"mb", k.bytes / (1024.0 * 1024.0)},
                    {"at_ns", k.at},
                    {"at_ms", double(k.at - p.begin) / 1e6}};
    };
    const memory::ComponentCurve* fw = m.frameworkCurve();
    Json out;
    out["component"] = fw ? Json(fw->component) : Json(nullptr);
    out["allocations"] = m.allocations;
    out["unreleased"] = m.unreleased;
    out["peak_allocated"] = peak(m.peakAllocated);
    out["peak_reserved"] = peak(m.peakReserved);
    out["peak_active"] = peak(m.peakActive);
    out["app_reserved"] = peak(m.appReserved);
    out["capacity_bytes"] = !isMissing(m.capacityBytes) ? Json(m.capacityBytes) : Json(nullptr);
    return out;
}

Json stepSplitJson(const Profile& p)
{
    const StepSplit m = stepSplit(computeOverlap(p));
    if (m.steps == 0)
        return Json(nullptr);
    return Json{{"source", m.source},       {"steps", m.steps},        {"partial_steps", m.partial},
                {"step_ns", m.stepTime},    {"computing_ns", m.computing},
                {"comm_not_overlapped_ns", m.commNotOverlapped}, {"free_ns", m.free},
                {"step_min_ns", m.min},     {"step_max_ns", m.max},   {"count_text", m.countText()}};
}

Json rankJson(const Profile& p, const Relativizer& rel)
{
    Json r;
    r["rank"] = p.rank >= 0 ? Json(p.rank) : Json(nullptr);
    r["name"] = p.name;
    r["layout"] = p.layout;
    r["root"] = rel(p.root);
    r["devices"] = p.devices;
    Json files = Json::array(), ignored = Json::array();
    addFiles(files, ignored, p.files, rel);
    r["files"] = files;
    r["ignored"] = ignored;

    std::map<TrackKind, std::uint64_t> byKind;
    if (p.finalized()) {
        for (const Track& t : p.tracks)
            if (t.sliceEnd > t.sliceBegin)
                byKind[t.kind] += t.sliceEnd - t.sliceBegin;
    } else {
        for (std::size_t i = 0; i < p.slices.size(); ++i)
            ++byKind[p.tracks[p.slices.track[i].v].kind];
    }
    std::unordered_map<std::uint32_t, std::uint64_t> byCategory;
    std::uint64_t deviceTasks = 0;
    forStreamRows(p, [&](std::size_t i) {
        ++deviceTasks;
        ++byCategory[p.slices.category[i].v];
    });
    std::map<std::string, std::uint64_t> byTaskType;
    for (const auto& [id, n] : byCategory)
        byTaskType[std::string(p.str(NameId{id}))] += n;
    Json kinds = Json::object();
    for (const auto& [k, n] : byKind)
        kinds[trackKindName(k)] = n;
    std::uint64_t samples = 0;
    for (const auto& c : p.counters)
        samples += c.ts.size();

    r["tracks"] = p.tracks.size();
    r["slices"] = p.slices.size();
    r["slices_by_track_kind"] = kinds;
    r["device_tasks"] = deviceTasks;
    r["device_tasks_by_type"] = countsByDesc(byTaskType);
    r["flows"] = p.flows.size();
    r["counter_series"] = p.counters.size();
    r["counter_samples"] = samples;
    r["comm_ops"] = p.commOps.size();
    r["comm_links"] = p.commLinks.size();
    r["steps"] = p.steps.size();
    r["kernel_rows"] = p.kernels.size();
    r["stat_rows"] = p.stats.size();
    r["l2_rows"] = p.l2.size();
    r["op_detail_rows"] = p.opDetails.size();
    r["join"] = {{"device_tasks", p.join.deviceTasks},         {"kernel_rows", p.join.kernelRows},
                 {"matched_exact", p.join.matchedExact},       {"matched_nearest", p.join.matchedNearest},
                 {"unmatched_tasks", p.join.unmatchedTasks},   {"unmatched_kernels", p.join.unmatchedKernels}};
    r["time_span"] = {{"begin_ns", p.begin}, {"end_ns", p.end}, {"duration_ms", double(p.end - p.begin) / 1e6}};
    // Three passes over the rank's tasks, independent of each other: side by side.
    Json passes[3];
    parallelFor(std::size(passes), 0, [&](std::size_t i) {
        passes[i] = i == 0 ? stepSplitJson(p) : i == 1 ? opTypes(p) : memoryJson(p);
    });
    r["step_split"] = std::move(passes[0]);
    r["skipped_total"] = p.skippedTotal();
    r["diagnostics"] = diagnosticsJson(p.diagnostics, rel);
    r["op_types"] = std::move(passes[1]);
    r["memory"] = std::move(passes[2]);
    return r;
}

Json sessionJson(const Session& s, const std::string& path, const ClockOptions& clockOptions)
{
    const Relativizer rel(s.root.empty() ? path : s.root);
    Json out;
    out["path"] = path;
    out["layout"] = s.layout;
    out["source"] = s.source;
    Json ranks = Json::array();
    for (const auto& p : s.ranks)
        ranks.push_back(rankJson(*p, rel));
    out["ranks"] = ranks;
    out["cluster"] = {{"step_trace_rows", s.cluster.stepTrace.size()},
                      {"comm_ops", s.cluster.comm.size()},
                      {"comm_links", s.cluster.links.size()},
                      {"groups", s.cluster.groups.size()}};
    const ClockAlignment clock = alignClocks(s, clockOptions);
    out["clock_offsets_ns"] = clockOffsetsJson(clock);
    out["clock"] = clockJson(clock);
    Json files = Json::array(), ignored = Json::array();
    addFiles(files, ignored, s.files, rel);
    out["files"] = files;
    out["ignored"] = ignored;
    out["diagnostics"] = diagnosticsJson(s.diagnostics, rel);
    Json problems = toJson(inputProblems(s));
    for (auto& p : problems)
        p["file"] = rel(p["file"].get<std::string>());
    out["input_problems"] = problems;
    return out;
}

std::string num(const Json& v)
{
    if (v.is_number_float()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f", v.get<double>());
        return buf;
    }
    return text::dumpJson(v);
}

// For the terminal: control characters escaped, invalid UTF-8 as U+FFFD.
std::string str(const Json& v) { return text::forTerminal(v.is_string() ? v.get<std::string>() : text::dumpJson(v)); }

void printFiles(const Json& files, const Json& ignored, const char* indent)
{
    if (!files.empty()) {
        std::printf("%sfiles read:\n", indent);
        for (const auto& f : files) {
            std::printf("%s  %s  [%s] %s, %s records, %s skipped, %s bytes", indent, str(f["path"]).c_str(),
                        str(f["kind"]).c_str(), str(f["status"]).c_str(), num(f["records"]).c_str(),
                        num(f["skipped"]).c_str(), num(f["bytes"]).c_str());
            if (!str(f["note"]).empty())
                std::printf(" (%s)", str(f["note"]).c_str());
            std::printf("\n");
        }
    }
    if (!ignored.empty()) {
        std::printf("%signored:\n", indent);
        for (const auto& f : ignored)
            std::printf("%s  %s: %s\n", indent, str(f["path"]).c_str(), str(f["note"]).c_str());
    }
}

void printDiagnostics(const Json& diags, const char* indent)
{
    for (const auto& d : diags)
        std::printf("%s  %s %s: %s (x%s)\n", indent, str(d["severity"]).c_str(), str(d["where"]).c_str(),
                    str(d["reason"]).c_str(), num(d["count"]).c_str());
}

std::string joinCounts(const Json& obj)
{
    std::string out;
    for (const auto& [k, v] : obj.items())
        out += (out.empty() ? "" : ", ") + k + ' ' + num(v);
    return out.empty() ? "none" : out;
}

std::string peakText(const Json& k)
{
    if (k.is_null())
        return "none";
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.2f MiB at %.3f ms (%s ns)", k["mb"].get<double>(), k["at_ms"].get<double>(),
                  k["at_ns"].dump().c_str());
    return buf;
}

void printMemory(const Json& m)
{
    if (m["component"].is_null() && m["app_reserved"].is_null() && m["allocations"].get<std::uint64_t>() == 0)
        return;
    std::printf("  memory: %s operator allocations, %s held to the end of the capture\n",
                num(m["allocations"]).c_str(), num(m["unreleased"]).c_str());
    if (!m["component"].is_null()) {
        std::printf("    peak allocated (%s): %s\n", str(m["component"]).c_str(), peakText(m["peak_allocated"]).c_str());
        std::printf("    peak reserved (%s): %s\n", str(m["component"]).c_str(), peakText(m["peak_reserved"]).c_str());
    }
    if (!m["app_reserved"].is_null())
        std::printf("    peak reserved (APP, whole process): %s\n", peakText(m["app_reserved"]).c_str());
    if (!m["capacity_bytes"].is_null())
        std::printf("    device capacity: %.2f MiB\n", m["capacity_bytes"].get<double>() / (1024.0 * 1024.0));
}

void printStepSplit(const Json& s)
{
    if (s.is_null())
        return;
    auto ms = [&](const char* key) {
        char b[64];
        std::snprintf(b, sizeof b, "%.3f ms", s[key].get<double>() / 1e6);
        return std::string(b);
    };
    std::printf("  step: %s per step, %s (%s; min %s, max %s): computing %s, communication not overlapped %s, free %s\n",
                ms("step_ns").c_str(), str(s["count_text"]).c_str(), str(s["source"]).c_str(), ms("step_min_ns").c_str(),
                ms("step_max_ns").c_str(), ms("computing_ns").c_str(), ms("comm_not_overlapped_ns").c_str(),
                ms("free_ns").c_str());
}

void printText(const Json& j)
{
    std::printf("path: %s\nlayout: %s\nsource: %s\nranks: %zu\n", str(j["path"]).c_str(), str(j["layout"]).c_str(),
                str(j["source"]).c_str(), j["ranks"].size());
    if (!j["input_problems"].empty()) {
        std::printf("\n%s\n", incompleteInputHeadline(j["input_problems"].size()).c_str());
        for (const auto& p : j["input_problems"])
            std::printf("  %s: %s, %s skipped: %s\n", str(p["file"]).c_str(), str(p["status"]).c_str(),
                        num(p["skipped"]).c_str(), str(p["reason"]).c_str());
    }
    for (const auto& r : j["ranks"]) {
        std::string devices;
        for (const auto& d : r["devices"])
            devices += (devices.empty() ? "" : ",") + num(d);
        std::printf("\nrank %s: %s (%s), devices: %s\n", r["rank"].is_null() ? "?" : num(r["rank"]).c_str(),
                    str(r["name"]).c_str(), str(r["layout"]).c_str(), devices.empty() ? "none" : devices.c_str());
        printFiles(r["files"], r["ignored"], "  ");
        std::printf("  slices: %s on %s tracks (%s)\n", num(r["slices"]).c_str(), num(r["tracks"]).c_str(),
                    joinCounts(r["slices_by_track_kind"]).c_str());
        std::printf("  device tasks: %s (%s)\n", num(r["device_tasks"]).c_str(),
                    joinCounts(r["device_tasks_by_type"]).c_str());
        std::printf("  flows: %s\n  counters: %s series, %s samples\n", num(r["flows"]).c_str(),
                    num(r["counter_series"]).c_str(), num(r["counter_samples"]).c_str());
        std::printf("  comm ops: %s\n  comm links: %s\n  steps: %s\n  kernel rows: %s\n  statistics rows: %s\n"
                    "  l2 rows: %s\n  operator details rows: %s\n",
                    num(r["comm_ops"]).c_str(), num(r["comm_links"]).c_str(), num(r["steps"]).c_str(),
                    num(r["kernel_rows"]).c_str(), num(r["stat_rows"]).c_str(), num(r["l2_rows"]).c_str(),
                    num(r["op_detail_rows"]).c_str());
        const Json& jn = r["join"];
        std::printf("  join: %s exact + %s nearest matched; unmatched: %s tasks, %s kernels\n",
                    num(jn["matched_exact"]).c_str(), num(jn["matched_nearest"]).c_str(),
                    num(jn["unmatched_tasks"]).c_str(), num(jn["unmatched_kernels"]).c_str());
        const Json& ts = r["time_span"];
        std::printf("  time span: %s .. %s ns (%s ms)\n", num(ts["begin_ns"]).c_str(), num(ts["end_ns"]).c_str(),
                    num(ts["duration_ms"]).c_str());
        printStepSplit(r["step_split"]);
        std::printf("  skipped: %s\n", num(r["skipped_total"]).c_str());
        printDiagnostics(r["diagnostics"], "  ");
        printMemory(r["memory"]);
        const Json& ops = r["op_types"];
        std::printf("  op types (%s, by total duration): %zu\n", str(ops["source"]).c_str(), ops["rows"].size());
        for (const auto& o : ops["rows"])
            std::printf("    %-40s %8s %16s us\n", str(o["type"]).c_str(), num(o["count"]).c_str(),
                        num(o["total_us"]).c_str());
        if (const Json& cm = ops["communication"]; cm["count"].get<std::uint64_t>() > 0)
            std::printf("    %-40s %8s %16s us\n", "(communication, apart)", num(cm["count"]).c_str(),
                        num(cm["total_us"]).c_str());
    }
    const Json& c = j["cluster"];
    if (c["step_trace_rows"].get<std::uint64_t>() + c["comm_ops"].get<std::uint64_t>()
            + c["comm_links"].get<std::uint64_t>() + c["groups"].get<std::uint64_t>()
        > 0)
        std::printf("\ncluster: %s step rows, %s comm ops, %s comm links, %s groups\n",
                    num(c["step_trace_rows"]).c_str(), num(c["comm_ops"]).c_str(), num(c["comm_links"]).c_str(),
                    num(c["groups"]).c_str());
    if (j["ranks"].size() > 1) {
        std::printf("\nclocks: %s\n", str(j["clock"]["status"]).c_str());
        for (const auto& c : j["clock"]["ranks"])
            std::printf("  rank %s: offset %s ns%s%s\n", num(c["rank"]).c_str(), num(c["offset_ns"]).c_str(),
                        c["note"].get<std::string>().empty() ? "" : ", ", str(c["note"]).c_str());
        for (const auto& p : j["clock"]["problems"])
            std::printf("  %s\n", str(p).c_str());
    }
    if (!j["files"].empty() || !j["ignored"].empty()) {
        std::printf("\noutside ranks:\n");
        printFiles(j["files"], j["ignored"], "  ");
    }
    if (!j["diagnostics"].empty()) {
        std::printf("\ndiagnostics:\n");
        printDiagnostics(j["diagnostics"], "");
    }
    if (j.contains("cache_note"))
        std::printf("\ncache: %s\n", str(j["cache_note"]).c_str());
}

// Several unrelated runs below the folder: lists them (--run N shows one).
void printRuns(const std::string& path, const std::vector<layout::RunInfo>& runs, bool json)
{
    if (json) {
        Json j;
        j["path"] = path;
        j["runs"] = Json::array();
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const layout::RunInfo& r = runs[i];
            j["runs"].push_back({{"run", i + 1},
                                 {"root", r.root},
                                 {"layout", r.layout},
                                 {"ranks", r.ranks},
                                 {"bytes", r.bytes},
                                 {"modified", r.modified}});
        }
        std::printf("%s\n", j.dump(2).c_str());
    } else {
        std::printf("%s: %zu unrelated runs found below it\n%sOpen one with --run N.\n", path.c_str(), runs.size(),
                    runList(runs).c_str());
    }
}

} // namespace

int info(const Args& args)
{
    std::vector<std::string> paths;
    std::string format = "text";
    Prefer prefer = Prefer::Auto;
    bool useCache = true;
    std::size_t run = 0;
    ClockOptions clock;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            printInfoHelp();
            return 0;
        }
        if (a == "--no-cache") {
            useCache = false;
            continue;
        }
        if (a == "--format" || a.rfind("--format=", 0) == 0) {
            if (a == "--format") {
                if (i + 1 >= args.size())
                    return infoUsage("--format needs a value (text or json)");
                format = args[++i];
            } else {
                format = a.substr(9);
            }
            if (format != "text" && format != "json")
                return infoUsage("unknown format '" + format + "' (text or json)");
            continue;
        }
        if (a == "--prefer") {
            if (i + 1 >= args.size())
                return infoUsage("--prefer needs a value (text or db)");
            const std::string v = args[++i];
            if (!parsePrefer(v, prefer))
                return infoUsage("unknown --prefer '" + v + "' (text or db)");
            continue;
        }
        if (a == "--run") {
            if (i + 1 >= args.size() || !parseRun(args[i + 1], run))
                return infoUsage("--run needs a run number from 1 up");
            ++i;
            continue;
        }
        if (std::string why; clockFlag(args, i, clock, why)) {
            if (!why.empty())
                return infoUsage(why);
            continue;
        }
        if (a.size() > 1 && a[0] == '-')
            return infoUsage("unknown option '" + a + "'");
        paths.push_back(a);
    }
    if (paths.empty())
        return infoUsage("missing PATH");

    LoadOptions options;
    options.prefer = prefer;
    options.run = run;
    const bool tty = ::isatty(STDERR_FILENO) != 0;
    if (tty)
        options.progress = [](const LoadProgress& p) {
            std::fprintf(stderr, "\r\033[K%3d%% %s", int(p.fraction * 100), p.stage.c_str());
            std::fflush(stderr);
        };
    std::string cacheNote;
    const LoadResult result = loadForVerb("info", paths, options, useCache, &cacheNote);
    if (tty)
        std::fputs("\r\033[K", stderr);
    if (!result.session && !result.runs.empty() && run == 0) {
        printRuns(paths.front(), result.runs, format == "json");
        return 0;
    }
    if (!result.session) {
        printError("info", result.error);
        if (!result.runs.empty())
            std::fprintf(stderr, "%s", runList(result.runs).c_str());
        return 1;
    }
    warnInputProblems("info", *result.session);
    std::string shown = paths.front();
    for (std::size_t i = 1; i < paths.size(); ++i)
        shown += ' ' + paths[i];
    // The summary's passes over a large session get the heap a load of its size gets.
    const LoadAllocationScope analysis(result.session->loadedBytes());
    Json report = sessionJson(*result.session, paths.size() == 1 ? paths.front() : result.session->root, clock);
    report["path"] = shown;
    if (!cacheNote.empty())
        report["cache_note"] = cacheNote;
    if (format == "json") {
        report["repaired_strings"] = text::invalidStrings(report);
        std::printf("%s\n", text::dumpJson(report, 2).c_str());
    } else {
        printText(report);
    }
    return 0;
}

} // namespace npuscope::cli
