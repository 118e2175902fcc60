#include "model/analysis/chrome_export.h"

#include "model/analysis/atomic_file.h"
#include "model/store/safe_text.h"
#include "model/store/input_problems.h"
#include "model/analysis/units.h"

#include <charconv>
#include <cstdlib>
#include <stdio.h>
#include <cmath>
#include <map>
#include <set>
#include <vector>

namespace npuscope {

namespace {

void appendEscaped(std::string& out, std::string_view raw)
{
    // Names are byte-exact in the model; JSON needs UTF-8 (invalid bytes become U+FFFD).
    std::string repaired;
    std::string_view s = raw;
    if (!text::isValidUtf8(raw)) {
        repaired = text::validUtf8(raw);
        s = repaired;
    }
    out.push_back('"');
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out.push_back(ch);
            }
        }
    }
    out.push_back('"');
}

void appendInt(std::string& out, std::int64_t v)
{
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

// Shortest text that reads back as the same double.
void appendDouble(std::string& out, double v)
{
    char buf[40];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

class Writer {
public:
    explicit Writer(std::FILE* f) : m_f(f) {}
    std::string& line()
    {
        m_buf += m_first ? "\n" : ",\n";
        m_first = false;
        return m_buf;
    }
    void raw(std::string_view s) { m_buf += s; }
    bool flush(bool force = false)
    {
        if (!force && m_buf.size() < (1u << 20))
            return m_ok;
        if (!m_buf.empty() && std::fwrite(m_buf.data(), 1, m_buf.size(), m_f) != m_buf.size())
            m_ok = false;
        m_buf.clear();
        return m_ok;
    }
    bool ok() const { return m_ok; }

private:
    std::FILE* m_f;
    std::string m_buf;
    bool m_first = true;
    bool m_ok = true;
};

struct RankMap {
    bool remap = false;
    std::size_t rankIndex = 0;
    int rank = -1;
    std::map<std::int64_t, std::int64_t> pids;
    std::int64_t pid(std::int64_t raw)
    {
        if (!remap)
            return raw;
        auto [it, inserted] = pids.try_emplace(raw, 0);
        if (inserted)
            it->second = static_cast<std::int64_t>(rankIndex + 1) * 1000000 + static_cast<std::int64_t>(pids.size() - 1);
        return it->second;
    }
};

void meta(Writer& w, const char* what, std::int64_t pid, const std::int64_t* tid, const char* key, std::string_view text,
          const int* number)
{
    std::string& o = w.line();
    o += "{\"ph\":\"M\",\"name\":\"";
    o += what;
    o += "\",\"pid\":";
    appendInt(o, pid);
    if (tid) {
        o += ",\"tid\":";
        appendInt(o, *tid);
    }
    o += ",\"args\":{\"";
    o += key;
    o += "\":";
    if (number)
        appendInt(o, *number);
    else
        appendEscaped(o, text);
    o += "}}";
}

// Tracks in the order a reader creates them from our own output (first slice, then first flow
// end), so that exporting a re-import reproduces the same bytes. Tracks with neither slices nor
// flows have nothing to show and are left out.
std::vector<std::uint32_t> trackOrder(const Profile& p)
{
    std::vector<std::uint32_t> order;
    std::vector<bool> taken(p.tracks.size(), false);
    auto take = [&](std::uint32_t t) {
        if (t < taken.size() && !taken[t]) {
            taken[t] = true;
            order.push_back(t);
        }
    };
    for (std::size_t i = 0; i < p.slices.size(); ++i)
        take(p.slices.track[i].v);
    for (std::size_t i = 0; i < p.flows.size(); ++i) {
        take(p.flows.srcTrack[i].v);
        take(p.flows.dstTrack[i].v);
    }
    return order;
}

// False, with `argError` set, when arguments kept in the trace file could not be read again.
bool writeProfile(Writer& w, const Profile& p, RankMap& rm, std::string& argError)
{
    const std::vector<std::uint32_t> order = trackOrder(p);
    // Processes in order of first appearance among tracks, then counters.
    std::set<std::int64_t> named;
    for (const std::uint32_t ti : order) {
        const Track& t = p.tracks[ti];
        if (!named.insert(t.pid).second)
            continue;
        const std::int64_t pid = rm.pid(t.pid);
        meta(w, "process_name", pid, nullptr, "name", p.str(t.process), nullptr);
        std::string label(p.str(t.processLabel));
        if (rm.remap)
            label = label.empty() ? "rank " + std::to_string(rm.rank) : label + ", rank " + std::to_string(rm.rank);
        if (!label.empty())
            meta(w, "process_labels", pid, nullptr, "labels", label, nullptr);
        const int sort = t.processSort + (rm.remap ? static_cast<int>(rm.rankIndex) * 1000 : 0);
        meta(w, "process_sort_index", pid, nullptr, "sort_index", {}, &sort);
    }
    for (const CounterSeries& c : p.counters) {
        if (!named.insert(c.pid).second)
            continue;
        const std::int64_t pid = rm.pid(c.pid);
        meta(w, "process_name", pid, nullptr, "name", p.str(c.process), nullptr);
        if (rm.remap)
            meta(w, "process_labels", pid, nullptr, "labels", "rank " + std::to_string(rm.rank), nullptr);
    }
    for (const std::uint32_t ti : order) {
        const Track& t = p.tracks[ti];
        const std::int64_t pid = rm.pid(t.pid);
        if (!p.str(t.thread).empty())
            meta(w, "thread_name", pid, &t.tid, "name", p.str(t.thread), nullptr);
        meta(w, "thread_sort_index", pid, &t.tid, "sort_index", {}, &t.threadSort);
    }
    w.flush();

    const SliceTable& s = p.slices;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const Track& t = p.tracks[s.track[i].v];
        std::string& o = w.line();
        o += "{\"ph\":\"X\",\"pid\":";
        appendInt(o, rm.pid(t.pid));
        o += ",\"tid\":";
        appendInt(o, t.tid);
        o += ",\"ts\":";
        o += nsToMicrosText(s.start[i]);
        o += ",\"dur\":";
        o += nsToMicrosText(s.dur[i]);
        o += ",\"name\":";
        appendEscaped(o, p.str(s.name[i]));
        const std::string_view cat = p.str(s.category[i]);
        if (!cat.empty()) {
            o += ",\"cat\":";
            appendEscaped(o, cat);
        }
        const bool device = t.kind == TrackKind::Stream;
        const bool hasArgs = p.args.hasArgs(s.args[i]);
        if (device || hasArgs) {
            o += ",\"args\":{";
            bool first = true;
            auto key = [&](std::string_view k) {
                if (!first)
                    o += ',';
                first = false;
                appendEscaped(o, k);
                o += ':';
            };
            if (device) {
                if (!cat.empty()) {
                    key("Task Type");
                    appendEscaped(o, cat);
                }
                if (s.taskId[i] != kNone) {
                    key("Task Id");
                    appendInt(o, s.taskId[i]);
                }
            }
            if (hasArgs && !p.args.forEach(s.args[i], p.strings, [&](std::string_view k, std::string_view v) {
                    if (device && (k == "Task Type" || k == "Task Id"))
                        return;
                    key(k);
                    appendEscaped(o, v);
                }, &argError))
                return false; // a trace without some events' arguments would pass for whole
            o += '}';
        }
        o += '}';
        w.flush();
    }

    const FlowTable& f = p.flows;
    for (std::size_t i = 0; i < f.size(); ++i) {
        for (int end = 0; end < 2; ++end) {
            const TrackId tr = end == 0 ? f.srcTrack[i] : f.dstTrack[i];
            const Track* t = tr.valid() && tr.v < p.tracks.size() ? &p.tracks[tr.v] : nullptr;
            std::string& o = w.line();
            o += end == 0 ? "{\"ph\":\"s\",\"id\":" : "{\"ph\":\"f\",\"id\":";
            appendEscaped(o, f.idOf(i, p.strings));
            o += ",\"pid\":";
            appendInt(o, t ? rm.pid(t->pid) : 0);
            o += ",\"tid\":";
            appendInt(o, t ? t->tid : 0);
            o += ",\"ts\":";
            o += nsToMicrosText(end == 0 ? f.srcTs[i] : f.dstTs[i]);
            o += ",\"name\":";
            appendEscaped(o, f.nameOf(i, p.strings));
            o += ",\"cat\":";
            appendEscaped(o, p.str(f.category[i]));
            if (end == 1)
                o += ",\"bp\":\"e\"";
            o += '}';
        }
        w.flush();
    }

    for (const CounterSeries& c : p.counters) {
        const std::int64_t pid = rm.pid(c.pid);
        for (std::size_t i = 0; i < c.ts.size(); ++i) {
            if (!std::isfinite(c.value[i]))
                continue; // JSON has no NaN; a gap is a missing sample
            std::string& o = w.line();
            o += "{\"ph\":\"C\",\"pid\":";
            appendInt(o, pid);
            o += ",\"name\":";
            appendEscaped(o, p.str(c.name));
            o += ",\"ts\":";
            o += nsToMicrosText(c.ts[i]);
            o += ",\"args\":{";
            appendEscaped(o, p.str(c.key));
            o += ':';
            appendDouble(o, c.value[i]);
            o += "}}";
        }
        w.flush();
    }
    return true;
}

} // namespace

bool writeChromeTrace(const Session& s, std::FILE* f, std::string* error)
{
    Writer w(f);
    w.raw("{\"traceEvents\":[");
    for (std::size_t i = 0; i < s.ranks.size(); ++i) {
        RankMap rm;
        rm.remap = s.ranks.size() > 1;
        rm.rankIndex = i;
        rm.rank = s.ranks[i]->rank >= 0 ? s.ranks[i]->rank : static_cast<int>(i);
        if (std::string why; !writeProfile(w, *s.ranks[i], rm, why)) {
            if (error)
                *error = why;
            return false;
        }
    }
    // Viewers skip keys they do not know; the problems travel with the trace.
    w.raw("\n],\"displayTimeUnit\":\"ns\",\"input_problems\":");
    w.raw(text::dumpJson(toJson(inputProblems(s))));
    w.raw("}\n");
    return w.flush(true);
}

std::string chromeTraceJson(const Session& s)
{
    char* data = nullptr;
    std::size_t size = 0;
    std::FILE* f = ::open_memstream(&data, &size);
    if (!f)
        return {};
    writeChromeTrace(s, f);
    std::fclose(f);
    std::string out(data, size);
    std::free(data);
    return out;
}

bool exportChromeTrace(const Session& s, const std::string& path, std::string* error)
{
    std::string argError;
    const bool ok = writeFileAtomically(path, [&](std::FILE* f) { return writeChromeTrace(s, f, &argError); }, error);
    if (!ok && !argError.empty() && error)
        *error = "cannot export " + path + ": " + argError;
    return ok;
}

} // namespace npuscope
