#pragma once
// File → Preferences: theme, which export to read from folders holding both text and SQLite,
// whether loads use the session cache,
// the advisor thresholds override file, how many recent opens to keep; "Clear Recent Files" and
// "Reset Window Layout" act at once (signals), everything else is written to AppSettings when
// the dialog is accepted. The window applies the result (MainWindow::showPreferences).
#include "views/app_settings.h"

#include <QDialog>

#include <memory>

namespace Ui {
class PreferencesDialog;
}

namespace npuscope {

class PreferencesDialog : public QDialog {
    Q_OBJECT
public:
    explicit PreferencesDialog(QWidget* parent = nullptr); // shows the stored values
    ~PreferencesDialog() override;

    Theme theme() const;
    Prefer prefer() const;
    QString thresholdsFile() const; // "" = no override
    int recentLimit() const;
    bool useSessionCache() const;

    void accept() override; // validates the override file, saves, closes

signals:
    void clearRecentRequested();
    void resetLayoutRequested();

private:
    std::unique_ptr<Ui::PreferencesDialog> m_ui;
};

} // namespace npuscope
