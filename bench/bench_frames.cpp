// The rendering half of `npuscope-bench`, each part in a child process with Qt's offscreen
// platform: the time from the start of a load to the first painted timeline frame of the
// generated profile, and the time to paint one frame of a 10 M-event profile at zoom levels from
// the whole span down to a few microseconds, painted into an image kept across frames (as a
// window paints into its backing store) and grabbed into a fresh pixmap. Then the utilisation
// curves of a 10 M-task kernel table at the same zoom levels: the pyramid built once, then each
// zoom step's windows read again and the plots replotted.
#include "bench/bench_frames.h"

#include "bench/child_process.h"
#include "model/formats/loader.h"
#include "views/selection_controller.h"
#include "views/timeline_view.h"
#include "views/utilization_plots.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QImage>
#include <QPixmap>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

namespace npuscope::bench {

namespace {

constexpr int kZoomLevels = 8; // the whole span, then each level 1/10 of the one before
constexpr int kFramesPerLevel = 15;

struct FrameMeasure {
    double seconds = 0;
    long peakRssKb = 0;
    double firstFrameSeconds = 0; // load + layout + first paint
    double loadSeconds = 0;       // the load alone
    std::uint64_t events = 0;
    int lanes = 0;
    double medianMs[kZoomLevels] = {}; // QWidget::grab: a fresh pixmap each frame
    double maxMs[kZoomLevels] = {};
    double reusedMedianMs[kZoomLevels] = {}; // QWidget::render into one image kept across frames
    double reusedMaxMs[kZoomLevels] = {};
    double windowNs[kZoomLevels] = {};
    bool ok = false;
    char error[256] = {};
};

struct CurvesMeasure {
    double seconds = 0;
    long peakRssKb = 0;
    std::uint64_t tasks = 0;
    double buildSeconds = 0; // the session set: the series and their pyramids computed
    double recomputeMedianMs[kZoomLevels] = {}; // the windows read again (setVisibleRange)
    double recomputeMaxMs[kZoomLevels] = {};
    double frameMedianMs[kZoomLevels] = {}; // the same, then replotted and painted
    double frameMaxMs[kZoomLevels] = {};
    double windowNs[kZoomLevels] = {};
    long long binNs[kZoomLevels] = {}; // the bins drawn at the last frame of the level (0: task edges)
    bool ok = false;
    char error[256] = {};
};

// A QApplication on the offscreen platform, for a child process that has none.
struct OffscreenApp {
    int argc = 1;
    char name[9] = "npuscope";
    char* argv[2] = {name, nullptr};
    std::unique_ptr<QApplication> app;
    OffscreenApp()
    {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        app = std::make_unique<QApplication>(argc, argv);
    }
};

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// `events` device tasks on 32 streams of one rank: 1–40 µs tasks with 0–5 µs gaps, 200 kernel
// names, the shape (and density) of a long training trace.
SessionPtr makeDenseSession(std::uint64_t events)
{
    auto p = std::make_shared<Profile>();
    p->name = "dense";
    p->rank = 0;
    constexpr int kStreams = 32;
    std::vector<TrackId> tracks;
    for (int s = 0; s < kStreams; ++s) {
        const TrackId t = p->trackFor(2, s + 1);
        Track& tr = p->tracks[t.v];
        tr.kind = TrackKind::Stream;
        tr.process = p->strings.intern("Ascend Hardware");
        tr.thread = p->strings.intern("Stream " + std::to_string(s + 1));
        tr.streamId = s + 1;
        tracks.push_back(t);
    }
    std::vector<NameId> names;
    for (int i = 0; i < 200; ++i)
        names.push_back(p->strings.intern("Kernel_" + std::to_string(i)));
    const NameId cat = p->strings.intern("AI_CORE");
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<TimeNs> dur(1000, 40000), gap(0, 5000);
    std::uniform_int_distribution<std::size_t> name(0, names.size() - 1);
    p->slices.reserve(events);
    const std::uint64_t perStream = events / kStreams;
    for (int s = 0; s < kStreams; ++s) {
        TimeNs t = 0;
        for (std::uint64_t i = 0; i < perStream; ++i) {
            const TimeNs d = dur(rng);
            p->slices.add(t, d, names[name(rng)], cat, tracks[static_cast<std::size_t>(s)]);
            t += d + gap(rng);
        }
    }
    p->finalize();
    auto session = std::make_shared<Session>();
    session->ranks.push_back(p);
    return session;
}

// `tasks` kernel rows shaped as makeDenseSession's tasks, with the metrics every derived curve
// reads (cube utilisation, main-memory bandwidth, L2 hits and misses). Only the columns the
// curves read are filled, so that 10 M rows fit beside the plots.
SessionPtr makeDenseKernels(std::uint64_t tasks)
{
    auto p = std::make_shared<Profile>();
    p->name = "dense kernels";
    p->rank = 0;
    KernelTable& k = p->kernels;
    const NameId type = p->strings.intern("MatMulV2"), core = p->strings.intern("AI_CORE");
    k.metricNames = {"cube_utilization(%)", "aic_main_mem_read_bw(GB/s)", "aic_r0_read_cache_hit",
                     "aic_r0_read_cache_miss_allocate"};
    k.metrics.resize(k.metricNames.size());
    for (auto* col : {&k.start, &k.dur})
        col->reserve(tasks);
    constexpr int kStreams = 32;
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<TimeNs> dur(1000, 40000), gap(0, 5000);
    std::uniform_int_distribution<int> permille(0, 1000);
    const std::uint64_t perStream = tasks / kStreams;
    for (int s = 0; s < kStreams; ++s) {
        TimeNs t = 0;
        for (std::uint64_t i = 0; i < perStream; ++i) {
            const TimeNs d = dur(rng);
            k.device.push_back(0);
            k.start.push_back(t);
            k.dur.push_back(d);
            k.name.push_back(type);
            k.type.push_back(type);
            k.taskType.push_back(core);
            k.metrics[0].push_back(permille(rng) / 10.0);
            k.metrics[1].push_back(permille(rng) * 1.6);
            k.metrics[2].push_back(permille(rng) * 100.0);
            k.metrics[3].push_back(permille(rng) * 10.0);
            t += d + gap(rng);
            p->end = std::max(p->end, t);
        }
    }
    k.compactMetrics();
    p->begin = 0;
    auto session = std::make_shared<Session>();
    session->ranks.push_back(p);
    return session;
}

void printCurves(const CurvesMeasure& c)
{
    if (!c.ok) {
        std::printf("curves bench: failed: %s\n", c.error);
        return;
    }
    std::printf("utilisation curves of a %llu-task kernel table (1600x300 offscreen, at least one bin per 2 px),\n"
                "goal <= 16 ms per zoom step: series and pyramids built in %.3f s\n",
                static_cast<unsigned long long>(c.tasks), c.buildSeconds);
    std::printf("%16s %12s %12s %12s %12s %10s\n", "window", "recompute ms", "max ms", "frame ms", "max ms", "bin");
    double worst = 0;
    for (int level = 0; level < kZoomLevels; ++level) {
        const double w = c.windowNs[level];
        char label[32], bin[32];
        if (w >= 1e9)
            std::snprintf(label, sizeof label, "%.2f s", w / 1e9);
        else if (w >= 1e6)
            std::snprintf(label, sizeof label, "%.2f ms", w / 1e6);
        else
            std::snprintf(label, sizeof label, "%.2f us", w / 1e3);
        if (c.binNs[level] == 0)
            std::snprintf(bin, sizeof bin, "edges");
        else
            std::snprintf(bin, sizeof bin, "%lld ns", c.binNs[level]);
        std::printf("%16s %12.2f %12.2f %12.2f %12.2f %10s\n", label, c.recomputeMedianMs[level], c.recomputeMaxMs[level],
                    c.frameMedianMs[level], c.frameMaxMs[level], bin);
        worst = std::max(worst, c.frameMaxMs[level]);
    }
    std::printf("slowest curves frame: %.2f ms; peak RSS of that process %.1f MiB\n", worst, c.peakRssKb / 1024.0);
}

} // namespace

void benchCurves(std::uint64_t denseTasks)
{
    const CurvesMeasure curves = bench::runInChild<CurvesMeasure>([&](CurvesMeasure& m) {
        OffscreenApp app;
        const SessionPtr session = makeDenseKernels(denseTasks);
        m.tasks = session->ranks[0]->kernels.size();
        SelectionController sel;
        UtilizationPlots plots(&sel);
        plots.resize(1600, 300);
        const auto built = std::chrono::steady_clock::now();
        sel.setSession(session);
        m.buildSeconds = msSince(built) / 1000;
        plots.plot()->replot();
        QImage backingStore(plots.size(), QImage::Format_ARGB32_Premultiplied);
        const TimeRange full = sel.visibleRange();
        std::mt19937_64 rng(11);
        for (int level = 0; level < kZoomLevels; ++level) {
            // The whole span less 1 ns, so that every other frame is a new range there too.
            double window = static_cast<double>(full.end - full.begin - 1);
            for (int i = 0; i < level; ++i)
                window /= 10;
            m.windowNs[level] = window;
            std::vector<double> recompute, frame;
            for (int f = 0; f < kFramesPerLevel; ++f) {
                std::uniform_real_distribution<double> at(0, static_cast<double>(full.end - full.begin) - window);
                const TimeNs begin = full.begin + static_cast<TimeNs>(level == 0 ? f % 2 : at(rng));
                const auto t0 = std::chrono::steady_clock::now();
                sel.setVisibleRange({begin, begin + static_cast<TimeNs>(window)});
                recompute.push_back(msSince(t0));
                plots.plot()->replot();
                plots.render(&backingStore);
                frame.push_back(msSince(t0));
            }
            std::sort(recompute.begin(), recompute.end());
            std::sort(frame.begin(), frame.end());
            m.recomputeMedianMs[level] = recompute[recompute.size() / 2];
            m.recomputeMaxMs[level] = recompute.back();
            m.frameMedianMs[level] = frame[frame.size() / 2];
            m.frameMaxMs[level] = frame.back();
            m.binNs[level] = plots.curveBinNs();
        }
        m.ok = plots.plotCount() >= 3;
        if (!m.ok)
            std::snprintf(m.error, sizeof m.error, "%d plots", plots.plotCount());
    });
    printCurves(curves);
}

void benchFrames(const std::string& profileDir, std::uint64_t denseEvents)
{
    const FrameMeasure first = bench::runInChild<FrameMeasure>([&](FrameMeasure& m) {
        OffscreenApp app;
        const auto t0 = std::chrono::steady_clock::now();
        const LoadResult r = loadSession(profileDir, LoadOptions{});
        if (!r.session) {
            std::snprintf(m.error, sizeof m.error, "%s", r.error.c_str());
            return;
        }
        m.loadSeconds = msSince(t0) / 1000;
        SelectionController sel;
        TimelineView view(&sel);
        view.resize(1600, 900);
        sel.setSession(r.session);
        const QPixmap frame = view.grab();
        m.firstFrameSeconds = msSince(t0) / 1000;
        m.ok = !frame.isNull();
    });
    if (first.ok)
        std::printf("time to the first timeline frame: %.3f s (the load %.3f s, layout and first paint %.0f ms)\n",
                    first.firstFrameSeconds, first.loadSeconds, (first.firstFrameSeconds - first.loadSeconds) * 1000);
    else
        std::printf("time to the first timeline frame: failed: %s\n", first.error);

    const FrameMeasure frames = bench::runInChild<FrameMeasure>([&](FrameMeasure& m) {
        OffscreenApp app;
        const SessionPtr session = makeDenseSession(denseEvents);
        m.events = session->ranks[0]->slices.size();
        SelectionController sel;
        TimelineView view(&sel);
        view.resize(1600, 900);
        sel.setSession(session);
        m.lanes = view.laneCount();
        (void)view.grab();
        QImage backingStore(view.size(), QImage::Format_ARGB32_Premultiplied);
        const TimeRange full = sel.visibleRange();
        std::mt19937_64 rng(11);
        for (int level = 0; level < kZoomLevels; ++level) {
            double window = static_cast<double>(full.end - full.begin);
            for (int i = 0; i < level; ++i)
                window /= 10;
            m.windowNs[level] = window;
            std::vector<TimeNs> begins;
            for (int f = 0; f < kFramesPerLevel; ++f) {
                std::uniform_real_distribution<double> at(0, static_cast<double>(full.end - full.begin) - window);
                // The whole span: every other frame 1 ns later, so that it too is a new range.
                begins.push_back(full.begin + static_cast<TimeNs>(level == 0 ? f % 2 : at(rng)));
            }
            // The frames as a window paints them: into its backing store, an image kept from frame
            // to frame. Then the same ranges grabbed, each into a fresh pixmap whose pages the
            // kernel zeroes. Every frame is of a new range, so each builds its draw list and paints.
            std::vector<double> ms, reusedMs;
            for (const bool reused : {true, false})
                for (const TimeNs begin : begins) {
                    sel.setVisibleRange({begin, begin + static_cast<TimeNs>(window)});
                    const auto t0 = std::chrono::steady_clock::now();
                    if (reused)
                        view.render(&backingStore);
                    else
                        (void)view.grab();
                    (reused ? reusedMs : ms).push_back(msSince(t0));
                }
            std::sort(ms.begin(), ms.end());
            std::sort(reusedMs.begin(), reusedMs.end());
            m.medianMs[level] = ms[ms.size() / 2];
            m.maxMs[level] = ms.back();
            m.reusedMedianMs[level] = reusedMs[reusedMs.size() / 2];
            m.reusedMaxMs[level] = reusedMs.back();
        }
        m.ok = true;
    });
    if (!frames.ok) {
        std::printf("frame bench: failed: %s\n", frames.error);
        return;
    }
    std::printf("frame of a %llu-event profile (%d lanes, 1600x900 offscreen), goal <= 16 ms at any zoom:\n",
                static_cast<unsigned long long>(frames.events), frames.lanes);
    std::printf("%16s %12s %12s %14s %12s\n", "window", "median ms", "max ms", "reused median", "reused max");
    double worst = 0, worstReused = 0;
    for (int level = 0; level < kZoomLevels; ++level) {
        const double w = frames.windowNs[level];
        char label[32];
        if (w >= 1e9)
            std::snprintf(label, sizeof label, "%.2f s", w / 1e9);
        else if (w >= 1e6)
            std::snprintf(label, sizeof label, "%.2f ms", w / 1e6);
        else
            std::snprintf(label, sizeof label, "%.2f us", w / 1e3);
        std::printf("%16s %12.2f %12.2f %14.2f %12.2f\n", label, frames.medianMs[level], frames.maxMs[level],
                    frames.reusedMedianMs[level], frames.reusedMaxMs[level]);
        worst = std::max(worst, frames.maxMs[level]);
        worstReused = std::max(worstReused, frames.reusedMaxMs[level]);
    }
    std::printf("(median/max: QWidget::grab, a fresh pixmap each frame; reused: render into one image kept across\n"
                " frames, as a window's backing store)\n");
    std::printf("slowest frame: %.2f ms grabbed, %.2f ms into the reused image; peak RSS of that process %.1f MiB\n",
                worst, worstReused, frames.peakRssKb / 1024.0);
}

} // namespace npuscope::bench
