// The one time axis's text: tick steps, tick labels in one unit per axis with the decimals the
// step needs, and the times the command line takes (--zoom / --select), run through the binary
// for the exit code and message of a bad value.
#include "test_main.h"
#include "model/analysis/time_axis.h"

#include "cli_run.h"

#include <QtTest>

namespace test_time_axis {

using namespace npuscope;

class TestTimeAxis : public QObject {
    Q_OBJECT
private slots:
    void niceSteps()
    {
        QCOMPARE(niceTimeStep(0.5), TimeNs(1));
        QCOMPARE(niceTimeStep(1), TimeNs(1));
        QCOMPARE(niceTimeStep(1.5), TimeNs(2));
        QCOMPARE(niceTimeStep(3), TimeNs(5));
        QCOMPARE(niceTimeStep(7), TimeNs(10));
        QCOMPARE(niceTimeStep(90), TimeNs(100));
        QCOMPARE(niceTimeStep(100), TimeNs(100));
        QCOMPARE(niceTimeStep(101), TimeNs(200));
        QCOMPARE(niceTimeStep(4.5e6), TimeNs(5'000'000));
        QCOMPARE(niceTimeStep(1.2e9), TimeNs(2'000'000'000));
    }

    void ticks()
    {
        // 50 ms over 1000 px: 90 px is 4.5 ms, so a 5 ms step, from 0.
        TimeTicks t = timeTicks(0, 50'000'000, 1000);
        QCOMPARE(t.step, TimeNs(5'000'000));
        QCOMPARE(t.first, TimeNs(0));
        QCOMPARE(t.span, TimeNs(50'000'000));
        // 170.7703..170.7803 ms over 1000 px: 900 ns a tick -> 1 µs; the first tick at or before.
        t = timeTicks(170'770'300, 170'780'300, 1000);
        QCOMPARE(t.step, TimeNs(1000));
        QCOMPARE(t.first, TimeNs(170'770'000));
        QCOMPARE(t.span, TimeNs(170'780'300));
        // Before the trace start the first tick still lies at or before the window.
        t = timeTicks(-1500, 8500, 1000);
        QCOMPARE(t.step, TimeNs(1000));
        QCOMPARE(t.first, TimeNs(-2000));
    }

    void offsets_data()
    {
        QTest::addColumn<qint64>("offset");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<qint64>("span");
        QTest::addColumn<QString>("text");
        // Deep zoom at 170 ms: milliseconds with the step's decimals, never "170770 µs".
        QTest::newRow("deep ms") << qint64(170'770'000) << qint64(10'000) << qint64(170'800'000) << QStringLiteral("170.77 ms");
        QTest::newRow("deeper ms") << qint64(170'770'020) << qint64(20) << qint64(170'800'000) << QStringLiteral("170.77002 ms");
        QTest::newRow("whole ms") << qint64(15'000'000) << qint64(5'000'000) << qint64(50'000'000) << QStringLiteral("15 ms");
        QTest::newRow("zero in ms") << qint64(0) << qint64(5'000'000) << qint64(50'000'000) << QStringLiteral("0 ms");
        QTest::newRow("seconds") << qint64(1'500'000'000) << qint64(500'000'000) << qint64(4'000'000'000) << QStringLiteral("1.5 s");
        QTest::newRow("ms steps in s") << qint64(2'000'000'000) << qint64(200'000'000) << qint64(4'000'000'000) << QStringLiteral("2.0 s");
        QTest::newRow("µs") << qint64(250'000) << qint64(50'000) << qint64(900'000) << QStringLiteral("250 µs");
        QTest::newRow("ns") << qint64(120) << qint64(20) << qint64(900) << QStringLiteral("120 ns");
        QTest::newRow("negative") << qint64(-2'000'000) << qint64(1'000'000) << qint64(8'000'000) << QStringLiteral("-2 ms");
    }
    void offsets()
    {
        QFETCH(qint64, offset);
        QFETCH(qint64, step);
        QFETCH(qint64, span);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(formatTimeOffset(offset, step, span)), text);
    }

    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<QString>("error");
        QTest::newRow("ms") << "12.1ms" << true << qint64(12'100'000) << QString();
        QTest::newRow("ms spaced") << "12.1 ms" << true << qint64(12'100'000) << QString();
        QTest::newRow("us") << "500us" << true << qint64(500'000) << QString();
        QTest::newRow("micro sign") << QStringLiteral("500µs") << true << qint64(500'000) << QString();
        QTest::newRow("greek mu") << QStringLiteral("2.5μs") << true << qint64(2'500) << QString();
        QTest::newRow("s") << "1.25s" << true << qint64(1'250'000'000) << QString();
        QTest::newRow("ns") << "800ns" << true << qint64(800) << QString();
        QTest::newRow("zero") << "0ms" << true << qint64(0) << QString();
        QTest::newRow("leading dot") << ".5ms" << true << qint64(500'000) << QString();
        QTest::newRow("no unit") << "12.1" << false << qint64(0) << "'12.1' needs a unit (ns, us, µs, ms or s), e.g. 12.1ms";
        QTest::newRow("bad unit") << "12min" << false << qint64(0) << "'12min' has an unknown unit 'min' (ns, us, µs, ms or s)";
        QTest::newRow("negative") << "-3ms" << false << qint64(0)
                                  << "'-3ms' is not a time: times count from the trace start and are not negative";
        QTest::newRow("empty") << "" << false << qint64(0) << "'' is not a time (expected a number and a unit, e.g. 12.1ms)";
        QTest::newRow("two dots") << "1.2.3ms" << false << qint64(0)
                                  << "'1.2.3ms' is not a time (expected a number and a unit, e.g. 12.1ms)";
        QTest::newRow("words") << "soon" << false << qint64(0) << "'soon' is not a time (expected a number and a unit, e.g. 12.1ms)";
        QTest::newRow("huge") << "99999999999s" << false << qint64(0) << "'99999999999s' is too large";
    }
    void parse()
    {
        QFETCH(QString, text);
        QFETCH(bool, ok);
        QFETCH(qint64, ns);
        QFETCH(QString, error);
        TimeNs got = -1;
        std::string why;
        QCOMPARE(parseTimeText(text.toStdString(), &got, &why), ok);
        if (ok)
            QCOMPARE(got, TimeNs(ns));
        else
            QCOMPARE(QString::fromStdString(why), error);
    }

    void ranges()
    {
        TimeNs b = 0, e = 0;
        std::string why;
        QVERIFY(parseTimeRangeText("--zoom", "9.6ms", "14.4ms", &b, &e, &why));
        QCOMPARE(b, TimeNs(9'600'000));
        QCOMPARE(e, TimeNs(14'400'000));
        QVERIFY(!parseTimeRangeText("--select", "14ms", "10ms", &b, &e, &why));
        QCOMPARE(QString::fromStdString(why), QStringLiteral("--select: the end (10ms) must come after the start (14ms)"));
        QVERIFY(!parseTimeRangeText("--zoom", "1ms", "1ms", &b, &e, &why));
        QVERIFY(!parseTimeRangeText("--zoom", "1ms", "2", &b, &e, &why));
        QCOMPARE(QString::fromStdString(why), QStringLiteral("--zoom: '2' needs a unit (ns, us, µs, ms or s), e.g. 2ms"));
    }

    // The window's options refuse bad values with exit 2 before any window or load.
    void commandLineErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no unit") << QStringList{"/nonexistent", "--zoom", "10", "14ms"}
                                 << "npuscope: --zoom: '10' needs a unit (ns, us, µs, ms or s), e.g. 10ms";
        QTest::newRow("reversed") << QStringList{"/nonexistent", "--select", "14ms", "10ms"}
                                  << "npuscope: --select: the end (10ms) must come after the start (14ms)";
        QTest::newRow("one value") << QStringList{"/nonexistent", "--zoom", "10ms"}
                                   << "npuscope: --zoom needs START and END, e.g. --zoom 12.1ms 14.4ms";
        QTest::newRow("option for a value") << QStringList{"/nonexistent", "--select", "10ms", "--screenshot", "x.png"}
                                            << "npuscope: --select needs START and END, e.g. --select 12.1ms 14.4ms";
    }
    void commandLineErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliRun r = runCli(args);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.startsWith(message + QLatin1Char('\n')), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }
};

NPUSCOPE_TEST_GUILESS_MAIN(TestTimeAxis)

} // namespace test_time_axis

#include "test_time_axis.moc"
