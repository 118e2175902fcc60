// The Cluster tab on a cluster summary (docs/CLUSTER-SUMMARY.md): the summary names each rank's
// folder; a rank is opened from there when this machine reaches it.
#include "views/cluster_view.h"

#include "model/cluster_summary/cluster_summary.h"

#include <QDir>
#include <QFileInfo>
#include <QLabel>

namespace npuscope {

void ClusterView::openRankFolder(int rank)
{
    if (!m_session || m_a.rankIndexOf(rank) >= 0)
        return; // a loaded rank: a click already selects it
    const std::string path = cluster_summary::rankFolderOf(*m_session, rank);
    if (path.empty()) {
        m_rankNote->setText(tr("Rank %1: the summary does not say where its folder is.").arg(rank));
        m_rankNote->show();
        return;
    }
    const QString qpath = QString::fromStdString(path);
    if (!QFileInfo(qpath).isDir()) {
        m_rankNote->setText(tr("Rank %1 lives at %2, which this machine does not reach: open it on that node, or "
                               "copy the folder here.")
                                .arg(rank)
                                .arg(QDir::toNativeSeparators(qpath)));
        m_rankNote->show();
        return;
    }
    m_rankNote->hide();
    emit rankFolderRequested(qpath);
}

QString ClusterView::rankNote() const
{
    return m_rankNote && !m_rankNote->isHidden() ? m_rankNote->text() : QString();
}

} // namespace npuscope
