// OperatorRankingModel over a hand-built profile (tests/views/operator_fixture.h): every
// column's raw value, the presets, group-by, time ranges, and QAbstractItemModelTester.
#include "test_main.h"
#include "operator_fixture.h"
#include "views/operator_ranking_model.h"

#include <QAbstractItemModelTester>
#include <QTest>

#include <cmath>

namespace test_operator_ranking_model {

using namespace npuscope;
using M = OperatorRankingModel;

class TestOperatorRankingModel : public QObject {
    Q_OBJECT

    SessionPtr m_session = view_fixture::makeSession();

    QVariant raw(const M& m, int row, int col) { return m.index(row, col).data(M::RawValueRole); }
    int rowOf(const M& m, const char* key) { return m.rowForKey(QString::fromLatin1(key)); }

private slots:
    void durationPresetByType()
    {
        M m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setProfile(m_session->ranks[0], 0);
        QCOMPARE(m.rowCount(), 3); // communication rows are left out of the compute ranking
        QCOMPARE(m.columnCount(), int(M::ColumnCount));
        // Sorted by total, descending.
        QCOMPARE(m.keyAt(0), QStringLiteral("MatMulV2"));
        QCOMPARE(m.keyAt(1), QStringLiteral("Cast"));
        QCOMPARE(m.keyAt(2), QStringLiteral("Add"));
        const double deviceTotal = 12000 + 5500 + 4000;

        const int mm = 0;
        QCOMPARE(raw(m, mm, M::Name).toString(), QStringLiteral("MatMulV2"));
        QCOMPARE(raw(m, mm, M::Count).toULongLong(), 3ull);
        QCOMPARE(raw(m, mm, M::Total).toDouble(), 12000.0);
        QCOMPARE(raw(m, mm, M::Share).toDouble(), 12000.0 / deviceTotal);
        QCOMPARE(raw(m, mm, M::Avg).toDouble(), 4000.0);
        QCOMPARE(raw(m, mm, M::Min).toDouble(), 2000.0);
        QCOMPARE(raw(m, mm, M::Max).toDouble(), 6000.0);
        // Nearest rank over {2000, 4000, 6000}: ceil(.5·3) = 2nd, ceil(.9·3) = ceil(.99·3) = 3rd.
        QCOMPARE(raw(m, mm, M::P50).toDouble(), 4000.0);
        QCOMPARE(raw(m, mm, M::P90).toDouble(), 6000.0);
        QCOMPARE(raw(m, mm, M::P99).toDouble(), 6000.0);
        // (0.8·4000 + 0.5·6000 + 0.2·2000) / 12000
        QCOMPARE(raw(m, mm, M::AicUtil).toDouble(), 6600.0 / 12000.0);
        // Σ hits / (Σ hits + Σ misses) = 100 / 140
        QCOMPARE(raw(m, mm, M::L2Hit).toDouble(), 100.0 / 140.0);
        // (120·4000 + 200·6000 + 60·2000) / 12000 and (30·4000 + 10·6000 + 90·2000) / 12000
        QCOMPARE(raw(m, mm, M::ReadBw).toDouble(), 150.0);
        QCOMPARE(raw(m, mm, M::WriteBw).toDouble(), 30.0);
        QCOMPARE(raw(m, mm, M::Bound).toString(), QStringLiteral("compute")); // mac 0.9 ≥ 0.8
        QCOMPARE(raw(m, mm, M::Core).toString(), QStringLiteral("AI_CORE"));

        const int add = 2;
        QCOMPARE(raw(m, add, M::Count).toULongLong(), 2ull);
        QCOMPARE(raw(m, add, M::Total).toDouble(), 4000.0);
        QCOMPARE(raw(m, add, M::Share).toDouble(), 4000.0 / deviceTotal);
        QCOMPARE(raw(m, add, M::Avg).toDouble(), 2000.0);
        QCOMPARE(raw(m, add, M::Min).toDouble(), 1000.0);
        QCOMPARE(raw(m, add, M::Max).toDouble(), 3000.0);
        QCOMPARE(raw(m, add, M::P50).toDouble(), 1000.0);
        QCOMPARE(raw(m, add, M::P90).toDouble(), 3000.0);
        QCOMPARE(raw(m, add, M::P99).toDouble(), 3000.0);
        // No cube_utilization: aiv_vec_ratio, (0.5·1000 + 0.25·3000) / 4000
        QCOMPARE(raw(m, add, M::AicUtil).toDouble(), 0.3125);
        QVERIFY(std::isnan(raw(m, add, M::L2Hit).toDouble()));
        QCOMPARE(raw(m, add, M::ReadBw).toDouble(), 300.0);
        QCOMPARE(raw(m, add, M::WriteBw).toDouble(), 20.0);
        QCOMPARE(raw(m, add, M::Bound).toString(), QStringLiteral("latency")); // all ratios low, avg < 20 µs
        QCOMPARE(raw(m, add, M::Core).toString(), QStringLiteral("AI_VECTOR_CORE"));

        const int cast = 1;
        QCOMPARE(raw(m, cast, M::Count).toULongLong(), 10ull);
        QCOMPARE(raw(m, cast, M::Total).toDouble(), 5500.0);  // 100 + 200 + … + 1000
        QCOMPARE(raw(m, cast, M::Avg).toDouble(), 550.0);
        QCOMPARE(raw(m, cast, M::Min).toDouble(), 100.0);
        QCOMPARE(raw(m, cast, M::Max).toDouble(), 1000.0);
        QCOMPARE(raw(m, cast, M::P50).toDouble(), 500.0);  // 5th of 10
        QCOMPARE(raw(m, cast, M::P90).toDouble(), 900.0);  // 9th
        QCOMPARE(raw(m, cast, M::P99).toDouble(), 1000.0); // 10th
        for (int c : {M::AicUtil, M::L2Hit, M::ReadBw, M::WriteBw})
            QVERIFY2(std::isnan(raw(m, cast, c).toDouble()), qPrintable(QString::number(c)));
        QCOMPARE(raw(m, cast, M::Bound).toString(), QStringLiteral("unknown"));

        // Roles around the raw value.
        QCOMPARE(m.index(mm, M::Name).data(M::KeyRole).toString(), QStringLiteral("MatMulV2"));
        QCOMPARE(m.index(mm, M::Total).data(M::SortRole).toDouble(), 12000.0);
        const auto rows = m.index(add, M::Name).data(M::RowsRole).value<QList<uint>>();
        QCOMPARE(rows, (QList<uint>{2u, 3u}));
        // Missing metrics sort below every number instead of comparing unordered.
        QVERIFY(m.index(cast, M::ReadBw).data(M::SortRole).toDouble() < 0);
        // Display text: unit chosen for the magnitude, 3 significant digits.
        QCOMPARE(m.index(mm, M::Total).data().toString(), QStringLiteral("12.0 µs")); // three significant digits, as every duration
        QCOMPARE(m.index(cast, M::Avg).data().toString(), QStringLiteral("550 ns"));
        QCOMPARE(m.index(mm, M::ReadBw).data().toString(), QStringLiteral("150 GB/s"));
        QCOMPARE(m.index(mm, M::Share).data().toString(), QStringLiteral("55.8 %"));
        QVERIFY(m.index(mm, M::Total).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Duration")));
    }

    void groupByName()
    {
        M m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setProfile(m_session->ranks[0], 0);
        m.setGroupBy(GroupBy::Name);
        QCOMPARE(m.rowCount(), 14); // mm_a, mm_b, add_0, add_1, cast_0..cast_9
        QCOMPARE(m.keyAt(0), QStringLiteral("mm_a")); // 6000, tie with mm_b broken by key
        QCOMPARE(m.keyAt(1), QStringLiteral("mm_b"));
        QCOMPARE(m.keyAt(2), QStringLiteral("add_1"));
        const int mmA = rowOf(m, "mm_a");
        QCOMPARE(raw(m, mmA, M::Count).toULongLong(), 2ull);
        QCOMPARE(raw(m, mmA, M::Total).toDouble(), 6000.0);
        QCOMPARE(raw(m, mmA, M::Share).toDouble(), 6000.0 / 21500.0);
        // (0.8·4000 + 0.2·2000) / 6000
        QCOMPARE(raw(m, mmA, M::AicUtil).toDouble(), 3600.0 / 6000.0);
        QCOMPARE(m.headerData(M::Name, Qt::Horizontal).toString(), QStringLiteral("Op Name"));
    }

    void rangeClipsTotals()
    {
        M m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setProfile(m_session->ranks[0], 0);
        // [3000, 14000): mm_a@1000 clipped to 2000 ns, mm_b whole (6000), add_0 whole (1000).
        m.setRange(TimeRange{3000, 14000});
        QCOMPARE(m.rowCount(), 2);
        const int mm = rowOf(m, "MatMulV2"), add = rowOf(m, "Add");
        QCOMPARE(raw(m, mm, M::Count).toULongLong(), 2ull);
        QCOMPARE(raw(m, mm, M::Total).toDouble(), 8000.0);
        QCOMPARE(raw(m, mm, M::Min).toDouble(), 2000.0);
        QCOMPARE(raw(m, add, M::Count).toULongLong(), 1ull);
        QCOMPARE(raw(m, add, M::Total).toDouble(), 1000.0);
        QCOMPARE(raw(m, mm, M::Share).toDouble(), 8000.0 / 9000.0);
        QCOMPARE(m.instanceCount(), 3ull);
        QCOMPARE(m.totalDuration(), TimeNs(9000));
        QCOMPARE(rowOf(m, "Cast"), -1);
        m.setRange(std::nullopt);
        QCOMPARE(m.rowCount(), 3);
    }

    // A new session's ranking computed on a worker beforehand is the one shown, taken only when
    // profiles, grouping and range match; one of other profiles is dropped.
    void prefetchedRanking()
    {
        M plain;
        plain.setProfile(m_session->ranks[0], 0);
        const auto rows = [](const M& m) {
            QStringList out;
            for (int r = 0; r < m.rowCount(); ++r)
                out << m.keyAt(r) + QLatin1Char('=') + m.index(r, M::Total).data(M::RawValueRole).toString();
            return out;
        };

        M m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.prefetch(m_session->ranks);
        QVERIFY(m.prefetchPending());
        m.setProfile(m_session->ranks[0], 0);
        QVERIFY(!m.prefetchPending()); // taken
        QCOMPARE(rows(m), rows(plain));

        // With a range selected the prefetched (whole-profile) ranking waits; without, it is taken.
        M ranged;
        ranged.setRange(TimeRange{3000, 14000});
        ranged.prefetch(m_session->ranks);
        ranged.setProfile(m_session->ranks[0], 0);
        QVERIFY(ranged.prefetchPending());
        QCOMPARE(ranged.rowCount(), 2);
        ranged.setRange(std::nullopt);
        QVERIFY(!ranged.prefetchPending());
        QCOMPARE(rows(ranged), rows(plain));

        // Of another profile: dropped, and the ranking computed for the profile shown.
        const SessionPtr other = view_fixture::makeSession();
        M dropped;
        dropped.prefetch(other->ranks);
        dropped.setProfile(m_session->ranks[0], 0);
        QVERIFY(!dropped.prefetchPending());
        QCOMPARE(rows(dropped), rows(plain));
    }

    void memoryBandwidthPreset()
    {
        M m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setProfile(m_session->ranks[0], 0);
        m.setPreset(RankingPreset::MemoryBandwidth);
        // read + write: Add 320 GB/s, MatMulV2 180 GB/s, Cast none (last).
        QCOMPARE(m.keyAt(0), QStringLiteral("Add"));
        QCOMPARE(m.keyAt(1), QStringLiteral("MatMulV2"));
        QCOMPARE(m.keyAt(2), QStringLiteral("Cast"));
        QVERIFY(m.columnApplies(M::ReadBw));
    }

    void communicationPreset()
    {
        M m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setProfile(m_session->ranks[0], 0);
        m.setPreset(RankingPreset::CommunicationDuration);
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(m.keyAt(0), QStringLiteral("hcom_allReduce"));
        QCOMPARE(raw(m, 0, M::Count).toULongLong(), 2ull);
        QCOMPARE(raw(m, 0, M::Total).toDouble(), 2000000.0); // 1.5 ms + 0.5 ms
        QCOMPARE(raw(m, 0, M::Avg).toDouble(), 1000000.0);
        QCOMPARE(raw(m, 0, M::Share).toDouble(), 2.0 / 2.25);
        QCOMPARE(m.keyAt(1), QStringLiteral("hcom_broadcast"));
        QCOMPARE(raw(m, 1, M::Total).toDouble(), 250000.0);
        QVERIFY(!raw(m, 0, M::P50).isValid());
        QVERIFY(!m.columnApplies(M::P50));
        QCOMPARE(m.index(0, M::Total).data().toString(), QStringLiteral("2.00 ms"));
        QCOMPARE(m.headerData(M::Name, Qt::Horizontal).toString(), QStringLiteral("Collective"));
        m.setPreset(RankingPreset::Duration);
        QCOMPARE(m.rowCount(), 3);
    }

    void emptyModel()
    {
        M m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(m.rowCount(), 0);
        m.setProfile(nullptr, 0);
        QCOMPARE(m.rowCount(), 0);
        QCOMPARE(m.rowForKey(QStringLiteral("Add")), -1);
    }
};

NPUSCOPE_TEST_MAIN(TestOperatorRankingModel)

} // namespace test_operator_ranking_model

#include "test_operator_ranking_model.moc"
