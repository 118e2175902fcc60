// The session cache (model/cache/session_cache.h): a session read back from it is the session
// that was loaded (every table, byte for byte), on real samples and on generated profiles; every
// way an entry can go wrong (a touched, grown or rewritten input, a truncated or damaged entry,
// another format version or byte order) is caught, noted and rebuilt; the size cap evicts the
// least recently used entries; and the CLI prints the same with and without the cache. The
// files' roles (FileRole) are those their names give, loaded and read back from the cache.
#include "test_main.h"
#include "model/cache/cache_codec.h"
#include "model/cache/session_cache.h"
#include "model/synth/synth.h"
#include "session_digest.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>

namespace test_session_cache {

using namespace npuscope;
using npuscope::synth::SynthOptions;
using npuscope::synth::SynthResult;
using npuscope::synth::synthesize;

namespace {

const QString kSamples = QStringLiteral(NPUSCOPE_SAMPLES);
const QString kRank0 = kSamples + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";

// The bytes a session is written as (the cache's payload, without its frame).
std::string encoded(const Session& s)
{
    std::FILE* f = std::tmpfile();
    cache::BlockWriter w(f);
    cache::writeSession(w, s);
    if (!w.finish())
        return {};
    std::string out(static_cast<std::size_t>(w.bytes()), '\0');
    std::rewind(f);
    const std::size_t got = std::fread(out.data(), 1, out.size(), f);
    std::fclose(f);
    out.resize(got);
    return out;
}

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeAll(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

struct Run {
    int code = -1;
    QByteArray out, err;
};

Run runCli(const QStringList& args, const QString& cacheHome)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CACHE_HOME", cacheHome);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(NPUSCOPE_BINARY), args);
    Run r;
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// The roles, in the order of the counts below, and their names for messages.
constexpr std::array kRoles = {FileRole::Timeline,      FileRole::Slices,          FileRole::Kernels,
                               FileRole::Cluster,       FileRole::CoversRunBeside, FileRole::MemoryRecords,
                               FileRole::OperatorMemory};
constexpr std::array kRoleNames = {"timeline",       "slices",         "kernels", "cluster", "covers the run beside",
                                   "memory records", "operator memory"};
using RoleCounts = std::array<int, kRoles.size()>;

// How many files under `input` (a folder, or one file) have each role, told here from their
// names as the profilers write them, not from the table of file kinds: a timeline is
// trace_view.json or msprof*.json (none of the samples is a simplified task list, so each is
// also the slices' file), a kernel table kernel_details.csv or op_summary*.csv, a cluster file
// cluster_*; the files read beside the timeline are the kernel tables, step_trace_time.csv,
// op_statistic*.csv, communication.json and communication_matrix.json.
RoleCounts countByName(const std::filesystem::path& input)
{
    std::vector<std::string> names;
    if (std::filesystem::is_regular_file(input))
        names.push_back(input.filename().string());
    else
        for (const auto& e : std::filesystem::recursive_directory_iterator(input))
            if (e.is_regular_file())
                names.push_back(e.path().filename().string());
    RoleCounts n{};
    for (std::string name : names) {
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        const bool json = name.ends_with(".json"), csv = name.ends_with(".csv");
        const bool timeline = name == "trace_view.json" || (name.starts_with("msprof") && json);
        const bool kernels = name == "kernel_details.csv" || (name.starts_with("op_summary") && csv);
        const bool beside = kernels || name == "step_trace_time.csv" || (name.starts_with("op_statistic") && csv)
                            || name == "communication.json" || name == "communication_matrix.json";
        const bool has[] = {timeline,
                            timeline,
                            kernels,
                            name.starts_with("cluster_"),
                            beside,
                            name == "memory_record.csv",
                            name == "operator_memory.csv"};
        for (std::size_t r = 0; r < kRoles.size(); ++r)
            n[r] += has[r];
    }
    return n;
}

// The files of a session (its own and each rank's), in order.
std::vector<const FileRecord*> filesOf(const Session& s)
{
    std::vector<const FileRecord*> out;
    for (const FileRecord& f : s.files)
        out.push_back(&f);
    for (const auto& p : s.ranks)
        for (const FileRecord& f : p->files)
            out.push_back(&f);
    return out;
}

RoleCounts countRoles(const Session& s)
{
    RoleCounts n{};
    for (const FileRecord* f : filesOf(s))
        for (std::size_t r = 0; r < kRoles.size(); ++r)
            n[r] += f->has(kRoles[r]);
    return n;
}

std::string countsText(const RoleCounts& n)
{
    std::string out;
    for (std::size_t r = 0; r < kRoles.size(); ++r)
        out += std::string(r ? ", " : "") + kRoleNames[r] + " " + std::to_string(n[r]);
    return out;
}

std::uint64_t sliceDurationSum(const Session& s)
{
    std::uint64_t sum = 0;
    for (const auto& p : s.ranks)
        for (std::size_t i = 0; i < p->slices.size(); ++i)
            sum += static_cast<std::uint64_t>(p->slices.dur[i]);
    return sum;
}

} // namespace

class TestSessionCache : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    SessionCacheSettings settings(const QString& sub)
    {
        SessionCacheSettings s;
        s.dir = QString(m_tmp.path() + "/" + sub).toStdString();
        return s;
    }

    // Loads `path` through the cache in `dir` and checks the result against a load without it.
    LoadResult cachedLoad(const std::string& path, const SessionCacheSettings& s, SessionCacheReport& rep)
    {
        return loadSessionsCached({path}, LoadOptions{}, s, &rep);
    }

    // A copy of the level1 sample, to change.
    std::string copyOfRank0(const QString& name)
    {
        const std::string to = QString(m_tmp.path() + "/" + name).toStdString();
        std::filesystem::copy(kRank0.toStdString(), to, std::filesystem::copy_options::recursive);
        return to;
    }

private slots:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    void roundTrip_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("torch_npu level1") << kRank0;
        QTest::newRow("torch_npu level0") << kSamples + "/msinsight/test/data/pytorch/text/level0/rank0_ascend_pt";
        QTest::newRow("torch_npu db") << kSamples + "/msinsight/test/data/pytorch/db/level1";
        QTest::newRow("cluster of text ranks") << kSamples + "/msinsight/test/data/pytorch/text/level1";
        QTest::newRow("chrome trace file") << kSamples + "/chrome-trace/catapult/tracing/test_data/flow_simple.json";
        QTest::newRow("trace_view.json file") << kSamples + "/msprof-analyze/test/ut/advisor/timeline_advice/trace_view.json";
    }
    void roundTrip()
    {
        QFETCH(QString, path);
        const auto s = settings("roundtrip-" + QString::number(qHash(path)));
        const LoadResult plain = loadSession(path.toStdString());
        QVERIFY2(plain.session, plain.error.c_str());

        SessionCacheReport first;
        const LoadResult miss = cachedLoad(path.toStdString(), s, first);
        QVERIFY(miss.session);
        QVERIFY(!first.hit);
        QVERIFY2(first.stored, first.storeError.c_str());
        QVERIFY(first.note.empty());
        QVERIFY(QFile::exists(QString::fromStdString(first.entry)));

        SessionCacheReport second;
        const LoadResult hit = cachedLoad(path.toStdString(), s, second);
        QVERIFY(hit.session);
        QVERIFY(second.hit);
        QVERIFY(!second.stored);
        QCOMPARE(second.entry, first.entry);

        // Every table of every rank, walked here without the codec: the expectation is the
        // session the loader built, not what the encoder makes of it.
        const auto want = digest::tables(*plain.session);
        const auto got = digest::tables(*hit.session);
        QCOMPARE(got.size(), want.size());
        QCOMPARE(want.size(), plain.session->ranks.size() * 16);
        for (const auto& [table, value] : want) {
            QVERIFY2(got.count(table), table.c_str());
            QVERIFY2(got.at(table) == value, qPrintable(QString::fromStdString(table) + " differs after the cache"));
        }
        // And byte for byte, which also covers what the store's fields do not show.
        QCOMPARE(encoded(*hit.session), encoded(*plain.session));
        // And some numbers counted here, independently of the writer.
        QCOMPARE(hit.session->ranks.size(), plain.session->ranks.size());
        QCOMPARE(sliceDurationSum(*hit.session), sliceDurationSum(*plain.session));
        for (std::size_t r = 0; r < plain.session->ranks.size(); ++r) {
            const Profile& a = *plain.session->ranks[r];
            const Profile& b = *hit.session->ranks[r];
            QCOMPARE(b.slices.size(), a.slices.size());
            QCOMPARE(b.kernels.size(), a.kernels.size());
            QCOMPARE(b.strings.size(), a.strings.size());
            QCOMPARE(b.diagnostics.size(), a.diagnostics.size());
            QVERIFY(b.finalized());
            for (std::size_t m = 0; m < a.kernels.metrics.size(); ++m)
                for (std::size_t i = 0; i < a.kernels.size(); i += 7) {
                    const double x = a.kernels.metrics[m][i], y = b.kernels.metrics[m][i];
                    QVERIFY(std::memcmp(&x, &y, sizeof x) == 0);
                }
            // Lookups rebuilt: every track and argument key is found again where it was.
            for (std::size_t t = 0; t < a.tracks.size(); ++t)
                QCOMPARE(const_cast<Profile&>(b).trackFor(a.tracks[t].pid, a.tracks[t].tid).v, std::uint32_t(t));
            for (std::size_t k = 0; k < a.args.keys.size(); ++k)
                QCOMPARE(const_cast<Profile&>(b).args.keyIndex(a.args.keys[k]), std::uint16_t(k));
        }
    }

    // Each real sample's files have the roles their names give (counted here from the folder's
    // listing), and a session read back from the cache has the same roles on the same files.
    void fileRoles_data()
    {
        const QString text = kSamples + "/msinsight/test/data/pytorch/text/";
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("timelines"); // at least this many, so that the sample proves something
        QTest::addColumn<int>("kernelTables");
        QTest::addColumn<int>("clusterFiles");
        QTest::newRow("torch_npu level0, 2 ranks") << text + "level0" << 2 << 2 << 0;
        QTest::newRow("torch_npu level1, 2 ranks") << text + "level1" << 2 << 2 << 0;
        QTest::newRow("torch_npu level2, 2 ranks") << text + "level2" << 2 << 2 << 0;
        QTest::newRow("torch_npu db level1") << kSamples + "/msinsight/test/data/pytorch/db/level1" << 0 << 0 << 0;
        QTest::newRow("msinsight test_data, cluster output")
            << kSamples + "/msinsight/server/src/test/test_data" << 0 << 2 << 2;
        QTest::newRow("cluster_communication alone") << kSamples + "/msprof-analyze/test/resource/advisor" << 0 << 0 << 1;
        QTest::newRow("msprof PROF folder")
            << kSamples
                   + "/ascend-msprof-skill/tests/fixtures/tilelang_design_feedback/candidate_comparability/"
                     "workload_mismatch_candidate/reports/app/PROF_000001_20260606121448940_RGBHHJGBAJGRQEOB"
            << 1 << 1 << 0;
        QTest::newRow("trace_view.json file")
            << kSamples + "/msprof-analyze/test/ut/advisor/timeline_advice/trace_view.json" << 1 << 0 << 0;
    }
    void fileRoles()
    {
        QFETCH(QString, path);
        QFETCH(int, timelines);
        QFETCH(int, kernelTables);
        QFETCH(int, clusterFiles);
        QVERIFY2(std::filesystem::exists(path.toStdString()), qPrintable("missing sample " + path));
        const RoleCounts want = countByName(path.toStdString());
        QVERIFY2(want[0] >= timelines && want[2] >= kernelTables && want[3] >= clusterFiles, countsText(want).c_str());

        const LoadResult plain = loadSession(path.toStdString());
        QVERIFY2(plain.session, plain.error.c_str());
        const RoleCounts loaded = countRoles(*plain.session);
        QVERIFY2(loaded == want, ("loaded: " + countsText(loaded) + "; by name: " + countsText(want)).c_str());

        const auto s = settings("roles-" + QString::number(qHash(path)));
        SessionCacheReport first, second;
        QVERIFY(cachedLoad(path.toStdString(), s, first).session);
        QVERIFY2(first.stored, first.storeError.c_str());
        const LoadResult hit = cachedLoad(path.toStdString(), s, second);
        QVERIFY(hit.session);
        QVERIFY(second.hit);
        const auto a = filesOf(*plain.session), b = filesOf(*hit.session);
        QCOMPARE(b.size(), a.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(b[i]->path, a[i]->path);
            QVERIFY2(b[i]->roles == a[i]->roles, a[i]->path.c_str());
        }
        QVERIFY2(countRoles(*hit.session) == want, countsText(countRoles(*hit.session)).c_str());
    }

    // A kind told by its content takes that kind's roles: a simplified task list named
    // trace_view.json is the slices' file but no Chrome-trace timeline, in the cache too.
    void fileRolesOfAContentKind()
    {
        const QString dir = m_tmp.path() + "/simplified";
        QVERIFY(QDir().mkpath(dir));
        const std::string file = QString(dir + "/trace_view.json").toStdString();
        writeAll(file, R"({"tasks": [{"name": "MatMul", "start_time": 1.0, "end_time": 1.5},
                                     {"name": "Add", "start_time": 2.0, "end_time": 2.25}]})");
        const LoadResult plain = loadSession(dir.toStdString());
        QVERIFY2(plain.session, plain.error.c_str());
        const auto s = settings("roles-simplified");
        SessionCacheReport first, second;
        QVERIFY(cachedLoad(dir.toStdString(), s, first).session);
        const LoadResult hit = cachedLoad(dir.toStdString(), s, second);
        QVERIFY(second.hit);
        for (const LoadResult* r : {&plain, &hit}) {
            const auto files = filesOf(*r->session);
            QCOMPARE(files.size(), std::size_t(1));
            QCOMPARE(files[0]->path, file);
            QCOMPARE(files[0]->records, std::uint64_t(2));
            QVERIFY(files[0]->has(FileRole::Slices));
            QVERIFY(!files[0]->has(FileRole::Timeline));
            QVERIFY(!files[0]->has(FileRole::Kernels));
        }
    }

    // Arguments kept as the events' offsets (a large trace's, here forced for the small sample)
    // survive the cache: the entry lists the trace file, and the reopened session reads every
    // slice's arguments from it as a load that stored them has them.
    void lazyArgumentsRoundTrip()
    {
        const std::string path = copyOfRank0("lazy-args");
        const auto s = settings("lazy-args-cache");
        LoadOptions lazy;
        lazy.lazyArgsFrom = 0;
        LoadOptions eager;
        eager.lazyArgsFrom = std::numeric_limits<std::uint64_t>::max();
        const LoadResult stored = loadSession(path, eager);
        QVERIFY(stored.session);
        SessionCacheReport first, second;
        const LoadResult miss = loadSessionsCached({path}, lazy, s, &first);
        QVERIFY2(first.stored, first.storeError.c_str());
        const LoadResult hit = loadSessionsCached({path}, lazy, s, &second);
        QVERIFY2(second.hit, second.note.c_str());
        QCOMPARE(encoded(*hit.session), encoded(*miss.session));
        const Profile& a = *stored.session->ranks.front();
        const Profile& b = *hit.session->ranks.front();
        QVERIFY(b.args.args.empty());
        QCOMPARE(b.args.files.size(), std::size_t(1));
        QVERIFY(b.args.files.front().path.find("trace_view.json") != std::string::npos);
        QCOMPARE(b.slices.size(), a.slices.size());
        std::size_t lazyRows = 0, values = 0;
        for (std::size_t i = 0; i < a.slices.size(); ++i) {
            std::string x, y;
            auto into = [](std::string& out) {
                return [&out](std::string_view k, std::string_view v) { (out += k) += '=', (out += v) += ';'; };
            };
            QVERIFY(a.args.forEach(a.slices.args[i], a.strings, into(x)));
            QVERIFY(b.args.forEach(b.slices.args[i], b.strings, into(y)));
            QCOMPARE(y, x);
            lazyRows += b.args.isLazy(b.slices.args[i]);
            values += !x.empty();
        }
        QVERIFY(lazyRows > 1000);
        QCOMPARE(lazyRows, values);
    }

    void generatedProfile()
    {
        SynthOptions o;
        o.steps = 2;
        const std::string dir = QString(m_tmp.path() + "/gen").toStdString();
        const SynthResult g = synthesize(dir, o);
        QVERIFY2(g.ok, g.error.c_str());
        const auto s = settings("gen-cache");
        const LoadResult plain = loadSession(dir);
        QVERIFY(plain.session);
        SessionCacheReport a, b;
        QVERIFY(cachedLoad(dir, s, a).session);
        QVERIFY(a.stored);
        const LoadResult hit = cachedLoad(dir, s, b);
        QVERIFY(b.hit);
        QVERIFY(digest::tables(*hit.session) == digest::tables(*plain.session));
        QCOMPARE(encoded(*hit.session), encoded(*plain.session));
        std::uint64_t tasks = 0;
        for (const auto& p : hit.session->ranks)
            for (std::size_t i = 0; i < p->slices.size(); ++i)
                tasks += p->tracks[p->slices.track[i].v].kind == TrackKind::Stream;
        QCOMPARE(tasks, g.deviceTasks);
    }

    // Each way an entry goes wrong: noted, not used, the files read again, the entry rewritten
    // (the next open hits again), and what comes back equals a fresh load.
    void invalidation_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("noteHas");
        QTest::newRow("touch") << "touch" << "was modified";
        QTest::newRow("input grows") << "grow" << "changed size";
        QTest::newRow("input rewritten, same size and time") << "rewrite" << "changed contents";
        QTest::newRow("input added") << "add" << "was added";
        QTest::newRow("input removed") << "remove" << "was removed";
        QTest::newRow("entry truncated") << "truncate" << "truncated";
        QTest::newRow("byte flipped in the entry") << "flip" << "checksum does not match";
        QTest::newRow("byte flipped in the sums") << "flipsum" << "checksum does not match";
        QTest::newRow("other format version") << "version" << "another format version";
        QTest::newRow("other byte order") << "endian" << "other byte order";
        QTest::newRow("not an entry") << "garbage" << "not a cache entry";
    }
    void invalidation()
    {
        QFETCH(QString, damage);
        QFETCH(QString, noteHas);
        const std::string dir = copyOfRank0("inv-" + damage);
        const auto s = settings("inv-cache-" + damage);
        SessionCacheReport rep;
        QVERIFY(cachedLoad(dir, s, rep).session);
        QVERIFY(rep.stored);
        const std::string entry = rep.entry;
        const std::string kernels = dir + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
        QVERIFY(std::filesystem::exists(kernels));
        std::string bytes = readAll(entry);
        QVERIFY(bytes.size() > 4096);

        if (damage == "touch") {
            struct stat st {};
            ::stat(kernels.c_str(), &st);
            timespec t[2] = {st.st_atim, st.st_mtim};
            t[1].tv_sec += 10;
            QCOMPARE(::utimensat(AT_FDCWD, kernels.c_str(), t, 0), 0);
        } else if (damage == "grow") {
            std::ofstream(kernels, std::ios::app) << "\n";
        } else if (damage == "rewrite") {
            struct stat st {};
            ::stat(kernels.c_str(), &st);
            std::string k = readAll(kernels);
            // A digit in the last row changes: same size; the time is put back.
            const auto at = k.find_last_of("123456789");
            QVERIFY(at != std::string::npos);
            k[at] = k[at] == '9' ? '8' : char(k[at] + 1);
            writeAll(kernels, k);
            timespec t[2] = {st.st_atim, st.st_mtim};
            QCOMPARE(::utimensat(AT_FDCWD, kernels.c_str(), t, 0), 0);
        } else if (damage == "add") {
            writeAll(dir + "/notes.txt", "x");
        } else if (damage == "remove") {
            QVERIFY(std::filesystem::remove(dir + "/ASCEND_PROFILER_OUTPUT/operator_details.csv"));
        } else if (damage == "truncate") {
            writeAll(entry, bytes.substr(0, bytes.size() / 2));
        } else if (damage == "flip") {
            bytes[bytes.size() / 2] ^= 0x10;
            writeAll(entry, bytes);
        } else if (damage == "flipsum") {
            bytes[bytes.size() - 24] ^= 0x01; // the last block's checksum
            writeAll(entry, bytes);
        } else if (damage == "version") {
            const std::uint32_t other = kSessionCacheVersion + 1;
            bytes.replace(12, 4, reinterpret_cast<const char*>(&other), 4);
            writeAll(entry, bytes);
        } else if (damage == "endian") {
            std::swap(bytes[8], bytes[11]);
            std::swap(bytes[9], bytes[10]);
            writeAll(entry, bytes);
        } else if (damage == "garbage") {
            writeAll(entry, std::string(100000, 'x'));
        }

        const LoadResult fresh = loadSession(dir);
        QVERIFY(fresh.session);
        SessionCacheReport after;
        const LoadResult again = cachedLoad(dir, s, after);
        QVERIFY(again.session);
        QVERIFY(!after.hit);
        QVERIFY2(QString::fromStdString(after.note).contains(noteHas), after.note.c_str());
        QVERIFY2(after.stored, after.storeError.c_str());
        QCOMPARE(encoded(*again.session), encoded(*fresh.session));
        if (damage == "rewrite" || damage == "grow") // the change is in what was read
            QVERIFY(encoded(*fresh.session) != encoded(*loadSession(kRank0.toStdString()).session));

        SessionCacheReport third;
        const LoadResult hit = cachedLoad(dir, s, third);
        QVERIFY(third.hit);
        QVERIFY(third.note.empty());
        QCOMPARE(encoded(*hit.session), encoded(*fresh.session));
    }

    // An entry's payload read from its file block by block: reads of every size (within a block,
    // across blocks, whole blocks straight into the caller's memory, take() across a boundary)
    // give back exactly what was written, and a byte flipped in any block is caught before any
    // byte of that block is handed out; whether the blocks are read on demand or ahead.
    void blockReaderChecksEveryBlock_data()
    {
        QTest::addColumn<int>("flipBlock"); // -1: none
        QTest::addColumn<bool>("ahead");
        for (const bool ahead : {false, true}) {
            const char* how = ahead ? ", read ahead" : ", on demand";
            QTest::newRow(qPrintable(QStringLiteral("intact%1").arg(how))) << -1 << ahead;
            QTest::newRow(qPrintable(QStringLiteral("first block%1").arg(how))) << 0 << ahead;
            QTest::newRow(qPrintable(QStringLiteral("middle block%1").arg(how))) << 2 << ahead;
            QTest::newRow(qPrintable(QStringLiteral("last, partial block%1").arg(how))) << 4 << ahead;
        }
    }
    void blockReaderChecksEveryBlock()
    {
        QFETCH(int, flipBlock);
        QFETCH(bool, ahead);
        constexpr std::size_t B = cache::BlockWriter::kBlockBytes;
        std::string payload(4 * B + 12345, '\0');
        std::uint64_t x = 0x9E3779B97F4A7C15ull;
        for (char& c : payload) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            c = static_cast<char>(x);
        }
        const std::string path = QString(m_tmp.path() + "/blocks.bin").toStdString();
        std::FILE* f = std::fopen(path.c_str(), "wb");
        QVERIFY(f);
        std::fputs("head", f); // the payload starts at an offset, as in an entry
        cache::BlockWriter w(f);
        w.put(payload.data(), payload.size());
        QVERIFY(w.finish());
        const std::vector<std::uint64_t> sums = w.blockSums();
        std::fclose(f);
        QCOMPARE(sums.size(), std::size_t(5));
        if (flipBlock >= 0) {
            std::string bytes = readAll(path);
            bytes[4 + static_cast<std::size_t>(flipBlock) * B + 100] ^= 0x04;
            writeAll(path, bytes);
        }
        const int fd = ::open(path.c_str(), O_RDONLY);
        QVERIFY(fd >= 0);
        std::string back;
        std::string error;
        try {
            cache::ByteReader in(fd, 4, payload.size(), sums,
                                 ahead ? cache::ByteReader::Blocks::ReadAhead : cache::ByteReader::Blocks::OnDemand);
            // Sizes chosen to start inside a block, cross boundaries, and read whole blocks.
            for (const std::size_t n : {std::size_t(7), B - 7 - 3, std::size_t(10), 2 * B + 5, std::size_t(0)}) {
                std::string part(n, '\0');
                in.get(part.data(), n);
                back += part;
            }
            const std::size_t rest = in.left() - 100;
            const char* p = in.take(rest); // across the last boundary: a copy
            back.append(p, rest);
            back.append(in.take(100), 100); // within the last block: in place
            QCOMPARE(in.left(), std::size_t(0));
            char one;
            in.get(&one, 1);
        } catch (const cache::CorruptData& e) {
            error = e.what();
        }
        // A reader left before its end (the key of another input, a damaged table) stops its
        // reading ahead, whether that waits for a free buffer or is still reading.
        for (const std::size_t read : {std::size_t(0), std::size_t(1), B + 1}) {
            try {
                cache::ByteReader in(fd, 4, payload.size(), sums,
                                     ahead ? cache::ByteReader::Blocks::ReadAhead : cache::ByteReader::Blocks::OnDemand);
                std::string part(read, '\0');
                in.get(part.data(), read);
                QVERIFY(flipBlock == 0 || part == payload.substr(0, read));
                QTest::qWait(read == 1 ? 20 : 0);
            } catch (const cache::CorruptData&) {
                QVERIFY(flipBlock >= 0);
            }
        }
        ::close(fd);
        if (flipBlock < 0) {
            QCOMPARE(back.size(), payload.size());
            QVERIFY(back == payload);
            QCOMPARE(QString::fromStdString(error), QStringLiteral("ends early"));
        } else {
            QCOMPARE(QString::fromStdString(error),
                     QStringLiteral("block %1's checksum does not match").arg(flipBlock));
            // Nothing of the damaged block was handed out.
            QVERIFY(back.size() <= static_cast<std::size_t>(flipBlock) * B);
            QVERIFY(back == payload.substr(0, back.size()));
        }
    }

    // A load with skipped rows is cached with its problems, which come back as they were.
    void partialLoadKeepsItsProblems()
    {
        const std::string dir = copyOfRank0("partial");
        const std::string kernels = dir + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
        std::string k = readAll(kernels);
        const auto secondRow = k.find('\n', k.find('\n') + 1) + 1;
        k.insert(secondRow, "this,row,is,broken\n");
        writeAll(kernels, k);
        const auto s = settings("partial-cache");
        SessionCacheReport a, b;
        const LoadResult first = cachedLoad(dir, s, a);
        QVERIFY(a.stored);
        const Profile& p = *first.session->ranks.at(0);
        QVERIFY(p.skippedTotal() > 0);
        const LoadResult hit = cachedLoad(dir, s, b);
        QVERIFY(b.hit);
        const Profile& q = *hit.session->ranks.at(0);
        QCOMPARE(q.skippedTotal(), p.skippedTotal());
        QCOMPARE(q.diagnostics.size(), p.diagnostics.size());
        for (std::size_t i = 0; i < p.diagnostics.size(); ++i) {
            QCOMPARE(q.diagnostics[i].reason, p.diagnostics[i].reason);
            QCOMPARE(q.diagnostics[i].line, p.diagnostics[i].line);
            QCOMPARE(q.diagnostics[i].count, p.diagnostics[i].count);
        }
    }

    // Past the cap, the least recently used entries go; a use makes an entry recent.
    void sizeCapEvictsLeastRecentlyUsed()
    {
        auto s = settings("lru");
        const std::string a = copyOfRank0("lru-a"), b = copyOfRank0("lru-b"), c = copyOfRank0("lru-c");
        SessionCacheReport ra, rb, rc, hit;
        QVERIFY(cachedLoad(a, s, ra).session && ra.stored);
        const auto entryBytes = std::filesystem::file_size(ra.entry);
        s.maxBytes = 2 * entryBytes + entryBytes / 2; // room for two entries
        QVERIFY(cachedLoad(b, s, rb).session && rb.stored);
        // a last used before b; then used again, which makes it the most recent; then c is
        // stored: b is now the least recently used and goes.
        struct timespec aTime[2] = {{0, UTIME_OMIT}, {1000, 0}}, bTime[2] = {{0, UTIME_OMIT}, {2000, 0}};
        QCOMPARE(::utimensat(AT_FDCWD, ra.entry.c_str(), aTime, 0), 0);
        QCOMPARE(::utimensat(AT_FDCWD, rb.entry.c_str(), bTime, 0), 0);
        QVERIFY(cachedLoad(a, s, hit).session && hit.hit);
        QVERIFY(cachedLoad(c, s, rc).session && rc.stored);
        const auto entries = listSessionCache(s.dir);
        QCOMPARE(entries.size(), std::size_t(2));
        QVERIFY(std::filesystem::exists(ra.entry));
        QVERIFY(!std::filesystem::exists(rb.entry));
        QVERIFY(std::filesystem::exists(rc.entry));
        QCOMPARE(entries[0].file, rc.entry); // most recently used first
        QCOMPARE(entries[0].inputs.size(), std::size_t(1));
        QCOMPARE(entries[0].inputs[0], c);
        QVERIFY(entries[0].problem.empty());
        std::uint64_t freed = 0;
        QCOMPARE(clearSessionCache(s.dir, &freed), std::size_t(2));
        QCOMPARE(freed, entries[0].bytes + entries[1].bytes);
        QVERIFY(listSessionCache(s.dir).empty());

        // An entry bigger than the cap is not kept.
        s.maxBytes = 1000;
        SessionCacheReport big;
        QVERIFY(cachedLoad(a, s, big).session);
        QVERIFY(!big.stored);
        QVERIFY(QString::fromStdString(big.storeError).contains("cap"));
        QVERIFY(listSessionCache(s.dir).empty());
    }

    // The CLI: info (text and JSON) and advise --format json print the same bytes whether the
    // session came from the files, was just stored, or came from the cache; a damaged entry is
    // noted in info; --no-cache neither reads nor writes; cache list|clear.
    void cliByteIdentical_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("torch_npu level1") << kRank0;
        QTest::newRow("torch_npu db") << kSamples + "/msinsight/test/data/pytorch/db/level1";
        QTest::newRow("generated") << m_tmp.path() + "/gen";
    }
    void cliByteIdentical()
    {
        QFETCH(QString, path);
        if (!QFileInfo::exists(path)) { // the generated profile comes from generatedProfile()
            SynthOptions o;
            o.steps = 2;
            QVERIFY(synthesize(path.toStdString(), o).ok);
        }
        const QString home = m_tmp.path() + "/cli-home-" + QString::number(qHash(path));
        for (const QStringList& verb : {QStringList{"info"}, QStringList{"info", "--format", "json"},
                                        QStringList{"advise", "--format", "json"}}) {
            const Run plain = runCli(verb + QStringList{path, "--no-cache"}, home);
            QCOMPARE(plain.code, 0);
            QVERIFY(!QDir(home + "/npuscope").exists() || QDir(home + "/npuscope").isEmpty());
            const Run stored = runCli(verb + QStringList{path}, home);
            const Run hit = runCli(verb + QStringList{path}, home);
            QCOMPARE(stored.code, 0);
            QCOMPARE(hit.code, 0);
            QVERIFY(plain.out.size() > 100);
            QCOMPARE(stored.out, plain.out);
            QCOMPARE(hit.out, plain.out);
            QCOMPARE(hit.err, plain.err);
            QCOMPARE(QDir(home + "/npuscope").entryList({"*.npsc"}, QDir::Files).size(), 1);
            QCOMPARE(runCli({"cache", "clear"}, home).code, 0);
        }

        // A damaged entry: info says so (after the report, and on stderr), and rebuilds it.
        QVERIFY(runCli({"info", path}, home).code == 0);
        const QString entry = home + "/npuscope/" + QDir(home + "/npuscope").entryList({"*.npsc"}).at(0);
        std::string bytes = readAll(entry.toStdString());
        bytes[bytes.size() / 3] ^= 0x40;
        writeAll(entry.toStdString(), bytes);
        const Run noted = runCli({"info", path}, home);
        QCOMPARE(noted.code, 0);
        QVERIFY2(noted.out.contains("\ncache: the cached copy ") && noted.out.contains("checksum does not match"),
                 noted.out.right(300).constData());
        QVERIFY(noted.err.contains("note: the cached copy"));
        const Run plain = runCli({"info", path, "--no-cache"}, home);
        QVERIFY(noted.out.startsWith(plain.out));
        QCOMPARE(runCli({"info", path}, home).out, plain.out);

        const Run list = runCli({"cache", "list"}, home);
        QCOMPARE(list.code, 0);
        QVERIFY2(list.out.contains("1 entry,") && list.out.contains(QFileInfo(path).absoluteFilePath().toUtf8()),
                 list.out.constData());
        const Run clear = runCli({"cache", "clear"}, home);
        QVERIFY(clear.out.startsWith("removed 1 entry"));
        QVERIFY(runCli({"cache", "list"}, home).out.startsWith("0 entries"));
        QCOMPARE(runCli({"cache", "frobnicate"}, home).code, 2);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestSessionCache)

} // namespace test_session_cache

#include "test_session_cache.moc"
