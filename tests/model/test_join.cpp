// joinKernels: timeline device tasks <-> kernel rows, comm rows by name, l2 rows by occurrence.
#include "test_main.h"
#include "file_bytes.h"
#include "model/formats/readers.h"

#include <QtTest>

#include <algorithm>
#include <numeric>
#include <random>

namespace test_join {

using namespace npuscope;

namespace {

void addKernel(Profile& p, int device, std::int64_t stream, std::int64_t task, TimeNs start, const char* name,
               std::int64_t contextId = -1)
{
    KernelTable& K = p.kernels;
    K.device.push_back(device);
    K.step.push_back(-1);
    K.modelId.push_back(-1);
    K.streamId.push_back(stream);
    K.taskId.push_back(task);
    K.contextId.push_back(contextId);
    K.start.push_back(start);
    K.dur.push_back(100);
    K.wait.push_back(0);
    const NameId n = p.strings.intern(name);
    K.name.push_back(n);
    K.type.push_back(n);
    K.taskType.push_back(p.strings.intern(task < 0 ? "HCCL" : "AI_CORE"));
    for (auto* c : {&K.opState, &K.inputShapes, &K.inputDtypes, &K.inputFormats, &K.outputShapes, &K.outputDtypes,
                    &K.outputFormats})
        c->push_back(NameId(0));
    K.blockDim.push_back(-1);
    K.mixBlockDim.push_back(-1);
    K.slice.push_back(kNone);
}

TrackId streamTrack(Profile& p, std::int64_t pid, std::int64_t stream, int device)
{
    const TrackId t = p.trackFor(pid, stream);
    Track& tr = p.tracks[t.v];
    tr.kind = TrackKind::Stream;
    tr.streamId = stream;
    tr.device = device;
    tr.process = p.strings.intern("Ascend Hardware");
    tr.thread = p.strings.intern("Stream " + std::to_string(stream));
    return t;
}

std::uint32_t sliceAt(const Profile& p, TrackId t, TimeNs start)
{
    for (std::uint32_t i = 0; i < p.slices.size(); ++i)
        if (p.slices.track[i] == t && p.slices.start[i] == start)
            return i;
    return kNone;
}

} // namespace

class TestJoin : public QObject {
    Q_OBJECT
private slots:
    void handBuilt()
    {
        Profile p;
        const TrackId s5 = streamTrack(p, 100, 5, 0);
        const TrackId comm = p.trackFor(200, 1);
        p.tracks[comm.v].kind = TrackKind::CommGroup;
        const NameId task = p.strings.intern("task");
        const NameId hcom = p.strings.intern("hcom_allReduce_1");
        // Added out of order on purpose: the join runs after finalize() has sorted them.
        p.slices.add(20000, 100, task, NameId(0), s5, 10); // task 10 again, no kernel near: unmatched
        p.slices.add(1000, 100, task, NameId(0), s5, 10);  // exact
        p.slices.add(5000, 100, task, NameId(0), s5, 10);  // nearest (kernel at 5400)
        p.slices.add(9000, 100, task, NameId(0), s5, 11);  // no kernel with task 11
        p.slices.add(30000, 100, task, NameId(0), s5, 13); // kernel of task 13 is on device 1
        p.slices.add(7300, 100, hcom, NameId(0), comm);    // comm op
        addKernel(p, 0, 5, 10, 50000, "far");   // same key, 30 µs away: never joins
        addKernel(p, 0, 5, 10, 5400, "near");
        addKernel(p, 0, 5, 10, 1000, "exact");
        addKernel(p, 0, 5, 12, 3000, "orphan");
        addKernel(p, 1, 5, 13, 30000, "otherDevice");
        addKernel(p, 0, -1, -1, 7000, "hcom_allReduce_1"); // N/A ids: by name and start
        p.l2.push_back(L2Row{0, 5, 10, 0.5, 0.1, NameId(0)});
        p.l2.push_back(L2Row{0, 5, 10, 0.7, 0.1, NameId(0)});
        p.finalize();
        readers::joinKernels(p);

        QCOMPARE(p.join.deviceTasks, std::uint64_t(5));
        QCOMPARE(p.join.kernelRows, std::uint64_t(6));
        QCOMPARE(p.join.matchedExact, std::uint64_t(1));
        QCOMPARE(p.join.matchedNearest, std::uint64_t(2)); // 5000 <-> 5400 and the comm op
        QCOMPARE(p.join.unmatchedTasks, std::uint64_t(3));
        QCOMPARE(p.join.unmatchedKernels, std::uint64_t(3));
        const auto& K = p.kernels;
        QCOMPARE(K.slice[2], sliceAt(p, s5, 1000));
        QCOMPARE(p.slices.kernel[sliceAt(p, s5, 1000)], 2u);
        QCOMPARE(K.slice[1], sliceAt(p, s5, 5000));
        QCOMPARE(K.slice[0], kNone);
        QCOMPARE(K.slice[3], kNone);
        QCOMPARE(K.slice[4], kNone);
        QCOMPARE(K.slice[5], sliceAt(p, comm, 7300));
        QCOMPARE(p.slices.kernel[sliceAt(p, s5, 20000)], kNone);

        // l2: the n-th l2 row of (stream 5, task 10) goes to the n-th kernel row by start.
        const int l2 = K.metricIndex("l2_hit_rate");
        QVERIFY(l2 >= 0);
        QCOMPARE(K.metrics[l2][2], 0.5); // start 1000
        QCOMPARE(K.metrics[l2][1], 0.7); // start 5400
        QVERIFY(std::isnan(K.metrics[l2][0]));
        QVERIFY(std::isnan(K.metrics[l2][3]));

        // Joining again gives the same answer (idempotent).
        readers::joinKernels(p);
        QCOMPARE(p.join.matchedExact, std::uint64_t(1));
        QCOMPARE(K.metricNames.size(), std::size_t(1));
    }

    // l2 rows by occurrence: per device when the l2 rows name one, across devices when they do
    // not; a kernel row with a task id and no stream still takes its l2 row.
    void l2ByOccurrence()
    {
        auto kernels = [](Profile& p) {
            addKernel(p, 0, 5, 10, 3000, "a"); // row 0
            addKernel(p, 1, 5, 10, 2000, "b"); // row 1
            addKernel(p, 0, 5, 10, 1000, "c"); // row 2
            addKernel(p, 0, 5, 11, 1500, "d"); // row 3
        };
        auto hit = [](const Profile& p, std::uint32_t row) {
            return p.kernels.metrics[static_cast<std::size_t>(p.kernels.metricIndex("l2_hit_rate"))][row];
        };
        {
            Profile p;
            kernels(p);
            for (const auto& [device, rate] : {std::pair{1, 0.9}, {0, 0.1}, {0, 0.2}, {0, 0.3}})
                p.l2.push_back(L2Row{device, 5, 10, rate, 0.1, NameId(0)});
            p.finalize();
            readers::joinKernels(p);
            QCOMPARE(hit(p, 2), 0.1); // device 0's first by start
            QCOMPARE(hit(p, 0), 0.2); // its second
            QCOMPARE(hit(p, 1), 0.9); // device 1's only one
            QVERIFY(std::isnan(hit(p, 3)));
        }
        {
            Profile p;
            kernels(p);
            for (const double rate : {0.4, 0.5, 0.6, 0.7})
                p.l2.push_back(L2Row{-1, 5, 10, rate, 0.1, NameId(0)});
            p.l2.push_back(L2Row{-1, 5, 11, 0.8, 0.1, NameId(0)});
            p.finalize();
            readers::joinKernels(p);
            QCOMPARE(hit(p, 2), 0.4); // by start, whatever the device
            QCOMPARE(hit(p, 1), 0.5);
            QCOMPARE(hit(p, 0), 0.6);
            QCOMPARE(hit(p, 3), 0.8);
        }
        {
            Profile p;
            kernels(p);
            addKernel(p, 0, -1, 10, 500, "e"); // row 4: no stream
            p.l2.push_back(L2Row{-1, -1, 10, 0.3, 0.1, NameId(0)});
            p.l2.push_back(L2Row{-1, 5, 10, 0.4, 0.1, NameId(0)});
            p.finalize();
            readers::joinKernels(p);
            QCOMPARE(hit(p, 4), 0.3);
            QCOMPARE(hit(p, 2), 0.4);
            QVERIFY(std::isnan(hit(p, 1)));
        }
    }

    void repeatedTaskIds()
    {
        // Task ids wrap: three tasks with id 7, each joins the row with its own start.
        Profile p;
        const TrackId s = streamTrack(p, 1, 2, -1);
        const NameId n = p.strings.intern("op");
        for (TimeNs t : {100000, 200000, 300000})
            p.slices.add(t, 10, n, NameId(0), s, 7);
        addKernel(p, 0, 2, 7, 300000, "c");
        addKernel(p, 0, 2, 7, 100000, "a");
        addKernel(p, 0, 2, 7, 200500, "b"); // 0.5 µs off: nearest
        p.finalize();
        readers::joinKernels(p);
        QCOMPARE(p.join.matchedExact, std::uint64_t(2));
        QCOMPARE(p.join.matchedNearest, std::uint64_t(1));
        QCOMPARE(p.join.unmatchedTasks, std::uint64_t(0));
        QCOMPARE(p.join.unmatchedKernels, std::uint64_t(0));
        QCOMPARE(p.slices.start[p.kernels.slice[0]], TimeNs(300000));
        QCOMPARE(p.slices.start[p.kernels.slice[1]], TimeNs(100000));
        QCOMPARE(p.slices.start[p.kernels.slice[2]], TimeNs(200000));
    }

    void mixSubtasksJoinOnContextId()
    {
        // A MIX task's subtasks share its task id; each joins the row whose Context ID is its
        // Subtask Id, even where the start alone would pick another row.
        Profile p;
        const TrackId s = streamTrack(p, 1, 2, 0);
        const NameId mix = p.strings.intern("MIX_AIC");
        const NameId n = p.strings.intern("mix_op");
        // Same start: subtask 1 is added first, its row second.
        p.slices.setSubtask(p.slices.add(1000, 10, n, mix, s, 9), 1);
        p.slices.setSubtask(p.slices.add(1000, 10, n, mix, s, 9), 0);
        // Subtask 1 starts where row ctx 0 does (exact), subtask 0 nearer to row ctx 1.
        p.slices.setSubtask(p.slices.add(5000, 10, n, mix, s, 10), 1);
        p.slices.setSubtask(p.slices.add(5600, 10, n, mix, s, 10), 0);
        addKernel(p, 0, 2, 9, 1000, "t9 ctx0", 0);
        addKernel(p, 0, 2, 9, 1000, "t9 ctx1", 1);
        addKernel(p, 0, 2, 10, 5000, "t10 ctx0", 0);
        addKernel(p, 0, 2, 10, 5400, "t10 ctx1", 1);
        p.finalize();
        readers::joinKernels(p);
        QCOMPARE(p.join.unmatchedTasks, std::uint64_t(0));
        QCOMPARE(p.join.unmatchedKernels, std::uint64_t(0));
        QCOMPARE(p.join.matchedExact, std::uint64_t(2));
        QCOMPARE(p.join.matchedNearest, std::uint64_t(2));
        for (std::uint32_t r = 0; r < p.kernels.size(); ++r) {
            const std::uint32_t slice = p.kernels.slice[r];
            QVERIFY(slice != kNone);
            QCOMPARE(std::int64_t(p.slices.subtask(slice)), p.kernels.contextId[r]);
        }
        QCOMPARE(p.slices.start[p.kernels.slice[2]], TimeNs(5600));
        QCOMPARE(p.slices.start[p.kernels.slice[3]], TimeNs(5000));
        // Not a MIX task: no subtask.
        QCOMPARE(p.slices.subtask(kNone - 1), kNone);
    }

    void mixSubtasksInRealSample()
    {
        // level1/rank0: 13 MIX_AIV tasks in trace_view.json, each Subtask Id 0, and 13 MIX_AIV rows
        // in kernel_details.csv, each Context ID 0 (counted with python3 over both files).
        const std::string dir = std::string(NPUSCOPE_SAMPLES)
                                + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/";
        Profile p;
        ReadContext ctx;
        ctx.file = dir + "trace_view.json";
        const std::string timeline = fileBytes(ctx.file);
        readers::readTimelineJson(timeline, p, ctx);
        ctx.file = dir + "kernel_details.csv";
        const std::string csv = fileBytes(ctx.file);
        readers::readKernelCsv(csv, p, ctx);
        p.finalize();
        readers::joinKernels(p);
        QCOMPARE(p.slices.subtaskRow.size(), std::size_t(13));
        for (std::size_t i = 0; i < p.slices.subtaskRow.size(); ++i) {
            const std::uint32_t slice = p.slices.subtaskRow[i];
            QCOMPARE(p.slices.subtaskId[i], 0u);
            QCOMPARE(p.str(p.slices.category[slice]), std::string_view("MIX_AIV"));
            const std::uint32_t row = p.slices.kernel[slice];
            QVERIFY(row != kNone);
            QCOMPARE(p.str(p.kernels.taskType[row]), std::string_view("MIX_AIV"));
            QCOMPARE(p.kernels.contextId[row], std::int64_t(0));
            QCOMPARE(std::int64_t(p.slices.taskId[slice]), p.kernels.taskId[row]);
        }
        QCOMPARE(p.join.unmatchedKernels, std::uint64_t(0));
    }

    void skTimelineWithOpSummary()
    {
        // SK: msprof_*.json + op_summary_*.csv of one run match exactly (stream 212, task 0,
        // start 1780748105187895.870 µs).
        const std::string dir = std::string(NPUSCOPE_SAMPLES) +
                                "/ascend-msprof-skill/tests/fixtures/tilelang_design_feedback/candidate_comparability/"
                                "workload_mismatch_candidate/reports/app/PROF_000001_20260606121448940_"
                                "RGBHHJGBAJGRQEOB/mindstudio_profiler_output/";
        Profile p;
        ReadContext ctx;
        ctx.file = dir + "msprof_20260606121514.json";
        const std::string timeline = fileBytes(ctx.file);
        const FileRecord t = readers::readTimelineJson(timeline, p, ctx);
        QVERIFY(t.status == FileStatus::Loaded || t.status == FileStatus::Partial);
        ctx.file = dir + "op_summary_20260606121516.csv";
        const std::string csv = fileBytes(ctx.file);
        readers::readKernelCsv(csv, p, ctx);
        p.finalize();
        readers::joinKernels(p);
        QCOMPARE(p.join.kernelRows, std::uint64_t(1));
        QCOMPARE(p.join.matchedExact, std::uint64_t(1));
        QCOMPARE(p.join.unmatchedKernels, std::uint64_t(0));
        const std::uint32_t s = p.kernels.slice[0];
        QVERIFY(s != kNone);
        QCOMPARE(p.slices.start[s], TimeNs(1780748105187895870LL));
        QCOMPARE(p.tracks[p.slices.track[s].v].streamId, std::int64_t(212));
        QCOMPARE(p.slices.taskId[s], 0u);
    }

    void manyKeysAgainstEveryRow()
    {
        // Many streams and wrapping task ids, rows at equal starts, within and past 1 µs, on
        // other devices: the join equals a search of every row for each task in order (pass 0:
        // the first free row with the key and the exact start; pass 1: the nearest free one
        // within 1 µs, the first of equals), rows taken by start, then row order.
        Profile p;
        std::mt19937 rng(7);
        const NameId n = p.strings.intern("op");
        std::vector<TrackId> tracks;
        for (int s = 0; s < 6; ++s)
            tracks.push_back(streamTrack(p, 1, s, s % 3 == 2 ? -1 : s % 2));
        for (int i = 0; i < 3000; ++i) {
            const int s = static_cast<int>(rng() % tracks.size());
            const auto task = static_cast<std::uint32_t>(rng() % 40);
            const TimeNs t = TimeNs(rng() % 200) * 500;
            p.slices.add(t, 10, n, NameId(0), tracks[static_cast<std::size_t>(s)], task);
            if (rng() % 4 != 0) {
                const TimeNs off = rng() % 3 == 0 ? 0 : TimeNs(rng() % 2500) - 1250;
                const int device = rng() % 5 == 0 ? -1 : static_cast<int>(rng() % 2);
                addKernel(p, device, s, task, t + off, "k");
            }
        }
        addKernel(p, 0, 1, 3, 1000, "k"); // rows no task has
        addKernel(p, 0, 99, 3, 1000, "k");
        p.finalize();
        QVERIFY(readers::joinKernels(p));

        const KernelTable& K = p.kernels;
        const SliceTable& S = p.slices;
        std::vector<std::uint32_t> rows(K.size());
        std::iota(rows.begin(), rows.end(), 0u);
        std::stable_sort(rows.begin(), rows.end(), [&](auto a, auto b) { return K.start[a] < K.start[b]; });
        std::vector<std::uint32_t> sliceOf(K.size(), kNone), kernelOf(S.size(), kNone);
        std::uint64_t exact = 0, nearest = 0;
        for (int pass = 0; pass < 2; ++pass)
            for (const Track& t : p.tracks)
                for (std::uint32_t s = t.sliceBegin; s < t.sliceEnd; ++s) {
                    if (kernelOf[s] != kNone)
                        continue;
                    std::uint32_t best = kNone;
                    TimeNs bestDiff = 0;
                    for (std::uint32_t r : rows) {
                        const TimeNs d = std::abs(K.start[r] - S.start[s]);
                        if (sliceOf[r] != kNone || K.streamId[r] != t.streamId || K.taskId[r] != S.taskId[s]
                            || (K.device[r] >= 0 && t.device >= 0 && K.device[r] != t.device)
                            || d > (pass == 0 ? 0 : 1000))
                            continue;
                        if (best == kNone || d < bestDiff) {
                            best = r;
                            bestDiff = d;
                        }
                    }
                    if (best != kNone) {
                        sliceOf[best] = s;
                        kernelOf[s] = best;
                        ++(pass == 0 ? exact : nearest);
                    }
                }
        QCOMPARE(K.slice, sliceOf);
        QCOMPARE(S.kernel, kernelOf);
        QCOMPARE(p.join.matchedExact, exact);
        QCOMPARE(p.join.matchedNearest, nearest);
        QVERIFY(exact > 300 && nearest > 300); // both passes had work
        QCOMPARE(p.join.unmatchedKernels, K.size() - exact - nearest);

        // The same join through an index built ahead over the table, and through one built over
        // a table of other rows (not taken: the join builds its own).
        const auto index = readers::kernelJoinIndex(K, nullptr);
        KernelTable fewer;
        fewer.start = {0};
        fewer.streamId = fewer.taskId = {1};
        fewer.device = {0};
        const auto stale = readers::kernelJoinIndex(fewer, nullptr);
        for (const readers::KernelJoinIndex* prebuilt : {index.get(), stale.get()}) {
            QVERIFY(readers::joinKernels(p, nullptr, prebuilt));
            QCOMPARE(K.slice, sliceOf);
            QCOMPARE(S.kernel, kernelOf);
            QCOMPARE(p.join.matchedExact, exact);
            QCOMPARE(p.join.matchedNearest, nearest);
        }
    }

    void cancelStopsTheJoin()
    {
        Profile p;
        const TrackId s = streamTrack(p, 1, 2, 0);
        p.slices.add(1000, 10, p.strings.intern("op"), NameId(0), s, 7);
        addKernel(p, 0, 2, 7, 1000, "op");
        p.finalize();
        const std::atomic<bool> stop{true}, go{false};
        QVERIFY(!readers::joinKernels(p, &stop));
        QVERIFY(readers::joinKernels(p, &go));
        QCOMPARE(p.join.matchedExact, std::uint64_t(1));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestJoin)

} // namespace test_join

#include "test_join.moc"
