// Layout detection on the real sample trees and on small folders built here.
#include "test_main.h"
#include "model/formats/layout.h"
#include "model/formats/layout_search.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>

namespace test_layout {

using namespace npuscope;
using namespace npuscope::layout;
namespace fs = std::filesystem;

namespace {

const std::string kSamples = NPUSCOPE_SAMPLES;
const std::string kPytorch = kSamples + "/msinsight/test/data/pytorch/text";
const std::string kSkApp = kSamples
    + "/ascend-msprof-skill/tests/fixtures/tilelang_design_feedback/candidate_comparability/"
      "workload_mismatch_candidate/reports/app";
const std::string kTestRank0 = kSamples + "/msinsight/server/src/test/test_data/test_rank_0";

void writeFile(const fs::path& p, const std::string& text)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}

std::string fileName(const std::string& path) { return fs::path(path).filename().string(); }

std::set<std::string> readNames(const RankPlan& r)
{
    std::set<std::string> out;
    for (const auto& f : r.files)
        if (f.toRead())
            out.insert(fileName(f.path));
    return out;
}

const PlannedFile* find(const RankPlan& r, const std::string& name)
{
    for (const auto& f : r.files)
        if (fileName(f.path) == name)
            return &f;
    return nullptr;
}

} // namespace

class TestLayout : public QObject {
    Q_OBJECT
private slots:
    void fileNames()
    {
        FileName n = parseFileName("op_summary_slice_1_20260606121516.csv");
        QCOMPARE(n.module, std::string("op_summary"));
        QCOMPARE(n.slice, 1);
        QCOMPARE(n.timestamp, std::string("20260606121516"));
        QCOMPARE(n.ext, std::string("csv"));
        n = parseFileName("op_summary_0_1_1_20230101120000.csv"); // CANN <= 6.3
        QCOMPARE(n.module, std::string("op_summary"));
        QCOMPARE(n.middle, std::string("0_1_1"));
        QCOMPARE(n.timestamp, std::string("20230101120000"));
        n = parseFileName("profiler_info_7.json");
        QCOMPARE(n.module, std::string("profiler_info"));
        QCOMPARE(n.middle, std::string("7"));
        n = parseFileName("info.json.3");
        QCOMPARE(n.module, std::string("info.json"));
        QCOMPARE(n.middle, std::string("3"));
        n = parseFileName("l2_cache_20260606121516.csv");
        QCOMPARE(n.module, std::string("l2_cache"));

        QCOMPARE(classifyFileName("msprof_slice_0_20260606121514.json").kind, FileKind::Timeline);
        QCOMPARE(classifyFileName("trace_view.json").kind, FileKind::Timeline);
        QCOMPARE(classifyFileName("kernel_details.csv").kind, FileKind::Kernels);
        QCOMPARE(classifyFileName("hccl_statistic_20230101.csv").kind, FileKind::CommStatistic);
        QCOMPARE(classifyFileName("npu_module_mem.csv").kind, FileKind::Memory);
        QCOMPARE(classifyFileName("step_trace_time.csv").kind, FileKind::StepTrace);
        QCOMPARE(classifyFileName("cluster_communication_matrix.json").kind, FileKind::ClusterCommunicationMatrix);
        const Classification graph = classifyFileName("step_trace_20260606121516.csv");
        QCOMPARE(graph.kind, FileKind::Unknown);
        QVERIFY(graph.note.find("graph-mode") != std::string::npos);
        QCOMPARE(classifyFileName("operator_details.csv").kind, FileKind::OperatorDetails);
        QCOMPARE(classifyFileName("ascend_pytorch_profiler_0.db").kind, FileKind::ProfilerDb);
        QCOMPARE(classifyFileName("analysis.db").kind, FileKind::AnalysisDb);
        QCOMPARE(classifyFileName("communication_analyzer.db").kind, FileKind::AnalysisDb);
        QCOMPARE(classifyFileName("msprof_20260606121514.db").kind, FileKind::ProfilerDb);
        QCOMPARE(classifyFileName("README.md").note, std::string("not a profiler file"));
        // A raw PROF_* folder's records of the capture: named for what they are, not "not a profiler file".
        for (const char* record : {"start_info.0", "end_info", "host_start.log", "dev_start.log.1", "sample.json"}) {
            const Classification c = classifyFileName(record);
            QCOMPARE(c.kind, FileKind::Unknown);
            QCOMPARE(c.kindName, std::string("collection_record"));
            QVERIFY2(c.note.find("start/end record") != std::string::npos, record);
        }
        QCOMPARE(classifyFileName("start_info.x").note, std::string("not a profiler file"));
        // SQLite's write-ahead log, shared memory and journal: read by SQLite with their database.
        for (const char* side : {"-wal", "-shm", "-journal"}) {
            const Classification c = classifyFileName(std::string("ascend_pytorch_profiler_0.db") + side);
            QCOMPARE(c.kind, FileKind::Unknown);
            QCOMPARE(c.kindName, std::string("sqlite_sidecar"));
            QCOMPARE(c.note, std::string("SQLite's own file of ascend_pytorch_profiler_0.db, read with it"));
        }
    }

    // The table of file kinds: each row's own names are classified as that row, the rows read
    // by content are found from their planned kind, and the heap estimates are the rows'.
    void fileKindTable()
    {
        QCOMPARE(fileKindTableProblem(), std::string());
        std::set<std::string_view> names;
        for (const FileKindRow& row : fileKinds()) {
            QVERIFY(names.insert(row.name).second);
            QVERIFY(kindRowNamed(row.name) == &row);
            if (row.modules.empty() || row.modules == "*")
                continue;
            std::string_view modules = row.modules;
            while (!modules.empty()) {
                const std::string module(modules.substr(0, modules.find('|')));
                modules.remove_prefix(std::min(modules.size(), module.size() + 1));
                const std::string ext(row.exts.substr(0, row.exts.find('|')));
                const std::string name = module == "info.json" ? "info.json.0" : module + "_20260606121516." + ext;
                const Classification c = classifyFileName(name);
                QVERIFY2(c.row == &row, name.c_str());
                QCOMPARE(c.kind, row.kind);
                QCOMPARE(c.kindName, std::string(row.name));
            }
        }
        QCOMPARE(kindRowNamed("sqlite_sidecar")->ignoredIsProblem, false);
        QCOMPARE(kindRowNamed("sqlite")->ignoredIsProblem, true);
        QVERIFY(!kindRowNamed("no such kind"));
        QCOMPARE(kindRow(FileKind::Unknown).into, ReadsInto::None);
        QCOMPARE(kindRow(FileKind::Kernels).into, ReadsInto::SideTables);
        QCOMPARE(kindRow(FileKind::Memory).into, ReadsInto::Timeline);
        QCOMPARE(kindRow(FileKind::OperatorDetails).exportKind, Export::Either);
        QCOMPARE(kindRow(FileKind::StepTrace).exportKind, Export::Text);
        QCOMPARE(kindRowForContent(FileKind::Timeline, " {\"tasks\": []}").kind, FileKind::SimplifiedTasks);
        QCOMPARE(kindRowForContent(FileKind::Timeline, "{\"traceEvents\": []}").kind, FileKind::Timeline);
        QCOMPARE(kindRowForContent(FileKind::Kernels, "{\"tasks\": []}").kind, FileKind::Kernels);
        constexpr std::uint64_t MiB = 1ull << 20;
        QCOMPARE(kindRow(FileKind::Timeline).heapBytes(10 * MiB), 20 * MiB);
        QCOMPARE(kindRow(FileKind::Timeline).heapBytes(100 * MiB), 140 * MiB);
        QCOMPARE(kindRow(FileKind::Communication).heapBytes(MiB), 8 * MiB);
        QCOMPARE(kindRow(FileKind::Kernels).heapBytes(MiB), MiB);
    }

    void pytorchClusters_data()
    {
        QTest::addColumn<QString>("level");
        QTest::addColumn<int>("filesRead"); // per rank, counted with `ls` over the sample folders
        QTest::newRow("level0") << "level0" << 10; // no communication*, op/api_statistic at level 0
        QTest::newRow("level1") << "level1" << 14;
        QTest::newRow("level2") << "level2" << 14;
    }
    void pytorchClusters()
    {
        QFETCH(QString, level);
        QFETCH(int, filesRead);
        const Plan plan = detect(kPytorch + "/" + level.toStdString());
        QVERIFY2(plan.error.empty(), plan.error.c_str());
        QCOMPARE(plan.layout, std::string("cluster (2 ranks, torch_npu)"));
        QCOMPARE(plan.ranks.size(), std::size_t(2));
        std::set<int> ranks;
        for (const auto& r : plan.ranks) {
            QCOMPARE(r.layout, std::string("torch_npu"));
            ranks.insert(r.rank);
            QCOMPARE(r.name, "rank" + std::to_string(r.rank) + "_ascend_pt");
            QCOMPARE(int(readNames(r).size()), filesRead);
            QVERIFY(readNames(r).count("trace_view.json"));
            QVERIFY(readNames(r).count("kernel_details.csv"));
            QVERIFY(readNames(r).count("profiler_info_" + std::to_string(r.rank) + ".json"));
            // Read order: profiler_info first, so the rank id is known before anything else.
            QCOMPARE(r.files.front().kind, FileKind::ProfilerInfo);
            const PlannedFile* details = find(r, "operator_details.csv");
            QVERIFY(details);
            QCOMPARE(details->kind, FileKind::OperatorDetails);
            QVERIFY(details->toRead());
        }
        QCOMPARE(ranks, (std::set<int>{0, 1}));
        QVERIFY(plan.files.empty());
        QCOMPARE(readNames(plan.ranks[0]).count("communication.json"), std::size_t(level != "level0"));
    }

    void singleRankFolder()
    {
        const Plan plan = detect(kPytorch + "/level1/rank1_ascend_pt");
        QVERIFY(plan.error.empty());
        QCOMPARE(plan.layout, std::string("torch_npu"));
        QCOMPARE(plan.ranks.size(), std::size_t(1));
        QCOMPARE(plan.ranks[0].rank, 1);
        QCOMPARE(plan.ranks[0].name, std::string("rank1_ascend_pt"));
        // Trailing slash names the same folder.
        QCOMPARE(detect(kPytorch + "/level1/rank1_ascend_pt/").ranks.at(0).name, std::string("rank1_ascend_pt"));
    }

    void msprofApp()
    {
        const Plan plan = detect(kSkApp);
        QVERIFY(plan.error.empty());
        QCOMPARE(plan.layout, std::string("msprof"));
        QCOMPARE(plan.ranks.size(), std::size_t(1));
        const RankPlan& r = plan.ranks[0];
        QCOMPARE(r.name, std::string("PROF_000001_20260606121448940_RGBHHJGBAJGRQEOB"));
        QCOMPARE(readNames(r), (std::set<std::string>{"msprof_20260606121514.json", "op_summary_20260606121516.csv"}));
        QCOMPARE(r.files[0].kind, FileKind::Timeline); // timeline before kernels
        QCOMPARE(r.files[1].kindName, std::string("op_summary"));
    }

    void torchWithoutTimeline()
    {
        const Plan plan = detect(kTestRank0);
        QVERIFY(plan.error.empty());
        QCOMPARE(plan.layout, std::string("torch_npu"));
        QCOMPARE(plan.ranks.size(), std::size_t(1));
        QCOMPARE(plan.ranks[0].rank, 0);
        // ls test_rank_0 -R: 9 files, every one read.
        QCOMPARE(readNames(plan.ranks[0]),
                 (std::set<std::string>{"profiler_info_0.json", "kernel_details.csv", "communication.json",
                                        "communication_matrix.json", "step_trace_time.csv", "memory_record.csv",
                                        "npu_module_mem.csv", "operator_memory.csv", "operator_details.csv"}));
        QCOMPARE(plan.ranks[0].files.size(), std::size_t(9));
    }

    void singleFiles_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("layout");
        QTest::addColumn<int>("kind");
        const QString s = QString::fromStdString(kSamples);
        QTest::newRow("trace_view") << s + "/msprof-analyze/test/ut/advisor/timeline_advice/trace_view.json"
                                    << "torch_npu" << int(FileKind::Timeline);
        QTest::newRow("kernel_details") << s + "/msprof-analyze/test/ut/advisor/compute_advice/data/kernel_details.csv"
                                        << "csv" << int(FileKind::Kernels);
        QTest::newRow("msprof json") << QString::fromStdString(kSkApp)
                + "/PROF_000001_20260606121448940_RGBHHJGBAJGRQEOB/mindstudio_profiler_output/msprof_20260606121514.json"
                                     << "msprof" << int(FileKind::Timeline);
        for (const char* f : {"catapult/tracing/test_data/big_trace.json", "catapult/tracing/test_data/flow.json",
                              "catapult/tracing/test_data/x_event_trace.json",
                              "catapult/tracing/test_data/chromeos_system_trace.json",
                              "perfetto/test/trace_processor/diff_tests/parser/parsing/flow_events_json_v2.json"})
            QTest::newRow(f) << s + "/chrome-trace/" + f << "chrome-trace" << int(FileKind::Timeline);
    }
    void singleFiles()
    {
        QFETCH(QString, path);
        QFETCH(QString, layout);
        QFETCH(int, kind);
        const Plan plan = detect(path.toStdString());
        QVERIFY2(plan.error.empty(), plan.error.c_str());
        QCOMPARE(plan.layout, layout.toStdString());
        QCOMPARE(plan.ranks.size(), std::size_t(1));
        QCOMPARE(plan.ranks[0].files.size(), std::size_t(1));
        QCOMPARE(int(plan.ranks[0].files[0].kind), kind);
        QCOMPARE(plan.ranks[0].files[0].bytes, std::uint64_t(fs::file_size(path.toStdString())));
        QCOMPARE(plan.ranks[0].name, fileName(path.toStdString()));
    }

    void slicesAndTimestamps()
    {
        QTemporaryDir tmp;
        const fs::path out = fs::path(tmp.path().toStdString()) / "PROF_000001_20260606121448940_AAAA"
            / "mindstudio_profiler_output";
        writeFile(out / "op_summary_slice_1_20260606121516.csv", "x\n");
        writeFile(out / "op_summary_slice_0_20260606121516.csv", "x\n");
        writeFile(out / "op_statistic_20260606121516.csv", "x\n");
        writeFile(out / "op_statistic_20260101000000.csv", "x\n");
        writeFile(out / "msprof_20260606121514.json", "[]");
        writeFile(out / "task_time_20260606121514.csv", "x\n");
        writeFile(out / "step_trace_20260606121514.csv", "x\n");
        writeFile(out / "msprof_20260606121514.db", "");
        const Plan plan = detect(tmp.path().toStdString());
        QVERIFY(plan.error.empty());
        QCOMPARE(plan.layout, std::string("msprof"));
        const RankPlan& r = plan.ranks.at(0);
        std::vector<std::string> order;
        for (const auto& f : r.files)
            if (f.toRead() && f.kind != FileKind::ProfilerDb) // text vs db is the loader's choice
                order.push_back(fileName(f.path));
        QCOMPARE(order, (std::vector<std::string>{"msprof_20260606121514.json", "op_summary_slice_0_20260606121516.csv",
                                                  "op_summary_slice_1_20260606121516.csv",
                                                  "op_statistic_20260606121516.csv"}));
        const PlannedFile* old = find(r, "op_statistic_20260101000000.csv");
        QCOMPARE(old->status, FileStatus::Ignored);
        QCOMPARE(old->note, std::string("older than op_statistic_20260606121516.csv"));
        QCOMPARE(r.diagnostics.size(), std::size_t(1));
        QCOMPARE(r.diagnostics[0].severity, Severity::Warning);
        QCOMPARE(find(r, "task_time_20260606121514.csv")->note, std::string("timeline JSON used instead"));
        QVERIFY(find(r, "step_trace_20260606121514.csv")->note.find("graph-mode") != std::string::npos);
        QCOMPARE(find(r, "msprof_20260606121514.db")->kind, FileKind::ProfilerDb);
        QVERIFY(find(r, "msprof_20260606121514.db")->toRead());
        QCOMPARE(plan.sqliteFiles, 1);
    }

    void legacyTree()
    {
        QTemporaryDir tmp;
        const fs::path prof = fs::path(tmp.path().toStdString()) / "PROF_000001_20230101120000_ABCD";
        writeFile(prof / "device_0" / "summary" / "op_summary_0_1_1_20230101120500.csv", "x\n");
        writeFile(prof / "device_0" / "summary" / "task_time_0_1_1_20230101120500.csv", "x\n");
        writeFile(prof / "device_0" / "timeline" / "msprof_0_1_1_20230101120500.json", "[]");
        writeFile(prof / "device_0" / "info.json.0", "{}");
        writeFile(prof / "device_0" / "data" / "raw.0.slice_0", "x");
        writeFile(prof / "device_0" / "data" / "raw.1.slice_0", "x");
        writeFile(prof / "device_1" / "summary" / "op_summary_1_1_1_20230101120500.csv", "x\n");
        writeFile(prof / "host" / "summary" / "api_statistic_0_1_20230101120500.csv", "x\n");
        const Plan plan = detect(tmp.path().toStdString());
        QVERIFY(plan.error.empty());
        QCOMPARE(plan.layout, std::string("msprof-legacy"));
        QCOMPARE(plan.ranks.size(), std::size_t(1)); // one Profile per PROF folder, all devices
        const RankPlan& r = plan.ranks[0];
        QCOMPARE(find(r, "info.json.0")->device, 0);
        QCOMPARE(find(r, "info.json.0")->kind, FileKind::DeviceInfo);
        QCOMPARE(find(r, "op_summary_0_1_1_20230101120500.csv")->device, 0);
        QCOMPARE(find(r, "op_summary_1_1_1_20230101120500.csv")->device, 1);
        QVERIFY(find(r, "op_summary_1_1_1_20230101120500.csv")->toRead());
        QCOMPARE(find(r, "msprof_0_1_1_20230101120500.json")->device, 0);
        QCOMPARE(find(r, "task_time_0_1_1_20230101120500.csv")->status, FileStatus::Ignored);
        QCOMPARE(find(r, "api_statistic_0_1_20230101120500.csv")->kind, FileKind::ApiStatistic);
        // The raw data folder is one record with its file count.
        bool rawSeen = false;
        for (const auto& f : r.files)
            if (f.path.find("device_0/data/") != std::string::npos) {
                rawSeen = true;
                QCOMPARE(f.note, std::string("raw profiler data, not read (2 files)"));
            }
        QVERIFY(rawSeen);
    }

    void looseRankFolders()
    {
        // rank_N folders of loose files: a cluster given by rank folders.
        QTemporaryDir tmp;
        const fs::path root(tmp.path().toStdString());
        writeFile(root / "rank_0" / "trace_view.json", "[]");
        writeFile(root / "rank_1" / "trace_view.json", "[]");
        writeFile(root / "cluster_analysis_output" / "cluster_step_trace_time.csv", "x\n");
        writeFile(root / "notes.txt", "x");
        const Plan plan = detect(root.string());
        QVERIFY(plan.error.empty());
        QCOMPARE(plan.layout, std::string("cluster (2 ranks, torch_npu)"));
        QCOMPARE(plan.files.size(), std::size_t(2));
        int toRead = 0;
        for (const auto& f : plan.files) {
            if (f.toRead()) {
                ++toRead;
                QCOMPARE(f.kind, FileKind::ClusterStepTrace);
            } else {
                QCOMPARE(f.note, std::string("not a profiler file"));
            }
        }
        QCOMPARE(toRead, 1);
        // The same two folders given one by one.
        const Plan two = detect(std::vector<std::string>{(root / "rank_0").string(), (root / "rank_1").string()});
        QCOMPARE(two.ranks.size(), std::size_t(2));
        QCOMPARE(two.root, root.string());
        QCOMPARE(two.layout, std::string("cluster (2 ranks, torch_npu)"));
    }

    void emptyFolder()
    {
        QTemporaryDir tmp;
        const Plan plan = detect(tmp.path().toStdString());
        QCOMPARE(plan.error, tmp.path().toStdString()
                     + ": no profiling data found (looked for PROF_*, *_ascend_pt, trace_view.json, msprof_*.json, "
                       "kernel_details.csv, op_summary_*.csv)");
        QVERIFY(plan.ranks.empty());
    }

    void manyIrrelevantFiles()
    {
        QTemporaryDir tmp;
        const fs::path root(tmp.path().toStdString());
        for (int i = 0; i < 10000; ++i)
            std::ofstream(root / ("file_" + std::to_string(i) + ".txt")) << i;
        const Plan plan = detect(root.string());
        QVERIFY(plan.ranks.empty());
        QVERIFY(plan.error.find("no profiling data found") != std::string::npos);
    }

    void symlinkLoop()
    {
        QTemporaryDir tmp;
        const fs::path root(tmp.path().toStdString());
        fs::create_directories(root / "a");
        fs::create_directory_symlink(root, root / "a" / "loop");
        writeFile(root / "a" / "kernel_details.csv", "x\n");
        const Plan plan = detect(root.string());
        QVERIFY(plan.error.empty());
        QCOMPARE(plan.ranks.size(), std::size_t(1));
        QCOMPARE(plan.ranks[0].name, std::string("a"));
    }

    void torchDeviceInfoInProf()
    {
        // torch_npu keeps the device facts only in its raw PROF_* folder: read them from there.
        QTemporaryDir tmp;
        const fs::path rank = fs::path(tmp.path().toStdString()) / "host_1_20260101_ascend_pt";
        writeFile(rank / "profiler_info_0.json", "{}");
        writeFile(rank / "ASCEND_PROFILER_OUTPUT" / "trace_view.json", "[]");
        writeFile(rank / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv", "x\n");
        const fs::path prof = rank / "PROF_000001_20260101_ABCDEFGHIJKLMNOP";
        writeFile(prof / "device_3" / "info.json.3", "{}");
        writeFile(prof / "host" / "info.json", "{}");
        writeFile(prof / "mindstudio_profiler_output" / "op_summary_20260101120000.csv", "x\n");
        const Plan plan = detect(rank.string());
        QVERIFY2(plan.error.empty(), plan.error.c_str());
        QCOMPARE(plan.ranks.size(), std::size_t(1));
        const RankPlan& r = plan.ranks[0];
        QCOMPARE(readNames(r), (std::set<std::string>{"profiler_info_0.json", "trace_view.json", "kernel_details.csv",
                                                      "info.json.3"}));
        const PlannedFile* info = find(r, "info.json.3");
        QCOMPARE(info->kind, FileKind::DeviceInfo);
        QCOMPARE(info->device, 3);
        // Read before the timeline, so the core counts are known when tables arrive.
        QVERIFY(info < find(r, "trace_view.json"));
        QCOMPARE(find(r, "info.json")->status, FileStatus::Ignored);
        QCOMPARE(find(r, "op_summary_20260101120000.csv")->note,
                 std::string("raw msprof output: ASCEND_PROFILER_OUTPUT used instead"));
    }

    void deepRunFound()
    {
        // The skill repository's root holds one msprof run eight folders down.
        const std::string root = kSamples + "/ascend-msprof-skill";
        const Plan plan = detect(root);
        QVERIFY2(plan.error.empty(), plan.error.c_str());
        QCOMPARE(plan.ranks.size(), std::size_t(1));
        QCOMPARE(plan.ranks[0].name, std::string("PROF_000001_20260606121448940_RGBHHJGBAJGRQEOB"));
        QCOMPARE(readNames(plan.ranks[0]),
                 (std::set<std::string>{"msprof_20260606121514.json", "op_summary_20260606121516.csv"}));
        const std::vector<RunInfo> runs = listRuns(plan);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].root, kSkApp);
        QCOMPARE(runs[0].layout, std::string("msprof"));
        QCOMPARE(runs[0].ranks, 1);
        QCOMPARE(runs[0].bytes, std::uint64_t(983 + 25216)); // the two files' sizes (SOURCES.md)
        QVERIFY(runs[0].modified > 0);
    }

    void unrelatedRuns()
    {
        QTemporaryDir tmp;
        const fs::path root(tmp.path().toStdString());
        writeFile(root / "exp_a" / "trial" / "x_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv", "x\n");
        writeFile(root / "exp_b" / "PROF_000001_1_AAAA" / "mindstudio_profiler_output" / "op_summary_20260101120000.csv",
                  "yy\n");
        const Plan plan = detect(root.string());
        QVERIFY2(plan.error.empty(), plan.error.c_str());
        QCOMPARE(plan.ranks.size(), std::size_t(2));
        const std::vector<RunInfo> runs = listRuns(plan);
        QCOMPARE(runs.size(), std::size_t(2));
        QCOMPARE(runs[0].root, (root / "exp_a" / "trial").string());
        QCOMPARE(runs[0].layout, std::string("torch_npu"));
        QCOMPARE(runs[0].bytes, std::uint64_t(2));
        QCOMPARE(runs[1].root, (root / "exp_b").string());
        QCOMPARE(runs[1].layout, std::string("msprof"));
        QCOMPARE(runs[1].bytes, std::uint64_t(3));
        const Plan second = selectRun(plan, 1);
        QCOMPARE(second.ranks.size(), std::size_t(1));
        QCOMPARE(second.ranks[0].name, std::string("PROF_000001_1_AAAA"));
        QCOMPARE(second.layout, std::string("msprof"));
        QCOMPARE(second.root, runs[1].root);
    }

    void levelsAreSeparateRuns()
    {
        // text/ holds three two-rank jobs: each opens as a cluster of its own.
        const Plan plan = detect(kPytorch);
        QVERIFY2(plan.error.empty(), plan.error.c_str());
        QCOMPARE(plan.ranks.size(), std::size_t(6));
        const std::vector<RunInfo> runs = listRuns(plan);
        QCOMPARE(runs.size(), std::size_t(3));
        for (std::size_t i = 0; i < 3; ++i) {
            QCOMPARE(runs[i].root, kPytorch + "/level" + std::to_string(i));
            QCOMPARE(runs[i].ranks, 2);
            QCOMPARE(runs[i].layout, std::string("cluster (2 ranks, torch_npu)"));
            const Plan one = selectRun(plan, i);
            const Plan direct = detect(runs[i].root);
            QCOMPARE(one.ranks.size(), direct.ranks.size());
            QCOMPARE(one.bytesToRead(), direct.bytesToRead());
            QCOMPARE(runs[i].bytes, direct.bytesToRead());
        }
    }

    void rankWrappersAreOneJob()
    {
        // Each rank in a rank_N folder of its own, side by side: one job, one cluster.
        QTemporaryDir tmp;
        const fs::path root(tmp.path().toStdString());
        for (int r = 0; r < 2; ++r)
            writeFile(root / "job" / ("rank_" + std::to_string(r)) / ("PROF_00000" + std::to_string(r + 1) + "_1_AAAA")
                          / "mindstudio_profiler_output" / "op_summary_20260101120000.csv",
                      "x\n");
        const Plan plan = detect(root.string());
        const std::vector<RunInfo> runs = listRuns(plan);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].root, (root / "job").string());
        QCOMPARE(runs[0].ranks, 2);
        QCOMPARE(runs[0].layout, std::string("cluster (2 ranks, msprof)"));
    }

    void searchDepthAndFolderLimits()
    {
        QTemporaryDir tmp;
        const fs::path root(tmp.path().toStdString());
        // A run whose root is 8 folders down is found; one 9 down is not.
        fs::path eight = root, nine = root / "n";
        for (int i = 0; i < 7; ++i) {
            eight /= "d" + std::to_string(i);
            nine /= "d" + std::to_string(i);
        }
        writeFile(eight / "PROF_000001_1_AAAA" / "mindstudio_profiler_output" / "op_summary_20260101120000.csv", "x\n");
        writeFile(nine / "PROF_000002_1_BBBB" / "mindstudio_profiler_output" / "op_summary_20260101120000.csv", "x\n");
        const Plan plan = detect(root.string());
        QCOMPARE(plan.ranks.size(), std::size_t(1));
        QCOMPARE(plan.ranks[0].name, std::string("PROF_000001_1_AAAA"));
        bool tooDeep = false;
        for (const auto& d : plan.diagnostics)
            tooDeep = tooDeep || d.reason.find("deeper than 8 levels") != std::string::npos;
        QVERIFY(tooDeep);

        // A limit on folders searched (20,000 by default; 100 here, to keep the test quick): a
        // run past them is not looked for, and that is said. One folder fewer and it is found.
        QCOMPARE(kMaxFolders, 20000);
        QTemporaryDir wide;
        const fs::path w(wide.path().toStdString());
        for (int i = 0; i < 98; ++i)
            fs::create_directory(w / ("f" + std::to_string(100 + i)));
        writeFile(w / "zz" / "PROF_000001_1_AAAA" / "mindstudio_profiler_output" / "op_summary_20260101120000.csv",
                  "x\n");
        // Folders entered: the root, 98 f*, zz, PROF_*, mindstudio_profiler_output = 102.
        const Plan capped = detectWithin(w.string(), nullptr, 100);
        QVERIFY(capped.ranks.empty());
        bool stopped = false;
        for (const auto& d : capped.diagnostics)
            stopped = stopped || d.reason.find("search stopped after 100 folders") != std::string::npos;
        QVERIFY(stopped);
        QVERIFY(capped.error.find("no profiling data found") != std::string::npos);
        QCOMPARE(detectWithin(w.string(), nullptr, 102).ranks.size(), std::size_t(1));

        // A cancelled search stops and says so.
        std::atomic<bool> cancel{true};
        const Plan cancelled = detect(root.string(), &cancel);
        QVERIFY(cancelled.cancelled);
        QVERIFY(cancelled.ranks.empty());
        QCOMPARE(cancelled.error, root.string() + ": search cancelled");
    }

    void symlinkLoopBelowRuns()
    {
        QTemporaryDir tmp;
        const fs::path root(tmp.path().toStdString());
        fs::create_directories(root / "a" / "b");
        fs::create_directory_symlink(root / "a", root / "a" / "b" / "up");
        writeFile(root / "a" / "b" / "PROF_000001_1_AAAA" / "mindstudio_profiler_output" / "op_summary_20260101120000.csv",
                  "x\n");
        const Plan plan = detect(root.string());
        QCOMPARE(plan.ranks.size(), std::size_t(1));
        QCOMPARE(listRuns(plan).size(), std::size_t(1));
        bool loop = false;
        for (const auto& d : plan.diagnostics)
            loop = loop || d.reason.find("symlink loop") != std::string::npos;
        QVERIFY(loop);
    }

    void missingPath()
    {
        const Plan plan = detect("/nonexistent/npuscope/path");
        QCOMPARE(plan.error, std::string("/nonexistent/npuscope/path: No such file or directory"));
    }

    void unknownLoneFile()
    {
        QTemporaryDir tmp;
        const std::string p = tmp.path().toStdString() + "/notes.csv";
        writeFile(p, "a,b\n");
        const Plan plan = detect(p);
        QVERIFY(plan.error.find(p + ": not a profiler file") == 0);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestLayout)

} // namespace test_layout

#include "test_layout.moc"
