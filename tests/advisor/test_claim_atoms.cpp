// The plan's claim atoms (tasks claimed by the same findings): on a generated run's report, each
// atom is the tasks whose claiming findings are exactly its ids, with their count, their summed
// duration and their keys ascending, and the atoms come in the order of their sorted id lists.
// Worked out here from the findings' claims directly, one task at a time.
#include "test_main.h"
#include "advisor/cluster_summary_advice.h"
#include "advisor/rule_context.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"

#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace test_claim_atoms {

using namespace npuscope;
using namespace npuscope::advisor;

class TestClaimAtoms : public QObject {
    Q_OBJECT
private slots:
    void atomsFromClaims()
    {
        for (const char* scenario : {"llama2-baseline", "cluster-slowrank"}) {
            const std::string dir = m_dir.path().toStdString() + "/" + scenario;
            synth::SynthOptions o;
            o.seed = 5;
            o.scenario = scenario;
            QVERIFY(synth::synthesize(dir, o).ok);
            const LoadResult lr = loadSession(dir);
            QVERIFY2(lr.session, lr.error.c_str());
            std::vector<ProfileFacts> facts;
            for (const auto& rank : lr.session->ranks)
                facts.emplace_back(*rank);
            const AdvisorReport rep = adviseSession(*lr.session, Thresholds::load({}));

            // Each claimed task's set of finding ids, then the tasks grouped by that set.
            std::map<std::uint64_t, std::set<std::string>> byKey;
            std::size_t claiming = 0;
            for (const Finding& f : rep.findings)
                if (f.status == Status::Fired && !f.claims.empty()) {
                    ++claiming;
                    for (std::uint64_t k : f.claims)
                        byKey[k].insert(f.id);
                }
            QVERIFY2(claiming >= 2, scenario);
            struct Want {
                std::size_t tasks = 0;
                double ns = 0;
                std::vector<std::uint64_t> keys;
            };
            std::map<std::vector<std::string>, Want> want;
            for (const auto& [key, ids] : byKey) {
                Want& w = want[std::vector<std::string>(ids.begin(), ids.end())];
                ++w.tasks;
                const std::size_t rank = static_cast<std::size_t>(key >> kClaimRankShift) - 1;
                const std::size_t task = key & ((std::uint64_t{1} << kClaimRankShift) - 1);
                QVERIFY(rank < facts.size() && task < facts[rank].tasks.size());
                w.ns += static_cast<double>(facts[rank].tasks[task].dur);
                w.keys.push_back(key);
            }

            const std::vector<ClaimAtom> got = claimAtoms(rep, facts);
            QCOMPARE(got.size(), want.size());
            std::size_t i = 0;
            for (const auto& [ids, w] : want) {
                const ClaimAtom& a = got[i++];
                QVERIFY(a.ids == ids);
                QCOMPARE(a.tasks, w.tasks);
                QCOMPARE(a.ns, w.ns);
                QVERIFY(a.keys == w.keys);
            }
        }
    }

private:
    QTemporaryDir m_dir;
};

NPUSCOPE_TEST_GUILESS_MAIN(TestClaimAtoms)

} // namespace test_claim_atoms

#include "test_claim_atoms.moc"
