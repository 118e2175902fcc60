// Generic Chrome Trace Event files (chrome-trace/ samples written by catapult and perfetto):
// expectations from shared/samples/real/SOURCES.md and from python3's json over the files.
#include "test_main.h"
#include "model/formats/readers.h"
#include "model/io/mapped_file.h"
#include "model/store/cancellable_rows.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <random>
#include <set>
#include <string>

namespace test_chrome_trace {

using namespace npuscope;

namespace {

const std::string kChrome = std::string(NPUSCOPE_SAMPLES) + "/chrome-trace";
const std::string kCatapult = kChrome + "/catapult/tracing/test_data/";
const std::string kPerfetto = kChrome + "/perfetto/test/trace_processor/diff_tests/";

struct Loaded {
    Profile p;
    FileRecord rec;
};

std::unique_ptr<Loaded> load(const std::string& path)
{
    auto l = std::make_unique<Loaded>();
    std::string err;
    auto m = MappedFile::open(path, &err);
    if (!m)
        qFatal("%s", err.c_str());
    ReadContext ctx;
    ctx.file = path;
    l->rec = readers::readTimelineJson(m->bytes(), l->p, ctx);
    l->p.finalize();
    return l;
}

// `json` read as the timeline file `file`, then finalized.
std::unique_ptr<Loaded> loadText(const std::string& json, const std::string& file)
{
    auto l = std::make_unique<Loaded>();
    ReadContext ctx;
    ctx.file = file;
    l->rec = readers::readTimelineJson(json, l->p, ctx);
    l->p.finalize();
    return l;
}

std::string sliceName(const Profile& p, std::uint32_t row)
{
    return row == kNone ? std::string("<none>") : std::string(p.str(p.slices.name[row]));
}

std::set<std::string> flowPairs(const Profile& p)
{
    std::set<std::string> out;
    for (std::size_t f = 0; f < p.flows.size(); ++f)
        out.insert(sliceName(p, p.flows.srcSlice[f]) + "->" + sliceName(p, p.flows.dstSlice[f]));
    return out;
}

int rowNamed(const Profile& p, std::string_view name)
{
    for (std::size_t i = 0; i < p.slices.size(); ++i)
        if (p.str(p.slices.name[i]) == name)
            return static_cast<int>(i);
    return -1;
}

const Diagnostic* diagWith(const Profile& p, std::string_view text)
{
    for (const auto& d : p.diagnostics)
        if (d.reason.find(text) != std::string::npos)
            return &d;
    return nullptr;
}

} // namespace

class TestChromeTrace : public QObject {
    Q_OBJECT

private slots:
    void flowsV1()
    {
        auto l = load(kPerfetto + "parser/parsing/flow_events_json_v1.json");
        // SOURCES.md #1: exactly 3 flows; the f at 1001 binds to the *next* slice (Blergh, 1002),
        // the t binds to its enclosing slice.
        QCOMPARE(l->p.flows.size(), std::size_t(3));
        QCOMPARE(flowPairs(l->p),
                 (std::set<std::string>{"SenderB->Blergh", "SenderA->OtherSlice", "OtherSlice->SomeSlice"}));
        QCOMPARE(l->p.flows.idOf(0, l->p.strings), std::string("0x403")); // hex id kept as written
    }

    void flowsV2()
    {
        auto l = load(kPerfetto + "parser/parsing/flow_events_json_v2.json");
        // SOURCES.md #2: 4 flows, one into a B slice.
        QCOMPARE(l->p.flows.size(), std::size_t(4));
        QCOMPARE(flowPairs(l->p), (std::set<std::string>{"SenderB->Blergh", "SenderA->OtherSlice",
                                                         "OtherSlice->SomeSlice", "OtherSlice->SomeOtherSlice"}));
        const int b = rowNamed(l->p, "SomeOtherSlice");
        QVERIFY(b >= 0);
        QCOMPARE(l->p.slices.dur[b], TimeNs(4330000 - 3333000)); // B 3333 .. E 4330 µs
        auto c = load(kPerfetto + "stdlib/dynamic_tables/connected_flow_data.json");
        // SOURCES.md #3: 7 direct links, one producer with two consumers.
        QCOMPARE(c->p.flows.size(), std::size_t(7));
        QVERIFY(flowPairs(c->p).count("Flow1_Slice0->Flow1_Slice1b"));
        QVERIFY(flowPairs(c->p).count("Flow2_Slice2->Flow2_Slice3b"));
    }

    void flowSimpleAndBigHexIds()
    {
        auto s = load(kCatapult + "flow_simple.json");
        QCOMPARE(s->p.flows.size(), std::size_t(3));
        QVERIFY(flowPairs(s->p).count("SenderB->Blergh")); // f at the same ts as Blergh
        auto l = load(kCatapult + "flow.json");
        // python3: 866 s, 886 f; ids are 64-bit hex strings kept as text. An id is reused while
        // its flow is open ("s s f f"): each f ends the oldest open s of its (cat, id), as a
        // python3 queue per key over the file gives: 849 flows, 37 f and 17 s left over, so
        // every s and f is a flow or counted (866 = 849 + 17, 886 = 849 + 37).
        QCOMPARE(l->p.flows.size(), std::size_t(849));
        const Diagnostic* noStart = diagWith(l->p, "flow ends (f) without a start");
        QVERIFY(noStart);
        QCOMPARE(noStart->count, std::uint64_t(37));
        const Diagnostic* noEnd = diagWith(l->p, "flow starts (s/t) without an end (f)");
        QVERIFY(noEnd);
        QCOMPARE(noEnd->count, std::uint64_t(17));
        bool bigHex = false;
        for (std::size_t f = 0; f < l->p.flows.size(); ++f)
            bigHex |= l->p.flows.idOf(f, l->p.strings).size() == 18; // "0x" + 16 hex digits
        QVERIFY(bigHex);
    }

    // The same id started twice before either flow ends: first start to first end, second to
    // second (the second s used to replace the first, which was lost without a count).
    void reusedFlowIdPairsInOrder()
    {
        const std::string json = R"([
{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1},
{"ph":"X","name":"b","pid":1,"tid":1,"ts":2,"dur":1},
{"ph":"X","name":"c","pid":1,"tid":2,"ts":10,"dur":1},
{"ph":"X","name":"d","pid":1,"tid":2,"ts":12,"dur":1},
{"ph":"s","name":"q","cat":"q","id":7,"pid":1,"tid":1,"ts":0},
{"ph":"s","name":"q","cat":"q","id":7,"pid":1,"tid":1,"ts":2},
{"ph":"f","bp":"e","name":"q","cat":"q","id":7,"pid":1,"tid":2,"ts":10},
{"ph":"f","bp":"e","name":"q","cat":"q","id":7,"pid":1,"tid":2,"ts":12}
])";
        const auto l = loadText(json, "reused.json");
        const Profile& p = l->p;
        QCOMPARE(p.flows.size(), std::size_t(2));
        QCOMPARE(flowPairs(p), (std::set<std::string>{"a->c", "b->d"}));
        QVERIFY(!diagWith(p, "without"));
    }

    // torch_npu's enqueue flows: thousands of starts with rising numeric ids, all written before
    // their ends. The builder queues such starts; an end is taken from the queue's head, found
    // further in by a binary search, or, for a start whose id did not rise, in the table. Every
    // way must pair each end with its own start, and count the ends and starts left over.
    void risingFlowIdsPairWhateverOrderTheEndsCome()
    {
        constexpr int kStarts = 6000;
        std::string json = "[\n";
        auto slice = [&](const std::string& name, int tid, long long ts) {
            json += "{\"ph\":\"X\",\"name\":\"" + name + "\",\"pid\":1,\"tid\":" + std::to_string(tid)
                + ",\"ts\":" + std::to_string(ts) + ",\"dur\":1},\n";
        };
        auto flow = [&](char ph, int id, int tid, long long ts) {
            json += "{\"ph\":\"" + std::string(1, ph) + "\",\"bp\":\"e\",\"name\":\"q\",\"cat\":\"Q\",\"id\":"
                + std::to_string(id) + ",\"pid\":1,\"tid\":" + std::to_string(tid) + ",\"ts\":" + std::to_string(ts)
                + "},\n";
        };
        // Start k (id 2k, rising with gaps) on slice s<k>; its end on slice e<k>.
        for (int k = 1; k <= kStarts; ++k) {
            slice("s" + std::to_string(k), 1, 10LL * k);
            slice("e" + std::to_string(k), 2, 1000000LL + 10LL * k);
        }
        slice("low", 1, 10LL * (kStarts + 1));
        slice("elow", 2, 2000000);
        for (int k = 1; k <= kStarts; ++k)
            flow('s', 2 * k, 1, 10LL * k);
        flow('s', 3, 1, 10LL * (kStarts + 1)); // an id below the last: not queued
        auto end = [&](int k) { flow('f', 2 * k, 2, 1000000LL + 10LL * k); };
        for (int k = 1; k <= 5000; ++k) // in order: the head, past the queue's first compaction
            end(k);
        end(kStarts);              // the last one: a binary search
        flow('f', 3, 2, 2000000);  // the one in the table
        for (int k = kStarts - 1; k > 5000; --k) // the rest backwards, one left open
            if (k != 5500)
                end(k);
        flow('f', 2, 2, 2000001);     // its start already ended, dropped from the queue
        flow('f', 11998, 2, 2000002); // its start already ended, still in the queue
        flow('f', 99999, 2, 2000003); // above every id
        json.resize(json.size() - 2);
        json += "\n]";
        const auto l = loadText(json, "rising.json");
        const Profile& p = l->p;
        std::set<std::string> want{"low->elow"};
        for (int k = 1; k <= kStarts; ++k)
            if (k != 5500)
                want.insert("s" + std::to_string(k) + "->e" + std::to_string(k));
        QCOMPARE(p.flows.size(), want.size());
        QCOMPARE(flowPairs(p), want);
        const Diagnostic* noStart = diagWith(p, "flow ends (f) without a start");
        QVERIFY(noStart);
        QCOMPARE(noStart->count, std::uint64_t(3));
        const Diagnostic* noEnd = diagWith(p, "flow starts (s/t) without an end (f)");
        QVERIFY(noEnd);
        QCOMPARE(noEnd->count, std::uint64_t(1)); // id 11000
    }

    // Flows of different keys interleaved, a step, an id reused, and a start left open last:
    // the builder holds the latest start apart from its map of open starts, and each of these
    // moves a start between the two.
    void interleavedFlowKeysPairCorrectly()
    {
        const std::string json = R"([
{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1},
{"ph":"X","name":"b","pid":1,"tid":1,"ts":2,"dur":1},
{"ph":"X","name":"c","pid":1,"tid":1,"ts":4,"dur":1},
{"ph":"X","name":"d","pid":1,"tid":1,"ts":6,"dur":1},
{"ph":"X","name":"w","pid":1,"tid":2,"ts":10,"dur":1},
{"ph":"X","name":"x","pid":1,"tid":2,"ts":12,"dur":1},
{"ph":"X","name":"y","pid":1,"tid":2,"ts":14,"dur":1},
{"ph":"X","name":"z","pid":1,"tid":2,"ts":16,"dur":1},
{"ph":"X","name":"t","pid":1,"tid":3,"ts":20,"dur":1},
{"ph":"s","name":"q","cat":"A","id":1,"pid":1,"tid":1,"ts":0},
{"ph":"s","name":"q","cat":"B","id":1,"pid":1,"tid":1,"ts":2},
{"ph":"f","bp":"e","name":"q","cat":"A","id":1,"pid":1,"tid":2,"ts":10},
{"ph":"s","name":"q","cat":"A","id":2,"pid":1,"tid":1,"ts":4},
{"ph":"t","name":"q","cat":"A","id":2,"pid":1,"tid":3,"ts":20},
{"ph":"f","bp":"e","name":"q","cat":"B","id":1,"pid":1,"tid":2,"ts":12},
{"ph":"s","name":"q","cat":"A","id":2,"pid":1,"tid":1,"ts":6},
{"ph":"f","bp":"e","name":"q","cat":"A","id":2,"pid":1,"tid":2,"ts":14},
{"ph":"f","bp":"e","name":"q","cat":"A","id":2,"pid":1,"tid":2,"ts":16},
{"ph":"f","bp":"e","name":"q","cat":"A","id":3,"pid":1,"tid":2,"ts":16},
{"ph":"s","name":"q","cat":"B","id":9,"pid":1,"tid":1,"ts":6}
])";
        const auto l = loadText(json, "interleaved.json");
        const Profile& p = l->p;
        // A1: a->w; B1: b->x; A2: c->t (the step), t->y (its f), then the reused id: d->z.
        QCOMPARE(flowPairs(p), (std::set<std::string>{"a->w", "b->x", "c->t", "t->y", "d->z"}));
        QCOMPARE(p.flows.size(), std::size_t(5));
        const Diagnostic* noStart = diagWith(p, "flow ends (f) without a start");
        QVERIFY(noStart);
        QCOMPARE(noStart->count, std::uint64_t(1)); // A3
        const Diagnostic* noEnd = diagWith(p, "flow starts (s/t) without an end (f)");
        QVERIFY(noEnd);
        QCOMPARE(noEnd->count, std::uint64_t(1)); // B9, the last event
    }

    void simpleTrace()
    {
        auto l = load(kCatapult + "simple_trace.json");
        const Profile& p = l->p;
        // python3: C 5, B 8, I 6, E 8, X 4, P 3, M 3.
        QCOMPARE(l->rec.note, std::string("X 4, B 8, E 8, I 6, M 3, C 5, P 3"));
        QCOMPARE(p.slices.size(), std::size_t(8 + 4 + 6));
        // Threads 22630, 22631, and pid 0/tid 0 for the global instant without pid and tid.
        QCOMPARE(p.tracks.size(), std::size_t(3));
        const int global = rowNamed(p, "GlobalEvent1");
        QCOMPARE(p.tracks[p.slices.track[global].v].pid, qint64(0));
        const int procWide = rowNamed(p, "ProcessWideEvent1"); // no tid: tid = pid
        QCOMPARE(p.tracks[p.slices.track[procWide].v].tid, qint64(22630));
        QCOMPARE(p.slices.dur[procWide], TimeNs(0));
        // E "Asub" matches no open B: closes the innermost ("Asub with a name…", 827..828).
        QCOMPARE(p.slices.dur[rowNamed(p, "Asub with a name that wont fit")], TimeNs(1000));
        QCOMPARE(p.slices.dur[rowNamed(p, "Asub")], TimeNs(3000));
        QCOMPARE(p.slices.dur[rowNamed(p, "A long name that doesnt fit but is exceedingly informative")],
                 TimeNs(7000)); // closed by the E with "name": ""
        // B, X, B all at 860..870: nesting follows file order.
        const int over = rowNamed(p, "B/E over X"), x = rowNamed(p, "X"), under = rowNamed(p, "B/E under X");
        QCOMPARE(p.slices.depth[over] + 1, int(p.slices.depth[x]));
        QCOMPARE(p.slices.depth[x] + 1, int(p.slices.depth[under]));
        QVERIFY(over < x && x < under);
        // Thread names arrive at the end; 22632 has no events, so no track.
        QCOMPARE(p.str(p.tracks[p.slices.track[x].v].thread), std::string_view("threadA"));
        QCOMPARE(p.counters.size(), std::size_t(1));
        QCOMPARE(p.counters[0].value, (std::vector<double>{10, 1, 5, 1, 10}));
        QVERIFY(diagWith(p, "sample events (P)"));
    }

    void unclosedSlices()
    {
        auto l = load(kCatapult + "main_thread_has_unclosed_slices.json");
        // SOURCES.md #11: 1684 B, 1680 E: 4 never closed, kept up to the last timestamp.
        const Diagnostic* d = diagWith(l->p, "B events never closed");
        QVERIFY(d);
        QCOMPARE(d->count, std::uint64_t(4));
        QCOMPARE(l->p.slices.size(), std::size_t(1684));
        const int main = rowNamed(l->p, "BrowserMain");
        QVERIFY(main >= 0);
        QCOMPARE(l->p.slices.end(main), l->p.end);
        QCOMPARE(l->p.str(l->p.tracks[l->p.slices.track[main].v].thread), std::string_view("CrBrowserMain"));
    }

    void nanosecondsDisplayUnit()
    {
        auto l = load(kCatapult + "nanoseconds.json");
        // displayTimeUnit "ns" only changes the display: ts is still µs.
        const int us1 = rowNamed(l->p, "us1");
        QCOMPARE(l->p.slices.dur[us1], TimeNs(1100)); // 0 .. 1.1 µs
        const int ns1 = rowNamed(l->p, "ns1");
        QCOMPARE(l->p.slices.start[ns1], TimeNs(3000));
        QCOMPARE(l->p.slices.size(), std::size_t(8));
        QCOMPARE(l->rec.status, FileStatus::Loaded);
    }

    void xEventOrdering()
    {
        auto l = load(kCatapult + "x_event_trace.json");
        const Profile& p = l->p;
        // Sorted per track by (start, longer first); equal ts and dur keep file order.
        for (const auto& t : p.tracks)
            for (std::uint32_t i = t.sliceBegin + 1; i < t.sliceEnd; ++i) {
                QVERIFY(p.slices.start[i - 1] <= p.slices.start[i]);
                if (p.slices.start[i - 1] == p.slices.start[i])
                    QVERIFY(p.slices.dur[i - 1] >= p.slices.dur[i]);
            }
        // python3: events 1 and 2 of the file, both ts 172187584379 µs and dur 610 µs.
        int a = -1, b = -1;
        for (std::size_t i = 0; i < p.slices.size(); ++i)
            if (p.str(p.slices.name[i]) == "ThreadProxy::ScheduledActionManageTiles" &&
                p.slices.start[i] == 172187584379000)
                a = static_cast<int>(i);
        QVERIFY(a >= 0);
        for (std::size_t i = 0; i < p.slices.size(); ++i)
            if (p.str(p.slices.name[i]) == "TileManager::ManageTiles" && p.slices.start[i] == p.slices.start[a])
                b = static_cast<int>(i);
        QVERIFY(b == a + 1);
        QCOMPARE(int(p.slices.depth[b]), p.slices.depth[a] + 1);
        // python3: X 2799, B 442, i 59 -> slices; S/T/F and D/N reported as ignored.
        QCOMPARE(p.slices.size(), std::size_t(2799 + 442 + 59));
        QVERIFY(diagWith(p, "async events"));
        QVERIFY(diagWith(p, "object events"));
    }

    void finalizeStopsWhenCancelled()
    {
        const std::string path = kCatapult + "x_event_trace.json";
        std::string err;
        const auto m = MappedFile::open(path, &err);
        QVERIFY2(m, err.c_str());
        ReadContext ctx;
        ctx.file = path;
        Profile stopped, unset;
        readers::readTimelineJson(m->bytes(), stopped, ctx);
        readers::readTimelineJson(m->bytes(), unset, ctx);
        const std::atomic<bool> stop{true}, go{false};
        QVERIFY(!stopped.finalize(&stop));
        QVERIFY(!stopped.finalized());
        // A flag that is never set changes nothing.
        QVERIFY(unset.finalize(&go));
        QVERIFY(unset.finalized());
        const auto l = load(path);
        const Profile& p = l->p;
        QCOMPARE(unset.slices.start, p.slices.start);
        QCOMPARE(unset.slices.dur, p.slices.dur);
        QCOMPARE(unset.slices.depth, p.slices.depth);
        QCOMPARE(unset.flows.srcSlice, p.flows.srcSlice);
        QCOMPARE(unset.flows.dstSlice, p.flows.dstSlice);
        QCOMPARE(unset.begin, p.begin);
        QCOMPARE(unset.end, p.end);
    }

    // One thread's slices far out of order, more of them than finalize() sorts in one block:
    // they come out by start, longer first, ties in file order, as a stable sort puts them.
    void largeOutOfOrderTrackSortsStably()
    {
        struct Event {
            int id;
            long ts, dur;
        };
        std::vector<Event> events;
        for (int i = 0; i < 210000; ++i) // three to a start: 5 µs, then two of 3 µs (a tie)
            events.push_back({i, (i / 3) * 10L, i % 3 == 0 ? 5L : 3L});
        std::shuffle(events.begin(), events.end(), std::mt19937(7));
        std::string json = "{\"traceEvents\":[";
        for (const Event& e : events)
            json += "{\"name\":\"e" + std::to_string(e.id) + "\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":"
                    + std::to_string(e.ts) + ",\"dur\":" + std::to_string(e.dur) + "},";
        json.back() = ']';
        json += "}";
        std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
            return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur;
        });

        const auto l = loadText(json, "shuffled.json");
        const Profile& p = l->p;
        QCOMPARE(p.slices.size(), events.size());
        for (std::size_t i = 0; i < events.size(); ++i) {
            const std::string want = "e" + std::to_string(events[i].id);
            if (sliceName(p, static_cast<std::uint32_t>(i)) != want)
                QFAIL(qPrintable(QString("row %1: %2, expected %3")
                                     .arg(i)
                                     .arg(QString::fromStdString(sliceName(p, static_cast<std::uint32_t>(i))))
                                     .arg(QString::fromStdString(want))));
            QCOMPARE(p.slices.start[i], events[i].ts * 1000);
        }
    }

    // The steps a large table grows and sorts in: the same result as in one go, and a cancel
    // leaves the column as it was.
    void cancellableRowSteps()
    {
        std::vector<std::uint32_t> column(300000);
        for (std::size_t i = 0; i < column.size(); ++i)
            column[i] = static_cast<std::uint32_t>((i * 7919) % 1000); // many ties
        const std::vector<std::uint32_t> before = column;
        int calls = 0;
        const auto never = [&calls] { return ++calls < 0; };
        QVERIFY(reserveRows(column, 1000000, never));
        QVERIFY(column.capacity() >= 1000000);
        QCOMPARE(column, before);
        QVERIFY(calls >= 4); // looked at the flag between steps of 65536 rows
        std::vector<std::uint32_t> kept = before;
        kept.shrink_to_fit();
        const std::size_t capacity = kept.capacity();
        int countdown = 2;
        QVERIFY(!reserveRows(kept, 1000000, [&countdown] { return --countdown < 0; }));
        QCOMPARE(kept.capacity(), capacity);
        QCOMPARE(kept, before);

        std::vector<std::uint32_t> rows(column.size()), expected(column.size());
        std::iota(rows.begin(), rows.end(), 0u);
        std::iota(expected.begin(), expected.end(), 0u);
        const auto byValue = [&before](std::uint32_t a, std::uint32_t b) { return before[a] < before[b]; };
        std::stable_sort(expected.begin(), expected.end(), byValue);
        QVERIFY(stableSortRows(rows.data(), rows.data() + rows.size(), byValue, [] { return false; }));
        QCOMPARE(rows, expected);
        QVERIFY(!stableSortRows(rows.data(), rows.data() + rows.size(), byValue, [] { return true; }));
    }

    void counterIds()
    {
        auto l = load(kCatapult + "instance_counters.json");
        // Two instances (ids "123" and "b") of one counter: two series.
        std::set<std::string> names;
        for (const auto& c : l->p.counters)
            names.insert(std::string(l->p.str(c.name)));
        QCOMPARE(names.size(), std::size_t(2));
        for (const auto& n : names)
            QVERIFY(n.size() > 2 && (n.substr(n.size() - 4) == " 123" || n.substr(n.size() - 2) == " b"));
    }

    void everyFileLoads()
    {
        int files = 0;
        for (const auto& e : std::filesystem::recursive_directory_iterator(kChrome)) {
            if (e.path().extension() != ".json")
                continue;
            ++files;
            auto l = load(e.path().string());
            QVERIFY2(l->rec.status != FileStatus::Failed, e.path().c_str());
            QVERIFY2(l->rec.records > 0, e.path().c_str());
            // Whatever was skipped is in the diagnostics with its count.
            std::uint64_t warned = 0;
            for (const auto& d : l->p.diagnostics)
                if (d.severity != Severity::Info)
                    warned += d.count;
            if (l->rec.skipped > 0)
                QVERIFY2(warned >= l->rec.skipped, e.path().c_str());
        }
        QCOMPARE(files, 23); // SOURCES.md: 23 files
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestChromeTrace)

} // namespace test_chrome_trace

#include "test_chrome_trace.moc"
