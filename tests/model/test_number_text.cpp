#include "test_main.h"
#include "model/formats/number_text.h"
#include "model/store/decimal_digits.h"
#include "model/store/profile.h"

#include <QtTest>

#include <charconv>
#include <cmath>
#include <random>

namespace test_number_text {

using namespace npuscope;

class TestNumberText : public QObject {
    Q_OBJECT
private slots:
    void micros_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<bool>("ok");
        QTest::newRow("µs3") << "1780748105187895.870" << qint64(1780748105187895870LL) << true;
        QTest::newRow("bare tab") << "1780748105187895.870\t" << qint64(1780748105187895870LL) << true;
        QTest::newRow("one digit") << "1736408883704643.2" << qint64(1736408883704643200LL) << true;
        QTest::newRow("no fraction") << "1736408883704643" << qint64(1736408883704643000LL) << true;
        QTest::newRow("more digits") << "188.14802169799805" << qint64(188148) << true;
        QTest::newRow("round half") << "0.0005" << qint64(1) << true;
        QTest::newRow("exponent") << "4e-06" << qint64(0) << true;
        QTest::newRow("exponent big") << "1.5E+3" << qint64(1500000) << true;
        QTest::newRow("negative") << "-12.5" << qint64(-12500) << true;
        QTest::newRow("zero") << "0.0" << qint64(0) << true;
        QTest::newRow("leading zeros") << "000.012" << qint64(12) << true;
        QTest::newRow("N/A") << "N/A" << qint64(0) << false;
        QTest::newRow("empty") << "" << qint64(0) << false;
        QTest::newRow("junk") << "12a" << qint64(0) << false;
        QTest::newRow("overflow") << "99999999999999999999.0" << qint64(0) << false;
    }
    void micros()
    {
        QFETCH(QString, text);
        QFETCH(qint64, ns);
        QFETCH(bool, ok);
        const std::string s = text.toStdString();
        auto v = parseMicrosToNs(s);
        QCOMPARE(v.has_value(), ok);
        if (ok)
            QCOMPARE(qint64(*v), ns);
    }
    void millis()
    {
        QCOMPARE(*parseMillisToNs("4e-06"), TimeNs(4));
        QCOMPARE(*parseMillisToNs("20.97152"), TimeNs(20971520));
    }
    void integers()
    {
        QCOMPARE(*parseInt64("4294967295"), std::int64_t(4294967295LL));
        QCOMPARE(*parseUInt64("18446744073709551615"), std::uint64_t(18446744073709551615ULL));
        QVERIFY(!parseInt64("N/A"));
        QVERIFY(!parseDouble("N/A"));
        QCOMPARE(*parseDouble(" 0.247 "), 0.247);
    }

    // Plain decimal digits are read 8 at a time: every length around 8 and 16, a non-digit in
    // each position, and the limits of 18 digits (int64 parsers) and 19 (flow ids).
    void plainDigitsMatchFromChars()
    {
        std::mt19937_64 rng(5);
        for (int len = 1; len <= 20; ++len) {
            for (int trial = 0; trial < 200; ++trial) {
                std::string s;
                for (int i = 0; i < len; ++i)
                    s += char('0' + rng() % 10);
                if (trial % 3 == 1)
                    s[rng() % s.size()] = "/:a. -+"[rng() % 7]; // '/' and ':' border the digits
                std::uint64_t want = 0;
                auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), want);
                const bool plain = ec == std::errc() && p == s.data() + s.size()
                                   && s.find_first_of("+-") == std::string::npos;
                std::uint64_t got = 0;
                QCOMPARE(digits::plainDecimal(s, 19, got), plain && len <= 19);
                if (plain && len <= 19)
                    QCOMPARE(got, want);
                if (plain && len <= 18) {
                    QCOMPARE(std::uint64_t(parseInt64(s).value_or(-1)), want);
                    QCOMPARE(parseUInt64(s).value_or(0), want);
                }
                const bool flowNumber = plain && len <= 19 && (len == 1 || s[0] != '0');
                QCOMPARE(FlowTable::plainNumber(s, got), flowNumber);
                if (flowNumber)
                    QCOMPARE(got, want);
            }
        }
        std::uint64_t v = 0;
        QVERIFY(FlowTable::plainNumber("0", v) && v == 0);
        QVERIFY(!FlowTable::plainNumber("", v));
        QVERIFY(!FlowTable::plainNumber("007", v));
        QVERIFY(FlowTable::plainNumber("9999999999999999999", v) && v == 9999999999999999999ull);
        QVERIFY(!FlowTable::plainNumber("18446744073709551615", v)); // 20 digits: kept as text
    }

    // The short-cut for plain decimals gives the same double as std::from_chars, bit for bit, on
    // random texts of digits, points and signs (valid or not).
    void doublesMatchFromChars()
    {
        std::mt19937_64 rng(7);
        const char alphabet[] = "0123456789012345678901234567890123456789.-";
        int checked = 0;
        for (int n = 0; n < 300000; ++n) {
            std::string t(1 + rng() % 19, '0');
            for (char& c : t)
                c = alphabet[rng() % (sizeof alphabet - 1)];
            std::string_view body = t;
            double ref = 0;
            const auto [p, ec] = std::from_chars(body.data(), body.data() + body.size(), ref);
            const bool refOk = ec == std::errc() && p == body.data() + body.size() && !std::isnan(ref);
            const auto got = parseDouble(t);
            QVERIFY2(got.has_value() == refOk, t.c_str());
            if (refOk) {
                QVERIFY2(std::signbit(*got) == std::signbit(ref) && (*got == ref), t.c_str());
                ++checked;
            }
        }
        QVERIFY(checked > 10000);
    }

    // Micros in the profilers' form take a short-cut; one more trailing zero takes the general
    // path. Both must agree on every value, at the range's edge too.
    void microsShortCutMatchesGeneralPath()
    {
        std::mt19937_64 rng(11);
        for (int n = 0; n < 200000; ++n) {
            std::string t = (rng() % 4 == 0 ? "-" : "") + std::to_string(rng() >> (rng() % 64));
            const int decimals = static_cast<int>(rng() % 4);
            if (decimals > 0 || rng() % 2) {
                t += '.';
                for (int d = 0; d < decimals; ++d)
                    t += static_cast<char>('0' + rng() % 10);
            }
            // Four decimals or more: the general path.
            const std::string longer = t + (t.find('.') == std::string::npos ? ".0000" : "0000");
            const auto a = parseMicrosToNs(t), b = parseMicrosToNs(longer);
            QVERIFY2(a.has_value() == b.has_value(), t.c_str());
            if (a)
                QVERIFY2(*a == *b, t.c_str());
            const auto ma = parseMillisToNs(t), mb = parseMillisToNs(t + (t.find('.') == std::string::npos ? ".0000000" : "0000"));
            QVERIFY2(ma.has_value() == mb.has_value(), t.c_str());
            if (ma)
                QVERIFY2(*ma == *mb, t.c_str());
        }
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestNumberText)

} // namespace test_number_text

#include "test_number_text.moc"
