#pragma once
// The causal model of the open session as the views show it: per rank the step graph, every
// device-idle gap attributed to its cause (model/analysis/idle_causes.h) and the critical path of
// each step (critical_path.h), computed on a worker once a session is loaded. The timeline draws
// the gaps in an "Idle causes" lane under the Overlap Analysis lanes and, while the critical path
// is shown (the window's toggle, key P), outlines the slices on it; the Selection panel says a
// slice's slack; the summary strip names the top idle cause. Owns no profile data: it keeps the
// session it was computed from alive while its results point into it.
#include "model/analysis/critical_path.h"
#include "model/analysis/idle_causes.h"
#include "model/analysis/step_graph.h"
#include "views/selection_controller.h"

#include <QColor>
#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace npuscope {

// One rank's graph, idle causes and critical paths.
struct CausalRank {
    StepGraph graph;
    IdleCauses idle;
    CriticalPaths paths;
    // The steps the summary averages over: the complete ones (overlap.h stepStats over the
    // graph's step spans; a first or last step cut by the capture is left out).
    int completeSteps = 0;
    TimeNs completeIdleNs = 0;     // Σ idle over the complete steps
    IdleByCause completeByCause{}; // Σ per cause over the complete steps
};

struct CausalResult {
    SessionPtr session;                                   // what the rows point into
    std::vector<std::shared_ptr<const CausalRank>> ranks; // [rank index]
};

// Builds the causal model of every rank of `s` (no Qt; runs on a worker).
std::shared_ptr<const CausalResult> computeCausal(const SessionPtr& s);

// The fixed colour of each idle cause: any two at least kIdleCauseMinDeltaE apart in CIEDE2000
// (tests/views/test_idle_lane.cpp checks it) and apart from the hatched grey of "Free".
QColor idleCauseColor(IdleCause c);
inline constexpr double kIdleCauseMinDeltaE = 15.0;
QString idleCauseName(IdleCause c); // the key: "host_python", ...
// One line per cause with its colour as an HTML square, for tooltips.
QString idleCauseLegendHtml();

class CausalModel : public QObject {
    Q_OBJECT
public:
    explicit CausalModel(SelectionController* sel, QObject* parent = nullptr);
    ~CausalModel() override;

    // The result of the current session, nullptr while it is computed (or without a session).
    std::shared_ptr<const CausalResult> result() const { return m_result; }
    // The rank's part of the result, nullptr when not (yet) there.
    const CausalRank* rank(int rankIndex) const;
    bool busy() const { return m_computing; }

    bool criticalPathShown() const { return m_showPath; }

public slots:
    void setCriticalPathShown(bool on);

signals:
    void ready(); // result() is of the current session
    void criticalPathShownChanged(bool on);

private:
    void refresh();

    SelectionController* m_sel;
    std::shared_ptr<const CausalResult> m_result;
    QFutureWatcher<std::shared_ptr<const CausalResult>> m_watcher;
    SessionPtr m_pendingSession; // the session the running computation is of
    bool m_computing = false;
    bool m_again = false; // another session came while one was computed
    bool m_showPath = false;
};

} // namespace npuscope
