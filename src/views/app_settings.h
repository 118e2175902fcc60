#pragma once
// The one typed wrapper around QSettings (STYLE.md practice 9): recent paths, window state, the
// hidden plots and the Preferences (theme, advisor thresholds override, text/SQLite preference,
// recent count).
#include "model/formats/loader.h"

#include <QByteArray>
#include <QMap>
#include <QString>
#include <QStringList>

namespace npuscope {

enum class Theme { System, Light, Dark };

class AppSettings {
public:
    static constexpr int kDefaultRecent = 10;
    static constexpr int kMaxRecent = 30;
    // Bump when docks are added or renamed, so an old saved layout is not restored onto them.
    // 2: the timeline and its plots take most of the height by default.
    static constexpr int kWindowStateVersion = 2;

    static QStringList recentPaths();
    static void addRecent(const QStringList& paths); // one entry per open, paths joined by '\n'
    static void clearRecent();
    // How many opens File → Open Recent keeps (1..kMaxRecent); lowering it drops the oldest.
    static int recentLimit();
    static void setRecentLimit(int n);

    // The window's geometry (QWidget::saveGeometry) as last left on the screen `screenKey`
    // names (screenKey(): its name and size), empty when it never was: a window moved between a
    // laptop's panel and a large monitor opens on each as it was left there.
    static QByteArray windowGeometry(const QString& screenKey);
    static QString screenKey(const QString& name, int width, int height);
    static QByteArray windowState();
    // The split between the timeline and its utilisation plots (QSplitter::saveState), empty
    // when none was saved with this kWindowStateVersion.
    static QByteArray timelineSplit();
    static void setWindow(const QString& screenKey, const QByteArray& geometry, const QByteArray& state,
                          const QByteArray& timelineSplit = {});
    // The utilisation plots hidden (View → Curves): their kinds, "util", "bw", "l2", "freq", "mem".
    static QStringList hiddenPlots();
    static void setHiddenPlots(const QStringList& kinds);

    static Theme theme();
    static void setTheme(Theme t);
    // Thresholds override file merged over the shipped thresholds ("" = none).
    static QString advisorOverrideFile();
    static void setAdvisorOverrideFile(const QString& path);
    // Which export a folder holding both the text files and SQLite databases is read from.
    static Prefer preferSource();
    static void setPreferSource(Prefer p);
    // Whether loads go through the session cache (model/cache/session_cache.h); on by default.
    static bool useSessionCache();
    static void setUseSessionCache(bool on);
    // View → Raw clocks: a cluster's ranks drawn in their own clocks instead of aligned by the
    // ends of their collectives (model/analysis/clock_align.h); off by default.
    static bool rawClocks();
    static void setRawClocks(bool on);
    // The manual clock offsets (Preferences → Clock offsets) of the profile at `root`, by rank
    // id, in ns (aligned = file − offset); a rank not listed keeps its estimate.
    static QMap<int, qint64> clockOffsets(const QString& root);
    static void setClockOffsets(const QString& root, const QMap<int, qint64>& offsets);
};

// Stored names ("system", "light", "dark"; "auto", "text", "db"); unknown text gives the default.
QString themeName(Theme t);
Theme themeFromName(const QString& name);
QString preferName(Prefer p);
Prefer preferFromName(const QString& name);

} // namespace npuscope
