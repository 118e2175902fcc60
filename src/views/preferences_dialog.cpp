#include "views/preferences_dialog.h"

#include "ui_preferences_dialog.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>

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

void PreferencesDialog::accept()
{
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
    QDialog::accept();
}

} // namespace npuscope
