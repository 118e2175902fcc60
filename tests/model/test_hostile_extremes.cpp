// Extreme inputs through the real binary: nesting 100 000 deep, a 100 MB CSV line, a million
// distinct names, one JSON string of 64 MB (the 2 GB run is in docs/ROBUSTNESS.md), 50 000 files
// beside a rank, a symlink loop, a FIFO where a file is expected, and a file that grows while it
// is read. Each must end (exit 0 or 1) with a message or a partial load that says what was
// skipped: no abort, no hang, no out-of-memory kill.
#include "test_main.h"
#include "cli_run.h"

#include "model/formats/loader.h"
#include "model/io/memory_budget.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace test_hostile_extremes {

namespace fs = std::filesystem;
using namespace npuscope;

namespace {

const std::string kSamples = NPUSCOPE_SAMPLES;
// Under ASan (CI's second pass) the largest inputs are a quarter as large: the same paths run,
// in a quarter of the time.
constexpr std::size_t kScale = kSanitizerHeap ? 4 : 1;
const std::string kRank0 = kSamples + "/msinsight/test/data/pytorch/text/level0/rank0_ascend_pt";

void writeFile(const fs::path& p, const std::string& text)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

void copyRank(const fs::path& dst)
{
    fs::copy(kRank0, dst, fs::copy_options::recursive);
    for (auto& e : fs::recursive_directory_iterator(dst))
        fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
}

const std::string kHeader = "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,Task Type,"
                            "Task Start Time(us),Task Duration(us),Task Wait Time(us),Block Dim\n";

std::string row(long k, const std::string& name, const std::string& type = "MatMul")
{
    return "0,1," + std::to_string(k) + ",2," + name + "," + type + ",AI_CORE," + std::to_string(1000 + 10 * k)
           + ".000,5.000,0,8\n";
}

// `info --format json` on `path`; fails the test on a crash, a hang or an exit other than 0/1.
nlohmann::json info(const QString& path, CliRun* out = nullptr, int timeoutMs = 240000)
{
    const CliRun r = runCli({"info", path, "--format", "json"}, timeoutMs);
    if (out)
        *out = r;
    if (r.code != 0 && r.code != 1)
        qFatal("info %s: exit %d (crash or hang): %s", qPrintable(path), r.code, qPrintable(r.err.left(2000)));
    if (r.code == 1) {
        if (r.err.isEmpty())
            qFatal("info %s: exit 1 without a message", qPrintable(path));
        return {};
    }
    return nlohmann::json::parse(r.out.toStdString());
}

// Everything `info` says about files, as one string to search.
std::string allText(const nlohmann::json& j) { return j.dump(); }

} // namespace

class TestHostileExtremes : public QObject {
    Q_OBJECT

private slots:
    void deepNesting()
    {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "deep_ascend_pt";
        const int depth = 100000;
        std::string args;
        args.reserve(depth * 6);
        for (int i = 0; i < depth; ++i)
            args += "{\"a\":";
        args += "1";
        args.append(depth, '}');
        std::string trace = "[{\"ph\": \"X\", \"name\": \"ok1\", \"pid\": 1, \"tid\": 1, \"ts\": \"1.000\", \"dur\": 1},\n"
                            "{\"ph\": \"X\", \"name\": \"deep\", \"pid\": 1, \"tid\": 1, \"ts\": \"2.000\", \"dur\": 1, "
                            "\"args\": " + args + "},\n"
                            "{\"ph\": \"X\", \"name\": \"ok2\", \"pid\": 1, \"tid\": 1, \"ts\": \"3.000\", \"dur\": 1},\n"
                            + std::string(depth, '[') + "\n]";
        writeFile(root / "ASCEND_PROFILER_OUTPUT/trace_view.json", trace);
        writeFile(root / "profiler_metadata.json", std::string(depth, '[') + std::string(depth, ']'));
        writeFile(root / "ASCEND_PROFILER_OUTPUT/communication.json", "{\"step1\":" + args + "}");
        const nlohmann::json j = info(QString::fromStdString(root.string()));
        QVERIFY(!j.is_null());
        const auto& rank = j["ranks"][0];
        QVERIFY(rank["slices"].get<int>() >= 2); // ok1 and ok2 survive
        QVERIFY(!j["input_problems"].empty());  // and the deep parts are said to be skipped
        QVERIFY(allText(j["input_problems"]).find("trace_view.json") != std::string::npos);
    }

    void hundredMegabyteCsvLine()
    {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "wide_ascend_pt";
        std::string csv = kHeader + row(1, "Before");
        csv += row(2, std::string((100u << 20) / kScale, 'N'));
        csv += row(3, "After");
        writeFile(root / "ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv);
        csv.clear();
        csv.shrink_to_fit();
        const nlohmann::json j = info(QString::fromStdString(root.string()));
        QVERIFY(!j.is_null());
        QCOMPARE(j["ranks"][0]["kernel_rows"].get<int>(), 3);
        // The name past 16 MiB is cut, and the file is said to be read in part.
        QVERIFY(allText(j["input_problems"]).find("longer than 16 MiB cut") != std::string::npos);
    }

    void millionDistinctNames()
    {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "names_ascend_pt";
        std::string csv = kHeader;
        const long n = 1000000 / static_cast<long>(kScale);
        csv.reserve(static_cast<std::size_t>(n) * 70);
        for (long k = 0; k < n; ++k)
            csv += row(k, "op_" + std::to_string(k), "T" + std::to_string(k % 1000));
        writeFile(root / "ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv);
        const nlohmann::json j = info(QString::fromStdString(root.string()));
        QVERIFY(!j.is_null());
        QCOMPARE(j["ranks"][0]["kernel_rows"].get<long>(), n);
        QCOMPARE(j["ranks"][0]["op_types"]["rows"].size(), 1000u);
        long count = 0;
        for (const auto& t : j["ranks"][0]["op_types"]["rows"])
            count += t["count"].get<long>();
        QCOMPARE(count, n);
    }

    // One JSON string of 64 MB as the whole timeline, and an event whose name is 64 MB (the 2 GB
    // run is in docs/ROBUSTNESS.md): the name is kept as its first 16 MiB, the events around it
    // load, and the file is reported as read in part.
    void singleHugeString()
    {
        QTemporaryDir tmp;
        const fs::path root = fs::path(tmp.path().toStdString()) / "string_ascend_pt";
        writeFile(root / "ASCEND_PROFILER_OUTPUT/trace_view.json", "\"" + std::string(64u << 20, 's') + "\"");
        CliRun r;
        const nlohmann::json j = info(QString::fromStdString(root.string()), &r);
        QVERIFY2(r.err.contains("trace_view.json"), qPrintable(r.err.left(500)));
        if (!j.is_null())
            QVERIFY(!j["input_problems"].empty());

        const fs::path named = fs::path(tmp.path().toStdString()) / "name_ascend_pt";
        const auto event = [](const std::string& name, int ts) {
            return "{\"name\": \"" + name + "\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": \""
                   + std::to_string(ts) + ".000\", \"dur\": 5}";
        };
        writeFile(named / "ASCEND_PROFILER_OUTPUT/trace_view.json",
                  "[" + event("before", 10) + ", " + event(std::string(64u << 20, 'n'), 20) + ", " + event("after", 30)
                      + "]");
        CliRun rn;
        const nlohmann::json jn = info(QString::fromStdString(named.string()), &rn);
        QVERIFY(!jn.is_null());
        QCOMPARE(jn["ranks"][0]["slices"].get<int>(), 3);
        QVERIFY2(rn.err.contains("1 string longer than 16 MiB cut to 16 MiB"), qPrintable(rn.err.left(500)));
        QCOMPARE(jn["input_problems"].size(), 1u);
        QCOMPARE(jn["input_problems"][0]["status"].get<std::string>(), std::string("partial"));
        QVERIFY(allText(jn["input_problems"]).find("trace_view.json") != std::string::npos);
    }

    void fiftyThousandFiles()
    {
        QTemporaryDir tmp;
        const fs::path dir = fs::path(tmp.path().toStdString()) / "many";
        fs::create_directories(dir);
        copyRank(dir / "rank0_ascend_pt");
        fs::create_directories(dir / "junk");
        for (int i = 0; i < 50000; ++i)
            std::ofstream(dir / "junk" / ("f" + std::to_string(i) + ".txt")) << i;
        const nlohmann::json j = info(QString::fromStdString(dir.string()));
        QVERIFY(!j.is_null());
        QCOMPARE(j["ranks"].size(), 1u);
        QCOMPARE(j["ranks"][0]["slices"].get<int>(), 3379); // as the level-0 rank alone loads
        // The junk is accounted for, each file with its reason, not silently dropped.
        std::size_t junk = 0;
        for (const auto& f : j["ignored"])
            junk += f["path"].get<std::string>().rfind("junk/", 0) == 0 && !f["note"].get<std::string>().empty();
        QCOMPARE(junk, std::size_t(50000));
    }

    void symlinkLoopAndFifo()
    {
        QTemporaryDir tmp;
        const fs::path dir = fs::path(tmp.path().toStdString()) / "rank0_ascend_pt";
        copyRank(dir);
        fs::create_directory_symlink(dir, dir / "ASCEND_PROFILER_OUTPUT" / "loop");
        fs::create_directory_symlink("..", dir / "up");
        const fs::path fifo = dir / "ASCEND_PROFILER_OUTPUT" / "op_statistic.csv";
        fs::remove(fifo);
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        const nlohmann::json j = info(QString::fromStdString(dir.string()), nullptr, 60000);
        QVERIFY(!j.is_null());
        QCOMPARE(j["ranks"][0]["slices"].get<int>(), 3379); // as the level-0 rank alone loads
        const std::string all = allText(j);
        QVERIFY2(all.find("not a regular file") != std::string::npos, all.substr(0, 2000).c_str());
        bool fifoProblem = false;
        for (const auto& p : j["input_problems"])
            fifoProblem = fifoProblem || p["file"].get<std::string>().find("op_statistic.csv") != std::string::npos;
        QVERIFY(fifoProblem);
    }

    // A file that grows between layout detection and reading: what was there when it was
    // opened is read, the load completes. The hook runs just before the file is opened, so the
    // two rows it appends are there: 102 rows, the last two the late ones, at 2000 and 2010 µs.
    void fileGrowsWhileRead()
    {
        QTemporaryDir tmp;
        const fs::path dir = fs::path(tmp.path().toStdString()) / "grow_ascend_pt";
        const fs::path csv = dir / "ASCEND_PROFILER_OUTPUT/kernel_details.csv";
        std::string text = kHeader;
        for (int k = 0; k < 100; ++k)
            text += row(k, "Op" + std::to_string(k));
        writeFile(csv, text);
        LoadOptions o;
        o.beforeRead = [&](const std::string& path) {
            if (path.find("kernel_details") != std::string::npos) {
                std::ofstream(path, std::ios::app) << row(100, "Late") << row(101, "Later");
            }
        };
        const LoadResult r = loadSession(dir.string(), o);
        QVERIFY2(r.session, r.error.c_str());
        const Profile& p = *r.session->ranks.at(0);
        QCOMPARE(p.kernels.size(), std::size_t(102));
        std::size_t late = 0;
        for (std::size_t i = 0; i < p.kernels.size(); ++i) {
            const std::string_view name = p.str(p.kernels.name[i]);
            if (name == "Late" || name == "Later") {
                ++late;
                QCOMPARE(p.kernels.start[i], TimeNs(name == "Late" ? 2000000 : 2010000));
            }
        }
        QCOMPARE(late, std::size_t(2));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestHostileExtremes)

} // namespace test_hostile_extremes

#include "test_hostile_extremes.moc"
