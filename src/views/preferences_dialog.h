#pragma once
// File → Preferences: theme, which export to read from folders holding both text and SQLite,
// whether loads use the session cache,
// the advisor thresholds override file, how many recent opens to keep; "Clear Recent Files" and
// "Reset Window Layout" act at once (signals), everything else is written to AppSettings when
// the dialog is accepted. The window applies the result (MainWindow::showPreferences).
// With a cluster open, "Clock offsets" lists per rank the offset estimated from the collectives
// (read-only) and a manual override (empty = the estimate), kept per profile root.
#include "views/app_settings.h"

#include <QDialog>

#include <QMap>

#include <memory>
#include <optional>
#include <vector>

class QTableWidget;

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

    // One row of "Clock offsets": the rank id, its estimated offset (ns) and what it says about
    // it ("reference", why it was not estimated), and the stored manual override.
    struct ClockRow {
        int rank = -1;
        qint64 estimated = 0;
        QString note;
        std::optional<qint64> manual;
    };
    // Shows "Clock offsets" for the profile at `root` (hidden until called).
    void setClockOffsets(const QString& root, const std::vector<ClockRow>& rows);
    QTableWidget* clockOffsetsTable() const { return m_clocks; }
    // The overrides as typed (rank id → ns); false with the first cell that does not parse.
    bool manualClockOffsets(QMap<int, qint64>& out, int* badRow = nullptr) const;

    void accept() override; // validates the override file, saves, closes

signals:
    void clearRecentRequested();
    void resetLayoutRequested();

private:
    std::unique_ptr<Ui::PreferencesDialog> m_ui;
    QTableWidget* m_clocks = nullptr;
    QString m_clockRoot;
};

} // namespace npuscope
