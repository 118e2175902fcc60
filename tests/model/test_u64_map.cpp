// The advisor's flat map from 64-bit keys: every key inserted is found with its value, across
// growth, for the extreme keys too, and agrees with std::unordered_map on random keys; memo()
// computes each key's value once.
#include "test_main.h"
#include "model/analysis/u64_map.h"

#include <QtTest>

#include <random>
#include <unordered_map>

namespace test_u64_map {

using npuscope::U64Map;

class TestU64Map : public QObject {
    Q_OBJECT

private slots:
    void insertFindAndGrow()
    {
        U64Map m;
        QCOMPARE(m.size(), std::size_t(0));
        QVERIFY(!m.find(0));
        for (std::uint64_t k = 0; k < 100000; ++k) {
            bool inserted = false;
            m.tryEmplace(k * 7919, static_cast<std::uint32_t>(k), &inserted);
            QVERIFY(inserted);
        }
        QCOMPARE(m.size(), std::size_t(100000));
        for (std::uint64_t k = 0; k < 100000; ++k) {
            const std::uint32_t* v = m.find(k * 7919);
            QVERIFY(v);
            QCOMPARE(*v, static_cast<std::uint32_t>(k));
        }
        QVERIFY(!m.find(7919ULL * 100000));
        QVERIFY(!m.find(1));
    }

    void existingKeyKeepsItsValue()
    {
        U64Map m(4);
        bool inserted = true;
        m.tryEmplace(~0ULL, 5, &inserted);
        QVERIFY(inserted);
        std::uint32_t& v = m.tryEmplace(~0ULL, 9, &inserted);
        QVERIFY(!inserted);
        QCOMPARE(v, 5u);
        v = 6;
        QCOMPARE(*m.find(~0ULL), 6u);
        m.tryEmplace(0, 1);
        QCOMPARE(*m.find(0), 1u);
        QCOMPARE(*m.find(~0ULL), 6u);
        QCOMPARE(m.size(), std::size_t(2));
    }

    void memoComputesOncePerKey()
    {
        U64Map m;
        int calls = 0;
        for (int round = 0; round < 3; ++round)
            for (std::uint64_t k = 0; k < 1000; ++k)
                QCOMPARE(m.memo(k, [&] { ++calls; return static_cast<std::uint32_t>(k * 3); }), static_cast<std::uint32_t>(k * 3));
        QCOMPARE(calls, 1000);
        QCOMPARE(m.size(), std::size_t(1000));
        // make() may use the map itself.
        QCOMPARE(m.memo(5000, [&] { return m.memo(6000, [] { return 7u; }) + 1; }), 8u);
        QCOMPARE(*m.find(6000), 7u);
    }

    void agreesWithUnorderedMap()
    {
        std::mt19937_64 rng(42);
        U64Map m;
        std::unordered_map<std::uint64_t, std::uint32_t> ref;
        for (int i = 0; i < 200000; ++i) {
            // Few distinct high bits and low bits: keys that collide in naive hashes.
            const std::uint64_t k = (rng() % 512) << 32 | (rng() % 512);
            const auto value = static_cast<std::uint32_t>(i);
            bool inserted = false;
            const std::uint32_t got = m.tryEmplace(k, value, &inserted);
            const auto [it, fresh] = ref.try_emplace(k, value);
            QCOMPARE(inserted, fresh);
            QCOMPARE(got, it->second);
        }
        QCOMPARE(m.size(), ref.size());
        for (const auto& [k, v] : ref)
            QCOMPARE(*m.find(k), v);
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestU64Map)

} // namespace test_u64_map

#include "test_u64_map.moc"
