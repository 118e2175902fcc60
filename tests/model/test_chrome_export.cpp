// Chrome trace export: exact µs text, args, flows, counters, several ranks, atomic writes, and
// the round trip through the timeline reader (same counts and sums; exporting the re-import
// gives the same bytes) on hand-built and real timelines.
#include "test_main.h"
#include "file_bytes.h"
#include "analysis_fixtures.h"
#include "model/analysis/chrome_export.h"
#include "model/formats/readers.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace test_chrome_export {

using namespace npuscope;
using namespace npuscope::fixtures;

namespace {

struct Counts {
    std::size_t slices = 0, flows = 0, samples = 0, tracksWithSlices = 0;
    TimeNs sumDur = 0;
    bool operator==(const Counts&) const = default;
};

Counts countsOf(const Profile& p)
{
    Counts c;
    c.slices = p.slices.size();
    c.flows = p.flows.size();
    for (const auto& s : p.counters)
        c.samples += s.ts.size();
    for (std::size_t i = 0; i < p.slices.size(); ++i)
        c.sumDur += p.slices.dur[i];
    for (const auto& t : p.tracks)
        c.tracksWithSlices += t.sliceEnd > t.sliceBegin;
    return c;
}

std::shared_ptr<Profile> readTimeline(const std::string& bytes, const std::string& name)
{
    auto p = std::make_shared<Profile>();
    ReadContext ctx;
    ctx.file = name;
    readers::readTimelineJson(bytes, *p, ctx);
    p->finalize();
    return p;
}

Session sessionOf(std::vector<ProfilePtr> ranks)
{
    Session s;
    s.ranks = std::move(ranks);
    return s;
}

std::shared_ptr<Profile> handBuilt(int rank)
{
    auto p = std::make_shared<Profile>();
    p->rank = rank;
    const TrackId dev = addTrack(*p, 4376751100LL, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2");
    const TrackId py = addTrack(*p, 800, 801, TrackKind::Python, "Python", "Thread 801");
    p->tracks[dev.v].processLabel = p->strings.intern("NPU 0");
    p->tracks[dev.v].processSort = 3;
    const std::uint32_t task = addSlice(*p, dev, "MatMul_1", "AI_CORE", 1780748105187895870LL, 53741, 7);
    (void)task;
    addSlice(*p, dev, "AddN", "AI_VECTOR_CORE", 1780748105187995000LL, 1000, 8);
    const std::uint32_t args = p->args.addRow({{p->strings.intern("Call stack"), p->strings.intern("a.py(1): \"f\"\nb.py")},
                                               {p->strings.intern("Sequence number"), p->strings.intern("42")}});
    p->slices.add(1780748105187800000LL, 90000, p->strings.intern("aten::mm"), p->strings.intern("cpu_op"), py, kNone, args);
    FlowTable& f = p->flows;
    f.category.push_back(p->strings.intern("async_npu"));
    f.name.push_back(p->strings.intern("async_npu"));
    f.addId("1704161511422904204", p->strings);
    f.srcTs.push_back(1780748105187800000LL);
    f.dstTs.push_back(1780748105187895870LL);
    f.srcTrack.push_back(py);
    f.dstTrack.push_back(dev);
    f.srcSlice.push_back(kNone);
    f.dstSlice.push_back(kNone);
    const NameId freq = p->strings.intern("AI Core Freq");
    CounterSeries& c = p->counterFor(4376751101LL, freq, p->strings.intern("MHz"));
    c.process = freq;
    c.ts = {1780748105187800000LL, 1780748105187900001LL};
    c.value = {1800, 1650.5};
    p->finalize();
    return p;
}

} // namespace

class TestChromeExport : public QObject {
    Q_OBJECT
private slots:
    void exactTextAndShape()
    {
        const Session s = sessionOf({handBuilt(0)});
        const std::string json = chromeTraceJson(s);
        QVERIFY(json.find("\"ts\":1780748105187895.870,\"dur\":53.741") != std::string::npos);
        QVERIFY(json.find("\"args\":{\"Task Type\":\"AI_CORE\",\"Task Id\":7}") != std::string::npos);
        QVERIFY(json.find("\"id\":\"1704161511422904204\"") != std::string::npos);
        QVERIFY(json.find("\"pid\":4376751100") != std::string::npos);
        QVERIFY(json.find("\"bp\":\"e\"") != std::string::npos);
        QVERIFY(json.find("\"MHz\":1650.5") != std::string::npos);
        const auto doc = nlohmann::json::parse(json);
        QCOMPARE(doc["displayTimeUnit"].get<std::string>(), std::string("ns"));
        std::map<std::string, int> phases;
        for (const auto& e : doc["traceEvents"])
            ++phases[e["ph"].get<std::string>()];
        QCOMPARE(phases["X"], 3);
        QCOMPARE(phases["s"], 1);
        QCOMPARE(phases["f"], 1);
        QCOMPARE(phases["C"], 2);
        // 3 processes named (2 tracks + counter pid), 1 label, 2 process sort indexes, 2 thread names + 2 sorts.
        QCOMPARE(phases["M"], 3 + 1 + 2 + 2 + 2);
        for (const auto& e : doc["traceEvents"])
            if (e["ph"] == "X" && e["name"] == "aten::mm")
                QCOMPARE(e["args"]["Call stack"].get<std::string>(), std::string("a.py(1): \"f\"\nb.py"));
    }

    void roundTripHandBuilt()
    {
        auto original = handBuilt(0);
        const std::string a = chromeTraceJson(sessionOf({original}));
        auto again = readTimeline(a, "export.json");
        QCOMPARE(countsOf(*again), countsOf(*original));
        QCOMPARE(again->slices.taskId[0], std::uint32_t(7));
        const std::string b = chromeTraceJson(sessionOf({again}));
        QCOMPARE(b.size(), a.size());
        QVERIFY(a == b);
    }

    void roundTripReal_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("torch_npu trace_view") << QStringLiteral(NPUSCOPE_SAMPLES "/msprof-analyze/test/ut/advisor/timeline_advice/trace_view.json");
        QTest::newRow("msprof timeline")
            << QStringLiteral(NPUSCOPE_SAMPLES
                              "/ascend-msprof-skill/tests/fixtures/tilelang_design_feedback/candidate_comparability/"
                              "workload_mismatch_candidate/reports/app/PROF_000001_20260606121448940_RGBHHJGBAJGRQEOB/"
                              "mindstudio_profiler_output/msprof_20260606121514.json");
        QTest::newRow("level1 rank0") << QStringLiteral(NPUSCOPE_SAMPLES
                                                        "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/"
                                                        "ASCEND_PROFILER_OUTPUT/trace_view.json");
    }
    void roundTripReal()
    {
        QFETCH(QString, path);
        const std::string bytes = fileBytes(path.toStdString());
        QVERIFY2(!bytes.empty(), qPrintable(path));
        auto original = readTimeline(bytes, path.toStdString());
        QVERIFY(original->slices.size() > 0);
        const std::string a = chromeTraceJson(sessionOf({original}));
        auto again = readTimeline(a, "export.json");
        const Counts c0 = countsOf(*original), c1 = countsOf(*again);
        // HostToDevice flows are named by their category and id, which the model does not store:
        // both ends of each are written with that name again.
        std::size_t hostToDevice = 0, named = 0;
        for (std::size_t i = 0; i < original->flows.size(); ++i)
            hostToDevice += original->str(original->flows.category[i]) == "HostToDevice" ? 1 : 0;
        for (std::size_t at = a.find("\"name\":\"HostToDevice"); at != std::string::npos;
             at = a.find("\"name\":\"HostToDevice", at + 1))
            named += a.compare(at + 20, 1, "\"") != 0 ? 1 : 0; // "HostToDevice<id>", not the bare category
        QCOMPARE(named, 2 * hostToDevice);
        QCOMPARE(c1.slices, c0.slices);
        QCOMPARE(c1.flows, c0.flows);
        QCOMPARE(c1.samples, c0.samples);
        QCOMPARE(c1.sumDur, c0.sumDur);
        QCOMPARE(c1.tracksWithSlices, c0.tracksWithSlices);
        const std::string b = chromeTraceJson(sessionOf({again}));
        QVERIFY(a == b);
    }

    void severalRanks()
    {
        const Session s = sessionOf({handBuilt(0), handBuilt(1)});
        const auto doc = nlohmann::json::parse(chromeTraceJson(s));
        std::set<std::int64_t> pids;
        std::set<std::string> labels;
        int x = 0;
        for (const auto& e : doc["traceEvents"]) {
            pids.insert(e["pid"].get<std::int64_t>());
            if (e["ph"] == "X")
                ++x;
            if (e["ph"] == "M" && e["name"] == "process_labels")
                labels.insert(e["args"]["labels"].get<std::string>());
        }
        QCOMPARE(x, 6);
        QCOMPARE(pids.size(), std::size_t(6)); // 3 processes per rank, apart
        QVERIFY(labels.count("NPU 0, rank 0") && labels.count("NPU 0, rank 1") && labels.count("rank 1"));
    }

    void atomicWrite()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string target = dir.path().toStdString() + "/trace.json";
        {
            std::ofstream old(target);
            old << "good old file";
        }
        const Session s = sessionOf({handBuilt(0)});
        std::string error;
        QVERIFY(exportChromeTrace(s, target, &error));
        QCOMPARE(fileBytes(target), chromeTraceJson(s));
        // No temporary file left beside it.
        int files = 0;
        for (const auto& e : std::filesystem::directory_iterator(dir.path().toStdString())) {
            (void)e;
            ++files;
        }
        QCOMPARE(files, 1);
        // A directory that does not exist: fails, names the path, writes nothing.
        const std::string bad = dir.path().toStdString() + "/missing/trace.json";
        QVERIFY(!exportChromeTrace(s, bad, &error));
        QVERIFY(error.find(bad) != std::string::npos);
        QVERIFY(!std::filesystem::exists(bad));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestChromeExport)

} // namespace test_chrome_export

#include "test_chrome_export.moc"
