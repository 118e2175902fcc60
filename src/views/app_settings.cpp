#include "views/app_settings.h"

#include <QCryptographicHash>
#include <QSettings>

#include <algorithm>

namespace npuscope {

namespace {
const QString kRecent = QStringLiteral("recent/paths");
const QString kRecentLimit = QStringLiteral("recent/limit");
const QString kGeometry = QStringLiteral("window/geometryByScreen"); // + "/" + the screen's key
const QString kState = QStringLiteral("window/state");
const QString kSplit = QStringLiteral("window/timelineSplit");
const QString kSplitVersion = QStringLiteral("window/timelineSplitVersion");
const QString kHiddenPlots = QStringLiteral("window/hiddenPlots");
const QString kTheme = QStringLiteral("appearance/theme");
const QString kAdvisorOverride = QStringLiteral("advisor/thresholdsOverride");
const QString kPrefer = QStringLiteral("loading/prefer");
const QString kCache = QStringLiteral("loading/sessionCache");
const QString kRawClocks = QStringLiteral("view/rawClocks");
const QString kClockOffsets = QStringLiteral("clockOffsets/"); // + the root's hash

// A settings key for a profile root: its path hashed (a path holds '/', a group separator).
QString rootKey(const QString& root)
{
    return kClockOffsets + QString::fromLatin1(QCryptographicHash::hash(root.toUtf8(), QCryptographicHash::Sha1).toHex());
}

void trimRecent(QStringList& list, int limit)
{
    while (list.size() > limit)
        list.removeLast();
}
} // namespace

QString themeName(Theme t)
{
    switch (t) {
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    case Theme::System: break;
    }
    return QStringLiteral("system");
}

Theme themeFromName(const QString& name)
{
    if (name == QLatin1String("light"))
        return Theme::Light;
    if (name == QLatin1String("dark"))
        return Theme::Dark;
    return Theme::System;
}

QString preferName(Prefer p)
{
    switch (p) {
    case Prefer::Text: return QStringLiteral("text");
    case Prefer::Db: return QStringLiteral("db");
    case Prefer::Auto: break;
    }
    return QStringLiteral("auto");
}

Prefer preferFromName(const QString& name)
{
    if (name == QLatin1String("text"))
        return Prefer::Text;
    if (name == QLatin1String("db"))
        return Prefer::Db;
    return Prefer::Auto;
}

QStringList AppSettings::recentPaths() { return QSettings().value(kRecent).toStringList(); }

void AppSettings::addRecent(const QStringList& paths)
{
    const QString entry = paths.join(QLatin1Char('\n'));
    QStringList list = recentPaths();
    list.removeAll(entry);
    list.prepend(entry);
    trimRecent(list, recentLimit());
    QSettings().setValue(kRecent, list);
}

void AppSettings::clearRecent() { QSettings().remove(kRecent); }

int AppSettings::recentLimit()
{
    bool ok = false;
    const int n = QSettings().value(kRecentLimit, kDefaultRecent).toInt(&ok);
    return ok ? std::clamp(n, 1, kMaxRecent) : kDefaultRecent;
}

void AppSettings::setRecentLimit(int n)
{
    n = std::clamp(n, 1, kMaxRecent);
    QSettings s;
    s.setValue(kRecentLimit, n);
    QStringList list = s.value(kRecent).toStringList();
    if (list.size() > n) {
        trimRecent(list, n);
        s.setValue(kRecent, list);
    }
}

QString AppSettings::screenKey(const QString& name, int width, int height)
{
    // '/' separates QSettings groups: not part of a key.
    QString n = name;
    n.replace(QLatin1Char('/'), QLatin1Char('_')).replace(QLatin1Char('\\'), QLatin1Char('_'));
    return QStringLiteral("%1@%2x%3").arg(n).arg(width).arg(height);
}

QByteArray AppSettings::windowGeometry(const QString& screenKey)
{
    return QSettings().value(kGeometry + QLatin1Char('/') + screenKey).toByteArray();
}

QByteArray AppSettings::windowState() { return QSettings().value(kState).toByteArray(); }

QByteArray AppSettings::timelineSplit()
{
    QSettings s;
    if (s.value(kSplitVersion).toInt() != kWindowStateVersion)
        return {}; // a split of another layout
    return s.value(kSplit).toByteArray();
}

void AppSettings::setWindow(const QString& screenKey, const QByteArray& geometry, const QByteArray& state,
                            const QByteArray& timelineSplit)
{
    QSettings s;
    s.setValue(kGeometry + QLatin1Char('/') + screenKey, geometry);
    s.setValue(kState, state);
    s.setValue(kSplit, timelineSplit);
    s.setValue(kSplitVersion, kWindowStateVersion);
}

QStringList AppSettings::hiddenPlots() { return QSettings().value(kHiddenPlots).toStringList(); }

void AppSettings::setHiddenPlots(const QStringList& kinds)
{
    if (kinds.isEmpty())
        QSettings().remove(kHiddenPlots);
    else
        QSettings().setValue(kHiddenPlots, kinds);
}

Theme AppSettings::theme() { return themeFromName(QSettings().value(kTheme).toString()); }
void AppSettings::setTheme(Theme t) { QSettings().setValue(kTheme, themeName(t)); }
QString AppSettings::advisorOverrideFile() { return QSettings().value(kAdvisorOverride).toString(); }

void AppSettings::setAdvisorOverrideFile(const QString& path)
{
    if (path.isEmpty())
        QSettings().remove(kAdvisorOverride);
    else
        QSettings().setValue(kAdvisorOverride, path);
}

Prefer AppSettings::preferSource() { return preferFromName(QSettings().value(kPrefer).toString()); }
void AppSettings::setPreferSource(Prefer p) { QSettings().setValue(kPrefer, preferName(p)); }
bool AppSettings::useSessionCache() { return QSettings().value(kCache, true).toBool(); }
void AppSettings::setUseSessionCache(bool on) { QSettings().setValue(kCache, on); }

bool AppSettings::rawClocks() { return QSettings().value(kRawClocks, false).toBool(); }
void AppSettings::setRawClocks(bool on) { QSettings().setValue(kRawClocks, on); }

// Stored as "RANK=NS" strings, with the root they belong to.
QMap<int, qint64> AppSettings::clockOffsets(const QString& root)
{
    QSettings s;
    s.beginGroup(rootKey(root));
    QMap<int, qint64> out;
    if (s.value(QStringLiteral("root")).toString() != root)
        return out;
    for (const QString& item : s.value(QStringLiteral("offsets")).toStringList()) {
        const qsizetype eq = item.indexOf(QLatin1Char('='));
        bool okRank = false, okNs = false;
        const int rank = item.left(eq).toInt(&okRank);
        const qint64 ns = item.mid(eq + 1).toLongLong(&okNs);
        if (eq > 0 && okRank && okNs)
            out.insert(rank, ns);
    }
    return out;
}

void AppSettings::setClockOffsets(const QString& root, const QMap<int, qint64>& offsets)
{
    QSettings s;
    if (offsets.isEmpty()) {
        s.remove(rootKey(root));
        return;
    }
    QStringList items;
    for (auto it = offsets.begin(); it != offsets.end(); ++it)
        items << QStringLiteral("%1=%2").arg(it.key()).arg(it.value());
    s.beginGroup(rootKey(root));
    s.setValue(QStringLiteral("root"), root);
    s.setValue(QStringLiteral("offsets"), items);
}

} // namespace npuscope
