// CMP-AFFINITY: PyTorch op sequences that a fused torch_npu API replaces. On the real level-1
// sample (a ResNet trained with torch.optim.SGD) it names torch_npu.optim.NpuFusedSGD, as
// msprof-analyze does ("found 1 apis to be replaced"), with the device time the step launched,
// summed here from the trace's own flows; on hand-built host threads it finds an RMSNorm chain
// among nested ops and leaves other sequences alone.
#include "test_main.h"
#include "advisor_fixture.h"

#include "model/formats/loader.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>

namespace test_rules_affinity {

using namespace npuscope;
using namespace fixture;
using nlohmann::json;

namespace {

const std::string kLevel1 = std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";

TimeNs tsOf(const json& e)
{
    // ts is a quoted decimal µs string ("1736408883688177.930"): to ns without going through a double.
    const std::string s = e["ts"].is_string() ? e["ts"].get<std::string>() : e["ts"].dump();
    const auto dot = s.find('.');
    std::string frac = dot == std::string::npos ? "" : s.substr(dot + 1);
    frac.resize(3, '0');
    return std::stoll(s.substr(0, dot)) * 1000 + std::stoll(frac);
}

// A host thread of aten ops laid end to end from t0 (µs), each 10 µs; returns the track.
TrackId hostThread(Profile& p, const std::vector<std::string>& ops, double t0)
{
    const TrackId track(static_cast<std::uint32_t>(p.tracks.size()));
    Track t;
    t.kind = TrackKind::Python;
    t.pid = 100;
    t.tid = 100 + track.v;
    t.process = p.strings.intern("Python");
    t.thread = p.strings.intern("Thread " + std::to_string(t.tid));
    p.tracks.push_back(t);
    double at = t0;
    for (const auto& op : ops) {
        p.slices.add(us(at), us(10), p.strings.intern(op), p.strings.intern("cpu_op"), track);
        // Each aten op calls others inside it (as PyTorch's dispatch does): they are not top level.
        p.slices.add(us(at + 1), us(3), p.strings.intern("aten::empty"), p.strings.intern("cpu_op"), track);
        at += 12;
    }
    return track;
}

} // namespace

class TestRulesAffinity : public QObject {
    Q_OBJECT

private slots:
    void realLevel1NamesTheFusedOptimizer()
    {
        const LoadResult lr = loadSession(kLevel1);
        QVERIFY2(lr.session && lr.session->ranks.size() == 1, lr.error.c_str());
        const advisor::AdvisorReport rep = advisor::runAdvisor(*lr.session, defaults());
        const advisor::Finding* f = find(rep, "CMP-AFFINITY/torch_npu.optim.NpuFusedSGD");
        QVERIFY(f);
        QCOMPARE(f->status, advisor::Status::Fired);
        QVERIFY2(f->title.find(", once,") != std::string::npos, f->title.c_str());
        QCOMPARE(f->evidence.size(), std::size_t(1));
        QCOMPARE(f->evidence[0].at.op, std::string("Optimizer.step#SGD.step"));

        // Independently: the step's slice, its async_npu flows out of the same thread while it
        // runs, and the device tasks they end in (a flow end binds to the task enclosing it).
        std::ifstream in(kLevel1 + "/ASCEND_PROFILER_OUTPUT/trace_view.json");
        const json trace = json::parse(in);
        const json* step = nullptr;
        for (const auto& e : trace)
            if (e.value("ph", "") == "X" && e.value("name", "") == "Optimizer.step#SGD.step")
                step = &e;
        QVERIFY(step);
        const TimeNs b = tsOf(*step), end = b + static_cast<TimeNs>(std::llround((*step)["dur"].get<double>() * 1e3));
        std::map<std::string, const json*> starts, finishes;
        for (const auto& e : trace)
            if (e.value("cat", "") == "async_npu")
                (e.value("ph", "") == "s" ? starts : finishes)[e["id"].dump()] = &e;
        TimeNs device = 0;
        int launches = 0;
        for (const auto& [id, s] : starts) {
            if ((*s)["pid"] != (*step)["pid"] || (*s)["tid"] != (*step)["tid"] || tsOf(*s) < b || tsOf(*s) >= end)
                continue;
            const json* fin = finishes.at(id);
            for (const auto& e : trace)
                if (e.value("ph", "") == "X" && e["pid"] == (*fin)["pid"] && e["tid"] == (*fin)["tid"] && tsOf(e) <= tsOf(*fin)
                    && tsOf(*fin) < tsOf(e) + static_cast<TimeNs>(std::llround(e["dur"].get<double>() * 1e3))) {
                    device += static_cast<TimeNs>(std::llround(e["dur"].get<double>() * 1e3));
                    ++launches;
                    break;
                }
        }
        QVERIFY(launches > 0);
        QCOMPARE(f->evidence[0].metrics[0].name, std::string("device"));
        QVERIFY2(std::abs(f->evidence[0].metrics[0].value - static_cast<double>(device) / 1e3) < 0.01,
                 qPrintable(QString::number(f->evidence[0].metrics[0].value) + " vs " + QString::number(device / 1e3)));
        QVERIFY(f->gain.estimated);
        // The cost is the device time per step, the gain half of it.
        const double perStep = static_cast<double>(device) / std::max(1, rep.summary.steps);
        QVERIFY(std::abs(static_cast<double>(f->costNs) - perStep) <= 1);
        QVERIFY(std::abs(f->gain.nsPerStep - 0.5 * perStep) < 1);
        // The user's frame of the call stack, not the framework's.
        QVERIFY2(f->evidence[0].at.row.find("main.py") != std::string::npos, f->evidence[0].at.row.c_str());
    }

    void rmsNormChainAmongNestedOps()
    {
        Builder b;
        Profile& p = *b.p;
        hostThread(p, {"aten::to", "aten::pow", "aten::mean", "aten::add", "aten::rsqrt", "aten::mul", "aten::mul",
                       "aten::linear", "aten::pow", "aten::mean", "aten::add", "aten::rsqrt", "aten::mul", "aten::type_as"},
                   0);
        // Another thread: rsqrt then add is not the chain.
        hostThread(p, {"aten::rsqrt", "aten::add", "aten::matmul"}, 0);
        b.step(1, 0, 0);
        const Session s = session({b.p});
        const advisor::AdvisorReport rep = advisor::runAdvisor(s, defaults());
        const advisor::Finding* f = find(rep, "CMP-AFFINITY/torch_npu.npu_rms_norm");
        QVERIFY(f);
        QCOMPARE(f->status, advisor::Status::Fired);
        QCOMPARE(f->evidence.size(), std::size_t(2));
        std::set<std::string> chains;
        for (const auto& e : f->evidence)
            chains.insert(e.at.op);
        QCOMPARE(chains, (std::set<std::string>{"pow→mean→add→rsqrt→mul", "pow→mean→add→rsqrt→mul→type_as"}));
        QVERIFY(f->title.find("2 times") != std::string::npos);
        QVERIFY(f->title.find("(+1 variants)") != std::string::npos);
        // No flows: the host time, and no gain.
        QVERIFY(!f->gain.estimated);
        QCOMPARE(f->costNs, us(5 * 12 - 2) + us(6 * 12 - 2));
        QVERIFY(!find(rep, "CMP-AFFINITY/torch_npu.npu_swiglu"));
    }

    void notCheckedWithoutHostOps()
    {
        Builder b;
        b.kernel("MatMul", "MatMul", "AI_CORE", 0, 100);
        b.step(1, 0, 0);
        const Session s = session({b.p});
        const advisor::AdvisorReport rep = advisor::runAdvisor(s, defaults());
        const advisor::Finding* f = find(rep, "CMP-AFFINITY");
        QVERIFY(f);
        QCOMPARE(f->status, advisor::Status::NotChecked);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestRulesAffinity)

} // namespace test_rules_affinity

#include "test_rules_affinity.moc"
