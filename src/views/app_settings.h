#pragma once
// The one typed wrapper around QSettings (STYLE.md practice 9): recent paths and window state.
#include <QByteArray>
#include <QStringList>

namespace npuscope {

class AppSettings {
public:
    static constexpr int kMaxRecent = 10;
    // Bump when docks are added or renamed, so an old saved layout is not restored onto them.
    static constexpr int kWindowStateVersion = 1;

    static QStringList recentPaths();
    static void addRecent(const QStringList& paths); // one entry per open, paths joined by '\n'
    static void clearRecent();
    static QByteArray windowGeometry();
    static QByteArray windowState();
    static void setWindow(const QByteArray& geometry, const QByteArray& state);
};

} // namespace npuscope
