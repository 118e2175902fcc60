// The GUI entry: the main window on the given paths (or the demo profile), or, without any
// display, a headless summary of the same data (top operators and the advisor's findings).
#include "app/gui_main.h"

#include "advisor/advisor.h"
#include "advisor/cluster_summary_advice.h"
#include "model/analysis/op_stats.h"
#include "model/analysis/time_axis.h"
#include "model/analysis/units.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"
#include "views/advisor_panel.h"
#include "views/cluster_view.h"
#include "views/idle_lane.h"
#include "views/load_controller.h"
#include "views/main_window.h"
#include "views/selection_controller.h"
#include "views/summary_strip.h"
#include "views/theme.h"
#include "views/timeline_view.h"
#include "views/whatif_panel.h"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QEventLoop>
#include <QStandardPaths>
#include <QTabWidget>
#include <QThread>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace npuscope {

namespace {

struct GuiArgs {
    std::vector<std::string> paths;
    bool demo = false;
    std::string screenshot; // --screenshot FILE: save the window after the load, then quit
    std::string tab;        // --tab NAME: the central tab, dock or timeline group to show (e.g. "Cluster",
                            // "What-if", "Idle causes") before the screenshot
    std::string compare;    // --compare OPTIMIZED: the Compare tab against the first profile
    bool preferences = false; // --preferences: open the Preferences dialog (with --screenshot: save it)
    bool criticalPath = false; // --critical-path: open with each step's critical path outlined
    // --zoom START END / --select START END: offsets from the trace start the window opens on.
    std::optional<std::pair<TimeNs, TimeNs>> zoom, select;
    std::string error; // a usage error: exit 2 with it
};

GuiArgs parseArgs(int argc, char** argv)
{
    GuiArgs a;
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        if (s == "--demo") {
            a.demo = true;
        } else if (s == "--preferences") {
            a.preferences = true;
        } else if (s == "--critical-path") {
            a.criticalPath = true;
        } else if (s == "--compare" && i + 1 < argc) {
            a.compare = argv[++i];
        } else if (s.rfind("--compare=", 0) == 0) {
            a.compare = s.substr(10);
        } else if (s == "--tab" && i + 1 < argc) {
            a.tab = argv[++i];
        } else if (s == "--zoom" || s == "--select") {
            auto option = [](const char* v) { return v[0] == '-' && v[1] == '-'; };
            if (i + 2 >= argc || option(argv[i + 1]) || option(argv[i + 2])) {
                a.error = s + " needs START and END, e.g. " + s + " 12.1ms 14.4ms";
                return a;
            }
            TimeNs b = 0, e = 0;
            if (!parseTimeRangeText(s, argv[i + 1], argv[i + 2], &b, &e, &a.error))
                return a;
            (s == "--zoom" ? a.zoom : a.select) = std::pair{b, e};
            i += 2;
        } else if (s == "--screenshot" && i + 1 < argc) {
            a.screenshot = argv[++i];
        } else if (s.rfind("--screenshot=", 0) == 0) {
            a.screenshot = s.substr(13);
        } else if (s == "-platform" || s == "-style" || s == "--style" || s == "-qwindowgeometry") {
            ++i; // Qt's own options with a value; QApplication reads them
        } else if (!s.empty() && s[0] == '-') {
            continue; // other Qt options
        } else {
            a.paths.push_back(s);
        }
    }
    return a;
}

bool headless()
{
    auto empty = [](const char* v) { const char* e = std::getenv(v); return !e || !*e; };
    return empty("DISPLAY") && empty("WAYLAND_DISPLAY") && empty("QT_QPA_PLATFORM");
}

std::string cacheDir()
{
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::string(x) + "/npuscope";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::string(h) + "/.cache/npuscope";
    return (std::filesystem::temp_directory_path() / "npuscope").string();
}

// The demo profile, generated on first use (a few MB, deterministic for its seed).
std::string demoPath(std::string* error)
{
    const std::string dir = cacheDir() + "/demo/llama2-baseline";
    std::error_code ec;
    if (std::filesystem::exists(dir + "/.complete", ec))
        return dir;
    std::fprintf(stderr, "npuscope: generating the demo profile in %s\n", dir.c_str());
    synth::SynthOptions o;
    o.scenario = "llama2-baseline";
    std::filesystem::remove_all(dir, ec);
    const synth::SynthResult r = synth::synthesize(dir, o);
    if (!r.ok) {
        *error = r.error;
        return {};
    }
    // Written last, so an interrupted generation is redone instead of opened half-written.
    std::FILE* f = std::fopen((dir + "/.complete").c_str(), "w");
    if (f)
        std::fclose(f);
    return dir;
}

int runHeadless(const GuiArgs& args)
{
    std::fprintf(stderr, "npuscope: no display (DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM are unset); "
                         "printing a summary instead of opening the window\n");
    const LoadResult lr = loadSessions(args.paths);
    if (!lr.session) {
        std::fprintf(stderr, "npuscope: %s\n", lr.error.c_str());
        return 1;
    }
    const Session& s = *lr.session;
    for (const auto& p : s.ranks) {
        const OpStatsResult st = computeOpStats(*p);
        std::printf("%s%s: top operators by device time%s\n", p->name.c_str(),
                    p->rank >= 0 ? (" (rank " + std::to_string(p->rank) + ")").c_str() : "",
                    st.fromTimeline ? " (from timeline tasks)" : "");
        std::printf("  %-32s %8s %12s %7s\n", "OP Type", "count", "total", "share");
        for (std::size_t i = 0; i < st.groups.size() && i < 10; ++i) {
            const OpGroupStats& g = st.groups[i];
            std::printf("  %-32s %8llu %12s %6.1f%%\n", g.key.c_str(), static_cast<unsigned long long>(g.count),
                        formatDuration(g.total).c_str(), g.share * 100.0);
        }
    }
    const advisor::AdvisorReport r = advisor::adviseSession(s, advisor::Thresholds::load());
    std::printf("\nAdvisor: %d high, %d medium, %d low; %d passed, %d not checked\n", r.summary.high, r.summary.medium,
                r.summary.low, r.summary.passed, r.summary.notChecked);
    for (const advisor::Finding* f : r.fired())
        std::printf("  [%s] %s\n", advisor::severityName(f->severity), f->title.c_str());
    return 0;
}

// Waits for what the window computes on workers after a load, so that a screenshot shows it.
void waitForWorkers(MainWindow& w)
{
    // The Cluster tab's analysis: the picture shows its result.
    if (ClusterView* cluster = w.clusterView(); cluster && cluster->analysing()) {
        QEventLoop wait;
        QObject::connect(cluster, &ClusterView::analysisReady, &wait, &QEventLoop::quit);
        wait.exec();
    }
    // The summary strip's numbers, the advisor's findings, the idle causes and the what-if replay.
    const AdvisorPanel* advisor = w.findChild<AdvisorPanel*>();
    while (w.summary()->busy() || (advisor && advisor->busy()) || w.causalModel()->busy() || w.whatIfPanel()->busy()) {
        QApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(5);
    }
}

// The central tab, the tab inside a view, the dock or the timeline group titled `tab`.
void showPart(MainWindow& w, const QString& tab)
{
    for (int i = 0; i < w.tabs()->count(); ++i)
        if (w.tabs()->tabText(i) == tab)
            w.tabs()->setCurrentIndex(i);
    // Tabs inside a view too ("Operator mapping" of the Compare tab, whose text goes on
    // with a count in parentheses).
    for (QTabWidget* inner : w.findChildren<QTabWidget*>())
        if (inner != w.tabs())
            for (int i = 0; i < inner->count(); ++i)
                if (inner->tabText(i) == tab || inner->tabText(i).startsWith(tab + QStringLiteral(" ("))) {
                    inner->setCurrentIndex(i);
                    // ... and the window's tab that holds it ("Why it waits" of the Cluster tab).
                    for (int j = 0; j < w.tabs()->count(); ++j)
                        if (w.tabs()->widget(j)->isAncestorOf(inner))
                            w.tabs()->setCurrentIndex(j);
                }
    // A dock of that title is raised; a timeline group of that title ("Idle causes")
    // scrolled into view.
    for (QDockWidget* d : w.findChildren<QDockWidget*>())
        if (d->windowTitle() == tab) {
            d->show();
            d->raise();
        }
    const auto& groups = w.timeline()->layout().groups;
    for (const LaneGroup& g : groups)
        if (!tab.isEmpty() && g.title == tab && !g.lanes.empty()) {
            w.timeline()->ensureLaneVisible(g.lanes.front());
            break;
        }
}

} // namespace

int runGui(int argc, char** argv)
{
    GuiArgs args = parseArgs(argc, argv);
    if (!args.error.empty()) {
        std::fprintf(stderr, "npuscope: %s\nTry 'npuscope --help'.\n", args.error.c_str());
        return 2;
    }
    if (args.demo || (headless() && args.paths.empty())) {
        std::string error;
        const std::string demo = demoPath(&error);
        if (demo.empty()) {
            std::fprintf(stderr, "npuscope: could not generate the demo profile: %s\n", error.c_str());
            return 1;
        }
        args.paths.push_back(demo);
    }
    if (headless())
        return runHeadless(args);

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("npuscope"));
    QApplication::setOrganizationDomain(QStringLiteral("npuscope.org"));
    QApplication::setApplicationName(QStringLiteral("npuscope"));
    QApplication::setApplicationVersion(QStringLiteral(NPUSCOPE_VERSION));
    applyTheme(AppSettings::theme());

    QStringList paths;
    for (const auto& p : args.paths)
        paths << QString::fromStdString(p);
    MainWindow w(paths); // the load starts before the window is built
    w.show();
    if (args.zoom || args.select) {
        // Connected before the screenshot, so the picture shows the range asked for.
        QObject::connect(&w, &MainWindow::sessionLoaded, &w, [&w, zoom = args.zoom, select = args.select] {
            SelectionController* sel = w.selection();
            const TimeNs length = sel->fullRange().end - sel->fullRange().begin;
            for (const auto& [name, range] : {std::pair{"--select", select}, std::pair{"--zoom", zoom}}) {
                if (!range)
                    continue;
                if (range->first >= length)
                    std::fprintf(stderr, "npuscope: warning: %s starts at %s, past the trace's end (%s long)\n", name,
                                 formatDuration(range->first).c_str(), formatDuration(length).c_str());
                if (std::string_view(name) == "--select")
                    sel->selectOffsets(range->first, range->second);
                else
                    sel->zoomToOffsets(range->first, range->second);
            }
        });
    }
    if (args.criticalPath)
        w.criticalPathAction()->setChecked(true);
    if (!args.screenshot.empty()) {
        const QString file = QString::fromStdString(args.screenshot);
        const QString tab = QString::fromStdString(args.tab);
        auto save = [&w, file, tab] {
            // Let queued layout and replots run before grabbing.
            QTimer::singleShot(300, &w, [&w, file, tab] {
                waitForWorkers(w);
                showPart(w, tab);
                QApplication::processEvents();
                QWidget* modal = QApplication::activeModalWidget();
                const bool ok = (modal ? modal : static_cast<QWidget*>(&w))->grab().save(file);
                std::fprintf(stderr, "npuscope: %s %s\n", ok ? "saved" : "could not save", file.toLocal8Bit().constData());
                QApplication::exit(ok ? 0 : 1);
            });
        };
        if (args.compare.empty()) {
            QObject::connect(&w, &MainWindow::sessionLoaded, &w, save);
        } else {
            QObject::connect(&w, &MainWindow::compareReady, &w, save);
            QObject::connect(&w, &MainWindow::compareFailed, &w, save);
        }
        QObject::connect(&w, &MainWindow::loadFailed, &w, save);
        if (paths.isEmpty())
            save();
    }
    if (args.preferences)
        QTimer::singleShot(0, &w, &MainWindow::showPreferences);
    if (!args.compare.empty()) {
        const QString optimized = QString::fromStdString(args.compare);
        QObject::connect(&w, &MainWindow::sessionLoaded, &w, [&w, optimized] { w.compareWith(optimized); },
                         Qt::SingleShotConnection);
    }
    return QApplication::exec();
}

} // namespace npuscope
