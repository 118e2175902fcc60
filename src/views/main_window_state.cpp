// MainWindow: where the window opens and how its height is shared, what a profile leaves behind
// when another one opens (its view state, its comparison), and the banner that says a timeline
// was read only in part.
#include "views/main_window.h"

#include "views/app_settings.h"
#include "views/compare_view.h"
#include "views/load_controller.h"
#include "views/selection_controller.h"
#include "views/summary_strip.h"
#include "views/format.h"
#include "views/time_format.h"
#include "views/timeline_view.h"
#include "views/utilization_plots.h"

#include <QDockWidget>
#include <QFileInfo>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QToolButton>

#include <algorithm>
#include <limits>

namespace npuscope {

namespace {

// UI.md's default window.
constexpr QSize kDefaultSize(1600, 1000);
// Below this height (a 1280×720 or 1366×768 screen) the docks under the timeline would leave it
// a few rows: they open as tabs beside the Advisor instead, and the plots give up some of their
// third so that the timeline keeps kTimelineShare of the window's height.
constexpr int kSmallHeight = 800;
constexpr double kTimelineShare = 0.42;

QString shownPath(const Session& s, const std::string& path)
{
    const QString p = QString::fromStdString(path);
    const QString root = QString::fromStdString(s.root);
    if (!root.isEmpty() && p.startsWith(root + QLatin1Char('/')))
        return p.mid(root.size() + 1);
    return QFileInfo(p).fileName();
}

QString megabytes(std::uint64_t bytes)
{
    const double mb = static_cast<double>(bytes) / 1e6;
    return QString::number(mb, 'f', mb >= 100 ? 0 : 1);
}

} // namespace

QString MainWindow::screenKey() const
{
    const QScreen* sc = screen();
    return sc ? AppSettings::screenKey(sc->name(), sc->geometry().width(), sc->geometry().height()) : QString();
}

void MainWindow::placeOnScreen()
{
    const QScreen* sc = screen();
    if (!sc)
        return;
    const QRect avail = sc->availableGeometry();
    const QByteArray saved = AppSettings::windowGeometry(screenKey());
    if (saved.isEmpty() || !restoreGeometry(saved)) {
        resize(kDefaultSize.boundedTo(avail.size()));
        move(avail.center() - QPoint(width() / 2, height() / 2));
    }
    fitIntoScreen();
    m_placedSize = size();
}

void MainWindow::fitIntoScreen()
{
    const QScreen* sc = screen();
    if (!sc || isMaximized() || isFullScreen())
        return;
    const QRect avail = sc->availableGeometry();
    // The frame is known once the window is shown; before, the window alone must fit.
    const QRect frame = frameGeometry();
    const QMargins margins(geometry().left() - frame.left(), geometry().top() - frame.top(),
                           frame.right() - geometry().right(), frame.bottom() - geometry().bottom());
    const QSize room = avail.size().shrunkBy(margins);
    if (width() > room.width() || height() > room.height())
        resize(size().boundedTo(room));
    QRect f = frameGeometry();
    f.moveLeft(std::clamp(f.left(), avail.left(), std::max(avail.left(), avail.right() - f.width() + 1)));
    f.moveTop(std::clamp(f.top(), avail.top(), std::max(avail.top(), avail.bottom() - f.height() + 1)));
    if (f.topLeft() != frameGeometry().topLeft())
        move(f.topLeft());
}

void MainWindow::sizeDocksAndSplit(bool restored)
{
    // Again with the frame the window system gave, unless the window was sized meanwhile (the
    // command line's -qwindowgeometry, a test).
    if (size() == m_placedSize)
        fitIntoScreen();
    const bool small = height() < kSmallHeight;
    if (!restored && small) {
        QDockWidget* advisor = dock(QStringLiteral("advisorDock"));
        for (const char* name : {"operatorsDock", "operatorDetailDock", "problemsDock", "filesDock"}) {
            QDockWidget* d = dock(QString::fromLatin1(name));
            addDockWidget(Qt::RightDockWidgetArea, d);
            tabifyDockWidget(advisor, d);
        }
        // One more tab there would widen the window past the screen: What-if stays closed
        // (View → What-if opens it floating).
        dock(QStringLiteral("whatIfDock"))->setFloating(true);
        advisor->raise();
        // The ranking's columns need more than a quarter of the width.
        resizeDocks({advisor}, {width() * 2 / 5}, Qt::Horizontal);
        m_defaultState = saveState(AppSettings::kWindowStateVersion);
    } else if (!restored) {
        QDockWidget* whatIf = dock(QStringLiteral("whatIfDock"));
        addDockWidget(Qt::RightDockWidgetArea, whatIf); // a tab beside the Advisor
        tabifyDockWidget(dock(QStringLiteral("advisorDock")), whatIf);
        whatIf->show();
        dock(QStringLiteral("advisorDock"))->raise();
        resizeDocks({dock(QStringLiteral("advisorDock"))}, {width() / 4}, Qt::Horizontal);
        resizeDocks({dock(QStringLiteral("operatorsDock"))}, {height() / 4}, Qt::Vertical);
        m_defaultState = saveState(AppSettings::kWindowStateVersion);
    }
    // A state saved before the What-if dock existed leaves it out of the layout: it opens floating.
    if (QDockWidget* whatIf = dock(QStringLiteral("whatIfDock")); !whatIf->isFloating() && dockWidgetArea(whatIf) == Qt::NoDockWidgetArea)
        whatIf->setFloating(true);
    // The timeline and its plots keep most of the height, the lanes about two thirds of it; in a
    // small window the plots shrink (to their minimum) before the lanes go under kTimelineShare.
    const int summary = m_summary->sizeHint().height();
    const int rest = std::max(0, m_splitter->height() - summary - 2 * m_splitter->handleWidth());
    int plots = std::min(rest / 2, std::max(rest / 3, m_plots->minimumHeight()));
    if (small)
        plots = std::max(m_plots->minimumHeight(), std::min(plots, rest - static_cast<int>(kTimelineShare * height())));
    plots = std::clamp(plots, 0, rest);
    m_defaultSplit = {summary, rest - plots, plots};
    if (const QByteArray split = restored ? AppSettings::timelineSplit() : QByteArray(); !split.isEmpty())
        m_splitter->restoreState(split);
    else
        m_splitter->setSizes(m_defaultSplit);
}

void MainWindow::keepTimelineShare()
{
    // What the timeline page lost (to the banner, to the "Curves of:" bar of a cluster) comes
    // from the plots first, down to their minimum, while the lanes are under their share of a
    // small window's height.
    QList<int> sizes = m_splitter->sizes();
    if (sizes.size() < 3 || height() >= kSmallHeight)
        return;
    const int want = static_cast<int>(kTimelineShare * height());
    const int give = std::min(want - sizes[1], sizes[2] - m_plots->minimumHeight());
    if (give <= 0)
        return;
    sizes[1] += give;
    sizes[2] -= give;
    m_splitter->setSizes(sizes);
}

void MainWindow::closeCompare()
{
    m_compareLoader->cancel();
    m_compareBaseline.reset();
    if (!m_compareView)
        return;
    if (m_compareComputing) {
        m_compareComputing = false;
        m_compareView->cancel();
        m_progress->setRange(0, 1000);
        if (!m_loader->busy())
            onLoadEnded();
    }
    if (m_tabs->currentWidget() == m_compareView)
        m_tabs->setCurrentIndex(0);
    if (const int i = m_tabs->indexOf(m_compareView); i >= 0)
        m_tabs->removeTab(i);
    m_compareView->deleteLater();
    m_compareView = nullptr;
}

void MainWindow::saveViewState()
{
    if (m_viewKey.isEmpty())
        return;
    m_viewStates[m_viewKey] = {m_timeline->verticalScrollBar()->value(), m_plots->curvesRank()};
}

void MainWindow::restoreViewState(const QString& key)
{
    // A profile never seen in this window starts from the defaults, not from the last one's.
    const ViewState st = m_viewStates.value(key);
    m_plots->setCurvesRank(st.curvesRank);
    m_timeline->verticalScrollBar()->setValue(st.scrollY);
    m_viewKey = key;
}

void MainWindow::buildBanner()
{
    m_banner = new QFrame;
    m_banner->setObjectName(QStringLiteral("loadBanner"));
    // Amber in both themes: it is a warning, and its text stays dark on it.
    m_banner->setStyleSheet(QStringLiteral("QFrame#loadBanner { background: #FFE3A0; border-bottom: 1px solid #C98F00; }"
                                           "QFrame#loadBanner QLabel { color: #202020; }"));
    auto* row = new QHBoxLayout(m_banner);
    row->setContentsMargins(8, 4, 8, 4);
    auto* icon = new QLabel;
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(20, 20));
    row->addWidget(icon, 0, Qt::AlignTop);
    m_bannerText = new QLabel;
    m_bannerText->setObjectName(QStringLiteral("loadBannerText"));
    m_bannerText->setWordWrap(true);
    m_bannerText->setTextFormat(Qt::RichText);
    m_bannerText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row->addWidget(m_bannerText, 1);
    auto* show = new QPushButton(tr("Show problems"));
    show->setObjectName(QStringLiteral("loadBannerShowProblems"));
    row->addWidget(show, 0, Qt::AlignTop);
    auto* hide = new QToolButton;
    hide->setObjectName(QStringLiteral("loadBannerHide"));
    hide->setText(QStringLiteral("✕"));
    hide->setToolTip(tr("Hide this notice (the Problems dock keeps it)"));
    hide->setAutoRaise(true);
    row->addWidget(hide, 0, Qt::AlignTop);
    connect(show, &QPushButton::clicked, this, [this] {
        dock(QStringLiteral("problemsDock"))->show();
        dock(QStringLiteral("problemsDock"))->raise();
    });
    connect(hide, &QToolButton::clicked, m_banner, &QWidget::hide);
    m_banner->hide();
}

QString MainWindow::loadBannerText() const { return m_bannerText->text().remove(QRegularExpression(QStringLiteral("<[^>]*>"))); }

void MainWindow::updateBanner(const SessionPtr& s)
{
    QStringList cuts, beside;
    for (std::size_t r = 0; s && r < s->ranks.size(); ++r) {
        const Profile& p = *s->ranks[r];
        for (const FileRecord& f : p.files) {
            if (!f.has(FileRole::Timeline) || f.status != FileStatus::Partial)
                continue;
            // Where reading stopped: the error at a byte offset (a cut or a stray byte), not the
            // warnings about events that were read whole.
            const auto d = std::find_if(p.diagnostics.begin(), p.diagnostics.end(), [&f](const Diagnostic& d) {
                return d.file == f.path && d.severity == Severity::Error && d.byteOffset >= 0;
            });
            if (d == p.diagnostics.end())
                continue;
            TimeNs kept = std::numeric_limits<TimeNs>::min();
            for (std::size_t i = 0; i < p.slices.size(); ++i)
                kept = std::max(kept, p.slices.end(i));
            TimeNs kernels = std::numeric_limits<TimeNs>::min();
            for (std::size_t i = 0; i < p.kernels.size(); ++i)
                kernels = std::max(kernels, p.kernels.start[i] + p.kernels.dur[i]);
            QString line = tr("<b>%1</b> (%2%3 MB): %4.")
                               .arg(shownPath(*s, f.path).toHtmlEscaped(),
                                    s->ranks.size() > 1 ? tr("rank %1, ").arg(p.rank >= 0 ? p.rank : static_cast<int>(r)) : QString(),
                                    megabytes(f.bytes), QString::fromStdString(d->reason).toHtmlEscaped());
            if (kept > std::numeric_limits<TimeNs>::min())
                line += tr(" The timeline ends %1 after the start.").arg(fmt::duration(kept - m_sel->timeOrigin()));
            cuts << line;
            for (const FileRecord& side : p.files)
                if (side.status == FileStatus::Loaded && side.has(FileRole::CoversRunBeside))
                    beside << QFileInfo(QString::fromStdString(side.path)).fileName();
            if (kernels > kept && kept > std::numeric_limits<TimeNs>::min())
                beside << tr("the kernel table runs %1 past the cut").arg(fmt::duration(kernels - kept));
        }
    }
    if (cuts.isEmpty()) {
        m_banner->hide();
        return;
    }
    QString text = tr("<b>The timeline was read only in part.</b> ") + cuts.join(QStringLiteral(" "));
    m_bannerText->setToolTip({});
    if (!beside.isEmpty()) {
        beside.removeDuplicates();
        // The side files' numbers go past the cut: said here, listed in the tooltip.
        text += tr(" Step and operator numbers in the header and the Advisor come from side files read whole "
                   "and cover the whole run.");
        m_bannerText->setToolTip(tr("Read whole beside the timeline: %1").arg(beside.join(QStringLiteral(", "))));
    }
    m_bannerText->setText(text);
    m_banner->show();
}

} // namespace npuscope
