// The baseline's advice checked against the optimized run (advisor/advice_check.h, `npuscope
// compare --validate-advice` and `--fail-if-regressed`), on generated pairs: llama2-baseline
// against llama2-optimized of the same seed, and one scenario against itself. The covered times
// are computed here again from the profiles' own rows: each operator's kernel time inside the
// ProfilerStep spans divided by their number, and the median step's split (summary.h StepSplit).
#include "test_main.h"
#include "../model/cli_run.h"
#include "advisor/advice_check.h"
#include "advisor/advisor.h"
#include "model/analysis/compare_report.h"
#include "model/analysis/overlap.h"
#include "model/analysis/summary.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace test_advice_check {

using namespace npuscope;

namespace {

struct Run {
    std::string dir;
    SessionPtr session;
};

Run synthRun(const QString& dir, const char* scenario)
{
    synth::SynthOptions o;
    o.scenario = scenario;
    o.steps = 3;
    o.seed = 7;
    const synth::SynthResult r = synth::synthesize(dir.toStdString(), o);
    if (!r.ok || r.rankDirs.empty())
        return {};
    return {r.rankDirs.front(), loadSession(r.rankDirs.front(), {}).session};
}

// Σ over `types` of their kernel rows' time inside the ProfilerStep spans, per span.
double opTimePerStep(const Profile& p, const std::vector<std::string>& types)
{
    std::vector<std::pair<TimeNs, TimeNs>> spans;
    for (std::size_t i = 0; i < p.slices.size(); ++i)
        if (p.str(p.slices.name[i]).rfind("ProfilerStep#", 0) == 0)
            spans.emplace_back(p.slices.start[i], p.slices.end(i));
    if (spans.empty())
        return kNaN;
    const std::set<std::string> want(types.begin(), types.end());
    double ns = 0;
    const KernelTable& k = p.kernels;
    for (std::size_t r = 0; r < k.size(); ++r) {
        if (!want.count(std::string(p.str(k.type[r]))))
            continue;
        for (const auto& [b, e] : spans) // the spans do not overlap
            ns += static_cast<double>(std::max<TimeNs>(0, std::min(e, k.start[r] + k.dur[r]) - std::max(b, k.start[r])));
    }
    return ns / static_cast<double>(spans.size());
}

// The part of the median step a step-level finding covers, in ns.
double stepPart(const StepSplit& s, const std::string& part)
{
    if (part == "Computing")
        return static_cast<double>(s.computing);
    if (part == "Communication not overlapped")
        return static_cast<double>(s.commNotOverlapped);
    if (part == "Free")
        return static_cast<double>(s.free);
    if (part == "Step time")
        return static_cast<double>(s.stepTime);
    return kNaN;
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-6 * std::max({1.0, std::abs(a), std::abs(b)});
}

// The status rule of the man page, on the numbers of this test.
std::string expectedStatus(bool present, const advisor::Finding& f, double realised)
{
    if (!present)
        return "fixed";
    if (!f.gain.estimated || !(f.gain.nsPerStep > 0))
        return "remaining";
    if (realised >= 0.8 * f.gain.nsPerStep)
        return "fixed";
    return realised >= 0.2 * f.gain.nsPerStep ? "partly" : "remaining";
}

std::map<std::string, const advisor::Finding*> firedById(const advisor::AdvisorReport& r)
{
    std::map<std::string, const advisor::Finding*> out;
    for (const advisor::Finding* f : r.fired())
        out[f->id] = f;
    return out;
}

} // namespace

class TestAdviceCheck : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void llamaPair();
    void sameRunTwice();
    void statusRule();
    void cliValidateAdvice();
    void cliFailIfRegressed();

private:
    QTemporaryDir m_tmp;
    Run m_base, m_opt;
};

void TestAdviceCheck::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    m_base = synthRun(m_tmp.filePath("base"), "llama2-baseline");
    m_opt = synthRun(m_tmp.filePath("opt"), "llama2-optimized");
    QVERIFY(m_base.session && m_opt.session);
    QCOMPARE(m_base.session->ranks.size(), std::size_t(1));
    QCOMPARE(m_opt.session->ranks.size(), std::size_t(1));
}

void TestAdviceCheck::llamaPair()
{
    const Session& b = *m_base.session;
    const Session& o = *m_opt.session;
    const advisor::Thresholds th = advisor::Thresholds::load();
    const advisor::AdvisorReport rb = advisor::runAdvisor(b, th), ro = advisor::runAdvisor(o, th);
    const auto fb = firedById(rb), fo = firedById(ro);
    QVERIFY(!fb.empty());

    CompareResult r = compareSessions(b, o);
    advisor::compareAdvice(r, rb, ro, &b, &o);
    QVERIFY(r.adviceChecked && r.advisorCompared);
    // One row per fired finding of either run; the baseline's by the status rule.
    std::set<std::string> all;
    for (const auto& m : {fb, fo})
        for (const auto& [id, f] : m)
            all.insert(id);
    QCOMPARE(r.advisor.size(), all.size());

    const Profile& pb = *b.ranks.front();
    const Profile& po = *o.ranks.front();
    const StepSplit sb = stepSplit(computeOverlap(pb)), so = stepSplit(computeOverlap(po));
    std::map<std::string, int> statuses;
    std::size_t opLevel = 0, stepLevel = 0;
    for (const AdvisorDiffRow& a : r.advisor) {
        ++statuses[a.status];
        const bool inB = fb.count(a.id) > 0, inO = fo.count(a.id) > 0;
        QVERIFY2(inB || inO, a.id.c_str());
        if (!inB) {
            QCOMPARE(a.status, std::string("new"));
            QVERIFY(std::isnan(a.realisedNs));
            continue;
        }
        const advisor::Finding& f = *fb.at(a.id);
        double before = kNaN, after = kNaN;
        if (!a.coveredOps.empty()) {
            ++opLevel;
            QVERIFY2(f.category == advisor::Category::Computation || f.category == advisor::Category::Memory, a.id.c_str());
            before = opTimePerStep(pb, a.coveredOps);
            after = opTimePerStep(po, a.coveredOps);
        } else {
            ++stepLevel;
            before = stepPart(sb, a.covered);
            after = stepPart(so, a.covered);
        }
        QVERIFY2(!std::isnan(before) && !std::isnan(after), a.id.c_str());
        QVERIFY2(near(a.coveredBeforeNs, before),
                 (a.id + " before " + std::to_string(a.coveredBeforeNs) + " vs " + std::to_string(before)).c_str());
        QVERIFY2(near(a.coveredAfterNs, after),
                 (a.id + " after " + std::to_string(a.coveredAfterNs) + " vs " + std::to_string(after)).c_str());
        QVERIFY(near(a.realisedNs, before - after));
        if (f.gain.estimated)
            QCOMPARE(a.predictedGainNs, f.gain.nsPerStep);
        else
            QVERIFY(std::isnan(a.predictedGainNs));
        QCOMPARE(a.status, expectedStatus(inO, f, before - after));
    }
    QVERIFY(opLevel > 0);
    QVERIFY(stepLevel > 0);
    // The optimization fused the chains and overlapped the AllReduce: some advice is fixed, and
    // findings of the optimized run alone are new.
    QVERIFY(statuses["fixed"] > 0);
    std::size_t onlyOpt = 0;
    for (const auto& [id, f] : fo)
        onlyOpt += fb.count(id) == 0;
    QCOMPARE(static_cast<std::size_t>(statuses["new"]), onlyOpt);
    // The plan's step and the measured one, through the reports.
    QCOMPARE(r.planStepNs, rb.planStepNs);
    QCOMPARE(r.measuredStepNs, ro.T);
    QCOMPARE(r.baselineStepNs, rb.T);
    QVERIFY(r.measuredStepNs < r.baselineStepNs);

    // Every text format carries the validation.
    const std::string json = formatCompareReport(r, "b", "o", "json");
    const nlohmann::json j = nlohmann::json::parse(json);
    QCOMPARE(j["validation"].size(), r.advisor.size());
    for (std::size_t i = 0; i < r.advisor.size(); ++i) {
        const auto& v = j["validation"][i];
        QCOMPARE(v["id"].get<std::string>(), r.advisor[i].id);
        QCOMPARE(v["status"].get<std::string>(), r.advisor[i].status);
        for (const char* key : {"title", "predicted_gain_ns", "realised_ns"})
            QVERIFY(v.contains(key));
    }
    QCOMPARE(j["plan_step_ns"].get<double>(), rb.planStepNs);
    QCOMPARE(j["measured_step_ns"].get<double>(), ro.T);
    for (const char* fmt : {"table", "markdown", "csv"}) {
        const std::string text = formatCompareReport(r, "b", "o", fmt);
        QVERIFY2(text.find("predicted_gain_ms") != std::string::npos, fmt);
        QVERIFY2(text.find(r.advisor.front().status) != std::string::npos, fmt);
    }
    QVERIFY(formatCompareReport(r, "b", "o", "markdown").find("## Advice checked") != std::string::npos);

    // Better both ways: nothing regressed.
    QVERIFY(advisor::adviceRegressions(r).empty());
}

void TestAdviceCheck::sameRunTwice()
{
    const Session& b = *m_base.session;
    const advisor::AdvisorReport rb = advisor::runAdvisor(b, advisor::Thresholds::load());
    CompareResult r = compareSessions(b, b);
    advisor::compareAdvice(r, rb, rb, &b, &b);
    QCOMPARE(r.advisor.size(), rb.fired().size());
    for (const AdvisorDiffRow& a : r.advisor) {
        QCOMPARE(a.status, std::string("remaining"));
        QVERIFY2(std::abs(a.realisedNs) < 1e-6, a.id.c_str());
        QVERIFY(!a.grew);
    }
    QVERIFY(advisor::adviceRegressions(r).empty());
}

void TestAdviceCheck::statusRule()
{
    using advisor::adviceStatus;
    QCOMPARE(adviceStatus(false, 10, 0), std::string("fixed"));
    QCOMPARE(adviceStatus(true, 10, 8), std::string("fixed"));
    QCOMPARE(adviceStatus(true, 10, 7.99), std::string("partly"));
    QCOMPARE(adviceStatus(true, 10, 2), std::string("partly"));
    QCOMPARE(adviceStatus(true, 10, 1.99), std::string("remaining"));
    QCOMPARE(adviceStatus(true, 10, -5), std::string("remaining"));
    QCOMPARE(adviceStatus(true, kNaN, 100), std::string("remaining")); // no estimated gain
    QCOMPARE(adviceStatus(true, 0, 100), std::string("remaining"));
}

void TestAdviceCheck::cliValidateAdvice()
{
    const QString base = QString::fromStdString(m_base.dir), opt = QString::fromStdString(m_opt.dir);
    const CliRun run = runCli({"compare", base, opt, "--validate-advice", "--format", "json", "--no-cache"});
    QVERIFY2(run.code == 0, qPrintable(run.err));
    const nlohmann::json j = nlohmann::json::parse(run.out.toStdString());
    const advisor::Thresholds th = advisor::Thresholds::load();
    const advisor::AdvisorReport rb = advisor::runAdvisor(*m_base.session, th), ro = advisor::runAdvisor(*m_opt.session, th);
    const auto fb = firedById(rb), fo = firedById(ro);
    std::size_t baselineRows = 0, newRows = 0;
    for (const auto& v : j["validation"]) {
        const std::string id = v["id"].get<std::string>(), status = v["status"].get<std::string>();
        if (status == "new") {
            ++newRows;
            QVERIFY2(!fb.count(id) && fo.count(id), id.c_str());
            continue;
        }
        ++baselineRows;
        QVERIFY2(fb.count(id), id.c_str());
        QVERIFY(status == "fixed" || status == "partly" || status == "remaining");
        if (!fo.count(id))
            QCOMPARE(status, std::string("fixed"));
        const advisor::Finding& f = *fb.at(id);
        if (f.gain.estimated)
            QVERIFY(near(v["predicted_gain_ns"].get<double>(), f.gain.nsPerStep));
    }
    QCOMPARE(baselineRows, fb.size());
    std::size_t onlyOpt = 0;
    for (const auto& [id, f] : fo)
        onlyOpt += fb.count(id) == 0;
    QCOMPARE(newRows, onlyOpt);
    QVERIFY(near(j["plan_step_ns"].get<double>(), rb.planStepNs));
    QVERIFY(near(j["measured_step_ns"].get<double>(), ro.T));

    // Without the flag the report has no validation.
    const CliRun plain = runCli({"compare", base, opt, "--format", "json", "--no-cache"});
    QCOMPARE(plain.code, 0);
    QVERIFY(!nlohmann::json::parse(plain.out.toStdString()).contains("validation"));
    // It needs the advisor.
    QCOMPARE(runCli({"compare", base, opt, "--validate-advice", "--no-advisor"}).code, 2);
}

void TestAdviceCheck::cliFailIfRegressed()
{
    const QString base = QString::fromStdString(m_base.dir), opt = QString::fromStdString(m_opt.dir);
    const CliRun better = runCli({"compare", base, opt, "--fail-if-regressed", "--no-cache"});
    QVERIFY2(better.code == 0, qPrintable(better.err));
    const CliRun worse = runCli({"compare", opt, base, "--fail-if-regressed", "--no-cache"});
    QCOMPARE(worse.code, 3);
    QVERIFY(worse.err.contains(QStringLiteral("regressed: the step time rose")));
    QVERIFY(!worse.out.isEmpty()); // the report is written all the same
    // The same run twice is no regression.
    QCOMPARE(runCli({"compare", base, base, "--fail-if-regressed", "--no-cache"}).code, 0);
}

NPUSCOPE_TEST_GUILESS_MAIN(TestAdviceCheck)

} // namespace test_advice_check

#include "test_advice_check.moc"
