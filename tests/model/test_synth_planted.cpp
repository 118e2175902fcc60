// The generator's planted causes, speedups, clock offsets and late rank, checked against the
// files it wrote: the planted slices are in the timeline with the truth's times, the device
// really idled under them (measured here from the written device tasks), a speedup changes only
// its op type's device time, an offset shifts every timestamp of its rank, and a run without
// the options is written exactly as before.
#include "test_main.h"
#include "cli_run.h"
#include "csv_records.h"
#include "file_bytes.h"
#include "model/synth/synth.h"

#include <QDir>
#include <QDirIterator>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace test_synth_planted {

using namespace npuscope::synth;
using nlohmann::json;

namespace {

QString findOne(const QString& dir, const QString& pattern)
{
    QDirIterator it(dir, {pattern}, QDir::Files, QDirIterator::Subdirectories);
    return it.hasNext() ? it.next() : QString();
}

QStringList filesUnder(const QString& dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << QDir(dir).relativeFilePath(it.next());
    out.sort();
    return out;
}

// "1780748090000005.000" (µs, 3 decimals) or a number of µs -> ns
std::int64_t tsNs(const json& v)
{
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        const auto dot = s.find('.');
        std::int64_t ns = std::stoll(s.substr(0, dot)) * 1000;
        if (dot != std::string::npos) {
            std::string frac = s.substr(dot + 1, 3);
            frac.resize(3, '0');
            ns += std::stoll(frac);
        }
        return ns;
    }
    return std::llround(v.get<double>() * 1000.0);
}

struct Ev {
    std::string name, cat;
    std::int64_t ts = 0, dur = 0;
    bool device = false; // a task on an Ascend Hardware stream
    json args;
};

std::vector<Ev> readTrace(const QString& rankDir)
{
    std::vector<Ev> out;
    const auto j = json::parse(fileBytes(findOne(rankDir, "trace_view.json")));
    for (const auto& e : j) {
        if (e.value("ph", "") != "X")
            continue;
        Ev ev;
        ev.name = e.value("name", "");
        ev.cat = e.value("cat", "");
        ev.ts = tsNs(e["ts"]);
        ev.dur = std::llround(e["dur"].get<double>() * 1000.0);
        ev.args = e.value("args", json::object());
        ev.device = ev.args.contains("Physic Stream Id");
        out.push_back(std::move(ev));
    }
    return out;
}

using Spans = std::vector<std::pair<std::int64_t, std::int64_t>>;

Spans deviceBusy(const std::vector<Ev>& evs)
{
    Spans v;
    for (const auto& e : evs)
        if (e.device)
            v.emplace_back(e.ts, e.ts + e.dur);
    std::sort(v.begin(), v.end());
    Spans out;
    for (const auto& iv : v) {
        if (!out.empty() && iv.first <= out.back().second)
            out.back().second = std::max(out.back().second, iv.second);
        else
            out.push_back(iv);
    }
    return out;
}

// |[a, b) − busy|
std::int64_t idleIn(std::int64_t a, std::int64_t b, const Spans& busy)
{
    std::int64_t n = std::max<std::int64_t>(0, b - a);
    for (const auto& iv : busy)
        n -= std::max<std::int64_t>(0, std::min(b, iv.second) - std::max(a, iv.first));
    return n;
}

std::vector<std::vector<std::string>> csvRows(const QString& path)
{
    return parseCsv(fileBytes(path));
}

int column(const std::vector<std::string>& header, const std::string& name)
{
    for (std::size_t i = 0; i < header.size(); ++i)
        if (header[i] == name)
            return static_cast<int>(i);
    return -1;
}

double num(const std::string& s)
{
    return std::stod(s.substr(0, s.find_last_not_of(" \t") + 1));
}

SynthOptions small()
{
    SynthOptions o;
    o.steps = 2;
    return o;
}

} // namespace

class TestSynthPlanted : public QObject {
    Q_OBJECT
private slots:
    void plantedSlices_data();
    void plantedSlices();
    void speedupPair();
    void clockOffsets();
    void lateRank();
    void noOptionsUnchanged();
    void badOptions();
    void cliTruthFile();
};

void TestSynthPlanted::plantedSlices_data()
{
    QTest::addColumn<QString>("cause");
    QTest::addColumn<QString>("slice");
    QTest::addColumn<double>("us");
    QTest::newRow("python_stall") << "python_stall"
                                  << "log_metrics" << 900.0;
    QTest::newRow("dataloader") << "dataloader"
                                << "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" << 1500.0;
    QTest::newRow("sync") << "sync"
                          << "AscendCL@aclrtSynchronizeStream" << 200.0;
    QTest::newRow("compile") << "compile"
                             << "AscendCL@aclopCompileAndExecute" << 1200.0;
}

void TestSynthPlanted::plantedSlices()
{
    QFETCH(QString, cause);
    QFETCH(QString, slice);
    QFETCH(double, us);
    QTemporaryDir dir;
    SynthOptions o = small();
    o.withStack = true;
    o.plants.push_back({cause.toStdString(), 0});
    const SynthResult res = synthesize(dir.path().toStdString(), o);
    QVERIFY2(res.ok, res.error.c_str());
    QCOMPARE(res.truth.ranks.size(), std::size_t(1));
    const RankTruth& rt = res.truth.ranks[0];
    QCOMPARE(rt.steps.size(), std::size_t(2));
    const auto evs = readTrace(QString::fromStdString(res.rankDirs[0]));
    const Spans busy = deviceBusy(evs);

    // the step spans and their idle time, measured from the file
    std::vector<const Ev*> steps;
    for (const auto& e : evs)
        if (e.name.rfind("ProfilerStep#", 0) == 0)
            steps.push_back(&e);
    QCOMPARE(steps.size(), rt.steps.size());
    std::vector<std::int64_t> spans;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        QCOMPARE(steps[i]->ts, rt.steps[i].start);
        QCOMPARE(steps[i]->ts + steps[i]->dur, rt.steps[i].end);
        QVERIFY(std::llabs(idleIn(steps[i]->ts, steps[i]->ts + steps[i]->dur, busy) - rt.steps[i].idleNs) <= 1000);
        spans.push_back(steps[i]->dur);
    }
    std::sort(spans.begin(), spans.end());
    QCOMPARE(res.truth.medianStepNs, (spans[0] + spans[1]) / 2);

    const std::string name = slice.toStdString();
    int inFile = 0;
    for (const auto& e : evs)
        inFile += e.name == name ? 1 : 0;
    QCOMPARE(inFile, cause == "sync" ? 4 : 2); // one per step (and the step-end synchronize)
    std::int64_t total = 0;
    for (const StepTruth& st : rt.steps) {
        bool found = false;
        for (const PlantedSlice& ps : st.slices) {
            const auto it = std::find_if(evs.begin(), evs.end(), [&](const Ev& e) {
                return e.name == ps.name && e.ts == ps.start && e.ts + e.dur == ps.end;
            });
            QVERIFY2(it != evs.end(), ps.name.c_str()); // in the file with the truth's times
            const std::int64_t idle = idleIn(ps.start, ps.end, busy);
            QVERIFY(std::llabs(idle - ps.idleNs) <= 1000);
            total += ps.idleNs;
            if (ps.name != name)
                continue;
            found = true;
            const double durUs = static_cast<double>(ps.end - ps.start) / 1000.0;
            if (cause != "sync") {
                QVERIFY2(std::fabs(durUs - us) <= us * 0.05 + 0.01, std::to_string(durUs).c_str()); // ± its jitter
                // the device really idled under it (a launch or two still in the queue)
                QVERIFY2(idle >= (ps.end - ps.start) * 8 / 10, std::to_string(idle).c_str());
            }
            if (cause == "python_stall") {
                QCOMPARE(ps.cause, std::string("host_python"));
                QCOMPARE(it->args.value("Call stack", ""), std::string("train.py(88): log_metrics"));
                QCOMPARE(it->cat, std::string("cpu_op"));
            }
            if (cause == "sync") {
                // it returns after the device drained: nothing that started before it runs on
                for (const auto& e : evs)
                    if (e.device && e.ts < ps.end)
                        QVERIFY(e.ts + e.dur <= ps.end);
                QCOMPARE(ps.cause, std::string("sync"));
            }
        }
        QVERIFY(found);
        if (cause == "sync") { // the Python after it, all idle, counted as host_python
            const auto after = std::find_if(st.slices.begin(), st.slices.end(),
                                            [](const PlantedSlice& p) { return p.plant == "sync_python"; });
            QVERIFY(after != st.slices.end());
            QCOMPARE(after->cause, std::string("host_python"));
            QVERIFY(std::fabs(static_cast<double>(after->end - after->start) / 1000.0 - us) <= us * 0.05 + 0.01);
            QVERIFY(after->idleNs >= (after->end - after->start) * 95 / 100);
            const auto call = std::find_if(st.slices.begin(), st.slices.end(),
                                           [](const PlantedSlice& p) { return p.plant == "sync"; });
            QVERIFY(call != st.slices.end());
            for (const char* n : {"aten::item", "aten::_local_scalar_dense"}) // .item() encloses the call
                QVERIFY(std::any_of(evs.begin(), evs.end(), [&](const Ev& e) {
                    return e.name == n && e.ts <= call->start && e.ts + e.dur >= call->end;
                }));
            // the next device task starts only after the Python that follows
            std::int64_t next = -1;
            for (const auto& e : evs)
                if (e.device && e.ts >= call->end && (next < 0 || e.ts < next))
                    next = e.ts;
            QVERIFY(next > after->end);
        }
    }
    std::int64_t byCause = 0;
    for (const auto& [c, ns] : rt.causeIdleNs)
        byCause += ns;
    QCOMPARE(byCause, total);
    QVERIFY(total > 0);
}

// A pair of runs, the second with MatMulV2 twice as fast: the same kernels in the same order, the
// MatMulV2 durations halved and every other one equal, the same host timeline within each step.
void TestSynthPlanted::speedupPair()
{
    QTemporaryDir a, b;
    SynthOptions o = small();
    const SynthResult base = synthesize(a.path().toStdString(), o);
    o.speedups = {{"MatMulV2", 2.0}};
    const SynthResult fast = synthesize(b.path().toStdString(), o);
    QVERIFY2(base.ok && fast.ok, (base.error + fast.error).c_str());
    const auto ka = csvRows(findOne(a.path(), "kernel_details.csv"));
    const auto kb = csvRows(findOne(b.path(), "kernel_details.csv"));
    QCOMPARE(ka.size(), kb.size());
    const int type = column(ka[0], "Type"), dur = column(ka[0], "Duration(us)"), name = column(ka[0], "Name");
    QVERIFY(type >= 0 && dur >= 0 && name >= 0);
    int scaled = 0;
    double baseMm = 0, fastMm = 0, baseOther = 0, fastOther = 0;
    for (std::size_t i = 1; i < ka.size(); ++i) {
        QCOMPARE(ka[i][static_cast<std::size_t>(name)], kb[i][static_cast<std::size_t>(name)]);
        const double da = num(ka[i][static_cast<std::size_t>(dur)]), db = num(kb[i][static_cast<std::size_t>(dur)]);
        if (ka[i][static_cast<std::size_t>(type)] == "MatMulV2") {
            QVERIFY2(std::fabs(da / 2.0 - db) <= 0.0015, (std::to_string(da) + " " + std::to_string(db)).c_str());
            baseMm += da;
            fastMm += db;
            ++scaled;
        } else {
            QCOMPARE(db, da);
            baseOther += da;
            fastOther += db;
        }
    }
    QCOMPARE(scaled, 2 * 32 * 7); // 7 MatMulV2 per layer, 32 layers, 2 steps
    QVERIFY(std::fabs(fastMm * 2 - baseMm) < 1.0);
    QCOMPARE(fastOther, baseOther);

    // the host: every cpu_op at the same place in its step, with the same duration
    auto hostOps = [](const std::vector<Ev>& evs) {
        std::vector<std::pair<std::int64_t, std::int64_t>> steps, out;
        for (const auto& e : evs)
            if (e.name.rfind("ProfilerStep#", 0) == 0)
                steps.emplace_back(e.ts, e.ts + e.dur);
        for (const auto& e : evs) {
            if (e.cat != "cpu_op" || e.name.rfind("ProfilerStep#", 0) == 0)
                continue;
            for (const auto& sp : steps)
                if (e.ts >= sp.first && e.ts < sp.second)
                    out.emplace_back(e.ts - sp.first, e.dur);
        }
        return out;
    };
    const auto ea = readTrace(QString::fromStdString(base.rankDirs[0]));
    const auto eb = readTrace(QString::fromStdString(fast.rankDirs[0]));
    const auto ha = hostOps(ea), hb = hostOps(eb);
    QCOMPARE(ha.size(), std::size_t(2 * 32 * 21));
    QVERIFY(ha == hb);
    // the step is shorter, by at most the MatMulV2 time saved
    QVERIFY(fast.truth.medianStepNs < base.truth.medianStepNs);
    const double savedNs = (baseMm - fastMm) / 2 * 1000; // per step
    const auto shorter = static_cast<double>(base.truth.medianStepNs - fast.truth.medianStepNs);
    QVERIFY2(shorter <= savedNs * 1.001 && shorter >= savedNs * 0.9,
             (std::to_string(shorter) + " vs " + std::to_string(savedNs)).c_str());
    QCOMPARE(fast.truth.speedups.size(), std::size_t(1));
}

// Rank 1 with its clock 2.5 ms behind: its every timestamp 2.5 ms earlier, rank 0 unchanged.
void TestSynthPlanted::clockOffsets()
{
    QTemporaryDir a, b;
    SynthOptions o = small();
    o.ranks = 2;
    const SynthResult plain = synthesize(a.path().toStdString(), o);
    const std::int64_t off = -2500000;
    o.clockOffsets = {{1, off}};
    const SynthResult shifted = synthesize(b.path().toStdString(), o);
    QVERIFY2(plain.ok && shifted.ok, (plain.error + shifted.error).c_str());
    QCOMPARE(shifted.truth.ranks[1].clockOffsetNs, off);
    QCOMPARE(shifted.truth.ranks[1].steps[0].start, plain.truth.ranks[1].steps[0].start + off);
    // rank 0: the same bytes
    const QString r0a = QString::fromStdString(plain.rankDirs[0]), r0b = QString::fromStdString(shifted.rankDirs[0]);
    const QStringList files = filesUnder(r0a);
    QCOMPARE(files, filesUnder(r0b));
    for (const QString& f : files)
        QVERIFY2(fileBytes(r0a + "/" + f) == fileBytes(r0b + "/" + f), qPrintable(f));
    // rank 1: every event's ts (X, flows, counters) moved by the offset
    const QString r1a = QString::fromStdString(plain.rankDirs[1]), r1b = QString::fromStdString(shifted.rankDirs[1]);
    const auto ja = json::parse(fileBytes(findOne(r1a, "trace_view.json")));
    const auto jb = json::parse(fileBytes(findOne(r1b, "trace_view.json")));
    QCOMPARE(ja.size(), jb.size());
    std::size_t withTs = 0;
    for (std::size_t i = 0; i < ja.size(); ++i) {
        QCOMPARE(ja[i].value("name", ""), jb[i].value("name", ""));
        if (!ja[i].contains("ts"))
            continue;
        ++withTs;
        QCOMPARE(tsNs(jb[i]["ts"]) - tsNs(ja[i]["ts"]), off);
    }
    QVERIFY(withTs > 10000);
    // the tables' start times
    auto shiftedColumn = [&](const QString& file, const std::string& col) {
        const auto ta = csvRows(findOne(r1a, file)), tb = csvRows(findOne(r1b, file));
        QCOMPARE(ta.size(), tb.size());
        const int c = column(ta[0], col);
        QVERIFY2(c >= 0, col.c_str());
        for (std::size_t i = 1; i < ta.size(); ++i) {
            const auto ci = static_cast<std::size_t>(c);
            QVERIFY(std::fabs(num(tb[i][ci]) - num(ta[i][ci]) - off / 1000.0) < 0.002);
        }
    };
    shiftedColumn("kernel_details.csv", "Start Time(us)");
    shiftedColumn("memory_record.csv", "Timestamp(us)");
    const auto ca = json::parse(fileBytes(findOne(r1a, "communication.json")));
    const auto cb = json::parse(fileBytes(findOne(r1b, "communication.json")));
    int comm = 0;
    for (auto step = ca.begin(); step != ca.end(); ++step)
        for (auto op = step.value()["collective"].begin(); op != step.value()["collective"].end(); ++op) {
            if (op.key() == "Total Op Info")
                continue;
            const double ta = op.value()["Communication Time Info"]["Start Timestamp(us)"].get<double>();
            const double tb = cb[step.key()]["collective"][op.key()]["Communication Time Info"]["Start Timestamp(us)"]
                                  .get<double>();
            QVERIFY(std::fabs(tb - ta - off / 1000.0) < 1.0);
            ++comm;
        }
    QCOMPARE(comm, 2 * 32);
}

// Rank 1 late at the middle collective by an extra MatMulV2: the others wait, all end together.
void TestSynthPlanted::lateRank()
{
    QTemporaryDir dir;
    SynthOptions o = small();
    o.ranks = 2;
    o.lateRank.rank = 1;
    const SynthResult res = synthesize(dir.path().toStdString(), o);
    QVERIFY2(res.ok, res.error.c_str());
    QCOMPARE(res.truth.late.size(), std::size_t(2));
    const auto e0 = readTrace(QString::fromStdString(res.rankDirs[0]));
    const auto e1 = readTrace(QString::fromStdString(res.rankDirs[1]));
    auto count = [](const std::vector<Ev>& evs, const std::string& name) {
        return std::count_if(evs.begin(), evs.end(), [&](const Ev& e) { return e.device && e.name == name; });
    };
    const std::string mm = "aclnnMatmul_MatMulCommon_MatMulV2";
    QCOMPARE(count(e1, mm), count(e0, mm) + 2);
    for (const LateTruth& lt : res.truth.late) {
        QCOMPARE(lt.rank, 1);
        QCOMPARE(lt.delayNs, std::int64_t(600000));
        QCOMPARE(lt.delayedBy, mm);
        auto find = [&](const std::vector<Ev>& evs) {
            return std::find_if(evs.begin(), evs.end(), [&](const Ev& e) { return e.device && e.name == lt.collective; });
        };
        const auto c0 = find(e0), c1 = find(e1);
        QVERIFY(c0 != e0.end() && c1 != e1.end());
        QVERIFY(std::llabs((c0->ts + c0->dur) - (c1->ts + c1->dur)) <= 1); // synchronised
        QCOMPARE(c1->ts - c0->ts, lt.arrivalLagNs);
        QVERIFY(lt.arrivalLagNs >= lt.delayNs * 9 / 10);
        // the extra op ends right before the late rank's collective
        const auto extra = std::find_if(e1.begin(), e1.end(), [&](const Ev& e) {
            return e.device && e.name == mm && e.dur == lt.delayNs && e.ts + e.dur <= c1->ts && e.ts + e.dur > c1->ts - 10000;
        });
        QVERIFY(extra != e1.end());
    }
}

// Options that change nothing (a factor of 1, an offset of 0) write the same bytes as none, and a
// run without options has the known counts.
void TestSynthPlanted::noOptionsUnchanged()
{
    QTemporaryDir a, b;
    SynthOptions o = small();
    o.ranks = 2;
    const SynthResult plain = synthesize(a.path().toStdString(), o);
    o.speedups = {{"MatMulV2", 1.0}};
    o.clockOffsets = {{0, 0}};
    const SynthResult neutral = synthesize(b.path().toStdString(), o);
    QVERIFY2(plain.ok && neutral.ok, (plain.error + neutral.error).c_str());
    const QStringList files = filesUnder(a.path());
    QCOMPARE(files, filesUnder(b.path()));
    for (const QString& f : files)
        QVERIFY2(fileBytes(a.path() + "/" + f) == fileBytes(b.path() + "/" + f), qPrintable(f));
    QCOMPARE(csvRows(findOne(QString::fromStdString(plain.rankDirs[0]), "kernel_details.csv")).size(),
             std::size_t(1 + 2 * 32 * 21));
    for (const RankTruth& rt : plain.truth.ranks) {
        QVERIFY(rt.causeIdleNs.empty());
        for (const StepTruth& st : rt.steps)
            QVERIFY(st.slices.empty());
    }
    QVERIFY(plain.truth.late.empty());
}

void TestSynthPlanted::badOptions()
{
    QTemporaryDir dir;
    auto fails = [&](SynthOptions o, const char* what) {
        const SynthResult r = synthesize(dir.path().toStdString(), o);
        QVERIFY2(!r.ok && r.error.find(what) != std::string::npos, r.error.c_str());
    };
    SynthOptions o = small();
    o.plants = {{"stall", 0}};
    fails(o, "unknown plant");
    o.plants = {{"sync", 0}};
    o.level = 0;
    fails(o, "level");
    o = small();
    o.plants = {{"compile", 0}};
    o.layout = "msprof";
    fails(o, "torch_npu");
    o = small();
    o.speedups = {{"NoSuchOp", 2}};
    fails(o, "no op type");
    o.speedups = {{"MatMulV2", 0}};
    fails(o, "factor");
    o = small();
    o.clockOffsets = {{3, 5}};
    fails(o, "rank outside");
    o = small();
    o.lateRank.rank = 0;
    fails(o, "2 or more ranks");
    o.ranks = 2;
    o.lateRank.collective = 64;
    fails(o, "collective index");
}

// `npuscope synth --plant ... --truth FILE`: the file holds what the timeline shows.
void TestSynthPlanted::cliTruthFile()
{
    QTemporaryDir dir;
    const QString out = dir.path() + "/run", truthPath = dir.path() + "/truth.json";
    const CliRun r = runCli({"synth", out, "--steps", "1", "--quiet", "--plant", "python_stall=700", "--late-rank",
                             "1:2:400:host", "--ranks", "2", "--clock-offset", "1=-1500", "--truth", truthPath});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const json t = json::parse(fileBytes(truthPath));
    QCOMPARE(t["plants"][0]["cause"].get<std::string>(), std::string("python_stall"));
    QCOMPARE(t["plants"][0]["us"].get<double>(), 700.0);
    QCOMPARE(t["clock_offsets"][0]["offset_ns"].get<std::int64_t>(), std::int64_t(-1500));
    QCOMPARE(t["late_rank"].size(), std::size_t(1));
    QCOMPARE(t["late_rank"][0]["delayed_by"].get<std::string>(), std::string("log_metrics"));
    QCOMPARE(t["late_rank"][0]["delay_ns"].get<std::int64_t>(), std::int64_t(400000));
    QVERIFY(t["late_rank"][0]["arrival_lag_ns"].get<std::int64_t>() > 0);
    for (const auto& rank : t["ranks"]) {
        QDirIterator it(out, {"*_ascend_pt"}, QDir::Dirs);
        std::vector<QString> rankDirs;
        while (it.hasNext())
            rankDirs.push_back(it.next());
        std::sort(rankDirs.begin(), rankDirs.end());
        QCOMPARE(rankDirs.size(), std::size_t(2));
        const auto evs = readTrace(rankDirs[rank["rank"].get<std::size_t>()]);
        const Spans busy = deviceBusy(evs);
        for (const auto& ps : rank["steps"][0]["planted"]) {
            const std::int64_t start = ps["start_ns"], end = ps["end_ns"];
            QVERIFY(std::any_of(evs.begin(), evs.end(), [&](const Ev& e) {
                return e.name == ps["name"].get<std::string>() && e.ts == start && e.ts + e.dur == end;
            }));
            QVERIFY(std::llabs(idleIn(start, end, busy) - ps["idle_ns"].get<std::int64_t>()) <= 1000);
        }
    }
    const CliRun bad = runCli({"synth", out, "--plant", "no_such_cause"});
    QCOMPARE(bad.code, 2);
    QVERIFY(bad.err.contains("--plant"));
}

NPUSCOPE_TEST_GUILESS_MAIN(TestSynthPlanted)

} // namespace test_synth_planted

#include "test_synth_planted.moc"
