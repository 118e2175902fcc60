// What an export says, in the real window on a real torch_npu rank: the advisor report, the Chrome
// trace and the operators CSV, written where the file dialog would have put them, show a notice
// that names the written file and opens its folder; a path that cannot be written shows an
// error naming it, and no file.
#include "test_main.h"
#include "views/main_window.h"
#include "views/operator_ranking_view.h"

#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

namespace test_export_notice {

using namespace npuscope;

namespace {

const QString kRank0 = QStringLiteral(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt");

// Stands in for the file manager: the URLs "Open folder" asks the desktop to open.
class UrlCatcher : public QObject {
    Q_OBJECT
public:
    QList<QUrl> urls;
public slots:
    void open(const QUrl& url) { urls << url; }
};

// The visible message box with that object name, waited for (the advisor report is written when
// the advisor, on a worker, is done).
QMessageBox* waitForBox(QWidget* w, const QString& name)
{
    for (int i = 0; i < 1200; ++i) {
        for (QMessageBox* box : w->findChildren<QMessageBox*>(name))
            if (box->isVisible())
                return box;
        QTest::qWait(50);
    }
    return nullptr;
}

} // namespace

class TestExportNotice : public QObject {
    Q_OBJECT
    UrlCatcher m_catcher;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // QSettings of the test, not the user's
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_export_notice"));
        QDesktopServices::setUrlHandler(QStringLiteral("file"), &m_catcher, "open");
    }
    void cleanupTestCase() { QDesktopServices::unsetUrlHandler(QStringLiteral("file")); }

    void exportsSayWhereTheyWrote_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("file");
        QTest::newRow("advisor report, Markdown") << QStringLiteral("report") << QStringLiteral("advisor-report.md");
        QTest::newRow("advisor report, PDF") << QStringLiteral("report") << QStringLiteral("advisor report.pdf");
        QTest::newRow("Chrome trace") << QStringLiteral("chrome") << QStringLiteral("trace.json");
        QTest::newRow("operators CSV") << QStringLiteral("ranking") << QStringLiteral("operators.csv");
    }
    void exportsSayWhereTheyWrote()
    {
        QFETCH(QString, what);
        QFETCH(QString, file);
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openPaths({ kRank0 });
        QVERIFY(loaded.wait(60000));
        auto* ranking = w.dock(QStringLiteral("operatorsDock"))->findChild<OperatorRankingView*>();
        QVERIFY(ranking);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(file);
        const auto exportTo = [&](const QString& to) {
            if (what == QLatin1String("report"))
                w.exportAdvisorReportTo(to);
            else if (what == QLatin1String("chrome"))
                w.exportChromeTraceTo(to);
            else
                ranking->exportCsvWithNotice(to);
        };

        exportTo(path);
        QMessageBox* notice = waitForBox(&w, QStringLiteral("exportNotice"));
        QVERIFY(notice);
        const QFileInfo written(path);
        QVERIFY(written.exists());
        QVERIFY(written.size() > 100);
        QCOMPARE(notice->text(),
            QStringLiteral("Wrote %1 (%2 bytes).")
                .arg(QDir::toNativeSeparators(written.absoluteFilePath()))
                .arg(written.size()));
        QVERIFY(w.findChildren<QMessageBox*>(QStringLiteral("exportError")).isEmpty());
        // "Open folder" opens the file's folder and leaves the notice up.
        auto* open = notice->findChild<QPushButton*>(QStringLiteral("openFolder"));
        QVERIFY(open && open->isVisible());
        QCOMPARE(open->text(), QStringLiteral("Open folder"));
        m_catcher.urls.clear();
        QTest::mouseClick(open, Qt::LeftButton);
        QCOMPARE(m_catcher.urls, QList<QUrl> { QUrl::fromLocalFile(written.absolutePath()) });
        QVERIFY(notice->isVisible());
        delete notice;

        // Below a plain file nothing can be written: the error names the path, no notice comes.
        QFile plain(dir.filePath(QStringLiteral("plain")));
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.close();
        const QString bad = dir.filePath(QStringLiteral("plain/") + file);
        exportTo(bad);
        QMessageBox* error = waitForBox(&w, QStringLiteral("exportError"));
        QVERIFY(error);
        QVERIFY2(error->text().startsWith(QStringLiteral("Could not write %1").arg(QDir::toNativeSeparators(bad))),
            qPrintable(error->text()));
        QCOMPARE(error->text().count(QDir::toNativeSeparators(bad)), 1); // named once, with the reason
        QVERIFY2(error->text().endsWith(QStringLiteral("Not a directory")), qPrintable(error->text()));
        QCOMPARE(error->icon(), QMessageBox::Warning);
        QVERIFY(!QFileInfo::exists(bad));
        QVERIFY(w.findChildren<QMessageBox*>(QStringLiteral("exportNotice")).isEmpty());
        delete error;
    }
};

NPUSCOPE_TEST_MAIN(TestExportNotice)

} // namespace test_export_notice

#include "test_export_notice.moc"
