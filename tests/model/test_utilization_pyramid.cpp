// The derived utilisation curves at any zoom (model/analysis/utilization_pyramid.h): every
// window's bins are no wider than asked and never more than twice finer than needed on the
// pyramid's levels, and each value equals the one worked out here from the kernel rows alone
// (a brute-force integral over the bin, or the tasks running at an instant between exact edges),
// on generated rows and on the real level-1 sample's kernel table.
#include "test_main.h"
#include "analysis_fixtures.h"
#include "model/analysis/op_stats.h"
#include "model/analysis/utilization.h"
#include "model/analysis/utilization_pyramid.h"
#include "model/formats/loader.h"

#include <QtTest>

#include <cmath>
#include <random>

namespace test_utilization_pyramid {

using namespace npuscope;
using namespace npuscope::fixtures;

namespace {

const std::string kLevel1Rank0 = NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";

// The brute force: every row, its metrics read here, not through the pyramid.
struct Reference {
    const Profile& p;
    int cube, mac, vec, hit, miss, bw;

    explicit Reference(const Profile& prof)
        : p(prof), cube(prof.kernels.metricIndex({"cube_utilization(%)"})),
          mac(prof.kernels.metricIndex({"aic_mac_ratio"})), vec(prof.kernels.metricIndex({"aiv_vec_ratio"})),
          hit(prof.kernels.metricIndex({"aic_r0_read_cache_hit"})),
          miss(prof.kernels.metricIndex({"aic_r0_read_cache_miss_allocate"})),
          bw(prof.kernels.metricIndex({"aic_main_mem_read_bw(GB/s)"}))
    {
    }
    bool counts(std::size_t r) const
    {
        const KernelTable& k = p.kernels;
        return k.dur[r] > 0 && !isCommunicationTask(p.str(k.taskType[r]), p.str(k.type[r]));
    }
    double util(std::size_t r) const
    {
        const KernelTable& k = p.kernels;
        const double c = k.metric(cube, r);
        if (!std::isnan(c))
            return c / 100;
        const double a = k.metric(mac, r), b = k.metric(vec, r);
        return std::isnan(a) ? (std::isnan(b) ? 0 : b) : (std::isnan(b) ? a : std::max(a, b));
    }
    // The quantity over [a, b): utilisation %, bandwidth GB/s or L2 hit % (NaN without a task).
    double over(DerivedQuantity q, TimeNs a, TimeNs b) const
    {
        const KernelTable& k = p.kernels;
        double sum = 0, h = 0, m = 0;
        for (std::size_t r = 0; r < k.size(); ++r) {
            if (!counts(r))
                continue;
            const double ov = static_cast<double>(std::min(b, k.start[r] + k.dur[r]) - std::max(a, k.start[r]));
            if (ov <= 0)
                continue;
            if (q == DerivedQuantity::AiCoreUtilization)
                sum += util(r) * ov;
            else if (q == DerivedQuantity::Bandwidth)
                sum += (std::isnan(k.metric(bw, r)) ? 0 : k.metric(bw, r)) * ov;
            else {
                const double d = static_cast<double>(k.dur[r]);
                h += (std::isnan(k.metric(hit, r)) ? 0 : k.metric(hit, r)) * ov / d;
                m += (std::isnan(k.metric(miss, r)) ? 0 : k.metric(miss, r)) * ov / d;
            }
        }
        const double w = static_cast<double>(b - a);
        if (q == DerivedQuantity::AiCoreUtilization)
            return std::min(1.0, sum / w) * 100;
        if (q == DerivedQuantity::Bandwidth)
            return sum / w;
        return h + m > 0 ? h / (h + m) * 100 : kNaN;
    }
    // The quantity at an instant: the tasks running at t.
    double at(DerivedQuantity q, TimeNs t) const { return over(q, t, t + 1); }
};

bool same(double a, double b)
{
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

// Every piece of w against the brute force; returns the first disagreement, empty if none.
QString checkWindow(const Reference& ref, const UtilizationPyramid& py, DerivedQuantity q, const CurveWindow& w)
{
    if (w.t.size() < 2 || w.t.size() != w.v.size())
        return QStringLiteral("%1 points").arg(w.t.size());
    for (std::size_t i = 0; i + 1 < w.t.size(); ++i) {
        if (w.t[i + 1] <= w.t[i])
            return QStringLiteral("piece %1 is empty").arg(i);
        if (w.binNs > 0 && w.t[i + 1] - w.t[i] != w.binNs)
            return QStringLiteral("bin %1 is %2 ns wide, not %3").arg(i).arg(w.t[i + 1] - w.t[i]).arg(w.binNs);
        if (w.binNs > 0 && (w.t[i] - py.begin()) % w.binNs != 0)
            return QStringLiteral("bin %1 is off the grid").arg(i);
        // Exact edges: the value holds over the whole piece, so at its first and last ns.
        const double expected = w.binNs > 0 ? ref.over(q, w.t[i], w.t[i + 1]) : ref.at(q, w.t[i]);
        if (!same(w.v[i], expected))
            return QStringLiteral("piece %1 [%2, %3): %4, the rows say %5")
                .arg(i).arg(w.t[i]).arg(w.t[i + 1]).arg(w.v[i]).arg(expected);
        if (w.binNs == 0 && !same(w.v[i], ref.at(q, w.t[i + 1] - 1)))
            return QStringLiteral("piece %1 changes inside").arg(i);
    }
    if (!same(w.v.back(), w.v[w.v.size() - 2]))
        return QStringLiteral("the end point does not repeat the last value");
    return {};
}

// 3000 tasks on 4 streams, 50 ns to 200 µs long with gaps, a few of 5 ms spanning many bins, and
// HCCL tasks that never count.
std::shared_ptr<Profile> generated()
{
    auto p = std::make_shared<Profile>();
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<TimeNs> dur(50, 200'000), gap(0, 30'000);
    std::uniform_real_distribution<double> ratio(0, 1);
    for (int stream = 0; stream < 4; ++stream) {
        TimeNs t = 1'000'000 + stream * 777;
        for (int i = 0; i < 750; ++i) {
            const TimeNs d = i % 250 == 17 ? 5'000'000 : dur(rng);
            if (i % 40 == 3)
                addKernel(*p, "hcom_allReduce_" + std::to_string(i), "hcom_allReduce_", "HCCL", t, d);
            else if (i % 3 == 0) // a vector task: the pipe ratio, no cube_utilization
                addKernel(*p, "add", "Add", "AI_VECTOR_CORE", t, d,
                          {{"aiv_vec_ratio", ratio(rng)}, {"aic_main_mem_read_bw(GB/s)", 900 * ratio(rng)}});
            else
                addKernel(*p, "mm", "MatMul", "AI_CORE", t, d,
                          {{"cube_utilization(%)", 100 * ratio(rng)}, {"aic_mac_ratio", ratio(rng)},
                           {"aic_r0_read_cache_hit", std::floor(1e6 * ratio(rng))},
                           {"aic_r0_read_cache_miss_allocate", std::floor(1e5 * ratio(rng))},
                           {"aic_main_mem_read_bw(GB/s)", 1600 * ratio(rng)}});
            t += d + gap(rng);
        }
    }
    p->finalize();
    return p;
}

TimeNs kernelEnd(const Profile& p)
{
    TimeNs end = 0;
    for (std::size_t r = 0; r < p.kernels.size(); ++r)
        end = std::max(end, p.kernels.start[r] + p.kernels.dur[r]);
    return end;
}

} // namespace

class TestUtilizationPyramid : public QObject {
    Q_OBJECT

private slots:
    void windowsAtEveryZoom()
    {
        const auto p = generated();
        const TimeNs begin = 1'000'000, end = kernelEnd(*p);
        const UtilizationPyramid py(*p, -1, begin, end);
        const Reference ref(*p);
        QCOMPARE(py.taskCount(), std::size_t(3000 - 4 * 19)); // the HCCL rows (every 40th from 3) are out
        QVERIFY(py.has(DerivedQuantity::AiCoreUtilization) && py.has(DerivedQuantity::Bandwidth)
                && py.has(DerivedQuantity::L2HitRate));
        QVERIFY(py.l2FromCounters());
        QCOMPARE(py.utilizationSource(), std::string("cube_utilization(%)"));
        // Level 0: 4096 bins at most (the power of two at or above 2924 tasks), of a power-of-two width.
        QVERIFY((end - begin + py.finestBinNs() - 1) / py.finestBinNs() <= 4096);
        QVERIFY((end - begin + py.finestBinNs() / 2 - 1) / (py.finestBinNs() / 2) > 4096);
        QCOMPARE(std::popcount(static_cast<std::uint64_t>(py.finestBinNs())), 1);

        // Windows from the whole span to 20 µs, for 800 and 37 bins.
        const TimeNs span = end - begin;
        std::vector<std::pair<TimeNs, TimeNs>> windows = {{begin, end}, {begin + span / 3, begin + span / 2},
                                                          {begin + span / 7, begin + span / 7 + span / 150},
                                                          {begin + span / 2, begin + span / 2 + 20'000}};
        int levels = 0, binned = 0, exact = 0;
        for (const auto& [from, to] : windows)
            for (const TimeNs bins : {TimeNs(800), TimeNs(37)}) {
                const TimeNs maxBin = std::max<TimeNs>(1, (to - from) / bins);
                for (const DerivedQuantity q : {DerivedQuantity::AiCoreUtilization, DerivedQuantity::Bandwidth,
                                                DerivedQuantity::L2HitRate}) {
                    const CurveWindow w = py.window(q, from, to, maxBin);
                    const QString bad = checkWindow(ref, py, q, w);
                    QVERIFY2(bad.isEmpty(), qPrintable(QStringLiteral("window [%1, %2), %3 bins: ").arg(from).arg(to).arg(bins) + bad));
                    QVERIFY(w.binNs <= maxBin);
                    // The window is covered: from its first bin (or its start) to past its end.
                    QVERIFY(w.t.front() <= from && w.t.back() >= to);
                    if (w.binNs >= py.finestBinNs()) {
                        QVERIFY2(w.binNs * 2 > maxBin, "a level finer than needed was read"); // and never coarser
                        ++levels;
                    } else if (w.binNs > 0) {
                        ++binned;
                    } else {
                        ++exact;
                    }
                }
            }
        // Each way was taken: a pyramid level, bins from the window's rows, exact edges.
        QVERIFY2(levels > 0 && binned > 0 && exact > 0, qPrintable(QStringLiteral("%1 %2 %3").arg(levels).arg(binned).arg(exact)));
    }

    void exactEdgesAtAKernel()
    {
        // Two overlapping tasks and a gap: 40 % over [10, 30) µs, 40 + 30 % over [20, 30), 30 % to 50,
        // nothing to 60, then 90 %.
        Profile p;
        addKernel(p, "a", "MatMul", "AI_CORE", 10'000, 20'000, {{"cube_utilization(%)", 40}});
        addKernel(p, "b", "MatMul", "AI_CORE", 20'000, 30'000, {{"cube_utilization(%)", 30}});
        addKernel(p, "c", "MatMul", "AI_CORE", 60'000, 10'000, {{"cube_utilization(%)", 90}});
        p.finalize();
        const UtilizationPyramid py(p, -1, 0, 80'000);
        const CurveWindow w = py.window(DerivedQuantity::AiCoreUtilization, 0, 80'000, 100);
        QCOMPARE(w.binNs, TimeNs(0));
        QCOMPARE(w.t, (std::vector<TimeNs>{0, 10'000, 20'000, 30'000, 50'000, 60'000, 70'000, 80'000}));
        QCOMPARE(w.v.size(), w.t.size());
        const std::vector<double> expected{0, 40, 70, 30, 0, 90, 0, 0};
        for (std::size_t i = 0; i < expected.size(); ++i)
            QVERIFY2(std::fabs(w.v[i] - expected[i]) < 1e-12, qPrintable(QString::number(w.v[i])));
        // Wide bins: the pyramid's; 40 µs bins from 0 average [0, 40) and [40, 80).
        const CurveWindow wide = py.window(DerivedQuantity::AiCoreUtilization, 0, 80'000, 40'000);
        QVERIFY(wide.binNs <= 40'000 && wide.binNs > 20'000);
        // And utilizationSeries' automatic series is the whole span's window, less its end point.
        const std::vector<Series> series = utilizationSeries(p, 0);
        QCOMPARE(series.size(), std::size_t(1));
        QVERIFY(series[0].pyramid);
        QCOMPARE(series[0].quantity, DerivedQuantity::AiCoreUtilization);
        const CurveWindow whole = series[0].pyramid->window(DerivedQuantity::AiCoreUtilization, p.begin, p.end, 1000);
        QCOMPARE(series[0].t, std::vector<TimeNs>(whole.t.begin(), whole.t.end() - 1));
        QCOMPARE(series[0].v, std::vector<double>(whole.v.begin(), whole.v.end() - 1));
    }

    // The real level-1 sample: a MatMul's curve starts at the kernel's start at every zoom.
    void realSample()
    {
        const LoadResult r = loadSession(kLevel1Rank0, LoadOptions{});
        QVERIFY2(r.session && !r.session->ranks.empty(), r.error.c_str());
        const Profile& p = *r.session->ranks[0];
        const std::vector<Series> all = utilizationSeries(p, 0);
        const Series* util = nullptr;
        for (const Series& s : all)
            if (s.name.starts_with("AI Core utilization"))
                util = &s;
        QVERIFY(util && util->pyramid);
        const UtilizationPyramid& py = *util->pyramid;
        const Reference ref(p);
        // The longest AI_CORE task with a utilisation.
        std::size_t row = p.kernels.size();
        for (std::size_t k = 0; k < p.kernels.size(); ++k)
            if (ref.counts(k) && ref.util(k) > 0 && (row == p.kernels.size() || p.kernels.dur[k] > p.kernels.dur[row]))
                row = k;
        QVERIFY(row < p.kernels.size());
        const TimeNs s = p.kernels.start[row], d = p.kernels.dur[row];
        const TimeNs span = py.end() - py.begin();
        for (const TimeNs window : {span, span / 50, d * 4}) {
            const TimeNs from = std::max(py.begin(), s - window / 3);
            const TimeNs maxBin = std::max<TimeNs>(1, window / 700);
            const CurveWindow w = py.window(DerivedQuantity::AiCoreUtilization, from, from + window, maxBin);
            const QString bad = checkWindow(ref, py, DerivedQuantity::AiCoreUtilization, w);
            QVERIFY2(bad.isEmpty(), qPrintable(bad));
            QVERIFY(w.binNs <= maxBin);
            // The first piece holding the kernel's start begins within one bin of it.
            const auto at = std::upper_bound(w.t.begin(), w.t.end(), s) - w.t.begin() - 1;
            QVERIFY(at >= 0);
            QVERIFY(s - w.t[static_cast<std::size_t>(at)] < std::max<TimeNs>(1, w.binNs));
            if (w.binNs == 0)
                QCOMPARE(w.t[static_cast<std::size_t>(at)], s); // exact: the step is at the kernel's start
        }
    }
};

NPUSCOPE_TEST_APPLESS_MAIN(TestUtilizationPyramid)

} // namespace test_utilization_pyramid

#include "test_utilization_pyramid.moc"
