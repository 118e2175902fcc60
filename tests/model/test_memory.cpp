// Device memory: operator_memory / memory_record / npu_module_mem (text) and OP_MEMORY /
// MEMORY_RECORD (db) on the real level-1 and level-2 samples, the peaks and the largest
// allocations checked against values computed here straight from the files; the generator's
// memory files and its planted leak; `analyze --metric memory` and `info`.
#include "test_main.h"
#include "cli_run.h"

#include "model/analysis/memory.h"
#include "model/formats/loader.h"
#include "model/formats/readers.h"
#include "model/formats/sqlite_db.h"
#include "model/synth/synth.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace test_memory {

using namespace npuscope;

namespace {

const std::string kText = std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/";
const std::string kDb = std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/db/";
constexpr double kMiB = 1024.0 * 1024.0;

// A plain CSV of the memory files (no quoted cells in them): rows of cells, TAB and CR trimmed.
std::vector<std::vector<std::string>> readCsv(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::vector<std::vector<std::string>> rows;
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        std::stringstream ss(line);
        std::string c;
        while (std::getline(ss, c, ','))
            cells.push_back(c);
        if (!line.empty() && line.back() == ',')
            cells.emplace_back();
        for (auto& x : cells)
            while (!x.empty() && (x.back() == '\t' || x.back() == '\r'))
                x.pop_back();
        rows.push_back(cells);
    }
    return rows;
}

int col(const std::vector<std::string>& header, const std::string& name)
{
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

// "1736408883694624.810" -> ns, by digits (no double).
TimeNs microsText(const std::string& t)
{
    const auto dot = t.find('.');
    std::string frac = dot == std::string::npos ? "" : t.substr(dot + 1);
    frac.resize(3, '0');
    return std::stoll(t.substr(0, dot)) * 1000 + std::stoll(frac);
}

struct CsvPeak {
    double bytes = -1;
    TimeNs at = 0;
};

// The highest value of `column` over the rows of `component` in memory_record.csv, first reached.
CsvPeak csvPeak(const std::string& file, const std::string& component, const std::string& column)
{
    const auto rows = readCsv(file);
    const int comp = col(rows[0], "Component"), ts = col(rows[0], "Timestamp(us)"), v = col(rows[0], column);
    CsvPeak p;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const auto& r = rows[i];
        if (static_cast<int>(r.size()) <= v || r[comp] != component || r[v].empty())
            continue;
        const double b = std::stod(r[v]) * kMiB;
        const TimeNs t = microsText(r[ts]);
        if (b > p.bytes || (b == p.bytes && t < p.at)) {
            p.bytes = b;
            p.at = t;
        }
    }
    return p;
}

struct CsvAlloc {
    std::string name;
    double bytes;
    TimeNs at;
    bool released;
};

std::vector<CsvAlloc> csvAllocations(const std::string& file)
{
    const auto rows = readCsv(file);
    const int name = col(rows[0], "Name"), size = col(rows[0], "Size(KB)"), at = col(rows[0], "Allocation Time(us)"),
              rel = col(rows[0], "Release Time(us)");
    std::vector<CsvAlloc> out;
    for (std::size_t i = 1; i < rows.size(); ++i)
        if (rows[i].size() > static_cast<std::size_t>(rel) && std::stod(rows[i][size]) > 0)
            out.push_back({rows[i][name], std::stod(rows[i][size]) * 1024.0, microsText(rows[i][at]),
                           !rows[i][rel].empty()});
    std::stable_sort(out.begin(), out.end(), [](const CsvAlloc& a, const CsvAlloc& b) {
        return a.bytes != b.bytes ? a.bytes > b.bytes : a.at < b.at;
    });
    return out;
}

qint64 sqlInt(const std::string& path, const std::string& sql)
{
    std::string err;
    auto d = db::Database::open(path, &err);
    if (!d)
        qFatal("%s", err.c_str());
    auto st = d->prepare(sql, &err);
    if (!st.valid())
        qFatal("%s: %s", sql.c_str(), err.c_str());
    return st.step() ? st.int64(0).value_or(-1) : -1;
}

ProfilePtr loadRank(const std::string& dir, Prefer prefer = Prefer::Auto)
{
    LoadOptions o;
    o.prefer = prefer;
    const LoadResult r = loadSession(dir, o);
    if (!r.session || r.session->ranks.size() != 1)
        return nullptr;
    return r.session->ranks[0];
}

} // namespace

class TestMemory : public QObject {
    Q_OBJECT
private slots:
    void realText_data()
    {
        QTest::addColumn<QString>("dir");
        for (const char* d : {"level1/rank0", "level1/rank1", "level2/rank0", "level2/rank1"})
            QTest::newRow(d) << QString(d);
    }
    void realText()
    {
        QFETCH(QString, dir);
        const std::string root = kText + dir.toStdString() + "_ascend_pt";
        const std::string out = root + "/ASCEND_PROFILER_OUTPUT/";
        const ProfilePtr p = loadRank(root);
        QVERIFY(p);
        const std::vector<CsvAlloc> allocs = csvAllocations(out + "operator_memory.csv");
        QCOMPARE(p->opMemory.size(), readCsv(out + "operator_memory.csv").size() - 1); // every row kept
        QVERIFY(allocs.size() > 100);

        const memory::Summary m = memory::summarize(*p);
        QVERIFY(m.frameworkCurve());
        QCOMPARE(m.frameworkCurve()->component, std::string("PTA+GE"));
        const CsvPeak alloc = csvPeak(out + "memory_record.csv", "PTA+GE", "Total Allocated(MB)");
        const CsvPeak res = csvPeak(out + "memory_record.csv", "PTA+GE", "Total Reserved(MB)");
        const CsvPeak app = csvPeak(out + "memory_record.csv", "APP", "Total Reserved(MB)");
        QVERIFY(alloc.bytes > 900 * kMiB);
        QCOMPARE(m.peakAllocated.bytes, alloc.bytes);
        QCOMPARE(m.peakAllocated.at, alloc.at);
        QCOMPARE(m.peakReserved.bytes, res.bytes);
        QCOMPARE(m.peakReserved.at, res.at);
        QCOMPARE(m.appReserved.bytes, app.bytes);
        QCOMPARE(m.appReserved.at, app.at);
        QCOMPARE(m.allocations, allocs.size());
        QCOMPARE(m.unreleased, std::size_t(std::count_if(allocs.begin(), allocs.end(), [](auto& a) { return !a.released; })));

        // The largest allocations, in order.
        const auto bySize = memory::allocationsBySize(*p);
        QCOMPARE(bySize.size(), allocs.size());
        for (std::size_t k = 0; k < 10; ++k) {
            const OpAllocation& a = p->opMemory[bySize[k]];
            QCOMPARE(std::string(p->str(a.name)), allocs[k].name);
            QCOMPARE(a.bytes, allocs[k].bytes);
            QCOMPARE(a.allocAt, allocs[k].at);
        }
        // What is alive at the peak: counted here from the rows' times.
        const auto rows = readCsv(out + "operator_memory.csv");
        const int at = col(rows[0], "Allocation Time(us)"), rel = col(rows[0], "Release Time(us)"),
                  size = col(rows[0], "Size(KB)");
        std::size_t alive = 0;
        double aliveBytes = 0;
        for (std::size_t i = 1; i < rows.size(); ++i) {
            const TimeNs a = microsText(rows[i][at]);
            const bool released = !rows[i][rel].empty();
            if (std::stod(rows[i][size]) > 0 && a <= alloc.at && (!released || alloc.at < microsText(rows[i][rel]))) {
                ++alive;
                aliveBytes += std::stod(rows[i][size]) * 1024.0;
            }
        }
        const auto atPeak = memory::allocationsAliveAt(*p, m.peakAllocated.at);
        QCOMPARE(atPeak.size(), alive);
        double sum = 0;
        for (auto i : atPeak)
            sum += p->opMemory[i].bytes;
        QCOMPARE(sum, aliveBytes);
        for (std::size_t k = 1; k < atPeak.size(); ++k)
            QVERIFY(p->opMemory[atPeak[k - 1]].bytes >= p->opMemory[atPeak[k]].bytes);

        // Per operator: the sums add up to every allocation.
        double total = 0;
        for (const auto& a : allocs)
            total += a.bytes;
        double byOp = 0;
        for (const auto& o : memory::byOperator(*p))
            byOp += o.bytes;
        QCOMPARE(byOp, total);

        // The Python op and its call stack (trace_view.json has "Call stack" on cpu_op events).
        const memory::AllocationOrigin origin = memory::originOf(*p, p->opMemory[bySize[0]]);
        QVERIFY(origin.slice != kNone);
        QVERIFY(!origin.op.empty());
    }

    void realDb_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<int>("rank");
        for (const char* l : {"level1", "level2"})
            for (int r : {0, 1})
                QTest::newRow((std::string(l) + "/rank" + std::to_string(r)).c_str()) << QString(l) << r;
    }
    void realDb()
    {
        QFETCH(QString, dir);
        QFETCH(int, rank);
        const std::string root = kDb + dir.toStdString() + "/rank" + std::to_string(rank) + "_ascend_pt";
        const std::string db = root + "/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_" + std::to_string(rank) + ".db";
        const ProfilePtr p = loadRank(root);
        QVERIFY(p);
        QCOMPARE(qint64(p->opMemory.size()), sqlInt(db, "SELECT count(*) FROM OP_MEMORY"));
        const std::string comp = "(SELECT id FROM STRING_IDS WHERE value = 'PTA+GE')";
        const qint64 peak = sqlInt(db, "SELECT max(totalAllocated) FROM MEMORY_RECORD WHERE component = " + comp);
        const qint64 peakAt = sqlInt(db, "SELECT min(timestamp) FROM MEMORY_RECORD WHERE component = " + comp
                                             + " AND totalAllocated = " + std::to_string(peak));
        const qint64 reserved = sqlInt(db, "SELECT max(totalReserved) FROM MEMORY_RECORD WHERE component = " + comp);
        const memory::Summary m = memory::summarize(*p);
        QVERIFY(peak > 900 * 1048576LL);
        // MB in the model (the reader divides bytes by 2^20), bytes again here: exact for these sizes.
        QCOMPARE(m.peakAllocated.bytes, double(peak));
        QCOMPARE(m.peakAllocated.at, TimeNs(peakAt));
        QCOMPARE(m.peakReserved.bytes, double(reserved));
        // The five largest allocations, in order (ties: earlier first).
        std::string err;
        auto d = db::Database::open(db, &err);
        QVERIFY2(d, err.c_str());
        auto st = d->prepare("SELECT s.value, o.size, o.allocationTime FROM OP_MEMORY o JOIN STRING_IDS s ON s.id = "
                             "o.name WHERE o.size > 0 ORDER BY o.size DESC, o.allocationTime LIMIT 5",
                             &err);
        QVERIFY2(st.valid(), err.c_str());
        const auto bySize = memory::allocationsBySize(*p);
        for (std::size_t k = 0; st.step(); ++k) {
            const OpAllocation& a = p->opMemory[bySize[k]];
            QCOMPARE(std::string(p->str(a.name)), std::string(st.text(0)));
            QCOMPARE(a.bytes, double(*st.int64(1)));
            QCOMPARE(a.allocAt, TimeNs(*st.int64(2)));
        }
        QCOMPARE(qint64(m.unreleased), sqlInt(db, "SELECT count(*) FROM OP_MEMORY WHERE releaseTime IS NULL AND size > 0"));
    }

    // The generator writes the three files like torch_npu; what it wrote adds up.
    void synthMemoryFiles()
    {
        QTemporaryDir tmp;
        synth::SynthOptions o;
        o.steps = 2;
        o.format = "both";
        const synth::SynthResult r = synth::synthesize(tmp.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
        const std::string out = r.rankDirs[0] + "/ASCEND_PROFILER_OUTPUT/";
        const auto opRows = readCsv(out + "operator_memory.csv");
        QCOMPARE(opRows[0].size(), std::size_t(15)); // the newest torch_npu header
        QCOMPARE(opRows[0][1], std::string("Size(KB)"));
        // Every block is the allocator's: a whole number of 512-byte units.
        for (std::size_t i = 1; i < opRows.size(); ++i)
            QCOMPARE(std::fmod(std::stod(opRows[i][1]) * 1024.0, 512.0), 0.0);
        const auto allocs = csvAllocations(out + "operator_memory.csv");
        QVERIFY(allocs.size() > 500);
        QVERIFY(std::all_of(allocs.begin(), allocs.end(), [](auto& a) { return a.released; })); // no leak here
        const CsvPeak peak = csvPeak(out + "memory_record.csv", "PTA+GE", "Total Allocated(MB)");
        const ProfilePtr text = loadRank(r.rankDirs[0], Prefer::Text);
        const ProfilePtr db = loadRank(r.rankDirs[0], Prefer::Db);
        QVERIFY(text && db);
        QCOMPARE(text->opMemory.size(), allocs.size());
        QCOMPARE(db->opMemory.size(), allocs.size());
        const memory::Summary mt = memory::summarize(*text), md = memory::summarize(*db);
        QCOMPARE(mt.peakAllocated.bytes, peak.bytes);
        QCOMPARE(mt.peakAllocated.at, peak.at);
        QCOMPARE(md.peakAllocated.bytes, peak.bytes);
        QCOMPARE(md.peakAllocated.at, peak.at);
        QCOMPARE(md.modules.size(), mt.modules.size());
        QVERIFY(mt.modules.size() >= 10);
        QVERIFY(mt.appReserved.bytes > mt.peakReserved.bytes);
    }

    // llama2-leak: one aten::clone per step never freed; the allocated floor grows by its size.
    void synthLeak()
    {
        QTemporaryDir tmp;
        synth::SynthOptions o;
        o.scenario = "llama2-leak";
        o.steps = 4;
        const synth::SynthResult r = synth::synthesize(tmp.path().toStdString(), o);
        QVERIFY2(r.ok, r.error.c_str());
        const std::string out = r.rankDirs[0] + "/ASCEND_PROFILER_OUTPUT/";
        const auto allocs = csvAllocations(out + "operator_memory.csv");
        std::vector<CsvAlloc> kept;
        for (const auto& a : allocs)
            if (!a.released)
                kept.push_back(a);
        QCOMPARE(kept.size(), std::size_t(4));
        for (const auto& a : kept) {
            QCOMPARE(a.name, std::string("aten::clone"));
            QCOMPARE(a.bytes, 48 * kMiB + 512);
        }
        // The PTA allocated value at each step's end grows by one leaked block per step.
        const auto rows = readCsv(out + "memory_record.csv");
        std::vector<double> pta;
        for (std::size_t i = 1; i < rows.size(); ++i)
            if (rows[i][0] == "PTA")
                pta.push_back(std::stod(rows[i][2]) * kMiB);
        QCOMPARE(pta.back() - pta.front(), 4 * (48 * kMiB + 512));
        const ProfilePtr p = loadRank(r.rankDirs[0]);
        QVERIFY(p);
        const memory::Summary m = memory::summarize(*p);
        QCOMPARE(m.unreleased, std::size_t(4));
        QCOMPARE(m.peakAllocated.bytes, csvPeak(out + "memory_record.csv", "PTA+GE", "Total Allocated(MB)").bytes);
        const auto ops = memory::byOperator(*p);
        const auto clone = std::find_if(ops.begin(), ops.end(), [](auto& x) { return x.name == "aten::clone"; });
        QVERIFY(clone != ops.end());
        QCOMPARE(clone->unreleased, std::uint64_t(4));
        QCOMPARE(clone->unreleasedBytes, 4 * (48 * kMiB + 512));
    }

    // Bad rows are skipped and named; a file without a required column fails naming it.
    void badInput()
    {
        const std::string text = "Name,Size(KB),Allocation Time(us),Release Time(us),Duration(us),Device Type\n"
                                 "aten::mm,512.5,1000.250\t,1010.500\t,10.250\t,NPU:3\n"
                                 "aten::add,8,not-a-time,,,NPU:3\n"
                                 "aten::mul,N/A,1005.000,,,NPU:3\n"
                                 "aten::cat,4,1006.000,,,NPU:3\n";
        Profile p;
        ReadContext ctx;
        ctx.file = "operator_memory.csv";
        const FileRecord rec = readers::readOperatorMemoryCsv(text, p, ctx);
        QCOMPARE(rec.records, std::uint64_t(3));
        QCOMPARE(rec.skipped, std::uint64_t(1));
        QCOMPARE(p.opMemory.size(), std::size_t(3));
        QCOMPARE(p.opMemory[0].bytes, 512.5 * 1024);
        QCOMPARE(p.opMemory[0].device, 3);
        QCOMPARE(*p.opMemory[0].releaseAt, TimeNs(1010500));
        QVERIFY(std::isnan(p.opMemory[1].bytes)); // N/A: missing, never 0
        QVERIFY(!p.opMemory[2].released());
        bool named = false;
        for (const auto& d : p.diagnostics)
            named = named || (d.file == "operator_memory.csv" && d.reason.find("not-a-time") != std::string::npos);
        QVERIFY(named);
        // Allocations without a size are left out of the analysis.
        QCOMPARE(memory::allocationsBySize(p).size(), std::size_t(2));

        Profile q;
        const FileRecord bad = readers::readOperatorMemoryCsv("Name,Allocation Time(us)\naten::mm,1.0\n", q, ctx);
        QCOMPARE(bad.status, FileStatus::Failed);
        bool sizeNamed = false;
        for (const auto& d : q.diagnostics)
            sizeNamed = sizeNamed || d.reason.find("Size(KB)") != std::string::npos;
        QVERIFY(sizeNamed);
    }

    void cliAnalyzeMemory()
    {
        const std::string root = kText + "level1/rank0_ascend_pt";
        const auto allocs = csvAllocations(root + "/ASCEND_PROFILER_OUTPUT/operator_memory.csv");
        const CliRun r = runCli({"analyze", "--import", QString::fromStdString(root), "--metric", "memory", "--top", "0",
                                 "--format", "csv"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines[0], QString("rank,operator_name,allocation_MB,allocated_at_ms,released_at_ms,duration_ms"));
        QCOMPARE(std::size_t(lines.size() - 1), allocs.size());
        for (std::size_t k = 0; k < 5; ++k) {
            const QStringList c = lines[int(k) + 1].split(',');
            QCOMPARE(c[0].toInt(), int(k) + 1);
            QCOMPARE(c[1].toStdString(), allocs[k].name);
            QVERIFY(std::abs(c[2].toDouble() - allocs[k].bytes / kMiB) < 1e-6);
            QVERIFY(std::abs(c[3].toDouble() - double(allocs[k].at) / 1e6) < 1e-3);
            QCOMPARE(c[4].isEmpty(), !allocs[k].released);
        }
        const CliRun j = runCli({"analyze", "--import", QString::fromStdString(root), "--metric", "memory", "--top", "3",
                                 "--sort", "ascending", "--format", "json"});
        QVERIFY2(j.code == 0, qPrintable(j.err));
        const auto doc = nlohmann::json::parse(j.out.toStdString())["rows"];
        QCOMPARE(doc.size(), std::size_t(3));
        QVERIFY(std::abs(doc[0]["allocation_MB"].get<double>() - allocs.back().bytes / kMiB) < 1e-6); // smallest
        const CliRun t = runCli({"analyze", "--import", QString::fromStdString(root), "--metric", "memory", "--top", "2"});
        QVERIFY2(t.code == 0, qPrintable(t.err));
        QVERIFY(t.out.contains(QString::fromStdString(allocs[0].name)));
        QVERIFY(t.out.contains("allocation_MB"));
    }

    void cliInfoMemory()
    {
        const std::string root = kText + "level2/rank1_ascend_pt";
        const std::string rec = root + "/ASCEND_PROFILER_OUTPUT/memory_record.csv";
        const CsvPeak alloc = csvPeak(rec, "PTA+GE", "Total Allocated(MB)");
        const CsvPeak res = csvPeak(rec, "PTA+GE", "Total Reserved(MB)");
        const CliRun r = runCli({"info", QString::fromStdString(root), "--format", "json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto m = nlohmann::json::parse(r.out.toStdString())["ranks"][0]["memory"];
        QCOMPARE(m["component"].get<std::string>(), std::string("PTA+GE"));
        QCOMPARE(m["peak_allocated"]["bytes"].get<double>(), alloc.bytes);
        QCOMPARE(m["peak_allocated"]["at_ns"].get<std::int64_t>(), alloc.at);
        QCOMPARE(m["peak_reserved"]["bytes"].get<double>(), res.bytes);
        QCOMPARE(m["peak_reserved"]["at_ns"].get<std::int64_t>(), res.at);
        QVERIFY(m["capacity_bytes"].is_null());
        const CliRun t = runCli({"info", QString::fromStdString(root)});
        QVERIFY2(t.code == 0, qPrintable(t.err));
        char want[64];
        std::snprintf(want, sizeof want, "peak allocated (PTA+GE): %.2f MiB", alloc.bytes / kMiB);
        QVERIFY2(t.out.contains(want), qPrintable(t.out));
        QVERIFY(t.out.contains("peak reserved (PTA+GE)"));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestMemory)

} // namespace test_memory

#include "test_memory.moc"
