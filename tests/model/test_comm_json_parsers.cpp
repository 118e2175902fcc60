// The communication readers' two parsers (simdjson On-Demand first, the nlohmann DOM when
// simdjson rejects the file) give the same records, field by field, on every real
// communication*.json sample and on generated ones; a file simdjson rejects (truncated, mutated,
// odd JSON) reads exactly as with the DOM parser alone, complete ops kept.
#include "test_main.h"
#include "file_bytes.h"
#include "model/formats/readers.h"
#include "model/synth/synth.h"

#include <QTemporaryDir>
#include <QtTest>

#include <bit>
#include <cmath>
#include <filesystem>

namespace test_comm_json_parsers {

using namespace npuscope;
using readers::CommJsonParser;
namespace fs = std::filesystem;

namespace {

// Sets the parser for one scope.
struct UseParser {
    explicit UseParser(CommJsonParser p) { readers::setCommJsonParser(p); }
    ~UseParser() { readers::setCommJsonParser(CommJsonParser::Auto); }
};

enum class Kind { Comm, Matrix, ClusterComm, ClusterMatrix };

Kind kindOf(const std::string& name)
{
    const bool matrix = name.find("matrix") != std::string::npos;
    if (name.starts_with("cluster_"))
        return matrix ? Kind::ClusterMatrix : Kind::ClusterComm;
    return matrix ? Kind::Matrix : Kind::Comm;
}

// What one read produced, whatever the reader.
struct Result {
    FileRecord rec;
    std::vector<CommOp> ops;
    std::vector<CommLink> links;
    std::vector<Diagnostic> diags;
    StringPool strings;
};

// `readable`: bytes past the end of `bytes` the parser may read (parsed in place when >= 64).
Result read(Kind kind, std::string_view bytes, const std::string& file, CommJsonParser parser,
            std::size_t readable = 0)
{
    UseParser use(parser);
    ReadContext ctx;
    ctx.file = file;
    ctx.readableAfterEnd = readable;
    Result r;
    if (kind == Kind::Comm || kind == Kind::Matrix) {
        Profile p;
        r.rec = kind == Kind::Comm ? readers::readCommunicationJson(bytes, p, ctx)
                                   : readers::readCommunicationMatrixJson(bytes, p, ctx);
        r.ops = std::move(p.commOps);
        r.links = std::move(p.commLinks);
        r.diags = std::move(p.diagnostics);
        r.strings = std::move(p.strings);
    } else {
        ClusterData c;
        r.rec = kind == Kind::ClusterComm ? readers::readClusterCommunicationJson(bytes, c, r.diags, ctx)
                                          : readers::readClusterCommunicationMatrixJson(bytes, c, r.diags, ctx);
        r.ops = std::move(c.comm);
        r.links = std::move(c.links);
        r.strings = std::move(c.strings);
    }
    return r;
}

// Field-by-field comparison; returns the first difference, "" when none.
class Diff {
public:
    std::string text;

    void str(const std::string& what, std::string_view a, std::string_view b)
    {
        if (text.empty() && a != b)
            text = what + ": '" + std::string(a) + "' vs '" + std::string(b) + "'";
    }
    void num(const std::string& what, double a, double b) // bit-identical (NaN == NaN)
    {
        if (text.empty() && std::bit_cast<std::uint64_t>(a) != std::bit_cast<std::uint64_t>(b))
            text = what + ": " + std::to_string(a) + " vs " + std::to_string(b);
    }
    void integer(const std::string& what, std::int64_t a, std::int64_t b)
    {
        if (text.empty() && a != b)
            text = what + ": " + std::to_string(a) + " vs " + std::to_string(b);
    }
    void name(const std::string& what, NameId a, const StringPool& pa, NameId b, const StringPool& pb)
    {
        integer(what + " id", a.v, b.v);
        str(what, pa.view(a), pb.view(b));
    }
};

std::string compare(const Result& a, const Result& b)
{
    Diff d;
    d.str("path", a.rec.path, b.rec.path);
    d.str("kind", a.rec.kind, b.rec.kind);
    d.integer("status", int(a.rec.status), int(b.rec.status));
    d.str("note", a.rec.note, b.rec.note);
    d.integer("bytes", std::int64_t(a.rec.bytes), std::int64_t(b.rec.bytes));
    d.integer("records", std::int64_t(a.rec.records), std::int64_t(b.rec.records));
    d.integer("skipped", std::int64_t(a.rec.skipped), std::int64_t(b.rec.skipped));
    d.integer("diagnostics", std::int64_t(a.diags.size()), std::int64_t(b.diags.size()));
    for (std::size_t i = 0; i < a.diags.size() && i < b.diags.size(); ++i) {
        const auto& x = a.diags[i];
        const auto& y = b.diags[i];
        const std::string at = "diagnostic " + std::to_string(i) + " ";
        d.integer(at + "severity", int(x.severity), int(y.severity));
        d.str(at + "file", x.file, y.file);
        d.integer(at + "line", x.line, y.line);
        d.integer(at + "offset", x.byteOffset, y.byteOffset);
        d.str(at + "reason", x.reason, y.reason);
        d.integer(at + "count", std::int64_t(x.count), std::int64_t(y.count));
    }
    d.integer("ops", std::int64_t(a.ops.size()), std::int64_t(b.ops.size()));
    for (std::size_t i = 0; i < a.ops.size() && i < b.ops.size(); ++i) {
        const CommOp& x = a.ops[i];
        const CommOp& y = b.ops[i];
        const std::string at = "op " + std::to_string(i) + " ";
        d.str(at + "step", x.step, y.step);
        d.str(at + "kind", x.kind, y.kind);
        d.str(at + "fullName", x.fullName, y.fullName);
        d.str(at + "opName", x.opName, y.opName);
        d.str(at + "group", x.group, y.group);
        d.integer(at + "totalInfo", x.totalInfo, y.totalInfo);
        d.integer(at + "rank", x.rank, y.rank);
        d.integer(at + "has start", x.start.has_value(), y.start.has_value());
        d.integer(at + "start", x.start.value_or(-1), y.start.value_or(-1));
        d.num(at + "elapseMs", x.elapseMs, y.elapseMs);
        d.num(at + "transitMs", x.transitMs, y.transitMs);
        d.num(at + "waitMs", x.waitMs, y.waitMs);
        d.num(at + "syncMs", x.syncMs, y.syncMs);
        d.num(at + "idleMs", x.idleMs, y.idleMs);
        d.num(at + "waitRatio", x.waitRatio, y.waitRatio);
        d.num(at + "syncRatio", x.syncRatio, y.syncRatio);
        d.integer(at + "bandwidths", std::int64_t(x.bandwidth.size()), std::int64_t(y.bandwidth.size()));
        for (std::size_t j = 0; j < x.bandwidth.size() && j < y.bandwidth.size(); ++j) {
            const CommBandwidth& u = x.bandwidth[j];
            const CommBandwidth& v = y.bandwidth[j];
            const std::string bw = at + "bandwidth " + std::to_string(j) + " ";
            d.name(bw + "transport", u.transport, a.strings, v.transport, b.strings);
            d.num(bw + "sizeMB", u.sizeMB, v.sizeMB);
            d.num(bw + "timeMs", u.timeMs, v.timeMs);
            d.num(bw + "bandwidthGBps", u.bandwidthGBps, v.bandwidthGBps);
            d.num(bw + "largePacketRatio", u.largePacketRatio, v.largePacketRatio);
            d.integer(bw + "sizes", std::int64_t(u.sizes.size()), std::int64_t(v.sizes.size()));
            for (std::size_t k = 0; k < u.sizes.size() && k < v.sizes.size(); ++k) {
                const std::string sb = bw + "size " + std::to_string(k) + " ";
                d.str(sb + "sizeMB", u.sizes[k].sizeMB, v.sizes[k].sizeMB);
                d.num(sb + "count", u.sizes[k].count, v.sizes[k].count);
                d.num(sb + "timeMs", u.sizes[k].timeMs, v.sizes[k].timeMs);
            }
        }
    }
    d.integer("links", std::int64_t(a.links.size()), std::int64_t(b.links.size()));
    for (std::size_t i = 0; i < a.links.size() && i < b.links.size(); ++i) {
        const CommLink& x = a.links[i];
        const CommLink& y = b.links[i];
        const std::string at = "link " + std::to_string(i) + " ";
        d.name(at + "step", x.step, a.strings, y.step, b.strings);
        d.name(at + "kind", x.kind, a.strings, y.kind, b.strings);
        d.name(at + "fullName", x.fullName, a.strings, y.fullName, b.strings);
        d.name(at + "opName", x.opName, a.strings, y.opName, b.strings);
        d.name(at + "group", x.group, a.strings, y.group, b.strings);
        d.integer(at + "src", x.src, y.src);
        d.integer(at + "dst", x.dst, y.dst);
        d.name(at + "transport", x.transport, a.strings, y.transport, b.strings);
        d.num(at + "sizeMB", x.sizeMB, y.sizeMB);
        d.num(at + "timeMs", x.timeMs, y.timeMs);
        d.num(at + "bandwidthGBps", x.bandwidthGBps, y.bandwidthGBps);
    }
    // Nothing else interned: what a read that failed half way interned was forgotten.
    d.integer("strings", std::int64_t(a.strings.size()), std::int64_t(b.strings.size()));
    return d.text;
}

// Every communication*.json under `dir`.
std::vector<std::string> commFiles(const std::string& dir)
{
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == ".json" &&
            e.path().filename().string().find("communication") != std::string::npos)
            out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

// Both parsers on well-formed files: simdjson takes every one, and the records match.
void checkWellFormed(const std::vector<std::string>& files, std::size_t& opsSeen, std::size_t& linksSeen)
{
    for (const auto& f : files) {
        const std::string bytes = fileBytes(f);
        const Kind kind = kindOf(fs::path(f).filename().string());
        const Result fast = read(kind, bytes, f, CommJsonParser::FastOnly);
        const Result dom = read(kind, bytes, f, CommJsonParser::DomOnly);
        QVERIFY2(fast.rec.status == FileStatus::Loaded, (f + ": " + fast.rec.note).c_str());
        QVERIFY2(dom.rec.status == FileStatus::Loaded, (f + ": " + dom.rec.note).c_str());
        const std::string diff = compare(fast, dom);
        QVERIFY2(diff.empty(), (f + ": " + diff).c_str());
        QVERIFY2(compare(read(kind, bytes, f, CommJsonParser::Auto), dom).empty(), f.c_str());
        // In place, with 64 bytes of garbage after the end: the same records.
        const std::string slack = bytes + std::string(64, '{');
        const Result inPlace = read(kind, std::string_view(slack).substr(0, bytes.size()), f, CommJsonParser::FastOnly, 64);
        QVERIFY2(inPlace.rec.status == FileStatus::Loaded, (f + ": in place: " + inPlace.rec.note).c_str());
        QVERIFY2(compare(inPlace, dom).empty(), (f + ": in place: " + compare(inPlace, dom)).c_str());
        opsSeen += fast.ops.size();
        linksSeen += fast.links.size();
    }
}

// Auto (simdjson, then the DOM when it fails) reads `bytes` exactly as the DOM parser alone.
std::string autoMatchesDom(Kind kind, std::string_view bytes)
{
    const std::string f = "/m/communication.json";
    return compare(read(kind, bytes, f, CommJsonParser::Auto), read(kind, bytes, f, CommJsonParser::DomOnly));
}

const std::string kSamples = NPUSCOPE_SAMPLES;
const std::string kCommJson = kSamples + "/msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT/communication.json";

// A real communication file with the first `from` in it replaced by `to`.
struct Damage {
    std::string file, from, to;
    Kind kind;
};

// The damaged bytes; empty when `from` is not in the file.
std::string damagedBytes(const Damage& c)
{
    std::string bytes = fileBytes(c.file);
    const std::size_t at = bytes.find(c.from);
    if (at == std::string::npos)
        return {};
    return bytes.replace(at, c.from.size(), c.to);
}

} // namespace

class TestCommJsonParsers : public QObject {
    Q_OBJECT
private slots:
    void realSamples()
    {
        const auto files = commFiles(kSamples);
        QCOMPARE(files.size(), std::size_t(12)); // SOURCES.md: 10 per-rank files, 2 cluster files
        std::size_t ops = 0, links = 0;
        checkWellFormed(files, ops, links);
        QVERIFY2(ops >= 30 && links >= 30, (std::to_string(ops) + " ops, " + std::to_string(links) + " links").c_str());
    }

    void generatedProfiles()
    {
        QTemporaryDir tmp;
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 2;
        o.steps = 2;
        const synth::SynthResult r = synth::synthesize(tmp.path().toStdString(), o);
        QVERIFY2(r.error.empty(), r.error.c_str());
        const auto files = commFiles(tmp.path().toStdString());
        QCOMPARE(files.size(), std::size_t(6)); // communication.json + matrix per rank, and the cluster forms
        std::size_t ops = 0, links = 0;
        checkWellFormed(files, ops, links);
        QVERIFY(ops > 0 && links > 0);
    }

    // One byte of a real file's key damaged so that the key names no rank: the link ("0-0" ->
    // "0-x") or the rank's op ("0" -> "x") is skipped and counted, with the op it was under,
    // and both parsers agree; nothing else changes.
    void damagedKeys()
    {
        const std::vector<Damage> cases = {
            {kSamples + "/msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT/communication_matrix.json",
             "\"0-0\"", "\"0-x\"", Kind::Matrix},
            {kSamples + "/msprof-analyze/test/resource/advisor/cluster_analysis_output/cluster_communication.json",
             "{\"0\": {\"Communication Time Info\"", "{\"x\": {\"Communication Time Info\"", Kind::ClusterComm},
        };
        for (const Damage& c : cases) {
            const std::string damaged = damagedBytes(c);
            QVERIFY2(!damaged.empty(), c.file.c_str());
            const Result a = read(c.kind, fileBytes(c.file), c.file, CommJsonParser::Auto);
            const Result b = read(c.kind, damaged, c.file, CommJsonParser::Auto);
            QCOMPARE(a.rec.status, FileStatus::Loaded);
            QCOMPARE(b.rec.status, FileStatus::Partial);
            QCOMPARE(b.rec.records, a.rec.records - 1);
            QCOMPARE(b.rec.skipped, std::uint64_t(1));
            QCOMPARE(b.ops.size() + b.links.size(), a.ops.size() + a.links.size() - 1);
            QCOMPARE(b.diags.size(), a.diags.size() + 1);
            const Diagnostic& d = b.diags.back();
            QCOMPARE(d.severity, Severity::Warning);
            QVERIFY2(d.reason.find("under 'hcom_") != std::string::npos, d.reason.c_str());
            const std::string diff = compare(b, read(c.kind, damaged, c.file, CommJsonParser::DomOnly));
            QVERIFY2(diff.empty(), diff.c_str());
        }
    }

    // One byte of a key a reader looks for damaged ("Transit Size(MB)" -> "Transit Size(MB,",
    // "Communication Time Info" -> "Communication Time Infx"): the value is not read, and the
    // file names the key one character off; both parsers agree.
    void keysOneCharacterOff()
    {
        const std::string dir = kSamples + "/msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT/";
        const std::vector<Damage> cases = {
            {dir + "communication_matrix.json", "\"Transit Size(MB)\"", "\"Transit Size(MB,\"", Kind::Matrix},
            {dir + "communication.json", "\"Communication Time Info\"", "\"Communication Time Infx\"", Kind::Comm},
        };
        for (const Damage& c : cases) {
            const std::string damaged = damagedBytes(c);
            QVERIFY2(!damaged.empty(), c.file.c_str());
            const Result a = read(c.kind, fileBytes(c.file), c.file, CommJsonParser::Auto);
            const Result b = read(c.kind, damaged, c.file, CommJsonParser::Auto);
            QCOMPARE(b.rec.records, a.rec.records);
            QCOMPARE(b.diags.size(), a.diags.size() + 1);
            const Diagnostic& d = b.diags.back();
            QCOMPARE(d.severity, Severity::Warning);
            const std::string key = c.to.substr(1, c.to.size() - 2), want = c.from.substr(1, c.from.size() - 2);
            QVERIFY2(d.reason.find("one character off") != std::string::npos
                         && d.reason.find("'" + key + "' for '" + want + "'") != std::string::npos,
                     d.reason.c_str());
            if (c.kind == Kind::Matrix) {
                QVERIFY(!std::isnan(a.links[0].sizeMB));
                QVERIFY(std::isnan(b.links[0].sizeMB));
            } else {
                QVERIFY(a.ops[0].start && !b.ops[0].start);
            }
            const std::string diff = compare(b, read(c.kind, damaged, c.file, CommJsonParser::DomOnly));
            QVERIFY2(diff.empty(), diff.c_str());
        }
    }

    // Cut at 40 offsets: simdjson rejects each, and the result is the DOM parser's (partial, every
    // complete op kept, the parse error located).
    void truncatedFallsBack()
    {
        const std::string full = fileBytes(kCommJson);
        const Result whole = read(Kind::Comm, full, kCommJson, CommJsonParser::Auto);
        for (int i = 1; i <= 40; ++i) {
            const std::string_view cut = std::string_view(full).substr(0, full.size() * i / 41 + i);
            QCOMPARE(read(Kind::Comm, cut, kCommJson, CommJsonParser::FastOnly).rec.status, FileStatus::Failed);
            // In place, the rest of the file readable after the cut: still rejected.
            const std::size_t rest = full.size() - cut.size();
            if (rest >= 64)
                QCOMPARE(read(Kind::Comm, cut, kCommJson, CommJsonParser::FastOnly, rest).rec.status, FileStatus::Failed);
            const Result a = read(Kind::Comm, cut, kCommJson, CommJsonParser::Auto);
            const std::string diff = compare(a, read(Kind::Comm, cut, kCommJson, CommJsonParser::DomOnly));
            QVERIFY2(diff.empty(), diff.c_str());
            QVERIFY(a.rec.status == FileStatus::Partial || a.rec.status == FileStatus::Failed);
            QVERIFY(a.ops.size() <= whole.ops.size());
            for (std::size_t k = 0; k < a.ops.size(); ++k) // the complete ops, as in the whole file
                if (k + 1 < a.ops.size())
                    QCOMPARE(a.ops[k].start, whole.ops[k].start);
        }
        // Half the file: ops before the cut are there.
        const Result half = read(Kind::Comm, std::string_view(full).substr(0, full.size() / 2), kCommJson,
                                 CommJsonParser::Auto);
        QCOMPARE(half.rec.status, FileStatus::Partial);
        QVERIFY(half.ops.size() >= whole.ops.size() / 4);
    }

    // Single-byte changes over a sample of each kind: whichever parser ends up reading the file,
    // the result is the DOM parser's.
    void mutations()
    {
        const std::string dir = kSamples + "/msinsight/server/src/test/test_data/";
        const std::pair<std::string, Kind> files[] = {
            {kCommJson, Kind::Comm},
            {dir + "test_rank_0/ASCEND_PROFILER_OUTPUT/communication_matrix.json", Kind::Matrix},
            {dir + "cluster_analysis_output/cluster_communication_matrix.json", Kind::ClusterMatrix},
        };
        const char replacements[] = {'}', ']', ',', ':', '"', '0', '-', '.', 'e', 'x', ' ', '\\', '\x01', '\xff'};
        for (const auto& [path, kind] : files) {
            const std::string full = fileBytes(path);
            for (int i = 0; i < 150; ++i) {
                std::string m = full;
                const std::size_t at = (full.size() * std::size_t(i) * 7919 / 150 + std::size_t(i)) % full.size();
                m[at] = replacements[std::size_t(i) % sizeof(replacements)];
                const std::string diff = autoMatchesDom(kind, m);
                QVERIFY2(diff.empty(), (path + " byte " + std::to_string(at) + ": " + diff).c_str());
            }
        }
    }

    // Odd but valid JSON, and invalid JSON either parser could misread.
    // Values that are there but no numbers read as missing, and are counted and named once per
    // file by either parser; "N/A", "-" and null are missing and not counted.
    void unreadableValuesNamed()
    {
        const std::string comm =
            R"J({"step1":{"collective":{"hcom_allReduce__1_1@g":{"Communication Time Info":{"Start Timestamp(us)":"soon",)J"
            R"J("Elapse Time(ms)":"abc","Transit Time(ms)":true,"Wait Time(ms)":"N/A","Synchronization Time(ms)":null,)J"
            R"J("Idle Time(ms)":1.5,"Wait Time Ratio":{},"Synchronization Time Ratio":"0.5"},"Communication Bandwidth Info":)J"
            R"J({"HCCS":{"Transit Size(MB)":"x1","Transit Time(ms)":2,"Bandwidth(GB/s)":[1],"Large Packet Ratio":"-"}}}}}})J";
        const std::string matrix =
            R"J({"step1":{"p2p":{"send@7":{"0-1":{"Transport Type":"HCCS","Transit Size(MB)":"big","Transit Time(ms)":"N/A",)J"
            R"J("Bandwidth(GB/s)":"12"},"1-0":{"Transit Size(MB)":null,"Transit Time(ms)":3}}}}})J";
        for (CommJsonParser parser : {CommJsonParser::FastOnly, CommJsonParser::DomOnly}) {
            const Result c = read(Kind::Comm, comm, "communication.json", parser);
            QCOMPARE(c.ops.size(), std::size_t(1));
            const CommOp& op = c.ops[0];
            QVERIFY(!op.start && std::isnan(op.elapseMs) && std::isnan(op.transitMs) && std::isnan(op.waitMs));
            QCOMPARE(op.idleMs, 1.5);
            QCOMPARE(op.syncRatio, 0.5);
            QCOMPARE(op.bandwidth.at(0).timeMs, 2.0);
            QCOMPARE(c.diags.size(), std::size_t(1));
            QCOMPARE(c.diags[0].severity, Severity::Warning);
            QCOMPARE(c.diags[0].count, std::uint64_t(6));
            QCOMPARE(c.diags[0].file, std::string("communication.json"));
            QCOMPARE(c.diags[0].reason,
                     std::string("6 value(s) where a number belongs read as missing (first: 'Start Timestamp(us)' of "
                                 "'hcom_allReduce__1_1@g': \"soon\")"));

            const Result m = read(Kind::Matrix, matrix, "communication_matrix.json", parser);
            QCOMPARE(m.links.size(), std::size_t(2));
            QVERIFY(std::isnan(m.links[0].sizeMB));
            QCOMPARE(m.links[0].bandwidthGBps, 12.0);
            QCOMPARE(m.diags.size(), std::size_t(1));
            QCOMPARE(m.diags[0].count, std::uint64_t(1));
            QCOMPARE(m.diags[0].reason, std::string("1 value(s) where a number belongs read as missing (first: "
                                                    "'Transit Size(MB)' of 'send@7': \"big\")"));
        }
    }

    // An integer start timestamp beyond what ns can hold (about 292 years) reads as missing, and
    // is counted and named like other unreadable values.
    void outOfRangeStartNamed()
    {
        const auto op = [](const std::string& start) {
            return R"J({"step1":{"collective":{"a@1":{"Communication Time Info":{"Start Timestamp(us)":)J" + start +
                   R"J(,"Elapse Time(ms)":1.5}},"b@1":{"Communication Time Info":{"Start Timestamp(us)":-17}}}}})J";
        };
        for (CommJsonParser parser : {CommJsonParser::FastOnly, CommJsonParser::DomOnly}) {
            for (const std::string start : {"18446744073709551615", "-9300000000000000"}) {
                const Result c = read(Kind::Comm, op(start), "communication.json", parser);
                QCOMPARE(c.ops.size(), std::size_t(2));
                QVERIFY(!c.ops[0].start);
                QCOMPARE(c.ops[0].elapseMs, 1.5);
                QCOMPARE(c.ops[1].start.value_or(0), TimeNs(-17000)); // in range: kept
                QCOMPARE(c.diags.size(), std::size_t(1));
                QCOMPARE(c.diags[0].count, std::uint64_t(1));
                QCOMPARE(c.diags[0].reason, "1 value(s) where a number belongs read as missing (first: "
                                            "'Start Timestamp(us)' of 'a@1': " + start + ", out of range)");
            }
        }
    }

    void oddDocuments_data()
    {
        QTest::addColumn<QString>("json");
        const char* ti = R"J("Communication Time Info":)J";
        auto op = [&](const std::string& start) {
            return std::string(R"J({"step1":{"collective":{"a@1":{)J") + ti + R"J({"Start Timestamp(us)":)J" + start +
                   R"J(,"Elapse Time(ms)":1.5}}}}})J";
        };
        QTest::newRow("float start") << QString::fromStdString(op("1780748090001160.452"));
        QTest::newRow("exponent start") << QString::fromStdString(op("1.780748090001160452E15"));
        QTest::newRow("integer start") << QString::fromStdString(op("1780748090001160"));
        QTest::newRow("negative start") << QString::fromStdString(op("-17"));
        QTest::newRow("minus zero start") << QString::fromStdString(op("-0"));
        QTest::newRow("huge integer start") << QString::fromStdString(op("123456789012345678901234567890"));
        QTest::newRow("uint64 start") << QString::fromStdString(op("18446744073709551615"));
        QTest::newRow("string start") << QString::fromStdString(op(R"J("1780748090001160.452")J"));
        QTest::newRow("null start") << QString::fromStdString(op("null"));
        QTest::newRow("overflow start") << QString::fromStdString(op("1e400"));
        QTest::newRow("leading zero") << QString::fromStdString(op("01"));
        QTest::newRow("bad literal") << QString::fromStdString(op("nul"));
        QTest::newRow("duplicate op")
            << QStringLiteral(R"J({"c":{"a@1":{"Communication Time Info":{"Elapse Time(ms)":1}},"a@1":{"Communication Time Info":{"Elapse Time(ms)":2}}}})J");
        QTest::newRow("duplicate field")
            << QStringLiteral(R"J({"a@1":{"Communication Time Info":{"Elapse Time(ms)":1,"Elapse Time(ms)":2}}})J");
        QTest::newRow("escaped key") << QStringLiteral(R"J({"a\u0040b\n":{"Communication Time Info":{"Wait Time(ms)":"0.5"}}})J");
        QTest::newRow("lone surrogate") << QStringLiteral(R"J({"a\udc00":{"Communication Time Info":{}}})J");
        QTest::newRow("trailing garbage") << QString::fromStdString(op("1") + " x");
        QTest::newRow("two roots") << QString::fromStdString(op("1") + op("2"));
        QTest::newRow("array root") << QStringLiteral(R"J([{"a@1":{"Communication Time Info":{}}}])J");
        QTest::newRow("scalar root") << QStringLiteral("42");
        QTest::newRow("deep") << QString::fromStdString(std::string(2000, '[') + std::string(2000, ']'));
        QTest::newRow("bom") << QString::fromStdString("\xef\xbb\xbf" + op("1.5"));
        QTest::newRow("size pairs")
            << QStringLiteral(R"J({"a@1":{"Communication Bandwidth Info":{"HCCS":{"Transit Size(MB)":4,"Transit Time(ms)":2,"Size Distribution":{"4e-06":[3,0.5],"1":[1],"2":["1",2],"3":{}}}}}})J");
        // Records are taken while the file is parsed; one that holds another is found only once
        // it is complete, and the walk takes the outer one alone.
        QTest::newRow("op in an op, its key last")
            << QStringLiteral(R"J({"s":{"outer@1":{"inner@2":{"Communication Time Info":{"Elapse Time(ms)":1}},"Communication Time Info":{"Elapse Time(ms)":2}}}})J");
        QTest::newRow("op in an op, its key first")
            << QStringLiteral(R"J({"s":{"outer@1":{"Communication Time Info":{"Elapse Time(ms)":2},"inner@2":{"Communication Bandwidth Info":{}}}}})J");
        QTest::newRow("link in a link")
            << QStringLiteral(R"J({"s":{"p2p":{"op@1":{"0-1":{"1-2":{"Transport Type":"HCCS"},"Transit Size(MB)":3},"2-3":{"Transport Type":"SIO"}}}}})J");
        QTest::newRow("ops at and past the walk's depth")
            << QStringLiteral(R"J({"a":{"b":{"c":{"d":{"e":{"f":{"g@1":{"Communication Time Info":{"Idle Time(ms)":1}},"x":{"h@1":{"Communication Time Info":{}}}}}}}}}})J");
        QTest::newRow("ops in a list") << QStringLiteral(R"J({"s":[{"a@1":{"Communication Time Info":{}}}],"b@1":{"Communication Time Info":{}}})J");
        QTest::newRow("links then garbage")
            << QStringLiteral(R"J({"s":{"p2p":{"op@1":{"0-1":{"Transport Type":"HCCS"},"2-3":{"Transport Type":"SIO"}}},"q":{"x@2":{"4-5":{"Transport Type":"RDMA"}},)J");
        QTest::newRow("links")
            << QStringLiteral(R"J({"step1":{"p2p":{"send@7":{"0-1":{"Transport Type":"HCCS","Transit Size(MB)":-0.0,"Bandwidth(GB/s)":"12"},"1-x":{"Transport Type":"HCCS"},"2-3":{"Transit Size(MB)":1e2}}}}})J");
    }
    void oddDocuments()
    {
        QFETCH(QString, json);
        const std::string bytes = json.toStdString();
        for (Kind kind : {Kind::Comm, Kind::Matrix, Kind::ClusterComm, Kind::ClusterMatrix}) {
            const std::string diff = autoMatchesDom(kind, bytes);
            QVERIFY2(diff.empty(), diff.c_str());
        }
    }

    // Records within records are read by simdjson too (the file parsed again whole), as the
    // walk reads them: the outer record alone, the inner one not at all.
    void nestedRecords()
    {
        const std::string ops =
            R"J({"s":{"outer@1":{"inner@2":{"Communication Time Info":{"Elapse Time(ms)":1}},)J"
            R"J("Communication Time Info":{"Elapse Time(ms)":2}},"next@3":{"Communication Time Info":{"Elapse Time(ms)":3}}}})J";
        const Result c = read(Kind::Comm, ops, "communication.json", CommJsonParser::FastOnly);
        QCOMPARE(c.rec.status, FileStatus::Loaded);
        QCOMPARE(c.ops.size(), std::size_t(2));
        QCOMPARE(c.ops[0].fullName, std::string("outer@1"));
        QCOMPARE(c.ops[0].elapseMs, 2.0);
        QCOMPARE(c.ops[1].fullName, std::string("next@3"));
        QCOMPARE(c.ops[1].step, std::string("s"));

        const std::string links =
            R"J({"s":{"p2p":{"op@1":{"0-1":{"1-2":{"Transport Type":"HCCS"},"Transit Size(MB)":3},"2-3":{"Transport Type":"SIO"}}}}})J";
        const Result m = read(Kind::Matrix, links, "communication_matrix.json", CommJsonParser::FastOnly);
        QCOMPARE(m.rec.status, FileStatus::Loaded);
        QCOMPARE(m.links.size(), std::size_t(2));
        QCOMPARE(m.links[0].src, 0);
        QCOMPARE(m.links[0].dst, 1);
        QCOMPARE(m.links[0].sizeMB, 3.0);
        QCOMPARE(m.strings.view(m.links[1].transport), std::string_view("SIO"));
        QCOMPARE(m.strings.view(m.links[1].opName), std::string_view("op"));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestCommJsonParsers)

} // namespace test_comm_json_parsers

#include "test_comm_json_parsers.moc"
