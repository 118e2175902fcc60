#pragma once
// What the window tests do again and again: open a folder in the main window and wait for it,
// find the toolbar's rank chooser, and find a rank's place in the session.
#include "views/main_window.h"

#include <QComboBox>
#include <QSignalSpy>
#include <QToolBar>

namespace npuscope::testing {

// Opens `path` in `w` as File → Open does; true once the session is shown (at most 60 s).
inline bool load(MainWindow& w, const QString& path)
{
    QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
    w.openPaths({path});
    return loaded.wait(60000);
}

// The toolbar's rank chooser ("All ranks", "Rank 0", ...), or null.
inline QComboBox* rankCombo(MainWindow& w)
{
    for (QToolBar* tb : w.findChildren<QToolBar*>())
        for (QComboBox* c : tb->findChildren<QComboBox*>())
            if (c->toolTip().contains(QStringLiteral("rank")))
                return c;
    return nullptr;
}

// The index into Session::ranks of rank id `rank`, -1 when absent.
inline int indexOfRank(const Session& s, int rank)
{
    for (std::size_t i = 0; i < s.ranks.size(); ++i)
        if (s.ranks[i]->rank == rank)
            return static_cast<int>(i);
    return -1;
}

} // namespace npuscope::testing
