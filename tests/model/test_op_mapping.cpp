// Operator mapping between two runs (model/analysis/op_mapping.h) and the bootstrap interval
// behind the compare verdicts: a known replacement in hand-built and generated runs is found
// with its times, unrelated runs map nothing, and intervals follow the spread of the steps.
#include "test_main.h"
#include "analysis_fixtures.h"
#include "model/analysis/op_mapping.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <map>
#include <random>

namespace test_op_mapping {

using namespace npuscope;

namespace {

// One kernel per entry of `types`, back to back on stream 2 from `t0`, in step `step`; `dur`
// gives each one's duration by type (default 10 µs), shapes "<type>-shape".
void addSequence(Profile& p, const std::vector<std::string>& types, TimeNs& t, std::int64_t step,
                 const std::map<std::string, TimeNs>& dur = {})
{
    for (const std::string& type : types) {
        const auto it = dur.find(type);
        const TimeNs d = it == dur.end() ? 10000 : it->second;
        const std::uint32_t row = fixtures::addKernel(p, type + "_kernel", type, "AI_CORE", t, d);
        p.kernels.step[row] = step;
        p.kernels.inputShapes[row] = p.strings.intern(type + "-shape");
        t += d + 1000;
    }
}

const OpMappingRow* find(const OpMapping& m, MappingKind kind, const std::string& base, const std::string& opt)
{
    for (const OpMappingRow& r : m.rows)
        if (r.kind == kind && r.baseline == base && r.optimized == opt)
            return &r;
    return nullptr;
}

SessionPtr synthRun(const QString& dir, const std::string& scenario, int steps, std::uint64_t seed)
{
    synth::SynthOptions o;
    o.scenario = scenario;
    o.steps = steps;
    o.seed = seed;
    const synth::SynthResult r = synth::synthesize(dir.toStdString(), o);
    if (!r.ok || r.rankDirs.empty())
        return nullptr;
    LoadResult lr = loadSession(r.rankDirs.front(), {});
    return lr.session;
}

} // namespace

class TestOpMapping : public QObject {
    Q_OBJECT
private slots:
    void handBuiltReplacement();
    void unrelatedRunsMapNothing();
    void generatedLlamaPair();
    void bootstrapFollowsSpread();
};

void TestOpMapping::handBuiltReplacement()
{
    // Baseline: A B C D E per step; optimized: A X E (B→C→D fused into X), with A slower.
    Profile base, opt;
    const std::vector<std::string> before = {"Prologue", "BatchMatMul", "SoftmaxV2", "BatchMatMul", "Epilogue"};
    const std::vector<std::string> after = {"Prologue", "FlashAttentionScore", "Epilogue"};
    TimeNs tb = 0, to = 0;
    for (int step = 0; step < 4; ++step) {
        // Two layers per step.
        addSequence(base, before, tb, step, {{"BatchMatMul", 30000 + step * 100}, {"SoftmaxV2", 20000}});
        addSequence(base, before, tb, step, {{"BatchMatMul", 30000 + step * 100}, {"SoftmaxV2", 20000}});
        addSequence(opt, after, to, step, {{"FlashAttentionScore", 40000 + step * 50}, {"Prologue", 15000}});
        addSequence(opt, after, to, step, {{"FlashAttentionScore", 40000 + step * 50}, {"Prologue", 15000}});
    }
    base.finalize();
    opt.finalize();
    const OpMapping m = mapOperators(base, opt);
    QCOMPARE(m.steps, 4);
    QCOMPARE(m.source, std::string("kernel table"));
    QCOMPARE(m.mappedStreamPairs, 1);
    const OpMappingRow* fa = find(m, MappingKind::Replaced, "BatchMatMul→SoftmaxV2→BatchMatMul", "FlashAttentionScore");
    QVERIFY(fa);
    QCOMPARE(fa->occurrences, std::uint64_t(8)); // 2 per step, 4 steps
    QCOMPARE(fa->beforePerStep.size(), std::size_t(4));
    for (int s = 0; s < 4; ++s) {
        QCOMPARE(fa->beforePerStep[s], 2.0 * (2 * (30000 + s * 100) + 20000));
        QCOMPARE(fa->afterPerStep[s], 2.0 * (40000 + s * 50));
    }
    QCOMPARE(fa->beforeNs, 2.0 * (2 * 30150 + 20000));
    QCOMPARE(fa->verdict, std::string("improved"));
    // Prologue took 15 µs instead of 10 in every step: changed, regressed; Epilogue unchanged.
    const OpMappingRow* pro = find(m, MappingKind::Changed, "Prologue", "Prologue");
    QVERIFY(pro);
    QCOMPARE(pro->beforeNs, 20000.0);
    QCOMPARE(pro->afterNs, 30000.0);
    QCOMPARE(pro->verdict, std::string("regressed"));
    QCOMPARE(pro->shapes, std::string("Prologue-shape"));
    const OpMappingRow* epi = find(m, MappingKind::Unchanged, "Epilogue", "Epilogue");
    QVERIFY(epi);
    QCOMPARE(epi->occurrences, std::uint64_t(8));
    QCOMPARE(epi->verdict, std::string("same"));
    QCOMPARE(m.rows.size(), std::size_t(3));
    QCOMPARE(m.count(MappingKind::Removed) + m.count(MappingKind::Added), std::size_t(0));
}

void TestOpMapping::unrelatedRunsMapNothing()
{
    // A convolution network against an attention block: a shared Add (same shape) is not enough.
    Profile base, opt;
    TimeNs tb = 0, to = 0;
    for (int step = 0; step < 3; ++step) {
        addSequence(base, {"Conv2D", "BNInferD", "Relu", "MaxPool", "Conv2D", "BNInferD", "Relu", "Add"}, tb, step);
        addSequence(opt, {"MatMulV2", "Add", "SoftmaxV2", "MatMulV2", "Gelu", "MatMulV2", "LayerNorm", "Transpose"}, to,
                    step);
    }
    base.finalize();
    opt.finalize();
    const OpMapping m = mapOperators(base, opt);
    QCOMPARE(m.steps, 3);
    QCOMPARE(m.mappedStreamPairs, 0);
    QCOMPARE(m.count(MappingKind::Replaced), std::size_t(0));
    QCOMPARE(m.count(MappingKind::Changed) + m.count(MappingKind::Unchanged), std::size_t(0));
    // Every operator is accounted for as removed or added: 8 per step on each side.
    std::uint64_t removed = 0, added = 0;
    for (const OpMappingRow& r : m.rows)
        (r.kind == MappingKind::Removed ? removed : added) += r.occurrences;
    QCOMPARE(removed, std::uint64_t(24));
    QCOMPARE(added, std::uint64_t(24));
}

void TestOpMapping::generatedLlamaPair()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const SessionPtr base = synthRun(tmp.filePath("base"), "llama2-baseline", 3, 7);
    const SessionPtr opt = synthRun(tmp.filePath("opt"), "llama2-optimized", 3, 7);
    QVERIFY(base && opt);
    const OpMapping m = mapOperators(*base, *opt);
    QCOMPARE(m.steps, 3);
    QVERIFY(m.mappedStreamPairs >= 1);

    // Independently: per step, Σ BatchMatMul + SoftmaxV2 of the baseline and Σ FlashAttentionScore
    // of the optimized kernel tables.
    auto perStep = [](const Profile& p, std::initializer_list<const char*> types) {
        std::map<std::int64_t, double> sum;
        for (std::size_t r = 0; r < p.kernels.size(); ++r)
            for (const char* t : types)
                if (p.str(p.kernels.type[r]) == t)
                    sum[p.kernels.step[r]] += static_cast<double>(p.kernels.dur[r]);
        return sum;
    };
    const auto bmm = perStep(*base->ranks.front(), {"BatchMatMul", "SoftmaxV2"});
    const auto fa = perStep(*opt->ranks.front(), {"FlashAttentionScore"});
    QCOMPARE(bmm.size(), std::size_t(3));

    const OpMappingRow* attn = find(m, MappingKind::Replaced, "BatchMatMul→SoftmaxV2→BatchMatMul", "FlashAttentionScore");
    QVERIFY(attn);
    QCOMPARE(attn->occurrences, std::uint64_t(32 * 3)); // one per layer
    int s = 0;
    for (const auto& [step, ns] : bmm) {
        QCOMPARE(attn->beforePerStep[s], ns);
        QCOMPARE(attn->afterPerStep[s], fa.at(step));
        ++s;
    }
    QCOMPARE(attn->verdict, std::string("improved"));
    const OpMappingRow* norm = find(m, MappingKind::Replaced, "Cast→LayerNorm→Cast→Add", "AddRmsNorm");
    QVERIFY(norm);
    QCOMPARE(norm->occurrences, std::uint64_t(2 * 32 * 3));
    // The three Q/K/V projections became one.
    QVERIFY(find(m, MappingKind::Replaced, "MatMulV2→MatMulV2→MatMulV2", "MatMulV2"));
    // The FFN matmuls kept their shapes and got faster: changed, not replaced.
    bool ffn = false;
    for (const OpMappingRow& r : m.rows)
        if (r.kind == MappingKind::Changed && r.baseline == "MatMulV2" && r.shapes.find("4096,1376") != std::string::npos) {
            ffn = true;
            QCOMPARE(r.occurrences, std::uint64_t(2 * 32 * 3));
            QVERIFY(r.afterNs < r.beforeNs);
        }
    QVERIFY(ffn);
    // Nothing is left over: every baseline and optimized operator is in a row.
    QCOMPARE(m.count(MappingKind::Removed) + m.count(MappingKind::Added), std::size_t(0));
    QCOMPARE(m.count(MappingKind::Replaced), std::size_t(3));
}

void TestOpMapping::bootstrapFollowsSpread()
{
    // Steps of 100 ± 1 against 50 ± 1 (uniform): a ratio of 0.5 with a tight interval.
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> noise(-1.0, 1.0);
    std::vector<double> base, fast, noisy;
    for (int i = 0; i < 11; ++i) {
        base.push_back(100.0 + noise(rng));
        fast.push_back(50.0 + noise(rng));
    }
    // The ratio of the medians (the sixth of eleven), as the step time T is a median.
    std::vector<double> sb = base, sf = fast;
    std::sort(sb.begin(), sb.end());
    std::sort(sf.begin(), sf.end());
    const RatioInterval ci = bootstrapRatio(base, fast);
    QCOMPARE(ci.baselineSteps, 11);
    QCOMPARE(ci.optimizedSteps, 11);
    QCOMPARE(ci.ratio, sf[5] / sb[5]);
    QVERIFY(ci.low <= ci.ratio && ci.ratio <= ci.high && ci.low < ci.high);
    QVERIFY(ci.low > 0.49 && ci.high < 0.51); // ±1 % noise on 11 steps: well under ±2 %
    QCOMPARE(intervalVerdict(ci, 0.01), std::string("improved"));
    // Reproducible: the seed is fixed.
    const RatioInterval again = bootstrapRatio(base, fast);
    QCOMPARE(again.low, ci.low);
    QCOMPARE(again.high, ci.high);

    // 5 % slower (the medians too) but steps spread ±40 %: the interval holds 1, so "same" although the
    // change is above the 1 % floor.
    const std::vector<double> wide = {60, 140, 70, 130, 65, 150, 75, 135, 80, 145};
    const std::vector<double> wide2 = {63, 147, 73.5, 136.5, 68.25, 157.5, 78.75, 141.75, 84, 152.25};
    const RatioInterval w = bootstrapRatio(wide, wide2);
    QVERIFY(std::abs(w.ratio - 1.05) < 1e-12);
    QVERIFY(w.low < 1.0 && w.high > 1.0);
    QCOMPARE(intervalVerdict(w, 0.01), std::string("same"));
    // The floor still holds: a tight 0.5 % change under a 1 % floor is the same.
    std::vector<double> flat, tiny;
    for (int i = 0; i < 11; ++i) {
        flat.push_back(100.0 + noise(rng) * 0.01);
        tiny.push_back(100.5 + noise(rng) * 0.01);
    }
    QCOMPARE(intervalVerdict(bootstrapRatio(flat, tiny), 0.01), std::string("same"));
    QCOMPARE(intervalVerdict(bootstrapRatio(flat, tiny), 0.001), std::string("regressed"));
    // One step a side: the point ratio, the floor decides.
    const RatioInterval one = bootstrapRatio({100}, {90});
    QCOMPARE(one.low, 0.9);
    QCOMPARE(one.high, 0.9);
    QCOMPARE(intervalVerdict(one, 0.01), std::string("improved"));
    QVERIFY(std::isnan(bootstrapRatio({}, {1}).ratio));
}

NPUSCOPE_TEST_GUILESS_MAIN(TestOpMapping)

} // namespace test_op_mapping

#include "test_op_mapping.moc"
