// The generator's other shapes (synth.h: applyShape) and the loader's flow pairing on them. The
// same events written interleaved (sorted by time), with each step's flow starts or ends en bloc
// and process-ordered (the Ascend Hardware block before CANN, every HostToDevice f before its
// s) must load into the same flows: the oracle is the trace JSON itself, read here with
// nlohmann: every s/f the generator wrote, by (cat, id), and the slice each end sits on (the X
// on the end's pid/tid starting at its ts, the shortest of them).
#include "test_main.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace test_synth_shapes {

using namespace npuscope;
namespace fs = std::filesystem;

namespace {

struct End {
    std::int64_t pid = 0, tid = 0, ts = 0;
    std::size_t index = 0; // the event's place in the file
    bool seen = false;
};

struct Written {
    std::map<std::pair<std::string, std::string>, std::pair<End, End>> flows; // (cat, id) -> s, f
    // (pid, tid, ts) -> the shortest X starting there: its name and duration
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::pair<std::string, std::int64_t>> slices;
    std::map<std::int64_t, std::string> processes;
    std::size_t deviceTasks = 0, cpuOps = 0, overlapSlices = 0;
    std::size_t firstHardware = ~std::size_t{0}, firstCann = ~std::size_t{0};
    std::uint64_t bytes = 0;
};

// "1700000000123.456" (µs with 3 decimals, quoted as torch_npu writes it) or a number -> ns.
std::int64_t tsNs(const nlohmann::json& v)
{
    if (v.is_number())
        return std::llround(v.get<double>() * 1000.0);
    std::string s = v.get<std::string>();
    const auto dot = s.find('.');
    std::string frac = dot == std::string::npos ? "" : s.substr(dot + 1);
    frac.resize(3, '0');
    return std::stoll(s.substr(0, dot)) * 1000 + std::stoll(frac);
}

std::int64_t durNs(const nlohmann::json& v)
{
    return std::llround((v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>()) * 1000.0);
}

std::string idText(const nlohmann::json& v)
{
    return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string traceOf(const std::string& rankDir)
{
    for (const auto& e : fs::recursive_directory_iterator(rankDir))
        if (e.path().filename() == "trace_view.json")
            return e.path().string();
    return {};
}

Written readWritten(const std::string& trace)
{
    Written w;
    std::ifstream in(trace, std::ios::binary);
    const nlohmann::json events = nlohmann::json::parse(in);
    w.bytes = fs::file_size(trace);
    for (const auto& e : events)
        if (e.value("ph", "") == "M" && e.value("name", "") == "process_name")
            w.processes[e["pid"].get<std::int64_t>()] = e["args"]["name"].get<std::string>();
    for (std::size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        const std::string ph = e.value("ph", "");
        if (ph == "M" || ph == "C")
            continue;
        const std::int64_t pid = e["pid"].get<std::int64_t>(), tid = e["tid"].get<std::int64_t>();
        const std::string& process = w.processes[pid];
        if (ph == "X") {
            const std::int64_t ts = tsNs(e["ts"]), dur = durNs(e["dur"]);
            auto [it, added] = w.slices.try_emplace({pid, tid, ts}, e["name"].get<std::string>(), dur);
            if (!added && dur < it->second.second)
                it->second = {e["name"].get<std::string>(), dur};
            if (process == "Ascend Hardware") {
                ++w.deviceTasks;
                w.firstHardware = std::min(w.firstHardware, i);
            } else if (process == "CANN") {
                w.firstCann = std::min(w.firstCann, i);
            } else if (process == "Overlap Analysis") {
                ++w.overlapSlices;
            } else if (e.value("cat", "") == "cpu_op" && !e["name"].get<std::string>().starts_with("ProfilerStep")) {
                ++w.cpuOps;
            }
            continue;
        }
        if (ph != "s" && ph != "f")
            continue;
        auto& [s, f] = w.flows[{e["cat"].get<std::string>(), idText(e["id"])}];
        End& end = ph == "s" ? s : f;
        [&] { QVERIFY2(!end.seen, "one s and one f per (cat, id)"); }();
        end = End{pid, tid, tsNs(e["ts"]), i, true};
    }
    return w;
}

synth::SynthResult generate(const QString& dir, const std::string& shape)
{
    synth::SynthOptions o;
    o.steps = 2;
    o.seed = 7;
    o.memoryFiles = 0;
    [&] { QVERIFY(synth::applyShape(shape, o)); }();
    return synth::synthesize(dir.toStdString(), o);
}

// One loaded flow as the oracle names it: category, id, and its two slices' track, start and name.
using FlowRow = std::tuple<std::string, std::string, std::int64_t, std::int64_t, std::int64_t, std::string,
                           std::int64_t, std::int64_t, std::int64_t, std::string>;

std::vector<FlowRow> loadedFlows(const Profile& p)
{
    std::vector<FlowRow> rows;
    const FlowTable& fl = p.flows;
    auto slice = [&](std::uint32_t row, std::int64_t& ts) {
        ts = row == kNone ? -1 : p.slices.start[row];
        return row == kNone ? std::string("(none)") : std::string(p.strings.view(p.slices.name[row]));
    };
    for (std::size_t i = 0; i < fl.size(); ++i) {
        const Track& st = p.tracks[fl.srcTrack[i].v];
        const Track& dt = p.tracks[fl.dstTrack[i].v];
        std::int64_t sTs = 0, dTs = 0;
        std::string sName = slice(fl.srcSlice[i], sTs);
        std::string dName = slice(fl.dstSlice[i], dTs);
        rows.emplace_back(std::string(p.strings.view(fl.category[i])), fl.idOf(i, p.strings), st.pid, st.tid, sTs,
                          sName, dt.pid, dt.tid, dTs, dName);
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

// The flows the file says there are, in the same form: each end on the slice starting at it.
std::vector<FlowRow> writtenFlows(const Written& w)
{
    std::vector<FlowRow> rows;
    for (const auto& [key, ends] : w.flows) {
        const auto& [s, f] = ends;
        auto name = [&](const End& e) {
            const auto it = w.slices.find({e.pid, e.tid, e.ts});
            return it == w.slices.end() ? std::string("(none)") : it->second.first;
        };
        rows.emplace_back(key.first, key.second, s.pid, s.tid, s.ts, name(s), f.pid, f.tid, f.ts, name(f));
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

std::uint64_t diagnosticCount(const Profile& p, const std::string& reason)
{
    std::uint64_t n = 0;
    for (const auto& d : p.diagnostics)
        if (d.reason == reason)
            n += d.count;
    return n;
}

} // namespace

class TestSynthShapes : public QObject {
    Q_OBJECT

private slots:
    void unknownShapeIsRefused()
    {
        synth::SynthOptions o;
        QVERIFY(!synth::applyShape("sorted-by-name", o));
        QCOMPARE(o.flowOrder, std::string("time"));
        const auto names = synth::shapeNames();
        QCOMPARE(names.size(), std::size_t{6});
        for (const auto& n : names)
            QVERIFY2(synth::applyShape(n, o), n.c_str());
        o.layout = "msprof";
        QVERIFY(synth::applyShape("ends-first", o));
        QTemporaryDir tmp;
        const synth::SynthResult r = synth::synthesize(tmp.path().toStdString(), o);
        QVERIFY(!r.ok);
        QVERIFY(r.error.find("torch_npu") != std::string::npos);
    }

    // The same events in four orders load into the same flows, each the one the file wrote.
    void flowsPairAlikeInEveryOrder()
    {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        std::vector<FlowRow> first;
        std::size_t firstSlices = 0;
        for (const std::string shape : {"real", "starts-first", "ends-first", "process-ordered"}) {
            const synth::SynthResult r = generate(tmp.path() + "/" + QString::fromStdString(shape), shape);
            QVERIFY2(r.ok, r.error.c_str());
            const Written w = readWritten(traceOf(r.rankDirs.at(0)));
            QVERIFY(!QTest::currentTestFailed());
            // the order the shape promises, on the HostToDevice ends
            std::size_t sFirst = 0, fFirst = 0, h2d = 0;
            for (const auto& [key, ends] : w.flows) {
                QVERIFY2(ends.first.seen && ends.second.seen, (key.first + " " + key.second).c_str());
                if (key.first != "HostToDevice")
                    continue;
                ++h2d;
                (ends.first.index < ends.second.index ? sFirst : fFirst) += 1;
            }
            QCOMPARE(h2d, static_cast<std::size_t>(r.deviceTasks));
            if (shape == "real" || shape == "starts-first")
                QCOMPARE(sFirst, h2d);
            else
                QCOMPARE(fFirst, h2d);
            if (shape == "process-ordered")
                QVERIFY(w.firstHardware < w.firstCann);
            else
                QVERIFY(w.firstCann < w.firstHardware); // a launch comes before its task

            const LoadResult l = loadSession(r.rankDirs.at(0));
            QVERIFY2(l.session, l.error.c_str());
            const Profile& p = *l.session->ranks.at(0);
            const std::vector<FlowRow> loaded = loadedFlows(p);
            const std::vector<FlowRow> written = writtenFlows(w);
            // 3 flows per device task: enqueue -> dequeue, launch -> task, cpu_op -> task
            QCOMPARE(written.size(), static_cast<std::size_t>(3 * r.deviceTasks));
            QCOMPARE(loaded.size(), written.size());
            for (std::size_t i = 0; i < loaded.size(); ++i)
                if (loaded[i] != written[i])
                    QFAIL(qPrintable(QString("%1: flow %2 %3 differs from the file")
                                         .arg(QString::fromStdString(shape))
                                         .arg(QString::fromStdString(std::get<0>(written[i])))
                                         .arg(QString::fromStdString(std::get<1>(written[i])))));
            for (const auto& row : loaded) {
                QVERIFY(std::get<5>(row) != "(none)"); // each end on the slice it was written at
                QVERIFY(std::get<9>(row) != "(none)");
            }
            QCOMPARE(diagnosticCount(p, "flow ends (f) without a start (s) ignored"), std::uint64_t{0});
            QCOMPARE(diagnosticCount(p, "flow starts (s/t) without an end (f) ignored"), std::uint64_t{0});
            if (first.empty()) {
                first = loaded;
                firstSlices = p.slices.size();
            } else {
                QVERIFY(loaded == first);
                QCOMPARE(p.slices.size(), firstSlices);
            }
        }
    }

    // The flow table alone, on ids in no order: the same 3,000 flows (numbers, numbers shifted
    // left by 32 as torch_npu writes HostToDevice ids, and text ids) written interleaved, every
    // s first, and every f first, each block shuffled. Each flow i joins "launch i" to "task i".
    void flowTablePairsIdsInAnyOrder()
    {
        constexpr int kFlows = 3000;
        std::mt19937_64 rng(11);
        std::vector<int> perm(kFlows);
        for (int i = 0; i < kFlows; ++i)
            perm[i] = i;
        std::shuffle(perm.begin(), perm.end(), rng);
        auto id = [&](int i) {
            const auto k = static_cast<std::uint64_t>(perm[i]) + 7;
            return i % 3 == 0 ? nlohmann::json(k) : i % 3 == 1 ? nlohmann::json(std::to_string(k << 32))
                                                                : nlohmann::json("0x" + std::to_string(k));
        };
        auto slices = [&](nlohmann::json& out) {
            for (int i = 0; i < kFlows; ++i) {
                out.push_back({{"ph", "X"}, {"name", "launch " + std::to_string(i)}, {"pid", 1}, {"tid", 1},
                               {"ts", i * 10}, {"dur", 5}});
                out.push_back({{"ph", "X"}, {"name", "task " + std::to_string(i)}, {"pid", 2}, {"tid", 7},
                               {"ts", i * 10 + 3}, {"dur", 4}});
            }
        };
        auto end = [&](int i, bool start) {
            nlohmann::json e = {{"ph", start ? "s" : "f"}, {"cat", "HostToDevice"}, {"id", id(i)},
                                {"name", "HostToDevice"}, {"pid", start ? 1 : 2}, {"tid", start ? 1 : 7},
                                {"ts", i * 10 + (start ? 1 : 4)}};
            if (!start)
                e["bp"] = "e";
            return e;
        };
        QTemporaryDir tmp;
        std::vector<FlowRow> first;
        for (const char* order : {"interleaved", "starts-first", "ends-first"}) {
            nlohmann::json events = nlohmann::json::array();
            slices(events);
            std::vector<int> a(perm), b(perm);
            std::shuffle(a.begin(), a.end(), rng);
            std::shuffle(b.begin(), b.end(), rng);
            const std::string o = order;
            for (int k = 0; k < kFlows; ++k) {
                if (o == "interleaved") {
                    events.push_back(end(k, true));
                    events.push_back(end(k, false));
                } else {
                    events.push_back(end(a[k], o == "starts-first"));
                }
            }
            for (int k = 0; o != "interleaved" && k < kFlows; ++k)
                events.push_back(end(b[k], o != "starts-first"));
            const std::string path = tmp.path().toStdString() + "/" + o + ".json";
            std::ofstream(path) << events.dump();
            const LoadResult l = loadSession(path);
            QVERIFY2(l.session, l.error.c_str());
            const Profile& p = *l.session->ranks.at(0);
            QCOMPARE(p.flows.size(), std::size_t{kFlows});
            const std::vector<FlowRow> rows = loadedFlows(p);
            for (const FlowRow& r : rows) {
                // "launch i" -> "task i", i read back from the names
                const std::string& src = std::get<5>(r);
                const std::string& dst = std::get<9>(r);
                QVERIFY2(src.starts_with("launch ") && dst == "task " + src.substr(7), (src + " -> " + dst).c_str());
                const int i = std::stoi(src.substr(7));
                QCOMPARE(QString::fromStdString(std::get<1>(r)), QString::fromStdString(
                                                                     id(i).is_string() ? id(i).get<std::string>()
                                                                                       : id(i).dump()));
                QCOMPARE(std::get<4>(r), std::int64_t{i} * 10000);
                QCOMPARE(std::get<8>(r), std::int64_t{i} * 10000 + 3000);
            }
            QCOMPARE(diagnosticCount(p, "flow ends (f) without a start (s) ignored"), std::uint64_t{0});
            if (first.empty())
                first = rows;
            else
                QVERIFY(rows == first);
        }
    }

    // device-heavy: 3 device tasks per cpu_op, Overlap Analysis at full density (a Computing and
    // a Free slice per task); level1-dense: 8 per op, process-ordered, near the held-out
    // export's 949 k device tasks per 1.2 GB, about twice the real shape's density.
    void deviceHeavyMixes()
    {
        QTemporaryDir tmp;
        std::map<std::string, double> perGb;
        for (const std::string shape : {"real", "device-heavy", "level1-dense"}) {
            const synth::SynthResult r = generate(tmp.path() + "/" + QString::fromStdString(shape), shape);
            QVERIFY2(r.ok, r.error.c_str());
            const Written w = readWritten(traceOf(r.rankDirs.at(0)));
            QCOMPARE(w.deviceTasks, static_cast<std::size_t>(r.deviceTasks));
            const double perOp = static_cast<double>(w.deviceTasks) / static_cast<double>(w.cpuOps);
            const double lanes = static_cast<double>(w.overlapSlices) / static_cast<double>(w.deviceTasks);
            perGb[shape] = static_cast<double>(w.deviceTasks) / static_cast<double>(w.bytes) * 1.2e9;
            qInfo("%s: %zu device tasks, %zu cpu_op, %.2f per op, %.2f Overlap Analysis slices per task, "
                  "%.0f k device tasks per 1.2 GB",
                  shape.c_str(), w.deviceTasks, w.cpuOps, perOp, lanes, perGb[shape] / 1e3);
            QVERIFY(lanes > 1.9);
            if (shape == "real")
                QCOMPARE(perOp, 1.0);
            else
                QVERIFY(perOp > 2.9);
            // every flow the file wrote is paired on load
            std::size_t flows = 0;
            for (const auto& [key, ends] : w.flows)
                flows += ends.first.seen && ends.second.seen ? 1 : 0;
            QCOMPARE(flows, w.flows.size());
            const LoadResult l = loadSession(r.rankDirs.at(0));
            QVERIFY2(l.session, l.error.c_str());
            QCOMPARE(l.session->ranks.at(0)->flows.size(), flows);
            if (shape != "real")
                QCOMPARE(flows, static_cast<std::size_t>(r.deviceTasks + 2 * w.cpuOps)); // a launch per task
        }
        QVERIFY(perGb["device-heavy"] > 1.4 * perGb["real"]);
        QVERIFY(perGb["level1-dense"] > 1.8 * perGb["real"]);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestSynthShapes)

} // namespace test_synth_shapes

#include "test_synth_shapes.moc"
