#include "views/compare_timelines.h"

#include "model/cluster_summary/cluster_summary.h"

#include "views/format.h"
#include "views/palette.h"
#include "views/selection_controller.h"
#include "views/time_format.h"
#include "views/timeline_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

namespace npuscope {

namespace {

QString stepTitle(const StepSpan& s) { return QStringLiteral("%1 · %2").arg(qstr(s.step), fmt::duration(s.duration())); }

} // namespace

// The lane between the two timelines. It draws in the baseline timeline's x coordinates:
// baseline steps at their own times, optimized steps moved by −shift onto the baseline's axis.
class StepDiffLane : public QWidget {
public:
    static constexpr int kRow = 18;
    StepDiffLane(const CompareTimelines* owner, QWidget* parent) : QWidget(parent), m_owner(owner)
    {
        setObjectName(QStringLiteral("compareDiffLane"));
        setMouseTracking(true);
        setFixedHeight(3 * kRow + 8);
    }
    std::vector<StepSpan> stepsA, stepsB;
    std::function<void(int pair)> onClicked;

    // The x of baseline time t in this widget (the baseline timeline's mapping).
    double xOf(TimeNs t) const
    {
        const TimelineView* v = m_owner->baselineTimeline();
        const QPoint off = mapFromGlobal(v->viewport()->mapToGlobal(QPoint(0, 0)));
        return off.x() + v->xOf(t);
    }
    QRectF rectA(const StepSpan& s) const { return span(s.begin, s.end, 0); }
    QRectF rectB(const StepSpan& s) const { return span(s.begin - m_owner->shift(), s.end - m_owner->shift(), 1); }
    int pairAt(const QPoint& p) const
    {
        const auto& pairs = m_owner->pairs();
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            const QRectF a = rectA(stepsA[static_cast<std::size_t>(pairs[i].baseline)]);
            const QRectF b = rectB(stepsB[static_cast<std::size_t>(pairs[i].optimized)]);
            const QRectF d(b.left(), 2 * kRow + 2, b.width(), kRow);
            if (a.contains(p) || b.contains(p) || d.contains(p))
                return static_cast<int>(i);
        }
        return -1;
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        const QPalette& pal = palette();
        p.fillRect(rect(), pal.base());
        const int left = static_cast<int>(xOf(m_owner->baselineSelection()->visibleRange().begin));
        p.setClipRect(QRect(left, 0, width() - left, height()));
        for (const StepSpan& s : stepsA)
            drawStep(p, rectA(s), s);
        for (const StepSpan& s : stepsB)
            drawStep(p, rectB(s), s);
        const QFontMetrics fm = fontMetrics();
        for (const StepPair& pr : m_owner->pairs()) {
            const QRectF b = rectB(stepsB[static_cast<std::size_t>(pr.optimized)]);
            const QRectF d(b.left() + 2, 2 * kRow + 2, std::max(0.0, b.width() - 4), kRow);
            if (d.width() < 30)
                continue;
            QString text = tr("Δ %1").arg(fmt::signedDuration(pr.stepDelta));
            const QString more = tr("%1 · computing %2 · not overlapped %3 · free %4")
                                     .arg(text, fmt::signedDuration(pr.computingDelta), fmt::signedDuration(pr.commDelta),
                                          fmt::signedDuration(pr.freeDelta));
            if (fm.horizontalAdvance(more) < d.width())
                text = more;
            p.setPen(pr.stepDelta < 0 ? QColor(0, 128, 64) : pr.stepDelta > 0 ? QColor(192, 32, 32) : pal.text().color());
            p.drawText(d, Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(text, Qt::ElideRight, static_cast<int>(d.width())));
        }
        p.setClipping(false);
        p.fillRect(QRect(0, 0, left, height()), pal.window());
        p.setPen(pal.windowText().color());
        const QString names[] = {tr("Baseline steps"), tr("Optimized steps"), tr("Δ optimized − baseline")};
        for (int r = 0; r < 3; ++r)
            p.drawText(QRect(4, r * kRow + 1, left - 8, kRow), Qt::AlignVCenter | Qt::AlignLeft, names[r]);
        p.setPen(pal.mid().color());
        p.drawLine(0, height() - 1, width(), height() - 1);
        p.drawLine(0, 0, width(), 0);
    }
    bool event(QEvent* e) override
    {
        if (e->type() == QEvent::ToolTip) {
            auto* he = static_cast<QHelpEvent*>(e);
            const int i = pairAt(he->pos());
            if (i < 0) {
                QToolTip::hideText();
                e->ignore();
                return true;
            }
            QToolTip::showText(he->globalPos(), tooltip(m_owner->pairs()[static_cast<std::size_t>(i)]), this);
            return true;
        }
        return QWidget::event(e);
    }
    void mousePressEvent(QMouseEvent* e) override
    {
        const int i = pairAt(e->position().toPoint());
        if (i >= 0 && onClicked)
            onClicked(i);
    }

private:
    QRectF span(TimeNs begin, TimeNs end, int row) const
    {
        const double a = xOf(begin), b = xOf(end);
        return QRectF(a, row * kRow + 3, std::max(1.0, b - a), kRow - 4);
    }
    static void drawStep(QPainter& p, const QRectF& r, const StepSpan& s)
    {
        const double d = static_cast<double>(std::max<TimeNs>(1, s.duration()));
        double x = r.left();
        const std::pair<TimeNs, QColor> parts[] = {{s.computing, colorFor("Computing")},
                                                   {s.commNotOverlapped, colorFor("Communication(Not Overlapped)")},
                                                   {s.free, freeColor()}};
        for (const auto& [t, c] : parts) {
            const double w = r.width() * static_cast<double>(t) / d;
            p.fillRect(QRectF(x, r.top(), w, r.height()), c);
            x += w;
        }
        p.setPen(QColor(0, 0, 0, 90));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r);
    }
    QString tooltip(const StepPair& pr) const
    {
        const StepSpan& a = stepsA[static_cast<std::size_t>(pr.baseline)];
        const StepSpan& b = stepsB[static_cast<std::size_t>(pr.optimized)];
        QString html = tr("<b>%1 → %2</b>: %3 → %4 (%5)")
                           .arg(qstr(a.step).toHtmlEscaped(), qstr(b.step).toHtmlEscaped(), fmt::duration(a.duration()),
                                fmt::duration(b.duration()), fmt::signedDuration(pr.stepDelta));
        html += tr("<br>computing %1 → %2 (%3)").arg(fmt::duration(a.computing), fmt::duration(b.computing),
                                                     fmt::signedDuration(pr.computingDelta));
        html += tr("<br>communication not overlapped %1 → %2 (%3)")
                    .arg(fmt::duration(a.commNotOverlapped), fmt::duration(b.commNotOverlapped), fmt::signedDuration(pr.commDelta));
        html += tr("<br>free %1 → %2 (%3)").arg(fmt::duration(a.free), fmt::duration(b.free), fmt::signedDuration(pr.freeDelta));
        if (!pr.ops.empty())
            html += tr("<br><br><b>Operator types</b> (device time in the step)");
        const std::size_t n = std::min<std::size_t>(pr.ops.size(), 8);
        for (std::size_t i = 0; i < n; ++i) {
            const OpTypeDelta& o = pr.ops[i];
            html += QStringLiteral("<br>%1: %2 → %3 (%4)")
                        .arg(qstr(o.type).toHtmlEscaped(), fmt::duration(o.before), fmt::duration(o.after),
                             fmt::signedDuration(o.delta()));
        }
        if (pr.ops.size() > n)
            html += tr("<br>… and %1 more").arg(pr.ops.size() - n);
        return html;
    }

    const CompareTimelines* m_owner;
};

CompareTimelines::CompareTimelines(QWidget* parent)
    : QWidget(parent), m_selA(new SelectionController(this)), m_selB(new SelectionController(this)),
      m_viewA(new TimelineView(m_selA)), m_viewB(new TimelineView(m_selB)), m_lane(new StepDiffLane(this, this)),
      m_stepA(new QComboBox), m_stepB(new QComboBox), m_fit(new QPushButton(tr("Fit steps"))), m_summary(new QLabel),
      m_titleA(new QLabel), m_titleB(new QLabel)
{
    setObjectName(QStringLiteral("compareTimelines"));
    m_viewA->setObjectName(QStringLiteral("compareBaselineTimeline"));
    m_viewB->setObjectName(QStringLiteral("compareOptimizedTimeline"));
    m_stepA->setObjectName(QStringLiteral("compareBaselineStep"));
    m_stepB->setObjectName(QStringLiteral("compareOptimizedStep"));
    m_fit->setObjectName(QStringLiteral("compareFitSteps"));
    m_summary->setObjectName(QStringLiteral("compareStepSummary"));
    m_stepA->setToolTip(tr("The baseline step the optimized step is aligned with"));
    m_stepB->setToolTip(tr("The optimized step aligned with the baseline step"));
    m_fit->setToolTip(tr("Zoom both timelines to the aligned steps"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Align baseline")));
    bar->addWidget(m_stepA);
    bar->addWidget(new QLabel(tr("with optimized")));
    bar->addWidget(m_stepB);
    bar->addWidget(m_fit);
    bar->addStretch(1);
    auto swatch = [](const QColor& c, const QString& name) {
        return QStringLiteral("<span style=\"color:%1\">■</span> %2").arg(c.name(), name);
    };
    auto* legend = new QLabel(tr("Steps: %1 &nbsp; %2 &nbsp; %3")
                                  .arg(swatch(colorFor("Computing"), tr("computing")),
                                       swatch(colorFor("Communication(Not Overlapped)"), tr("communication not overlapped")),
                                       swatch(freeColor(), tr("free"))));
    legend->setTextFormat(Qt::RichText);
    bar->addWidget(legend);

    auto box = [](QLabel* title, QWidget* view) {
        auto* w = new QWidget;
        auto* l = new QVBoxLayout(w);
        l->setContentsMargins(0, 0, 0, 0);
        l->setSpacing(2);
        l->addWidget(title);
        l->addWidget(view, 1);
        return w;
    };
    auto* split = new QSplitter(Qt::Vertical);
    split->setChildrenCollapsible(false);
    split->addWidget(box(m_titleA, m_viewA));
    split->addWidget(m_lane);
    split->addWidget(box(m_titleB, m_viewB));
    split->setStretchFactor(0, 1);
    split->setStretchFactor(2, 1);

    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 4, 0, 0);
    lay->addLayout(bar);
    lay->addWidget(m_summary);
    lay->addWidget(split, 1);

    connect(m_selA, &SelectionController::visibleRangeChanged, this, [this] { mirrorVisible(m_selA, m_selB, shift()); });
    connect(m_selB, &SelectionController::visibleRangeChanged, this, [this] { mirrorVisible(m_selB, m_selA, -shift()); });
    connect(m_selA, &SelectionController::selectedRangeChanged, this, [this] { mirrorSelection(m_selA, m_selB, shift()); });
    connect(m_selB, &SelectionController::selectedRangeChanged, this, [this] { mirrorSelection(m_selB, m_selA, -shift()); });
    connect(m_stepA, &QComboBox::activated, this, [this](int i) { alignSteps(i, m_anchorB); });
    connect(m_stepB, &QComboBox::activated, this, [this](int i) { alignSteps(m_anchorA, i); });
    connect(m_fit, &QPushButton::clicked, this, &CompareTimelines::fitAlignedSteps);
    m_lane->onClicked = [this](int i) {
        const StepSpan& a = m_stepsA[static_cast<std::size_t>(m_pairs[static_cast<std::size_t>(i)].baseline)];
        m_selA->setSelectedRange(TimeRange{a.begin, a.end});
    };
}

QWidget* CompareTimelines::diffLane() const { return m_lane; }

TimeNs CompareTimelines::shift() const
{
    if (m_anchorA < 0 || m_anchorB < 0)
        return 0;
    return m_stepsB[static_cast<std::size_t>(m_anchorB)].begin - m_stepsA[static_cast<std::size_t>(m_anchorA)].begin;
}

void CompareTimelines::setRuns(SessionPtr baseline, SessionPtr optimized, const CompareResult& result)
{
    // A new grouping or threshold recomputes the comparison of the same runs: keep the view.
    if (baseline == m_baseline && optimized == m_optimized && m_baseline)
        return;
    m_baseline = std::move(baseline);
    m_optimized = std::move(optimized);
    m_stepsA = result.baselineSpans;
    m_stepsB = result.currentSpans;
    m_lane->stepsA = m_stepsA;
    m_lane->stepsB = m_stepsB;
    m_mirroring = true;
    m_selA->setSession(m_baseline);
    m_selB->setSession(m_optimized);
    m_mirroring = false;
    // Device lanes first: host processes (CANN, Python) start collapsed; a click on their header
    // opens them.
    for (TimelineView* v : {m_viewA, m_viewB}) {
        const auto& groups = v->layout().groups;
        for (std::size_t g = 0; g < groups.size(); ++g) {
            const LaneGroup& group = groups[g];
            const bool host = !group.rankHeader && !group.lanes.empty()
                              && std::all_of(group.lanes.begin(), group.lanes.end(), [v](int lane) {
                                     const TrackKind k = v->layout().lanes[static_cast<std::size_t>(lane)].kind;
                                     return k == TrackKind::Cann || k == TrackKind::Python;
                                 });
            if (host)
                v->setGroupCollapsed(static_cast<int>(g), true);
        }
    }
    fillStepBoxes();
    alignSteps(result.baselineAnchor, result.currentAnchor);
}

void CompareTimelines::fillStepBoxes()
{
    for (auto [box, steps] : {std::pair{m_stepA, &m_stepsA}, std::pair{m_stepB, &m_stepsB}}) {
        box->clear();
        for (const StepSpan& s : *steps)
            box->addItem(stepTitle(s));
        box->setEnabled(!steps->empty());
    }
}

void CompareTimelines::alignSteps(int baselineStep, int optimizedStep)
{
    const bool ok = baselineStep >= 0 && baselineStep < static_cast<int>(m_stepsA.size()) && optimizedStep >= 0
                    && optimizedStep < static_cast<int>(m_stepsB.size());
    m_anchorA = ok ? baselineStep : -1;
    m_anchorB = ok ? optimizedStep : -1;
    m_pairs = ok ? pairSteps(m_stepsA, m_stepsB, m_anchorA, m_anchorB) : std::vector<StepPair>{};
    m_stepA->setCurrentIndex(m_anchorA);
    m_stepB->setCurrentIndex(m_anchorB);
    m_fit->setEnabled(ok);

    // One relative extent for both: each run's trace, measured from its aligned step.
    // A side without a timeline (a cluster summary) spans its steps.
    auto extent = [](const SelectionController* sel, const std::vector<StepSpan>& steps) {
        const TimeRange full = sel->fullRange();
        if (!full.empty() || steps.empty())
            return full;
        return TimeRange{steps.front().begin, steps.back().end};
    };
    const TimeRange fa = extent(m_selA, m_stepsA), fb = extent(m_selB, m_stepsB);
    const TimeNs originA = ok ? m_stepsA[static_cast<std::size_t>(m_anchorA)].begin : fa.begin;
    const TimeNs originB = ok ? m_stepsB[static_cast<std::size_t>(m_anchorB)].begin : fb.begin;
    const TimeNs lo = std::min(fa.begin - originA, fb.begin - originB);
    const TimeNs hi = std::max(fa.end - originA, fb.end - originB);
    m_mirroring = true;
    const QString origin = ok ? tr("the aligned step's start") : tr("trace start");
    m_selA->setTimeOrigin(originA, origin);
    m_selB->setTimeOrigin(originB, origin);
    m_selA->setViewBounds(TimeRange{originA + lo, originA + hi});
    m_selB->setViewBounds(TimeRange{originB + lo, originB + hi});
    m_mirroring = false;

    auto title = [](const QString& side, const SessionPtr& s, const std::vector<StepSpan>& steps, int anchor) {
        QString t = QStringLiteral("<b>%1</b>").arg(side);
        if (s && s->ranks.size() > 1)
            t += tr(" · %1 ranks").arg(s->ranks.size());
        if (s && cluster_summary::isSummarySession(*s))
            t += tr(" · a cluster summary: its steps are below, the timeline stays in the rank folders");
        if (anchor >= 0)
            t += tr(" · time from the start of %1").arg(qstr(steps[static_cast<std::size_t>(anchor)].step).toHtmlEscaped());
        return t;
    };
    m_titleA->setText(title(tr("Baseline"), m_baseline, m_stepsA, m_anchorA));
    m_titleB->setText(title(tr("Optimized"), m_optimized, m_stepsB, m_anchorB));
    m_summary->setText(pairSummary());
    if (ok)
        fitAlignedSteps();
    m_lane->update();
}

void CompareTimelines::fitAlignedSteps()
{
    if (m_anchorA < 0)
        return;
    const StepSpan& a = m_stepsA[static_cast<std::size_t>(m_anchorA)];
    const StepSpan& b = m_stepsB[static_cast<std::size_t>(m_anchorB)];
    const TimeNs len = std::max(a.duration(), b.duration());
    const TimeNs margin = std::max<TimeNs>(len / 50, 1);
    m_selA->setVisibleRange(TimeRange{a.begin - margin, a.begin + len + margin});
}

QString CompareTimelines::pairSummary() const
{
    auto it = std::find_if(m_pairs.begin(), m_pairs.end(), [this](const StepPair& p) { return p.baseline == m_anchorA; });
    if (it == m_pairs.end())
        return m_stepsA.empty() || m_stepsB.empty() ? tr("No steps to align: a run has no device tasks.") : QString();
    const StepSpan& a = m_stepsA[static_cast<std::size_t>(it->baseline)];
    const StepSpan& b = m_stepsB[static_cast<std::size_t>(it->optimized)];
    QString s = tr("%1 → %2: %3 → %4 (%5); computing %6, communication not overlapped %7, free %8")
                    .arg(qstr(a.step), qstr(b.step), fmt::duration(a.duration()), fmt::duration(b.duration()),
                         fmt::signedDuration(it->stepDelta), fmt::signedDuration(it->computingDelta), fmt::signedDuration(it->commDelta),
                         fmt::signedDuration(it->freeDelta));
    QStringList ops;
    for (std::size_t i = 0; i < std::min<std::size_t>(3, it->ops.size()); ++i)
        if (it->ops[i].delta() != 0)
            ops << QStringLiteral("%1 %2").arg(qstr(it->ops[i].type), fmt::signedDuration(it->ops[i].delta()));
    if (!ops.isEmpty())
        s += tr("; most moved: %1").arg(ops.join(QStringLiteral(", ")));
    return s;
}

void CompareTimelines::mirrorVisible(SelectionController* from, SelectionController* to, TimeNs shift)
{
    m_lane->update();
    if (m_mirroring)
        return;
    m_mirroring = true;
    const TimeRange r = from->visibleRange();
    to->setVisibleRange(TimeRange{r.begin + shift, r.end + shift});
    m_mirroring = false;
}

void CompareTimelines::mirrorSelection(SelectionController* from, SelectionController* to, TimeNs shift)
{
    if (m_mirroring)
        return;
    m_mirroring = true;
    const auto r = from->selectedRange();
    to->setSelectedRange(r ? std::optional<TimeRange>(TimeRange{r->begin + shift, r->end + shift}) : std::nullopt);
    m_mirroring = false;
}

} // namespace npuscope
