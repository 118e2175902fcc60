// `npuscope whatif` on a generated profile: its JSON fields; no change predicts every measured
// step exactly and its bound-by is `analyze --metric critical_path`'s, step by step; the shares
// add up to the replayed span of the median complete step; a scaled op type predicts a shorter
// step; per-step rows match the generator's steps; bad options are usage errors.
#include "test_main.h"
#include "cli_run.h"
#include "model/synth/synth.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <map>

#include <QTemporaryDir>
#include <QtTest>

namespace test_cli_whatif {

using nlohmann::json;

class TestCliWhatIf : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.path() + "/run";
        npuscope::synth::SynthOptions o;
        o.steps = 4;
        m_truth = npuscope::synth::synthesize(m_path.toStdString(), o);
        QVERIFY(m_truth.ok);
    }

    void noChangeIsTheMeasuredStep()
    {
        const CliRun r = runCli({"whatif", m_path, "--format", "json", "--no-cache"});
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out.toStdString());
        for (const char* key : {"measured_step_ns", "predicted_step_ns", "per_step", "bound_by", "changes", "notes"})
            QVERIFY2(j.contains(key), key);
        QCOMPARE(j["predicted_step_ns"].get<std::int64_t>(), j["measured_step_ns"].get<std::int64_t>());
        QCOMPARE(j["per_step"].size(), std::size_t(m_truth.steps));
        double mean = 0;
        for (const auto& s : j["per_step"]) {
            QCOMPARE(s["predicted_ns"].get<std::int64_t>(), s["measured_ns"].get<std::int64_t>());
            QVERIFY(s.contains("step"));
            mean += s["measured_ns"].get<double>() / static_cast<double>(j["per_step"].size());
        }
        // The measured steps are the generator's (its mean step, to the written µs).
        QVERIFY(std::abs(mean - m_truth.stepMs * 1e6) <= 1e-3 * m_truth.stepMs * 1e6);
        QVERIFY(j["changes"].empty());
        checkShares(j);
        // Without changes each step's path is the measured critical path's, kind by kind.
        const CliRun cp = runCli(
            {"analyze", "--import", m_path, "--metric", "critical_path", "--format", "json", "--no-cache"});
        QCOMPARE(cp.code, 0);
        const json c = json::parse(cp.out.toStdString());
        QCOMPARE(c["steps"].size(), j["per_step"].size());
        for (std::size_t i = 0; i < c["steps"].size(); ++i) {
            const json& a = c["steps"][i];
            const json& b = j["per_step"][i];
            QCOMPARE(b["step"].get<std::string>(), a["step"].get<std::string>());
            QCOMPARE(b["replayed_span_ns"].get<std::int64_t>(), a["length_ns"].get<std::int64_t>());
            QCOMPARE(b["bound_by"].size(), a["bound_by"].size());
            for (const auto& [kind, ns] : a["bound_by"].items())
                QCOMPARE(b["bound_by"][kind].get<std::int64_t>(), ns.get<std::int64_t>());
        }
        m_noChangeSpan = j["bound_by_span_ns"].get<std::int64_t>();
    }

    void scaledStepIsShorter()
    {
        const CliRun r = runCli({"whatif", m_path, "--scale", "MatMulV2=0.5", "--overlap-comm", "--format", "json"});
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out.toStdString());
        QVERIFY(j["predicted_step_ns"].get<double>() < j["measured_step_ns"].get<double>());
        QCOMPARE(j["changes"].size(), std::size_t(2));
        checkShares(j);
        QVERIFY(m_noChangeSpan > 0);
        QVERIFY(j["bound_by_span_ns"].get<std::int64_t>() < m_noChangeSpan);
        const CliRun text = runCli({"whatif", m_path, "--remove", "dependency"});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains("predicted step"));
        QVERIFY(text.out.contains("bound by (replayed critical path of the median complete step"));
        for (const char* kind : {"host_python", "launch", "compute", "comm", "comm_wait", "idle"})
            QVERIFY2(text.out.contains(QString("\n  ") + kind + " "), kind);
    }

    void usageErrors()
    {
        QCOMPARE(runCli({"whatif", m_path, "--scale", "MatMulV2"}).code, 2);
        QCOMPARE(runCli({"whatif", m_path, "--scale", "MatMulV2=-1"}).code, 2);
        QCOMPARE(runCli({"whatif", m_path, "--remove", "nonsense"}).code, 2);
        QCOMPARE(runCli({"whatif"}).code, 2);
        QCOMPARE(runCli({"whatif", m_dir.path() + "/missing"}).code, 1);
        const CliRun help = runCli({"--help"});
        QVERIFY(help.out.contains("npuscope whatif"));
    }

private:
    // The shares: the critical path's six kinds, adding up to the replayed span of the median
    // complete step (the lower middle of an even count), each step's to its own span, the idle
    // split by cause to the idle share.
    static void checkShares(const json& j)
    {
        QCOMPARE(j["bound_by_of"].get<std::string>(), std::string("median complete step"));
        QCOMPARE(j["bound_by"].size(), std::size_t(6));
        std::int64_t total = 0, idle = 0;
        for (const char* kind : {"host_python", "launch", "compute", "comm", "comm_wait", "idle"}) {
            QVERIFY2(j["bound_by"].contains(kind), kind);
            total += j["bound_by"][kind].get<std::int64_t>();
        }
        QCOMPARE(total, j["bound_by_span_ns"].get<std::int64_t>());
        for (const auto& [cause, ns] : j["idle_by_cause"].items())
            idle += ns.get<std::int64_t>();
        QCOMPARE(idle, j["bound_by"]["idle"].get<std::int64_t>());
        // the heaviest labels on the path: largest first, none more than its kind's share, and
        // together never more than any kind holds
        QVERIFY(!j["path_top"].empty());
        std::map<std::string, std::int64_t> byKind;
        std::int64_t previous = std::numeric_limits<std::int64_t>::max();
        for (const auto& t : j["path_top"]) {
            const std::int64_t ns = t["ns"].get<std::int64_t>();
            QVERIFY(ns <= previous);
            previous = ns;
            QVERIFY(t["segments"].get<int>() >= 1);
            byKind[t["kind"].get<std::string>()] += ns;
        }
        for (const auto& [kind, ns] : byKind)
            QVERIFY2(ns <= j["bound_by"][kind].get<std::int64_t>() + 1, kind.c_str());
        std::vector<std::pair<std::int64_t, std::string>> spans;
        for (const auto& s : j["per_step"]) {
            std::int64_t sum = 0;
            for (const auto& [kind, ns] : s["bound_by"].items())
                sum += ns.get<std::int64_t>();
            QCOMPARE(sum, s["replayed_span_ns"].get<std::int64_t>());
            if (!s["partial"].get<bool>())
                spans.emplace_back(s["replayed_span_ns"].get<std::int64_t>(), s["step"].get<std::string>());
        }
        QVERIFY(!spans.empty());
        std::stable_sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        QCOMPARE(j["bound_by_span_ns"].get<std::int64_t>(), spans[(spans.size() - 1) / 2].first);
    }

    QTemporaryDir m_dir;
    std::int64_t m_noChangeSpan = 0;
    QString m_path;
    npuscope::synth::SynthResult m_truth;
};

NPUSCOPE_TEST_GUILESS_MAIN(TestCliWhatIf)

} // namespace test_cli_whatif

#include "test_cli_whatif.moc"
