// Small JSON side files (FORMATS.md §4): communication[_matrix].json, their cluster forms,
// info.json, profiler_info.json, profiler_metadata.json. They are kilobytes to a few megabytes,
// so a DOM is fine; only "Start Timestamp(us)" needs its number kept as text (µs with 3 decimals
// and ~16 significant digits does not survive a double).
#include "model/formats/number_text.h"
#include "model/formats/readers.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <limits>

namespace npuscope::readers {

namespace {

// Key order matters (ops and links are listed as the profiler wrote them): ordered DOM.
using json = nlohmann::ordered_json;

constexpr std::string_view kStartKey = "Start Timestamp(us)";

// Builds a DOM like nlohmann::json::parse, except that a float under "Start Timestamp(us)" is
// stored as its raw text. On a parse error the partial DOM stays usable (truncated files keep
// every complete op).
class RawTimestampSax {
public:
    explicit RawTimestampSax(json& root) : m_root(root) {}

    bool null() { return put(json(nullptr)); }
    bool boolean(bool v) { return put(json(v)); }
    bool number_integer(json::number_integer_t v) { return put(json(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return put(json(v)); }
    bool number_float(json::number_float_t v, const json::string_t& raw)
    {
        if (!m_stack.empty() && m_stack.back()->is_object() && m_key == kStartKey)
            return put(json(raw));
        return put(json(v));
    }
    bool string(json::string_t& v) { return put(json(std::move(v))); }
    bool binary(json::binary_t&) { return put(json(nullptr)); }
    bool start_object(std::size_t)
    {
        json* p = slot();
        *p = json::object();
        m_stack.push_back(p);
        return true;
    }
    bool key(json::string_t& k)
    {
        m_key = k;
        return true;
    }
    bool end_object()
    {
        m_stack.pop_back();
        return true;
    }
    bool start_array(std::size_t)
    {
        json* p = slot();
        *p = json::array();
        m_stack.push_back(p);
        return true;
    }
    bool end_array()
    {
        m_stack.pop_back();
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex)
    {
        m_errorAt = static_cast<std::int64_t>(position);
        m_error = ex.what();
        return false;
    }

    std::int64_t errorAt() const { return m_errorAt; }
    const std::string& error() const { return m_error; }

private:
    json* slot()
    {
        if (m_stack.empty())
            return &m_root;
        json& top = *m_stack.back();
        if (top.is_array()) {
            top.push_back(nullptr);
            return &top.back();
        }
        return &top[m_key];
    }
    bool put(json v)
    {
        *slot() = std::move(v);
        return true;
    }

    json& m_root;
    std::vector<json*> m_stack;
    std::string m_key;
    std::int64_t m_errorAt = -1;
    std::string m_error;
};

// Parses bytes; reports a parse error (keeping the partial DOM). Returns false when nothing usable.
bool parseJson(std::string_view bytes, json& out, FileRecord& rec, const ReadContext& ctx,
               const std::function<void(Severity, std::int64_t, std::string)>& report)
{
    rec.path = ctx.file;
    rec.bytes = bytes.size();
    if (bytes.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        rec.status = FileStatus::Failed;
        rec.note = "empty file";
        report(Severity::Error, 0, "empty file");
        return false;
    }
    RawTimestampSax sax(out);
    json::sax_parse(bytes.begin(), bytes.end(), &sax);
    if (sax.errorAt() >= 0) {
        report(Severity::Warning, sax.errorAt(), "JSON parse error, kept what was complete: " + sax.error());
        rec.status = FileStatus::Partial;
        rec.note = "parse error at byte " + std::to_string(sax.errorAt());
        ++rec.skipped;
        if (!out.is_object() && !out.is_array()) {
            rec.status = FileStatus::Failed;
            return false;
        }
    }
    return true;
}

double num(const json& o, const char* key)
{
    if (!o.is_object())
        return kNaN;
    auto it = o.find(key);
    if (it == o.end())
        return kNaN;
    if (it->is_number())
        return it->get<double>();
    if (it->is_string())
        return parseDouble(it->get_ref<const std::string&>()).value_or(kNaN);
    return kNaN;
}

std::optional<TimeNs> microsText(const json& o, std::string_view key)
{
    if (!o.is_object())
        return std::nullopt;
    auto it = o.find(key);
    if (it == o.end())
        return std::nullopt;
    if (it->is_string())
        return parseMicrosToNs(it->get_ref<const std::string&>());
    if (it->is_number_unsigned()) {
        const auto us = it->get<std::uint64_t>();
        if (us > static_cast<std::uint64_t>(std::numeric_limits<TimeNs>::max() / 1000))
            return std::nullopt; // beyond ±292 years in ns: not a time
        return static_cast<TimeNs>(us) * 1000;
    }
    if (it->is_number_integer()) {
        const auto us = it->get<std::int64_t>();
        constexpr TimeNs kLimit = std::numeric_limits<TimeNs>::max() / 1000;
        if (us > kLimit || us < -kLimit)
            return std::nullopt;
        return us * 1000;
    }
    if (it->is_number_float())
        return microsDoubleToNs(it->get<double>());
    return std::nullopt;
}

void splitName(const std::string& full, std::string& op, std::string& group)
{
    const auto at = full.find('@');
    op = full.substr(0, at);
    group = at == std::string::npos ? std::string() : full.substr(at + 1);
}

bool isOpObject(const json& v)
{
    return v.is_object() && (v.contains("Communication Time Info") || v.contains("Communication Bandwidth Info"));
}

CommOp makeOp(const json& v, const std::string& fullName, StringPool& pool)
{
    CommOp op;
    op.fullName = fullName;
    op.totalInfo = fullName == "Total Op Info";
    splitName(fullName, op.opName, op.group);
    const json& ti = v.contains("Communication Time Info") ? v["Communication Time Info"] : json::object();
    op.start = microsText(ti, kStartKey);
    op.elapseMs = num(ti, "Elapse Time(ms)");
    op.transitMs = num(ti, "Transit Time(ms)");
    op.waitMs = num(ti, "Wait Time(ms)");
    op.syncMs = num(ti, "Synchronization Time(ms)");
    op.idleMs = num(ti, "Idle Time(ms)");
    op.waitRatio = num(ti, "Wait Time Ratio");
    op.syncRatio = num(ti, "Synchronization Time Ratio");
    if (auto bi = v.find("Communication Bandwidth Info"); bi != v.end() && bi->is_object()) {
        for (const auto& [transport, b] : bi->items()) {
            CommBandwidth cb;
            cb.transport = pool.intern(transport);
            cb.sizeMB = num(b, "Transit Size(MB)");
            cb.timeMs = num(b, "Transit Time(ms)");
            cb.bandwidthGBps = num(b, "Bandwidth(GB/s)");
            cb.largePacketRatio = num(b, "Large Packet Ratio");
            // "Total Op Info" omits the bandwidth: MB/ms = GB/s; 0 when no time was spent.
            if (std::isnan(cb.bandwidthGBps) && !std::isnan(cb.sizeMB) && !std::isnan(cb.timeMs))
                cb.bandwidthGBps = cb.timeMs > 0 ? cb.sizeMB / cb.timeMs : 0.0;
            if (auto sd = b.find("Size Distribution"); sd != b.end() && sd->is_object()) {
                for (const auto& [size, pair] : sd->items()) {
                    SizeBucket sb;
                    sb.sizeMB = size;
                    if (pair.is_array() && pair.size() >= 2 && pair[0].is_number() && pair[1].is_number()) {
                        sb.count = pair[0].get<double>();
                        sb.timeMs = pair[1].get<double>();
                    }
                    cb.sizes.push_back(std::move(sb));
                }
            }
            op.bandwidth.push_back(std::move(cb));
        }
    }
    return op;
}

// Visits every op object with the keys leading to it.
template <typename F>
void walkOps(const json& node, std::vector<std::string>& path, int depth, F&& visit)
{
    if (!node.is_object() || depth > 6)
        return;
    for (const auto& [k, v] : node.items()) {
        path.push_back(k);
        if (isOpObject(v))
            visit(v, path);
        else
            walkOps(v, path, depth + 1, visit);
        path.pop_back();
    }
}

bool isLinkKey(const std::string& k, int& src, int& dst)
{
    const auto dash = k.find('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 >= k.size())
        return false;
    auto r1 = std::from_chars(k.data(), k.data() + dash, src);
    auto r2 = std::from_chars(k.data() + dash + 1, k.data() + k.size(), dst);
    return r1.ec == std::errc() && r1.ptr == k.data() + dash && r2.ec == std::errc() &&
           r2.ptr == k.data() + k.size();
}

// Visits every "<src>-<dst>" link object with the keys above it (op name last).
template <typename F>
void walkLinks(const json& node, std::vector<std::string>& path, int depth, F&& visit)
{
    if (!node.is_object() || depth > 6)
        return;
    for (const auto& [k, v] : node.items()) {
        int src = -1, dst = -1;
        if (v.is_object() && isLinkKey(k, src, dst) && (v.contains("Transport Type") || v.contains("Transit Size(MB)"))) {
            visit(v, path, src, dst);
            continue;
        }
        path.push_back(k);
        walkLinks(v, path, depth + 1, visit);
        path.pop_back();
    }
}

bool isKindKey(const std::string& k)
{
    return k == "p2p" || k == "collective";
}

// Profile files: [step, kind, op], [kind, op], [step, op] or [op] (msprof analyze/).
void placeProfileOp(const std::vector<std::string>& levels, std::string& step, std::string& kind)
{
    for (const auto& l : levels) {
        if (isKindKey(l))
            kind = l;
        else if (step.empty())
            step = l;
    }
}

CommLink makeLink(const json& v, int src, int dst, StringPool& pool)
{
    CommLink l;
    l.src = src;
    l.dst = dst;
    if (auto t = v.find("Transport Type"); t != v.end() && t->is_string())
        l.transport = pool.intern(t->get_ref<const std::string&>());
    else
        l.transport = NameId(0);
    l.sizeMB = num(v, "Transit Size(MB)");
    l.timeMs = num(v, "Transit Time(ms)");
    l.bandwidthGBps = num(v, "Bandwidth(GB/s)");
    return l;
}

std::function<void(Severity, std::int64_t, std::string)> profileReport(Profile& p, const ReadContext& ctx)
{
    return [&p, &ctx](Severity s, std::int64_t off, std::string reason) {
        p.report(s, ctx.file, -1, off, std::move(reason));
    };
}

std::function<void(Severity, std::int64_t, std::string)> vectorReport(std::vector<Diagnostic>& d,
                                                                      const ReadContext& ctx)
{
    return [&d, &ctx](Severity s, std::int64_t off, std::string reason) {
        d.push_back(Diagnostic{s, ctx.file, -1, off, std::move(reason), 1});
    };
}

std::string textOf(const json& v)
{
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_null())
        return {};
    return v.dump();
}

void finishRecord(FileRecord& rec)
{
    if (rec.status == FileStatus::Loaded && rec.records == 0)
        rec.note = "no records";
}

} // namespace

FileRecord readCommunicationJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "communication";
    json root;
    if (!parseJson(bytes, root, rec, ctx, profileReport(sink, ctx)))
        return rec;
    std::vector<std::string> path;
    walkOps(root, path, 0, [&](const json& v, const std::vector<std::string>& p) {
        CommOp op = makeOp(v, p.back(), sink.strings);
        placeProfileOp(std::vector<std::string>(p.begin(), p.end() - 1), op.step, op.kind);
        sink.commOps.push_back(std::move(op));
        ++rec.records;
    });
    finishRecord(rec);
    return rec;
}

FileRecord readCommunicationMatrixJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "communication_matrix";
    json root;
    if (!parseJson(bytes, root, rec, ctx, profileReport(sink, ctx)))
        return rec;
    std::vector<std::string> path;
    walkLinks(root, path, 0, [&](const json& v, const std::vector<std::string>& p, int src, int dst) {
        CommLink l = makeLink(v, src, dst, sink.strings);
        if (!p.empty()) {
            l.fullName = p.back();
            splitName(l.fullName, l.opName, l.group);
            placeProfileOp(std::vector<std::string>(p.begin(), p.end() - 1), l.step, l.kind);
        }
        sink.commLinks.push_back(std::move(l));
        ++rec.records;
    });
    finishRecord(rec);
    return rec;
}

FileRecord readClusterCommunicationJson(std::string_view bytes, ClusterData& sink, std::vector<Diagnostic>& diags,
                                        const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "cluster_communication";
    json root;
    if (!parseJson(bytes, root, rec, ctx, vectorReport(diags, ctx)))
        return rec;
    std::vector<std::string> path;
    // {"<group>": {"<step>": {"<op>": {"<rank>": OP}}}}
    walkOps(root, path, 0, [&](const json& v, const std::vector<std::string>& p) {
        if (p.size() < 2)
            return;
        CommOp op = makeOp(v, p[p.size() - 2], sink.strings);
        op.rank = parseInt64(p.back()).value_or(-1);
        if (p.size() >= 4) {
            op.kind = p[p.size() - 4];
            op.step = p[p.size() - 3];
        } else if (p.size() == 3) {
            op.kind = p[0];
        }
        sink.comm.push_back(std::move(op));
        ++rec.records;
    });
    finishRecord(rec);
    return rec;
}

FileRecord readClusterCommunicationMatrixJson(std::string_view bytes, ClusterData& sink,
                                              std::vector<Diagnostic>& diags, const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "cluster_communication_matrix";
    json root;
    if (!parseJson(bytes, root, rec, ctx, vectorReport(diags, ctx)))
        return rec;
    std::vector<std::string> path;
    // {"<group>": {"<step>": {"<op>": {"<src>-<dst>": link}}}}
    walkLinks(root, path, 0, [&](const json& v, const std::vector<std::string>& p, int src, int dst) {
        CommLink l = makeLink(v, src, dst, sink.strings);
        if (!p.empty()) {
            l.fullName = p.back();
            splitName(l.fullName, l.opName, l.group);
        }
        if (p.size() >= 3) {
            l.kind = p[p.size() - 3];
            l.step = p[p.size() - 2];
        }
        sink.links.push_back(std::move(l));
        ++rec.records;
    });
    finishRecord(rec);
    return rec;
}

FileRecord readInfoJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "info";
    json root;
    if (!parseJson(bytes, root, rec, ctx, profileReport(sink, ctx)))
        return rec;
    auto devices = root.is_object() ? root.find("DeviceInfo") : root.end();
    if (!root.is_object() || devices == root.end() || !devices->is_array()) {
        rec.status = FileStatus::Failed;
        rec.note = "no DeviceInfo array";
        sink.report(Severity::Error, ctx.file, -1, -1, "missing 'DeviceInfo' in " + ctx.file);
        return rec;
    }
    for (const auto& d : *devices) {
        if (!d.is_object())
            continue;
        DeviceInfo info;
        info.device = ctx.device;
        if (auto id = d.find("id"); id != d.end()) {
            if (id->is_number_integer())
                info.device = id->get<int>();
            else if (id->is_string())
                info.device = static_cast<int>(parseInt64(id->get_ref<const std::string&>()).value_or(ctx.device));
        }
        const double cores = num(d, "ai_core_num");
        info.aiCoreNum = std::isnan(cores) ? -1 : static_cast<int>(cores);
        const double aiv = num(d, "aiv_num");
        info.aivNum = std::isnan(aiv) ? -1 : static_cast<int>(aiv);
        info.aicFrequencyMHz = num(d, "aic_frequency");
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
    finishRecord(rec);
    return rec;
}

FileRecord readProfilerInfoJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "profiler_info";
    json root;
    if (!parseJson(bytes, root, rec, ctx, profileReport(sink, ctx)))
        return rec;
    if (!root.is_object()) {
        rec.status = FileStatus::Failed;
        rec.note = "not a JSON object";
        return rec;
    }
    if (auto r = root.find("rank_id"); r != root.end() && r->is_number_integer())
        sink.rank = r->get<int>();
    const json* exp = nullptr;
    if (auto c = root.find("config"); c != root.end() && c->is_object())
        if (auto e = c->find("experimental_config"); e != c->end() && e->is_object())
            exp = &*e;
    if (exp) {
        if (auto l = exp->find("_profiler_level"); l != exp->end())
            sink.meta.profilerLevel = textOf(*l);
        if (auto t = exp->find("_export_type"); t != exp->end()) {
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
    return rec;
}

FileRecord readProfilerMetadataJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "profiler_metadata";
    json root;
    if (!parseJson(bytes, root, rec, ctx, profileReport(sink, ctx)))
        return rec;
    if (!root.is_object()) {
        rec.status = FileStatus::Failed;
        rec.note = "not a JSON object";
        return rec;
    }
    if (auto env = root.find("ENV_VARIABLES"); env != root.end() && env->is_object())
        for (const auto& [k, v] : env->items())
            sink.meta.env[k] = textOf(v);
    if (auto g = root.find("parallel_group_info"); g != root.end() && g->is_object()) {
        for (const auto& [k, v] : g->items()) {
            ParallelGroup pg;
            pg.name = k;
            if (v.is_object()) {
                if (auto n = v.find("group_name"); n != v.end())
                    pg.groupName = textOf(*n);
                if (auto r = v.find("global_ranks"); r != v.end() && r->is_array())
                    for (const auto& x : *r)
                        if (x.is_number_integer())
                            pg.ranks.push_back(x.get<int>());
            }
            sink.meta.groups.push_back(std::move(pg));
        }
    }
    if (auto d = root.find("distributed_args"); d != root.end() && d->is_object())
        if (auto r = d->find("rank"); r != d->end() && r->is_number_integer() && sink.rank < 0)
            sink.rank = r->get<int>();
    sink.meta.profilerMetadata = nlohmann::json(root);
    rec.records = 1;
    return rec;
}

} // namespace npuscope::readers
