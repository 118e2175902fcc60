// Overlap, step breakdown, summary, utilisation series, compare and unit formatting on
// hand-built profiles (expected numbers worked out in the comments), then on real samples
// and generated profiles.
#include "test_main.h"
#include "analysis_fixtures.h"
#include "model/analysis/compare.h"
#include "model/analysis/compare_report.h"
#include "model/analysis/op_stats.h"
#include "model/analysis/overlap.h"
#include "model/analysis/summary.h"
#include "model/analysis/units.h"
#include "model/analysis/utilization.h"

#include <QtTest>

#include <cmath>
#include <random>

namespace test_analysis {

using namespace npuscope;
using namespace npuscope::fixtures;

namespace {

bool near(double a, double b, double eps = 1e-9) { return std::fabs(a - b) <= eps; }

// Compute [0,10) [5,12) [30,40) µs (ns ×1000), an EVENT_WAIT runtime task [12,20) on a compute
// stream (not compute), collectives allReduce [8,18) and broadcast [35,45).
void addOverlapTasks(Profile& p)
{
    const TrackId s1 = addTrack(p, 5, 1, TrackKind::Stream, "Ascend Hardware", "Stream 1");
    const TrackId s2 = addTrack(p, 5, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2");
    const TrackId g = addTrack(p, 6, 0, TrackKind::CommGroup, "Communication", "Group 0 Communication");
    addSlice(p, s1, "MatMul", "AI_CORE", 0, 10000, 1);
    addSlice(p, s2, "Add", "AI_VECTOR_CORE", 5000, 7000, 2);
    addSlice(p, s1, "MatMul", "AI_CORE", 30000, 10000, 3);
    addSlice(p, s2, "EVENT_WAIT", "EVENT_WAIT_SQE", 12000, 8000, 4);
    addSlice(p, g, "hcom_allReduce__1_0_1", "", 8000, 10000);
    addSlice(p, g, "hcom_broadcast__2_0_1", "", 35000, 10000);
}

StepRow stepRow(const std::string& step, TimeNs comp, TimeNs notOverlapped, TimeNs overlapped, TimeNs free)
{
    StepRow r;
    r.step = step;
    r.computing = comp;
    r.commNotOverlapped = notOverlapped;
    r.overlapped = overlapped;
    r.communication = notOverlapped + overlapped;
    r.free = free;
    return r;
}

} // namespace

class TestAnalysis : public QObject {
    Q_OBJECT
private slots:
    void intervals()
    {
        const IntervalSet a = uniteIntervals({{5, 10}, {0, 3}, {2, 4}, {10, 12}, {20, 20}});
        QCOMPARE(a.size(), std::size_t(2)); // [0,4) [5,12); empty [20,20) dropped
        QCOMPARE(totalLength(a), TimeNs(11));
        const IntervalSet b = uniteIntervals({{3, 6}, {11, 30}});
        QCOMPARE(intersectionLength(a, b), TimeNs(1 + 1 + 1)); // [3,4) [5,6) [11,12)
        QCOMPARE(coveredLength(a, 1, 8), TimeNs(3 + 3));
        QCOMPARE(coveredLength(a, 12, 100), TimeNs(0));
        // a − b = [0,3) [6,11); b − a = [4,5) [12,30).
        const IntervalSet ab = subtractIntervals(a, b), ba = subtractIntervals(b, a);
        QCOMPARE(ab.size(), std::size_t(2));
        QCOMPARE(ab[0].begin, TimeNs(0));
        QCOMPARE(ab[0].end, TimeNs(3));
        QCOMPARE(ab[1].begin, TimeNs(6));
        QCOMPARE(ab[1].end, TimeNs(11));
        QCOMPARE(totalLength(ba), TimeNs(1 + 18));
        QCOMPARE(totalLength(ab) + intersectionLength(a, b), totalLength(a));
        // The parts of a inside [2, 7): [2,4) [5,7).
        const IntervalSet c = clipIntervals(a, 2, 7);
        QCOMPARE(c.size(), std::size_t(2));
        QCOMPARE(totalLength(c), coveredLength(a, 2, 7));
        QCOMPARE(c[1].end, TimeNs(7));
        QVERIFY(clipIntervals(a, 12, 20).empty());
        // Unsorted input with a duplicate start unites the same.
        QCOMPARE(totalLength(uniteIntervals({{10, 12}, {5, 10}, {5, 7}, {0, 4}})), TimeNs(11));
    }

    // Tasks come as sorted runs (one per stream), merged when there are few, else sorted: either
    // way the union is the one marked unit by unit on a line of cells.
    void intervalsFromRuns()
    {
        for (const int runs : {1, 2, 3, 17, 64, 65, 300}) {
            std::mt19937 rng(static_cast<unsigned>(runs));
            std::vector<Interval> v;
            for (int r = 0; r < runs; ++r) {
                TimeNs at = static_cast<TimeNs>(rng() % 50);
                for (int k = 0; k < 40; ++k) {
                    const TimeNs len = static_cast<TimeNs>(rng() % 9); // 0: empty, dropped
                    v.push_back({at, at + len});
                    at += static_cast<TimeNs>(rng() % 30);
                }
            }
            std::vector<char> cell(4000, 0);
            for (const Interval& i : v)
                for (TimeNs t = i.begin; t < i.end; ++t)
                    cell[static_cast<std::size_t>(t)] = 1;
            IntervalSet want;
            for (std::size_t t = 0; t < cell.size(); ++t)
                if (cell[t] && (t == 0 || !cell[t - 1]))
                    want.push_back({static_cast<TimeNs>(t), static_cast<TimeNs>(t)});
                else if (!cell[t] && t > 0 && cell[t - 1])
                    want.back().end = static_cast<TimeNs>(t);
            // Touching intervals unite ([2,4) and [4,6) are [2,6)), as the cells do.
            const IntervalSet got = uniteIntervals(v);
            QCOMPARE(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                QCOMPARE(got[i].begin, want[i].begin);
                QCOMPARE(got[i].end, want[i].end);
            }
            // The same union from the two halves' sets, merged.
            const std::size_t half = v.size() / 2;
            const IntervalSet merged = uniteSets(uniteIntervals({v.begin(), v.begin() + static_cast<std::ptrdiff_t>(half)}),
                                                 uniteIntervals({v.begin() + static_cast<std::ptrdiff_t>(half), v.end()}));
            QCOMPARE(merged.size(), want.size());
            for (std::size_t i = 0; i < merged.size(); ++i) {
                QCOMPARE(merged[i].begin, want[i].begin);
                QCOMPARE(merged[i].end, want[i].end);
            }
        }
    }

    void overlapFromTasks()
    {
        Profile p;
        addOverlapTasks(p);
        p.finalize();
        const OverlapResult r = computeOverlap(p);
        QCOMPARE(r.source, OverlapSource::Tasks);
        QCOMPARE(r.steps.size(), std::size_t(1));
        const StepBreakdown& s = r.total;
        QCOMPARE(s.computing, TimeNs(22000));        // [0,12) ∪ [30,40)
        QCOMPARE(s.communication, TimeNs(20000));    // [8,18) ∪ [35,45)
        QCOMPARE(s.overlapped, TimeNs(9000));        // [8,12) ∪ [35,40)
        QCOMPARE(s.commNotOverlapped, TimeNs(11000));
        QCOMPARE(s.free, TimeNs(12000));             // span 45 − ∪ 33 (the EVENT_WAIT task is not compute)
        QCOMPARE(r.stepTime, TimeNs(45000));         // = E2E span
        QCOMPARE(r.stepTimeSource, std::string("E2E (first to last device task)"));
        QCOMPARE(r.collectives.size(), std::size_t(2));
        QCOMPARE(r.collectives[0].covered, TimeNs(4000));
        QVERIFY(near(r.collectives[0].ratio, 0.4));
        QCOMPARE(r.collectives[1].exposed(), TimeNs(5000));
        QVERIFY(near(r.collectives[1].ratio, 0.5));
    }

    void overlapComputeTasksOnly()
    {
        // Computing = the kernels of compute streams: AI_CPU [0,10) and an "Other" kernel [30,35)
        // count; a memcpy [10,20) on the compute stream does not, nor does anything on the HCCL
        // stream 4 (Notify Wait [20,30), the collective as a database writes it, AI_CORE [20,40)).
        Profile p;
        const TrackId s2 = addTrack(p, 5, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2");
        const TrackId s3 = addTrack(p, 5, 3, TrackKind::Stream, "Ascend Hardware", "Stream 3");
        const TrackId s4 = addTrack(p, 5, 4, TrackKind::Stream, "Ascend Hardware", "Stream 4");
        const TrackId g = addTrack(p, 6, 0, TrackKind::CommGroup, "Communication", "Group 0 Communication");
        addSlice(p, s2, "NonZero", "AI_CPU", 0, 10000, 1);
        addSlice(p, s2, "MEMCPY_ASYNC", "PCIE_DMA_SQE", 10000, 10000, 2);
        addSlice(p, s4, "AI_CORE", "AI_CORE", 20000, 20000, 3);
        addSlice(p, s4, "Notify Wait", "Notify Wait", 20000, 10000, 4);
        addSlice(p, s3, "aclnnAdd_AddAiCore_Add", "Other", 30000, 5000, 5);
        addSlice(p, g, "hcom_allReduce__1_0_1", "", 0, 40000);
        p.finalize();
        const OverlapResult r = computeOverlap(p);
        QCOMPARE(r.total.computing, TimeNs(15000));
        QCOMPARE(r.total.overlapped, TimeNs(15000));
        QCOMPARE(r.collectives.size(), std::size_t(1));
        QCOMPARE(r.collectives[0].covered, TimeNs(15000));
        QVERIFY(near(r.collectives[0].ratio, 15.0 / 40.0));
    }

    void overlapPerProfilerStep()
    {
        Profile p;
        addOverlapTasks(p);
        const TrackId py = addTrack(p, 9, 1, TrackKind::Python, "Python", "Thread 1");
        addSlice(p, py, "ProfilerStep#2", "cpu_op", 25000, 25000);
        addSlice(p, py, "ProfilerStep#1", "cpu_op", 0, 25000);
        p.finalize();
        const OverlapResult r = computeOverlap(p);
        QCOMPARE(r.steps.size(), std::size_t(2));
        QCOMPARE(r.steps[0].step, std::string("ProfilerStep#1"));
        // Step 1 [0,25): compute 12, comm 10, overlapped 4, free 25 − 18 = 7.
        QCOMPARE(r.steps[0].computing, TimeNs(12000));
        QCOMPARE(r.steps[0].commNotOverlapped, TimeNs(6000));
        QCOMPARE(r.steps[0].free, TimeNs(7000));
        // Step 2 [25,50): compute 10, comm 10, overlapped 5, free 25 − 15 = 10.
        QCOMPARE(r.steps[1].computing, TimeNs(10000));
        QCOMPARE(r.steps[1].overlapped, TimeNs(5000));
        QCOMPARE(r.steps[1].free, TimeNs(10000));
        QCOMPARE(r.stepTime, TimeNs(25000));
        QCOMPARE(r.stepTimeSource, std::string("ProfilerStep#N spans"));
    }

    void overlapFromStepTrace()
    {
        Profile p;
        addOverlapTasks(p); // present but step_trace_time wins
        p.steps.push_back(stepRow("1", 8000, 2000, 1000, 1000));
        p.steps.push_back(stepRow("2", 10000, 0, 2000, 3000));
        p.finalize();
        const OverlapResult r = computeOverlap(p);
        QCOMPARE(r.source, OverlapSource::StepTrace);
        QCOMPARE(r.steps.size(), std::size_t(2));
        QCOMPARE(r.steps[0].stepTime(), TimeNs(11000));
        QCOMPARE(r.stepTime, TimeNs(12000)); // median of 11 and 13 µs (two complete steps)
        QCOMPARE(r.total.communication, TimeNs(5000));
        QCOMPARE(r.collectives.size(), std::size_t(2)); // still from the timeline
    }

    void overlapFromOverlapTracks()
    {
        Profile p;
        // Thread ids in an unusual order: threads are recognised by name.
        const TrackId free = addTrack(p, 4, 0, TrackKind::Overlap, "Overlap Analysis", "Free");
        const TrackId comp = addTrack(p, 4, 3, TrackKind::Overlap, "Overlap Analysis", "Computing");
        const TrackId comm = addTrack(p, 4, 1, TrackKind::Overlap, "Overlap Analysis", "Communication");
        const TrackId no = addTrack(p, 4, 2, TrackKind::Overlap, "Overlap Analysis", "Communication(Not Overlapped)");
        addSlice(p, comp, "Computing", "", 0, 5000);
        addSlice(p, comp, "Computing", "", 6000, 3000);
        addSlice(p, comm, "Communication", "", 4000, 4000);
        addSlice(p, no, "Communication(Not Overlapped)", "", 5000, 1000);
        addSlice(p, free, "Free", "", 9000, 1000);
        p.finalize();
        const OverlapResult r = computeOverlap(p);
        QCOMPARE(r.source, OverlapSource::OverlapTracks);
        QCOMPARE(r.total.computing, TimeNs(8000));
        QCOMPARE(r.total.communication, TimeNs(4000));
        QCOMPARE(r.total.commNotOverlapped, TimeNs(1000));
        QCOMPARE(r.total.overlapped, TimeNs(3000));
        QCOMPARE(r.total.free, TimeNs(1000));
        QCOMPARE(r.stepTime, TimeNs(10000));
    }

    // Lanes that start long before the device's first op (the profiler's start, then seconds of
    // host work): without ProfilerStep#N spans the step is the device's work, first to last
    // compute or communication task, so that time is no Free step time. Bookkeeping tasks
    // (PROFILING_ENABLE at the start) do not widen it.
    void overlapTracksWindowIsDeviceWork()
    {
        Profile p;
        const TrackId free = addTrack(p, 4, 0, TrackKind::Overlap, "Overlap Analysis", "Free");
        const TrackId comp = addTrack(p, 4, 3, TrackKind::Overlap, "Overlap Analysis", "Computing");
        const TrackId s1 = addTrack(p, 5, 1, TrackKind::Stream, "Ascend Hardware", "Stream 1");
        addSlice(p, s1, "PROFILING_ENABLE", "PROFILING_ENABLE", 0, 10, 1);
        addSlice(p, s1, "MatMul", "AI_CORE", 100000, 5000, 2);
        addSlice(p, s1, "Add", "AI_VECTOR_CORE", 106000, 2000, 3);
        addSlice(p, free, "Free", "", 0, 100000);
        addSlice(p, comp, "Computing", "", 100000, 5000);
        addSlice(p, free, "Free", "", 105000, 1000);
        addSlice(p, comp, "Computing", "", 106000, 2000);
        p.finalize();
        const OverlapResult r = computeOverlap(p);
        QCOMPARE(r.source, OverlapSource::OverlapTracks);
        QCOMPARE(r.stepTimeSource, std::string("Overlap Analysis, first to last device task"));
        QCOMPARE(r.stepTime, TimeNs(8000));
        QCOMPARE(r.total.computing, TimeNs(7000));
        QCOMPARE(r.total.free, TimeNs(1000));
    }

    // Changes under 1 % of the larger value are run-to-run noise: "same", in either direction.
    void verdictNoiseBand()
    {
        HeadlineRow h;
        h.better = Better::Lower;
        h.baseline = 100.0;
        for (const auto& [current, verdict] : std::vector<std::pair<double, std::string>>{
                 {100.0, "same"}, {100.9, "same"}, {99.1, "same"}, {101.5, "regressed"}, {98.5, "improved"}}) {
            h.current = current;
            QCOMPARE(headlineVerdict(h), verdict);
        }
        h.better = Better::Higher;
        h.current = 98.5;
        QCOMPARE(headlineVerdict(h), std::string("regressed"));
        h.baseline = 0;
        h.current = 0;
        QCOMPARE(headlineVerdict(h), std::string("same"));
        h.current = kNaN;
        QCOMPARE(headlineVerdict(h), std::string());

        // A wider band, asked for: 4 % of the larger value is the same within 5 %, not within 1 %.
        h.better = Better::Lower;
        h.baseline = 100.0;
        h.current = 96.0;
        QCOMPARE(headlineVerdict(h), std::string("improved"));
        QCOMPARE(headlineVerdict(h, 0.05), std::string("same"));
        QCOMPARE(headlineVerdict(h, 0.03), std::string("improved"));
        h.current = 100.0;
        QCOMPARE(headlineVerdict(h, 0.0), std::string("same")); // no band: only no change is the same

        // Operators: a faster one is improved; the band is a share of the larger total.
        OpDiffRow d;
        d.baselineTotal = 1000;
        d.currentTotal = 1040;
        d.delta = 40;
        QCOMPARE(opVerdict(d), std::string("regressed"));
        QCOMPARE(opVerdict(d, 0.04), std::string("same")); // 40 <= 4 % of 1040
        QCOMPARE(opVerdict(d, 0.03), std::string("regressed"));
        d.currentTotal = 960;
        d.delta = -40;
        QCOMPARE(opVerdict(d), std::string("improved"));
        QCOMPARE(opVerdict(d, 0.05), std::string("same"));
    }

    void summary()
    {
        Profile p;
        p.steps.push_back(stepRow("1", 8000, 2000, 1000, 1000));
        p.steps.push_back(stepRow("2", 10000, 0, 2000, 3000));
        addKernel(p, "mm", "MatMul", "AI_CORE", 0, 1000,
                  {{"cube_utilization(%)", 40}, {"aic_main_mem_read_bw(GB/s)", 600}, {"aic_main_mem_write_bw(GB/s)", 200}});
        addKernel(p, "ar", "hcom_allReduce_", "HCCL", 2000, 5000);
        p.finalize();
        ProfileSummary s = computeSummary(p);
        QCOMPARE(s.step.steps, 2);
        QCOMPARE(s.step.stepTime, TimeNs(12000));
        QCOMPARE(s.step.computing, TimeNs(9000));
        QCOMPARE(s.step.commNotOverlapped, TimeNs(1000));
        QCOMPARE(s.step.free, TimeNs(2000));
        QVERIFY(near(s.computeShare, 0.75));
        QVERIFY(near(s.commExposedShare, 1.0 / 12));
        QVERIFY(near(s.aicUtil, 0.4));
        QVERIFY(near(s.hbmBwGBps, 800));
        QCOMPARE(s.hbmPeakGBps, 1200.0); // generic default
        QCOMPARE(s.hbmPeakSource, std::string("generic default"));
        QVERIFY(near(s.hbmBwUtil, 800.0 / 1200));
        QCOMPARE(s.taskCount, std::uint64_t(1)); // the HCCL row is not compute
        QCOMPARE(computeSummary(p, 1600).hbmBwUtil, 0.5);
        DeviceInfo d;
        d.device = 0;
        d.chip = "Ascend910B3";
        p.deviceInfo.push_back(d);
        s = computeSummary(p);
        QCOMPARE(s.hbmPeakGBps, 1600.0);
        QCOMPARE(s.hbmPeakSource, std::string("chip default"));
        p.deviceInfo[0].hbmPeakGBps = 1800;
        QCOMPARE(computeSummary(p).hbmPeakGBps, 1800.0);
        QCOMPARE(computeSummary(p, 1000).hbmPeakGBps, 1000.0);
    }

    void utilization()
    {
        Profile p;
        addKernel(p, "a", "MatMul", "AI_CORE", 0, 2000,
                  {{"cube_utilization(%)", 50}, {"aic_r0_read_cache_hit", 30}, {"aic_r0_read_cache_miss_allocate", 10},
                   {"aic_main_mem_read_bw(GB/s)", 100}});
        addKernel(p, "b", "MatMul", "AI_CORE", 1000, 2000,
                  {{"cube_utilization(%)", 30}, {"aic_r0_read_cache_hit", 0}, {"aic_r0_read_cache_miss_allocate", 20},
                   {"aic_main_mem_read_bw(GB/s)", 300}});
        const NameId freq = p.strings.intern("AI Core Freq");
        CounterSeries& f = p.counterFor(1, freq, p.strings.intern("MHz"));
        f.process = freq;
        f.ts = {0, 1500, 3000};
        f.value = {1800, 1650, 1800};
        const NameId mem = p.strings.intern("memory_record");
        CounterSeries& m = p.counterFor(2, p.strings.intern("PTA"), p.strings.intern("Total Allocated(KB)"));
        m.process = mem;
        m.ts = {0, 3000};
        m.value = {2048, 4096};
        p.finalize();
        const auto series = utilizationSeries(p, 1000);
        auto get = [&](const std::string& name) -> const Series* {
            for (const auto& s : series)
                if (s.name == name)
                    return &s;
            return nullptr;
        };
        const Series* u = get("AI Core utilization");
        QVERIFY(u);
        QCOMPARE(u->t, (std::vector<TimeNs>{0, 1000, 2000}));
        // [0,1): 0.5; [1,2): 0.5 + 0.3; [2,3): 0.3
        QVERIFY(near(u->v[0], 50) && near(u->v[1], 80) && near(u->v[2], 30));
        QVERIFY(u->source.rfind("derived", 0) == 0);
        const Series* bw = get("Memory bandwidth");
        QVERIFY(bw);
        QVERIFY(near(bw->v[1], 400) && near(bw->v[2], 300));
        const Series* l2 = get("L2 hit rate");
        QVERIFY(l2);
        // Each task's counters split by time: [0,1) 15/(15+5); [1,2) 15/(15+5+0+10)
        QVERIFY(near(l2->v[0], 75) && near(l2->v[1], 50) && near(l2->v[2], 0));
        const Series* fs = get("AI Core Freq");
        QVERIFY(fs);
        QCOMPARE(fs->unit, std::string("MHz"));
        QCOMPARE(fs->v, (std::vector<double>{1800, 1650, 1800}));
        QCOMPARE(fs->source, std::string("sampled: AI Core Freq counter"));
        const Series* ms = get("PTA Total Allocated");
        QVERIFY(ms);
        QCOMPARE(ms->v, (std::vector<double>{2, 4})); // KB -> MB (binary)

        // HBM counters as msprof writes them ("HBM 0/Read" with a Read(MB/s) value), and as a
        // plain "HBM" counter with both keys: the direction is named once.
        Profile q;
        const NameId hbm = q.strings.intern("HBM");
        for (const auto& [name, key] : {std::pair{"HBM 0/Read", "Read(MB/s)"}, std::pair{"HBM 0/Write", "Write(MB/s)"},
                                        std::pair{"", "Read(MB/s)"}, std::pair{"", "Write(MB/s)"}}) {
            CounterSeries& h = q.counterFor(3, q.strings.intern(name), q.strings.intern(key));
            h.process = hbm;
            h.ts = {0, 2000};
            h.value = {250000, 500000};
        }
        q.finalize();
        std::vector<std::string> names;
        for (const auto& s : utilizationSeries(q, 1000)) {
            names.push_back(s.name);
            QCOMPARE(s.unit, std::string("GB/s"));
            QCOMPARE(s.v, (std::vector<double>{250, 500}));
        }
        std::sort(names.begin(), names.end());
        QCOMPARE(names, (std::vector<std::string>{"HBM 0/Read", "HBM 0/Write", "HBM read", "HBM write"}));
    }

    void compareProfilesHandBuilt()
    {
        Profile base, cur;
        base.steps.push_back(stepRow("1", 8000, 2000, 1000, 1000));
        base.steps.push_back(stepRow("2", 10000, 0, 2000, 3000));
        addKernel(base, "mm1", "MatMul", "AI_CORE", 0, 1000, {{"cube_utilization(%)", 20}});
        addKernel(base, "mm2", "MatMul", "AI_CORE", 1000, 2000, {{"cube_utilization(%)", 20}});
        addKernel(base, "add", "Add", "AI_VECTOR_CORE", 3000, 500, {{"cube_utilization(%)", 20}});
        cur.steps.push_back(stepRow("1", 3000, 500, 0, 500));
        addKernel(cur, "mm", "MatMul", "AI_CORE", 0, 1000, {{"cube_utilization(%)", 60}});
        addKernel(cur, "gelu", "Gelu", "AI_VECTOR_CORE", 1000, 200, {{"cube_utilization(%)", 60}});
        base.finalize();
        cur.finalize();
        const CompareResult r = compareProfiles(base, cur);
        QVERIFY(near(r.speedup, 3.0));
        const HeadlineRow& step = r.headline[0];
        QCOMPARE(step.metric, std::string("Step time"));
        QVERIFY(near(step.baseline, 0.012) && near(step.current, 0.004));
        QVERIFY(near(step.ratio, 1.0 / 3) && near(step.delta, -0.008));
        QCOMPARE(step.better, Better::Lower);
        QVERIFY(step.improved());
        const HeadlineRow& tp = r.headline[1];
        QCOMPARE(tp.better, Better::Higher);
        QVERIFY(near(tp.ratio, 3.0) && tp.improved());
        bool sawUtil = false;
        for (const auto& h : r.headline)
            if (h.metric == "AI Core utilization") {
                sawUtil = true;
                QVERIFY(near(h.baseline, 20) && near(h.current, 60) && h.improved());
            }
        QVERIFY(sawUtil);
        QCOMPARE(headlineVerdict(step), std::string("improved"));
        QCOMPARE(r.ops.size(), std::size_t(3));
        QCOMPARE(r.ops[0].key, std::string("MatMul"));
        QCOMPARE(r.ops[0].delta, TimeNs(-2000));
        QVERIFY(near(r.ops[0].ratio, 1.0 / 3));
        QCOMPARE(r.ops[0].baselineCount, std::uint64_t(2));
        QCOMPARE(r.ops[1].key, std::string("Add"));
        QVERIFY(r.ops[1].inBaseline && !r.ops[1].inCurrent);
        QCOMPARE(r.ops[2].key, std::string("Gelu"));
        QVERIFY(!r.ops[2].inBaseline && r.ops[2].inCurrent && std::isnan(r.ops[2].ratio));
    }

    void units_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << qint64(0) << "0 ns";
        QTest::newRow("ns") << qint64(123) << "123 ns";
        QTest::newRow("µs") << qint64(12345) << "12.3 µs";
        QTest::newRow("carry") << qint64(999600) << "1.00 ms";
        QTest::newRow("ms") << qint64(1234567) << "1.23 ms";
        QTest::newRow("s") << qint64(12345678901) << "12.3 s";
        QTest::newRow("negative") << qint64(-2500) << "-2.50 µs";
    }
    void units()
    {
        QFETCH(qint64, ns);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(formatDuration(ns)), text);
    }

    void unitsOther()
    {
        QCOMPARE(formatBytes(512), std::string("512 B"));
        QCOMPARE(formatBytes(1500), std::string("1.50 kB"));
        QCOMPARE(formatBytes(20971520), std::string("21.0 MB"));
        QCOMPARE(formatRate(1.23e9), std::string("1.23 GB/s"));
        QCOMPARE(formatPercent(0.425), std::string("42.5 %"));
        QCOMPARE(nsToMicrosText(1780748105187895870LL), std::string("1780748105187895.870"));
        QCOMPARE(nsToMicrosText(5), std::string("0.005"));
        QCOMPARE(nsToMicrosText(-1500), std::string("-1.500"));
        QCOMPARE(nsToMillisText(1234567), std::string("1.234567"));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestAnalysis)

} // namespace test_analysis

#include "test_analysis.moc"
