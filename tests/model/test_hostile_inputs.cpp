// Hostile inputs: truncated files at many offsets, empty files, one-line JSON, ragged CSV,
// invalid UTF-8, odd and long paths, files that vanish or change while loading, a folder of
// 10 000 unrelated files, out-of-range numbers, negative durations, duplicates, disorder and a
// memory budget too small. Each must give a message naming the file, the location (line or
// byte offset) and the reason, and keep everything around it that is valid.
#include "test_main.h"
#include "model/formats/csv.h"
#include "model/formats/file_kinds.h"
#include "model/formats/loader.h"
#include "model/formats/readers.h"
#include "model/io/mapped_file.h"
#include "model/io/memory_budget.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>

namespace test_hostile_inputs {

using namespace npuscope;
namespace fs = std::filesystem;

namespace {

const std::string kSamples = NPUSCOPE_SAMPLES;
const std::string kRank0 = kSamples + "/msinsight/test/data/pytorch/text/level0/rank0_ascend_pt";
const std::string kLevel1Out = kSamples + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/";
const std::string kTestRank0Out = kSamples + "/msinsight/server/src/test/test_data/test_rank_0/ASCEND_PROFILER_OUTPUT/";
const std::string kTraceView = kSamples + "/msprof-analyze/test/ut/advisor/timeline_advice/trace_view.json";
const std::string kCommJson = kTestRank0Out + "communication.json";

void writeFile(const fs::path& p, const std::string& text)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

std::string readFile(const std::string& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

ReadContext ctxFor(const std::string& file)
{
    ReadContext c;
    c.file = file;
    return c;
}

// The first diagnostic of `file` whose reason contains `what`, or null.
const Diagnostic* find(const std::vector<Diagnostic>& ds, const std::string& file, const std::string& what)
{
    for (const auto& d : ds)
        if (d.file == file && d.reason.find(what) != std::string::npos)
            return &d;
    return nullptr;
}

std::string dump(const std::vector<Diagnostic>& ds)
{
    std::string s;
    for (const auto& d : ds)
        s += d.file + " line " + std::to_string(d.line) + " byte " + std::to_string(d.byteOffset) + ": " + d.reason + "\n";
    return s;
}

#define VERIFY_DIAG(ds, file, what)                                                                                \
    do {                                                                                                            \
        if (!find(ds, file, what))                                                                                  \
            QFAIL(("no diagnostic for " + std::string(file) + " containing '" + what + "' in:\n" + dump(ds)).c_str()); \
    } while (0)

// A timeline of n X events, one per line: event k starts at k µs on track (1, 1 + k % 3).
std::string syntheticTimeline(int n, bool oneLine = false)
{
    std::string s = "[";
    for (int k = 0; k < n; ++k) {
        if (k)
            s += oneLine ? "," : ",\n";
        s += "{\"name\":\"op" + std::to_string(k % 17) + "\",\"ph\":\"X\",\"ts\":" + std::to_string(k)
            + ",\"dur\":1,\"pid\":1,\"tid\":" + std::to_string(1 + k % 3) + "}";
    }
    return s + "]";
}

const std::string kKernelHeader = "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,Task Type,"
                                  "Task Start Time(us),Task Duration(us),Task Wait Time(us),Block Dim\n";

std::string kernelRow(int k, const std::string& name = "")
{
    return "0,1," + std::to_string(k) + ",2," + (name.empty() ? "Op" + std::to_string(k) : name)
        + ",MatMul,AI_CORE," + std::to_string(1000 + 10 * k) + ".000,5.000,0,8\n";
}

// Copies the real rank-0 torch_npu folder (level 0) into `dst`.
void copyRank(const fs::path& dst)
{
    fs::create_directories(dst);
    fs::copy(kRank0, dst, fs::copy_options::recursive);
}

const FileRecord* recordOf(const Profile& p, const std::string& name)
{
    for (const auto& f : p.files)
        if (fs::path(f.path).filename() == name)
            return &f;
    return nullptr;
}

} // namespace

class TestHostileInputs : public QObject {
    Q_OBJECT
private slots:
    // A timeline cut at 60 offsets keeps exactly the events that are complete before the cut,
    // and says where the cut is.
    void truncatedTimelineAtManyOffsets()
    {
        const std::string full = syntheticTimeline(3000);
        const std::string file = "/cut/trace_view.json";
        std::uint64_t previous = 0;
        for (int i = 1; i <= 60; ++i) {
            const std::size_t cut = full.size() * i / 61 + (i % 7); // odd places, mid-token too
            const std::string part = full.substr(0, cut);
            std::uint64_t complete = 0; // events whose closing '}' is inside the prefix
            for (std::size_t pos = 0; (pos = part.find('}', pos)) != std::string::npos; ++pos)
                ++complete;
            Profile p;
            const FileRecord r = readers::readTimelineJson(part, p, ctxFor(file));
            QCOMPARE(r.records, complete);
            QVERIFY(r.records >= previous);
            previous = r.records;
            QVERIFY(r.status == FileStatus::Partial || r.status == FileStatus::Failed);
            bool located = false;
            for (const auto& d : p.diagnostics)
                located = located || (d.file == file && d.byteOffset >= 0 && std::uint64_t(d.byteOffset) <= cut
                                       && (d.reason.find("truncated") != std::string::npos
                                           || d.reason.find("closing") != std::string::npos));
            QVERIFY2(located, (std::to_string(cut) + ":\n" + dump(p.diagnostics)).c_str());
            p.finalize();
            QCOMPARE(p.slices.size(), std::size_t(complete));
        }
        // The real trace, cut at 40 places: never fewer events for a longer prefix.
        const std::string real = readFile(kTraceView);
        QVERIFY(real.size() > 100000);
        previous = 0;
        for (int i = 1; i <= 40; ++i) {
            const std::size_t cut = real.size() * i / 41 + 13 * i;
            Profile p;
            const FileRecord r = readers::readTimelineJson(std::string_view(real).substr(0, cut), p, ctxFor(kTraceView));
            QVERIFY(r.records >= previous);
            previous = r.records;
            QVERIFY(find(p.diagnostics, kTraceView, "truncated") || find(p.diagnostics, kTraceView, "closing"));
            p.finalize();
        }
    }

    // A CSV cut anywhere keeps the rows before the cut; a cut row is named by its line.
    void truncatedCsvAtManyOffsets()
    {
        std::string full = kKernelHeader;
        for (int k = 0; k < 200; ++k)
            full += kernelRow(k);
        const std::string file = "/cut/kernel_details.csv";
        for (int i = 1; i <= 50; ++i) {
            const std::size_t cut = kKernelHeader.size() + (full.size() - kKernelHeader.size()) * i / 51 + i % 5;
            const std::string part = full.substr(0, cut);
            const std::size_t lastNl = part.rfind('\n');
            const std::uint64_t completeRows = std::count(part.begin(), part.end(), '\n') - 1;
            const std::string tail = part.substr(lastNl + 1);
            Profile p;
            const FileRecord r = readers::readKernelCsv(part, p, ctxFor(file));
            const bool tailFull = std::count(tail.begin(), tail.end(), ',') == 10;
            QCOMPARE(r.records, completeRows + ((!tail.empty() && tailFull) ? 1 : 0));
            QCOMPARE(p.kernels.size(), std::size_t(r.records));
            if (!tail.empty()) {
                // The cut row is named: line, byte offset, and why.
                const auto line = std::int64_t(completeRows + 2);
                const Diagnostic* d = find(p.diagnostics, file, tailFull ? "no line end" : "truncated last row");
                QVERIFY2(d, dump(p.diagnostics).c_str());
                QCOMPARE(d->line, line);
                QCOMPARE(d->byteOffset, std::int64_t(lastNl + 1));
            }
        }
    }

    // Side JSON cut at 40 offsets: what was complete is kept, the parse error says where.
    void truncatedCommunicationJson()
    {
        const std::string full = readFile(kCommJson);
        Profile whole;
        readers::readCommunicationJson(full, whole, ctxFor(kCommJson));
        QVERIFY(whole.commOps.size() > 0);
        for (int i = 1; i <= 40; ++i) {
            const std::size_t cut = full.size() * i / 41 + i;
            Profile p;
            const FileRecord r = readers::readCommunicationJson(std::string_view(full).substr(0, cut), p, ctxFor(kCommJson));
            QVERIFY(r.status == FileStatus::Partial || r.status == FileStatus::Failed);
            const Diagnostic* d = find(p.diagnostics, kCommJson, "JSON parse error");
            QVERIFY2(d, dump(p.diagnostics).c_str());
            QVERIFY(d->byteOffset >= 0 && std::uint64_t(d->byteOffset) <= cut + 1); // nlohmann counts the EOF
            QVERIFY(p.commOps.size() <= whole.commOps.size());
        }
    }

    // Every reader: an empty (or blank) file fails with "empty" and the file name.
    void emptyFiles()
    {
        for (const std::string& bytes : {std::string(), std::string(" \n\r\n\t")}) {
            const std::string f = "/e/empty";
            using Reader = FileRecord (*)(std::string_view, Profile&, const ReadContext&);
            const std::pair<const char*, Reader> readersList[] = {
                {"timeline", readers::readTimelineJson},
                {"simplified", readers::readSimplifiedTasksJson},
                {"kernels", readers::readKernelCsv},
                {"op_statistic", readers::readOpStatisticCsv},
                {"api_statistic", readers::readApiStatisticCsv},
                {"comm_statistic", readers::readCommStatisticCsv},
                {"task_time", readers::readTaskTimeCsv},
                {"step_trace", readers::readStepTraceCsv},
                {"memory", readers::readMemoryCsv},
                {"l2", readers::readL2CacheCsv},
                {"communication", readers::readCommunicationJson},
                {"matrix", readers::readCommunicationMatrixJson},
                {"info", readers::readInfoJson},
                {"profiler_info", readers::readProfilerInfoJson},
                {"metadata", readers::readProfilerMetadataJson},
            };
            for (const auto& [what, read] : readersList) {
                Profile p;
                const FileRecord r = read(bytes, p, ctxFor(f));
                QVERIFY2(r.status == FileStatus::Failed, what);
                QVERIFY2(find(p.diagnostics, f, "empty") || find(p.diagnostics, f, "no trace events"),
                         (std::string(what) + ":\n" + dump(p.diagnostics)).c_str());
            }
            ClusterData c;
            std::vector<Diagnostic> ds;
            QCOMPARE(readers::readClusterStepTraceCsv(bytes, c, ds, ctxFor(f)).status, FileStatus::Failed);
            QCOMPARE(readers::readClusterCommunicationJson(bytes, c, ds, ctxFor(f)).status, FileStatus::Failed);
            QCOMPARE(readers::readClusterCommunicationMatrixJson(bytes, c, ds, ctxFor(f)).status, FileStatus::Failed);
            QVERIFY(find(ds, f, "empty"));
        }
        // Through the loader: an empty lone file and an empty SQLite export are named.
        QTemporaryDir tmp;
        const std::string trace = tmp.path().toStdString() + "/trace_view.json";
        writeFile(trace, "");
        const LoadResult r = loadSession(trace);
        QVERIFY(!r.session);
        QVERIFY2(r.error.find(trace) != std::string::npos, r.error.c_str());
        const std::string db = tmp.path().toStdString() + "/ascend_pytorch_profiler_0.db";
        writeFile(db, "");
        Profile p;
        QCOMPARE(readers::readProfilerDb(db, p, ctxFor(db)).status, FileStatus::Failed);
        QVERIFY2(!p.diagnostics.empty() && p.diagnostics[0].file == db, dump(p.diagnostics).c_str());
    }

    // 300 000 events on a single line load completely; cut in the middle, the offset is exact.
    void hugeOneLineJson()
    {
        const std::string line = syntheticTimeline(300000, true);
        QVERIFY(line.find('\n') == std::string::npos);
        QVERIFY(line.size() > 15'000'000);
        QTemporaryDir tmp;
        const std::string path = tmp.path().toStdString() + "/trace_view.json";
        writeFile(path, line);
        const LoadResult r = loadSession(path);
        QVERIFY2(r.session, r.error.c_str());
        QCOMPARE(r.session->ranks.at(0)->slices.size(), std::size_t(300000));
        const std::size_t cut = line.size() / 2;
        const std::size_t eventStart = line.rfind('{', cut);
        Profile p;
        const FileRecord fr = readers::readTimelineJson(std::string_view(line).substr(0, cut), p, ctxFor(path));
        QCOMPARE(fr.records, std::uint64_t(std::count(line.begin(), line.begin() + std::ptrdiff_t(cut), '}')));
        const Diagnostic* d = find(p.diagnostics, path, "truncated");
        QVERIFY2(d, dump(p.diagnostics).c_str());
        QCOMPARE(d->byteOffset, std::int64_t(eventStart));
    }

    // Rows with too many or too few cells are skipped by line and offset; the others are kept.
    void csvMismatchedColumns()
    {
        const std::string bad3 = "0,1,3,2,Extra,MatMul,AI_CORE,1030.000,5.000,0,8,surplus\n";
        const std::string bad5 = "0,1,5,2,Short,MatMul\n";
        const std::string text = kKernelHeader + kernelRow(1) + bad3 + kernelRow(4) + bad5 + kernelRow(6);
        const std::string f = "/m/kernel_details.csv";
        Profile p;
        const FileRecord r = readers::readKernelCsv(text, p, ctxFor(f));
        QCOMPARE(r.records, std::uint64_t(3));
        QCOMPARE(r.skipped, std::uint64_t(2));
        QCOMPARE(r.status, FileStatus::Partial);
        const Diagnostic* d3 = find(p.diagnostics, f, "row has 12 cells, header has 11");
        QVERIFY2(d3, dump(p.diagnostics).c_str());
        QCOMPARE(d3->line, std::int64_t(3));
        QCOMPARE(d3->byteOffset, std::int64_t(kKernelHeader.size() + kernelRow(1).size()));
        const Diagnostic* d5 = find(p.diagnostics, f, "row has 6 cells, header has 11");
        QVERIFY2(d5, dump(p.diagnostics).c_str());
        QCOMPARE(d5->line, std::int64_t(5));
    }

    // Invalid UTF-8 never stops a read: CSV text is kept byte-exact, the place is named, and a JSON
    // event that simdjson rejects costs only itself.
    void invalidUtf8()
    {
        const std::string f = "/u/kernel_details.csv";
        const std::string text = kKernelHeader + kernelRow(1) + kernelRow(2, "Bad\xff\xfeName") + kernelRow(3, "Ok\xc3\xa9");
        Profile p;
        const FileRecord r = readers::readKernelCsv(text, p, ctxFor(f));
        QCOMPARE(r.records, std::uint64_t(3));
        const Diagnostic* d = find(p.diagnostics, f, "invalid UTF-8");
        QVERIFY2(d, dump(p.diagnostics).c_str());
        QCOMPARE(d->line, std::int64_t(3));
        QCOMPARE(p.str(p.kernels.name[1]), std::string_view("Bad\xff\xfeName")); // byte-exact: a name is an identity
        QCOMPARE(p.str(p.kernels.name[2]), std::string_view("Ok\xc3\xa9"));

        const std::string tf = "/u/trace_view.json";
        const std::string trace = "[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},\n"
                                  "{\"name\":\"b\xff\",\"ph\":\"X\",\"ts\":2,\"dur\":1,\"pid\":1,\"tid\":1},\n"
                                  "{\"name\":\"c\",\"ph\":\"X\",\"ts\":3,\"dur\":1,\"pid\":1,\"tid\":1}]";
        Profile t;
        const FileRecord tr = readers::readTimelineJson(trace, t, ctxFor(tf));
        QCOMPARE(tr.records, std::uint64_t(2));
        QCOMPARE(tr.skipped, std::uint64_t(1));
        bool located = false;
        for (const auto& dd : t.diagnostics)
            located = located || (dd.file == tf && dd.byteOffset == std::int64_t(trace.find("{\"name\":\"b")));
        QVERIFY2(located, dump(t.diagnostics).c_str());

        const std::string cf = "/u/communication.json";
        std::string comm = readFile(kCommJson);
        const std::size_t at = comm.size() / 2;
        comm.insert(at, "\xff");
        Profile c;
        readers::readCommunicationJson(comm, c, ctxFor(cf));
        const Diagnostic* cd = find(c.diagnostics, cf, "JSON parse error");
        QVERIFY2(cd, dump(c.diagnostics).c_str());
        QVERIFY(cd->byteOffset >= std::int64_t(at) - 64 && cd->byteOffset <= std::int64_t(at) + 1);
    }

    // Non-ASCII folder names and a path of more than 1 500 bytes load like any other.
    void nonAsciiAndLongPaths()
    {
        QTemporaryDir tmp;
        fs::path dir = fs::path(tmp.path().toStdString()) / "профиль 数据 é ü";
        for (int i = 0; i < 8; ++i)
            dir /= std::string(200, char('a' + i));
        dir /= "rank0_ascend_pt";
        copyRank(dir);
        QVERIFY(dir.string().size() > 1500);
        const LoadResult here = loadSession(dir.string());
        const LoadResult orig = loadSession(kRank0);
        QVERIFY2(here.session, here.error.c_str());
        QVERIFY2(orig.session, orig.error.c_str());
        const Profile& a = *here.session->ranks.at(0);
        const Profile& b = *orig.session->ranks.at(0);
        QCOMPARE(a.slices.size(), b.slices.size());
        QCOMPARE(a.kernels.size(), b.kernels.size());
        QVERIFY(a.files.at(0).path.find("профиль 数据 é ü") != std::string::npos);
        // A missing path is named verbatim in the error.
        const std::string missing = (fs::path(tmp.path().toStdString()) / "нет такой папки").string();
        const LoadResult none = loadSession(missing);
        QVERIFY(!none.session);
        QVERIFY2(none.error.find(missing) != std::string::npos, none.error.c_str());
    }

    // Files removed, cut short or replaced by a folder between layout detection and reading:
    // each is named with the reason, the rest of the rank loads.
    void filesVanishOrChangeWhileLoading()
    {
        QTemporaryDir tmp;
        const fs::path rank = fs::path(tmp.path().toStdString()) / "rank0_ascend_pt";
        copyRank(rank);
        const fs::path out = rank / "ASCEND_PROFILER_OUTPUT";
        const std::string kernels = (out / "kernel_details.csv").string();
        const std::string steps = (out / "step_trace_time.csv").string();
        const std::string l2 = (out / "l2_cache.csv").string();
        const std::string keptHalf = readFile(steps).substr(0, readFile(steps).find('\n') + 1);
        LoadOptions o;
        // Files are read on several threads: the first file's hook changes the folder while the
        // others wait, so that no file is opened before the changes are complete.
        std::mutex changing;
        bool changed = false;
        o.beforeRead = [&](const std::string&) {
            const std::lock_guard<std::mutex> lock(changing);
            if (changed)
                return;
            fs::remove(kernels);                     // vanishes
            fs::remove(l2);
            fs::create_directory(l2);                // becomes a folder
            writeFile(steps, keptHalf + "1,2,3\n"); // changes: header + one short row
            changed = true;
        };
        const LoadResult r = loadSession(rank.string(), o);
        QVERIFY2(r.session, r.error.c_str());
        const Profile& p = *r.session->ranks.at(0);
        QVERIFY(p.slices.size() > 1000); // the trace still loads
        QCOMPARE(p.kernels.size(), std::size_t(0));
        const FileRecord* k = recordOf(p, "kernel_details.csv");
        QVERIFY(k);
        QCOMPARE(k->status, FileStatus::Failed);
        QVERIFY2(k->note.find(kernels) != std::string::npos && k->note.find("No such file") != std::string::npos,
                 k->note.c_str());
        VERIFY_DIAG(p.diagnostics, kernels, "No such file");
        VERIFY_DIAG(p.diagnostics, l2, "Is a directory");
        const Diagnostic* s = find(p.diagnostics, steps, "cells");
        QVERIFY2(s, dump(p.diagnostics).c_str());
        QCOMPARE(s->line, std::int64_t(2));
    }

    // A trace too big to be read into memory is mapped; another process truncating it while it
    // is scanned must not kill us with SIGBUS. The vanished pages read as zeros: the events
    // before the cut are kept, the cut event is reported at its byte offset, and shrankAt() says
    // where the file ended. Once at a page boundary (every later page faults) and once mid-page;
    // each read in place and with its chunks copied (pread, as the loader reads a mapped file).
    void mappedFileTruncatedWhileRead()
    {
        const std::string full = syntheticTimeline(250000);
        QVERIFY(full.size() > (12u << 20)); // above the 8 MiB read-instead-of-map limit
        QTemporaryDir tmp;
        const std::string file = tmp.filePath("trace_view.json").toStdString();
        const std::uint64_t cuts[] = {std::uint64_t(10) << 20, (std::uint64_t(10) << 20) + 100};
        for (int run = 0; run < 4; ++run) {
            const bool copied = run >= 2;
            const std::uint64_t cut = cuts[run % 2];
            writeFile(file, full);
            std::string error;
            std::optional<MappedFile> mf = MappedFile::open(file, &error);
            QVERIFY2(mf, error.c_str());
            QCOMPARE(mf->size(), std::uint64_t(full.size()));
            fs::resize_file(file, cut);
            std::uint64_t complete = 0; // events whose closing '}' is before the cut
            for (std::size_t pos = 0; (pos = full.find('}', pos)) != std::string::npos && pos < cut; ++pos)
                ++complete;
            Profile p;
            ReadContext ctx = ctxFor(file);
            if (copied) {
                QVERIFY(mf->mapped());
                ctx.copyBytes = [&mf](std::uint64_t at, char* to, std::size_t n) { mf->copyBytes(at, to, n); };
            }
            const FileRecord r = readers::readTimelineJson(mf->bytes(), p, ctx);
            QCOMPARE(r.records, complete);
            QCOMPARE(r.status, FileStatus::Partial);
            const Diagnostic* d = find(p.diagnostics, file, "truncated");
            QVERIFY2(d, dump(p.diagnostics).c_str());
            QCOMPARE(d->byteOffset, std::int64_t(full.rfind('{', cut)));
            QCOMPARE(mf->shrankAt(), std::int64_t(cut));
            // Every byte past the cut reads as zero, none raises SIGBUS.
            const std::string_view bytes = mf->bytes();
            QVERIFY(std::all_of(bytes.begin() + cut, bytes.end(), [](char c) { return c == 0; }));
            p.finalize();
            QCOMPARE(p.slices.size(), std::size_t(complete));
        }
        // A whole file reports no shrinking.
        writeFile(file, full);
        std::optional<MappedFile> whole = MappedFile::open(file, nullptr);
        QVERIFY(whole);
        QCOMPARE(whole->shrankAt(), std::int64_t(-1));
    }

    // 10 000 unrelated files beside a real rank: the rank loads, the files are accounted for.
    void tenThousandIrrelevantFiles()
    {
        QTemporaryDir tmp;
        const fs::path root(tmp.path().toStdString());
        copyRank(root / "rank0_ascend_pt");
        const fs::path junk = root / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT";
        for (int i = 0; i < 10000; ++i)
            std::ofstream(junk / ("notes_" + std::to_string(i) + ".txt")) << i;
        const LoadResult r = loadSession(root.string());
        QVERIFY2(r.session, r.error.c_str());
        const LoadResult orig = loadSession(kRank0);
        QCOMPARE(r.session->ranks.size(), std::size_t(1));
        const Profile& p = *r.session->ranks[0];
        QCOMPARE(p.slices.size(), orig.session->ranks.at(0)->slices.size());
        QCOMPARE(p.kernels.size(), orig.session->ranks.at(0)->kernels.size());
        std::size_t ignored = 0;
        for (const auto& f : p.files)
            ignored += f.status == FileStatus::Ignored && f.path.find("notes_") != std::string::npos;
        QCOMPARE(ignored, std::size_t(10000));
    }

    // Numbers beyond what a time can hold are named per row, never wrapped around.
    void numbersOutOfRange()
    {
        const std::string f = "/n/kernel_details.csv";
        const std::string text = kKernelHeader + kernelRow(1)
            + "0,1,2,2,Huge,MatMul,AI_CORE,1e400,5.000,0,8\n"
            + "0,1,3,2,Big,MatMul,AI_CORE,99999999999999999999999.5,5.000,0,8\n"
            + "0,1,4,2,LongDur,MatMul,AI_CORE,1000,1e30,0,8\n" + kernelRow(5);
        Profile p;
        const FileRecord r = readers::readKernelCsv(text, p, ctxFor(f));
        QCOMPARE(r.records, std::uint64_t(2));
        QCOMPARE(r.skipped, std::uint64_t(3));
        const Diagnostic* d = find(p.diagnostics, f, "bad start time '1e400'");
        QVERIFY2(d, dump(p.diagnostics).c_str());
        QCOMPARE(d->line, std::int64_t(3));
        VERIFY_DIAG(p.diagnostics, f, "bad duration '1e30'");

        const std::string tf = "/n/trace.json";
        const std::string trace = "[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},\n"
                                  "{\"name\":\"b\",\"ph\":\"X\",\"ts\":1e300,\"dur\":1,\"pid\":1,\"tid\":1},\n"
                                  "{\"name\":\"c\",\"ph\":\"X\",\"ts\":9223372036854775,\"dur\":9223372036854775,\"pid\":1,\"tid\":1},\n"
                                  "{\"name\":\"d\",\"ph\":\"X\",\"ts\":3,\"dur\":1,\"pid\":1,\"tid\":1}]";
        Profile t;
        const FileRecord tr = readers::readTimelineJson(trace, t, ctxFor(tf));
        QVERIFY(tr.records >= 2);
        const Diagnostic* td = find(t.diagnostics, tf, "unreadable \"ts\"");
        QVERIFY2(td, dump(t.diagnostics).c_str());
        QCOMPARE(td->byteOffset, std::int64_t(trace.find("{\"name\":\"b")));
        t.finalize();
        QVERIFY(t.end >= t.begin);

        // A pid or tid beyond 64 bits (found by fuzz_timeline_json) is kept as a name, not cast.
        const std::string big = "[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":2.3e98,\"tid\":-1e300}]";
        Profile b;
        QCOMPARE(readers::readTimelineJson(big, b, ctxFor(tf)).records, std::uint64_t(1));
        b.finalize();
        QCOMPARE(b.slices.size(), std::size_t(1));

        // Counts written as numbers beyond 64 bits saturate; a negative one is no count (the row
        // is skipped and named).
        const std::string stats = "OP Type,Core Type,Count,Total Time(us)\nA,AI_CORE,12.0,1\nB,AI_CORE,1e300,1\n"
                                  "C,AI_CORE,-3,1\nD,AI_CORE,1.5e19,1\n";
        Profile s;
        const FileRecord sr = readers::readOpStatisticCsv(stats, s, ctxFor("/n/op_statistic.csv"));
        QCOMPARE(sr.records, std::uint64_t(3));
        QCOMPARE(sr.skipped, std::uint64_t(1));
        QCOMPARE(s.stats.size(), std::size_t(3));
        QCOMPARE(s.stats[0].count, std::uint64_t(12));
        QCOMPARE(s.stats[1].count, std::numeric_limits<std::uint64_t>::max());
        QCOMPARE(s.stats[2].count, std::uint64_t(15'000'000'000'000'000'000ULL));
        const Diagnostic* sd = find(s.diagnostics, "/n/op_statistic.csv", "bad Count '-3'");
        QVERIFY2(sd, dump(s.diagnostics).c_str());
        QCOMPARE(sd->line, std::int64_t(4));
    }

    // Text that is neither a number nor a "missing" spelling, in the columns of the smaller
    // tables: a row without its count or total time is skipped and named; any other such cell
    // reads as missing, and each file gets one warning with the count and the first place.
    void junkInSmallTables()
    {
        const std::string sf = "/j/op_statistic.csv";
        const std::string stats = "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),"
                                  "Ratio(%),Variance\n"
                                  "A,AI_CORE,2,10.5,5,5.25,5.5,50,0.1\n"
                                  "B,AI_CORE,many,10,1,1,1,1,1\n"
                                  "C,AI_CORE,3,,1,1,1,1,1\n"
                                  "D,AI_CORE,4,8,N/A,fast,2,?,\n"
                                  "E,AI_CORE,1,2,2,2,slow,10,0\n";
        Profile s;
        const FileRecord sr = readers::readOpStatisticCsv(stats, s, ctxFor(sf));
        QCOMPARE(sr.records, std::uint64_t(3));
        QCOMPARE(sr.skipped, std::uint64_t(2));
        QCOMPARE(sr.status, FileStatus::Partial);
        QVERIFY(find(s.diagnostics, sf, "bad Count 'many'"));
        QVERIFY(find(s.diagnostics, sf, "bad total time ''"));
        QCOMPARE(s.stats[0].total, TimeNs(10'500));
        QCOMPARE(s.stats[0].avg, TimeNs(5'250));
        QCOMPARE(s.stats[1].min, TimeNs(0)); // N/A: missing, not counted
        QCOMPARE(s.stats[1].avg, TimeNs(0)); // "fast": counted
        QCOMPARE(s.stats[1].max, TimeNs(2'000));
        QVERIFY(std::isnan(s.stats[1].ratio)); // "?": counted
        QVERIFY(std::isnan(s.stats[1].variance)); // empty: missing
        QCOMPARE(s.stats[2].max, TimeNs(0)); // "slow": counted
        const Diagnostic* d = find(s.diagnostics, sf, "non-numeric text in min, avg, max, ratio or variance cells");
        QVERIFY2(d, dump(s.diagnostics).c_str());
        QCOMPARE(d->count, std::uint64_t(3));
        QCOMPARE(d->line, std::int64_t(5));
        QCOMPARE(d->byteOffset, std::int64_t(stats.find("D,AI_CORE")));

        const std::string tf = "/j/step_trace_time.csv";
        Profile t;
        readers::readStepTraceCsv("Step,Computing,Communication(Not Overlapped),Free\n1,100,zero,N/A\n2,x,5,\n",
                                  t, ctxFor(tf));
        QCOMPARE(t.steps.size(), std::size_t(2));
        QCOMPARE(*t.steps[0].computing, TimeNs(100'000));
        QVERIFY(!t.steps[0].commNotOverlapped && !t.steps[0].free && !t.steps[1].computing);
        const Diagnostic* td = find(t.diagnostics, tf, "non-numeric text in time cells");
        QVERIFY2(td, dump(t.diagnostics).c_str());
        QCOMPARE(td->count, std::uint64_t(2));
        QCOMPARE(td->line, std::int64_t(2));

        const std::string lf = "/j/l2_cache.csv";
        Profile l;
        readers::readL2CacheCsv(
            "Stream Id,Task Id,Hit Rate,Victim Rate\n1,1,N/A,0.5\n1,2,hit,bad\n1,3,80,0.1\nseven,N/A,90,0.2\n", l,
            ctxFor(lf));
        QCOMPARE(l.l2.size(), std::size_t(4));
        QVERIFY(std::isnan(l.l2[0].hitRate) && std::isnan(l.l2[1].hitRate) && std::isnan(l.l2[1].victimRate));
        QCOMPARE(l.l2[2].hitRate, 0.8);
        QCOMPARE(l.l2[3].streamId, std::int64_t(-1)); // "seven": counted
        QCOMPARE(l.l2[3].taskId, std::int64_t(-1));   // N/A: missing
        const Diagnostic* ld = find(l.diagnostics, lf, "non-numeric text in id or rate cells");
        QVERIFY2(ld, dump(l.diagnostics).c_str());
        QCOMPARE(ld->count, std::uint64_t(3));
        QCOMPARE(ld->line, std::int64_t(3));

        // task_time: a task id that is text reads as none and is counted.
        const std::string af = "/j/task_time.csv";
        Profile a;
        const std::string tasks = "kernel_name,stream_id,task_id,task_start(us),task_time(us)\n"
                                  "k,2,17,10,1\nk,2,N/A,20,1\nk,2,x17,30,1\n";
        QCOMPARE(readers::readTaskTimeCsv(tasks, a, ctxFor(af)).records, std::uint64_t(3));
        const Diagnostic* ad = find(a.diagnostics, af, "non-numeric text in task id cells");
        QVERIFY2(ad, dump(a.diagnostics).c_str());
        QCOMPARE(ad->count, std::uint64_t(1));
        QCOMPARE(ad->line, std::int64_t(4));
        QCOMPARE(ad->byteOffset, std::int64_t(tasks.find("k,2,x17")));

        // kernel_details: id, metric, wait time and block dim cells (a metric column is one whose
        // first 512 cells are numbers; text found after them is junk).
        const std::string kf = "/j/kernel_details.csv";
        std::string kernels = "Name,Type,Start Time(us),Duration(us),Wait Time(us),Block Dim,aic_mac_ratio,Task ID\n"
                              "a,MatMul,10,1,0.5,8,0.25,1\n"
                              "b,MatMul,20,1,soon,N/A,0.5,N/A\n";
        for (int i = 0; i < 600; ++i)
            kernels += "x,Add," + std::to_string(100 + i) + ",1,0,4,0.125," + std::to_string(i + 2) + "\n";
        kernels += "c,MatMul,30,1,,wide,high,last\n";
        Profile k;
        QCOMPARE(readers::readKernelCsv(kernels, k, ctxFor(kf)).records, std::uint64_t(603));
        QCOMPARE(k.kernels.wait[0], TimeNs(500));
        QCOMPARE(k.kernels.wait[1], std::numeric_limits<TimeNs>::min());
        QCOMPARE(k.kernels.blockDim[1], std::int64_t(-1));
        QCOMPARE(k.kernels.blockDim[602], std::int64_t(-1));
        const int mac = k.kernels.metricIndex("aic_mac_ratio");
        QVERIFY(mac >= 0);
        QCOMPARE(k.kernels.metrics[mac][1], 0.5);
        QVERIFY(std::isnan(k.kernels.metrics[mac][602]));
        QCOMPARE(k.kernels.taskId[0], std::int64_t(1));
        QCOMPARE(k.kernels.taskId[1], std::int64_t(-1));
        QCOMPARE(k.kernels.taskId[602], std::int64_t(-1));
        const Diagnostic* kd = find(k.diagnostics, kf, "non-numeric text in id, metric, wait time or block dim cells");
        QVERIFY2(kd, dump(k.diagnostics).c_str());
        QCOMPARE(kd->count, std::uint64_t(4)); // "soon", "wide", "high", "last"; N/A and empty are missing
        QCOMPARE(kd->severity, Severity::Warning);
        QCOMPARE(kd->line, std::int64_t(3));
        QCOMPARE(kd->byteOffset, std::int64_t(kernels.find("b,MatMul")));

        const std::string mf = "/j/npu_mem.csv";
        Profile m;
        readers::readMemoryCsv("event,timestamp(us),ddr(KB),hbm(KB)\nAPP,1,10,\nAPP,2,lots,20\n", m, ctxFor(mf));
        const Diagnostic* md = find(m.diagnostics, mf, "non-numeric text in value cells");
        QVERIFY2(md, dump(m.diagnostics).c_str());
        QCOMPARE(md->count, std::uint64_t(1));
        const Diagnostic* me = find(m.diagnostics, mf, "empty or N/A value cells skipped");
        QVERIFY2(me, dump(m.diagnostics).c_str());
        QCOMPARE(me->count, std::uint64_t(1));
    }

    // One byte of a real kernel_details.csv turned into a quote, inside the rows the reader
    // samples to find its metric columns: the damaged cell reads as missing and is named, and
    // its column stays a metric with every other value as in the undamaged file.
    void quoteInSampledMetricCell()
    {
        const std::string path = kLevel1Out + "kernel_details.csv";
        const std::string clean = readFile(path);
        const std::size_t cell = clean.find(",3.355,0.166,"); // aiv_mte3_time(us) of one row
        QVERIFY(cell != std::string::npos);
        std::string damaged = clean;
        damaged[cell + 5] = '"'; // 3.355 -> 3.35"
        Profile a, b;
        QCOMPARE(readers::readKernelCsv(clean, a, ctxFor("/q/kernel_details.csv")).records, std::uint64_t(191));
        QCOMPARE(readers::readKernelCsv(damaged, b, ctxFor("/q/kernel_details.csv")).records, std::uint64_t(191));
        QCOMPARE(b.kernels.metricNames, a.kernels.metricNames);
        const int mte3 = b.kernels.metricIndex("aiv_mte3_time(us)");
        QVERIFY(mte3 >= 0);
        const std::int64_t line = std::count(damaged.begin(), damaged.begin() + cell, '\n') + 1;
        const std::size_t row = static_cast<std::size_t>(line - 2); // after the header
        QCOMPARE(a.kernels.metrics[mte3][row], 3.355);
        for (std::size_t m = 0; m < a.kernels.metrics.size(); ++m)
            for (std::size_t r = 0; r < a.kernels.size(); ++r) {
                const double x = a.kernels.metrics[m][r], y = b.kernels.metrics[m][r];
                if (static_cast<int>(m) == mte3 && r == row)
                    QVERIFY(std::isnan(y));
                else
                    QVERIFY(x == y || (std::isnan(x) && std::isnan(y)));
            }
        QVERIFY(!find(a.diagnostics, "/q/kernel_details.csv", "non-numeric text"));
        const Diagnostic* d = find(b.diagnostics, "/q/kernel_details.csv", "non-numeric text in id, metric");
        QVERIFY2(d, dump(b.diagnostics).c_str());
        QCOMPARE(d->count, std::uint64_t(1));
        QCOMPARE(d->line, line);
        QCOMPARE(d->byteOffset, std::int64_t(damaged.rfind('\n', cell) + 1));
    }

    // A real op_summary of one row, one digit of a PMU value damaged (32.786 -> 3x.786): the
    // sample is that one cell, yet the column, named like a metric, stays one; the value reads
    // as missing, with a warning.
    void damagedMetricInOneRowTable()
    {
        const std::string path = kSamples + "/ascend-msprof-skill/tests/fixtures/tilelang_design_feedback/"
                                            "candidate_comparability/workload_mismatch_candidate/reports/app/"
                                            "PROF_000001_20260606121448940_RGBHHJGBAJGRQEOB/mindstudio_profiler_output/"
                                            "op_summary_20260606121516.csv";
        std::string bytes = readFile(path);
        const std::size_t at = bytes.find(",32.786,");
        QVERIFY(at != std::string::npos);
        Profile a;
        QCOMPARE(readers::readKernelCsv(bytes, a, ctxFor("/o/op_summary.csv")).records, std::uint64_t(1));
        bytes[at + 2] = 'x';
        Profile b;
        QCOMPARE(readers::readKernelCsv(bytes, b, ctxFor("/o/op_summary.csv")).records, std::uint64_t(1));
        QCOMPARE(b.kernels.metricNames, a.kernels.metricNames);
        int changed = -1;
        for (std::size_t m = 0; m < a.kernels.metrics.size(); ++m)
            if (a.kernels.metrics[m][0] == 32.786)
                changed = static_cast<int>(m);
        QVERIFY(changed >= 0);
        QVERIFY(std::isnan(b.kernels.metrics[changed][0]));
        const Diagnostic* d = find(b.diagnostics, "/o/op_summary.csv", "non-numeric text in id, metric");
        QVERIFY2(d, dump(b.diagnostics).c_str());
        QCOMPARE(d->line, std::int64_t(2));
    }

    // A real profiler_info_1.json and profiler_metadata.json changed by a byte or two: a key looked
    // for one character off ("rank_id" -> "rank_ix", "global_ranks" -> "global_rankz") or a rank
    // turned into text. Each is named; the rank then comes from the file's name.
    void damagedProfilerInfoAndMetadata()
    {
        const std::string info = readFile(kSamples + "/msinsight/test/data/pytorch/text/level1/rank1_ascend_pt/"
                                                     "profiler_info_1.json");
        const std::size_t key = info.find("\"rank_id\"");
        QVERIFY(key != std::string::npos);
        std::string damaged = info;
        damaged[key + 7] = 'x';
        Profile clean, a;
        QCOMPARE(readers::readProfilerInfoJson(info, clean, ctxFor("/i/profiler_info_1.json")).status, FileStatus::Loaded);
        QCOMPARE(clean.rank, 1);
        QVERIFY2(clean.diagnostics.empty(), dump(clean.diagnostics).c_str());
        readers::readProfilerInfoJson(damaged, a, ctxFor("/i/profiler_info_1.json"));
        QCOMPARE(a.rank, -1);
        QCOMPARE(a.meta.profilerLevel, clean.meta.profilerLevel);
        const Diagnostic* d = find(a.diagnostics, "/i/profiler_info_1.json", "one character off");
        QVERIFY2(d, dump(a.diagnostics).c_str());
        QVERIFY(d->reason.find("'rank_ix' for 'rank_id' of 'profiler_info'") != std::string::npos);
        damaged = info;
        const std::size_t digit = info.find_first_of("0123456789", key);
        damaged.replace(digit, 1, "\"" + info.substr(digit, 1) + "\""); // 1 -> "1"
        Profile b;
        readers::readProfilerInfoJson(damaged, b, ctxFor("/i/profiler_info_1.json"));
        QCOMPARE(b.rank, -1);
        QVERIFY2(find(b.diagnostics, "/i/profiler_info_1.json", "'rank_id' of 'profiler_info': \""),
                 dump(b.diagnostics).c_str());

        const std::string meta = readFile(kSamples + "/msinsight/server/src/test/test_data/metadata/profiler_metadata.json");
        const std::size_t ranks = meta.find("\"global_ranks\"");
        QVERIFY(ranks != std::string::npos);
        std::string m = meta;
        m[ranks + 12] = 'z';
        Profile p, q;
        readers::readProfilerMetadataJson(meta, p, ctxFor("/i/profiler_metadata.json"));
        QVERIFY2(p.diagnostics.empty(), dump(p.diagnostics).c_str());
        readers::readProfilerMetadataJson(m, q, ctxFor("/i/profiler_metadata.json"));
        QCOMPARE(q.meta.groups.size(), p.meta.groups.size());
        const Diagnostic* g = find(q.diagnostics, "/i/profiler_metadata.json", "one character off");
        QVERIFY2(g, dump(q.diagnostics).c_str());
        QVERIFY(g->reason.find("'global_rankz' for 'global_ranks'") != std::string::npos);
        QCOMPARE(g->count, std::uint64_t(1));
        // A rank in a group's list turned into text: dropped from the group, and counted.
        m = meta;
        const std::size_t list = meta.find('[', ranks);
        m.insert(meta.find_first_of(",]", list), "\"");
        m.insert(list + 1, "\"");
        Profile r;
        readers::readProfilerMetadataJson(m, r, ctxFor("/i/profiler_metadata.json"));
        QCOMPARE(r.meta.groups.size(), p.meta.groups.size());
        auto ranksIn = [](const Profile& x) {
            std::size_t n = 0;
            for (const auto& grp : x.meta.groups)
                n += grp.ranks.size();
            return n;
        };
        QCOMPARE(ranksIn(r) + 1, ranksIn(p));
        QVERIFY2(find(r.diagnostics, "/i/profiler_metadata.json", "'global_ranks' of '"), dump(r.diagnostics).c_str());
    }

    // One byte of a real op_statistic.csv's header turned into a quote that opens a cell and is
    // never closed: the cell would run to the end of the file and take every row with it. The
    // quote is read as a plain character, every row is kept, and the file is warned about.
    void unclosedQuoteInRealHeader()
    {
        const std::string path = kLevel1Out + "op_statistic.csv";
        const std::string clean = readFile(path);
        const std::size_t at = clean.find("Max Time(us)");
        QVERIFY(at != std::string::npos && clean.find('"') == std::string::npos);
        std::string damaged = clean;
        damaged[at] = '"';
        Profile a, b;
        QCOMPARE(readers::readOpStatisticCsv(clean, a, ctxFor("/u/op_statistic.csv")).records, std::uint64_t(33));
        const FileRecord r = readers::readOpStatisticCsv(damaged, b, ctxFor("/u/op_statistic.csv"));
        QCOMPARE(r.records, std::uint64_t(33));
        QCOMPARE(r.status, FileStatus::Loaded);
        for (std::size_t i = 0; i < a.stats.size(); ++i) {
            QCOMPARE(b.stats[i].count, a.stats[i].count);
            QCOMPARE(b.stats[i].total, a.stats[i].total);
            QCOMPARE(b.stats[i].avg, a.stats[i].avg);
            QCOMPARE(b.stats[i].max, TimeNs(0)); // its column is gone with its name
        }
        const Diagnostic* d = find(b.diagnostics, "/u/op_statistic.csv", "a quote that opens a cell is never closed");
        QVERIFY2(d, dump(b.diagnostics).c_str());
        QCOMPARE(d->line, std::int64_t(1));
        QCOMPARE(d->byteOffset, std::int64_t(at));
        QVERIFY(!find(a.diagnostics, "/u/op_statistic.csv", "quote"));
    }

    // One byte of a real step_trace_time.csv's header damaged ("Communication(Not Overlapped)"
    // -> "Communicatio\"(Not Overlapped)"): the column is not read, and the file names the
    // header cell one character off the name looked for.
    void headerNameOneCharacterOff()
    {
        const std::string path = kTestRank0Out + "step_trace_time.csv";
        const std::string clean = readFile(path);
        const std::size_t at = clean.find("Communication(Not Overlapped)");
        QVERIFY(at != std::string::npos);
        std::string damaged = clean;
        damaged[at + 12] = '"';
        Profile a, b;
        QCOMPARE(readers::readStepTraceCsv(clean, a, ctxFor("/h/step_trace_time.csv")).records, std::uint64_t(1));
        QCOMPARE(readers::readStepTraceCsv(damaged, b, ctxFor("/h/step_trace_time.csv")).records, std::uint64_t(1));
        QCOMPARE(*a.steps[0].commNotOverlapped, TimeNs(146'614'020)); // 146614.02034375005 µs
        QVERIFY(!b.steps[0].commNotOverlapped);
        QCOMPARE(*b.steps[0].computing, *a.steps[0].computing);
        QVERIFY(!find(a.diagnostics, "/h/step_trace_time.csv", "one character off"));
        const Diagnostic* d = find(b.diagnostics, "/h/step_trace_time.csv",
                                   "column 3 'Communicatio\"(Not Overlapped)' is one character off "
                                   "'Communication(Not Overlapped)'");
        QVERIFY2(d, dump(b.diagnostics).c_str());
        QCOMPARE(d->severity, Severity::Warning);
        QCOMPARE(d->line, std::int64_t(1));
    }

    // A real kernel_details.csv with a quote put inside a quoted shape ("""2,8193;2;2""" ->
    // """2,8193;";2"""): the cell closes early and the rest is kept as text after it, which a
    // well-formed file never has; the file says so, with the line.
    void textAfterClosingQuote()
    {
        const std::string path = kTestRank0Out + "kernel_details.csv";
        std::string bytes = readFile(path);
        const std::size_t at = bytes.find("\"\"\"2,8193;2;2\"\"\"");
        QVERIFY(at != std::string::npos);
        Profile a;
        const FileRecord ra = readers::readKernelCsv(bytes, a, ctxFor("/t/kernel_details.csv"));
        bytes[at + 10] = '"';
        Profile b;
        const FileRecord rb = readers::readKernelCsv(bytes, b, ctxFor("/t/kernel_details.csv"));
        QCOMPARE(rb.records, ra.records);
        QVERIFY(!find(a.diagnostics, "/t/kernel_details.csv", "closing quote"));
        const Diagnostic* d = find(b.diagnostics, "/t/kernel_details.csv", "text after a cell's closing quote");
        QVERIFY2(d, dump(b.diagnostics).c_str());
        QCOMPARE(d->line, std::int64_t(std::count(bytes.begin(), bytes.begin() + at, '\n') + 1));
        QCOMPARE(d->byteOffset, std::int64_t(at));
    }

    // A device cell of a real npu_module_mem.csv damaged by one byte ("NPU:0" -> "NPU:x"): the
    // row's values are kept under an unknown device, and the file is warned about, with the line.
    void damagedDeviceCell()
    {
        const std::string path = kLevel1Out + "npu_module_mem.csv";
        std::string bytes = readFile(path);
        const std::size_t at = bytes.find(",NPU:0\n", bytes.size() / 2);
        QVERIFY(at != std::string::npos);
        bytes[at + 5] = 'x';
        Profile p;
        const FileRecord r = readers::readMemoryCsv(bytes, p, ctxFor("/d/npu_module_mem.csv"));
        QCOMPARE(r.records, std::uint64_t(1078)); // python3: rows of the undamaged file
        const Diagnostic* d = find(p.diagnostics, "/d/npu_module_mem.csv", "non-numeric text in device cells");
        QVERIFY2(d, dump(p.diagnostics).c_str());
        QCOMPARE(d->count, std::uint64_t(1));
        QCOMPARE(d->line, std::int64_t(std::count(bytes.begin(), bytes.begin() + at, '\n') + 1));
        std::size_t unknown = 0;
        for (const auto& s : p.counters)
            if (s.device == -1)
                unknown += s.value.size();
        QCOMPARE(unknown, std::size_t(1));
    }

    // Device ids and ranks beyond what a profiler writes read as unknown (-1): an int cast
    // would wrap 2^32 onto device or rank 0.
    void idsOutOfRange()
    {
        Profile a;
        readers::readProfilerInfoJson(R"({"rank_id": 4294967296})", a, ctxFor("/i/profiler_info_0.json"));
        QCOMPARE(a.rank, -1);
        QVERIFY2(find(a.diagnostics, "/i/profiler_info_0.json", "'rank_id' of 'profiler_info': 4294967296, out of range"),
                 dump(a.diagnostics).c_str());
        Profile wrapped; // unsigned to the parser: as int64 it would read as -1
        readers::readProfilerInfoJson(R"({"rank_id": 18446744073709551615})", wrapped, ctxFor("/i/profiler_info_0.json"));
        QCOMPARE(wrapped.rank, -1);
        QVERIFY2(find(wrapped.diagnostics, "/i/profiler_info_0.json", "'rank_id' of 'profiler_info'"),
                 dump(wrapped.diagnostics).c_str());
        Profile single; // single-device runs write -1: not damage
        readers::readProfilerInfoJson(R"({"rank_id": -1})", single, ctxFor("/i/profiler_info_0.json"));
        QCOMPARE(single.rank, -1);
        QVERIFY(single.diagnostics.empty());
        Profile b;
        readers::readProfilerMetadataJson(R"({"distributed_args": {"rank": 4294967296}})", b,
                                          ctxFor("/i/profiler_metadata.json"));
        QCOMPARE(b.rank, -1);
        QVERIFY2(find(b.diagnostics, "/i/profiler_metadata.json", "'rank' of 'distributed_args'"),
                 dump(b.diagnostics).c_str());
        readers::readProfilerMetadataJson(R"({"distributed_args": {"rank": 3}})", b, ctxFor("/i/profiler_metadata.json"));
        QCOMPARE(b.rank, 3);
        Profile c;
        readers::readInfoJson(R"({"DeviceInfo": [{"id": 4294967296, "ai_core_num": 24}]})", c, ctxFor("/i/info.json"));
        QCOMPARE(c.deviceInfo.size(), std::size_t(1));
        QCOMPARE(c.deviceInfo[0].device, -1);
        QCOMPARE(deviceTextValue("65535"), std::optional<int>(65535));
        QCOMPARE(deviceTextValue("65536"), std::optional<int>(-1));
        QCOMPARE(deviceTextValue("4294967296"), std::optional<int>(-1));
        QCOMPARE(deviceTextValue(" NPU:7\t"), std::optional<int>(7));
        QCOMPARE(deviceTextValue("npu:1"), std::optional<int>(1));
        QCOMPARE(deviceTextValue("Host"), std::optional<int>(-1));
        QCOMPARE(deviceTextValue("CPU:0"), std::optional<int>(-1));
        QVERIFY(!deviceTextValue("N/A") && !deviceTextValue("NPUx0") && !deviceTextValue("NPU:x"));
        QCOMPARE(rankOf(2147483647), 2147483647);
        QCOMPARE(rankOf(2147483648), -1);
    }

    // A negative duration is named (line or offset) and never kept negative.
    void negativeDurations()
    {
        const std::string f = "/d/kernel_details.csv";
        const std::string text = kKernelHeader + kernelRow(1) + "0,1,2,2,Neg,MatMul,AI_CORE,1010.000,-5.000,0,8\n" + kernelRow(3);
        Profile p;
        const FileRecord r = readers::readKernelCsv(text, p, ctxFor(f));
        QCOMPARE(r.records, std::uint64_t(2));
        const Diagnostic* d = find(p.diagnostics, f, "negative duration '-5.000'");
        QVERIFY2(d, dump(p.diagnostics).c_str());
        QCOMPARE(d->line, std::int64_t(3));
        for (TimeNs dur : p.kernels.dur)
            QVERIFY(dur >= 0);

        const std::string tf = "/d/trace.json";
        const std::string trace = "[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},\n"
                                  "{\"name\":\"b\",\"ph\":\"X\",\"ts\":5,\"dur\":-3,\"pid\":1,\"tid\":1}]";
        Profile t;
        const FileRecord tr = readers::readTimelineJson(trace, t, ctxFor(tf));
        QCOMPARE(tr.records, std::uint64_t(2));
        const Diagnostic* td = find(t.diagnostics, tf, "negative \"dur\"");
        QVERIFY2(td, dump(t.diagnostics).c_str());
        QCOMPARE(td->byteOffset, std::int64_t(trace.find("{\"name\":\"b")));
        t.finalize();
        for (std::size_t i = 0; i < t.slices.size(); ++i)
            QVERIFY(t.slices.dur[i] >= 0);
    }

    // Exact duplicates are reported with the place of the first copy; disorder is sorted.
    void duplicatesAndDisorder()
    {
        const std::string f = "/dup/kernel_details.csv";
        const std::string text = kKernelHeader + kernelRow(3) + kernelRow(1) + kernelRow(2) + kernelRow(1);
        Profile p;
        const FileRecord r = readers::readKernelCsv(text, p, ctxFor(f));
        QCOMPARE(r.records, std::uint64_t(4)); // duplicates are data: kept, and named
        const Diagnostic* d = find(p.diagnostics, f, "duplicate of line 3");
        QVERIFY2(d, dump(p.diagnostics).c_str());
        QCOMPARE(d->line, std::int64_t(5));
        const Diagnostic* o = find(p.diagnostics, f, "not in start-time order");
        QVERIFY2(o, dump(p.diagnostics).c_str());
        QCOMPARE(o->line, std::int64_t(3));

        // Two repeated rows, three repeats: all counted, the first repeat in file order named
        // (line 5 repeats line 3, before lines 6 and 7 repeat line 2). And rows in start-time
        // order: repeats among the rows of one start are found, a row of the same start and
        // another name is not one.
        struct Repeats {
            std::string rows;
            std::uint64_t count;
            bool ordered;
        };
        for (const auto& [rows, count, ordered] :
             {Repeats{kernelRow(3) + kernelRow(1) + kernelRow(2) + kernelRow(1) + kernelRow(3) + kernelRow(3), 3, false},
              Repeats{kernelRow(1) + kernelRow(2) + kernelRow(2, "Other") + kernelRow(2) + kernelRow(3) + kernelRow(3), 2, true}}) {
            Profile q;
            readers::readKernelCsv(kKernelHeader + rows, q, ctxFor(f));
            const Diagnostic* d2 = find(q.diagnostics, f, "duplicate of line 3");
            QVERIFY2(d2, dump(q.diagnostics).c_str());
            QCOMPARE(d2->line, std::int64_t(5));
            QCOMPARE(d2->count, count);
            QCOMPARE(find(q.diagnostics, f, "not in start-time order") == nullptr, ordered);
        }

        // A timeline written backwards loads sorted, every event kept.
        const std::string tf = "/dup/trace.json";
        std::string trace = "[";
        for (int k = 9; k >= 0; --k)
            trace += std::string(k == 9 ? "" : ",") + "{\"name\":\"e" + std::to_string(k)
                + "\",\"ph\":\"X\",\"ts\":" + std::to_string(10 * k) + ",\"dur\":5,\"pid\":1,\"tid\":1}";
        trace += ",{\"name\":\"e4\",\"ph\":\"X\",\"ts\":40,\"dur\":5,\"pid\":1,\"tid\":1}]";
        Profile t;
        FileRecord tr = readers::readTimelineJson(trace, t, ctxFor(tf));
        QCOMPARE(tr.records, std::uint64_t(11));
        tr.kind = "timeline"; // as the loader does before finalize(), from the FileKind table
        tr.roles = layout::kindRoles(tr.kind);
        t.files.push_back(tr);
        t.finalize();
        QCOMPARE(t.slices.size(), std::size_t(11));
        for (std::size_t i = 1; i < t.slices.size(); ++i)
            QVERIFY(t.slices.start[i - 1] <= t.slices.start[i]);
        QCOMPARE(t.slices.start[0], TimeNs(0));
        QCOMPARE(t.slices.start[10], TimeNs(90000));
        const Diagnostic* td = find(t.diagnostics, tf, "duplicate");
        QVERIFY2(td, dump(t.diagnostics).c_str());
        QCOMPARE(td->count, std::uint64_t(1));
    }

    // A budget smaller than what a file needs fails that file with a message, not the process.
    void memoryBudget()
    {
        QCOMPARE(parseByteSize("512M"), std::optional<std::uint64_t>(512ull << 20));
        QCOMPARE(parseByteSize("2G"), std::optional<std::uint64_t>(2ull << 30));
        QCOMPARE(parseByteSize("1000"), std::optional<std::uint64_t>(1000));
        QVERIFY(!parseByteSize("lots"));
        QVERIFY(memoryBudgetBytes().value_or(0) > 0);

        LoadOptions o;
        o.memoryBudget = 256 * 1024; // the 1.8 MB trace does not fit, the small CSVs and JSONs do
        const LoadResult r = loadSession(kRank0, o);
        QVERIFY2(r.session, r.error.c_str());
        const Profile& p = *r.session->ranks.at(0);
        const FileRecord* trace = recordOf(p, "trace_view.json");
        QVERIFY(trace);
        QCOMPARE(trace->status, FileStatus::Failed);
        QVERIFY2(trace->note.find("memory budget") != std::string::npos, trace->note.c_str());
        QCOMPARE(p.slices.size(), std::size_t(0));
        const Diagnostic* d = find(p.diagnostics, trace->path, "needs about");
        QVERIFY2(d, dump(p.diagnostics).c_str());
        QCOMPARE(d->severity, Severity::Error);
        QCOMPARE(recordOf(p, "step_trace_time.csv")->status, FileStatus::Loaded);

        // The environment variable is the same budget for the CLI and the GUI.
        qputenv("NPUSCOPE_MEMORY_BUDGET", "1K");
        QCOMPARE(memoryBudgetBytes(), std::optional<std::uint64_t>(1024));
        const LoadResult tiny = loadSession(kTraceView);
        qunsetenv("NPUSCOPE_MEMORY_BUDGET");
        QVERIFY(!tiny.session);
        QVERIFY2(tiny.error.find("memory budget") != std::string::npos, tiny.error.c_str());
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestHostileInputs)

} // namespace test_hostile_inputs

#include "test_hostile_inputs.moc"
