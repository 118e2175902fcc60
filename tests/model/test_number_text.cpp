#include "model/formats/number_text.h"

#include <QtTest>

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
};

QTEST_GUILESS_MAIN(TestNumberText)
#include "test_number_text.moc"
