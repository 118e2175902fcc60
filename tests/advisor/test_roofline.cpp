// The roofline per operator: FLOPs and bytes from shapes and dtypes (worked by hand here), from
// the fops columns when the kernel table has them (summed here from the CSV, independently of
// the reader), the roofs and their sources, and CMP-CUBE-MEMBOUND's "by shape" / "by
// implementation".
#include "test_main.h"
#include "advisor_fixture.h"

#include "advisor/roofline.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

namespace test_roofline {

using namespace npuscope;
using namespace npuscope::advisor;

namespace {

const std::string kSamples = NPUSCOPE_SAMPLES;
const std::string kMstt = kSamples + "/msprof-analyze/test/ut/advisor/advisor_backend/compute_advice";

// One CSV line's fields ("" quotes inside quoted fields).
QStringList csvFields(const QString& line)
{
    QStringList out;
    QString cur;
    bool quoted = false;
    for (int i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (quoted) {
            if (c == u'"' && i + 1 < line.size() && line[i + 1] == u'"') {
                cur += c;
                ++i;
            } else if (c == u'"') {
                quoted = false;
            } else {
                cur += c;
            }
        } else if (c == u'"') {
            quoted = true;
        } else if (c == u',') {
            out << cur;
            cur.clear();
        } else {
            cur += c;
        }
    }
    out << cur;
    return out;
}

const RooflinePoint* pointOf(const AdvisorReport& r, const std::string& type, const std::string& shapes)
{
    for (const auto& p : r.roofline)
        if (p.opType == type && p.shapes == shapes)
            return &p;
    return nullptr;
}

} // namespace

class TestRoofline : public QObject {
    Q_OBJECT
private slots:
    void shapesAndDtypes()
    {
        const auto s = parseShapes("\"4096,12288;4608,12288\"");
        QVERIFY(s.has_value());
        QCOMPARE(s->size(), std::size_t(2));
        QCOMPARE((*s)[1], (std::vector<std::int64_t>{4608, 12288}));
        const auto withScalar = parseShapes("256,4096;;4096");
        QVERIFY(withScalar.has_value());
        QCOMPARE(withScalar->size(), std::size_t(3));
        QVERIFY((*withScalar)[1].empty());
        QVERIFY(!parseShapes("N/A").has_value());
        QVERIFY(!parseShapes("").has_value());
        QCOMPARE(dtypeBytes("DT_BF16"), 2.0);
        QCOMPARE(dtypeBytes("FLOAT16"), 2.0);
        QCOMPARE(dtypeBytes("FLOAT"), 4.0);
        QCOMPARE(dtypeBytes("INT8"), 1.0);
        QCOMPARE(dtypeBytes("QUINT4x2"), 0.0);
    }

    // [1,4096] × [4096,5504] → [1,5504]: 2·M·N·K = 2·1·5504·4096 FLOPs, worked out by hand.
    void matmulByHand()
    {
        const std::vector<std::vector<std::int64_t>> in = {{1, 4096}, {4096, 5504}}, out = {{1, 5504}};
        const auto f = matmulFlops(in, out);
        QVERIFY(f.has_value());
        QCOMPARE(*f, 45088768.0);
        // B given transposed ([N, K]) is the same product.
        QCOMPARE(*matmulFlops({{1, 4096}, {5504, 4096}}, out), 45088768.0);
        // A batch: [8,256,128] × [8,128,1024] → [8,256,1024].
        QCOMPARE(*matmulFlops({{8, 256, 128}, {8, 128, 1024}}, {{8, 256, 1024}}), 2.0 * 8 * 256 * 1024 * 128);
        // Shapes that are no matrix product: B holds 1376·4096 but K·N = 4096·4096.
        QVERIFY(!matmulFlops({{256, 4096}, {1376, 4096}}, {{256, 4096}}).has_value());
    }

    // The generated baseline: its info.json names 24 AI cores, 48 vector cores at 1800 MHz and
    // a 1200 GB/s HBM; no chip name, so the defaults stand in and the roofs say so.
    void generatedProfile()
    {
        QTemporaryDir dir;
        synth::SynthOptions o;
        o.scenario = "llama2-baseline";
        o.steps = 2;
        const synth::SynthResult g = synth::synthesize(dir.path().toStdString(), o);
        QVERIFY(g.ok);
        const LoadResult lr = loadSession(g.rankDirs.front());
        QVERIFY(lr.session);
        const AdvisorReport r = runAdvisor(*lr.session, fixture::defaults());
        QCOMPARE(r.roofs.size(), std::size_t(1));
        const RooflineRoofs& roofs = r.roofs.front();
        QVERIFY(!roofs.known);
        QCOMPARE(roofs.aiCores, 24);
        QCOMPARE(roofs.vectorCores, 48);
        QCOMPARE(roofs.cubeFp16, 24.0 * 8192 * 1800e6);
        QCOMPARE(roofs.vectorFp16, 48.0 * 256 * 1800e6);
        QCOMPARE(roofs.hbmBytesPerS, 1200e9);
        QVERIFY(QString::fromStdString(roofs.sources.front()).contains(QStringLiteral("settable defaults")));

        // MatMulV2 [256,4096] × [4096,1376] fp16 → [256,1376].
        const RooflinePoint* mm = pointOf(r, "MatMulV2", "\"256,4096;4096,1376\"");
        QVERIFY(mm);
        QCOMPARE(mm->flops, 2.0 * 256 * 1376 * 4096);
        QCOMPARE(mm->flopsFrom, std::string("shapes"));
        QCOMPARE(mm->bytes, 2.0 * (256 * 4096 + 4096 * 1376 + 256 * 1376));
        QCOMPARE(mm->intensity, mm->flops / mm->bytes);
        QCOMPARE(mm->unit, std::string("cube"));
        // 205 FLOP/byte against a ridge of 353.9 T / 1.2 T = 295: memory-bound.
        QCOMPARE(mm->bound, std::string("memory"));
        QVERIFY(std::abs(mm->attainable - mm->intensity * 1200e9) < 1);
        QVERIFY(std::abs(mm->achievedFlops - mm->flops * double(mm->count) / (mm->timeNs * 1e-9)) < 1);
        // A vector op counts one operation per output element.
        const RooflinePoint* sm = pointOf(r, "SoftmaxV2", "\"4,256,1024\"");
        QVERIFY(sm);
        QCOMPARE(sm->flops, 4.0 * 256 * 1024);
        QCOMPARE(sm->flopsFrom, std::string("element count"));
        QCOMPARE(sm->unit, std::string("vector"));
        // Costliest first; every point names its bound.
        for (std::size_t i = 1; i < r.roofline.size(); ++i)
            QVERIFY(r.roofline[i - 1].timeNs >= r.roofline[i].timeNs);
        for (const auto& p : r.roofline)
            QVERIFY(p.bound == "memory" || p.bound == "compute" || p.bound == "unknown");

        // CMP-CUBE-MEMBOUND says which kind of memory-bound its costliest shape is.
        bool seen = false;
        for (const Finding* f : r.fired())
            if (f->rule == "CMP-CUBE-MEMBOUND") {
                seen = true;
                QVERIFY2(f->description.find("below the cube roof's ridge") != std::string::npos, f->description.c_str());
                QVERIFY(f->description.find("memory-bound by its shape") != std::string::npos);
            }
        QVERIFY(seen);
    }

    // No kernel beats its roof, so a point above it says an estimate is off: the real level-1
    // rank's points are flagged exactly when FLOPs × calls / time (computed here) exceed
    // min(peak, intensity × HBM), and each flag says which roof and why.
    void aboveRoofFlagged()
    {
        const LoadResult lr = loadSession(kSamples + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");
        QVERIFY(lr.session);
        const AdvisorReport r = runAdvisor(*lr.session, fixture::defaults());
        QCOMPARE(r.roofs.size(), std::size_t(1));
        const RooflineRoofs& roofs = r.roofs.front();
        std::size_t flagged = 0;
        for (const RooflinePoint& p : r.roofline) {
            if (p.bound == "unknown") {
                QVERIFY(!p.aboveRoof);
                continue;
            }
            const double achieved = p.flops * double(p.count) / (p.timeNs * 1e-9);
            const double attainable = std::min(p.peak, p.flops / p.bytes * roofs.hbmBytesPerS);
            QCOMPARE(p.aboveRoof, achieved > attainable);
            QCOMPARE(p.aboveRoof, !p.aboveRoofWhy.empty());
            if (!p.aboveRoof)
                continue;
            ++flagged;
            const bool compute = achieved > p.peak;
            QVERIFY2(p.aboveRoofWhy.rfind(compute ? "above the compute roof: " : "above the HBM roof: ", 0) == 0, p.aboveRoofWhy.c_str());
            QVERIFY(p.aboveRoofWhy.find(std::to_string(roofs.aiCores) + " AI cores") != std::string::npos);
        }
        QVERIFY2(flagged >= 8, qPrintable(QString::number(flagged)));
        // Mul [4096, 9216] × scalar, FP32: 1.5 times what HBM can feed it, by its shape's bytes.
        const RooflinePoint* mul = pointOf(r, "Mul", "\"4096,9216;\"");
        QVERIFY(mul);
        QVERIFY(mul->aboveRoof);
        QVERIFY(mul->efficiency() > 1.4 && mul->efficiency() < 1.7);
        QVERIFY2(mul->aboveRoofWhy.find("bytes from the shapes") != std::string::npos, mul->aboveRoofWhy.c_str());
        QVERIFY(mul->aboveRoofWhy.find("L2") != std::string::npos);
    }

    // The mstt fixture has aic_cube_fops / aiv_vector_fops: the FLOPs come from them, the mean
    // over the calls of their sum, computed here from the CSV itself.
    void fopsColumns()
    {
        QFile csv(QString::fromStdString(kMstt + "/kernel_details.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList header = csvFields(QString::fromUtf8(csv.readLine()).trimmed());
        const int type = header.indexOf(QStringLiteral("Type")), shapes = header.indexOf(QStringLiteral("Input Shapes"));
        QList<int> fops;
        for (const char* c : {"aic_cube_fops", "aic_vector_fops", "aiv_cube_fops", "aiv_vector_fops"})
            fops << header.indexOf(QString::fromLatin1(c));
        double sum = 0;
        int calls = 0;
        const QString wantShapes = QStringLiteral("\"4096,12288;4608,12288\"");
        while (!csv.atEnd()) {
            const QStringList f = csvFields(QString::fromUtf8(csv.readLine()).trimmed());
            if (f.size() != header.size() || f[type] != QStringLiteral("MatMul") || f[shapes] != wantShapes)
                continue;
            ++calls;
            for (int c : fops)
                sum += f[c].toDouble();
        }
        QVERIFY(calls > 0);

        const LoadResult lr = loadSession(kMstt);
        QVERIFY(lr.session);
        const AdvisorReport r = runAdvisor(*lr.session, fixture::defaults());
        const RooflinePoint* mm = pointOf(r, "MatMul", wantShapes.toStdString());
        QVERIFY(mm);
        QCOMPARE(int(mm->count), calls);
        QCOMPARE(mm->flopsFrom, std::string("aic/aiv fops columns"));
        QVERIFY2(std::abs(mm->flops - sum / calls) <= 1e-9 * mm->flops, qPrintable(QString::number(mm->flops)));
        // Within 3 % of 2·M·N·K from its shapes ([4096,12288] × [4608,12288]ᵀ → [4096,4608]).
        const double byShape = 2.0 * 4096 * 4608 * 12288;
        QVERIFY(std::abs(mm->flops / byShape - 1) < 0.03);
        QCOMPARE(mm->bytesFrom, std::string("shapes"));
        QCOMPARE(mm->bytes, 2.0 * (4096.0 * 12288 + 4608.0 * 12288 + 4096.0 * 4608));
    }

    // FlashAttention FLOPs from the shapes, worked by hand. The 2025 mstt fixture's forward call
    // has q, k, v in SBH [4096, 2, 512], a [4096, 4096] mask and softmax statistics [2, 4, 4096, 8]:
    // B 2, N 4, Sq 4096, D = 4096·2·512 / (2·4·4096) = 128, Skv = k[0] = 4096, so
    // 4 · 2 · 4 · 4096 · 4096 · 128 = 68,719,476,736 FLOP; the gradient 2.5 times that. The
    // "varlen" row's q [4096, 2, 511] does not divide by B·N·Sq: no FLOPs rather than a guess.
    void attentionFlopsByHand()
    {
        const LoadResult lr = loadSession(kSamples + "/msprof-analyze/test/ut/advisor/compute_advice/data");
        QVERIFY(lr.session);
        const AdvisorReport r = runAdvisor(*lr.session, fixture::defaults());
        const RooflinePoint* fwd = pointOf(r, "FlashAttentionScore", "\"4096,2,512;4096,2,512;4096,2,512;;;;4096,4096;;;;;\"");
        QVERIFY(fwd);
        QCOMPARE(fwd->flops, 68719476736.0);
        QCOMPARE(fwd->flopsFrom, std::string("shapes (attention, every block counted)"));
        QCOMPARE(fwd->bound, std::string("compute"));
        // Held against the BF16 cube roof: its UINT8 dropout mask and BOOL input do not make it INT8.
        QCOMPARE(fwd->unit, std::string("cube"));
        QVERIFY(!r.roofs.empty());
        QCOMPARE(fwd->peak, r.roofs.front().cubeFp16);
        int grads = 0, unknown = 0;
        for (const auto& p : r.roofline) {
            if (p.opType == "FlashAttentionScoreGrad" && p.shapes.find("4096,2,512;") != std::string::npos) {
                ++grads;
                QCOMPARE(p.flops, 2.5 * 68719476736.0);
            }
            if (p.shapes.find("4096,2,511") != std::string::npos) {
                ++unknown;
                QVERIFY(std::isnan(p.flops));
            }
        }
        QVERIFY(grads >= 1);
        QCOMPARE(unknown, 1);

        // Decode with grouped K/V heads, BNSD: q [1, 32, 1, 128], k [1, 8, 4096, 128], statistics
        // [1, 32, 1, 8]: Skv is k[2] = 4096, not |k| / (B·N·D) = 1024.
        const auto in = parseShapes("1,32,1,128;1,8,4096,128;1,8,4096,128");
        const auto out = parseShapes("1,32,1,8;1,32,1,8;;1,32,1,128");
        QVERIFY(in && out);
        QCOMPARE(attentionFlops(*in, *out, false).value_or(0), 4.0 * 1 * 32 * 1 * 4096 * 128);
        // BSND of the same call.
        const auto in2 = parseShapes("1,1,32,128;1,4096,8,128;1,4096,8,128");
        QCOMPARE(attentionFlops(*in2, *out, false).value_or(0), 4.0 * 1 * 32 * 1 * 4096 * 128);
        // No statistics tensor: no FLOPs.
        QVERIFY(!attentionFlops(*in, *parseShapes("1,32,1,128"), false));
    }

    // CMP-FA on the same fixture: the forward calls reach 68.72 GFLOP / 407 µs ≈ 169 TFLOP/s, under
    // half the default roof (24 cores × 8192 FLOP × 1.8 GHz = 353.9 TFLOP/s), so the rule fires;
    // the gradient's 171.8 GFLOP / 760 µs ≈ 226 TFLOP/s (0.64) does not.
    void flashAttentionRule()
    {
        const LoadResult lr = loadSession(kSamples + "/msprof-analyze/test/ut/advisor/compute_advice/data");
        QVERIFY(lr.session);
        const AdvisorReport r = runAdvisor(*lr.session, fixture::defaults());
        int fired = 0;
        for (const auto& f : r.findings) {
            if (f.rule != "CMP-FA" || f.status != Status::Fired)
                continue;
            ++fired;
            QVERIFY2(f.title.find("FlashAttentionScore:") == 0, f.title.c_str());
            QVERIFY2(f.description.find("head dim 128") != std::string::npos, f.description.c_str());
            QVERIFY(f.gain.estimated);
        }
        QCOMPARE(fired, 1);
        // Add meets CMP-VEC-MEM's condition (mte2 0.84-0.87, vec 0.21-0.27) below min_share: a minor finding.
        const Finding* add = fixture::find(r, "CMP-VEC-MEM/Add");
        QVERIFY(add);
        QCOMPARE(add->status, Status::Fired);
        QVERIFY(add->minor);
        QCOMPARE(add->severity, FindingSeverity::Low);
        // Two findings with a gain make a plan of two actions, and the formula says why no third.
        QCOMPARE(r.plan.size(), std::size_t(2));
        QVERIFY(planFormula(r).find("Only 2 actions: no other fired finding has an estimated gain") != std::string::npos);
    }

    // FlashAttention rows without the statistics tensor (the generator's, q [1, 256, 512] and k
    // [1, 1024, 512] only) give neither FLOPs nor head dim: CMP-FA says what it needs, it does not pass.
    void flashAttentionWithoutStatistics()
    {
        fixture::Builder b;
        b.step(90, 0, 10);
        b.kernel("FlashAttentionScore", "FlashAttentionScore", "MIX_AIC", 0, 1000, 2, "1,256,512;1,1024,512;1,1024,512", "FLOAT16");
        const AdvisorReport r = runAdvisor(fixture::session({b.p}), fixture::defaults());
        const Finding* f = fixture::find(r, "CMP-FA");
        QVERIFY(f);
        QCOMPARE(f->status, Status::NotChecked);
        QVERIFY(f->needs.find("softmax statistics tensor") != std::string::npos);
    }
};

NPUSCOPE_TEST_MAIN(TestRoofline)

} // namespace test_roofline

#include "test_roofline.moc"
