// The action plan by replay on generated runs, against the generator's own truths: the plan on
// llama2-baseline predicts the measured step of llama2-optimized (same seed) within ±20 %; on
// llama2-optimized it promises no phantom gains (its step after the plan ≥ 0.8 T); and the
// replay of MatMulV2 × 0.5 predicts the regenerated run whose MatMulV2 tasks take half as long
// (synth speedups) within ±5 %.
#include "test_main.h"
#include "advisor/cluster_summary_advice.h"
#include "model/analysis/whatif.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QTemporaryDir>
#include <QtTest>

#include <string>

namespace test_plan_replay {

using namespace npuscope;

namespace {

struct Run {
    synth::SynthResult truth;
    SessionPtr session;
};

Run generate(const std::string& dir, const std::string& scenario, std::uint64_t seed, int steps,
             std::vector<std::pair<std::string, double>> speedups = {})
{
    synth::SynthOptions o;
    o.scenario = scenario;
    o.seed = seed;
    o.steps = steps;
    o.speedups = std::move(speedups);
    Run r;
    r.truth = synth::synthesize(dir, o);
    if (r.truth.ok)
        r.session = loadSession(dir).session;
    return r;
}

} // namespace

class TestPlanReplay : public QObject {
    Q_OBJECT
private slots:
    void baselinePlanPredictsOptimized_data()
    {
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("steps");
        QTest::newRow("seed 1") << 1 << 3;
        QTest::newRow("seed 2") << 2 << 3;
        QTest::newRow("seed 3") << 3 << 3;
        QTest::newRow("seed 1, 5 steps") << 1 << 5;
    }
    void baselinePlanPredictsOptimized()
    {
        QFETCH(int, seed);
        QFETCH(int, steps);
        const std::string root = m_dir.path().toStdString() + "/s" + std::to_string(seed) + "_" + std::to_string(steps);
        const Run base = generate(root + "/baseline", "llama2-baseline", static_cast<std::uint64_t>(seed), steps);
        const Run opt = generate(root + "/optimized", "llama2-optimized", static_cast<std::uint64_t>(seed), steps);
        QVERIFY(base.truth.ok && base.session && !base.session->ranks.empty());
        QVERIFY(opt.truth.ok && opt.session && !opt.session->ranks.empty());
        const auto th = advisor::Thresholds::load({});
        const advisor::AdvisorReport rb = advisor::adviseSession(*base.session, th);
        const advisor::AdvisorReport ro = advisor::adviseSession(*opt.session, th);
        const double optimizedT = opt.truth.stepMs * 1e6; // the generator's measured step
        QVERIFY(optimizedT > 0);
        const double err = (rb.planStepNs - optimizedT) / optimizedT;
        QVERIFY2(std::abs(err) <= 0.20, (std::to_string(rb.planStepNs) + " vs " + std::to_string(optimizedT)).c_str());
        // No phantom gains on the already optimized run.
        QVERIFY2(ro.planStepNs >= 0.8 * ro.T, (std::to_string(ro.planStepNs) + " vs T " + std::to_string(ro.T)).c_str());
        // The plan's gains add up to T minus its step.
        double sum = 0;
        for (const auto& p : rb.plan)
            sum += p.gain.nsPerStep;
        QVERIFY(std::abs(rb.planStepNs - (rb.T - sum)) <= 1e-6 * rb.T);
        // No fusion suggestion fuses two GEMMs.
        for (const auto& f : rb.findings)
            if (f.rule == "CMP-FUSE" && f.status == advisor::Status::Fired)
                QVERIFY2(f.title.find("MatMulV2→MatMulV2") == std::string::npos, f.title.c_str());
    }

    void scaleMatchesRegeneratedSpeedup()
    {
        const std::string root = m_dir.path().toStdString() + "/speedup";
        const Run run = generate(root + "/plain", "llama2-baseline", 1, 3);
        const Run fast = generate(root + "/fast", "llama2-baseline", 1, 3, {{"MatMulV2", 2.0}});
        QVERIFY(run.truth.ok && run.session && !run.session->ranks.empty());
        QVERIFY(fast.truth.ok);
        WhatIfChanges c;
        c.scaleTypes.emplace_back("MatMulV2", 0.5);
        const WhatIfResult r = replayWhatIf(*run.session->ranks.front(), c);
        QVERIFY2(r.ok, r.error.c_str());
        const double actual = fast.truth.stepMs * 1e6;
        QVERIFY2(std::abs(r.predictedStepNs - actual) <= 0.05 * actual,
                 (std::to_string(r.predictedStepNs) + " vs " + std::to_string(actual)).c_str());
        // And the replay moved: the generator's plain step is far from the sped-up one.
        QVERIFY(run.truth.stepMs > fast.truth.stepMs * 1.1);
    }

private:
    QTemporaryDir m_dir;
};

NPUSCOPE_TEST_APPLESS_MAIN(TestPlanReplay)

} // namespace test_plan_replay

#include "test_plan_replay.moc"
