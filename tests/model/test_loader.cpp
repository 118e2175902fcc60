// The loader end to end: real torch_npu clusters, msprof, lone files, and folders built here.
#include "test_main.h"
#include "model/formats/loader.h"
#include "model/io/memory_budget.h"

#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

namespace test_loader {

using namespace npuscope;
namespace fs = std::filesystem;

namespace {

const std::string kSamples = NPUSCOPE_SAMPLES;
const std::string kPytorch = kSamples + "/msinsight/test/data/pytorch/text";
const std::string kSkApp = kSamples
    + "/ascend-msprof-skill/tests/fixtures/tilelang_design_feedback/candidate_comparability/"
      "workload_mismatch_candidate/reports/app";

void writeFile(const fs::path& p, const std::string& text)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}

std::uint64_t deviceTasks(const Profile& p)
{
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < p.slices.size(); ++i)
        n += p.tracks[p.slices.track[i].v].kind == TrackKind::Stream;
    return n;
}

const FileRecord* record(const Profile& p, const std::string& name)
{
    for (const auto& f : p.files)
        if (fs::path(f.path).filename() == name)
            return &f;
    return nullptr;
}

const std::string kOpSummaryHeader = "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,Task Type,"
                                     "Task Start Time(us),Task Duration(us),Task Wait Time(us),Block Dim\n";

} // namespace

class TestLoader : public QObject {
    Q_OBJECT
private slots:
    void pytorchLevel1()
    {
        const LoadResult r = loadSession(kPytorch + "/level1");
        QVERIFY2(r.session, r.error.c_str());
        const Session& s = *r.session;
        QCOMPARE(s.layout, std::string("cluster (2 ranks, torch_npu)"));
        QCOMPARE(s.source, std::string("text"));
        QCOMPARE(s.ranks.size(), std::size_t(2));
        for (int i = 0; i < 2; ++i) {
            const Profile& p = *s.ranks[i];
            QCOMPARE(p.rank, i); // sorted by the rank_id of profiler_info_<i>.json
            QCOMPARE(p.name, "rank" + std::to_string(i) + "_ascend_pt");
            QCOMPARE(p.layout, std::string("torch_npu"));
            // python3 json over trace_view.json: X events of the "Ascend Hardware" process.
            QCOMPARE(deviceTasks(p), std::uint64_t(535));
            // python3 csv.DictReader over kernel_details.csv: 191 rows.
            QCOMPARE(p.kernels.size(), std::size_t(191));
            // python3: 187 kernel rows whose (Stream ID, Task ID, Start Time(us) in ns) equal a
            // device task's (Physic Stream Id, Task Id, ts); the other 4 are HCCL rows (N/A ids)
            // whose name is a "Group 0 Communication" slice starting within 1 µs: rank 0 at
            // offsets 1,0,1,1 ns, rank 1 at 0,0,0,1 ns. So every row joins.
            QCOMPARE(p.join.matchedExact, std::uint64_t(i == 0 ? 187 + 1 : 187 + 3));
            QCOMPARE(p.join.matchedNearest, std::uint64_t(i == 0 ? 3 : 1));
            QCOMPARE(p.join.unmatchedKernels, std::uint64_t(0));
            QCOMPARE(p.join.unmatchedTasks, std::uint64_t(535 - 187));
            QCOMPARE(p.join.kernelRows, std::uint64_t(191));
            QCOMPARE(p.join.deviceTasks, std::uint64_t(535));
            // communication.json: step -> kind -> ops, 5 entries with "Total Op Info";
            // communication_matrix.json: 48 src-dst links under its ops.
            QCOMPARE(p.commOps.size(), std::size_t(5));
            QCOMPARE(p.commLinks.size(), std::size_t(48));
            QCOMPARE(p.steps.size(), std::size_t(1)); // step_trace_time.csv: one row (step 50)
            QVERIFY(!p.devices.empty());
            const FileRecord* trace = record(p, "trace_view.json");
            QVERIFY(trace);
            QCOMPARE(trace->status, FileStatus::Loaded);
            QCOMPARE(trace->bytes, std::uint64_t(fs::file_size(trace->path)));
            QCOMPARE(trace->kind, std::string("timeline"));
            QCOMPARE(record(p, "operator_details.csv")->status, FileStatus::Loaded);
            QVERIFY(p.finalized());
            QVERIFY(p.begin > 0 && p.end > p.begin);
        }
    }

    void pytorchLevel0WithoutCommunication()
    {
        const LoadResult r = loadSession(kPytorch + "/level0");
        QVERIFY2(r.session, r.error.c_str());
        QCOMPARE(r.session->ranks.size(), std::size_t(2));
        for (const auto& p : r.session->ranks) {
            QCOMPARE(p->commOps.size(), std::size_t(0)); // level 0 writes no communication.json
            QVERIFY(!record(*p, "communication.json"));
            QCOMPARE(deviceTasks(*p), std::uint64_t(533)); // python3, as for level 1
            QCOMPARE(p->kernels.size(), std::size_t(191));
            for (const auto& f : p->files)
                QVERIFY2(f.status != FileStatus::Failed, f.path.c_str());
        }
    }

    void threadsGiveSameResult()
    {
        LoadOptions one;
        one.threads = 1;
        const LoadResult a = loadSession(kPytorch + "/level1", one);
        LoadOptions two;
        two.threads = 2;
        const LoadResult b = loadSession(kPytorch + "/level1", two);
        QVERIFY(a.session && b.session);
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(a.session->ranks[i]->rank, b.session->ranks[i]->rank);
            QCOMPARE(a.session->ranks[i]->slices.size(), b.session->ranks[i]->slices.size());
            QCOMPARE(a.session->ranks[i]->begin, b.session->ranks[i]->begin);
        }
    }

    void rankFoldersGivenOneByOne()
    {
        const LoadResult r = loadSessions({kPytorch + "/level1/rank1_ascend_pt", kPytorch + "/level1/rank0_ascend_pt"});
        QVERIFY2(r.session, r.error.c_str());
        QCOMPARE(r.session->ranks.size(), std::size_t(2));
        QCOMPARE(r.session->ranks[0]->rank, 0);
        QCOMPARE(r.session->ranks[1]->rank, 1);
        QCOMPARE(r.session->layout, std::string("cluster (2 ranks, torch_npu)"));
    }

    void msprofApp()
    {
        const LoadResult r = loadSession(kSkApp);
        QVERIFY2(r.session, r.error.c_str());
        QCOMPARE(r.session->layout, std::string("msprof"));
        const Profile& p = *r.session->ranks.at(0);
        QVERIFY(p.kernels.size() > 0);
        QVERIFY(deviceTasks(p) > 0);
        QVERIFY(p.join.matchedExact > 0); // FORMATS.md §3: the sample pair joins exactly
    }

    void progressAndStages()
    {
        std::mutex m;
        std::vector<LoadProgress> calls;
        LoadOptions o;
        o.progress = [&](const LoadProgress& p) {
            std::lock_guard lock(m);
            calls.push_back(p);
        };
        const LoadResult r = loadSession(kPytorch + "/level1", o);
        QVERIFY(r.session);
        QVERIFY(calls.size() >= 2);
        QCOMPARE(calls.front().stage, std::string("Scanning"));
        QCOMPARE(calls.back().stage, std::string("Done"));
        QCOMPARE(calls.back().fraction, 1.0);
        for (std::size_t i = 1; i < calls.size(); ++i) {
            QVERIFY(calls[i].fraction >= calls[i - 1].fraction);
            QVERIFY(calls[i].fraction >= 0 && calls[i].fraction <= 1);
            const std::string& st = calls[i].stage;
            QVERIFY2(st.rfind("Reading ", 0) == 0 || st.rfind("Indexing", 0) == 0 || st.rfind("Joining", 0) == 0
                         || st == "Done",
                     st.c_str());
        }
        // Each stage is reported as it begins, however soon after the report before it: every
        // file read, then the indexing and the join of the timeline with kernel_details.
        const auto reported = [&](const std::string& stage) { // followed by the rank's label
            return std::any_of(calls.begin(), calls.end(),
                               [&](const LoadProgress& p) { return p.stage.rfind(stage + " (", 0) == 0; });
        };
        for (const auto& f : r.session->ranks.front()->files)
            if (f.status == FileStatus::Loaded)
                QVERIFY2(reported("Reading " + std::filesystem::path(f.path).filename().string()), f.path.c_str());
        QVERIFY(reported("Indexing"));
        QVERIFY(reported("Joining"));
    }

    void cancelled()
    {
        std::atomic<bool> cancel{true};
        LoadOptions o;
        o.cancel = &cancel;
        const LoadResult r = loadSession(kPytorch + "/level1", o);
        QVERIFY(!r.session);
        QVERIFY(r.cancelled);
        QCOMPARE(r.error, std::string("cancelled"));

        // Cancel once the load has started: the first progress report sets the flag (progress is
        // throttled, so which stage reports first depends on the machine's speed).
        std::atomic<bool> later{false};
        LoadOptions o2;
        o2.cancel = &later;
        o2.progress = [&](const LoadProgress&) { later = true; };
        const LoadResult r2 = loadSession(kPytorch + "/level1", o2);
        QVERIFY(!r2.session);
        QVERIFY(r2.cancelled);
    }

    void slicesConcatenateInOrder()
    {
        QTemporaryDir tmp;
        const fs::path out = fs::path(tmp.path().toStdString()) / "PROF_000001_20260606121448940_AAAA"
            / "mindstudio_profiler_output";
        writeFile(out / "op_summary_slice_0_20260606121516.csv",
                  kOpSummaryHeader + "0,4294967295,1,2,OpA,MatMul,AI_CORE,1000.000,10.000,0,8\n"
                                     "0,4294967295,2,2,OpB,Add,AI_VECTOR_CORE,1020.000,5.000,10.000,4\n");
        writeFile(out / "op_summary_slice_1_20260606121516.csv",
                  kOpSummaryHeader + "0,4294967295,3,2,OpC,MatMul,AI_CORE,1030.000,20.000,5.000,8\n");
        // An older export of the same module: ignored, with a warning.
        writeFile(out / "op_summary_20250101000000.csv",
                  kOpSummaryHeader + "0,4294967295,9,2,Old,Old,AI_CORE,1.000,1.000,0,1\n");
        const LoadResult r = loadSession(tmp.path().toStdString());
        QVERIFY2(r.session, r.error.c_str());
        const Profile& p = *r.session->ranks.at(0);
        QCOMPARE(p.kernels.size(), std::size_t(3)); // 2 + 1 rows, the second header not a row
        QCOMPARE(p.str(p.kernels.name[0]), std::string_view("OpA"));
        QCOMPARE(p.str(p.kernels.name[1]), std::string_view("OpB"));
        QCOMPARE(p.str(p.kernels.name[2]), std::string_view("OpC"));
        QCOMPARE(p.kernels.start[2], TimeNs(1030000));
        const FileRecord* old = record(p, "op_summary_20250101000000.csv");
        QCOMPARE(old->status, FileStatus::Ignored);
        QCOMPARE(old->note, std::string("older than op_summary_slice_0_20260606121516.csv"));
        bool warned = false;
        for (const auto& d : p.diagnostics)
            warned = warned || (d.severity == Severity::Warning && d.file == fs::path(old->path).string());
        QVERIFY(warned);
    }

    void legacyDevices()
    {
        QTemporaryDir tmp;
        const fs::path prof = fs::path(tmp.path().toStdString()) / "PROF_000001_20230101120000_ABCD";
        const std::string header = "Model ID,Task ID,Stream ID,Op Name,OP Type,Task Type,"
                                   "Task Start Time,Task Duration(us),Task Wait Time(us),Block Dim\n";
        writeFile(prof / "device_0" / "summary" / "op_summary_0_1_1_20230101120500.csv",
                  header + "1,1,2,OpA,MatMul,AI_CORE,1000.0,10.0,0,8\n");
        writeFile(prof / "device_3" / "summary" / "op_summary_3_1_1_20230101120500.csv",
                  header + "1,1,2,OpB,MatMul,AI_CORE,1000.0,10.0,0,8\n1,2,2,OpC,Add,AI_CORE,1011.0,1.0,1.0,8\n");
        const LoadResult r = loadSession(tmp.path().toStdString());
        QVERIFY2(r.session, r.error.c_str());
        QCOMPARE(r.session->layout, std::string("msprof-legacy"));
        QCOMPARE(r.session->ranks.size(), std::size_t(1));
        const Profile& p = *r.session->ranks[0];
        QCOMPARE(p.kernels.size(), std::size_t(3));
        // Rows lack Device_id: the device comes from the device_N folder.
        QCOMPARE(p.kernels.device[0], 0);
        QCOMPARE(p.kernels.device[1], 3);
        QCOMPARE(p.kernels.device[2], 3);
        QCOMPARE(p.devices, (std::vector<int>{0, 3}));
    }

    void singleFiles()
    {
        const LoadResult trace = loadSession(kSamples + "/msprof-analyze/test/ut/advisor/timeline_advice/trace_view.json");
        QVERIFY2(trace.session, trace.error.c_str());
        QVERIFY(trace.session->ranks.at(0)->slices.size() > 0);
        QCOMPARE(trace.session->ranks[0]->files.at(0).status, FileStatus::Loaded);

        // kernel_details.csv alone: kernels only, still a valid profile (591 rows per FORMATS.md §8).
        const LoadResult csv
            = loadSession(kSamples + "/msprof-analyze/test/ut/advisor/advisor_backend/compute_advice/kernel_details.csv");
        QVERIFY2(csv.session, csv.error.c_str());
        QCOMPARE(csv.session->layout, std::string("csv"));
        QCOMPARE(csv.session->ranks.at(0)->kernels.size(), std::size_t(591));
        QCOMPARE(csv.session->ranks[0]->slices.size(), std::size_t(0));

        const LoadResult chrome = loadSession(kSamples + "/chrome-trace/catapult/tracing/test_data/big_trace.json");
        QVERIFY2(chrome.session, chrome.error.c_str());
        QCOMPARE(chrome.session->layout, std::string("chrome-trace"));
        QVERIFY(chrome.session->ranks.at(0)->slices.size() > 0);
    }

    void simplifiedJson()
    {
        QTemporaryDir tmp;
        const std::string path = tmp.path().toStdString() + "/tasks.json";
        writeFile(path, R"({"tasks":[{"name":"MatMul","start_time":0.5,"end_time":1.5},)"
                        R"({"name":"Add","start_time":2,"end_time":2.25}]})");
        const LoadResult r = loadSession(path);
        QVERIFY2(r.session, r.error.c_str());
        QCOMPARE(r.session->layout, std::string("simplified JSON"));
        QCOMPARE(r.session->ranks.at(0)->files.at(0).kind, std::string("simplified_tasks"));
        QCOMPARE(r.session->ranks[0]->slices.size(), std::size_t(2));
    }

    void emptyAndMissing()
    {
        QTemporaryDir tmp;
        const LoadResult empty = loadSession(tmp.path().toStdString());
        QVERIFY(!empty.session);
        QVERIFY(!empty.cancelled);
        QCOMPARE(empty.error, tmp.path().toStdString()
                     + ": no profiling data found (looked for PROF_*, *_ascend_pt, trace_view.json, msprof_*.json, "
                       "kernel_details.csv, op_summary_*.csv)");
        const LoadResult missing = loadSession("/nonexistent/npuscope");
        QVERIFY(!missing.session);
        QCOMPARE(missing.error, std::string("/nonexistent/npuscope: No such file or directory"));
    }

    // The timeline is indexed while the side files are still read: what indexing reports comes
    // after what the side files report, as when it ran last, and a timeline without slices
    // takes its span from the kernel rows read beside it.
    void indexedWhileSideFilesRead()
    {
        QTemporaryDir tmp;
        const fs::path root(tmp.path().toStdString());
        const std::string header = "Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),"
                                   "Duration(us),Wait Time(us),Block Dim\n";
        const std::string meta = R"({"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"Ascend Hardware"}})";
        const fs::path dup = root / "dup" / "a_ascend_pt" / "ASCEND_PROFILER_OUTPUT";
        writeFile(dup / "trace_view.json", "[" + meta + R"(,{"ph":"X","name":"MatMul","pid":1,"tid":2,"ts":"10.000","dur":5},)"
                                               R"({"ph":"X","name":"MatMul","pid":1,"tid":2,"ts":"10.000","dur":5}])");
        writeFile(dup / "kernel_details.csv",
                  header + "1,0,7,2,MatMul,MatMul,AI_CORE,10.000,5.000,0,8\n1,0,8,2,Bad,MatMul,AI_CORE,later,1,0,8\n");
        const LoadResult a = loadSession((root / "dup").string());
        QVERIFY2(a.session, a.error.c_str());
        const Profile& p = *a.session->ranks.at(0);
        QCOMPARE(p.slices.size(), std::size_t(2));
        QCOMPARE(p.kernels.size(), std::size_t(1));
        std::ptrdiff_t badRow = -1, duplicate = -1;
        for (std::size_t i = 0; i < p.diagnostics.size(); ++i) {
            const Diagnostic& d = p.diagnostics[i];
            if (d.reason.find("bad start time 'later'") != std::string::npos)
                badRow = static_cast<std::ptrdiff_t>(i);
            if (d.reason.find("duplicate event") != std::string::npos)
                duplicate = static_cast<std::ptrdiff_t>(i);
        }
        QVERIFY(badRow >= 0);
        QVERIFY(duplicate > badRow);

        const fs::path bare = root / "bare" / "b_ascend_pt" / "ASCEND_PROFILER_OUTPUT";
        writeFile(bare / "trace_view.json", "[" + meta + "]");
        writeFile(bare / "kernel_details.csv", header + "1,0,7,2,MatMul,MatMul,AI_CORE,100.000,2.500,0,8\n");
        const LoadResult b = loadSession((root / "bare").string());
        QVERIFY2(b.session, b.error.c_str());
        const Profile& q = *b.session->ranks.at(0);
        QCOMPARE(q.slices.size(), std::size_t(0));
        QCOMPARE(q.begin, TimeNs(100000));
        QCOMPARE(q.end, TimeNs(102500));
    }

    // A tiny timeline is read and indexed long before the kernel table: its thread then reads side
    // files from the back of the list, each into a Profile of its own. Whichever thread read a
    // file, the rank holds every row written, in file order, and the diagnostics in plan order.
    void sideFilesReadByEitherThread()
    {
        QTemporaryDir tmp;
        const fs::path out = fs::path(tmp.path().toStdString()) / "r_ascend_pt" / "ASCEND_PROFILER_OUTPUT";
        const std::string meta = R"({"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"Ascend Hardware"}})";
        writeFile(out / "trace_view.json", "[" + meta + R"(,{"ph":"X","name":"MatMul","pid":1,"tid":2,"ts":"10.000","dur":5}])");
        std::string kernels = "Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),"
                              "Duration(us),Wait Time(us),Block Dim\n";
        constexpr int kKernelRows = 60000;
        for (int i = 0; i < kKernelRows; ++i)
            kernels += "1,0," + std::to_string(i) + ",2,MatMul,MatMul,AI_CORE," + std::to_string(100 + i) + ".000,0.500,0,8\n";
        writeFile(out / "kernel_details.csv", kernels);
        // Each of these has rows to keep and one row to skip (a diagnostic naming its file).
        std::string details = "Name,Input Shapes,Host Self Duration(us)\n", l2 = "Stream Id,Task Id,Hit Rate\n",
                    stats = "OP Type,Core Type,Count,Total Time(us)\n";
        constexpr int kDetailRows = 3000, kL2Rows = 2000, kStatRows = 40;
        for (int i = 0; i < kDetailRows; ++i)
            details += "op" + std::to_string(i) + ",\"1,2\"," + std::to_string(i) + ".5\n";
        details += "short row\n";
        for (int i = 0; i < kL2Rows; ++i)
            l2 += "2," + std::to_string(i) + ",0.5\n";
        l2 += "2,1\n";
        for (int i = 0; i < kStatRows; ++i)
            stats += "Type" + std::to_string(i) + ",AI_CORE,3," + std::to_string(i) + ".0\n";
        stats += "TypeX,AI_CORE,many,1.0\n";
        writeFile(out / "operator_details.csv", details);
        writeFile(out / "l2_cache.csv", l2);
        writeFile(out / "op_statistic.csv", stats);

        std::vector<std::string> firstDiagnostics;
        for (int round = 0; round < 3; ++round) {
            const LoadResult r = loadSession(out.parent_path().string());
            QVERIFY2(r.session, r.error.c_str());
            const Profile& p = *r.session->ranks.at(0);
            QCOMPARE(p.kernels.size(), std::size_t(kKernelRows));
            QCOMPARE(p.opDetails.size(), std::size_t(kDetailRows));
            QCOMPARE(p.l2.size(), std::size_t(kL2Rows));
            QCOMPARE(p.stats.size(), std::size_t(kStatRows));
            for (int i : {0, kDetailRows / 2, kDetailRows - 1}) {
                QCOMPARE(std::string(p.strings.view(p.opDetails[static_cast<std::size_t>(i)].name)), "op" + std::to_string(i));
                QCOMPARE(std::string(p.strings.view(p.opDetails[static_cast<std::size_t>(i)].inputShapes)), std::string("1,2"));
            }
            QCOMPARE(p.l2.back().taskId, std::int64_t(kL2Rows - 1));
            QCOMPARE(std::string(p.strings.view(p.stats.back().name)), "Type" + std::to_string(kStatRows - 1));
            for (const char* name : {"operator_details.csv", "l2_cache.csv", "op_statistic.csv"}) {
                const FileRecord* f = record(p, name);
                QVERIFY2(f, name);
                QCOMPARE(f->status, FileStatus::Partial);
                QCOMPARE(f->skipped, std::uint64_t(1));
            }
            // The diagnostics of the files follow the order of the files' records (plan order).
            std::vector<std::string> diagnostics;
            std::ptrdiff_t lastFile = -1;
            for (const Diagnostic& d : p.diagnostics) {
                const auto at = std::find_if(p.files.begin(), p.files.end(), [&](const FileRecord& f) { return f.path == d.file; });
                if (at == p.files.end())
                    continue;
                QVERIFY2(at - p.files.begin() >= lastFile, d.reason.c_str());
                lastFile = at - p.files.begin();
                diagnostics.push_back(fs::path(d.file).filename().string() + ": " + d.reason);
            }
            QCOMPARE(diagnostics.size(), std::size_t(3));
            if (round == 0)
                firstDiagnostics = diagnostics;
            QCOMPARE(diagnostics, firstDiagnostics);
        }
    }

    void unreadableFileLeavesTheRest()
    {
        // A dangling kernel_details.csv (errno ENOENT at open) beside a good step_trace_time.csv.
        QTemporaryDir tmp;
        const fs::path out = fs::path(tmp.path().toStdString()) / "x_ascend_pt" / "ASCEND_PROFILER_OUTPUT";
        fs::create_directories(out);
        fs::copy_file(kPytorch + "/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
                      out / "step_trace_time.csv");
        fs::create_symlink(out / "gone.csv", out / "kernel_details.csv");
        const LoadResult r = loadSession(tmp.path().toStdString());
        QVERIFY2(r.session, r.error.c_str());
        const Profile& p = *r.session->ranks.at(0);
        QCOMPARE(p.steps.size(), std::size_t(1));
        const FileRecord* bad = record(p, "kernel_details.csv");
        QCOMPARE(bad->status, FileStatus::Failed);
        QVERIFY2(bad->note.find("kernel_details.csv") != std::string::npos, bad->note.c_str());
        QVERIFY2(bad->note.find("No such file or directory") != std::string::npos, bad->note.c_str());
        bool diag = false;
        for (const auto& d : p.diagnostics)
            diag = diag || (d.severity == Severity::Error && d.file == bad->path);
        QVERIFY(diag);
    }

    void permissionDenied()
    {
        if (::geteuid() == 0)
            QSKIP("running as root: chmod 000 does not stop root from reading (the dangling-file case "
                  "covers the failure path)");
        QTemporaryDir tmp;
        const fs::path out = fs::path(tmp.path().toStdString()) / "x_ascend_pt" / "ASCEND_PROFILER_OUTPUT";
        fs::create_directories(out);
        fs::copy_file(kPytorch + "/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
                      out / "step_trace_time.csv");
        fs::copy_file(kPytorch + "/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
                      out / "kernel_details.csv");
        fs::permissions(out / "kernel_details.csv", fs::perms::none);
        const LoadResult r = loadSession(tmp.path().toStdString());
        fs::permissions(out / "kernel_details.csv", fs::perms::owner_all);
        QVERIFY(r.session);
        const FileRecord* bad = record(*r.session->ranks.at(0), "kernel_details.csv");
        QCOMPARE(bad->status, FileStatus::Failed);
        QVERIFY(bad->note.find("Permission denied") != std::string::npos);
        QCOMPARE(r.session->ranks[0]->steps.size(), std::size_t(1));
    }

    void irrelevantFilesOnly()
    {
        QTemporaryDir tmp;
        // test_layout walks 10 000 such files; here the point is the load's error path.
        for (int i = 0; i < 1000; ++i)
            std::ofstream(fs::path(tmp.path().toStdString()) / ("f" + std::to_string(i) + ".log")) << i;
        const LoadResult r = loadSession(tmp.path().toStdString());
        QVERIFY(!r.session);
        QVERIFY(r.error.find("no profiling data found") != std::string::npos);
    }

    // The VmFlags line of the mapping holding `p` in /proc/self/smaps ("" when not found).
    static QString vmFlagsOf(const void* p)
    {
        std::ifstream smaps("/proc/self/smaps");
        const auto at = reinterpret_cast<std::uintptr_t>(p);
        bool inside = false;
        for (std::string line; std::getline(smaps, line);) {
            std::uintptr_t begin = 0, end = 0;
            if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2 && line.find(':') > line.find(' '))
                inside = at >= begin && at < end;
            else if (inside && line.rfind("VmFlags:", 0) == 0)
                return QString::fromStdString(line);
        }
        return {};
    }

    // Once the process manages huge pages, they are on while a large load's scope is open and
    // off otherwise (small loads, the rules, idle), for every thread of the process.
    void hugePagesForLargeLoadsOnly()
    {
        const auto disabled = [] {
#if defined(__linux__)
            return ::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1;
#else
            return true;
#endif
        };
        {
            const LoadAllocationScope before(LoadAllocationScope::kHugePagesInputBytes);
            QVERIFY(!heapHugePagesOn()); // not managed yet: left as the system has them
        }
        manageHeapHugePages();
        QVERIFY(!heapHugePagesOn());
        QVERIFY(disabled());
        {
            const LoadAllocationScope small(LoadAllocationScope::kHugePagesInputBytes - 1);
            QVERIFY(!heapHugePagesOn());
            QVERIFY(disabled());
            {
                const LoadAllocationScope large(LoadAllocationScope::kHugePagesInputBytes);
                QVERIFY(heapHugePagesOn());
#if defined(__linux__)
                QVERIFY(!disabled());
                bool otherThread = true;
                std::thread([&] { otherThread = disabled(); }).join();
                QVERIFY(!otherThread);
#endif
#if defined(__linux__) && defined(__GLIBC__)
                // The scope grew the heap ahead and advised huge pages for it (from its first
                // 2 MiB boundary on): a table allocated in it lies where the kernel may fault 2 MiB
                // at a time ("hg" in its VmFlags).
                if (!kSanitizerHeap && fs::exists("/sys/kernel/mm/transparent_hugepage/enabled")) {
                    std::vector<char> table(16u << 20);
                    const char* middle = table.data() + table.size() / 2;
                    QVERIFY2(vmFlagsOf(middle).contains(" hg"), qPrintable(vmFlagsOf(middle)));
                }
#endif
                {
                    const LoadAllocationScope rules;
                    QVERIFY(heapHugePagesOn());
                }
                QVERIFY(heapHugePagesOn());
            }
            QVERIFY(!heapHugePagesOn());
            QVERIFY(disabled());
        }
        // A load of the real samples is small: it runs with 4 KiB pages.
        const LoadResult r = loadSession(kPytorch + "/level1");
        QVERIFY(r.session);
        QVERIFY(!heapHugePagesOn());
        QVERIFY(disabled());
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestLoader)

} // namespace test_loader

#include "test_loader.moc"
