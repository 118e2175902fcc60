#include "views/idle_lane.h"

#include "model/analysis/overlap.h"

#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <array>

namespace npuscope {

namespace {

// Host causes warm, device-side waits cool, unknown grey: picked apart in CIEDE2000.
constexpr std::array<QRgb, kIdleCauseCount> kCauseRgb = {
    0xe8893a, // host_python: orange
    0x9b59b6, // dataloader: purple
    0xd62839, // sync: red
    0xf2d13b, // compile: yellow
    0x3a7fd6, // launch: blue
    0x3fae5a, // dependency: green
    0x22c5d0, // comm_wait: cyan
    0x6b6b6b, // unknown: dark grey
};

std::shared_ptr<const CausalRank> computeRank(const Profile& p)
{
    auto r = std::make_shared<CausalRank>();
    r->graph = buildStepGraph(p);
    r->idle = idleCauses(p, r->graph);
    r->paths = criticalPaths(p, r->graph, r->idle);
    std::vector<double> spans;
    spans.reserve(r->graph.steps.size());
    for (const GraphStep& s : r->graph.steps)
        spans.push_back(static_cast<double>(s.span()));
    const StepStats stats = stepStats(spans);
    for (const IdleStep& s : r->idle.steps) {
        const auto i = static_cast<std::size_t>(s.step);
        if (s.step < 0 || (i < stats.isPartial.size() && stats.isPartial[i]))
            continue;
        ++r->completeSteps;
        r->completeIdleNs += s.idleNs;
        for (std::size_t c = 0; c < kIdleCauseCount; ++c)
            r->completeByCause[c] += s.byCause[c];
    }
    return r;
}

} // namespace

std::shared_ptr<const CausalResult> computeCausal(const SessionPtr& s)
{
    auto res = std::make_shared<CausalResult>();
    res->session = s;
    if (s)
        for (const auto& p : s->ranks)
            res->ranks.push_back(computeRank(*p));
    return res;
}

QColor idleCauseColor(IdleCause c)
{
    return QColor::fromRgb(kCauseRgb[static_cast<std::size_t>(c) % kIdleCauseCount]);
}

QString idleCauseName(IdleCause c)
{
    return QString::fromLatin1(idleCauseKey(c));
}

QString idleCauseLegendHtml()
{
    QString html;
    for (std::size_t c = 0; c < kIdleCauseCount; ++c) {
        const auto cause = static_cast<IdleCause>(c);
        html += QStringLiteral("<br><span style=\"color:%1\">■</span> %2").arg(idleCauseColor(cause).name(), idleCauseName(cause));
    }
    return html;
}

CausalModel::CausalModel(SelectionController* sel, QObject* parent) : QObject(parent), m_sel(sel)
{
    connect(m_sel, &SelectionController::sessionChanged, this, &CausalModel::refresh);
    connect(&m_watcher, &QFutureWatcher<std::shared_ptr<const CausalResult>>::finished, this, [this] {
        m_computing = false;
        if (m_again) {
            m_again = false;
            refresh();
            return;
        }
        auto res = m_watcher.result();
        if (!res || res->session != m_sel->session())
            return refresh();
        m_result = std::move(res);
        emit ready();
    });
    refresh();
}

CausalModel::~CausalModel()
{
    m_watcher.waitForFinished();
}

const CausalRank* CausalModel::rank(int rankIndex) const
{
    if (!m_result || rankIndex < 0 || rankIndex >= static_cast<int>(m_result->ranks.size()))
        return nullptr;
    return m_result->ranks[static_cast<std::size_t>(rankIndex)].get();
}

void CausalModel::setCriticalPathShown(bool on)
{
    if (on == m_showPath)
        return;
    m_showPath = on;
    emit criticalPathShownChanged(on);
}

void CausalModel::refresh()
{
    const SessionPtr s = m_sel->session();
    if (m_result && m_result->session == s)
        return;
    m_result.reset();
    if (m_computing) {
        m_again = s != m_pendingSession;
        return;
    }
    if (!s || s->ranks.empty())
        return;
    m_pendingSession = s;
    m_computing = true;
    // On the next turn of the event loop, after the new session's first frame.
    QTimer::singleShot(0, this, [this, s] { m_watcher.setFuture(QtConcurrent::run([s] { return computeCausal(s); })); });
}

} // namespace npuscope
