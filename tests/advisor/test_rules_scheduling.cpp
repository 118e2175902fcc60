// Scheduling / host rules on hand-built profiles.
#include "test_main.h"
#include "advisor_fixture.h"

#include <QtTest>

namespace test_rules_scheduling {

using namespace npuscope;
using namespace npuscope::advisor;
using fixture::Builder;

namespace {

TrackId track(Profile& p, TrackKind kind, std::int64_t pid, std::int64_t tid, const char* process, const char* thread,
              std::int64_t stream = -1)
{
    const TrackId t = p.trackFor(pid, tid);
    auto& tr = p.tracks[t.v];
    tr.kind = kind;
    tr.process = p.strings.intern(process);
    tr.thread = p.strings.intern(thread);
    tr.streamId = stream;
    tr.device = 0;
    return t;
}

// Device tasks on stream tracks (kernel row + timeline slice) and their HostToDevice launch flows.
struct StreamProfile {
    Builder& b;
    Profile& p;
    TrackId cann;
    explicit StreamProfile(Builder& builder)
        : b(builder), p(*builder.p), cann(track(p, TrackKind::Cann, 2, 7, "CANN", "Thread 7"))
    {
    }
    TrackId stream(std::int64_t id)
    {
        const std::string name = "Stream " + std::to_string(id);
        return track(p, TrackKind::Stream, 1, id, "Ascend Hardware", name.c_str(), id);
    }
    std::uint32_t task(TrackId t, std::int64_t stream, const char* name, double startUs, double durUs)
    {
        const auto k = b.kernel(name, name, "AI_CORE", startUs, durUs, stream);
        const auto sl = p.slices.add(fixture::us(startUs), fixture::us(durUs), p.strings.intern(name),
                                     p.strings.intern("AI_CORE"), t);
        p.kernels.slice[k] = sl; // joined both ways, as the loader does
        p.slices.kernel[sl] = static_cast<std::uint32_t>(k);
        return sl;
    }
    void flow(double launchUs, std::uint32_t slice, double dstUs, TrackId dst)
    {
        p.flows.category.push_back(p.strings.intern("HostToDevice"));
        p.flows.name.push_back(p.strings.intern("HostToDevice"));
        p.flows.addId(std::to_string(p.flows.size()), p.strings);
        p.flows.srcTs.push_back(fixture::us(launchUs));
        p.flows.dstTs.push_back(fixture::us(dstUs));
        p.flows.srcTrack.push_back(cann);
        p.flows.dstTrack.push_back(dst);
        p.flows.srcSlice.push_back(kNone);
        p.flows.dstSlice.push_back(slice);
    }
};

} // namespace

class TestRulesScheduling : public QObject {
    Q_OBJECT

private slots:
    void idleFiresOnFree()
    {
        Builder b;
        b.step(85, 0, 15);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "SCH-IDLE/idle");
        QVERIFY(f);
        QCOMPARE(f->costNs, fixture::ms(15));
        QCOMPARE(f->severity, FindingSeverity::High);
        QVERIFY(f->title.find("15.0 %") != std::string::npos);
        QVERIFY(!f->gain.estimated); // no flows: gaps cannot be classed
        QVERIFY(f->gain.reason.find("Level1") != std::string::npos);
    }

    void idlePassesUnderThreshold()
    {
        Builder b;
        b.step(94, 0, 6);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        FIXTURE_FINDING(schIdle, r, "SCH-IDLE");
        QCOMPARE(schIdle->status, Status::Passed);
    }

    void idleClassesHostAndDependencyGaps()
    {
        Builder b;
        b.step(70, 0, 30);
        StreamProfile sp(b);
        const TrackId s2 = sp.stream(2), s3 = sp.stream(3);
        // Stream 2: A 0..1000, B 6000..7000 launched at 5000 (host gap 5 ms),
        //           C 10000..11000 launched at 6500 (dependency gap 3 ms, waits for D on stream 3).
        sp.task(s2, 2, "A", 0, 1000);
        const auto sb = sp.task(s2, 2, "B", 6000, 1000);
        const auto sc = sp.task(s2, 2, "C", 10000, 1000);
        sp.task(s3, 3, "D", 8000, 1998);
        sp.flow(5000, sb, 6000, s2);
        sp.flow(6500, sc, 10000, s2);
        b.p->slices.add(fixture::us(5000), fixture::us(10), b.p->strings.intern("Node@launch"), b.p->strings.intern(""), sp.cann);
        const auto s = fixture::session({b.p});
        const auto r = runAdvisor(s, fixture::defaults());
        const Finding* f = fixture::find(r, "SCH-IDLE/idle");
        QVERIFY(f);
        QVERIFY(f->gain.estimated);
        // Stream gaps: host 5 ms + dependency 3 ms. The device (both streams) was idle only in
        // 1000..6000 (5 ms) of the host gap and in 7000..8000 + 9998..10000 (1.002 ms) of the
        // dependency gap, D kept it busy in between: gain = 6.002 ms.
        QVERIFY(std::abs(f->gain.nsPerStep - 6.002e6) < 6e4);
        QVERIFY(f->gain.formula.find("device idle") != std::string::npos);
        QVERIFY(f->gain.formula.find("6.00 ms") != std::string::npos);
        bool named = false;
        for (const auto& e : f->evidence)
            named = named || (e.threshold.find("dependency") == 0 && e.threshold.find("waits for D on stream 3") != std::string::npos);
        QVERIFY(named);
    }

    // Two streams idle over the same stretch: the gain counts the stretch once and never
    // exceeds the device's free time.
    void idleGainBoundedByDeviceFree_data()
    {
        QTest::addColumn<double>("freeMs");
        QTest::addColumn<double>("gainMs");
        QTest::newRow("free above the idle union") << 10.0 << 4.0;
        QTest::newRow("step_trace_time free smaller") << 3.0 << 3.0;
    }
    void idleGainBoundedByDeviceFree()
    {
        QFETCH(double, freeMs);
        QFETCH(double, gainMs);
        Builder b;
        b.step(100 - freeMs - 4, 4, freeMs); // T = 100 ms; free over the 2 % override below fires the rule
        StreamProfile sp(b);
        const TrackId s2 = sp.stream(2), s3 = sp.stream(3);
        // Both streams: a task 0..1000 and a task 5000..6000 launched at 4500 / 4600: two host
        // gaps of 4 ms over the same 1000..5000 stretch (Σ stream gaps 8 ms, device idle 4 ms).
        sp.task(s2, 2, "A", 0, 1000);
        sp.task(s3, 3, "E", 0, 1000);
        sp.flow(4500, sp.task(s2, 2, "B", 5000, 1000), 5000, s2);
        sp.flow(4600, sp.task(s3, 3, "F", 5000, 1000), 5000, s3);
        auto th = fixture::defaults();
        th.merge(nlohmann::json::parse(R"({"rules":{"SCH-IDLE":{"params":{"free_share":0.02}}}})"), "test");
        const auto r = runAdvisor(fixture::session({b.p}), th);
        const Finding* f = fixture::find(r, "SCH-IDLE/idle");
        QVERIFY(f);
        QVERIFY(f->gain.estimated);
        QVERIFY2(std::abs(f->gain.nsPerStep - gainMs * 1e6) < 1e4, f->gain.formula.c_str());
        QVERIFY(f->gain.nsPerStep <= freeMs * 1e6);
        QVERIFY(f->description.find("host-bound") != std::string::npos);
    }

    // Every classed gap overlaps work on another stream: no saving, stated.
    void idleGainNotEstimatedWhenOtherStreamBusy()
    {
        Builder b;
        b.step(85, 0, 15);
        StreamProfile sp(b);
        const TrackId s2 = sp.stream(2), s3 = sp.stream(3);
        sp.task(s2, 2, "A", 0, 1000);
        sp.flow(4500, sp.task(s2, 2, "B", 5000, 1000), 5000, s2); // host gap 1000..5000
        sp.task(s3, 3, "G", 500, 5000);                             // stream 3 busy 500..5500
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "SCH-IDLE/idle");
        QVERIFY(f);
        QVERIFY(!f->gain.estimated);
        QVERIFY(f->gain.reason.find("another stream") != std::string::npos);
    }

    void syncNeedsLevel1()
    {
        Builder b;
        b.step(90, 0, 10);
        const TrackId py = track(*b.p, TrackKind::Python, 3, 1, "Python", "Thread 1");
        b.p->slices.add(0, 1000, b.p->strings.intern("aten::add"), b.p->strings.intern("cpu_op"), py);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        for (const char* rule : {"SCH-SYNC", "MEM-ALLOC", "SCH-GC-GUESS", "COM-ALIGN"}) {
            FIXTURE_FINDING(f, r, rule);
            QCOMPARE(f->status, Status::NotChecked);
            QVERIFY2(f->needs.find("Level1") != std::string::npos, rule);
        }
    }

    void syncFires()
    {
        Builder b;
        b.step(90, 0, 10);
        Profile& p = *b.p;
        const TrackId cann = track(p, TrackKind::Cann, 2, 7, "CANN", "Thread 7");
        // 10 × (launch 10 µs, sync 200 µs): 10 syncs / 10 launches = 1.0 > 0.5; Σsync 2 ms
        for (int i = 0; i < 10; ++i) {
            p.slices.add(fixture::us(1000.0 * i), fixture::us(10), p.strings.intern("Node@launch"), p.strings.intern(""), cann);
            p.slices.add(fixture::us(1000.0 * i + 20), fixture::us(200), p.strings.intern("AscendCL@aclrtSynchronizeStream"),
                         p.strings.intern(""), cann);
        }
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "SCH-SYNC/launch-sync");
        QVERIFY(f);
        QCOMPARE(f->severity, FindingSeverity::High); // fixed severity (2 % of T would be low)
        QVERIFY(std::abs(f->gain.nsPerStep - 2e6) < 2e4);
    }

    void envChecks()
    {
        Builder b;
        b.step(90, 0, 10);
        b.p->meta.env = {{"ASCEND_GLOBAL_LOG_LEVEL", "1"}, {"ASCEND_LAUNCH_BLOCKING", "1"}, {"HCCL_RDMA_TC", "132"},
                         {"PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True"}, {"ACLNN_CACHE_LIMIT", "100000"},
                         {"HOST_CACHE_CAPACITY", "20"}};
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        FIXTURE_FINDING(schEnvAscendGlobalLogLevel, r, "SCH-ENV/ASCEND_GLOBAL_LOG_LEVEL");
        QCOMPARE(schEnvAscendGlobalLogLevel->severity, FindingSeverity::High);
        FIXTURE_FINDING(schEnvAscendLaunchBlocking, r, "SCH-ENV/ASCEND_LAUNCH_BLOCKING");
        QCOMPARE(schEnvAscendLaunchBlocking->severity, FindingSeverity::High);
        const Finding* tc = fixture::find(r, "SCH-ENV/HCCL_RDMA_TC");
        QVERIFY(tc);
        QCOMPARE(tc->severity, FindingSeverity::Low);
        QVERIFY(!tc->description.empty() && !tc->suggestions.empty());
        QVERIFY(!tc->gain.estimated);
        QVERIFY(!fixture::find(r, "SCH-ENV/PYTORCH_NPU_ALLOC_CONF"));
        QVERIFY(!fixture::find(r, "SCH-ENV/ACLNN_CACHE_LIMIT"));
        QVERIFY(!fixture::find(r, "SCH-ENV/HCCL_RDAM_TC")); // the reference's misspelt key is not used
    }

    void envNeedsMetadata()
    {
        Builder b;
        b.step(90, 0, 10);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        FIXTURE_FINDING(schEnv, r, "SCH-ENV");
        QVERIFY(schEnv->needs.find("profiler_metadata.json") != std::string::npos);
    }

    void dataloaderAndGc()
    {
        Builder b;
        b.step(90, 0, 10);
        Profile& p = *b.p;
        const TrackId py = track(p, TrackKind::Python, 3, 1, "Python", "Thread 1");
        p.slices.add(0, fixture::ms(12), p.strings.intern("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"),
                     p.strings.intern("python_function"), py);
        p.slices.add(fixture::ms(20), fixture::ms(2), p.strings.intern("GC"), p.strings.intern("gc"), py);
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* d = fixture::find(r, "SCH-DATALOADER/dataloader");
        QVERIFY(d);
        QVERIFY(std::abs(d->gain.nsPerStep - 12e6) < 12e4);
        const Finding* g = fixture::find(r, "SCH-GC/gc");
        QVERIFY(g);
        QVERIFY(std::abs(g->gain.nsPerStep - 2e6) < 2e4);
    }

    // Free time outside the steps' time ranges (before the first step, after the last) is no
    // step time: neither SCH-IDLE nor SCH-GC-GUESS counts it, and a slice across a step's edge
    // counts its part inside.
    void onlyStepTimeCounts()
    {
        Builder b(0, "msprof");
        Profile& p = *b.p;
        const TrackId py = track(p, TrackKind::Python, 3, 1, "Python", "Thread 1");
        p.slices.add(fixture::ms(1000), fixture::ms(1000), p.strings.intern("ProfilerStep#1"), NameId(0), py);
        const TrackId cann = track(p, TrackKind::Cann, 2, 7, "CANN", "Thread 7");
        p.slices.add(fixture::ms(1000), fixture::us(10), p.strings.intern("AscendCL@aclnnAdd"), NameId(0), cann);
        StreamProfile sp(b);
        const TrackId s2 = sp.stream(2);
        sp.task(s2, 2, "Add", 1000e3, 100e3);
        sp.task(s2, 2, "Mul", 1400e3, 400e3);
        const TrackId freeTrack = track(p, TrackKind::Overlap, 4, 3, "Overlap Analysis", "Free");
        const NameId free = p.strings.intern("Free");
        p.slices.add(0, fixture::ms(990), free, NameId(0), freeTrack);                   // before the step
        p.slices.add(fixture::ms(1100), fixture::ms(300), free, NameId(0), freeTrack);   // inside: 300 ms
        p.slices.add(fixture::ms(1800), fixture::ms(500), free, NameId(0), freeTrack);   // 200 ms inside
        const auto r = runAdvisor(fixture::session({b.p}), fixture::defaults());

        const Finding* idle = fixture::find(r, "SCH-IDLE/idle");
        QVERIFY(idle);
        QCOMPARE(idle->costNs, fixture::ms(500)); // of a 1000 ms step; 990 + 300 + 500 before
        QVERIFY2(idle->title.find("50.0 %") != std::string::npos, idle->title.c_str());

        const Finding* gc = fixture::find(r, "SCH-GC-GUESS/free-no-acl");
        QVERIFY(gc);
        QCOMPARE(gc->costNs, fixture::ms(500));
        QCOMPARE(gc->evidence.size(), std::size_t(2));
        QVERIFY2(gc->title.rfind("2 long quiet Free (likely GC) events, 500.0 ms/step", 0) == 0, gc->title.c_str());
        QVERIFY2(gc->description.find("1 more lies outside the steps' time ranges") != std::string::npos,
                 gc->description.c_str());
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestRulesScheduling)

} // namespace test_rules_scheduling

#include "test_rules_scheduling.moc"
