// File → Preferences on the real window: values changed with the mouse and keyboard, accepted,
// then read back from QSettings and checked where they act (the application palette, the
// Advisor dock's thresholds, the loader's text/SQLite choice and session cache, File → Open
// Recent).
#include "test_main.h"
#include "model/cache/session_cache.h"
#include "views/advisor_panel.h"
#include "views/app_settings.h"
#include "views/load_controller.h"
#include "views/main_window.h"
#include "views/preferences_dialog.h"
#include "views/theme.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStyle>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <qcustomplot.h>

#include <filesystem>
#include <functional>

namespace test_preferences {

using namespace npuscope;
namespace fs = std::filesystem;

namespace {

const QString kLevel1 = QStringLiteral(NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1");
const std::string kPytorch = NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch";

// Runs `interact` on the Preferences dialog once File → Preferences has opened it (modal exec).
void withPreferences(MainWindow& w, const std::function<void(PreferencesDialog*)>& interact)
{
    bool ran = false;
    QTimer::singleShot(0, &w, [&] {
        auto* dlg = qobject_cast<PreferencesDialog*>(QApplication::activeModalWidget());
        QVERIFY(dlg);
        interact(dlg);
        ran = true;
        if (dlg->isVisible())
            dlg->reject(); // a failed QVERIFY above must not leave exec() running
    });
    QAction* action = w.findChild<QAction*>(QStringLiteral("actionPreferences"));
    QVERIFY(action);
    QCOMPARE(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+,")));
    action->trigger();
    QVERIFY(ran);
}

// Picks the combo entry with this text by keyboard: focus, Home, then Down until it is current.
void chooseByKeys(QComboBox* combo, const QString& text)
{
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Home);
    for (int i = 0; i < combo->count() && combo->currentText() != text; ++i)
        QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(combo->currentText(), text);
}

void clickOk(PreferencesDialog* dlg)
{
    auto* box = dlg->findChild<QDialogButtonBox*>(QStringLiteral("buttonBox"));
    QVERIFY(box);
    QTest::mouseClick(box->button(QDialogButtonBox::Ok), Qt::LeftButton);
}

// A folder holding both exports of rank 0 (as test_db_reader's preferTextOrDb builds it): the
// text part has kernel_details.csv and step_trace_time.csv, the db part the full profiler db.
QString makeMixedFolder(const QTemporaryDir& tmp)
{
    const fs::path rank = fs::path(tmp.path().toStdString()) / "host_1_20250109074555123_ascend_pt";
    const fs::path out = rank / "ASCEND_PROFILER_OUTPUT";
    fs::create_directories(out);
    const fs::path text = fs::path(kPytorch) / "text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT";
    const fs::path db = fs::path(kPytorch) / "db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT";
    for (const char* f : {"kernel_details.csv", "step_trace_time.csv"})
        fs::copy_file(text / f, out / f);
    for (const char* f : {"ascend_pytorch_profiler_0.db", "analysis.db"})
        fs::copy_file(db / f, out / f);
    for (const auto& e : fs::recursive_directory_iterator(rank))
        fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::add);
    return QString::fromStdString(rank.string());
}

SessionPtr load(MainWindow& w, const QString& path)
{
    QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
    w.openPaths({path});
    if (!loaded.wait(60000))
        return nullptr;
    return w.session();
}

bool waitForReport(QSignalSpy& spy)
{
    return !spy.isEmpty() || spy.wait(60000);
}

} // namespace

class TestPreferences : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // QSettings of the test, not the user's
        QCoreApplication::setOrganizationName(QStringLiteral("npuscope-test"));
        QCoreApplication::setApplicationName(QStringLiteral("test_preferences"));
    }

    void init()
    {
        QSettings().clear();
        applyTheme(Theme::System);
    }

    void defaultsShowInTheDialog()
    {
        PreferencesDialog dlg;
        QCOMPARE(dlg.theme(), Theme::System);
        QCOMPARE(dlg.prefer(), Prefer::Auto);
        QCOMPARE(dlg.thresholdsFile(), QString());
        QCOMPARE(dlg.recentLimit(), AppSettings::kDefaultRecent);
        QVERIFY(dlg.useSessionCache());
        QCOMPARE(dlg.findChild<QPushButton*>(QStringLiteral("clearRecentButton"))->isEnabled(), false);
    }

    void darkThemePersistsAndApplies()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QColor before = QApplication::palette().color(QPalette::Window);

        withPreferences(w, [](PreferencesDialog* dlg) {
            chooseByKeys(dlg->findChild<QComboBox*>(QStringLiteral("themeCombo")), QStringLiteral("Dark"));
            auto* spin = dlg->findChild<QSpinBox*>(QStringLiteral("recentSpin"));
            spin->setFocus();
            spin->selectAll();
            QTest::keyClicks(spin, QStringLiteral("3"));
            clickOk(dlg);
        });

        QCOMPARE(QSettings().value(QStringLiteral("appearance/theme")).toString(), QStringLiteral("dark"));
        QCOMPARE(AppSettings::theme(), Theme::Dark);
        QCOMPARE(QSettings().value(QStringLiteral("recent/limit")).toInt(), 3);
        QCOMPARE(QApplication::style()->name().toLower(), QStringLiteral("fusion"));
        const QPalette p = QApplication::palette();
        QCOMPARE(p.color(QPalette::Window), darkPalette().color(QPalette::Window));
        QVERIFY(p.color(QPalette::Window).lightness() < 80);
        QVERIFY(p.color(QPalette::WindowText).lightness() > 200);
        QVERIFY(p.color(QPalette::Window) != before);
        // Widgets follow the application palette.
        QTRY_COMPARE(w.palette().color(QPalette::Window), darkPalette().color(QPalette::Window));
        // So do the plots, which paint with colours of their own unless told: a dark background
        // and light axis text.
        const auto plots = w.findChildren<QCustomPlot*>();
        QVERIFY2(plots.size() >= 2, qPrintable(QString::number(plots.size()))); // utilisation, operator histogram
        for (QCustomPlot* plot : plots) {
            QTRY_VERIFY(plot->toPixmap(200, 120).toImage().pixelColor(1, 1).lightness() < 80);
            for (QCPAxisRect* rect : plot->axisRects())
                QCOMPARE(rect->axis(QCPAxis::atLeft)->tickLabelColor(), darkPalette().color(QPalette::Text));
        }

        // Back to System: the platform palette again, stored as such.
        withPreferences(w, [](PreferencesDialog* dlg) {
            QCOMPARE(dlg->theme(), Theme::Dark); // the dialog shows the stored value
            chooseByKeys(dlg->findChild<QComboBox*>(QStringLiteral("themeCombo")), QStringLiteral("System"));
            clickOk(dlg);
        });
        QCOMPARE(AppSettings::theme(), Theme::System);
        QCOMPARE(QApplication::palette().color(QPalette::Window), before);
        for (QCustomPlot* plot : plots)
            QTRY_COMPARE(plot->toPixmap(200, 120).toImage().pixelColor(1, 1), QApplication::palette().color(QPalette::Base));
    }

    void cancelChangesNothing()
    {
        MainWindow w;
        w.show();
        withPreferences(w, [](PreferencesDialog* dlg) {
            chooseByKeys(dlg->findChild<QComboBox*>(QStringLiteral("themeCombo")), QStringLiteral("Light"));
            QTest::keyClick(dlg, Qt::Key_Escape);
        });
        QVERIFY(!QSettings().contains(QStringLiteral("appearance/theme")));
        QCOMPARE(AppSettings::theme(), Theme::System);
    }

    void thresholdsOverrideReachesTheAdvisor()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        auto* panel = w.dock(QStringLiteral("advisorDock"))->findChild<AdvisorPanel*>();
        QVERIFY(panel);
        QSignalSpy ready(panel, &AdvisorPanel::reportReady);
        QVERIFY(load(w, kLevel1));
        QVERIFY(waitForReport(ready));
        QVERIFY(panel->report());
        QVERIFY(panel->report()->overrides.empty());
        const auto fired = panel->report()->fired();
        QVERIFY2(!fired.empty(), "level1 fires at least one rule with the shipped thresholds");
        const std::string rule = fired.front()->rule;

        // Disable the first rule that fired and change one severity limit.
        QTemporaryDir tmp;
        const QString file = tmp.filePath(QStringLiteral("thresholds.json"));
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            const QByteArray json = "{\"severity\": {\"high\": 0.2}, \"rules\": {\"" + QByteArray::fromStdString(rule)
                                    + "\": {\"enabled\": false}}}";
            QVERIFY(f.write(json) == json.size());
        }
        ready.clear();
        withPreferences(w, [&](PreferencesDialog* dlg) {
            auto* edit = dlg->findChild<QLineEdit*>(QStringLiteral("thresholdsEdit"));
            QTest::mouseClick(dlg->findChild<QPushButton*>(QStringLiteral("thresholdsClearButton")), Qt::LeftButton);
            QCOMPARE(edit->text(), QString());
            edit->setFocus();
            QTest::keyClicks(edit, file);
            clickOk(dlg);
        });
        QCOMPARE(QSettings().value(QStringLiteral("advisor/thresholdsOverride")).toString(), file);
        QCOMPARE(panel->overrideFile(), file);
        QVERIFY(waitForReport(ready)); // the dock ran the rules again
        const auto report = panel->report();
        bool severityOverride = false;
        for (const auto& o : report->overrides)
            if (o.key == "severity.high") {
                severityOverride = o.value == "0.2" && o.origin == file.toStdString();
            }
        QVERIFY(severityOverride);
        for (const auto* f : report->fired())
            QVERIFY2(f->rule != rule, f->rule.c_str());
        bool disabled = false;
        for (const auto& f : report->findings)
            disabled = disabled || (f.rule == rule && f.status == advisor::Status::Disabled);
        QVERIFY(disabled);

        // A new window starts with the stored override; Clear removes it.
        {
            MainWindow w2;
            QCOMPARE(w2.dock(QStringLiteral("advisorDock"))->findChild<AdvisorPanel*>()->overrideFile(), file);
        }
        ready.clear();
        withPreferences(w, [](PreferencesDialog* dlg) {
            QTest::mouseClick(dlg->findChild<QPushButton*>(QStringLiteral("thresholdsClearButton")), Qt::LeftButton);
            clickOk(dlg);
        });
        QVERIFY(!QSettings().contains(QStringLiteral("advisor/thresholdsOverride")));
        QCOMPARE(panel->overrideFile(), QString());
        QVERIFY(waitForReport(ready));
        QVERIFY(panel->report()->overrides.empty());
    }

    void preferReachesTheLoader()
    {
        QTemporaryDir tmp;
        const QString mixed = makeMixedFolder(tmp);
        MainWindow w;
        w.show();
        SessionPtr s = load(w, mixed);
        QVERIFY(s);
        QCOMPARE(QString::fromStdString(s->source), QStringLiteral("text"));
        QCOMPARE(s->ranks.front()->kernels.size(), std::size_t(191)); // kernel_details.csv rows

        withPreferences(w, [](PreferencesDialog* dlg) {
            chooseByKeys(dlg->findChild<QComboBox*>(QStringLiteral("preferCombo")), QStringLiteral("SQLite databases (.db)"));
            clickOk(dlg);
        });
        QCOMPARE(QSettings().value(QStringLiteral("loading/prefer")).toString(), QStringLiteral("db"));
        QCOMPARE(w.loader()->prefer(), Prefer::Db);
        w.reload();
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        QVERIFY(loaded.wait(60000));
        s = w.session();
        QCOMPARE(QString::fromStdString(s->source), QStringLiteral("db"));
        QCOMPARE(int(s->ranks.front()->join.deviceTasks), 552); // as test_db_reader reads the db

        // A new window's loader starts from the stored preference.
        MainWindow w2;
        QCOMPARE(w2.loader()->prefer(), Prefer::Db);
    }

    // Loads go through the session cache until Preferences turns it off; then the next load
    // neither reads nor writes it, and a new window starts with it off.
    void sessionCacheSwitch()
    {
        QTemporaryDir cacheHome;
        const QByteArray oldHome = qgetenv("XDG_CACHE_HOME");
        qputenv("XDG_CACHE_HOME", cacheHome.path().toUtf8());
        const QString path = kLevel1 + QStringLiteral("/rank0_ascend_pt");
        const std::string entry = sessionCacheEntryPath({path.toStdString()}, LoadOptions{});
        QVERIFY(entry.rfind(cacheHome.path().toStdString() + "/npuscope/", 0) == 0);
        MainWindow w;
        w.show();
        QVERIFY(w.loader()->useCache());
        SessionPtr s = load(w, path);
        QVERIFY(s);
        QCOMPARE(s->ranks.front()->kernels.size(), std::size_t(191));
        QVERIFY(fs::exists(entry));

        withPreferences(w, [](PreferencesDialog* dlg) {
            auto* box = dlg->findChild<QCheckBox*>(QStringLiteral("cacheCheck"));
            QVERIFY(box && box->isChecked());
            QTest::mouseClick(box, Qt::LeftButton);
            QVERIFY(!box->isChecked());
            clickOk(dlg);
        });
        QCOMPARE(QSettings().value(QStringLiteral("loading/sessionCache")).toBool(), false);
        QVERIFY(!w.loader()->useCache());
        QVERIFY(fs::remove(entry));
        w.reload();
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        QVERIFY(loaded.wait(60000));
        QCOMPARE(w.session()->ranks.front()->kernels.size(), std::size_t(191));
        QVERIFY(!fs::exists(entry)); // not written
        MainWindow w2;
        QVERIFY(!w2.loader()->useCache());
        qputenv("XDG_CACHE_HOME", oldHome);
    }

    void recentFilesAndLayout()
    {
        for (int i = 0; i < 5; ++i)
            AppSettings::addRecent({QStringLiteral("/data/run%1").arg(i)});
        QCOMPARE(AppSettings::recentPaths().size(), 5);
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QMenu* recent = w.findChild<QMenu*>(QStringLiteral("menuRecent"));
        QVERIFY(recent);
        QCOMPARE(recent->actions().size(), 5 + 2); // entries, separator, Clear Recent

        // Lowering the count drops the oldest opens at once.
        withPreferences(w, [](PreferencesDialog* dlg) {
            auto* spin = dlg->findChild<QSpinBox*>(QStringLiteral("recentSpin"));
            spin->setFocus();
            QTest::keyClick(spin, Qt::Key_A, Qt::ControlModifier);
            QTest::keyClicks(spin, QStringLiteral("2"));
            clickOk(dlg);
        });
        QCOMPARE(AppSettings::recentLimit(), 2);
        QCOMPARE(AppSettings::recentPaths(), (QStringList{QStringLiteral("/data/run4"), QStringLiteral("/data/run3")}));
        QCOMPARE(recent->actions().size(), 2 + 2);

        // Reset Window Layout shows a hidden dock again; Clear Recent Files empties the menu.
        QDockWidget* problems = w.dock(QStringLiteral("problemsDock"));
        problems->hide();
        QVERIFY(!problems->toggleViewAction()->isChecked());
        withPreferences(w, [](PreferencesDialog* dlg) {
            QTest::mouseClick(dlg->findChild<QPushButton*>(QStringLiteral("resetLayoutButton")), Qt::LeftButton);
            auto* clear = dlg->findChild<QPushButton*>(QStringLiteral("clearRecentButton"));
            QVERIFY(clear->isEnabled());
            QTest::mouseClick(clear, Qt::LeftButton);
            QVERIFY(!clear->isEnabled());
            QTest::keyClick(dlg, Qt::Key_Escape); // both acted at once, without OK
        });
        QVERIFY(problems->toggleViewAction()->isChecked());
        QVERIFY(AppSettings::recentPaths().isEmpty());
        QVERIFY(!recent->isEnabled());
        QCOMPARE(AppSettings::recentLimit(), 2);
    }

    void missingOverrideFileIsRefused()
    {
        PreferencesDialog dlg;
        dlg.show();
        auto* edit = dlg.findChild<QLineEdit*>(QStringLiteral("thresholdsEdit"));
        edit->setText(QStringLiteral("/nonexistent/thresholds.json"));
        // accept() warns with a message box; close it as soon as it shows.
        QTimer::singleShot(0, &dlg, [] {
            if (QWidget* box = QApplication::activeModalWidget())
                QTest::keyClick(box, Qt::Key_Escape);
        });
        dlg.accept();
        QVERIFY(dlg.result() != QDialog::Accepted);
        QVERIFY(!QSettings().contains(QStringLiteral("advisor/thresholdsOverride")));
    }
};

NPUSCOPE_TEST_MAIN(TestPreferences)

} // namespace test_preferences

#include "test_preferences.moc"
