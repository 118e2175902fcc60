#include "views/selection_controller.h"

#include <algorithm>
#include <cmath>

namespace npuscope {

namespace {

// Deeper than this the undo stack only costs memory: nobody steps back 200 zooms.
constexpr std::size_t kMaxUndo = 200;

} // namespace

SelectionController::SelectionController(QObject* parent) : QObject(parent) {}

void SelectionController::setSession(SessionPtr session)
{
    m_session = std::move(session);
    m_rank = -1;
    m_full = {};
    bool any = false;
    if (m_session) {
        for (const auto& p : m_session->ranks) {
            if (!p || p->end <= p->begin)
                continue;
            if (!any) {
                m_full = {p->begin, p->end};
                any = true;
            } else {
                m_full.begin = std::min(m_full.begin, p->begin);
                m_full.end = std::max(m_full.end, p->end);
            }
        }
    }
    m_visible = m_full;
    m_bounds.reset();
    m_origin.reset();
    m_range.reset();
    m_task = {};
    m_operator.clear();
    m_undo.clear();
    m_clockOffsets.clear(); // the window sets the new session's own on sessionChanged
    emit sessionChanged();
    emit currentRankChanged(m_rank);
    emit visibleRangeChanged(m_visible);
    emit selectedRangeChanged(m_range);
    emit selectedTaskChanged(m_task);
    emit selectedOperatorChanged(m_operator);
}

void SelectionController::setViewBounds(std::optional<TimeRange> bounds)
{
    m_bounds = bounds && !bounds->empty() ? bounds : std::nullopt;
    m_undo.clear();
    applyVisible(viewBounds(), false);
    emit visibleRangeChanged(m_visible); // the scroll bar's extent changed even if the window did not
}

void SelectionController::setTimeOrigin(std::optional<TimeNs> origin, const QString& name)
{
    m_origin = origin;
    m_originName = name;
    emit visibleRangeChanged(m_visible); // the ruler's labels changed
}

void SelectionController::setCurrentRank(int rankIndex)
{
    if (rankIndex == m_rank)
        return;
    m_rank = rankIndex;
    emit currentRankChanged(m_rank);
}

TimeRange SelectionController::clamped(TimeRange r) const
{
    const TimeRange full = viewBounds();
    if (full.empty())
        return r;
    if (r.end < r.begin)
        std::swap(r.begin, r.end);
    const TimeNs fullWidth = full.end - full.begin;
    TimeNs width = std::max<TimeNs>(r.end - r.begin, std::min(kMinVisibleNs, fullWidth));
    if (width >= fullWidth)
        return full;
    // Keep the width and slide the window back inside the trace, so panning at an edge
    // stops instead of shrinking the window.
    TimeNs b = r.begin;
    if (r.end - r.begin < width) // grew to the minimum width: grow around the centre
        b = r.begin + (r.end - r.begin) / 2 - width / 2;
    b = std::clamp(b, full.begin, full.end - width);
    return {b, b + width};
}

void SelectionController::applyVisible(TimeRange r, bool pushUndo)
{
    r = clamped(r);
    if (r == m_visible)
        return;
    if (pushUndo) {
        m_undo.push_back(m_visible);
        if (m_undo.size() > kMaxUndo)
            m_undo.erase(m_undo.begin());
    }
    m_visible = r;
    emit visibleRangeChanged(m_visible);
}

void SelectionController::setVisibleRange(TimeRange r) { applyVisible(r, true); }

void SelectionController::zoomBy(double factor, TimeNs anchor)
{
    if (!(factor > 0))
        return;
    const double width = static_cast<double>(m_visible.end - m_visible.begin);
    const TimeNs b = anchor - roundNs(static_cast<double>(anchor - m_visible.begin) * factor);
    applyVisible({b, b + std::max<TimeNs>(1, roundNs(width * factor))}, true);
}

void SelectionController::panBy(double fractionOfWindow)
{
    // Panning does not push undo entries: Backspace undoes zooms, not every arrow key press.
    const TimeNs delta = roundNs(static_cast<double>(m_visible.end - m_visible.begin) * fractionOfWindow);
    applyVisible({m_visible.begin + delta, m_visible.end + delta}, false);
}

void SelectionController::fitAll() { applyVisible(viewBounds(), true); }

bool SelectionController::undoZoom()
{
    if (m_undo.empty())
        return false;
    const TimeRange r = m_undo.back();
    m_undo.pop_back();
    applyVisible(r, false);
    return true;
}

void SelectionController::setSelectedRange(std::optional<TimeRange> r)
{
    if (r && r->end < r->begin)
        std::swap(r->begin, r->end);
    if (r && r->empty())
        r.reset();
    if (r == m_range)
        return;
    m_range = r;
    emit selectedRangeChanged(m_range);
}

void SelectionController::setSelectedTask(TaskRef t)
{
    if (t == m_task)
        return;
    m_task = t;
    emit selectedTaskChanged(m_task);
}

void SelectionController::clearSelection()
{
    setSelectedRange(std::nullopt);
    setSelectedTask({});
}

void SelectionController::setSelectedOperator(const QString& key)
{
    if (key == m_operator)
        return;
    m_operator = key;
    emit selectedOperatorChanged(m_operator);
}

TimeNs SelectionController::clockOffset(int rankIndex) const
{
    if (rankIndex < 0 || rankIndex >= static_cast<int>(m_clockOffsets.size()))
        return 0;
    return m_clockOffsets[static_cast<std::size_t>(rankIndex)];
}

TimeNs SelectionController::clockShift(int rankIndex) const
{
    return m_rank >= 0 ? 0 : clockOffset(rankIndex);
}

void SelectionController::setClockOffsets(std::vector<TimeNs> offsets)
{
    if (offsets == m_clockOffsets)
        return;
    m_clockOffsets = std::move(offsets);
    emit clockOffsetsChanged();
}

void SelectionController::revealTask(TaskRef t)
{
    setSelectedTask(t);
    if (!t.valid() || !m_session || t.rankIndex >= static_cast<int>(m_session->ranks.size()))
        return;
    const auto& p = m_session->ranks[static_cast<std::size_t>(t.rankIndex)];
    if (!p || t.slice >= p->slices.size())
        return;
    if (m_rank >= 0 && m_rank != t.rankIndex)
        setCurrentRank(t.rankIndex);
    const TimeNs s = viewTime(t.rankIndex, p->slices.start[t.slice]); // after the rank is chosen
    const TimeNs d = std::max<TimeNs>(p->slices.dur[t.slice], 1);
    const TimeNs margin = std::max<TimeNs>(d / 10, 1);
    applyVisible({s - margin, s + d + margin}, true);
}

void SelectionController::revealRange(int rankIndex, TimeRange fileRange, TimeNs minMargin)
{
    if (fileRange.end < fileRange.begin)
        std::swap(fileRange.begin, fileRange.end);
    if (m_rank >= 0 && rankIndex >= 0 && m_rank != rankIndex)
        setCurrentRank(rankIndex);
    const TimeNs shift = clockShift(rankIndex);
    const TimeRange r{fileRange.begin - shift, fileRange.end - shift};
    const TimeNs margin = std::max<TimeNs>((r.end - r.begin) / 10, std::max<TimeNs>(minMargin, 1));
    applyVisible({r.begin - margin, r.end + margin}, true);
    setSelectedRange(r);
}

void SelectionController::zoomToOffsets(TimeNs begin, TimeNs end)
{
    applyVisible({m_full.begin + begin, m_full.begin + end}, true);
}

void SelectionController::selectOffsets(TimeNs begin, TimeNs end)
{
    setSelectedRange(TimeRange{m_full.begin + begin, m_full.begin + end});
    const TimeNs margin = roundNs(static_cast<double>(end - begin) * 0.1);
    zoomToOffsets(begin - margin, end + margin);
}

} // namespace npuscope
