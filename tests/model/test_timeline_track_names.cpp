// Tracks whose process metadata was never read: torch_npu writes a process's process_name and
// thread_name events after its events, so a trace cut inside them loses the names. The reader
// names such processes by what their events carry; the numbers below were counted with
// python3's json.raw_decode over the same bytes.
#include "test_main.h"
#include "model/formats/readers.h"
#include "model/io/mapped_file.h"

#include <QtTest/QtTest>

#include <string>

namespace test_timeline_track_names {

using namespace npuscope;

namespace {

const std::string kLevel1 = std::string(NPUSCOPE_SAMPLES) +
                            "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json";
const std::string kInferred = "processes without process_name metadata named by their events";

struct Read {
    Profile p;
    FileRecord rec;
};

std::unique_ptr<Read> read(std::string_view bytes)
{
    auto r = std::make_unique<Read>();
    ReadContext ctx;
    ctx.file = "trace_view.json";
    r->rec = readers::readTimelineJson(bytes, r->p, ctx);
    r->p.finalize();
    return r;
}

std::uint64_t inferredCount(const Profile& p)
{
    for (const Diagnostic& d : p.diagnostics)
        if (d.reason == kInferred)
            return d.count;
    return 0;
}

} // namespace

class TestTimelineTrackNames : public QObject {
    Q_OBJECT
private slots:
    // Cut at byte 600000, inside the Python events, before the Python process's metadata (byte
    // 707136): 855 complete X events on (3096504, 3096504) and (3096504, 3105075).
    void realTraceCutBeforeItsMetadata()
    {
        std::string err;
        auto m = MappedFile::open(kLevel1, &err);
        QVERIFY2(m, err.c_str());
        const auto r = read(m->bytes().substr(0, 600000));
        QCOMPARE(r->rec.status, FileStatus::Partial);
        QCOMPARE(r->rec.records, std::uint64_t(855));
        QCOMPARE(r->p.slices.size(), std::size_t(855));
        int tracks = 0;
        for (const Track& t : r->p.tracks) {
            if (t.sliceEnd <= t.sliceBegin)
                continue;
            ++tracks;
            QCOMPARE(t.pid, std::int64_t(3096504));
            QCOMPARE(r->p.str(t.process), std::string_view("Python"));
            QCOMPARE(t.kind, TrackKind::Python);
            QVERIFY(r->p.str(t.thread).empty()); // its thread_name events were not read either
        }
        QCOMPARE(tracks, 2);
        QCOMPARE(inferredCount(r->p), std::uint64_t(1));

        // The whole file names every process itself: nothing is inferred.
        const auto whole = read(m->bytes());
        QCOMPARE(inferredCount(whole->p), std::uint64_t(0));
    }

    // Device tasks (they carry a Task Id), overlap lanes and a plain Chrome trace's events, none
    // with metadata; and a stream whose process was named but whose thread was not.
    void namedByTheirEvents()
    {
        const std::string json = R"([
{"ph":"X","name":"MatMulV2","pid":9,"tid":3,"ts":"10.0","dur":5,"args":{"Model Id":1,"Task Type":"AI_CORE","Physic Stream Id":3,"Task Id":7}},
{"ph":"X","name":"Computing","pid":7,"tid":0,"ts":"10.0","dur":5,"args":{}},
{"ph":"X","name":"Free","pid":7,"tid":3,"ts":"15.0","dur":5,"args":{}},
{"ph":"X","name":"draw","pid":5,"tid":5,"ts":"10.0","dur":5,"cat":"gpu","args":{}},
{"ph":"X","name":"Add","pid":11,"tid":4,"ts":"10.0","dur":5,"args":{"Task Type":"AI_VECTOR_CORE","Task Id":8}},
{"ph":"M","name":"process_name","pid":11,"tid":0,"args":{"name":"Ascend Hardware"}}
])";
        const auto r = read(json);
        std::map<std::int64_t, const Track*> byPid;
        for (const Track& t : r->p.tracks)
            if (t.sliceEnd > t.sliceBegin)
                byPid[t.pid] = &t;
        QCOMPARE(byPid.size(), std::size_t(4)); // pids 9, 7 (two lanes), 5, 11
        const Track& stream = *byPid[9];
        QCOMPARE(r->p.str(stream.process), std::string_view("Ascend Hardware"));
        QCOMPARE(r->p.str(stream.thread), std::string_view("Stream 3"));
        QCOMPARE(stream.kind, TrackKind::Stream);
        QCOMPARE(stream.streamId, std::int64_t(3));
        QCOMPARE(r->p.str(byPid[11]->thread), std::string_view("Stream 4"));
        QCOMPARE(byPid[11]->kind, TrackKind::Stream);
        int overlap = 0;
        for (const Track& t : r->p.tracks)
            if (t.pid == 7) {
                ++overlap;
                QCOMPARE(t.kind, TrackKind::Overlap);
                QCOMPARE(r->p.str(t.process), std::string_view("Overlap Analysis"));
                QCOMPARE(r->p.str(t.thread), std::string_view(t.tid == 0 ? "Computing" : "Free"));
            }
        QCOMPARE(overlap, 2);
        // Nothing says what pid 5 is: it stays unnamed (the timeline calls it by its pid).
        QVERIFY(r->p.str(byPid[5]->process).empty());
        QCOMPARE(byPid[5]->kind, TrackKind::Other);
        QCOMPARE(inferredCount(r->p), std::uint64_t(2)); // pids 9 and 7
    }
};

NPUSCOPE_TEST_MAIN(TestTimelineTrackNames)

} // namespace test_timeline_track_names

#include "test_timeline_track_names.moc"
