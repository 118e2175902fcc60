// The generator's bytes against the real torch_npu samples of the three profiler levels
// (shared/samples/real/msinsight/test/data/pytorch/text/level{0,1,2}/rank0_ascend_pt). Every
// expected shape is read off the real files here, not copied into the test:
//  - JSON: each event is what Python's json.dump writes for it (", " and ": ", float repr,
//    ensure_ascii), checked first on the real file, then on the generated one; the key order of
//    each event kind and of its args is one the real file has; ids are strings or numbers as
//    there; ts are quoted µs with 3 decimals; one bare "," joins the framework block and the
//    CANN block; the blocks come in the real order; the CANN timeline is sorted by float(ts).
//  - the other JSON files (communication*.json, profiler_info, profiler_metadata, info.json) are
//    json.dump'ed as the real ones (default separators or indent=4), object keys in a real order;
//  - CSV: the files each level writes, their header columns, line ends, Python csv quoting, the
//    columns whose cells end in a TAB, and the kind of text in each column (integer, decimal, N/A,
//    empty, ...).
#include "test_main.h"
#include "file_bytes.h"
#include "model/synth/synth.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace test_synth_shape {

using namespace npuscope;
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

const std::string kLevels = std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text";

std::string realOutput(int level)
{
    return kLevels + "/level" + std::to_string(level) + "/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT";
}

// ---- Python's json.dump, written here independently of the generator --------------------------

// repr(float): the shortest round-trip digits, scientific when the decimal exponent is < -4 or >= 16.
std::string pyFloat(double v)
{
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    const std::string sci(buf, r.ptr);
    const int exp = std::atoi(sci.c_str() + sci.find('e') + 1);
    if (exp < -4 || exp >= 16)
        return sci;
    r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
    std::string fixed(buf, r.ptr);
    if (fixed.find('.') == std::string::npos)
        fixed += ".0";
    return fixed;
}

std::string pyString(const std::string& s)
{
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20 || c >= 0x80) { // the samples and the generator are ASCII
                char b[8];
                std::snprintf(b, sizeof b, "\\u%04x", c);
                out += b;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    return out + "\"";
}

// json.dumps(j) (indent < 0) or json.dumps(j, indent=N)
void pyDump(const Json& j, int indent, int depth, std::string& out)
{
    auto nl = [&](int d) {
        if (indent >= 0)
            out += "\n" + std::string(static_cast<std::size_t>(indent * d), ' ');
    };
    const char* item = indent < 0 ? ", " : ",";
    if (j.is_object()) {
        if (j.empty()) {
            out += "{}";
            return;
        }
        out += '{';
        bool first = true;
        for (const auto& [k, v] : j.items()) {
            if (!first)
                out += item;
            first = false;
            nl(depth + 1);
            out += pyString(k) + ": ";
            pyDump(v, indent, depth + 1, out);
        }
        nl(depth);
        out += '}';
    } else if (j.is_array()) {
        if (j.empty()) {
            out += "[]";
            return;
        }
        out += '[';
        bool first = true;
        for (const auto& v : j) {
            if (!first)
                out += item;
            first = false;
            nl(depth + 1);
            pyDump(v, indent, depth + 1, out);
        }
        nl(depth);
        out += ']';
    } else if (j.is_string()) {
        out += pyString(j.get<std::string>());
    } else if (j.is_number_float()) {
        out += pyFloat(j.get<double>());
    } else {
        out += j.dump(); // integers, true, false, null
    }
}

std::string pyDumps(const Json& j, int indent = -1)
{
    std::string s;
    pyDump(j, indent, 0, s);
    return s;
}

// ---- trace_view.json ------------------------------------------------------------------------------

struct Trace {
    std::string error;                 // first event whose bytes are not json.dumps(event)
    std::vector<std::size_t> bareJoins; // events followed by a bare "," instead of ", "
    std::vector<Json> events;
    std::map<std::int64_t, std::string> procs;
};

Trace readTrace(const std::string& path)
{
    Trace t;
    const std::string raw = fileBytes(path);
    Json all = Json::parse(raw);
    std::size_t pos = 1;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const std::string ev = pyDumps(all[i]);
        if (raw.compare(pos, ev.size(), ev) != 0) {
            t.error = "event " + std::to_string(i) + ": file has " + raw.substr(pos, 160) + "\njson.dumps gives "
                      + ev.substr(0, 160);
            break;
        }
        pos += ev.size();
        if (i + 1 < all.size()) {
            if (raw.compare(pos, 2, ", ") == 0) {
                pos += 2;
            } else if (raw.compare(pos, 1, ",") == 0) {
                t.bareJoins.push_back(i);
                pos += 1;
            } else {
                t.error = "event " + std::to_string(i) + ": no separator after it";
                break;
            }
        }
    }
    if (t.error.empty() && raw.substr(pos) != "]")
        t.error = "trailing bytes after the last event";
    for (auto& e : all)
        if (e["ph"] == "M" && e["name"] == "process_name")
            t.procs[e["pid"].get<std::int64_t>()] = e["args"]["name"].get<std::string>();
    t.events = std::move(all);
    return t;
}

std::string processOf(const Trace& t, const Json& e)
{
    auto it = t.procs.find(e["pid"].get<std::int64_t>());
    if (it == t.procs.end())
        return "(unnamed)";
    // The samples' torch_npu names the communication process "HCCL", newer ones "Communication".
    return it->second == "HCCL" ? "Communication" : it->second;
}

// An event's kind: phase, process (none for metadata), category, metadata name.
std::string kindOf(const Trace& t, const Json& e)
{
    const std::string ph = e["ph"];
    return ph + "|" + (ph == "M" ? std::string() : processOf(t, e)) + "|" + e.value("cat", std::string()) + "|"
           + (ph == "M" ? e["name"].get<std::string>() : std::string());
}

std::string keysOf(const Json& o)
{
    std::string k;
    for (const auto& [key, v] : o.items())
        k += key + ",";
    return k;
}

// Where an event sits in the file: the framework block's parts, then the CANN block's.
std::string blockOf(const Trace& t, const Json& e)
{
    const std::string ph = e["ph"], cat = e.value("cat", std::string());
    const std::string proc = e.contains("pid") ? processOf(t, e) : "";
    if (ph == "M")
        return proc == "Python" ? "python metadata" : "metadata";
    if (cat == "async_npu")
        return "torch_to_npu";
    if (proc == "Python") {
        if (cat == "enqueue" || (cat == "async_task_queue" && ph == "s"))
            return "enqueue";
        if (cat == "dequeue" || (cat == "async_task_queue" && ph == "f"))
            return "dequeue";
        return cat; // cpu_op, fwdbwd, python_function
    }
    return "timeline";
}

struct TraceShape {
    std::map<std::string, std::set<std::string>> keys, args; // per kind: key orders, args key orders
    std::map<std::string, std::set<std::string>> idTypes;    // per kind: "string" / "number"
    std::vector<std::string> blocks;                         // in file order, each once
    bool tsText = true;       // every ts a quoted string
    std::size_t tsCount = 0, ts3 = 0; // ts, and ts of the form "<µs>.<3 digits>"
    bool timelineSorted = true;
    std::size_t bareJoinAt = 0; // the bare "," comes before this block (index in blocks)
};

TraceShape shapeOf(const Trace& t)
{
    TraceShape s;
    double lastTs = -1;
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const Json& e = t.events[i];
        const std::string k = kindOf(t, e);
        s.keys[k].insert(keysOf(e));
        if (e.contains("args") && e["args"].is_object())
            s.args[e["ph"] == "C" ? k + e["name"].get<std::string>() : k].insert(keysOf(e["args"]));
        if (e.contains("id"))
            s.idTypes[k].insert(e["id"].is_string() ? "string" : "number");
        if (e.contains("ts")) {
            s.tsText = s.tsText && e["ts"].is_string();
            const std::string ts = e["ts"].is_string() ? e["ts"].get<std::string>() : "";
            ++s.tsCount;
            s.ts3 += ts.size() > 4 && ts.find('.') == ts.size() - 4 ? 1 : 0;
        }
        const std::string b = blockOf(t, e);
        if (s.blocks.empty() || s.blocks.back() != b)
            s.blocks.push_back(b);
        if (!t.bareJoins.empty() && t.bareJoins.front() + 1 == i)
            s.bareJoinAt = s.blocks.size() - 1;
        if (b == "timeline" && s.tsText) {
            // sorted by float(ts): the real files have ts out of order by less than its resolution
            const double us = std::strtod(e["ts"].get<std::string>().c_str(), nullptr);
            s.timelineSorted = s.timelineSorted && us >= lastTs;
            lastTs = us;
        }
    }
    return s;
}

// ---- CSV --------------------------------------------------------------------------------------

struct Csv {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::set<std::string> lineEnds;   // "CRLF" / "LF"
    std::string quotingError;         // a cell quoted when Python's csv would not, or the reverse
};

Csv readCsv(const std::string& path)
{
    Csv c;
    const std::string text = fileBytes(path);
    std::vector<std::string> row;
    std::string cell;
    bool quoted = false, wasQuoted = false;
    auto endCell = [&] {
        // csv.QUOTE_MINIMAL quotes a cell holding the delimiter, the quote or a line break.
        const bool needs = cell.find_first_of(",\"\r\n") != std::string::npos;
        if (needs != wasQuoted && c.quotingError.empty())
            c.quotingError = "row " + std::to_string(c.rows.size()) + " cell '" + cell.substr(0, 40) + "' "
                             + (wasQuoted ? "quoted" : "not quoted");
        row.push_back(cell);
        cell.clear();
        wasQuoted = false;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (quoted) {
            if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                cell += '"';
                ++i;
            } else if (ch == '"') {
                quoted = false;
            } else {
                cell += ch;
            }
        } else if (ch == '"') {
            quoted = wasQuoted = true;
        } else if (ch == ',') {
            endCell();
        } else if (ch == '\n' || ch == '\r') {
            const bool crlf = ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n';
            c.lineEnds.insert(crlf ? "CRLF" : "LF");
            i += crlf ? 1 : 0;
            endCell();
            if (c.header.empty())
                c.header = row;
            else
                c.rows.push_back(row);
            row.clear();
        } else {
            cell += ch;
        }
    }
    return c;
}

// The kind of text in a cell.
std::string cellKind(std::string v)
{
    std::string tab;
    if (!v.empty() && v.back() == '\t') {
        v.pop_back();
        tab = "+TAB";
    }
    if (v.empty())
        return "empty" + tab;
    if (v == "N/A")
        return "N/A" + tab;
    static const auto digits = [](const std::string& s, std::size_t from, std::size_t to) {
        if (from >= to)
            return false;
        for (std::size_t i = from; i < to; ++i)
            if (s[i] < '0' || s[i] > '9')
                return false;
        return true;
    };
    const std::size_t sign = v[0] == '-' ? 1 : 0;
    const auto dot = v.find('.');
    if (dot == std::string::npos && digits(v, sign, v.size()))
        return "integer" + tab;
    if (dot != std::string::npos && digits(v, sign, dot) && digits(v, dot + 1, v.size()))
        return !tab.empty() && v.size() - dot - 1 == 3 ? "µs with 3 decimals+TAB" : "decimal" + tab;
    if (v.find_first_of("eE") != std::string::npos && v.find_first_not_of("0123456789.eE+-") == std::string::npos)
        return "exponent" + tab;
    return "text" + tab;
}

std::set<std::string> filesIn(const std::string& dir)
{
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        out.insert(e.path().filename().string());
    return out;
}

// Key orders of the objects in a JSON document whose keys are fixed names (not op names, link
// names "0-1", sizes "4e-06" or steps).
void objectKeyOrders(const Json& j, std::set<std::string>& out)
{
    if (!j.is_object())
        return;
    bool fixedNames = !j.empty();
    for (const auto& [k, v] : j.items())
        if (k.find('@') != std::string::npos || k.find('-') != std::string::npos || k.rfind("step", 0) == 0
            || (!k.empty() && k[0] >= '0' && k[0] <= '9'))
            fixedNames = false;
    if (fixedNames)
        out.insert(keysOf(j));
    for (const auto& [k, v] : j.items())
        objectKeyOrders(v, out);
}

} // namespace

class TestSynthShape : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::map<std::string, std::string> m_out; // "<level>[s]" -> generated ASCEND_PROFILER_OUTPUT

    std::string generated(int level, bool withStack)
    {
        const std::string key = std::to_string(level) + (withStack ? "s" : "");
        auto it = m_out.find(key);
        if (it != m_out.end())
            return it->second;
        synth::SynthOptions o;
        o.steps = 1;
        o.level = level;
        o.withStack = withStack;
        const synth::SynthResult r = synth::synthesize(m_tmp.path().toStdString() + "/" + key, o);
        if (!r.ok)
            qWarning("synthesize: %s", r.error.c_str());
        return m_out[key] = r.ok ? r.rankDirs.at(0) + "/ASCEND_PROFILER_OUTPUT" : std::string();
    }

private slots:
    void traceView_data()
    {
        QTest::addColumn<int>("level");
        QTest::addColumn<bool>("withStack");
        QTest::newRow("level 0") << 0 << false;
        QTest::newRow("level 1") << 1 << false;
        QTest::newRow("level 1, with_stack") << 1 << true;
        QTest::newRow("level 2, with_stack") << 2 << true;
    }

    void traceView()
    {
        QFETCH(int, level);
        QFETCH(bool, withStack);
        const Trace real = readTrace(realOutput(level) + "/trace_view.json");
        // The rule holds for the real file: each event is json.dumps(event), joined by ", ", but
        // for one bare "," between the two json.dump calls.
        QVERIFY2(real.error.empty(), real.error.c_str());
        QCOMPARE(real.bareJoins.size(), std::size_t(1));
        const std::string out = generated(level, withStack);
        QVERIFY(!out.empty());
        const Trace gen = readTrace(out + "/trace_view.json");
        QVERIFY2(gen.error.empty(), gen.error.c_str());
        QCOMPARE(gen.bareJoins.size(), real.bareJoins.size());

        const TraceShape rs = shapeOf(real), gs = shapeOf(gen);
        // Key orders: every generated event kind exists in the real file, with one of its orders.
        for (const auto& [kind, orders] : gs.keys) {
            QVERIFY2(rs.keys.count(kind), ("kind not in the real file: " + kind).c_str());
            for (const auto& o : orders)
                QVERIFY2(rs.keys.at(kind).count(o), (kind + ": keys " + o).c_str());
        }
        for (const auto& [kind, orders] : gs.args) {
            if (!rs.args.count(kind))
                continue; // a counter the real run did not sample (e.g. HBM 0/Read is there, names vary)
            for (const auto& o : orders)
                QVERIFY2(rs.args.at(kind).count(o), (kind + ": args " + o).c_str());
        }
        QVERIFY(gs.args.count("X|Ascend Hardware||")); // the device tasks' args were compared
        QVERIFY(gs.args.count("X|Python|cpu_op|"));
        for (const auto& [kind, types] : gs.idTypes)
            QVERIFY2(rs.idTypes.count(kind) && rs.idTypes.at(kind) == types, kind.c_str());
        // The kinds this level writes in the real file and the generated one alike.
        for (const char* k : {"X|Python|cpu_op|", "X|Ascend Hardware||", "X|Overlap Analysis||",
                              "f|Ascend Hardware|HostToDevice|", "s|Python|async_npu|", "X|Python|enqueue|",
                              "X|Python|dequeue|", "C|AI Core Freq||", "C|HBM||"})
            QVERIFY2(rs.keys.count(k) && gs.keys.count(k), k);
        QCOMPARE(gs.keys.count("X|CANN||") > 0, rs.keys.count("X|CANN||") > 0); // none at level 0
        QCOMPARE(gs.keys.count("X|Python|python_function|") > 0, withStack);
        bool cpuStack = false;
        for (const auto& o : gs.args.at("X|Python|cpu_op|"))
            cpuStack = cpuStack || o.find("Call stack") != std::string::npos;
        QCOMPARE(cpuStack, withStack);

        // ts: quoted µs with 3 decimals (the real file has one counter whose ts lost its fraction:
        // "1736408883973810"; the generated one has none).
        QVERIFY(rs.tsText);
        QVERIFY(gs.tsText);
        QVERIFY(rs.ts3 * 1000 >= rs.tsCount * 999);
        QCOMPARE(gs.ts3, gs.tsCount);
        // Block order: each block once, in the real order (a block the real run has and the
        // generated one not: fwdbwd, of training), the bare "," before the same block.
        std::vector<std::string> realOrder;
        for (const auto& b : rs.blocks)
            if (std::find(gs.blocks.begin(), gs.blocks.end(), b) != gs.blocks.end())
                realOrder.push_back(b);
        QCOMPARE(gs.blocks, realOrder);
        QCOMPARE(std::set<std::string>(gs.blocks.begin(), gs.blocks.end()).size(), gs.blocks.size());
        QCOMPARE(gs.blocks.at(gs.bareJoinAt), rs.blocks.at(rs.bareJoinAt));
        QVERIFY(rs.timelineSorted);
        QVERIFY(gs.timelineSorted);
    }

    void otherJson_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("communication.json") << "communication.json";
        QTest::newRow("communication_matrix.json") << "communication_matrix.json";
        QTest::newRow("profiler_info_0.json") << "../profiler_info_0.json";
        QTest::newRow("profiler_metadata.json") << "../profiler_metadata.json";
    }

    void otherJson()
    {
        QFETCH(QString, file);
        const std::string rel = file.toStdString();
        const std::string real = fileBytes(realOutput(1) + "/" + rel);
        const std::string gen = fileBytes(generated(1, false) + "/" + rel);
        QVERIFY(!real.empty() && !gen.empty());
        const Json rj = Json::parse(real), gj = Json::parse(gen);
        // The real file is json.dump'ed with the default separators or with indent=4: so is ours.
        int indent = -2;
        for (int i : {-1, 4})
            if (pyDumps(rj, i) == real)
                indent = i;
        QVERIFY2(indent != -2, "the real file is neither json.dumps(j) nor json.dumps(j, indent=4)");
        QCOMPARE(QString::fromStdString(pyDumps(gj, indent)), QString::fromStdString(gen));
        // Objects with fixed key names have their keys in a real order.
        std::set<std::string> ro, go;
        objectKeyOrders(rj, ro);
        objectKeyOrders(gj, go);
        for (const auto& o : go)
            if (o.find("Transit") != std::string::npos || o.find("Communication") != std::string::npos
                || o.find("Elapse") != std::string::npos)
                QVERIFY2(ro.count(o), ("keys " + o).c_str());
    }

    void deviceInfoJson()
    {
        // info.json.N: the raw folder's device facts, json.dump'ed like the msprof sample.
        const std::string real = fileBytes(std::string(NPUSCOPE_SAMPLES) + "/msprof/test/msprof_python/ut/testcase/msconfig/info.json");
        QCOMPARE(QString::fromStdString(pyDumps(Json::parse(real))), QString::fromStdString(real));
        const std::string out = generated(1, false);
        std::string info;
        for (const auto& e : fs::recursive_directory_iterator(fs::path(out).parent_path()))
            if (e.path().filename() == "info.json.0")
                info = fileBytes(e.path().string());
        QVERIFY(!info.empty());
        const Json j = Json::parse(info);
        QCOMPARE(QString::fromStdString(pyDumps(j)), QString::fromStdString(info));
        QCOMPARE(keysOf(j), keysOf(Json::parse(real)));
    }

    void csvFiles_data()
    {
        QTest::addColumn<int>("level");
        QTest::newRow("level 0") << 0;
        QTest::newRow("level 1") << 1;
        QTest::newRow("level 2") << 2;
    }

    void csvFiles()
    {
        QFETCH(int, level);
        const std::string real = realOutput(level), gen = generated(level, true);
        QVERIFY(!gen.empty());
        // The files this level writes (with profile_memory=True and l2_cache=True, as the samples).
        QCOMPARE(filesIn(gen), filesIn(real));
        for (const std::string& name : filesIn(real)) {
            if (!name.ends_with(".csv"))
                continue;
            const Csv r = readCsv(real + "/" + name), g = readCsv(gen + "/" + name);
            const char* what = name.c_str();
            QVERIFY2(!g.rows.empty(), what);
            // Header: the real columns. kernel_details of levels 1 and 2 adds the main-memory
            // bandwidth and L2 counters of the Memory and L2Cache metric sets (the advisor's input)
            // to the PipeUtilization columns: the real columns stay in their order among them.
            if (name == "kernel_details.csv" && level > 0) {
                std::size_t at = 0;
                for (const auto& h : g.header)
                    if (at < r.header.size() && h == r.header[at])
                        ++at;
                    else
                        QVERIFY2(h.starts_with("aic_") || h.starts_with("aiv_"), (name + ": extra column " + h).c_str());
                QCOMPARE(at, r.header.size());
            } else {
                QCOMPARE(g.header, r.header);
            }
            // Line ends as the level-1 sample writes them (the level-2 copy has LF throughout,
            // as if saved again; levels 0 and 1 agree).
            const Csv ref = readCsv(realOutput(1) + "/" + name);
            QVERIFY2(g.lineEnds == (level == 1 || !fs::exists(realOutput(1) + "/" + name) ? r.lineEnds : ref.lineEnds),
                     what);
            // Python csv quoting, in both.
            QVERIFY2(r.quotingError.empty(), (name + ": " + r.quotingError).c_str());
            QVERIFY2(g.quotingError.empty(), (name + ": " + g.quotingError).c_str());
            // Each column holds the kinds of text the real column holds (a TAB after timestamps,
            // 3 decimals, N/A, empty cells).
            for (std::size_t c = 0; c < r.header.size(); ++c) {
                const auto gc = std::find(g.header.begin(), g.header.end(), r.header[c]) - g.header.begin();
                std::set<std::string> rk, gk;
                for (const auto& row : r.rows)
                    if (c < row.size())
                        rk.insert(cellKind(row[c]));
                for (const auto& row : g.rows)
                    if (static_cast<std::size_t>(gc) < row.size())
                        gk.insert(cellKind(row[static_cast<std::size_t>(gc)]));
                for (const auto& k : gk)
                    QVERIFY2(rk.count(k), (name + " " + r.header[c] + ": " + k + " not in the real column").c_str());
            }
        }
    }

    void compactOption()
    {
        synth::SynthOptions o;
        o.steps = 1;
        o.compactJson = true;
        const synth::SynthResult r = synth::synthesize(m_tmp.path().toStdString() + "/compact", o);
        QVERIFY2(r.ok, r.error.c_str());
        const std::string t = fileBytes(r.rankDirs.at(0) + "/ASCEND_PROFILER_OUTPUT/trace_view.json");
        QVERIFY(t.find("\", \"") == std::string::npos && t.find("\": ") == std::string::npos);
        QCOMPARE(Json::parse(t).size(), readTrace(generated(1, false) + "/trace_view.json").events.size());
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestSynthShape)

} // namespace test_synth_shape

#include "test_synth_shape.moc"
