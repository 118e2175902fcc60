// The counts-only pass of computeOpStats (OpStatsOptions::countsOnly, what `info` lists): the
// same groups in the same order with the same counts and totals as the full pass, and the
// communication rows it leaves out counted apart, checked against the full pass on the six real
// ranks, against kernel_details.csv read here on its own, and on a hand-built timeline with a range.
#include "test_main.h"
#include "analysis_fixtures.h"
#include "csv_records.h"
#include "model/analysis/op_stats.h"
#include "model/formats/loader.h"
#include "real_ranks.h"

#include <QtTest>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

namespace test_op_stats_counts {

using namespace npuscope;
using namespace npuscope::fixtures;
using npuscope::testing::addRealRankRows;
using npuscope::testing::realRankDir;
using npuscope::testing::usTextToNs;

namespace {

ProfilePtr loadRank(const std::string& dir)
{
    const LoadResult lr = loadSession(dir);
    if (!lr.session || lr.session->ranks.size() != 1)
        return nullptr;
    return lr.session->ranks.front();
}

std::uint64_t countSum(const OpStatsResult& r)
{
    std::uint64_t n = 0;
    for (const auto& g : r.groups)
        n += g.count;
    return n;
}

// The light pass against the full one: the same groups, order, counts and totals; no rows.
void compareToFull(const OpStatsResult& light, const OpStatsResult& full)
{
    QCOMPARE(light.groups.size(), full.groups.size());
    for (std::size_t i = 0; i < full.groups.size(); ++i) {
        QCOMPARE(light.groups[i].key, full.groups[i].key);
        QCOMPARE(light.groups[i].count, full.groups[i].count);
        QCOMPARE(light.groups[i].total, full.groups[i].total);
        QCOMPARE(light.groups[i].count, std::uint64_t(full.groups[i].rows.size()));
        QVERIFY(light.groups[i].rows.empty());
    }
    QCOMPARE(light.deviceTotal, full.deviceTotal);
    QCOMPARE(light.fromTimeline, full.fromTimeline);
    QCOMPARE(light.communicationCount, full.communicationCount);
    QCOMPARE(light.communicationTotal, full.communicationTotal);
}

struct Expected {
    std::vector<std::pair<std::string, std::pair<std::uint64_t, TimeNs>>> types; // by total desc, type
    std::uint64_t commCount = 0;
    TimeNs commTotal = 0;
};

bool startsWithHcom(const std::string& s)
{
    if (s.size() < 4)
        return false;
    std::string head = s.substr(0, 4);
    for (char& c : head)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return head == "hcom";
}

// kernel_details.csv read on its own: rows by Type, communication (Accelerator Core HCCL or
// COMMUNICATION, or a Type starting with "hcom") apart; durations by their digits.
Expected fromKernelCsv(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const auto rows = parseCsv(ss.str());
    Expected e;
    if (rows.empty())
        return e;
    const auto col = [&](const std::string& name) {
        return int(std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin());
    };
    const int type = col("Type"), core = col("Accelerator Core"), dur = col("Duration(us)");
    std::map<std::string, std::pair<std::uint64_t, TimeNs>> byType;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const auto& r = rows[i];
        if (r.size() < rows[0].size())
            continue; // a blank line
        const TimeNs d = usTextToNs(nlohmann::json(r[dur]));
        if (r[core] == "HCCL" || r[core] == "COMMUNICATION" || startsWithHcom(r[type])) {
            ++e.commCount;
            e.commTotal += d;
            continue;
        }
        ++byType[r[type]].first;
        byType[r[type]].second += d;
    }
    e.types.assign(byType.begin(), byType.end());
    std::stable_sort(e.types.begin(), e.types.end(),
                     [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    return e;
}

} // namespace

class TestOpStatsCounts : public QObject {
    Q_OBJECT
private slots:
    void sameAsFullOnRealRanks_data() { addRealRankRows(); }
    void sameAsFullOnRealRanks()
    {
        QFETCH(QString, dir);
        const ProfilePtr p = loadRank(dir.toStdString());
        QVERIFY(p);
        for (const GroupBy by : {GroupBy::Type, GroupBy::Name}) {
            OpStatsOptions fullOpts;
            fullOpts.groupBy = by;
            OpStatsOptions lightOpts = fullOpts;
            lightOpts.countsOnly = true;
            const OpStatsResult full = computeOpStats(*p, fullOpts);
            const OpStatsResult light = computeOpStats(*p, lightOpts);
            QVERIFY(!full.groups.empty());
            compareToFull(light, full);
            // What is left out as communication is what including it adds.
            OpStatsOptions withComm = fullOpts;
            withComm.includeCommunication = true;
            const OpStatsResult all = computeOpStats(*p, withComm);
            QCOMPARE(light.communicationCount, countSum(all) - countSum(full));
            QCOMPARE(light.communicationTotal, all.deviceTotal - full.deviceTotal);
            QCOMPARE(all.communicationCount, std::uint64_t(0));
            QCOMPARE(all.communicationTotal, TimeNs(0));
            // Over a range (the middle half of the span) too.
            const TimeNs quarter = (p->end - p->begin) / 4;
            for (OpStatsOptions* o : {&fullOpts, &lightOpts, &withComm}) {
                o->rangeBegin = p->begin + quarter;
                o->rangeEnd = p->end - quarter;
            }
            const OpStatsResult fullRange = computeOpStats(*p, fullOpts);
            const OpStatsResult lightRange = computeOpStats(*p, lightOpts);
            const OpStatsResult allRange = computeOpStats(*p, withComm);
            compareToFull(lightRange, fullRange);
            QCOMPARE(lightRange.communicationCount, countSum(allRange) - countSum(fullRange));
            QCOMPARE(lightRange.communicationTotal, allRange.deviceTotal - fullRange.deviceTotal);
        }
    }

    void countsFromKernelCsv_data()
    {
        QTest::addColumn<int>("rank");
        QTest::newRow("level1 rank0") << 0;
        QTest::newRow("level1 rank1") << 1;
    }
    void countsFromKernelCsv()
    {
        QFETCH(int, rank);
        const std::string dir = realRankDir("level1", rank);
        const Expected e = fromKernelCsv(dir + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv");
        QVERIFY(!e.types.empty());
        QVERIFY(e.commCount > 0); // the sample's HCCL rows
        const ProfilePtr p = loadRank(dir);
        QVERIFY(p);
        OpStatsOptions o;
        o.countsOnly = true;
        const OpStatsResult r = computeOpStats(*p, o);
        QVERIFY(!r.fromTimeline);
        QCOMPARE(r.groups.size(), e.types.size());
        TimeNs sum = 0;
        for (std::size_t i = 0; i < e.types.size(); ++i) {
            QCOMPARE(r.groups[i].key, e.types[i].first);
            QCOMPARE(r.groups[i].count, e.types[i].second.first);
            QCOMPARE(r.groups[i].total, e.types[i].second.second);
            sum += e.types[i].second.second;
        }
        QCOMPARE(r.deviceTotal, sum);
        QCOMPARE(r.communicationCount, e.commCount);
        QCOMPARE(r.communicationTotal, e.commTotal);
    }

    void timelineWithRange()
    {
        Profile p;
        const TrackId st = addTrack(p, 5, 2, TrackKind::Stream, "Ascend Hardware", "Stream 2");
        addSlice(p, st, "MatMul_1", "AI_CORE", 0, 1000, 1);
        addSlice(p, st, "MatMul_1", "AI_CORE", 2000, 3000, 2);
        addSlice(p, st, "hcom_allReduce__1", "HCCL", 6000, 2000, 3);
        addSlice(p, st, "AddN", "AI_VECTOR_CORE", 9000, 500, 4);
        p.finalize();
        OpStatsOptions o;
        o.countsOnly = true;
        // Whole span: MatMul_1 1000 + 3000 = 4000 ns (2 rows), AddN 500; allReduce 2000 apart.
        const OpStatsResult r = computeOpStats(p, o);
        QVERIFY(r.fromTimeline);
        QCOMPARE(r.groups.size(), std::size_t(2));
        QCOMPARE(r.groups[0].key, std::string("MatMul_1"));
        QCOMPARE(r.groups[0].count, std::uint64_t(2));
        QCOMPARE(r.groups[0].total, TimeNs(4000));
        QCOMPARE(r.groups[1].key, std::string("AddN"));
        QCOMPARE(r.groups[1].total, TimeNs(500));
        QCOMPARE(r.deviceTotal, TimeNs(4500));
        QCOMPARE(r.communicationCount, std::uint64_t(1));
        QCOMPARE(r.communicationTotal, TimeNs(2000));
        // [2500, 7000): the second MatMul_1 from 2500 to 5000, the allReduce from 6000 to 7000.
        o.rangeBegin = 2500;
        o.rangeEnd = 7000;
        const OpStatsResult in = computeOpStats(p, o);
        QCOMPARE(in.groups.size(), std::size_t(1));
        QCOMPARE(in.groups[0].count, std::uint64_t(1));
        QCOMPARE(in.groups[0].total, TimeNs(2500));
        QCOMPARE(in.deviceTotal, TimeNs(2500));
        QCOMPARE(in.communicationCount, std::uint64_t(1));
        QCOMPARE(in.communicationTotal, TimeNs(1000));
    }

    void allRanksSameAsFull()
    {
        std::vector<ProfilePtr> ranks;
        for (int rank : {0, 1}) {
            ranks.push_back(loadRank(realRankDir("level1", rank)));
            QVERIFY(ranks.back());
        }
        OpStatsOptions light;
        light.countsOnly = true;
        const OpStatsResult full = computeOpStatsAllRanks(ranks);
        const OpStatsResult counts = computeOpStatsAllRanks(ranks, light);
        compareToFull(counts, full);
        std::uint64_t comm = 0;
        TimeNs commTotal = 0;
        for (const ProfilePtr& p : ranks) {
            const OpStatsResult one = computeOpStats(*p, light);
            comm += one.communicationCount;
            commTotal += one.communicationTotal;
        }
        QVERIFY(comm > 0);
        QCOMPARE(counts.communicationCount, comm);
        QCOMPARE(counts.communicationTotal, commTotal);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestOpStatsCounts)

} // namespace test_op_stats_counts

#include "test_op_stats_counts.moc"
