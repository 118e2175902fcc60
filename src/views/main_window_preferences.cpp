// MainWindow: File → Preferences. The dialog stores the values (AppSettings); the window applies
// them: the theme at once, the text/SQLite preference to the next load, a changed thresholds
// override by running the advisor again, the recent count to File → Open Recent, the manual
// clock offsets of the open cluster to every view that aligns its ranks. View → Raw clocks lives
// here too: one setting for the timeline's All ranks, the Every rank curves and the Cluster tab.
#include "views/main_window.h"

#include "ui_main_window.h"

#include "model/analysis/clock_align.h"
#include "views/advisor_panel.h"
#include "views/app_settings.h"
#include "views/cluster_view.h"
#include "views/format.h"
#include "views/load_controller.h"
#include "views/preferences_dialog.h"
#include "views/theme.h"
#include "views/utilization_plots.h"

#include <QAction>
#include <QCheckBox>
#include <QMenu>
#include <QStatusBar>

namespace npuscope {

void MainWindow::showPreferences()
{
    PreferencesDialog dlg(this);
    const SessionPtr s = session();
    if (s && s->ranks.size() > 1) {
        const ClockAlignment estimated = alignClocks(*s);
        const QMap<int, qint64> manual = AppSettings::clockOffsets(qstr(s->root));
        std::vector<PreferencesDialog::ClockRow> rows;
        for (const RankClock& c : estimated.ranks) {
            PreferencesDialog::ClockRow row;
            row.rank = c.rank;
            row.estimated = c.offset;
            row.note = qstr(c.note);
            if (manual.contains(c.rank))
                row.manual = manual.value(c.rank);
            rows.push_back(row);
        }
        dlg.setClockOffsets(qstr(s->root), rows);
    }
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
    applyClocks();
    const QString overrideFile = AppSettings::advisorOverrideFile();
    if (m_advisor && m_advisor->overrideFile() != overrideFile) {
        m_advisor->setOverrideFile(overrideFile);
        m_advisor->rerun();
    }
    statusBar()->showMessage(tr("Preferences saved"), 3000);
}

void MainWindow::setupClocks()
{
    m_rawClocks = new QAction(tr("Raw clocks"), this);
    m_rawClocks->setObjectName(QStringLiteral("actionRawClocks"));
    m_rawClocks->setCheckable(true);
    m_rawClocks->setChecked(AppSettings::rawClocks());
    m_rawClocks->setToolTip(tr("Draw each rank in its own clock. Off: a cluster's ranks are drawn together in "
                               "aligned time, each shifted by its clock offset (Preferences → Clock offsets)."));
    connect(m_rawClocks, &QAction::toggled, this, [this](bool on) {
        AppSettings::setRawClocks(on);
        applyClocks();
    });
    connect(m_sel, &SelectionController::sessionChanged, this, &MainWindow::applyClocks);
    m_ui->menuView->addAction(m_rawClocks);
}

std::vector<std::pair<int, TimeNs>> MainWindow::manualClockOffsets() const
{
    std::vector<std::pair<int, TimeNs>> out;
    const SessionPtr s = session();
    if (!s)
        return out;
    const QMap<int, qint64> manual = AppSettings::clockOffsets(qstr(s->root));
    for (auto it = manual.begin(); it != manual.end(); ++it)
        out.emplace_back(it.key(), it.value());
    return out;
}

// Each rank's offset, taken off its times where the ranks share one axis; the model's times stay.
void MainWindow::applyClocks()
{
    const SessionPtr s = session();
    std::vector<TimeNs> shift;
    ClockOptions o;
    o.raw = m_rawClocks->isChecked();
    o.manual = manualClockOffsets();
    if (s && s->ranks.size() > 1) {
        const ClockAlignment a = alignClocks(*s, o);
        shift.assign(s->ranks.size(), 0);
        for (const RankClock& c : a.ranks)
            if (c.rankIndex >= 0 && c.rankIndex < static_cast<int>(shift.size()))
                shift[static_cast<std::size_t>(c.rankIndex)] = c.offset;
    }
    m_sel->setClockOffsets(shift); // the timeline, the Selection panel and every jump to a slice
    m_plots->setClockShift(shift);
    if (m_clusterView) {
        m_clusterView->setManualClockOffsets(o.manual);
        if (QCheckBox* box = m_clusterView->rawClocksCheck()) {
            box->setChecked(o.raw);
            connect(box, &QCheckBox::toggled, m_rawClocks, &QAction::setChecked, Qt::UniqueConnection);
        }
    }
}

} // namespace npuscope
