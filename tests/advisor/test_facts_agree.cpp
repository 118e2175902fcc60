// The step breakdown is computed once per rank: the summary strip's numbers (computeSummary,
// also `compare`'s headline) and the advisor's (advise --format json's summary.ranks) are the
// same on every real sample that has a step breakdown.
#include "advisor/cluster_summary_advice.h"
#include "model/analysis/summary.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QtTest>

#include <cmath>
#include <filesystem>

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

} // namespace

class TestFactsAgree : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    void stripAndAdvisorAgree()
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
        int compared = 0;
        QStringList differ;
        for (const std::string& root : roots) {
            const LoadResult l = loadSession(root);
            if (!l.session || l.session->ranks.empty())
                continue;
            const advisor::AdvisorReport rep = advisor::adviseSession(*l.session, advisor::Thresholds::load({}));
            for (std::size_t i = 0; i < l.session->ranks.size(); ++i) {
                const ProfileSummary s = computeSummary(*l.session->ranks[i]);
                const advisor::RankSplit& a = rep.summary.ranks[i];
                if (s.stepTime <= 0 && a.T <= 0)
                    continue;
                ++compared;
                auto same = [](double x, double y) { return std::abs(x - y) <= 1.0; }; // ns, rounding of a mean
                if (!same(double(s.stepTime), a.T) || !same(double(s.computing), a.computing)
                    || !same(double(s.commNotOverlapped), a.commNotOverlapped) || !same(double(s.free), a.free)
                    || s.steps != a.steps)
                    differ << QStringLiteral("%1 rank %2: strip T %3 comp %4 commNO %5 free %6 steps %7 (%8) | advisor T %9 comp %10 commNO %11 free %12 steps %13 (%14)")
                                  .arg(QString::fromStdString(root)).arg(i)
                                  .arg(s.stepTime).arg(s.computing).arg(s.commNotOverlapped).arg(s.free).arg(s.steps)
                                  .arg(QString::fromStdString(s.stepSource))
                                  .arg(a.T, 0, 'f', 1).arg(a.computing, 0, 'f', 1).arg(a.commNotOverlapped, 0, 'f', 1)
                                  .arg(a.free, 0, 'f', 1).arg(a.steps).arg(QString::fromStdString(a.source));
            }
        }
        qInfo("%d ranks compared", compared);
        QVERIFY2(differ.isEmpty(), qPrintable(differ.join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestFactsAgree)
#include "test_facts_agree.moc"
