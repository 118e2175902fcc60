// MainWindow: the keyboard help, About, the run chooser and the advisor report export (kept
// apart from the window wiring in main_window.cpp).
#include "views/main_window.h"

#include "views/export_notice.h"
#include "views/advisor_panel.h"
#include "views/report_pdf.h"

#include "advisor/advisor.h"
#include "advisor/cluster_summary_advice.h"
#include "views/load_controller.h"
#include "views/selection_controller.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QSaveFile>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressDialog>
#include <QStatusBar>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace npuscope {

void MainWindow::chooseRun(const QStringList& runs, const QStringList& paths)
{
    onLoadEnded();
    statusBar()->showMessage(tr("%1 unrelated runs found in %2: choose one").arg(runs.size()).arg(paths.join(", ")),
                             10000);
    auto* dlg = new QDialog(this);
    dlg->setObjectName(QStringLiteral("runChooser"));
    dlg->setWindowTitle(tr("Choose a run"));
    dlg->setAttribute(Qt::WA_DeleteOnClose);
    auto* layout = new QVBoxLayout(dlg);
    layout->addWidget(new QLabel(tr("%1 holds several unrelated runs. Open which one?").arg(paths.join(", ")), dlg));
    auto* list = new QListWidget(dlg);
    list->setObjectName(QStringLiteral("runList"));
    list->addItems(runs);
    list->setCurrentRow(0);
    list->setMinimumWidth(640);
    layout->addWidget(list);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, dlg);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, dlg, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, dlg, &QDialog::reject);
    connect(list, &QListWidget::itemActivated, dlg, &QDialog::accept);
    connect(dlg, &QDialog::accepted, this, [this, list, paths] {
        const int row = list->currentRow();
        if (row >= 0)
            m_loader->load(paths, static_cast<std::size_t>(row) + 1);
    });
    dlg->open();
}

void MainWindow::showShortcuts()
{
    // Every row of UI.md's interaction table, plus the window's own shortcuts.
    struct Row { const char* action; const char* mouse; const char* keys; };
    static const Row rows[] = {
        {"Zoom in/out around the cursor", "Ctrl+wheel", "W / S, + / −"},
        {"Pan", "drag on empty space, Shift+wheel", "A / D, ← / →"},
        {"Scroll lanes", "wheel", "↑ / ↓"},
        {"Zoom to selection", "double-click a range", "Z"},
        {"Fit all", "", "Ctrl+0"},
        {"Undo zoom", "", "Backspace"},
        {"Select task", "click", ""},
        {"Select range", "drag from a slice or the ruler, Shift+drag", ""},
        {"Clear selection", "", "Esc"},
        {"Collapse / expand a group", "click its header", ""},
        {"Hide a utilisation plot (View → Curves shows it again)", "right-click the plot", ""},
        {"Find operator", "", "Ctrl+F"},
        {"Step through matches", "", "Enter / Shift+Enter"},
        {"Show the critical path (outline it, dim the rest)", "toolbar: Critical path", "P"},
        {"Select the host op behind a device-idle gap", "click the gap in an Idle causes lane", ""},
        {"Jump from an Advisor evidence row to the timeline", "click", "Enter"},
        {"Jump from a ranking row or instance to the timeline", "double-click", "Enter"},
        {"Open folder", "drop a folder on the window", "Ctrl+O"},
        {"Open file", "drop a file on the window", "Ctrl+Shift+O"},
        {"Reload", "", "F5"},
        {"Compare with another profile", "", "Ctrl+D"},
        {"Show a compared operator in the ranking", "double-click its Compare row", ""},
        {"Export advisor report", "", "Ctrl+E"},
        {"Preferences", "", "Ctrl+,"},
        {"Keyboard help", "", "F1"},
        {"Quit", "", "Ctrl+Q"},
    };
    QDialog dlg(this);
    dlg.setWindowTitle(tr("Keyboard Shortcuts"));
    auto* lay = new QVBoxLayout(&dlg);
    auto* table = new QTableWidget(static_cast<int>(std::size(rows)), 3, &dlg);
    table->setObjectName(QStringLiteral("shortcutTable"));
    table->setHorizontalHeaderLabels({tr("Action"), tr("Mouse"), tr("Keys")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int r = 0; r < static_cast<int>(std::size(rows)); ++r) {
        table->setItem(r, 0, new QTableWidgetItem(tr(rows[r].action)));
        table->setItem(r, 1, new QTableWidgetItem(tr(rows[r].mouse)));
        table->setItem(r, 2, new QTableWidgetItem(tr(rows[r].keys)));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    lay->addWidget(table);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dlg);
    connect(buttons, &QDialogButtonBox::rejected, &dlg, &QDialog::reject);
    lay->addWidget(buttons);
    dlg.resize(720, 560);
    dlg.exec();
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About npuscope"),
                       tr("<b>npuscope %1</b><br>Trace viewer and performance advisor for Ascend NPU profiling data."
                          "<br>Qt %2 (built with %3)")
                           .arg(QStringLiteral(NPUSCOPE_VERSION), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)));
}

void MainWindow::exportAdvisorReport()
{
    const SessionPtr s = session();
    if (!s)
        return;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export advisor report"), QStringLiteral("advisor-report.pdf"),
        tr("PDF (*.pdf);;HTML (*.html);;Markdown (*.md);;JSON (*.json);;Text (*.txt)"));
    if (!path.isEmpty())
        exportAdvisorReportTo(path);
}

void MainWindow::exportAdvisorReportTo(const QString& path)
{
    const SessionPtr s = session();
    if (!s)
        return;
    const QString overrideFile = m_advisor ? m_advisor->overrideFile() : QString();
    // The Advisor dock's report is reused when it was computed for this session with the same
    // thresholds; otherwise the rules run again.
    advisor::ThresholdsOptions o;
    o.overrideFile = overrideFile.toStdString();
    const std::shared_ptr<const advisor::AdvisorReport> current = m_advisor ? m_advisor->reportFor(s, advisor::Thresholds::load(o)) : nullptr;
    // The advisor runs on a worker with a cancellable progress dialog; the window stays usable.
    // The PDF is laid out on the GUI thread (fonts), the text formats on the worker.
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    using Result = std::pair<std::shared_ptr<const advisor::AdvisorReport>, std::string>;
    auto* watcher = new QFutureWatcher<Result>(this);
    auto* progress = new QProgressDialog(tr("Running the advisor…"), tr("Cancel"), 0, 0, this);
    progress->setMinimumDuration(500);
    progress->setWindowModality(Qt::NonModal);
    connect(progress, &QProgressDialog::canceled, this, [cancel] { *cancel = true; });
    connect(watcher, &QFutureWatcher<Result>::finished, this, [this, watcher, progress, path, cancel] {
        progress->deleteLater();
        watcher->deleteLater();
        if (*cancel)
            return;
        const Result r = watcher->result();
        if (path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive)) {
            std::string error;
            if (!writeReportPdf(*r.first, path.toStdString(), &error)) {
                showExportError(this, path, QString::fromStdString(error));
                return;
            }
        } else {
            // Written to a temporary file and renamed: a failed export never leaves half a file.
            QSaveFile f(path);
            if (!f.open(QIODevice::WriteOnly)
                || f.write(r.second.data(), static_cast<qint64>(r.second.size())) != static_cast<qint64>(r.second.size())
                || !f.commit()) {
                showExportError(this, path, f.errorString());
                return;
            }
        }
        statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
        showExportNotice(this, path);
    });
    watcher->setFuture(QtConcurrent::run([s, path, cancel, o, current]() -> Result {
        std::shared_ptr<const advisor::AdvisorReport> r = current;
        if (!r)
            r = std::make_shared<advisor::AdvisorReport>(advisor::adviseSession(*s, advisor::Thresholds::load(o), cancel.get()));
        std::string text;
        if (path.endsWith(QStringLiteral(".md")))
            text = advisor::writeMarkdown(*r);
        else if (path.endsWith(QStringLiteral(".json")))
            text = advisor::writeJson(*r);
        else if (path.endsWith(QStringLiteral(".txt")))
            text = advisor::writeText(*r);
        else if (!path.endsWith(QStringLiteral(".pdf"), Qt::CaseInsensitive))
            text = advisor::writeHtml(*r);
        return Result{r, text};
    }));
}

} // namespace npuscope
