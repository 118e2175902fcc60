// The action plan replays a sample of a long run's steps: on a generated run of more complete
// steps than kPlanSampleSteps, the model covers that many of them, the i-th of K being complete
// step i·N/K of the N the step breakdown counts; the sampled plan's estimated step (and each
// replay it makes) stays within 2 % of the same plan replayed over every step (buildPlanByReplay
// without a limit), and its formulas say "replayed over K of N complete steps". A run of
// kPlanSampleSteps steps or fewer is not sampled: the plan is the same with the limit or without.
#include "test_main.h"
#include "advisor/cluster_summary_advice.h"
#include "advisor/rule_context.h"
#include "model/analysis/whatif.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <string>
#include <vector>

namespace test_plan_sampling {

using namespace npuscope;
using namespace npuscope::advisor;

namespace {

SessionPtr generate(const std::string& dir, int steps)
{
    synth::SynthOptions o;
    o.seed = 7;
    o.steps = steps;
    const synth::SynthResult r = synth::synthesize(dir, o);
    if (!r.ok || r.steps != steps)
        return nullptr;
    return loadSession(dir).session;
}

struct Plans {
    AdvisorReport all, sampled;
};

// The session's report, its plan built again over every step and over the sample.
Plans plans(const Session& s, std::vector<ProfileFacts>& facts)
{
    for (const auto& rank : s.ranks)
        facts.emplace_back(*rank);
    const AdvisorReport rep = adviseSession(s, Thresholds::load({}));
    Plans out{rep, rep};
    std::vector<ClaimAtom> a = claimAtoms(out.all, facts), b = claimAtoms(out.sampled, facts);
    const bool okAll = buildPlanByReplay(out.all, facts, a, 0);
    const bool okSampled = buildPlanByReplay(out.sampled, facts, b, kPlanSampleSteps);
    if (!okAll || !okSampled)
        out.all.plan.clear();
    return out;
}

bool mentionsSample(const AdvisorReport& r)
{
    for (const auto& p : r.plan)
        if (p.gain.formula.find("replayed over ") != std::string::npos)
            return true;
    return false;
}

double within(double a, double b)
{
    return std::abs(a - b) / std::max(std::abs(b), 1.0);
}

} // namespace

class TestPlanSampling : public QObject {
    Q_OBJECT
private slots:
    void longRunIsSampled()
    {
        const int steps = static_cast<int>(2 * kPlanSampleSteps + 11);
        const SessionPtr s = generate(m_dir.path().toStdString() + "/long", steps);
        QVERIFY(s && s->ranks.size() == 1);
        std::vector<ProfileFacts> facts;
        const Plans pl = plans(*s, facts);
        QVERIFY(!pl.all.plan.empty());
        // The complete steps as the step breakdown counts them, and the evenly chosen ones.
        std::vector<std::string> complete;
        for (const RankStep& st : facts[0].steps)
            if (!st.partial)
                complete.push_back(st.name);
        const std::size_t n = complete.size(), k = kPlanSampleSteps;
        QVERIFY(n > k);
        WhatIfOptions o;
        o.maxSteps = k;
        o.overlap = &facts[0].overlap;
        const WhatIfModel sampled(*s->ranks.front(), o), all(*s->ranks.front());
        QVERIFY(sampled.sampled() && !all.sampled());
        QCOMPARE(sampled.replayedSteps(), k);
        QCOMPARE(sampled.completeSteps(), n);
        const WhatIfResult r = sampled.run({});
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(r.steps.size(), k);
        for (std::size_t i = 0; i < k; ++i) {
            QCOMPARE(r.steps[i].name, complete[i * n / k]);
            QVERIFY(!r.steps[i].partial);
            QCOMPARE(r.steps[i].predictedNs, r.steps[i].measuredNs); // no change: as measured
        }
        // A replay with a change: the sample's median within 2 % of every step's.
        WhatIfChanges half;
        half.scaleTypes.emplace_back("MatMulV2", 0.5);
        const WhatIfResult hs = sampled.run(half), ha = all.run(half);
        QVERIFY(hs.ok && ha.ok && ha.steps.size() == static_cast<std::size_t>(steps));
        QVERIFY(ha.predictedStepNs < 0.95 * ha.measuredStepNs); // the change moves the step
        QVERIFY2(within(hs.predictedStepNs, ha.predictedStepNs) <= 0.02,
                 (std::to_string(hs.predictedStepNs) + " vs " + std::to_string(ha.predictedStepNs)).c_str());
        // The plan: the estimated step within 2 % of the plan over every step; the sample said.
        QVERIFY2(within(pl.sampled.planStepNs, pl.all.planStepNs) <= 0.02,
                 (std::to_string(pl.sampled.planStepNs) + " vs " + std::to_string(pl.all.planStepNs)).c_str());
        QVERIFY(!mentionsSample(pl.all));
        const std::string said = "replayed over " + std::to_string(k) + " of " + std::to_string(n) + " complete steps";
        bool saidIt = false;
        for (const auto& p : pl.sampled.plan)
            saidIt = saidIt || p.gain.formula.find(said) != std::string::npos;
        QVERIFY2(saidIt, pl.sampled.plan.front().gain.formula.c_str());
    }

    void shortRunIsNotSampled()
    {
        const int steps = 5;
        const SessionPtr s = generate(m_dir.path().toStdString() + "/short", steps);
        QVERIFY(s && s->ranks.size() == 1);
        std::vector<ProfileFacts> facts;
        const Plans pl = plans(*s, facts);
        QVERIFY(!pl.all.plan.empty());
        WhatIfOptions o;
        o.maxSteps = kPlanSampleSteps;
        const WhatIfModel m(*s->ranks.front(), o);
        QVERIFY(!m.sampled());
        QCOMPARE(m.replayedSteps(), static_cast<std::size_t>(steps));
        QCOMPARE(pl.sampled.planStepNs, pl.all.planStepNs);
        QCOMPARE(pl.sampled.plan.size(), pl.all.plan.size());
        for (std::size_t i = 0; i < pl.all.plan.size(); ++i) {
            QCOMPARE(pl.sampled.plan[i].findingId, pl.all.plan[i].findingId);
            QCOMPARE(pl.sampled.plan[i].gain.nsPerStep, pl.all.plan[i].gain.nsPerStep);
            QCOMPARE(pl.sampled.plan[i].gain.formula, pl.all.plan[i].gain.formula);
        }
        QVERIFY(!mentionsSample(pl.sampled));
    }

private:
    QTemporaryDir m_dir;
};

NPUSCOPE_TEST_APPLESS_MAIN(TestPlanSampling)

} // namespace test_plan_sampling

#include "test_plan_sampling.moc"
