#include "test_main.h"
#include "model/store/string_pool.h"

#include <QtTest>

#include <string>
#include <unordered_map>
#include <vector>

namespace test_string_pool {

using namespace npuscope;

class TestStringPool : public QObject {
    Q_OBJECT
private slots:
    void emptyIsIdZero()
    {
        StringPool pool;
        QCOMPARE(pool.size(), std::size_t(1));
        QCOMPARE(pool.intern("").v, 0u);
        QCOMPARE(pool.find("").v, 0u);
        QVERIFY(!pool.find("MatMul").valid());
        QCOMPARE(pool.view(NameId(12345)), std::string_view());
    }

    // Many strings, through several growths of the index and blocks of the arena: each one gets
    // one id, ids follow first appearance, and every view reads back its own text.
    void manyStringsKeepTheirIds()
    {
        StringPool pool;
        std::unordered_map<std::string, std::uint32_t> expected;
        std::vector<std::string> order{""};
        for (int round = 0; round < 2; ++round) {
            for (int i = 0; i < 200000; ++i) {
                // Shared prefixes and lengths 1..40, so the hash sees all word/tail cases.
                std::string s = "Conv2D_" + std::to_string(i * 7919 % 200000);
                s.resize(1 + i % 40, 'x');
                const NameId id = pool.intern(s);
                auto [it, fresh] = expected.emplace(s, id.v);
                if (fresh)
                    order.push_back(s);
                QCOMPARE(it->second, id.v);
            }
        }
        QCOMPARE(pool.size(), order.size());
        for (std::uint32_t id = 0; id < order.size(); ++id) {
            QCOMPARE(pool.view(NameId(id)), std::string_view(order[id]));
            QCOMPARE(pool.find(order[id]).v, id);
        }
        QVERIFY(pool.bytes() > 0);
    }

    // Strings longer than an arena block's share are stored on their own and stay readable next
    // to the short ones stored before and after them.
    void longStringsAndCopies()
    {
        StringPool pool;
        const std::string longA(100000, 'a'), longB(20000, 'b');
        const NameId s1 = pool.intern("before");
        const NameId a = pool.intern(longA);
        const NameId s2 = pool.intern("after");
        const NameId b = pool.intern(longB);
        QCOMPARE(pool.view(a), std::string_view(longA));
        QCOMPARE(pool.view(b), std::string_view(longB));
        QCOMPARE(pool.view(s1), std::string_view("before"));
        QCOMPARE(pool.view(s2), std::string_view("after"));
        QCOMPARE(pool.intern(longA).v, a.v);

        StringPool copy(pool);
        pool.intern("only in the original");
        QCOMPARE(copy.size(), std::size_t(5));
        QCOMPARE(copy.view(a), std::string_view(longA));
        QCOMPARE(copy.find("after").v, s2.v);
        QVERIFY(!copy.find("only in the original").valid());
        QCOMPARE(copy.intern("new").v, 5u);

        StringPool moved(std::move(copy));
        QCOMPARE(moved.view(b), std::string_view(longB));
        // A moved-from pool is empty and usable again.
        QVERIFY(!copy.find("after").valid()); // NOLINT(bugprone-use-after-move)
        QCOMPARE(copy.intern("again").v, 1u);
        QCOMPARE(copy.view(NameId(1)), std::string_view("again"));
    }

    // Strings of one length whose hashes share their top bits share an entry of the cache of
    // recent strings in front of the index: each keeps its own id however they alternate, also
    // after the pool is moved, copied or assigned.
    void recentStringsThatCollide()
    {
        std::unordered_map<std::uint32_t, std::vector<std::string>> byTop; // top 10 bits of the hash
        std::vector<std::string> same;
        for (int i = 0; same.size() < 3; ++i) {
            std::string s = "op_" + std::to_string(1000000 + i);
            auto& group = byTop[static_cast<std::uint32_t>(hashText(s)) >> 22];
            group.push_back(std::move(s));
            if (group.size() == 3)
                same = group;
        }
        QCOMPARE(same[0].size(), same[2].size());
        StringPool pool;
        const NameId a = pool.intern(same[0]), b = pool.intern(same[1]), c = pool.intern(same[2]);
        QCOMPARE(pool.size(), std::size_t(4));
        for (int round = 0; round < 3; ++round) {
            QCOMPARE(pool.intern(same[0]).v, a.v);
            QCOMPARE(pool.intern(same[2]).v, c.v);
            QCOMPARE(pool.intern(same[1]).v, b.v);
            QCOMPARE(pool.intern(same[1]).v, b.v);
        }
        StringPool moved(std::move(pool));
        QCOMPARE(moved.intern(same[1]).v, b.v);
        QCOMPARE(moved.intern(same[0]).v, a.v);
        StringPool copy(moved);
        moved = StringPool();
        QCOMPARE(copy.intern(same[2]).v, c.v);
        QCOMPARE(copy.intern(same[1]).v, b.v);
        QCOMPARE(moved.intern(same[1]).v, 1u); // a new pool: new ids
        QCOMPARE(copy.size(), std::size_t(4));
    }

    // A string past kMaxTextBytes is kept as its first kMaxTextBytes bytes, never inside a UTF-8
    // character, and counted; strings up to the limit pass whole.
    void overlongStringsAreCutAndCounted()
    {
        StringPool pool;
        const std::size_t max = StringPool::kMaxTextBytes;
        const std::string whole(max, 'w');
        QCOMPARE(pool.view(pool.intern(whole)).size(), max);
        QCOMPARE(pool.cutStrings(), std::size_t(0));
        // "é" (0xC3 0xA9) straddles the limit: the cut falls before it.
        std::string straddling(max - 1, 'a');
        straddling += "\xC3\xA9";
        straddling += std::string(1000, 'b');
        const NameId id = pool.intern(straddling);
        QCOMPARE(pool.view(id).size(), max - 1);
        QCOMPARE(pool.view(id), std::string_view(straddling).substr(0, max - 1));
        QCOMPARE(pool.cutStrings(), std::size_t(1));
        // Two long strings that differ only past the limit become one name, each cut counted.
        const NameId again = pool.intern(std::string(max - 1, 'a') + "\xC3\xA9" + std::string(max, 'c'));
        QCOMPARE(again, id);
        QCOMPARE(pool.cutStrings(), std::size_t(2));
        const StringPool copy(pool);
        QCOMPARE(copy.cutStrings(), std::size_t(2));
    }
};

NPUSCOPE_TEST_APPLESS_MAIN(TestStringPool)

} // namespace test_string_pool

#include "test_string_pool.moc"
