// The report as a whole: shape variants merged into one finding per op type or op-type
// sequence (no two findings with one title), rules demoted below min_share instead of passing,
// and the action plan whose gains add up (Σ gains ≤ T, no device task claimed twice), on
// hand-built profiles, a generated one and the real samples.
#include "test_main.h"
#include "advisor_fixture.h"

#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

namespace test_advisor_report {

using namespace npuscope;
using namespace npuscope::advisor;
using fixture::Builder;

namespace {

const std::string kSamples = NPUSCOPE_SAMPLES;

// The real samples the report checks run on: torch_npu text levels 0–2, a db level-0 rank,
// msprof's PROF_* of an ACL app, and the mstt kernel_details.csv fixture.
std::vector<std::string> realSamples()
{
    return {kSamples + "/msinsight/test/data/pytorch/text/level0/rank0_ascend_pt",
            kSamples + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt",
            kSamples + "/msinsight/test/data/pytorch/text/level2/rank0_ascend_pt",
            kSamples + "/msinsight/test/data/pytorch/text/level1",
            kSamples + "/msinsight/test/data/pytorch/db/level0/rank0_ascend_pt",
            kSamples + "/ascend-msprof-skill/tests/fixtures/tilelang_design_feedback/candidate_comparability/"
                       "workload_mismatch_candidate/reports/app/PROF_000001_20260606121448940_RGBHHJGBAJGRQEOB",
            kSamples + "/msprof-analyze/test/ut/advisor/advisor_backend/compute_advice"};
}

AdvisorReport adviseOn(const std::string& path)
{
    const LoadResult lr = loadSession(path);
    if (!lr.session)
        return {};
    return runAdvisor(*lr.session, fixture::defaults());
}

// The advisor on a generated run: its first rank, or with `allRanks` the whole run.
AdvisorReport adviseSynth(const QString& dir, const char* scenario, bool allRanks = false)
{
    synth::SynthOptions o;
    o.scenario = scenario;
    o.steps = 2;
    const synth::SynthResult g = synth::synthesize(dir.toStdString(), o);
    if (!g.ok || g.rankDirs.empty())
        return {};
    const LoadResult lr = loadSession(allRanks ? dir.toStdString() : g.rankDirs.front());
    if (!lr.session)
        return {};
    return runAdvisor(*lr.session, fixture::defaults());
}

// No two fired findings share a title; a merged finding ("n shape variants") has one variant
// row per variant, and its cost and gain are the sums of theirs. Returns the merged count.
int checkMerged(const AdvisorReport& r, const std::string& where)
{
    std::set<std::string> titles;
    int merged = 0;
    for (const Finding* f : r.fired()) {
        if (!titles.insert(f->title).second)
            qWarning("%s: duplicate title %s", where.c_str(), f->title.c_str());
        if (f->title.find(" shape variants, ") == std::string::npos)
            continue;
        ++merged;
        const std::size_t n = std::stoul(f->title.substr(f->title.rfind(": ") + 2));
        std::size_t rows = 0;
        double cost = 0, gain = 0;
        for (const Evidence& e : f->evidence)
            if (e.at.row.rfind("variant: ", 0) == 0) {
                ++rows;
                cost += e.metrics.at(0).value * 1e6;
                if (!isMissing(e.metrics.at(1).value))
                    gain += e.metrics.at(1).value * 1e6;
            }
        if (rows != n || std::abs(cost - static_cast<double>(f->costNs)) > n
            || (f->gain.estimated && std::abs(gain - f->gain.nsPerStep) > 1e-6 * std::max(1.0, gain)))
            qWarning("%s: %s: %zu variant rows, cost %f vs %lld, gain %f vs %f", where.c_str(), f->id.c_str(), rows,
                     cost, static_cast<long long>(f->costNs), gain, f->gain.nsPerStep);
        if (rows != n)
            return -1;
        if (f->gain.estimated && std::abs(gain - f->gain.nsPerStep) > 1e-6 * std::max(1.0, gain))
            return -1;
    }
    return titles.size() == r.fired().size() ? merged : -1;
}

// The plan: 1–7 actions with estimated gains, Σ gains ≤ T, no claim key in two actions, every
// action linked from its finding, and the estimated step T − Σ gains.
bool checkPlan(const AdvisorReport& r, const std::string& where)
{
    std::set<std::uint64_t> claimed;
    double sum = 0;
    bool ok = r.plan.size() <= 7;
    for (std::size_t i = 0; i < r.plan.size(); ++i) {
        const PlanItem& p = r.plan[i];
        ok = ok && p.gain.estimated && p.gain.nsPerStep > 0;
        sum += p.gain.nsPerStep;
        for (std::uint64_t k : p.claimed)
            if (!claimed.insert(k).second) {
                qWarning("%s: claim %llu twice", where.c_str(), static_cast<unsigned long long>(k));
                ok = false;
            }
        bool linked = false;
        for (const Finding& f : r.findings)
            linked = linked || (f.id == p.findingId && f.planItem == static_cast<int>(i));
        ok = ok && linked;
    }
    if (r.T > 0) {
        ok = ok && sum <= r.T * (1 + 1e-9);
        ok = ok && std::abs(r.planStepNs - (r.T - sum)) <= 1e-6 * r.T;
    }
    if (!ok)
        qWarning("%s: plan of %zu actions, Σ %f, T %f", where.c_str(), r.plan.size(), sum, r.T);
    return ok;
}

} // namespace

class TestAdvisorReport : public QObject {
    Q_OBJECT

private slots:
    // Two memory-bound MatMulV2 shapes (T = 100 ms, mac 0.35, mte2 0.86, fp16: gain =
    // Σdur × 0.86 × 0.3): one finding with a row per shape, cost 10 + 5 ms, gain
    // 10 × 0.258 + 5 × 0.258 = 3.87 ms.
    void cubeShapesMergeIntoOneFinding()
    {
        Builder b;
        b.step(90, 0, 10);
        for (int i = 0; i < 15; ++i) {
            const auto row = b.kernel("MatMulV2_" + std::to_string(i), "MatMulV2", "AI_CORE", 1000.0 * i, 1000, 2,
                                      i < 10 ? "4096,4096;4096,4096" : "1,4096;4096,5504", "FLOAT16;FLOAT16");
            b.set(row, "aic_mac_ratio", 0.35);
            b.set(row, "aic_mte2_ratio", 0.86);
        }
        const AdvisorReport r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        std::vector<const Finding*> cube;
        for (const Finding* f : r.fired())
            if (f->rule == "CMP-CUBE-MEMBOUND")
                cube.push_back(f);
        QCOMPARE(cube.size(), std::size_t(1));
        const Finding& f = *cube.front();
        QCOMPARE(f.id, std::string("CMP-CUBE-MEMBOUND/MatMulV2"));
        QCOMPARE(f.title, std::string("MatMulV2 memory-bound: 2 shape variants, 15.00 ms/step"));
        QCOMPARE(f.costNs, fixture::ms(15));
        QVERIFY(std::abs(f.gain.nsPerStep - 15e6 * 0.86 * 0.3) < 1e3);
        QCOMPARE(f.severity, FindingSeverity::High);
        QVERIFY(f.evidence.size() >= 2);
        QVERIFY2(f.evidence[0].at.text().find("4096,4096;4096,4096") != std::string::npos, f.evidence[0].at.text().c_str());
        QVERIFY2(f.evidence[1].at.text().find("1,4096;4096,5504") != std::string::npos, f.evidence[1].at.text().c_str());
        QCOMPARE(checkMerged(r, "fixture"), 1);
        QVERIFY(f.gain.formula.find("Σ over 2 variants") != std::string::npos);
    }

    // The generated baseline repeats its windows and GEMMs with several shapes: after the merge,
    // no title twice, and each merged finding holds every variant with the sum of their gains.
    void generatedBaselineHasNoDuplicates()
    {
        QTemporaryDir tmp;
        const AdvisorReport r = adviseSynth(tmp.filePath(QStringLiteral("base")), "llama2-baseline");
        QVERIFY(!r.findings.empty());
        QVERIFY(checkMerged(r, "llama2-baseline") >= 0);
        QVERIFY(checkPlan(r, "llama2-baseline"));
        QVERIFY(r.plan.size() >= 3);
    }

    // A slow link's gain and exposed communication's are the same communication time: the plan
    // takes it once, with the first of them, and the cluster run's plan leaves a step above zero
    // (both took it before, and the plan projected 0.000 ms).
    void clusterPlanTakesCommunicationTimeOnce()
    {
        QTemporaryDir tmp;
        const AdvisorReport r = adviseSynth(tmp.path(), "cluster-slowrank", true);
        QVERIFY(checkPlan(r, "cluster-slowrank"));
        bool slowLinkFired = false, exposedInPlan = false, slowLinkInPlan = false;
        for (const Finding& f : r.findings)
            slowLinkFired = slowLinkFired || (f.id.rfind("CLU-SLOWLINK/", 0) == 0 && f.status == Status::Fired);
        for (const PlanItem& p : r.plan) {
            exposedInPlan = exposedInPlan || p.findingId.rfind("COM-EXPOSED/", 0) == 0;
            slowLinkInPlan = slowLinkInPlan || p.findingId.rfind("CLU-SLOWLINK/", 0) == 0;
        }
        QVERIFY(slowLinkFired);
        QVERIFY(exposedInPlan);
        QVERIFY(!slowLinkInPlan);
        QVERIFY2(r.planStepNs > 0.1 * r.T, std::to_string(r.planStepNs).c_str());
    }

    void realSamplesHaveNoDuplicatesAndAnAdditivePlan()
    {
        for (const std::string& path : realSamples()) {
            const AdvisorReport r = adviseOn(path);
            QVERIFY2(!r.findings.empty(), path.c_str());
            QVERIFY2(checkMerged(r, path) >= 0, path.c_str());
            QVERIFY2(checkPlan(r, path), path.c_str());
        }
    }

    // The mstt fixture: 7 AI CPU Cast tasks (INT32 → UINT64) of 74–198 µs each cost below
    // min_share of its step: CMP-AICPU fires as a minor, low finding naming the dtype pair.
    void aicpuCastBelowMinShareIsMinor()
    {
        const AdvisorReport r = adviseOn(kSamples + "/msprof-analyze/test/ut/advisor/advisor_backend/compute_advice");
        const Finding* f = fixture::find(r, "CMP-AICPU/Cast");
        QVERIFY(f);
        QCOMPARE(f->status, Status::Fired);
        QVERIFY(f->minor);
        QCOMPARE(f->severity, FindingSeverity::Low);
        QVERIFY2(f->title.rfind("Cast runs on AI CPU: 7 tasks", 0) == 0, f->title.c_str());
        QVERIFY2(f->costShare < 0.01, f->title.c_str());
        bool hint = false;
        for (const auto& s : f->suggestions)
            hint = hint || s.find("INT32 → UINT64") != std::string::npos;
        QVERIFY(hint);
        QCOMPARE(f->evidence.size(), std::size_t(7));
        QCOMPARE(f->evidence.front().at.dur.value_or(0), fixture::us(197.54));
        QVERIFY(r.summary.minor >= 1);
        QVERIFY(writeText(r).find("== Minor (below min_share 1.0 % of the step) ==") != std::string::npos);
        QVERIFY(writeMarkdown(r).find("## Minor (below min_share") != std::string::npos);
        QVERIFY(writeHtml(r).find("<details class=\"minor\">") != std::string::npos);
        QVERIFY(writeJson(r).find("\"minor\": true") != std::string::npos);
        for (const Finding& x : r.findings)
            QVERIFY(!(x.rule == "CMP-AICPU" && x.status == Status::Passed));
    }

    // A partial last wave costing 0.2 % of the step, and one dynamic op out of two: minor.
    void blockDimAndDynamicShapesBelowMinShareAreMinor()
    {
        Builder b;
        b.step(90, 0, 10); // T = 100 ms
        b.info(24, 48);
        b.kernel("Add", "Add", "AI_CORE", 0, 200, 2, "", "", 20);
        const auto mm = b.kernel("MatMul", "MatMul", "AI_CORE", 300, 100);
        b.p->kernels.opState[mm] = b.p->strings.intern("dynamic");
        const auto add = b.kernel("Mul", "Mul", "AI_CORE", 500, 100);
        b.p->kernels.opState[add] = b.p->strings.intern("static");
        const AdvisorReport r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* bd = fixture::find(r, "CMP-BLOCKDIM/Add");
        QVERIFY(bd);
        QVERIFY(bd->minor);
        QCOMPARE(bd->severity, FindingSeverity::Low);
        QVERIFY(std::abs(bd->gain.nsPerStep - 200e3 / 6) < 1e2);
        const Finding* dyn = fixture::find(r, "CMP-DYNSHAPE/some-dynamic");
        QVERIFY(dyn);
        QVERIFY(dyn->minor);
        QVERIFY2(dyn->title.find("1/2 dynamic") != std::string::npos, dyn->title.c_str());
        // All static: the condition does not hold, the rule passes.
        b.p->kernels.opState[mm] = b.p->strings.intern("static");
        QCOMPARE(fixture::find(runAdvisor(fixture::session({b.p}), fixture::defaults()), "CMP-DYNSHAPE")->status,
                 Status::Passed);
    }

    // Ten memory-bound MatMuls with a 30 % L2 hit rate (T = 100 ms): MEM-L2 gains
    // 10 ms × 0.86 × (0.7 − 0.3)/(1 − 0.3) = 4.91 ms, CMP-CUBE-MEMBOUND 10 ms × 0.86 × 0.3 = 2.58 ms
    // on the same tasks. The plan takes MEM-L2 first with all ten tasks; nothing is left for
    // CMP-CUBE-MEMBOUND, which gets no action.
    void planClaimsEachTaskOnce()
    {
        Builder b;
        b.step(90, 0, 10);
        for (int i = 0; i < 10; ++i) {
            const auto row = b.kernel("MatMulV2_" + std::to_string(i), "MatMulV2", "AI_CORE", 1000.0 * i, 1000, 2,
                                      "4096,4096;4096,4096", "FLOAT16;FLOAT16");
            b.set(row, "aic_mac_ratio", 0.35);
            b.set(row, "aic_mte2_ratio", 0.86);
            b.set(row, "aic_l2_cache_hit", 30);
            b.set(row, "aic_l2_cache_miss_allocate", 70);
        }
        const AdvisorReport r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        QVERIFY(checkPlan(r, "fixture"));
        QCOMPARE(r.plan.size(), std::size_t(1));
        QCOMPARE(r.plan.front().findingId, std::string("MEM-L2/hit-rate"));
        QCOMPARE(r.plan.front().tasks, std::size_t(10));
        QVERIFY(std::abs(r.plan.front().gain.nsPerStep - 10e6 * 0.86 * 0.4 / 0.7) < 1e3);
        QVERIFY(std::abs(r.planStepNs - (100e6 - 10e6 * 0.86 * 0.4 / 0.7)) < 1e3);
        const Finding* cube = fixture::find(r, "CMP-CUBE-MEMBOUND");
        QVERIFY(cube && cube->status == Status::Fired);
        QCOMPARE(cube->planItem, -1);
        FIXTURE_FINDING(memL2HitRate, r, "MEM-L2/hit-rate");
        QCOMPARE(memL2HitRate->planItem, 0);
        const std::string text = writeText(r);
        QVERIFY(text.find("Action plan\n  1. ") < text.find("Summary\n"));
        QVERIFY2(text.find("estimated step after the plan = T − Σ gains = 100.0 ms − 4.91 ms = 95.09 ms") != std::string::npos,
                 text.substr(0, 600).c_str());
        QVERIFY(writeJson(r).find("\"plan_item\": 0") != std::string::npos);
        QVERIFY(writeMarkdown(r).find("## Action plan") != std::string::npos);
        QVERIFY(writeHtml(r).find("<ol class=\"plan\">") != std::string::npos);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestAdvisorReport)

} // namespace test_advisor_report

#include "test_advisor_report.moc"
