#include "views/preferences_dialog.h"

#include "ui_preferences_dialog.h"

#include "model/analysis/clock_align.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace npuscope {

PreferencesDialog::PreferencesDialog(QWidget* parent)
    : QDialog(parent), m_ui(std::make_unique<Ui::PreferencesDialog>())
{
    m_ui->setupUi(this);
    m_ui->themeCombo->addItem(tr("System"), static_cast<int>(Theme::System));
    m_ui->themeCombo->addItem(tr("Light"), static_cast<int>(Theme::Light));
    m_ui->themeCombo->addItem(tr("Dark"), static_cast<int>(Theme::Dark));
    m_ui->preferCombo->addItem(tr("Automatic (text files)"), static_cast<int>(Prefer::Auto));
    m_ui->preferCombo->addItem(tr("Text files (CSV, JSON)"), static_cast<int>(Prefer::Text));
    m_ui->preferCombo->addItem(tr("SQLite databases (.db)"), static_cast<int>(Prefer::Db));
    m_ui->recentSpin->setRange(1, AppSettings::kMaxRecent);

    m_ui->themeCombo->setCurrentIndex(m_ui->themeCombo->findData(static_cast<int>(AppSettings::theme())));
    m_ui->preferCombo->setCurrentIndex(m_ui->preferCombo->findData(static_cast<int>(AppSettings::preferSource())));
    m_ui->cacheCheck->setChecked(AppSettings::useSessionCache());
    m_ui->thresholdsEdit->setText(AppSettings::advisorOverrideFile());
    m_ui->recentSpin->setValue(AppSettings::recentLimit());
    m_ui->clearRecentButton->setEnabled(!AppSettings::recentPaths().isEmpty());

    connect(m_ui->thresholdsBrowseButton, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, tr("Advisor thresholds override"), m_ui->thresholdsEdit->text(),
                                                       tr("JSON (*.json);;All files (*)"));
        if (!f.isEmpty())
            m_ui->thresholdsEdit->setText(f);
    });
    connect(m_ui->thresholdsClearButton, &QPushButton::clicked, m_ui->thresholdsEdit, &QLineEdit::clear);
    connect(m_ui->clearRecentButton, &QPushButton::clicked, this, [this] {
        emit clearRecentRequested();
        m_ui->clearRecentButton->setEnabled(false);
    });
    connect(m_ui->resetLayoutButton, &QPushButton::clicked, this, &PreferencesDialog::resetLayoutRequested);
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &PreferencesDialog::accept);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &PreferencesDialog::reject);
}

PreferencesDialog::~PreferencesDialog() = default;

Theme PreferencesDialog::theme() const { return static_cast<Theme>(m_ui->themeCombo->currentData().toInt()); }
Prefer PreferencesDialog::prefer() const { return static_cast<Prefer>(m_ui->preferCombo->currentData().toInt()); }
QString PreferencesDialog::thresholdsFile() const { return m_ui->thresholdsEdit->text().trimmed(); }
int PreferencesDialog::recentLimit() const { return m_ui->recentSpin->value(); }
bool PreferencesDialog::useSessionCache() const { return m_ui->cacheCheck->isChecked(); }

void PreferencesDialog::setClockOffsets(const QString& root, const std::vector<ClockRow>& rows)
{
    m_clockRoot = root;
    if (!m_clocks) {
        auto* box = new QGroupBox(tr("Clock offsets"), this);
        box->setObjectName(QStringLiteral("clockOffsetsGroup"));
        auto* v = new QVBoxLayout(box);
        auto* note = new QLabel(tr("Aligned time = file time − offset. Leave the override empty to use the "
                                   "estimate; ns, or with a unit (5.6ms, -20us)."),
                                box);
        note->setWordWrap(true);
        v->addWidget(note);
        m_clocks = new QTableWidget(0, 3, box);
        m_clocks->setObjectName(QStringLiteral("clockOffsetsTable"));
        m_clocks->setHorizontalHeaderLabels({tr("Rank"), tr("Estimated offset (ns)"), tr("Manual override (ns)")});
        m_clocks->verticalHeader()->setVisible(false);
        m_clocks->horizontalHeader()->setStretchLastSection(true);
        v->addWidget(m_clocks);
        m_ui->mainLayout->insertWidget(m_ui->mainLayout->count() - 2, box); // above the spacer and the buttons
    }
    m_clocks->setRowCount(static_cast<int>(rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const ClockRow& r = rows[i];
        const int row = static_cast<int>(i);
        auto* rank = new QTableWidgetItem(QString::number(r.rank));
        rank->setFlags(rank->flags() & ~Qt::ItemIsEditable);
        rank->setData(Qt::UserRole, r.rank);
        m_clocks->setItem(row, 0, rank);
        auto* est = new QTableWidgetItem(r.note.isEmpty() ? QString::number(r.estimated)
                                                          : QStringLiteral("%1 (%2)").arg(r.estimated).arg(r.note));
        est->setFlags(est->flags() & ~Qt::ItemIsEditable);
        m_clocks->setItem(row, 1, est);
        m_clocks->setItem(row, 2, new QTableWidgetItem(r.manual ? QString::number(*r.manual) : QString()));
    }
    m_clocks->resizeColumnsToContents();
}

bool PreferencesDialog::manualClockOffsets(QMap<int, qint64>& out, int* badRow) const
{
    out.clear();
    for (int row = 0; m_clocks && row < m_clocks->rowCount(); ++row) {
        const QTableWidgetItem* cell = m_clocks->item(row, 2);
        const QString text = cell ? cell->text().trimmed() : QString();
        if (text.isEmpty())
            continue;
        const int rank = m_clocks->item(row, 0)->data(Qt::UserRole).toInt();
        int parsedRank = -1;
        TimeNs ns = 0;
        // The command line's parser (--clock-offset RANK=NS), on this rank.
        if (!parseClockOffset(std::to_string(rank) + "=" + text.toStdString(), parsedRank, ns)) {
            if (badRow)
                *badRow = row;
            return false;
        }
        out.insert(rank, ns);
    }
    return true;
}

void PreferencesDialog::accept()
{
    QMap<int, qint64> clocks;
    if (int bad = -1; m_clocks && !manualClockOffsets(clocks, &bad)) {
        QMessageBox::warning(this, tr("Preferences"),
                             tr("The manual clock offset of rank %1, \"%2\", is not a time: give ns (3000000) or a "
                                "time with a unit (3ms, -20us), or leave it empty.")
                                 .arg(m_clocks->item(bad, 0)->text(), m_clocks->item(bad, 2)->text()));
        m_clocks->setCurrentCell(bad, 2);
        return;
    }
    const QString file = thresholdsFile();
    if (!file.isEmpty() && !QFileInfo(file).isFile()) {
        QMessageBox::warning(this, tr("Preferences"),
                             tr("The thresholds override %1 is not a readable file. Choose another one or clear it.").arg(file));
        m_ui->thresholdsEdit->setFocus();
        return;
    }
    AppSettings::setTheme(theme());
    AppSettings::setPreferSource(prefer());
    AppSettings::setUseSessionCache(useSessionCache());
    AppSettings::setAdvisorOverrideFile(file);
    AppSettings::setRecentLimit(recentLimit());
    if (m_clocks)
        AppSettings::setClockOffsets(m_clockRoot, clocks);
    QDialog::accept();
}

} // namespace npuscope
