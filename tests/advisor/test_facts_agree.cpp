// The step breakdown is computed once per rank (analysis/overlap.h): the summary strip's numbers
// (computeSummary, also `compare`'s headline), the advisor's (summary.ranks), `advise --format
// json`'s summary and `info --format json`'s step_split are the same on every real sample that
// has a step breakdown, and on generated runs.
#include "test_main.h"
#include "../model/cli_run.h"
#include "advisor/cluster_summary_advice.h"
#include "model/analysis/overlap.h"
#include "model/analysis/rank_facts.h"
#include "model/analysis/summary.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <cmath>
#include <filesystem>

namespace test_facts_agree {

using namespace npuscope;
namespace fs = std::filesystem;

namespace {

// Every profile root below the samples: *_ascend_pt, PROF_*, and the folder holding an
// ASCEND_PROFILER_OUTPUT.
std::vector<std::string> sampleRoots()
{
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(NPUSCOPE_SAMPLES, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_directory())
            continue;
        const std::string name = it->path().filename().string();
        if (name.size() > 10 && name.compare(name.size() - 10, 10, "_ascend_pt") == 0) {
            out.push_back(it->path().string());
            it.disable_recursion_pending();
        } else if (name.rfind("PROF_", 0) == 0) {
            out.push_back(it->path().string());
            it.disable_recursion_pending();
        } else if (name == "ASCEND_PROFILER_OUTPUT") {
            out.push_back(it->path().parent_path().string());
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

nlohmann::json runJson(const QStringList& args)
{
    const CliRun r = runCli(args, 120000);
    if (r.code != 0)
        return nlohmann::json();
    return nlohmann::json::parse(r.out.toStdString(), nullptr, false);
}

// A rank's step (T and the median step's split) as one printable line, for the failure message.
struct Split {
    double stepTime = 0, computing = 0, commNotOverlapped = 0, free = 0;
    int steps = 0;
    QString text() const
    {
        return QStringLiteral("T %1 comp %2 commNO %3 free %4 steps %5")
            .arg(stepTime, 0, 'f', 1).arg(computing, 0, 'f', 1).arg(commNotOverlapped, 0, 'f', 1).arg(free, 0, 'f', 1)
            .arg(steps);
    }
    // Within a nanosecond: the median of an even count may fall on a half nanosecond.
    bool same(const Split& o) const
    {
        auto near = [](double x, double y) { return std::abs(x - y) <= 1.0; };
        return near(stepTime, o.stepTime) && near(computing, o.computing) && near(commNotOverlapped, o.commNotOverlapped)
               && near(free, o.free) && steps == o.steps;
    }
};

Split fromJson(const nlohmann::json& j, const char* stepKey)
{
    if (!j.is_object())
        return {};
    return {j.value(stepKey, 0.0), j.value("computing_ns", 0.0), j.value("comm_not_overlapped_ns", 0.0),
            j.value("free_ns", 0.0), j.value("steps", 0)};
}

} // namespace

class TestFactsAgree : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    void stripAdvisorAndCliAgree()
    {
        auto roots = sampleRoots();
        QVERIFY(roots.size() >= 10);
        // And generated runs: torch_npu at levels 1 and 0 (no step_trace_time: the split comes
        // from the timeline), msprof, and a four-rank cluster.
        struct Gen {
            const char* scenario;
            const char* layout;
            int level;
        };
        for (const Gen& g : {Gen{"llama2-baseline", "torch_npu", 1}, Gen{"llama2-optimized", "torch_npu", 0},
                             Gen{"llama2-baseline", "msprof", 1}, Gen{"cluster-slowrank", "torch_npu", 1}}) {
            synth::SynthOptions o;
            o.scenario = g.scenario;
            o.layout = g.layout;
            o.level = g.level;
            o.steps = 3;
            const std::string dir = m_dir.path().toStdString() + "/" + g.scenario + "-" + g.layout + "-" + std::to_string(g.level);
            const synth::SynthResult r = synth::synthesize(dir, o);
            QVERIFY2(r.ok, r.error.c_str());
            roots.push_back(dir);
        }
        int compared = 0, withoutSteps = 0;
        std::size_t ranks = 0;
        QStringList differ;
        for (const std::string& root : roots) {
            const LoadResult l = loadSession(root);
            // Every root found is a profile: one that does not load is a failure, not a rank less
            // to compare.
            QVERIFY2(l.session && !l.session->ranks.empty(), qPrintable(QString::fromStdString(root + ": " + l.error)));
            ranks += l.session->ranks.size();
            const advisor::AdvisorReport rep = advisor::adviseSession(*l.session, advisor::Thresholds::load({}));
            const QString path = QString::fromStdString(root);
            const nlohmann::json info = runJson({"info", "--format", "json", "--no-cache", path});
            const nlohmann::json advise = runJson({"advise", "--format", "json", "--no-cache", path});
            QVERIFY2(info.is_object() && advise.is_object(), qPrintable(path));
            QCOMPARE(info["ranks"].size(), l.session->ranks.size());
            QCOMPARE(advise["summary"]["ranks"].size(), l.session->ranks.size());
            for (std::size_t i = 0; i < l.session->ranks.size(); ++i) {
                const ProfileSummary s = computeSummary(*l.session->ranks[i]);
                const advisor::RankSplit& a = rep.summary.ranks[i];
                if (s.step.stepTime <= 0 && a.T() <= 0) {
                    qInfo("%s rank %zu: no device task, no step", qPrintable(path), i);
                    ++withoutSteps;
                    continue;
                }
                ++compared;
                const Split strip{double(s.step.stepTime), double(s.step.computing), double(s.step.commNotOverlapped),
                                  double(s.step.free), s.step.steps};
                const Split advisor{a.T(), double(a.split.computing), double(a.split.commNotOverlapped), double(a.split.free),
                                    a.split.steps};
                const Split infoSplit = fromJson(info["ranks"][i]["step_split"], "step_ns");
                const Split adviseSplit = fromJson(advise["summary"]["ranks"][i], "step_ns");
                if (!strip.same(advisor) || !strip.same(infoSplit) || !strip.same(adviseSplit))
                    differ << QStringLiteral("%1 rank %2: strip %3 (%4) | advisor %5 (%6) | info %7 | advise json %8")
                                  .arg(path).arg(i).arg(strip.text(), QString::fromStdString(s.step.source),
                                                        advisor.text(), QString::fromStdString(a.split.source),
                                                        infoSplit.text(), adviseSplit.text());
            }
        }
        qInfo("%d ranks compared, %d without steps, of %zu", compared, withoutSteps, ranks);
        // Every rank of every root was compared: those without a step are only the ones the
        // generated runs and the samples do not have.
        QCOMPARE(withoutSteps, 0);
        QCOMPARE(std::size_t(compared), ranks);
        QVERIFY2(differ.isEmpty(), qPrintable(differ.join(QLatin1Char('\n'))));
    }

    // One definition of computation (op_stats.h isComputeTask): the advisor's compute union of a
    // rank (RankFacts::computeUnion, over the kernel table's rows when there are any) is the
    // overlap's Computing set (deviceIntervals, over the timeline's stream tasks), interval by
    // interval, on every rank of every real sample.
    void computeUnionIsTheOverlapsComputing()
    {
        int compared = 0, withCompute = 0;
        std::size_t ranks = 0;
        QStringList differ;
        for (const std::string& root : sampleRoots()) {
            const LoadResult l = loadSession(root);
            QVERIFY2(l.session && !l.session->ranks.empty(), qPrintable(QString::fromStdString(root + ": " + l.error)));
            ranks += l.session->ranks.size();
            for (std::size_t i = 0; i < l.session->ranks.size(); ++i) {
                const Profile& p = *l.session->ranks[i];
                const RankFacts f(p);
                const DeviceIntervals d = deviceIntervals(p);
                ++compared;
                if (!d.compute.empty())
                    ++withCompute;
                // The kernel table and the trace write the same task's microseconds with three
                // decimals each, rounded apart by up to 1 ns.
                auto near = [](const Interval& a, const Interval& b) {
                    return std::abs(a.begin - b.begin) <= 1 && std::abs(a.end - b.end) <= 1;
                };
                if (f.computeUnion.size() != d.compute.size()
                    || !std::equal(f.computeUnion.begin(), f.computeUnion.end(), d.compute.begin(), near))
                    differ << QStringLiteral("%1 rank %2: rank facts %3 intervals, %4 ns; overlap %5 intervals, %6 ns")
                                  .arg(QString::fromStdString(root)).arg(i)
                                  .arg(qlonglong(f.computeUnion.size())).arg(qlonglong(totalLength(f.computeUnion)))
                                  .arg(qlonglong(d.compute.size())).arg(qlonglong(totalLength(d.compute)));
            }
        }
        qInfo("%d ranks compared, %d with computation", compared, withCompute);
        QCOMPARE(std::size_t(compared), ranks);
        QVERIFY(withCompute >= 10);
        QVERIFY2(differ.isEmpty(), qPrintable(differ.join(QLatin1Char('\n'))));
    }
};

NPUSCOPE_TEST_MAIN(TestFactsAgree)

} // namespace test_facts_agree

#include "test_facts_agree.moc"
