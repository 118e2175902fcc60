// The simplified {"tasks":[…]} JSON of FORMATS.md §7 (not an Ascend format). Small files: parsed
// in one simdjson pass, but numbers are still read from their text so ms -> ns is exact.
#include "model/formats/json_event_scanner.h"
#include "model/formats/number_text.h"
#include "model/formats/readers.h"

#include <simdjson.h>

#include <cmath>

namespace npuscope::readers {

namespace {

namespace od = simdjson::ondemand;

std::string_view tokenText(od::value v)
{
    std::string_view t = v.raw_json_token();
    while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t'))
        t.remove_suffix(1);
    if (t.size() >= 2 && t.front() == '"' && t.back() == '"')
        t = t.substr(1, t.size() - 2);
    return t;
}

// Index of metric column `name`, created (NaN for existing rows) when missing.
std::size_t metricColumn(KernelTable& k, const std::string& name)
{
    const int m = k.metricIndex(name);
    if (m >= 0)
        return static_cast<std::size_t>(m);
    k.metricNames.push_back(name);
    k.metrics.emplace_back(k.size(), kNaN);
    return k.metrics.size() - 1;
}

void addKernelRow(KernelTable& k, TimeNs start, TimeNs dur, NameId name, NameId taskType, NameId empty,
                  std::uint32_t slice)
{
    k.device.push_back(0);
    k.step.push_back(-1);
    k.modelId.push_back(-1);
    k.streamId.push_back(0);
    k.taskId.push_back(-1);
    k.contextId.push_back(-1);
    k.start.push_back(start);
    k.dur.push_back(dur);
    k.wait.push_back(std::numeric_limits<TimeNs>::min());
    k.name.push_back(name);
    k.type.push_back(name);
    k.taskType.push_back(taskType);
    k.opState.push_back(empty);
    for (auto* col : {&k.inputShapes, &k.inputDtypes, &k.inputFormats, &k.outputShapes, &k.outputDtypes,
                      &k.outputFormats})
        col->push_back(empty);
    k.blockDim.push_back(-1);
    k.mixBlockDim.push_back(-1);
    for (auto& m : k.metrics)
        m.push_back(kNaN);
    for (auto& e : k.extra)
        e.push_back(empty);
    k.slice.push_back(slice);
}

} // namespace

bool looksLikeSimplifiedTasks(std::string_view head)
{
    std::size_t p = 0;
    if (head.substr(0, 3) == "\xEF\xBB\xBF")
        p = 3;
    p = skipJsonSpace(head, p);
    if (p >= head.size() || head[p] != '{')
        return false;
    p = skipJsonSpace(head, p + 1);
    if (head.substr(p, 7) != "\"tasks\"")
        return false;
    p = skipJsonSpace(head, p + 7);
    return p < head.size() && head[p] == ':';
}

FileRecord readSimplifiedTasksJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.path = ctx.file;
    rec.bytes = bytes.size();
    auto failed = [&](const std::string& why) {
        rec.status = FileStatus::Failed;
        rec.note = why;
        sink.report(Severity::Error, ctx.file, -1, -1, why);
        return rec;
    };
    if (bytes.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return failed("empty file");
    if (!looksLikeSimplifiedTasks(bytes))
        return failed("not a simplified task JSON: expected {\"tasks\": [...]}");
    sink.layout = "simplified JSON"; // also when the rest of it cannot be read

    simdjson::padded_string padded(bytes.data(), bytes.size());
    od::parser parser;
    od::document doc;
    od::array tasks;
    if (auto e = parser.iterate(padded).get(doc))
        return failed(std::string("not valid JSON: ") + simdjson::error_message(e));
    if (auto e = doc["tasks"].get_array().get(tasks))
        return failed(std::string("\"tasks\" is not an array: ") + simdjson::error_message(e));

    if (std::find(sink.devices.begin(), sink.devices.end(), 0) == sink.devices.end())
        sink.devices.push_back(0);
    const TrackId track = sink.trackFor(0, 0);
    Track& t = sink.tracks[track.v];
    t.kind = TrackKind::Stream;
    t.process = sink.strings.intern("Ascend Hardware");
    t.thread = sink.strings.intern("Stream 0");
    t.processLabel = sink.strings.intern("NPU 0");
    t.device = 0;
    t.streamId = 0;

    KernelTable& k = sink.kernels;
    const std::size_t mUtil = metricColumn(k, "cube_utilization(%)");
    const std::size_t mL2 = metricColumn(k, "l2_hit_rate");
    const std::size_t mRead = metricColumn(k, "memory_read_bytes");
    const std::size_t mWrite = metricColumn(k, "memory_write_bytes");
    const NameId empty = sink.strings.intern("");
    const NameId aiCore = sink.strings.intern("AI_CORE");

    std::size_t index = 0;
    auto bad = [&](std::size_t i, const std::string& why) {
        ++rec.skipped;
        sink.report(Severity::Warning, ctx.file, -1, -1, "tasks[" + std::to_string(i) + "] skipped: " + why);
    };
    // A rate is 0..1; a value above 1 is a percentage.
    auto rate = [](std::optional<double> v) -> double {
        if (!v || !std::isfinite(*v))
            return kNaN;
        return *v > 1.0 ? *v / 100.0 : *v;
    };
    for (auto item : tasks) {
        const std::size_t i = index++;
        od::object obj;
        if (item.get_object().get(obj)) {
            bad(i, "not an object");
            if (item.error() != simdjson::INCORRECT_TYPE)
                break; // structural error: nothing after it can be trusted
            continue;
        }
        std::string_view name;
        std::optional<TimeNs> start, end;
        std::optional<double> util, l2, rd, wr;
        bool broken = false;
        for (auto fr : obj) {
            od::field f;
            if (std::move(fr).get(f)) {
                broken = true;
                break;
            }
            std::string_view key;
            if (f.unescaped_key().get(key)) {
                broken = true;
                break;
            }
            od::value v = f.value();
            if (key == "name") {
                if (v.get_string().get(name))
                    name = tokenText(v);
            } else if (key == "start_time") {
                start = parseMillisToNs(tokenText(v));
            } else if (key == "end_time") {
                end = parseMillisToNs(tokenText(v));
            } else if (key == "ai_core_utilization") {
                util = parseDouble(tokenText(v));
            } else if (key == "l2_cache_hit_rate") {
                l2 = parseDouble(tokenText(v));
            } else if (key == "memory_read_bytes") {
                rd = parseDouble(tokenText(v));
            } else if (key == "memory_write_bytes") {
                wr = parseDouble(tokenText(v));
            }
        }
        if (broken) {
            bad(i, "malformed object");
            break;
        }
        if (!start || !end) {
            bad(i, !start ? "missing or unreadable start_time" : "missing or unreadable end_time");
            continue;
        }
        if (*end < *start) {
            bad(i, "end_time before start_time");
            continue;
        }
        const NameId n = sink.strings.intern(name);
        const std::uint32_t row = sink.slices.add(*start, *end - *start, n, aiCore, track);
        sink.slices.kernel[row] = static_cast<std::uint32_t>(k.size());
        addKernelRow(k, *start, *end - *start, n, aiCore, empty, row);
        const double u = rate(util);
        const std::size_t kr = k.size() - 1;
        k.metrics[mUtil].set(kr, std::isnan(u) ? kNaN : u * 100.0);
        k.metrics[mL2].set(kr, rate(l2));
        k.metrics[mRead].set(kr, rd.value_or(kNaN));
        k.metrics[mWrite].set(kr, wr.value_or(kNaN));
        ++rec.records;
    }
    if (rec.skipped > 0)
        rec.status = FileStatus::Partial;
    if (rec.records == 0 && rec.skipped > 0)
        rec.status = FileStatus::Failed;
    rec.note = std::to_string(rec.records) + " tasks";
    return rec;
}

} // namespace npuscope::readers
