// The compare's operator diff per step: two generated runs of different lengths (3 and 6 steps of
// llama2-baseline and llama2-optimized), and two real captures of one script (the torch_npu
// level-0 and level-1 samples). Every operator's time per step is summed here from the loaded
// kernel table and the ProfilerStep#N slices, and its verdict is checked to follow those numbers,
// not the whole-run totals that a longer run inflates.
#include "test_main.h"
#include "analysis_fixtures.h"
#include "model/analysis/compare.h"
#include "model/analysis/compare_report.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace test_compare_per_step {

using namespace npuscope;

namespace {

struct PerStep {
    double ns = 0;    // time inside the steps
    double count = 0; // rows that start inside them
};

// The ProfilerStep#N slices of the host timeline, as [begin, end).
std::vector<std::pair<TimeNs, TimeNs>> profilerStepSpans(const Profile& p)
{
    std::vector<std::pair<TimeNs, TimeNs>> out;
    for (std::uint32_t r = 0; r < p.slices.size(); ++r)
        if (p.str(p.slices.name[r]).rfind("ProfilerStep#", 0) == 0)
            out.push_back({p.slices.start[r], p.slices.start[r] + p.slices.dur[r]});
    std::sort(out.begin(), out.end());
    return out;
}

// Each operator type's kernel time inside the step spans and the kernels starting in them,
// divided by the number of steps; communication kernels are not operators of the diff.
std::map<std::string, PerStep> perStepByType(const Profile& p)
{
    const auto spans = profilerStepSpans(p);
    std::map<std::string, PerStep> out;
    const KernelTable& k = p.kernels;
    for (std::size_t r = 0; r < k.size(); ++r) {
        const std::string type(p.str(k.type[r])), taskType(p.str(k.taskType[r]));
        if (taskType == "HCCL" || taskType == "COMMUNICATION" || type.rfind("hcom", 0) == 0)
            continue;
        PerStep& s = out[type];
        const TimeNs b = k.start[r], e = k.start[r] + k.dur[r];
        for (const auto& [sb, se] : spans) {
            s.ns += static_cast<double>(std::max<TimeNs>(0, std::min(e, se) - std::max(b, sb)));
            s.count += b >= sb && b < se;
        }
    }
    for (auto& [type, s] : out) {
        s.ns /= static_cast<double>(spans.size());
        s.count /= static_cast<double>(spans.size());
    }
    return out;
}

SessionPtr synthRun(const QString& dir, const char* scenario, int steps)
{
    synth::SynthOptions o;
    o.scenario = scenario;
    o.steps = steps;
    const synth::SynthResult r = synth::synthesize(dir.toStdString(), o);
    if (!r.ok)
        return nullptr;
    return loadSession(dir.toStdString(), {}).session;
}

const OpDiffRow* row(const CompareResult& r, const std::string& key)
{
    for (const OpDiffRow& d : r.ops)
        if (d.key == key)
            return &d;
    return nullptr;
}

// Every row's per-step numbers against the independent sums, and its verdict against them.
void checkRows(const CompareResult& r, const Profile& base, const Profile& opt)
{
    const auto b = perStepByType(base), o = perStepByType(opt);
    QVERIFY(!r.ops.empty());
    for (const OpDiffRow& d : r.ops) {
        const PerStep want[2] = {b.count(d.key) ? b.at(d.key) : PerStep{}, o.count(d.key) ? o.at(d.key) : PerStep{}};
        QVERIFY2(std::fabs(d.baselineNsPerStep - want[0].ns) < 1e-6, d.key.c_str());
        QVERIFY2(std::fabs(d.currentNsPerStep - want[1].ns) < 1e-6, d.key.c_str());
        QVERIFY2(std::fabs(d.baselineCountPerStep - want[0].count) < 1e-9, d.key.c_str());
        QVERIFY2(std::fabs(d.currentCountPerStep - want[1].count) < 1e-9, d.key.c_str());
        const double delta = want[1].ns - want[0].ns;
        const std::string verdict = opVerdict(d, r.sameWithin);
        if (d.replacement)
            QCOMPARE(verdict, std::string("new"));
        else if (std::fabs(delta) <= r.sameWithin * std::max(want[0].ns, want[1].ns))
            QCOMPARE(verdict, std::string("same"));
        else
            QCOMPARE(verdict, std::string(delta < 0 ? "improved" : "regressed"));
    }
}

// The text from `from` to `to` (both found), else "".
std::string section(const std::string& text, const std::string& from, const std::string& to)
{
    const std::size_t a = text.find(from), b = text.find(to, a == std::string::npos ? 0 : a);
    return a == std::string::npos || b == std::string::npos ? std::string() : text.substr(a, b - a);
}

} // namespace

class TestComparePerStep : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    SessionPtr m_base, m_opt;

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        m_base = synthRun(m_tmp.filePath(QStringLiteral("base")), "llama2-baseline", 3);
        m_opt = synthRun(m_tmp.filePath(QStringLiteral("opt")), "llama2-optimized", 6);
        QVERIFY(m_base && m_opt && !m_base->ranks.empty() && !m_opt->ranks.empty());
        QCOMPARE(profilerStepSpans(*m_base->ranks[0]).size(), std::size_t(3));
        QCOMPARE(profilerStepSpans(*m_opt->ranks[0]).size(), std::size_t(6));
    }

    // 3 steps against 6: the per-step times are the sums inside the steps over their number, and
    // an operator faster per step is improved although its whole-run total grew.
    void differentLengths()
    {
        const CompareResult r = compareSessions(*m_base, *m_opt);
        QCOMPARE(r.opTimes, OpTimes::PerStep);
        QCOMPARE(r.baselineOpSteps, 3);
        QCOMPARE(r.currentOpSteps, 6);
        QCOMPARE(r.baselineOpBasis, std::string("inside the steps' spans"));
        checkRows(r, *m_base->ranks[0], *m_opt->ranks[0]);

        const OpDiffRow* mm = row(r, "MatMulV2");
        QVERIFY(mm);
        QVERIFY2(mm->currentTotal > mm->baselineTotal, "twice the steps: a larger total");
        QVERIFY(mm->currentNsPerStep < mm->baselineNsPerStep);
        QCOMPARE(opVerdict(*mm), std::string("improved"));
        // Judged on the totals, it would be a regression.
        QVERIFY(mm->currentTotal - mm->baselineTotal > kSameWithin * static_cast<double>(mm->currentTotal));

        // The fused kernel replaced the attention chain (the mapping says so): new, not regressed.
        const OpDiffRow* fa = row(r, "FlashAttentionScore");
        QVERIFY(fa && !fa->inBaseline && fa->replacement);
        QCOMPARE(opVerdict(*fa), std::string("new"));
        // Removed operators are improved: their time per step went to zero.
        const OpDiffRow* ln = row(r, "LayerNorm");
        QVERIFY(ln && !ln->inCurrent && !ln->replacement);
        QCOMPARE(ln->currentNsPerStep, 0.0);
        QCOMPARE(opVerdict(*ln), std::string("improved"));

        // Sorted by |Δ per step|.
        for (std::size_t i = 1; i < r.ops.size(); ++i)
            QVERIFY(std::fabs(r.ops[i - 1].deltaPerStep()) >= std::fabs(r.ops[i].deltaPerStep()));
    }

    // `compare --format json`: both kinds of times on every operator, the verdict per step; the
    // whole run, asked for, changes the order and the text columns but no verdict.
    void reports()
    {
        const CompareResult r = compareSessions(*m_base, *m_opt);
        const auto doc = nlohmann::json::parse(formatCompareReport(r, "base", "opt", "json"));
        QCOMPARE(doc["operator_times"].get<std::string>(), std::string("per_step"));
        QCOMPARE(doc["operator_steps"]["baseline"].get<int>(), 3);
        QCOMPARE(doc["operator_steps"]["optimized"].get<int>(), 6);
        QCOMPARE(doc["operators"].size(), r.ops.size());
        for (std::size_t i = 0; i < r.ops.size(); ++i) {
            const OpDiffRow& d = r.ops[i];
            const auto& o = doc["operators"][i];
            QCOMPARE(o["operator_name"].get<std::string>(), d.key);
            QVERIFY(std::fabs(o["baseline_ms_per_step"].get<double>() - d.baselineNsPerStep / 1e6) < 1e-6);
            QVERIFY(std::fabs(o["optimized_ms_per_step"].get<double>() - d.currentNsPerStep / 1e6) < 1e-6);
            QVERIFY(std::fabs(o["delta_ms_per_step"].get<double>() - d.deltaPerStep() / 1e6) < 2e-6);
            QCOMPARE(o["verdict"].get<std::string>(), opVerdict(d));
            if (d.inBaseline)
                QVERIFY(std::fabs(o["baseline_ms"].get<double>() - static_cast<double>(d.baselineTotal) / 1e6) < 1e-6);
        }
        const std::string md = formatCompareReport(r, "base", "opt", "markdown");
        QVERIFY(md.find("Operator times per step: baseline 3 steps (inside the steps' spans), optimized 6 steps") != std::string::npos);
        const std::string mdOps = section(md, "## Operators\n", "## Operator mapping");
        QVERIFY(mdOps.find("| baseline_ms_per_step |") != std::string::npos);
        QVERIFY(mdOps.find("| baseline_ms |") == std::string::npos);

        CompareOptions whole;
        whole.opTimes = OpTimes::WholeRun;
        const CompareResult w = compareSessions(*m_base, *m_opt, whole);
        QCOMPARE(w.opTimes, OpTimes::WholeRun);
        for (std::size_t i = 1; i < w.ops.size(); ++i)
            QVERIFY(std::abs(w.ops[i - 1].delta) >= std::abs(w.ops[i].delta));
        const auto wdoc = nlohmann::json::parse(formatCompareReport(w, "base", "opt", "json"));
        QCOMPARE(wdoc["operator_times"].get<std::string>(), std::string("whole_run"));
        std::map<std::string, std::string> perStepVerdicts;
        for (const auto& o : doc["operators"])
            perStepVerdicts[o["operator_name"].get<std::string>()] = o["verdict"].get<std::string>();
        for (const auto& o : wdoc["operators"])
            QCOMPARE(o["verdict"].get<std::string>(), perStepVerdicts.at(o["operator_name"].get<std::string>()));
        QCOMPARE(wdoc["operators"][0]["operator_name"].get<std::string>(), w.ops[0].key);
        const std::string wmd = formatCompareReport(w, "base", "opt", "markdown");
        const std::string wmdOps = section(wmd, "## Operators\n", "## Operator mapping");
        QVERIFY(wmdOps.find("| baseline_ms |") != std::string::npos);
        QVERIFY(wmdOps.find("| baseline_ms_per_step |") == std::string::npos);
    }

    // A last step cut by the capture (3 ms of 10) is left out of the step time, and so are the
    // operators inside it; a kernel across the edge of two complete steps counts once, whole.
    void partialStepLeftOut()
    {
        auto profile = [](bool cut) {
            auto p = std::make_shared<Profile>();
            const TrackId host = fixtures::addTrack(*p, 1, 1, TrackKind::Python, "Python", "Thread 1");
            const TrackId stream = fixtures::addTrack(*p, 2, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2");
            const TimeNs ms = 1000000;
            fixtures::addSlice(*p, host, "ProfilerStep#1", "cpu_op", 0, 10 * ms);
            fixtures::addSlice(*p, host, "ProfilerStep#2", "cpu_op", 10 * ms, 10 * ms);
            fixtures::addSlice(*p, host, "ProfilerStep#3", "cpu_op", 20 * ms, cut ? 3 * ms : 10 * ms);
            for (const auto& [start, dur] : std::vector<std::pair<TimeNs, TimeNs>>{
                     {0, 2 * ms}, {9 * ms + ms / 2, ms}, {10 * ms, 2 * ms}, {20 * ms, 2 * ms}, {22 * ms + ms / 2, ms}}) {
                fixtures::addSlice(*p, stream, "MatMul_1", "AI_CORE", start, dur);
                fixtures::addKernel(*p, "MatMul_1", "MatMul", "AI_CORE", start, dur);
            }
            p->finalize();
            auto s = std::make_shared<Session>();
            s->ranks.push_back(p);
            return s;
        };
        const auto cut = profile(true), full = profile(false);
        QCOMPARE(computeOverlap(*cut->ranks[0]).stats.partial, 1);
        CompareOptions o;
        o.mapOperators = false;
        const CompareResult r = compareSessions(*cut, *full, o);
        QCOMPARE(r.baselineOpSteps, 2);
        QCOMPARE(r.currentOpSteps, 3);
        QCOMPARE(r.ops.size(), std::size_t(1));
        const OpDiffRow& d = r.ops[0];
        QCOMPARE(d.baselineTotal, TimeNs(8000000));  // every kernel
        QCOMPARE(d.baselineNsPerStep, 2500000.0);    // (2 + 1 + 2 ms) / 2 complete steps
        QCOMPARE(d.baselineCountPerStep, 1.5);       // 3 kernels start in them
        QCOMPARE(d.currentNsPerStep, 8000000.0 / 3); // the step at 20 ms is whole there: 3 steps
    }

    // A side without step spans (a cluster summary's): its totals divided by its steps.
    void sideWithoutSpans()
    {
        CompareSide a, b;
        a.ops["MatMulV2"] = {30, 3000000};
        a.stepsMs = {10, 10, 10};
        b.ops["MatMulV2"] = {60, 4800000};
        b.stepsMs = {8, 8, 8, 8, 8, 8};
        const CompareResult r = compareSides(a, b);
        QCOMPARE(r.baselineOpSteps, 3);
        QCOMPARE(r.currentOpSteps, 6);
        QCOMPARE(r.currentOpBasis, std::string("run total / steps"));
        QCOMPARE(r.ops.size(), std::size_t(1));
        QCOMPARE(r.ops[0].baselineNsPerStep, 1000000.0);
        QCOMPARE(r.ops[0].currentNsPerStep, 800000.0);
        QCOMPARE(r.ops[0].currentCountPerStep, 10.0);
        QCOMPARE(opVerdict(r.ops[0]), std::string("improved"));
    }

    // The real level-1 and level-2 captures of one script (level 0 has no operator types): one
    // ProfilerStep#50 each; every operator's time inside it, as summed here.
    void realCaptures()
    {
        const std::string root = std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/";
        const SessionPtr l0 = loadSession(root + "level1/rank0_ascend_pt", {}).session;
        const SessionPtr l1 = loadSession(root + "level2/rank0_ascend_pt", {}).session;
        QVERIFY(l0 && l1 && l0->ranks.size() == 1 && l1->ranks.size() == 1);
        QCOMPARE(profilerStepSpans(*l0->ranks[0]).size(), std::size_t(1));
        const CompareResult r = compareSessions(*l0, *l1);
        QCOMPARE(r.baselineOpSteps, 1);
        QCOMPARE(r.currentOpSteps, 1);
        QCOMPARE(r.baselineOpBasis, std::string("inside the steps' spans"));
        checkRows(r, *l0->ranks[0], *l1->ranks[0]);
        double inside = 0, total = 0;
        for (const OpDiffRow& d : r.ops) {
            inside += d.baselineNsPerStep;
            total += static_cast<double>(d.baselineTotal);
        }
        QVERIFY(inside > 0 && inside <= total);
        // TransData: 57 kernels in the step of each capture, 1.423 ms against 1.393 ms.
        const OpDiffRow* td = row(r, "TransData");
        QVERIFY(td);
        QCOMPARE(td->baselineCountPerStep, 57.0);
        QCOMPARE(td->currentCountPerStep, 57.0);
        QCOMPARE(opVerdict(*td), std::string("improved"));
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestComparePerStep)

} // namespace test_compare_per_step

#include "test_compare_per_step.moc"
