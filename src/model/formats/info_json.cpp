// The small JSON side files that describe a rank (FORMATS.md §4): info.json (the devices),
// profiler_info.json (rank, level, export type, versions) and profiler_metadata.json (environment,
// parallel groups). They are read with the DOM only (side_json_dom.h).
#include "model/formats/side_json_dom.h"

#include <limits>

namespace npuscope::readers {

using namespace sidejson;

FileRecord readInfoJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    return readJsonDom(bytes, sink, ctx, [&](json& root, FileRecord& rec) {
        auto devices = root.is_object() ? root.find("DeviceInfo") : root.end();
        if (!root.is_object() || devices == root.end() || !devices->is_array()) {
            rec.status = FileStatus::Failed;
            rec.note = "no DeviceInfo array";
            sink.report(Severity::Error, ctx.file, -1, -1, "missing 'DeviceInfo' in " + ctx.file);
            return;
        }
        UnreadableValues bad;
        for (const auto& d : *devices) {
            if (!d.is_object())
                continue;
            DeviceInfo info;
            info.device = ctx.device;
            if (auto id = d.find("id"); id != d.end()) {
                if (id->is_number_integer())
                    info.device = deviceIdOf(id->get<std::int64_t>());
                else if (id->is_string())
                    info.device = deviceIdOf(parseInt64(id->get_ref<const std::string&>()).value_or(ctx.device));
            }
            // Core counts: -1 when absent or not a plausible count (NaN, negative, 1e300).
            auto count = [](double v) { return v >= 0 && v < 1e6 ? static_cast<int>(v) : -1; };
            bad.record = "DeviceInfo";
            info.aiCoreNum = count(num(d, "ai_core_num", bad));
            info.aivNum = count(num(d, "aiv_num", bad));
            info.aicFrequencyMHz = num(d, "aic_frequency", bad);
            // Not written by msprof: the HBM peak of a generated profile (npuscope synth), which the
            // SQLite export of the same profile would otherwise replace by its chip's default.
            if (d.contains("hbm_peak_gbps"))
                if (const double peak = num(d, "hbm_peak_gbps", bad); peak > 0)
                    info.hbmPeakGBps = peak;
            for (const char* k : {"chip_name", "chip", "soc_version", "platform_name"}) {
                if (auto c = d.find(k); c != d.end() && c->is_string() && !c->get_ref<const std::string&>().empty()) {
                    info.chip = c->get<std::string>();
                    break;
                }
                if (auto c = root.find(k); c != root.end() && c->is_string() && !c->get_ref<const std::string&>().empty()) {
                    info.chip = c->get<std::string>();
                    break;
                }
            }
            sink.deviceInfo.push_back(std::move(info));
            ++rec.records;
        }
        bad.report(sink.diagnostics, ctx.file);
        finishRecord(rec, bad);
    });
}

namespace {

// The member `key` of `object`, or null; when it is missing, a key one character off it is
// noted in `bad` (a damaged byte: not read as it).
const json* memberOrNearMiss(const json& object, std::string_view key, UnreadableValues& bad)
{
    if (!object.is_object())
        return nullptr;
    if (const auto it = object.find(key); it != object.end())
        return &*it;
    bad.noteIfNearMiss(DomNode(&object), key);
    return nullptr;
}

// The rank a JSON value holds (a whole number from 0 to INT_MAX), or -1 for anything else. A
// number past 2^63 is unsigned to the parser and is no rank (read as int64 it would wrap).
int rankValue(const json& v)
{
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())
                   ? static_cast<int>(v.get<std::uint64_t>())
                   : -1;
    return v.is_number_integer() ? rankOf(v.get<std::int64_t>()) : -1;
}

} // namespace

FileRecord readProfilerInfoJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    return readJsonObject(bytes, sink, ctx, [&](json& root, FileRecord& rec) {
        // A damaged byte in a key or in the rank is said: the rank then comes from the file's name
        // (profiler_info_<N>.json), and a level or export type read as missing changes what the
        // advisor can check.
        UnreadableValues bad;
        bad.record = "profiler_info";
        if (const json* rank = memberOrNearMiss(root, "rank_id", bad)) {
            const bool single = rank->is_number_integer() && !rank->is_number_unsigned() && rank->get<std::int64_t>() == -1;
            if (const int value = rankValue(*rank); value >= 0 || single)
                sink.rank = value; // single-device runs write -1
            else
                bad.note(DomNode(rank), "rank_id");
        }
        const json* exp = nullptr;
        if (const json* c = memberOrNearMiss(root, "config", bad); c && c->is_object())
            if (const json* e = memberOrNearMiss(*c, "experimental_config", bad); e && e->is_object())
                exp = e;
        if (exp) {
            if (const json* l = memberOrNearMiss(*exp, "_profiler_level", bad))
                sink.meta.profilerLevel = textOf(*l);
            if (const json* t = memberOrNearMiss(*exp, "_export_type", bad)) {
                // Newer versions write a list (["text"]).
                sink.meta.exportType = t->is_array() && !t->empty() ? textOf(t->front()) : textOf(*t);
            }
        }
        for (const auto& [k, v] : root.items()) {
            if (k.find("cann") != std::string::npos && k.find("version") != std::string::npos)
                sink.meta.cannVersion = textOf(v);
            else if (k.find("torch_npu") != std::string::npos && k.find("version") != std::string::npos)
                sink.meta.torchNpuVersion = textOf(v);
        }
        sink.meta.profilerInfo = nlohmann::json(root);
        rec.records = 1;
        bad.report(sink.diagnostics, ctx.file);
    });
}

FileRecord readProfilerMetadataJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    return readJsonObject(bytes, sink, ctx, [&](json& root, FileRecord& rec) {
        // Every member is optional (level-0 files hold ENV_VARIABLES alone); a key one character off
        // one of them, or a rank that is not one, is said.
        UnreadableValues bad;
        bad.record = "profiler_metadata";
        if (const json* env = memberOrNearMiss(root, "ENV_VARIABLES", bad); env && env->is_object())
            for (const auto& [k, v] : env->items())
                sink.meta.env[k] = textOf(v);
        if (const json* g = memberOrNearMiss(root, "parallel_group_info", bad); g && g->is_object()) {
            for (const auto& [k, v] : g->items()) {
                ParallelGroup pg;
                pg.name = k;
                bad.record = k;
                if (v.is_object()) {
                    if (const json* n = memberOrNearMiss(v, "group_name", bad))
                        pg.groupName = textOf(*n);
                    if (const json* r = memberOrNearMiss(v, "global_ranks", bad); r && r->is_array())
                        for (const auto& x : *r) {
                            if (const int rank = rankValue(x); rank >= 0)
                                pg.ranks.push_back(rank);
                            else
                                bad.note(DomNode(&x), "global_ranks");
                        }
                }
                sink.meta.groups.push_back(std::move(pg));
            }
            bad.record = "profiler_metadata";
        }
        if (const json* d = memberOrNearMiss(root, "distributed_args", bad); d && d->is_object()) {
            bad.record = "distributed_args";
            if (const json* r = memberOrNearMiss(*d, "rank", bad)) {
                const int rank = rankValue(*r);
                if (rank < 0)
                    bad.note(DomNode(r), "rank");
                else if (sink.rank < 0)
                    sink.rank = rank;
            }
        }
        sink.meta.profilerMetadata = nlohmann::json(root);
        rec.records = 1;
        bad.report(sink.diagnostics, ctx.file);
    });
}

} // namespace npuscope::readers
