#include "views/app_settings.h"

#include <QSettings>

namespace npuscope {

namespace {
const QString kRecent = QStringLiteral("recent/paths");
const QString kGeometry = QStringLiteral("window/geometry");
const QString kState = QStringLiteral("window/state");
} // namespace

QStringList AppSettings::recentPaths() { return QSettings().value(kRecent).toStringList(); }

void AppSettings::addRecent(const QStringList& paths)
{
    const QString entry = paths.join(QLatin1Char('\n'));
    QStringList list = recentPaths();
    list.removeAll(entry);
    list.prepend(entry);
    while (list.size() > kMaxRecent)
        list.removeLast();
    QSettings().setValue(kRecent, list);
}

void AppSettings::clearRecent() { QSettings().remove(kRecent); }
QByteArray AppSettings::windowGeometry() { return QSettings().value(kGeometry).toByteArray(); }
QByteArray AppSettings::windowState() { return QSettings().value(kState).toByteArray(); }

void AppSettings::setWindow(const QByteArray& geometry, const QByteArray& state)
{
    QSettings s;
    s.setValue(kGeometry, geometry);
    s.setValue(kState, state);
}

} // namespace npuscope
