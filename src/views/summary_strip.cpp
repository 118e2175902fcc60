#include "views/summary_strip.h"

#include "views/format.h"
#include "views/idle_lane.h"
#include "views/time_format.h"

#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

namespace npuscope {

namespace {

QString percent(double fraction)
{
    return std::isnan(fraction) ? QStringLiteral("–") : QString::number(fraction * 100.0, 'f', 0) + QStringLiteral(" %");
}

QString rankLabel(const Profile& p)
{
    return p.rank >= 0 ? SummaryStrip::tr("Rank %1").arg(p.rank) : QString::fromStdString(p.name);
}

} // namespace

SummaryStrip::SummaryStrip(SelectionController* sel, QWidget* parent) : QLabel(parent), m_sel(sel)
{
    setTextFormat(Qt::RichText);
    setMargin(4);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_sel, &SelectionController::sessionChanged, this, &SummaryStrip::refresh);
    connect(m_sel, &SelectionController::currentRankChanged, this, &SummaryStrip::refresh);
    connect(&m_watcher, &QFutureWatcher<std::vector<ProfileSummary>>::finished, this, [this] {
        m_computing = false;
        if (m_pending) { // the session or the rank changed meanwhile: this result is of the old one
            m_pending = false;
            refresh();
            return;
        }
        show(m_watcher.result());
    });
    refresh();
}

void SummaryStrip::refresh()
{
    const SessionPtr& s = m_sel->session();
    if (!s || s->ranks.empty()) {
        m_pending = m_computing;
        m_plain = tr("No profile open");
        setText(m_plain);
        setToolTip({});
        return;
    }
    const bool all = m_sel->currentRank() < 0 && s->ranks.size() > 1;
    const int rank = all ? -1 : std::max(0, m_sel->currentRank());
    if (rank >= static_cast<int>(s->ranks.size()))
        return;
    if (m_computing) {
        // Again once the running pass ends, unless it is of this very rank (a new session tells
        // the strip twice: the session, then its rank).
        m_pending = s != m_session || rank != m_rank;
        return;
    }
    m_session = s;
    m_rank = rank;
    m_plain = all ? tr("All %1 ranks: summarising…").arg(s->ranks.size())
                  : tr("%1: summarising…").arg(rankLabel(*s->ranks[static_cast<std::size_t>(rank)]));
    setText(m_plain);
    setToolTip({});
    m_computing = true;
    // Started on the next turn of the event loop: the window's first frame of a new session is
    // painted before the pass takes a core from it.
    QTimer::singleShot(0, this, [this, s, rank] {
        m_watcher.setFuture(QtConcurrent::run([s, rank] {
            std::vector<ProfileSummary> sums;
            if (rank >= 0) {
                sums.push_back(computeSummary(*s->ranks[static_cast<std::size_t>(rank)]));
            } else {
                sums.reserve(s->ranks.size());
                for (const auto& p : s->ranks)
                    sums.push_back(computeSummary(*p));
            }
            return sums;
        }));
    });
}

void SummaryStrip::setCausalModel(CausalModel* model)
{
    m_causal = model;
    if (!model)
        return;
    connect(model, &CausalModel::ready, this, [this] {
        if (!m_computing && !m_shown.empty() && m_session == m_sel->session())
            show(m_shown);
    });
}

std::pair<QString, QString> SummaryStrip::idlePart() const
{
    if (!m_causal || m_rank < 0 || !m_causal->result() || m_causal->result()->session != m_session)
        return {};
    const CausalRank* r = m_causal->rank(m_rank);
    if (!r || r->completeSteps == 0)
        return {};
    std::size_t top = 0;
    for (std::size_t c = 1; c < kIdleCauseCount; ++c)
        if (r->completeByCause[c] > r->completeByCause[top])
            top = c;
    const double perStep = static_cast<double>(r->completeIdleNs) / r->completeSteps;
    QString text = tr("Idle: %1/step").arg(fmt::duration(perStep));
    if (r->completeIdleNs > 0)
        text += tr(", mostly %1 (%2)")
                    .arg(idleCauseName(static_cast<IdleCause>(top)),
                         percent(static_cast<double>(r->completeByCause[top]) / static_cast<double>(r->completeIdleNs)));
    QString tip = tr("<br>Idle: the device's idle time inside a step (from its first to its last device work), "
                     "averaged per step over the %n complete step(s) (a first or last step cut by the capture "
                     "is left out), by cause:", nullptr, r->completeSteps);
    for (std::size_t c = 0; c < kIdleCauseCount; ++c)
        if (r->completeByCause[c] > 0)
            tip += QStringLiteral("<br>&nbsp;&nbsp;%1: %2/step")
                       .arg(idleCauseName(static_cast<IdleCause>(c)),
                            fmt::duration(static_cast<double>(r->completeByCause[c]) / r->completeSteps));
    return {text, tip};
}

void SummaryStrip::show(const std::vector<ProfileSummary>& sums)
{
    m_shown = sums;
    if (m_rank < 0)
        showAllRanks(sums);
    else
        showRank(*m_session->ranks[static_cast<std::size_t>(m_rank)], sums.front());
}

void SummaryStrip::showRank(const Profile& p, const ProfileSummary& sum)
{
    const QString who = rankLabel(p);
    QStringList parts;
    parts << tr("%1: step %2").arg(who, sum.step.stepTime > 0 ? fmt::duration(sum.step.stepTime) : QStringLiteral("–"));
    if (sum.step.steps == 1)
        parts.last() += tr(" (1 step)");
    else if (sum.step.steps > 1 && sum.step.partial > 0)
        parts.last() += (sum.step.complete() == 1 ? tr(" (1 complete step; %2 partial excluded)")
                                                            : tr(" (median of %1 complete steps; %2 partial excluded)"))
                            .arg(sum.step.complete())
                            .arg(sum.step.partial);
    else if (sum.step.steps > 1)
        parts.last() += tr(" (median of %1 steps)").arg(sum.step.steps);
    parts << tr("compute %1").arg(percent(sum.computeShare));
    parts << tr("comm exposed %1").arg(percent(sum.commExposedShare));
    parts << tr("free %1").arg(percent(sum.freeShare));
    parts << tr("AI Core util %1").arg(percent(sum.aicUtil));
    parts << tr("L2 hit %1").arg(percent(sum.l2Hit));
    parts << (std::isnan(sum.hbmBwUtil) ? tr("HBM –") : tr("HBM %1 of peak").arg(percent(sum.hbmBwUtil)));
    const auto [idleText, idleTip] = idlePart();
    if (!idleText.isEmpty())
        parts << idleText;
    m_plain = parts.join(QStringLiteral(" · "));
    setText(QStringLiteral("<b>") + parts.first().toHtmlEscaped() + QStringLiteral("</b> · ")
            + parts.mid(1).join(QStringLiteral(" · ")).toHtmlEscaped());
    setToolTip(tr("Step time from %1: the median of the complete steps (a first or last step cut by the capture "
                  "is left out).<br>AI Core utilisation: %2.<br>HBM peak %3 GB/s (%4); bandwidth %5 GB/s "
                  "(duration-weighted over tasks).")
                   .arg(QString::fromStdString(sum.step.source).toHtmlEscaped(),
                        QString::fromStdString(sum.utilizationSource.empty() ? std::string("no PMU metrics") : sum.utilizationSource).toHtmlEscaped(),
                        QString::number(sum.hbmPeakGBps, 'f', 0), QString::fromStdString(sum.hbmPeakSource).toHtmlEscaped(),
                        std::isnan(sum.hbmBwGBps) ? QStringLiteral("–") : QString::number(sum.hbmBwGBps, 'f', 1))
               + idleTip);
}

void SummaryStrip::showAllRanks(const std::vector<ProfileSummary>& sums)
{
    // "All ranks": each number as min / median / max over the ranks (model/analysis rankSpread).
    const SessionPtr& s = m_session;
    auto spread = [&](auto member) {
        std::vector<double> v;
        for (const ProfileSummary& sum : sums)
            v.push_back(member(sum));
        return rankSpread(std::move(v));
    };
    auto durations = [](const RankSpread& r) {
        if (r.count == 0)
            return QStringLiteral("–");
        return QStringLiteral("%1 / %2 / %3").arg(fmt::duration(roundNs(r.min)), fmt::duration(roundNs(r.median)),
                                                  fmt::duration(roundNs(r.max)));
    };
    auto percents = [](const RankSpread& r) {
        if (r.count == 0)
            return QStringLiteral("–");
        return QStringLiteral("%1 / %2 / %3").arg(percent(r.min), percent(r.median), percent(r.max));
    };
    const RankSpread step = spread([](const ProfileSummary& x) { return x.step.stepTime > 0 ? double(x.step.stepTime) : kNaN; });
    QStringList parts;
    parts << tr("All %1 ranks (min / median / max): step %2").arg(s->ranks.size()).arg(durations(step));
    parts << tr("compute %1").arg(percents(spread([](const ProfileSummary& x) { return x.computeShare; })));
    parts << tr("comm exposed %1").arg(percents(spread([](const ProfileSummary& x) { return x.commExposedShare; })));
    parts << tr("free %1").arg(percents(spread([](const ProfileSummary& x) { return x.freeShare; })));
    parts << tr("AI Core util %1").arg(percents(spread([](const ProfileSummary& x) { return x.aicUtil; })));
    parts << tr("L2 hit %1").arg(percents(spread([](const ProfileSummary& x) { return x.l2Hit; })));
    parts << tr("HBM of peak %1").arg(percents(spread([](const ProfileSummary& x) { return x.hbmBwUtil; })));
    m_plain = parts.join(QStringLiteral(" · "));
    setText(QStringLiteral("<b>") + parts.first().toHtmlEscaped() + QStringLiteral("</b> · ")
            + parts.mid(1).join(QStringLiteral(" · ")).toHtmlEscaped());
    setToolTip(tr("Each number is the minimum / median / maximum over the %1 ranks' own summaries "
                  "(the median of an even count is the mean of the two middle ranks). Choose a rank in "
                  "the toolbar for its details.").arg(s->ranks.size()));
}

} // namespace npuscope
