#include "views/export_notice.h"

#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QUrl>

namespace npuscope {

QMessageBox* showExportNotice(QWidget* parent, const QString& path)
{
    const QFileInfo info(path);
    const QString where = QDir::toNativeSeparators(info.absoluteFilePath());
    auto* box = new QMessageBox(QMessageBox::Information, QObject::tr("Export done"),
                                QObject::tr("Wrote %1 (%2 bytes).").arg(where).arg(info.size()), QMessageBox::Close, parent);
    box->setObjectName(QStringLiteral("exportNotice"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPushButton* open = box->addButton(QObject::tr("Open folder"), QMessageBox::ActionRole);
    open->setObjectName(QStringLiteral("openFolder"));
    const QString folder = info.absolutePath();
    // An action-role button would close the box; open the folder and leave the box to Close.
    open->disconnect();
    QObject::connect(open, &QPushButton::clicked, box, [folder] { QDesktopServices::openUrl(QUrl::fromLocalFile(folder)); });
    box->setWindowModality(Qt::NonModal);
    box->show();
    return box;
}

QMessageBox* showExportError(QWidget* parent, const QString& path, const QString& reason)
{
    const QString where = QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath());
    QString text = QObject::tr("Could not write %1").arg(where);
    // Writers often start their reason with the path ("PATH: Not a directory"): said once.
    QString why = reason;
    for (const QString& prefix : QStringList{path + QStringLiteral(": "), where + QStringLiteral(": ")})
        if (why.startsWith(prefix))
            why = why.mid(prefix.size());
    if (!why.isEmpty())
        text += QStringLiteral(": ") + why;
    auto* box = new QMessageBox(QMessageBox::Warning, QObject::tr("Export failed"), text, QMessageBox::Close, parent);
    box->setObjectName(QStringLiteral("exportError"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->setWindowModality(Qt::NonModal);
    box->show();
    return box;
}

} // namespace npuscope
