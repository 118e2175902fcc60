// Clock alignment (model/analysis/clock_align.h): hand-built clusters with planted clock offsets
// (recovered within 20 µs), chains across groups, refusals (inconsistent ends, no shared
// collective, a rank missing a collective), and the real two-rank run, its offset checked
// against the ends of its collectives read from trace_view.json here.
#include "test_main.h"
#include "real_ranks.h"
#include "model/analysis/clock_align.h"
#include "model/cluster_summary/summary_clock.h"
#include "model/formats/loader.h"

#include "analysis_fixtures.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <cmath>
#include <fstream>
#include <map>

namespace test_clock_align {

using namespace npuscope;
using namespace npuscope::testing;

namespace {

const std::string kLevel1 = NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1";

// A deterministic jitter in [-amp, amp] ns.
TimeNs jitter(int rank, int i, TimeNs amp)
{
    const std::uint64_t h = (static_cast<std::uint64_t>(rank) * 2654435761u + static_cast<std::uint64_t>(i) * 40503u) % 2001u;
    return static_cast<TimeNs>((static_cast<double>(h) / 1000.0 - 1.0) * static_cast<double>(amp));
}

struct GroupSpec {
    std::string lane;
    int count = 0;
};

// One rank: `count` collectives per group; the true instance i ends at 10 ms + i·2 ms (+ jitter)
// after starting up to 600 µs earlier; the file's times are the true ones + offset.
ProfilePtr makeRank(int rank, TimeNs offset, const std::vector<GroupSpec>& groups, TimeNs endJitter = 2'000)
{
    auto p = std::make_shared<Profile>();
    p->rank = rank;
    p->name = "rank " + std::to_string(rank);
    std::int64_t tid = 0;
    for (const GroupSpec& g : groups) {
        const TrackId t = fixtures::addTrack(*p, 9000, tid++, TrackKind::CommGroup, "Communication", g.lane);
        for (int i = 0; i < g.count; ++i) {
            const TimeNs end = 1'000'000'000 + 10'000'000 + i * 2'000'000 + jitter(rank, i, endJitter);
            const TimeNs start = end - 400'000 - 100'000 * ((rank + i) % 3);
            fixtures::addSlice(*p, t, "hcom_allReduce__7_" + std::to_string(i) + "_1", "", start + offset, end - start);
        }
    }
    p->finalize();
    return p;
}

Session sessionOf(std::vector<ProfilePtr> ranks)
{
    Session s;
    s.ranks = std::move(ranks);
    return s;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

} // namespace

class TestClockAlign : public QObject {
    Q_OBJECT

private slots:
    void plantedOffsetsRecovered()
    {
        const std::vector<TimeNs> planted{700'000, 3'200'000, -5'000'000, 1'234'567, 5'000'000};
        std::vector<ProfilePtr> ranks;
        for (int r = 0; r < 5; ++r)
            ranks.push_back(makeRank(r, planted[r], {{"Group 0 Communication", 12}}));
        const Session s = sessionOf(ranks);
        const ClockAlignment a = alignClocks(s);
        QCOMPARE(a.reference, 0);
        QCOMPARE(a.ranks.size(), std::size_t(5));
        for (int r = 0; r < 5; ++r) {
            const RankClock& c = a.ranks[r];
            QVERIFY2(c.estimated, c.note.c_str());
            const TimeNs want = planted[r] - planted[0];
            QVERIFY2(std::llabs(c.offset - want) <= 20'000,
                     ("rank " + std::to_string(r) + ": " + std::to_string(c.offset) + " vs " + std::to_string(want)).c_str());
            if (r > 0) {
                QCOMPARE(c.shared, 12);
                QCOMPARE(c.via, 0);
                QVERIFY(c.spread <= 8'000); // two ±2 µs jitters
            }
        }
    }

    void chainedAcrossGroups()
    {
        // Group A: ranks 0..2 (the largest); group B: ranks 2 and 3. Rank 3 is reached through 2.
        const std::vector<TimeNs> planted{0, -2'500'000, 4'000'000, -3'300'000};
        std::vector<ProfilePtr> ranks;
        for (int r = 0; r < 3; ++r) {
            std::vector<GroupSpec> g{{"Group A Communication", 6}};
            if (r == 2)
                g.push_back({"Group B Communication", 5});
            ranks.push_back(makeRank(r, planted[r], g));
        }
        ranks.push_back(makeRank(3, planted[3], {{"Group B Communication", 5}}));
        const ClockAlignment a = alignClocks(sessionOf(ranks));
        QCOMPARE(a.reference, 0);
        for (int r = 0; r < 4; ++r)
            QVERIFY2(std::llabs(a.ranks[r].offset - planted[r]) <= 20'000, a.ranks[r].note.c_str());
        QCOMPARE(a.ranks[3].via, 2);
        QCOMPARE(a.ranks[3].group, std::string("Group B Communication"));
        QVERIFY(a.ranks[3].note.find("chained") != std::string::npos);
    }

    void inconsistentEndsRefused()
    {
        // Rank 1's ends scatter by ±0.6 ms: above min(1 ms, 10 % of ~0.5 ms) = 50 µs.
        std::vector<ProfilePtr> ranks{makeRank(0, 0, {{"Group 0 Communication", 20}}),
                                      makeRank(1, 2'000'000, {{"Group 0 Communication", 20}}, 600'000)};
        const ClockAlignment a = alignClocks(sessionOf(ranks));
        QVERIFY(!a.ranks[1].estimated);
        QCOMPARE(a.ranks[1].offset, TimeNs(0)); // never moved by more than the data supports
        QVERIFY2(a.ranks[1].note.find("disagree") != std::string::npos, a.ranks[1].note.c_str());
        QVERIFY(a.ranks[1].spread > a.ranks[1].threshold);
        QCOMPARE(a.ranks[1].threshold, TimeNs(50'000)); // 10 % of the 500 µs median duration
    }

    void missingCollectiveReportedAndSkipped()
    {
        std::vector<ProfilePtr> ranks{makeRank(0, 0, {{"Group 0 Communication", 8}}),
                                      makeRank(1, 1'000'000, {{"Group 0 Communication", 8}}),
                                      makeRank(2, 2'000'000, {{"Group 0 Communication", 7}})};
        const Session s = sessionOf(ranks);
        const CollectiveMatch m = matchCollectives(s);
        QCOMPARE(m.groups.size(), std::size_t(1));
        QCOMPARE(m.groups[0].members.size(), std::size_t(2));
        QCOMPARE(m.problems.size(), std::size_t(1));
        QVERIFY2(m.problems[0].find("rank 2") != std::string::npos && m.problems[0].find("7 collectives") != std::string::npos,
                 m.problems[0].c_str());
        const ClockAlignment a = alignClocks(s, m);
        QVERIFY(std::llabs(a.ranks[1].offset - 1'000'000) <= 20'000);
        QVERIFY(!a.ranks[2].estimated);
        QCOMPARE(a.ranks[2].offset, TimeNs(0));
        QVERIFY(a.ranks[2].note.find("shares no collective") != std::string::npos);
    }

    void singleRankRawAndManual()
    {
        const ClockAlignment one = alignClocks(sessionOf({makeRank(0, 5'000, {{"Group 0 Communication", 3}})}));
        QCOMPARE(one.status, std::string("single rank: no alignment"));
        QCOMPARE(one.ranks[0].offset, TimeNs(0));
        const Session two = sessionOf(
            {makeRank(0, 0, {{"Group 0 Communication", 4}}), makeRank(1, 3'000'000, {{"Group 0 Communication", 4}})});
        ClockOptions raw;
        raw.raw = true;
        QCOMPARE(alignClocks(two, raw).ranks[1].offset, TimeNs(0));
        ClockOptions manual;
        manual.manual = {{1, -42}, {7, 1}};
        const ClockAlignment m = alignClocks(two, manual);
        QCOMPARE(m.ranks[1].offset, TimeNs(-42));
        QVERIFY(m.ranks[1].manual);
        QVERIFY(!m.problems.empty() && m.problems.back().find("rank 7") != std::string::npos);
        int rank = -1;
        TimeNs ns = 0;
        QVERIFY(parseClockOffset("1=-5.6ms", rank, ns) && rank == 1 && ns == -5'600'000);
        QVERIFY(parseClockOffset("12=250", rank, ns) && rank == 12 && ns == 250);
        QVERIFY(!parseClockOffset("x=1", rank, ns));
        QVERIFY(!parseClockOffset("1=", rank, ns));
        QVERIFY(!parseClockOffset("1=5furlongs", rank, ns));
    }

    // A cluster summary: each rank's collective times, the offsets from them at assembly.
    void summaryKeepsTheOffsets()
    {
        const std::vector<TimeNs> planted{0, -4'200'000, 2'500'000};
        nlohmann::json doc;
        doc["ranks"] = nlohmann::json::array();
        for (int r = 0; r < 3; ++r) {
            const ProfilePtr p = makeRank(r, planted[r], {{"Group 0 Communication", 9}, {"Group 1 Communication", 4}});
            nlohmann::json rank = {{"rank", r}, {"overview", nlohmann::json::object()}};
            rank["collective_times"] = cluster_summary::collectiveTimesJson(*p);
            QCOMPARE(rank["collective_times"]["Group 0 Communication"]["ends_ns"].size(), std::size_t(9));
            doc["ranks"].push_back(rank);
        }
        cluster_summary::addClockOffsets(doc);
        for (int r = 0; r < 3; ++r) {
            QVERIFY(!doc["ranks"][r].contains("collective_times")); // the file keeps the offsets alone
            QVERIFY(std::llabs(doc["clock_offsets_ns"][std::to_string(r)].get<TimeNs>() - planted[r]) <= 20'000);
        }
        QCOMPARE(doc["clock"]["reference_rank"].get<int>(), 0);
        // An older summary has no collective times: no offsets, every rank 0, said so.
        nlohmann::json old;
        old["ranks"] = nlohmann::json::array(
            {{{"rank", 0}, {"overview", nlohmann::json::object()}}, {{"rank", 1}, {"overview", nlohmann::json::object()}}});
        cluster_summary::addClockOffsets(old);
        QCOMPARE(old["clock_offsets_ns"]["1"].get<TimeNs>(), TimeNs(0));
        QVERIFY(old["clock"]["status"].get<std::string>().find("share no collective") != std::string::npos);
    }

    void realTwoRankOffset()
    {
        // The ends of the "Group 0 Communication" collectives of each rank, read here.
        std::map<int, std::vector<TimeNs>> ends;
        for (int r : {0, 1}) {
            std::ifstream in(kLevel1 + "/rank" + std::to_string(r) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json");
            const nlohmann::json doc = nlohmann::json::parse(in);
            const nlohmann::json& ev = doc.is_array() ? doc : doc["traceEvents"];
            std::map<std::pair<std::int64_t, std::int64_t>, std::string> threads;
            for (const auto& e : ev)
                if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name")
                    threads[{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()}] = e["args"]["name"];
            std::vector<std::pair<TimeNs, TimeNs>> ops; // (start, end) ns
            for (const auto& e : ev) {
                if (e.value("ph", "") != "X")
                    continue;
                const auto it = threads.find({e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()});
                if (it == threads.end() || it->second != "Group 0 Communication")
                    continue;
                const TimeNs ts = usTextToNs(e["ts"]);
                ops.push_back({ts, ts + usTextToNs(e["dur"])});
            }
            std::sort(ops.begin(), ops.end());
            for (const auto& o : ops)
                ends[r].push_back(o.second);
        }
        QCOMPARE(ends[0].size(), std::size_t(4));
        QCOMPARE(ends[1].size(), ends[0].size());
        std::vector<double> d;
        for (std::size_t i = 0; i < ends[0].size(); ++i)
            d.push_back(static_cast<double>(ends[1][i] - ends[0][i]));
        const double want = median(d);

        const LoadResult lr = loadSession(kLevel1);
        QVERIFY2(lr.session, lr.error.c_str());
        const ClockAlignment a = alignClocks(*lr.session);
        QCOMPARE(a.reference, 0);
        QVERIFY2(a.ranks[1].estimated, a.ranks[1].note.c_str());
        QCOMPARE(a.ranks[1].shared, 4);
        QVERIFY2(std::abs(static_cast<double>(a.ranks[1].offset) - want) <= 3.0,
                 (std::to_string(a.ranks[1].offset) + " vs " + std::to_string(want)).c_str());
        QVERIFY(std::abs(want) < 50'000); // the two ranks' clocks agree within tens of µs
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestClockAlign)

} // namespace test_clock_align

#include "test_clock_align.moc"
