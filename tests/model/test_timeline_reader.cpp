// Timeline JSON reader on real Ascend samples (msprof and torch_npu), truncated/corrupt input,
// the simplified task JSON, and the memory-mapped file. Expected numbers were computed
// independently with python3's json module over the same files (see each comment).
#include "test_main.h"
#include "file_bytes.h"
#include "odd_events.h"
#include "model/formats/json_event_scanner.h"
#include "model/formats/plain_event_reader.h"
#include "model/formats/readers.h"
#include "model/io/mapped_file.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>

namespace test_timeline_reader {

using namespace npuscope;

namespace {

const std::string kSamples = NPUSCOPE_SAMPLES;
const std::string kTorchAdvisor = kSamples + "/msprof-analyze/test/ut/advisor/timeline_advice/trace_view.json";
const std::string kMsprof = kSamples +
                            "/ascend-msprof-skill/tests/fixtures/tilelang_design_feedback/candidate_comparability/"
                            "workload_mismatch_candidate/reports/app/PROF_000001_20260606121448940_RGBHHJGBAJGRQEOB/"
                            "mindstudio_profiler_output/msprof_20260606121514.json";
const std::string kLevel1 =
    kSamples + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json";

struct Loaded {
    Profile p;
    FileRecord rec;
};

// `copied`: chunks cut by guesses are copied out of `bytes` before they are read, as those of a
// mapped file are (ReadContext::copyBytes).
std::unique_ptr<Loaded> readText(std::string_view bytes, const std::string& name = "inline.json",
                                 std::uint64_t chunkBytes = 0, bool plainEvents = true, std::size_t chunkSlots = 0,
                                 bool copied = false)
{
    auto l = std::make_unique<Loaded>();
    ReadContext ctx;
    ctx.file = name;
    ctx.chunkBytes = chunkBytes;
    ctx.chunkSlots = chunkSlots;
    if (copied)
        ctx.copyBytes = [bytes](std::uint64_t at, char* to, std::size_t n) {
            QVERIFY(at + n <= bytes.size());
            std::memcpy(to, bytes.data() + at, n);
        };
    ctx.plainEvents = plainEvents;
    l->rec = readers::readTimelineJson(bytes, l->p, ctx);
    l->p.finalize();
    return l;
}

// `path` read with its arguments kept as the events' offsets (ReadContext::lazyArgs).
std::unique_ptr<Loaded> readLazy(const std::string& path, std::uint64_t chunkBytes = 0, bool plainEvents = true)
{
    std::string err;
    auto m = MappedFile::open(path, &err);
    if (!m)
        qFatal("%s", err.c_str());
    auto l = std::make_unique<Loaded>();
    ReadContext ctx;
    ctx.file = path;
    ctx.chunkBytes = chunkBytes;
    ctx.plainEvents = plainEvents;
    ctx.lazyArgs = true;
    l->rec = readers::readTimelineJson(m->bytes(), l->p, ctx);
    l->p.finalize();
    return l;
}

std::unique_ptr<Loaded> readFile(const std::string& path)
{
    std::string err;
    auto m = MappedFile::open(path, &err);
    if (!m)
        qFatal("%s", err.c_str());
    return readText(m->bytes(), path);
}

std::map<TrackKind, qint64> slicesPerKind(const Profile& p)
{
    std::map<TrackKind, qint64> n;
    for (std::size_t i = 0; i < p.slices.size(); ++i)
        ++n[p.tracks[p.slices.track[i].v].kind];
    return n;
}

qint64 sumDur(const Profile& p, TrackKind kind, std::string_view thread = {})
{
    qint64 s = 0;
    for (std::size_t i = 0; i < p.slices.size(); ++i) {
        const Track& t = p.tracks[p.slices.track[i].v];
        if (t.kind == kind && (thread.empty() || p.str(t.thread) == thread))
            s += p.slices.dur[i];
    }
    return s;
}

int flowWithId(const Profile& p, std::string_view id)
{
    for (std::size_t f = 0; f < p.flows.size(); ++f)
        if (p.flows.idOf(f, p.strings) == id)
            return static_cast<int>(f);
    return -1;
}

// Everything the reader stored, as text: two reads of a file compare equal when this does.
std::string describe(const Loaded& l)
{
    const Profile& p = l.p;
    std::string out = std::to_string(l.rec.records) + " kept, " + std::to_string(l.rec.skipped) + " skipped, " +
                      l.rec.note + "\n";
    auto add = [&](auto... parts) {
        ((out += parts, out += ' '), ...);
        out += '\n';
    };
    const SliceTable& s = p.slices;
    for (std::size_t i = 0; i < s.size(); ++i) {
        add(std::to_string(s.start[i]), std::to_string(s.dur[i]), std::string(p.str(s.name[i])),
            std::string(p.str(s.category[i])), std::to_string(s.track[i].v), std::to_string(s.depth[i]),
            std::to_string(s.taskId[i]));
        std::string error;
        if (!p.args.forEach(s.args[i], p.strings,
                            [&](std::string_view k, std::string_view v) { add(std::string(k), std::string(v)); }, &error))
            add("arguments not read:", error);
    }
    for (std::size_t f = 0; f < p.flows.size(); ++f)
        add(p.flows.idOf(f, p.strings), p.flows.nameOf(f, p.strings), std::to_string(p.flows.srcTs[f]),
            std::to_string(p.flows.dstTs[f]), std::to_string(p.flows.srcSlice[f]), std::to_string(p.flows.dstSlice[f]));
    for (const CounterSeries& c : p.counters) {
        add(std::string(p.str(c.name)), std::string(p.str(c.key)), std::to_string(c.pid));
        for (std::size_t k = 0; k < c.ts.size(); ++k)
            add(std::to_string(c.ts[k]), std::to_string(c.value[k]));
    }
    for (const Track& t : p.tracks)
        add(std::to_string(t.pid), std::string(p.str(t.process)), std::string(p.str(t.thread)),
            std::to_string(t.sliceBegin), std::to_string(t.sliceEnd));
    for (const Diagnostic& d : p.diagnostics)
        add(std::to_string(d.byteOffset), d.reason, std::to_string(d.count));
    return out;
}

// Where two descriptions part, and what each says from there.
QString firstDifference(const std::string& a, const std::string& b)
{
    std::size_t k = 0;
    while (k < a.size() && k < b.size() && a[k] == b[k])
        ++k;
    return QStringLiteral("differ at %1: %2 | %3")
        .arg(k)
        .arg(QString::fromStdString(a.substr(k, 100)))
        .arg(QString::fromStdString(b.substr(k, 100)));
}

const Diagnostic* diagWith(const Profile& p, std::string_view text)
{
    for (const auto& d : p.diagnostics)
        if (d.reason.find(text) != std::string::npos)
            return &d;
    return nullptr;
}

} // namespace

class TestTimelineReader : public QObject {
    Q_OBJECT

private slots:
    void torchAdvisorTrace()
    {
        auto l = readFile(kTorchAdvisor);
        const Profile& p = l->p;
        // python3: len(events) = 3670; Counter(ph) = X 2212, s 713, f 713, M 32.
        QCOMPARE(l->rec.status, FileStatus::Loaded);
        QCOMPARE(l->rec.records, quint64(3670));
        QCOMPARE(l->rec.skipped, quint64(0));
        QCOMPARE(l->rec.note, std::string("X 2212, M 32, s 713, f 713"));
        // python3: X events per process kind: Python 1007, CANN 382, Ascend Hardware 276, Overlap 547.
        auto k = slicesPerKind(p);
        QCOMPARE(k[TrackKind::Python], qint64(1007));
        QCOMPARE(k[TrackKind::Cann], qint64(382));
        QCOMPARE(k[TrackKind::Stream], qint64(276));
        QCOMPARE(k[TrackKind::Overlap], qint64(547));
        QCOMPARE(p.tracks.size(), std::size_t(10)); // distinct (pid, tid) of X events
        // python3: sum of Decimal(dur)*1000 over Ascend Hardware X events.
        QCOMPARE(sumDur(p, TrackKind::Stream), qint64(1790457));
        // python3: s/f paired by (cat, str(id)), an f written before its s waiting for it (the
        // device side is written first): 713 (HostToDevice 274, async_npu 274,
        // async_task_queue 148, fwdbwd 17); 56 HostToDevice if f had to follow s.
        QCOMPARE(p.flows.size(), std::size_t(713));
        std::map<std::string, int> byCat;
        for (std::size_t f = 0; f < p.flows.size(); ++f)
            ++byCat[std::string(p.str(p.flows.category[f]))];
        QCOMPARE(byCat["async_npu"], 274);
        QCOMPARE(byCat["HostToDevice"], 274);
        QCOMPARE(byCat["async_task_queue"], 148);
        // Each HostToDevice flow is named "HostToDevice" + its id: not stored, rebuilt on demand;
        // other names are kept as written.
        int derived = 0;
        for (std::size_t i = 0; i < p.flows.size(); ++i) {
            const std::string cat(p.str(p.flows.category[i]));
            if (cat == "HostToDevice") {
                derived += p.flows.name[i].valid() ? 0 : 1;
                QCOMPARE(p.flows.nameOf(i, p.strings), cat + p.flows.idOf(i, p.strings));
            } else {
                QVERIFY(p.flows.name[i].valid());
            }
        }
        QCOMPARE(derived, 274);
        // async_npu ids > 2^53 stay exact, and the f binds to the device task at that very ns.
        const int f = flowWithId(p, "1704161511422904204");
        QVERIFY(f >= 0);
        QCOMPARE(p.flows.idNumber[f], quint64(1704161511422904204)); // 19 digits: kept by value
        QVERIFY(!p.flows.idText[f].valid());
        QCOMPARE(p.str(p.flows.category[f]), std::string_view("async_npu"));
        QCOMPARE(p.flows.dstTs[f], TimeNs(1704161511422904204));
        QVERIFY(p.flows.dstSlice[f] != kNone);
        QCOMPARE(p.slices.start[p.flows.dstSlice[f]], TimeNs(1704161511422904204));
        QCOMPARE(p.tracks[p.slices.track[p.flows.dstSlice[f]].v].kind, TrackKind::Stream);
        // pid > 2^32 kept as is; old torch_npu pids are not decoded as msprof packed pids.
        bool overlap = false;
        for (const auto& t : p.tracks) {
            if (t.pid == 4376751100LL) {
                overlap = true;
                QCOMPARE(t.kind, TrackKind::Overlap);
                QCOMPARE(t.device, -1);
            }
            if (t.kind == TrackKind::Stream) {
                QCOMPARE(t.pid, qint64(800));
                QCOMPARE(t.streamId, qint64(3)); // "Stream Id": 3 == tid
                QCOMPARE(t.device, -1);
            }
        }
        QVERIFY(overlap);
        // Device tasks: Task Type as category, Task Id as column, no args row.
        for (std::size_t i = 0; i < p.slices.size(); ++i) {
            if (p.slices.start[i] == 1704161511422904204 && p.tracks[p.slices.track[i].v].kind == TrackKind::Stream) {
                QCOMPARE(p.str(p.slices.category[i]), std::string_view("Other"));
                QCOMPARE(p.slices.taskId[i], 279u);
                QCOMPARE(p.slices.args[i], kNone);
                QCOMPARE(p.slices.dur[i], TimeNs(1350)); // "dur": 1.35
            }
        }
    }

    void msprofTrace()
    {
        auto l = readFile(kMsprof);
        const Profile& p = l->p;
        // python3: 95 events: X 61, M 28, C 4, s 1, f 1.
        QCOMPARE(l->rec.records, quint64(95));
        QCOMPARE(l->rec.status, FileStatus::Loaded);
        auto k = slicesPerKind(p);
        QCOMPARE(k[TrackKind::Stream], qint64(5));
        QCOMPARE(k[TrackKind::Cann], qint64(54));
        QCOMPARE(k[TrackKind::Overlap], qint64(2));
        QCOMPARE(sumDur(p, TrackKind::Stream), qint64(176940));
        QCOMPARE(sumDur(p, TrackKind::Overlap, "Free"), qint64(15637552140));
        // Packed pids: 2798151072 & 31 = 0 (NPU 0); CANN 2798150911 & 31 = 31 = host.
        int streams = 0;
        for (const auto& t : p.tracks) {
            if (t.kind == TrackKind::Stream) {
                ++streams;
                QCOMPARE(t.device, 0);
                QCOMPARE(t.streamId, t.tid);
            }
            if (t.kind == TrackKind::Cann)
                QCOMPARE(t.device, -1);
        }
        QCOMPARE(streams, 2);
        QCOMPARE(p.devices, std::vector<int>{0});
        // The task at exactly …895.870 µs on stream 212 (the one op_summary joins exactly).
        int found = 0;
        for (std::size_t i = 0; i < p.slices.size(); ++i) {
            if (p.slices.start[i] != 1780748105187895870)
                continue;
            const Track& t = p.tracks[p.slices.track[i].v];
            if (t.kind != TrackKind::Stream)
                continue;
            ++found;
            QCOMPARE(t.streamId, qint64(212));
            QCOMPARE(p.str(p.slices.name[i]), std::string_view("main_kernel"));
            QCOMPARE(p.str(p.slices.category[i]), std::string_view("MIX_AIC"));
            QCOMPARE(p.slices.taskId[i], 0u);
            QCOMPARE(p.slices.dur[i], TimeNs(96160));
        }
        QCOMPARE(found, 1);
        // AI Core Freq counter (MHz): 1800, 800, 1800, 1800.
        QCOMPARE(p.counters.size(), std::size_t(1));
        const CounterSeries& c = p.counters[0];
        QCOMPARE(p.str(c.process), std::string_view("AI Core Freq"));
        QCOMPARE(p.str(c.key), std::string_view("MHz"));
        QCOMPARE(c.device, 0);
        QCOMPARE(c.value, (std::vector<double>{1800, 800, 1800, 1800}));
        QCOMPARE(c.ts.front(), TimeNs(1780748089515973000));
        // HostToDevice flow, string id kept as text, bound to Node@launch -> main_kernel.
        QCOMPARE(p.flows.size(), std::size_t(1));
        QCOMPARE(p.flows.idOf(0, p.strings), std::string("197568495616"));
        QCOMPARE(p.flows.idNumber[0], quint64(197568495616)); // a plain number: kept by value
        QCOMPARE(p.str(p.flows.category[0]), std::string_view("HostToDevice"));
        QCOMPARE(p.flows.srcTs[0], TimeNs(1780748105187489490));
        QVERIFY(p.flows.dstSlice[0] != kNone);
        QCOMPARE(p.str(p.slices.name[p.flows.dstSlice[0]]), std::string_view("main_kernel"));
        QVERIFY(p.flows.srcSlice[0] != kNone);
        QCOMPARE(p.tracks[p.slices.track[p.flows.srcSlice[0]].v].kind, TrackKind::Cann);
    }

    void torchLevel1Trace()
    {
        auto l = readFile(kLevel1);
        const Profile& p = l->p;
        // python3: 10112 events: C 4431, X 4384, f 611, s 606, M 80.
        QCOMPARE(l->rec.records, quint64(10112));
        QCOMPARE(l->rec.note, std::string("X 4384, M 80, C 4431, s 606, f 611"));
        // python3: X per kind: Python 2460, Stream 535, CANN 707, Overlap 382, HCCL Plane 296,
        // HCCL Group 4.
        auto k = slicesPerKind(p);
        QCOMPARE(k[TrackKind::Python], qint64(2460));
        QCOMPARE(k[TrackKind::Stream], qint64(535));
        QCOMPARE(k[TrackKind::Cann], qint64(707));
        QCOMPARE(k[TrackKind::Overlap], qint64(382));
        QCOMPARE(k[TrackKind::CommPlane], qint64(296));
        QCOMPARE(k[TrackKind::CommGroup], qint64(4));
        QCOMPARE(k[TrackKind::Other], qint64(0));
        QCOMPARE(sumDur(p, TrackKind::Stream), qint64(241788256));
        QCOMPARE(sumDur(p, TrackKind::Overlap, "Free"), qint64(25744050));
        // python3: distinct (pid, name, args key) of C events = 30, samples 7183; per process:
        // Acc PMU 8, HBM 8, NPU MEM 6, LLC 4, Stars Soc Info 2, QoS 1, AI Core Freq 1.
        QCOMPARE(p.counters.size(), std::size_t(30));
        std::map<std::string, int> perProcess;
        std::size_t samples = 0;
        for (const auto& c : p.counters) {
            ++perProcess[std::string(p.str(c.process))];
            samples += c.ts.size();
        }
        QCOMPARE(samples, std::size_t(7183));
        QCOMPARE(perProcess["Acc PMU"], 8);
        QCOMPARE(perProcess["HBM"], 8);
        QCOMPARE(perProcess["NPU MEM"], 6);
        QCOMPARE(perProcess["LLC"], 4);
        QCOMPARE(perProcess["Stars Soc Info"], 2);
        QCOMPARE(perProcess["QoS"], 1);
        QCOMPARE(perProcess["AI Core Freq"], 1);
        // python3, by (cat, str(id)) in file order: 606 s and 611 f; 567 "s f", 34 "f s" and 5
        // "s f f": one HostToDevice launch with two device tasks. Each task gets its flow from
        // the launch: 611 flows, no f left over.
        QCOMPARE(p.flows.size(), std::size_t(611));
        QVERIFY(!diagWith(p, "flow ends (f) without a start"));
        std::vector<std::size_t> fanOut;
        for (std::size_t f = 0; f < p.flows.size(); ++f)
            if (p.flows.idOf(f, p.strings) == "1404")
                fanOut.push_back(f);
        QCOMPARE(fanOut.size(), std::size_t(2));
        for (std::size_t f : fanOut)
            QCOMPARE(p.flows.srcTs[f], TimeNs(1736408883737250330)); // the launch's s
        QCOMPARE((std::set<TimeNs>{p.flows.dstTs[fanOut[0]], p.flows.dstTs[fanOut[1]]}),
                 (std::set<TimeNs>{1736408883738024379, 1736408883738071240})); // its two f
        // Non-task slices keep their args (Call stack, Input Dims ... as text).
        bool callStack = false;
        for (std::size_t i = 0; i < p.slices.size() && !callStack; ++i) {
            if (p.slices.args[i] == kNone)
                continue;
            const auto r = p.args.rows[p.slices.args[i]];
            for (std::uint32_t j = r.begin; j < r.begin + r.count; ++j)
                if (p.str(p.args.key(j)) == "Call stack" &&
                    p.args.value(j, p.strings).find("main.py(345): train") != std::string_view::npos)
                    callStack = true;
        }
        QVERIFY(callStack);
    }

    void physicStreamDiffersFromTid()
    {
        const std::string json = "[\n"
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"tid\":0,\"args\":{\"name\":\"Ascend Hardware\"}},\n"
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":7,\"tid\":0,\"args\":{\"labels\":\"NPU 3\"}},\n"
    "{\"ph\":\"X\",\"name\":\"k\",\"pid\":7,\"tid\":5,\"ts\":\"10.5\",\"dur\":1,\"args\":{\"Task Type\":\"AI_CORE\",\"Task Id\":9,\"Physic Stream Id\":17}}\n"
    "]";
        auto l = readText(json);
        QCOMPARE(l->p.tracks.size(), std::size_t(1));
        QCOMPARE(l->p.tracks[0].kind, TrackKind::Stream);
        QCOMPARE(l->p.tracks[0].streamId, qint64(17));
        QCOMPARE(l->p.tracks[0].device, 3);
        QCOMPARE(l->p.slices.start[0], TimeNs(10500));
        QCOMPARE(l->p.slices.taskId[0], 9u);
    }

    // Values of every length around the inline limit, and more distinct keys than an argument's
    // 16-bit key index holds: every argument reads back as written.
    void argumentsOfEveryLengthAndKey()
    {
        constexpr int kEvents = 70000, kKeys = 68000;
        std::string json = "[\n";
        std::vector<std::string> values;
        for (int i = 0; i < kEvents; ++i) {
            values.push_back((std::to_string(i) + "abcdefghijklmn").substr(0, i % 15));
            json += "{\"ph\":\"X\",\"name\":\"op\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(i) +
                    ",\"dur\":1,\"args\":{\"key " + std::to_string(i % kKeys) + "\":\"" + values.back() +
                    "\",\"common\":" + std::to_string(i) + "}}" + (i + 1 < kEvents ? ",\n" : "\n");
        }
        json += "]";
        auto l = readText(json);
        const Profile& p = l->p;
        QCOMPARE(p.slices.size(), std::size_t(kEvents));
        QCOMPARE(p.args.keys.size(), std::size_t(ArgTable::kKeyInText));
        int keyInText = 0, pooled = 0;
        for (int i = 0; i < kEvents; ++i) {
            QCOMPARE(p.slices.start[i], TimeNs(i) * 1000);
            const ArgTable::Range r = p.args.rows[p.slices.args[i]];
            QCOMPARE(r.count, 2u);
            QCOMPARE(p.str(p.args.key(r.begin)), std::string_view("key " + std::to_string(i % kKeys)));
            QCOMPARE(p.args.value(r.begin, p.strings), std::string_view(values[i]));
            QCOMPARE(p.str(p.args.key(r.begin + 1)), std::string_view("common"));
            QCOMPARE(p.args.value(r.begin + 1, p.strings), std::string_view(std::to_string(i)));
            QCOMPARE(p.args.find(p.slices.args[i], "common", p.strings), std::to_string(i));
            // "key 0" and "common" come first, then "key 1" ...: "key 65533" takes the last index.
            const bool inText = i % kKeys >= 65534;
            QCOMPARE(p.args.args[r.begin].key == ArgTable::kKeyInText, inText);
            QCOMPARE(p.args.args[r.begin].size == ArgTable::kPooled, inText || values[i].size() > ArgTable::kInline);
            keyInText += inText;
            pooled += values[i].size() > ArgTable::kInline;
        }
        QCOMPARE(keyInText, kKeys - 65534);
        QVERIFY(pooled > 20000);
    }

    void flowIdsAsWritten()
    {
        // Ids pair by their text: "7" and 7 are one id; "007", "7.0" and "-7" are others.
        const char* json = R"([
{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":100},
{"ph":"X","name":"b","pid":1,"tid":2,"ts":50,"dur":100},
{"ph":"s","name":"n7","cat":"c","id":"7","pid":1,"tid":1,"ts":10},
{"ph":"s","name":"c007","cat":"c","id":"007","pid":1,"tid":1,"ts":11},
{"ph":"s","name":"x","cat":"c","id":"7.0","pid":1,"tid":1,"ts":12},
{"ph":"s","cat":"c","id":-7,"pid":1,"tid":1,"ts":13},
{"ph":"f","bp":"e","name":"n7","cat":"c","id":7,"pid":1,"tid":2,"ts":60},
{"ph":"f","bp":"e","cat":"c","id":"007","pid":1,"tid":2,"ts":61},
{"ph":"f","bp":"e","cat":"c","id":7.0,"pid":1,"tid":2,"ts":62},
{"ph":"f","bp":"e","cat":"c","id":"-7","pid":1,"tid":2,"ts":63},
{"ph":"s","name":"d18446744073709551615","cat":"d","id":18446744073709551615,"pid":1,"tid":1,"ts":14},
{"ph":"f","bp":"e","cat":"d","id":"18446744073709551615","pid":1,"tid":2,"ts":64},
{"ph":"s","name":"big","cat":"d","id":123456789012345678901,"pid":1,"tid":1,"ts":15},
{"ph":"f","bp":"e","cat":"d","id":"123456789012345678901","pid":1,"tid":2,"ts":65}
])";
        auto l = readText(json);
        const Profile& p = l->p;
        QCOMPARE(p.flows.size(), std::size_t(6));
        std::map<std::string, std::pair<std::string, TimeNs>> byId; // id -> (name, f ts)
        for (std::size_t i = 0; i < p.flows.size(); ++i)
            byId[p.flows.idOf(i, p.strings)] = {p.flows.nameOf(i, p.strings), p.flows.dstTs[i]};
        using E = std::pair<std::string, TimeNs>;
        QCOMPARE(byId["7"], E("n7", 60'000));
        QCOMPARE(byId["007"], E("c007", 61'000)); // the category + the id: rebuilt, not stored
        QCOMPARE(byId["7.0"], E("x", 62'000));
        QCOMPARE(byId["-7"], E("", 63'000));      // no name: the empty string, not rebuilt
        QCOMPARE(byId["18446744073709551615"], E("d18446744073709551615", 64'000));
        QCOMPARE(byId["123456789012345678901"], E("big", 65'000));
        QCOMPARE(int(std::count_if(p.flows.name.begin(), p.flows.name.end(), [](NameId n) { return !n.valid(); })), 2);
        // Only "7" is a plain number (at most 19 digits); the others keep their text.
        QCOMPARE(int(std::count_if(p.flows.idText.begin(), p.flows.idText.end(), [](NameId n) { return !n.valid(); })), 1);
    }

    void truncatedAtSeveralOffsets_data()
    {
        QTest::addColumn<int>("cut");
        // Offsets inside the msprof sample; expected complete events computed with python3 by
        // counting top-level objects that end before the cut.
        QTest::newRow("mid first event") << 100;
        QTest::newRow("mid file") << 12000;
        QTest::newRow("near end") << 25000;
    }

    void truncatedAtSeveralOffsets()
    {
        QFETCH(int, cut);
        const std::string full = fileBytes(kMsprof);
        const std::string cutText = full.substr(0, static_cast<std::size_t>(cut));
        // Independent count: raw_decode each element in order until it fails.
        int expected = 0;
        std::size_t lastStart = 0;
        {
            // Events in this file are pretty-printed objects starting with "  {" at line start
            // and ending with "  }" lines; count the closers before the cut.
            std::size_t pos = 0;
            while ((pos = full.find("\n  }", pos)) != std::string::npos && pos + 4 <= cutText.size()) {
                ++expected;
                pos += 4;
            }
            lastStart = full.rfind("\n  {", cutText.size());
        }
        auto l = readText(cutText, "cut.json");
        QCOMPARE(l->rec.status, expected == 0 ? FileStatus::Failed : FileStatus::Partial);
        QCOMPARE(l->rec.records, quint64(expected));
        QCOMPARE(l->rec.skipped, quint64(1));
        const Diagnostic* d = diagWith(l->p, "incomplete");
        QVERIFY(d);
        QCOMPARE(d->byteOffset, qint64(lastStart + 3)); // the '{' of the cut event
        QCOMPARE(d->severity, Severity::Error);
        QVERIFY(d->reason.find(std::to_string(lastStart + 3)) != std::string::npos);
    }

    void malformedEventInTheMiddle()
    {
        const std::string json = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2},\n"
    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":,\"dur\":2},\n"
    "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":2}]";
        auto l = readText(json);
        QCOMPARE(l->rec.status, FileStatus::Partial);
        QCOMPARE(l->rec.records, quint64(2));
        QCOMPARE(l->rec.skipped, quint64(1));
        const Diagnostic* d = diagWith(l->p, "malformed event");
        QVERIFY(d);
        QCOMPARE(d->byteOffset, qint64(json.find("{\"ph\":\"X\",\"name\":\"b\"")));
        QCOMPARE(l->p.slices.size(), std::size_t(2));
    }

    // One byte of a real msprof timeline damaged inside a bare value ("pid": 2798150911 ->
    // 27x8150911, and the same in "tid", "ts", "dur" and an argument): no JSON number, so the event is
    // skipped and named by its offset, read with or without the plain-form reader; simdjson's raw
    // token alone would have taken "27x8150911" as a process name.
    void damagedBareValuesInRealTrace_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<bool>("plain");
        for (const bool plain : {true, false}) {
            const char* mode = plain ? "plain" : "simdjson";
            QTest::newRow((std::string("pid ") + mode).c_str()) << "\"pid\": 2798150911" << "\"pid\": 27x8150911" << plain;
            QTest::newRow((std::string("tid ") + mode).c_str()) << "\"tid\": 2732569" << "\"tid\": 27325x9" << plain;
            QTest::newRow((std::string("ts ") + mode).c_str()) << "\"ts\": \"" << "\"ts\": x\"" << plain;
            QTest::newRow((std::string("argument ") + mode).c_str()) << "\"Batch Id\": 0," << "\"Batch Id\": x,"
                                                                      << plain;
            QTest::newRow((std::string("dur ") + mode).c_str()) << "\"dur\": 0.02," << "\"dur\": 0.0x," << plain;
        }
    }
    void damagedBareValuesInRealTrace()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(bool, plain);
        const std::string clean = fileBytes(kMsprof);
        const std::size_t at = clean.find(from.toStdString());
        QVERIFY(at != std::string::npos);
        std::string damaged = clean;
        damaged.replace(at, from.size(), to.toStdString());
        auto a = readText(clean, "msprof.json", 0, plain);
        auto b = readText(damaged, "msprof.json", 0, plain);
        QCOMPARE(a->rec.status, FileStatus::Loaded);
        QCOMPARE(b->rec.status, FileStatus::Partial);
        QCOMPARE(b->rec.records, a->rec.records - 1);
        QCOMPARE(b->rec.skipped, quint64(1));
        const Diagnostic* d = diagWith(b->p, "malformed event");
        QVERIFY(d);
        QCOMPARE(d->byteOffset, qint64(damaged.rfind("\n  {\n", at) + 3)); // the event's own brace
        QCOMPARE(b->p.tracks.size() <= a->p.tracks.size(), true); // no process named by the damage
    }

    void toleratedShapes()
    {
        // Missing ']': every event complete, so all kept (warning only).
        auto a = readText("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2},\n"
    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":2}");
        QCOMPARE(a->rec.records, quint64(2));
        QCOMPARE(a->rec.skipped, quint64(0));
        QVERIFY(diagWith(a->p, "no closing ']'"));
        // Trailing comma and trailing {}.
        auto b = readText("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2},{},]");
        QCOMPARE(b->rec.status, FileStatus::Loaded);
        QCOMPARE(b->rec.records, quint64(1));
        QCOMPARE(b->p.slices.size(), std::size_t(1));
        // Wrapper with other keys before and after traceEvents, systemTraceEvents as a string.
        auto c = readText("{\"displayTimeUnit\":\"ns\",\"metadata\":{\"x\":[1,{\"y\":\"]}\"}]},\n"
    " \"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":\"1.5\",\"dur\":0.0}],\n"
    " \"systemTraceEvents\":\"# tracer: nop\\n\",\"stackFrames\":{}}");
        QCOMPARE(c->rec.status, FileStatus::Loaded);
        QCOMPARE(c->rec.records, quint64(1));
        QCOMPARE(c->p.slices.start[0], TimeNs(1500));
        QCOMPARE(c->p.slices.dur[0], TimeNs(0));
        // String pids get a stable synthetic id and are named by their string.
        auto d = readText("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":\"foo\",\"tid\":\"bar\",\"ts\":1,\"dur\":1},\n"
    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":\"foo\",\"tid\":\"bar\",\"ts\":3,\"dur\":1},{\"ph\":\"X\",\"name\":\"c\",\"pid\":\"baz\",\"ts\":3,\"dur\":1}]");
        QCOMPARE(d->p.tracks.size(), std::size_t(2));
        QCOMPARE(d->p.str(d->p.tracks[0].process), std::string_view("foo"));
        QCOMPARE(d->p.str(d->p.tracks[0].thread), std::string_view("bar"));
        QCOMPARE(d->p.str(d->p.tracks[1].process), std::string_view("baz"));
        QVERIFY(d->p.tracks[0].pid != d->p.tracks[1].pid);
    }

    void notATrace()
    {
        auto e = readText("", "empty.json");
        QCOMPARE(e->rec.status, FileStatus::Failed);
        QVERIFY(e->rec.note.find("empty") != std::string::npos);
        QVERIFY(diagWith(e->p, "empty file"));
        auto o = readText("{\"tasks\":[{\"name\":\"a\"}]}", "tasks.json");
        QCOMPARE(o->rec.status, FileStatus::Failed);
        QVERIFY(o->rec.note.find("traceEvents") != std::string::npos);
        auto n = readText("[1, 2, 3]", "numbers.json");
        QCOMPARE(n->rec.status, FileStatus::Failed);
        QCOMPARE(n->rec.skipped, quint64(3));
        auto x = readText("hello", "text.json");
        QCOMPARE(x->rec.status, FileStatus::Failed);
    }

    void progressAndCancel()
    {
        const std::string json = fileBytes(kLevel1);
        Profile p;
        ReadContext ctx;
        ctx.file = "level1";
        std::uint64_t last = 0;
        ctx.progress = [&](std::uint64_t done) { last = done; };
        std::atomic<bool> cancel{true};
        ctx.cancel = &cancel;
        FileRecord r = readers::readTimelineJson(json, p, ctx);
        QCOMPARE(r.status, FileStatus::Partial);
        QVERIFY(r.note.find("cancelled") != std::string::npos);
        QCOMPARE(r.records, quint64(0));
        cancel = false;
        Profile q;
        r = readers::readTimelineJson(json, q, ctx);
        QCOMPARE(r.status, FileStatus::Loaded);
        QCOMPARE(last, quint64(json.size()));
    }

    // A cancel that comes while both threads are scanning, parsing and building small chunks:
    // the read returns cancelled with fewer events. The cancel is raised by the reader's own
    // progress at a chosen byte (an eighth of the file to seven eighths), so where it lands does
    // not depend on how the threads are scheduled; the chunks already in flight are at most a
    // few of 97 bytes, far from the end.
    void cancelWhileChunksAreInFlight()
    {
        const std::string json = fileBytes(kLevel1);
        Profile whole;
        ReadContext plain;
        const std::uint64_t all = readers::readTimelineJson(json, whole, plain).records;
        QVERIFY(all > 1000);
        for (int eighth = 1; eighth < 8; ++eighth) {
            const std::uint64_t at = json.size() * std::uint64_t(eighth) / 8;
            Profile p;
            ReadContext ctx;
            ctx.file = "level1";
            ctx.chunkBytes = 97;
            std::atomic<bool> cancel{false};
            ctx.cancel = &cancel;
            std::uint64_t cancelledAt = 0;
            ctx.progress = [&](std::uint64_t done) {
                if (done >= at && !cancel.exchange(true))
                    cancelledAt = done;
            };
            const FileRecord r = readers::readTimelineJson(json, p, ctx);
            QVERIFY2(cancel, qPrintable(QString("progress never reached byte %1").arg(at)));
            QVERIFY2(cancelledAt < json.size(), qPrintable(QString::number(cancelledAt)));
            QVERIFY2(r.note.find("cancelled") != std::string::npos, r.note.c_str());
            QCOMPARE(r.status, FileStatus::Partial);
            QVERIFY2(r.records < all, qPrintable(QString("%1 of %2 events after a cancel at %3/8").arg(r.records).arg(all).arg(eighth)));
        }
        // And a read that is never cancelled, with the same small chunks, reads every event.
        Profile q;
        ReadContext ctx;
        ctx.chunkBytes = 97;
        std::atomic<bool> never{false};
        ctx.cancel = &never;
        const FileRecord r = readers::readTimelineJson(json, q, ctx);
        QCOMPARE(r.status, FileStatus::Loaded);
        QCOMPARE(r.records, all);
    }

    void simplifiedTasks()
    {
        const std::string json = "{\"tasks\":[\n"
    " {\"name\":\"matmul\",\"start_time\":1.0000005,\"end_time\":\"2.25\",\"ai_core_utilization\":0.85,\n"
    "  \"l2_cache_hit_rate\":92.5,\"memory_read_bytes\":1048576,\"memory_write_bytes\":2048},\n"
    " {\"name\":\"bad\",\"start_time\":3},\n"
    " {\"name\":\"add\",\"start_time\":1780748105187.895870,\"end_time\":1780748105187.995870,\"ai_core_utilization\":40,\n"
    "  \"l2_cache_hit_rate\":0.5,\"memory_read_bytes\":0,\"memory_write_bytes\":1}\n"
    "]}";
        QVERIFY(readers::looksLikeSimplifiedTasks(json.substr(0, 64)));
        QVERIFY(!readers::looksLikeSimplifiedTasks("{\"traceEvents\":[]}"));
        Profile p;
        ReadContext ctx;
        ctx.file = "simple.json";
        FileRecord r = readers::readSimplifiedTasksJson(json, p, ctx);
        p.finalize();
        QCOMPARE(r.records, quint64(2));
        QCOMPARE(r.skipped, quint64(1));
        QCOMPARE(r.status, FileStatus::Partial);
        QVERIFY(diagWith(p, "tasks[1]"));
        QCOMPARE(p.layout, std::string("simplified JSON"));
        QCOMPARE(p.tracks.size(), std::size_t(1));
        QCOMPARE(p.tracks[0].kind, TrackKind::Stream);
        QCOMPARE(p.str(p.tracks[0].process), std::string_view("Ascend Hardware"));
        QCOMPARE(p.str(p.tracks[0].thread), std::string_view("Stream 0"));
        QCOMPARE(p.tracks[0].device, 0);
        // ms -> ns exactly from the text: 1.0000005 ms = 1000000.5 ns -> 1000001 (half away from 0).
        QCOMPARE(p.kernels.size(), std::size_t(2));
        QCOMPARE(p.kernels.start[0], TimeNs(1000001));
        QCOMPARE(p.kernels.dur[0], TimeNs(2250000 - 1000001));
        QCOMPARE(p.kernels.start[1], TimeNs(1780748105187895870));
        QCOMPARE(p.kernels.dur[1], TimeNs(100000));
        const int util = p.kernels.metricIndex("cube_utilization(%)");
        const int l2 = p.kernels.metricIndex("l2_hit_rate");
        const int rd = p.kernels.metricIndex("memory_read_bytes");
        QVERIFY(util >= 0 && l2 >= 0 && rd >= 0);
        QCOMPARE(p.kernels.metric(util, 0), 85.0);
        QCOMPARE(p.kernels.metric(util, 1), 40.0); // 40 > 1: already a percentage
        QCOMPARE(p.kernels.metric(l2, 0), 0.925);  // 92.5 > 1: percent -> 0..1
        QCOMPARE(p.kernels.metric(l2, 1), 0.5);
        QCOMPARE(p.kernels.metric(rd, 0), 1048576.0);
        for (std::size_t k = 0; k < p.kernels.size(); ++k) {
            const auto s = p.kernels.slice[k];
            QVERIFY(s != kNone);
            QCOMPARE(p.slices.kernel[s], std::uint32_t(k));
            QCOMPARE(p.slices.start[s], p.kernels.start[k]);
        }
    }

    // The events array is read in chunks cut at event boundaries: the profile must not depend on
    // where they fall.
    void chunkingDoesNotChangeTheProfile_data()
    {
        QTest::addColumn<std::string>("json");
        const std::string catapult = kSamples + "/chrome-trace/catapult/tracing/test_data/";
        QTest::newRow("torch advisor") << fileBytes(kTorchAdvisor);
        QTest::newRow("msprof") << fileBytes(kMsprof);
        QTest::newRow("torch level1") << fileBytes(kLevel1);
        for (const char* f : {"flow.json", "big_trace.json", "v8_runtime_call_stats.json"})
            QTest::newRow(f) << fileBytes(catapult + f);
        // Event boundaries inside strings and inside nested arrays of objects, pretty-printed
        // separators, a malformed event, a non-object element, and a wrapper whose other members
        // follow the events array.
        std::string tricky = "{\"traceEvents\": [\n";
        for (int i = 0; i < 200; ++i) {
            const std::string n = std::to_string(i);
            tricky += "  {\"ph\":\"X\",\"name\":\"op" + n + "\",\"pid\":1,\"tid\":" + std::to_string(i % 3) +
                      ",\"ts\":" + std::to_string(i * 10) + ",\"dur\":5,\"args\":{";
            if (i % 4 == 0)
                tricky += "\"text\":\"a},{b}, {c \\\"},{\\\" d\"";
            else if (i % 4 == 1)
                tricky += "\"list\":[{\"x\":1},{\"y\":[{},{}]}, {}]";
            else
                tricky += "\"n\":" + n;
            tricky += "}}";
            if (i == 77)
                tricky += ",\n  {\"ph\":\"X\",\"name\":\"bad\",\"ts\":,\"dur\":1}";
            if (i == 123)
                tricky += ", 42";
            tricky += i + 1 < 200 ? " ,\n  " : "\n";
        }
        tricky += "], \"otherData\": {\"a\":[{\"b\":1},{\"c\":2}]}, \"stackFrames\": {}}";
        QTest::newRow("tricky") << tricky;
        // A key after a value and a stray '}' (found by fuzzing): simdjson alone would read the
        // event and go on; the reader stops at the brace, whatever the chunks.
        std::string stray = "[";
        for (int i = 0; i < 40; ++i)
            stray += "{\"ph\": \"X\", \"name\": \"op\", \"pid\": 1, \"tid\": 1, \"ts\": \"" + std::to_string(10 * i) +
                     (i == 20 ? " id\": 0}}, " : "\", \"dur\": 2.5, \"args\": {\"Sequence number\": -1}}, ");
        QTest::newRow("stray brace") << stray.substr(0, stray.size() - 2) + "]";
        // Stretches of plain events between stretches of events with escapes (as torch_npu
        // writes operators' shapes, "Input Dims": "4,8;\r\n8"): chunks are cut exactly in the
        // latter and by guesses again after a run of plain chunks, which the next stretch of
        // escapes then breaks, at every place in a chunk.
        std::string stretches = "[";
        int id = 0;
        for (int stretch = 0; stretch < 24; ++stretch)
            for (int i = 0; i < (stretch % 2 ? 3 + stretch : 40 + 7 * stretch); ++i, ++id) {
                const std::string n = std::to_string(id);
                stretches += std::string(id ? ", " : "") + "{\"ph\": \"X\", \"name\": \"op" + n +
                             "\", \"pid\": 7, \"tid\": " + std::to_string(id % 2) + ", \"ts\": \"" +
                             std::to_string(1000 + 10 * id) + ".500\", \"dur\": 4.25, \"args\": {\"Input Dims\": \"" +
                             (stretch % 2 ? "4," + n + ";\\r\\n8" : n) + "\", \"Sequence number\": " + n + "}}";
            }
        QTest::newRow("stretches of escapes") << stretches + "]";
    }

    void chunkingDoesNotChangeTheProfile()
    {
        QFETCH(std::string, json);
        const std::string whole = describe(*readText(json, "t.json", std::uint64_t(1) << 40));
        QVERIFY(whole.size() > 1000);
        // Tiny chunks hand work between the two threads thousands of times per file: repeated,
        // to give an ordering mistake in the shared loop a chance to show.
        for (std::size_t inFlight : {2, 3})
            for (std::uint64_t chunk : {97, 97, 97, 97, 700, 4096, 65536}) {
                const bool copied = chunk % 2 == 0 || inFlight == 3; // both ways with the tiniest chunks
                const std::string chunked = describe(*readText(json, "t.json", chunk, true, inFlight, copied));
                if (chunked != whole)
                    QFAIL(qPrintable(QStringLiteral("%1 chunks in flight of %2 bytes%3: %4")
                                         .arg(inFlight)
                                         .arg(chunk)
                                         .arg(copied ? " copied" : "")
                                         .arg(firstDifference(whole, chunked))));
            }
    }

    // Events of the plain form are read without simdjson (plain_event_reader.h): every file and
    // every odd event below must be stored exactly as simdjson's reading stores it, read whole
    // and one event per chunk (a chunk is read the plain way only when all its events are plain).
    void plainFormReadAsSimdjsonReadsIt_data()
    {
        QTest::addColumn<std::string>("json");
        const std::string catapult = kSamples + "/chrome-trace/catapult/tracing/test_data/";
        const std::string text = kSamples + "/msinsight/test/data/pytorch/text/";
        QTest::newRow("torch advisor") << fileBytes(kTorchAdvisor);
        QTest::newRow("msprof") << fileBytes(kMsprof);
        for (const char* level : {"level0", "level1", "level2"})
            QTest::newRow(level) << fileBytes(text + level + "/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json");
        for (const char* f : {"flow.json", "big_trace.json", "v8_runtime_call_stats.json", "x_event_trace.json"})
            QTest::newRow(f) << fileBytes(catapult + f);
        QTest::newRow("odd events") << oddEventsTrace();
    }

    void plainFormReadAsSimdjsonReadsIt()
    {
        QFETCH(std::string, json);
        for (std::uint64_t chunk : {std::uint64_t(1) << 40, std::uint64_t(1)}) {
            const std::string general = describe(*readText(json, "t.json", chunk, false));
            const std::string plain = describe(*readText(json, "t.json", chunk, true));
            QVERIFY(general.size() > 100);
            if (plain != general)
                QFAIL(qPrintable(QStringLiteral("chunks of %1 bytes, simdjson | plain: %2")
                                     .arg(chunk)
                                     .arg(firstDifference(general, plain))));
        }
    }

    // Arguments kept as the events' offsets (a large file's, ArgTable's lazy rows) are read again
    // exactly as they would have been stored: every file and odd event above, whichever way its
    // events were read at load (plain or simdjson, whole or one event per chunk).
    void lazyArgumentsReadAsStored_data() { plainFormReadAsSimdjsonReadsIt_data(); }

    void lazyArgumentsReadAsStored()
    {
        QFETCH(std::string, json);
        QTemporaryDir dir;
        const std::string path = dir.filePath("trace_view.json").toStdString();
        writeBytes(path, json);
        for (std::uint64_t chunk : {std::uint64_t(1) << 40, std::uint64_t(1)})
            for (bool plain : {true, false}) {
                const auto eager = readText(json, path, chunk, plain);
                const auto lazy = readLazy(path, chunk, plain);
                QVERIFY(lazy->p.args.args.empty());
                QCOMPARE(lazy->p.args.rows.size(), eager->p.args.rows.size());
                for (std::size_t r = 0; r < lazy->p.args.rows.size(); ++r)
                    QCOMPARE(lazy->p.args.isLazy(static_cast<std::uint32_t>(r)), eager->p.args.rows[r].count > 0);
                const std::string a = describe(*eager), b = describe(*lazy);
                if (a != b)
                    QFAIL(qPrintable(QStringLiteral("chunks of %1 bytes, plain %2, stored | lazy: %3")
                                         .arg(chunk)
                                         .arg(plain)
                                         .arg(firstDifference(a, b))));
            }
    }

    // Many rows' arguments read at once (findMany: the lazy rows in file order, nearby events
    // with one read) are each row's own, as find() gives them and as they are stored eagerly:
    // every row of the level-1 sample in a shuffled order with repeats, no row, and an event
    // larger than one read.
    void lazyArgumentsReadMany()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("trace_view.json").toStdString();
        std::string json = fileBytes(kLevel1);
        const auto open = json.find('[');
        QVERIFY(open != std::string::npos);
        json.insert(open + 1, R"({"name":"big","ph":"X","ts":"1","dur":1,"pid":1,"tid":1,"args":{"Call stack":")"
                                  + std::string(300 << 10, 'x') + R"("}},)");
        writeBytes(path, json);
        const auto eager = readText(json, path, std::uint64_t(1) << 40, true);
        const auto lazy = readLazy(path);
        QCOMPARE(lazy->p.args.rows.size(), eager->p.args.rows.size());
        std::vector<std::uint32_t> rows;
        for (std::uint32_t r = 0; r < lazy->p.args.rows.size(); ++r)
            rows.push_back(r);
        std::mt19937 rng(1);
        std::shuffle(rows.begin(), rows.end(), rng);
        rows.insert(rows.end(), rows.begin(), rows.begin() + std::min<std::ptrdiff_t>(100, std::ssize(rows)));
        rows.push_back(kNone);
        const auto many = lazy->p.args.findMany(rows, {"Call stack", "Sequence number", "size(Byte)", "transport type"},
                                                lazy->p.strings);
        QCOMPARE(many.size(), rows.size());
        std::size_t big = 0, filled = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto want = eager->p.args.find(rows[i], {"Call stack", "Sequence number", "size(Byte)", "transport type"},
                                                 eager->p.strings);
            const auto one = lazy->p.args.find(rows[i], {"Call stack", "Sequence number", "size(Byte)", "transport type"},
                                               lazy->p.strings);
            QVERIFY2(many[i] == want && one == want, std::to_string(rows[i]).c_str());
            big += many[i][0].size() == (300u << 10);
            filled += !many[i][0].empty() || !many[i][2].empty();
        }
        QVERIFY(big >= 1);
        QVERIFY(filled > 100);
    }

    // A file changed or removed after it was read: its arguments are not read from what is there
    // now, and the reason names the file.
    void lazyArgumentsOfAChangedFile()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("trace_view.json").toStdString();
        writeBytes(path, fileBytes(kLevel1));
        auto l = readLazy(path);
        const Profile& p = l->p;
        std::uint32_t row = kNone;
        for (std::size_t i = 0; i < p.slices.size() && row == kNone; ++i)
            if (p.args.find(p.slices.args[i], "Call stack", p.strings).size() > 0)
                row = p.slices.args[i];
        QVERIFY(row != kNone);
        const std::string stack = p.args.find(row, "Call stack", p.strings);
        QVERIFY(!stack.empty());

        // Same size, one byte changed and a later modification time.
        std::string changed = fileBytes(kLevel1);
        changed[changed.size() / 2] = changed[changed.size() / 2] == ' ' ? '\t' : changed[changed.size() / 2];
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        writeBytes(path, changed);
        std::string error;
        QVERIFY(!p.args.forEach(row, p.strings, [](std::string_view, std::string_view) {}, &error));
        QVERIFY2(error.find(path) != std::string::npos && error.find("changed") != std::string::npos, error.c_str());
        QCOMPARE(p.args.find(row, "Call stack", p.strings), std::string());

        // Removed before any argument was read: not opened again.
        auto again = readLazy(path);
        QVERIFY(std::filesystem::remove(path));
        error.clear();
        QVERIFY(!again->p.args.forEach(row, again->p.strings, [](std::string_view, std::string_view) {}, &error));
        QVERIFY2(error.find(path) != std::string::npos && error.find("cannot be opened") != std::string::npos,
                 error.c_str());
    }

    // readPlainEvent on spans of exactly their bytes (the ASan build catches a read past them):
    // plain objects are read, anything else refused.
    void plainEventSpans()
    {
        const std::pair<const char*, bool> spans[] = {
            {"{}", true}, {"{ }", true}, {"{\"a\":1}", true}, {"{\"a\" : 1 }", true}, {"{\"a\":true}", true},
            {"{\"a\":\"x\"}", true}, {"{\"args\":{}}", true}, {"{\"args\":{\"k\":null}}", true},
            {"{", false}, {"}", false}, {"{\"a\":1", false}, {"{\"a\":\"}", false}, {"{\"a\":tru}", false},
            {"{\"a\":-}", true}, {"{\"a\":[]}", false}, {"{\"args\":{}", false}, {"{\"args\":{\"a\":1}", false},
            {"{\"a\":1,}", false}, {"{\"a\"}", false}, {"{\"a\":\"\\n\"}", false}, {"{\"a\":1 2}", false},
        };
        for (const auto& [text, plain] : spans) {
            const std::size_t n = std::strlen(text);
            const auto bytes = std::make_unique<char[]>(n);
            std::memcpy(bytes.get(), text, n);
            TraceEvent ev;
            std::vector<TraceArg> args;
            QVERIFY2(readPlainEvent(bytes.get(), bytes.get() + n, ev, args) == plain, text);
        }
    }

    // The scanner reads 64-byte blocks: escapes, strings and brackets across block edges must cut
    // the same elements as reading one value at a time (JsonEventScanner::valueEnd).
    void scannerCutsWhereValuesEnd()
    {
        std::string json = "[";
        for (int i = 0; i < 600; ++i) {
            json += "{\"name\":\"" + std::string(i % 67, 'x') + std::string(i % 6, '\\');
            if (i % 6 % 2) // an odd run escapes the next character
                json += '"';
            json += "]}\",\"args\":{\"v\":[" + std::string(i % 5, '[') + std::string(i % 5, ']') + "],\"q\":\"{\\\"}\"}}";
            json += i % 3 ? "," : " ,\n ";
        }
        json.back() = ']';
        std::vector<ElementSpan> expected;
        for (std::size_t p = 1; json[p] != ']';) {
            while (json[p] == ',' || json[p] == ' ' || json[p] == '\n')
                ++p;
            const std::size_t e = JsonEventScanner::valueEnd(json, p);
            QVERIFY(e != std::string_view::npos);
            expected.push_back({p, e});
            p = e;
        }
        QCOMPARE(expected.size(), std::size_t(600));
        for (std::uint64_t budget : {std::uint64_t(1), std::uint64_t(1000), std::uint64_t(1) << 30}) {
            JsonEventScanner scanner(json);
            QVERIFY(scanner.findEventsArray(nullptr));
            std::vector<ElementSpan> spans;
            while (scanner.next(spans, budget)) {
            }
            QCOMPARE(scanner.state(), JsonEventScanner::State::Closed);
            QCOMPARE(spans.size(), expected.size());
            for (std::size_t k = 0; k < spans.size(); ++k) {
                QCOMPARE(spans[k].begin, expected[k].begin);
                QCOMPARE(spans[k].end, expected[k].end);
            }
        }
    }

    // Elements that are not objects are read one value at a time; the blocks must not look for
    // the next object across all of them for each one (a million numbers took minutes).
    void scannerReadsMillionsOfNumbers()
    {
        std::string json = "[";
        for (int i = 0; i < 1000000; ++i)
            json += "7,";
        json += std::string(300, ' ') + "{\"ph\":\"X\"}]";
        JsonEventScanner scanner(json);
        QVERIFY(scanner.findEventsArray(nullptr));
        std::vector<ElementSpan> spans;
        while (scanner.next(spans, 2u << 20)) {
        }
        QCOMPARE(scanner.state(), JsonEventScanner::State::Closed);
        QCOMPARE(spans.size(), std::size_t(1000001));
        QCOMPARE(scanner.nonObjects(), std::uint64_t(1000000));
        QCOMPARE(spans.back().begin, std::uint64_t(json.size() - 11)); // {"ph":"X"}]
    }

    void mappedFile()
    {
        std::string err;
        auto m = MappedFile::open(kMsprof, &err);
        QVERIFY(m);
        QCOMPARE(m->bytes().size(), std::size_t(25216));
        QVERIFY(m->bytes().substr(0, 1) == "[");
        // A small file is read, with 64 zeros after it that a parser may read.
        QCOMPARE(m->readableAfterEnd(), std::size_t(64));
        for (std::size_t i = 0; i < 64; ++i)
            QCOMPARE(m->bytes().data()[m->bytes().size() + i], '\0');
        // A large one is mapped: the rest of its last page may be read, and reads as zeros.
        const QString big = QDir::temp().filePath(QStringLiteral("npuscope_big_%1.json").arg(QCoreApplication::applicationPid()));
        const std::size_t bigSize = (9u << 20) + 1000;
        {
            QFile f(big);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QVERIFY(f.write(QByteArray(qsizetype(bigSize), ' ')) == qint64(bigSize));
        }
        {
            auto b = MappedFile::open(big.toStdString(), &err);
            QVERIFY2(b, err.c_str());
            QCOMPARE(b->bytes().size(), bigSize);
            QCOMPARE(b->readableAfterEnd(), std::size_t(4096 - 1000));
            const char* end = b->bytes().data() + bigSize;
            QCOMPARE(end[0], '\0');
            QCOMPARE(end[4096 - 1000 - 1], '\0');
        }
        QFile::remove(big);
        const QString empty = QDir::temp().filePath(QStringLiteral("npuscope_empty_%1.json").arg(QCoreApplication::applicationPid()));
        { QFile f(empty); QVERIFY(f.open(QIODevice::WriteOnly)); }
        auto e = MappedFile::open(empty.toStdString(), &err);
        QVERIFY(e);
        QVERIFY(e->bytes().empty());
        QFile::remove(empty);
        auto missing = MappedFile::open("/nonexistent/trace.json", &err);
        QVERIFY(!missing);
        QVERIFY(err.find("/nonexistent/trace.json") != std::string::npos);
        QVERIFY(err.find("No such file") != std::string::npos);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestTimelineReader)

} // namespace test_timeline_reader

#include "test_timeline_reader.moc"
