// The window on a 1280×720 screen (the offscreen platform given one screen of that size): it
// opens inside the screen's available area, the timeline keeps at least 40 % of its height with
// a real profile open, and the geometry it was left with on a screen comes back on that screen.
#include "test_main.h"
#include "model/synth/synth.h"
#include "views/app_settings.h"
#include "views/cluster_view.h"
#include "views/main_window.h"
#include "views/timeline_view.h"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace test_window_geometry {

using namespace npuscope;

namespace {

const QString kRank0 = QStringLiteral(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");

// Lets the window's first queued layout pass (dock sizes, the split) run.
void settle()
{
    for (int i = 0; i < 5; ++i) {
        QCoreApplication::processEvents();
        QTest::qWait(20);
    }
}

} // namespace

class TestWindowGeometry : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_window_geometry"));
        QCOMPARE(QGuiApplication::primaryScreen()->availableGeometry(), QRect(0, 0, 1280, 720));
    }

    void init() { QSettings().clear(); }

    void opensWithinTheScreen()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        settle();
        const QRect avail = w.screen()->availableGeometry();
        QVERIFY2(avail.contains(w.frameGeometry()),
                 qPrintable(QStringLiteral("frame %1,%2 %3×%4")
                                .arg(w.frameGeometry().x())
                                .arg(w.frameGeometry().y())
                                .arg(w.frameGeometry().width())
                                .arg(w.frameGeometry().height())));
        // Not a postage stamp either: the window takes the screen, as it would 1600×1000.
        QVERIFY(w.width() >= avail.width() - 20 && w.height() >= avail.height() - 40);

        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openPaths({kRank0});
        QVERIFY(loaded.wait(60000));
        settle();
        const int timeline = w.timeline()->height();
        QVERIFY2(timeline >= 0.4 * w.height(),
                 qPrintable(QStringLiteral("timeline %1 of %2").arg(timeline).arg(w.height())));
        // Rank 0's four NPU streams (0, 2, 3, 4 in the trace's metadata) are drawn, under the
        // collapsed Python and CANN groups.
        QStringList drawn;
        for (int lane : w.timeline()->drawnLanes())
            drawn << w.timeline()->layout().lanes[static_cast<std::size_t>(lane)].name;
        for (const char* stream : {"Stream 0", "Stream 2", "Stream 3", "Stream 4"})
            QVERIFY2(drawn.contains(QString::fromLatin1(stream)), qPrintable(drawn.join(QStringLiteral(", "))));
        // The bottom docks wait as tabs beside the Advisor, one click away.
        QVERIFY(w.tabifiedDockWidgets(w.dock(QStringLiteral("advisorDock"))).contains(w.dock(QStringLiteral("operatorsDock"))));
    }

    // A generated two-rank cluster brings the Cluster and Memory tabs, whose pages are wider
    // than the screen's width left of the Advisor: the window still fits.
    void clusterFits()
    {
        QTemporaryDir dir;
        synth::SynthOptions o;
        o.scenario = "cluster-slowrank";
        o.ranks = 2;
        o.steps = 2;
        QVERIFY(synth::synthesize(dir.path().toStdString(), o).ok);
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        settle();
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openPaths({dir.path()});
        QVERIFY(loaded.wait(60000));
        QTRY_VERIFY(w.clusterView());
        settle();
        QVERIFY2(w.screen()->availableGeometry().contains(w.frameGeometry()),
                 qPrintable(QStringLiteral("%1×%2").arg(w.frameGeometry().width()).arg(w.frameGeometry().height())));
        QVERIFY(w.timeline()->height() >= 0.4 * w.height());
    }

    void remembersItsGeometryPerScreen()
    {
        const QRect left(100, 80, 1000, 560);
        {
            MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            settle();
            w.setGeometry(left);
            settle();
            w.close();
        }
        const QScreen* screen = QGuiApplication::primaryScreen();
        const QString key = AppSettings::screenKey(screen->name(), 1280, 720);
        QVERIFY(!AppSettings::windowGeometry(key).isEmpty());
        // Another screen's geometry is kept apart.
        QVERIFY(AppSettings::windowGeometry(AppSettings::screenKey(screen->name(), 2560, 1440)).isEmpty());
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        settle();
        QCOMPARE(again.geometry(), left);
    }

    // A geometry saved larger than the screen (a monitor of the same name, since replaced) is
    // brought inside it.
    void savedGeometryTooLargeIsFitted()
    {
        QByteArray big;
        {
            MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            settle();
            w.setGeometry(0, 0, 2400, 1300);
            settle();
            big = w.saveGeometry();
        }
        const QScreen* screen = QGuiApplication::primaryScreen();
        AppSettings::setWindow(AppSettings::screenKey(screen->name(), 1280, 720), big, {});
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        settle();
        QVERIFY(screen->availableGeometry().contains(w.frameGeometry()));
    }
};

int runTest(int argc, char** argv)
{
    // One 1280×720 screen. The offscreen platform reads its screens from a JSON file.
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("screens.json"));
    QFile f(config);
    if (!f.open(QIODevice::WriteOnly)
        || f.write(R"({"screens": [{"name": "small", "x": 0, "y": 0, "width": 1280, "height": 720,
                       "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})")
               < 0)
        return 1;
    f.close();
    qputenv("QT_QPA_PLATFORM", QByteArray("offscreen:configfile=") + QFile::encodeName(config));
    QApplication app(argc, argv);
    TestWindowGeometry test;
    return QTest::qExec(&test, argc, argv);
}

NPUSCOPE_TEST_FUNCTION(runTest)

} // namespace test_window_geometry

#include "test_window_geometry.moc"
