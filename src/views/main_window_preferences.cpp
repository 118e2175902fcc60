// MainWindow: File → Preferences. The dialog stores the values (AppSettings); the window applies
// them: the theme at once, the text/SQLite preference to the next load, a changed thresholds
// override by running the advisor again, the recent count to File → Open Recent.
#include "views/main_window.h"

#include "ui_main_window.h"

#include "views/advisor_panel.h"
#include "views/app_settings.h"
#include "views/load_controller.h"
#include "views/preferences_dialog.h"
#include "views/theme.h"

#include <QStatusBar>

namespace npuscope {

void MainWindow::showPreferences()
{
    PreferencesDialog dlg(this);
    connect(&dlg, &PreferencesDialog::clearRecentRequested, this, [this] {
        AppSettings::clearRecent();
        rebuildRecentMenu();
    });
    connect(&dlg, &PreferencesDialog::resetLayoutRequested, m_ui->actionResetLayout, &QAction::trigger);
    if (dlg.exec() != QDialog::Accepted)
        return;
    applyTheme(AppSettings::theme());
    m_loader->setPrefer(AppSettings::preferSource());
    m_loader->setUseCache(AppSettings::useSessionCache());
    if (m_compareLoader)
        m_compareLoader->setUseCache(AppSettings::useSessionCache());
    rebuildRecentMenu();
    const QString overrideFile = AppSettings::advisorOverrideFile();
    if (m_advisor && m_advisor->overrideFile() != overrideFile) {
        m_advisor->setOverrideFile(overrideFile);
        m_advisor->rerun();
    }
    statusBar()->showMessage(tr("Preferences saved"), 3000);
}

} // namespace npuscope
