#pragma once
// The Compare tab's "Timelines" page: the baseline's timeline over the optimized one's, both
// aligned on one step each (by default the median step of each run) and drawn on one relative
// time axis that counts from the aligned steps' starts. Zoom and pan in either moves the other
// by the same relative window; a range selected in one selects the same relative range in the
// other. Between them a diff lane draws each run's steps split into computing, communication
// not overlapped and free, under the timeline they belong to, with what changed per step pair;
// hovering a step lists the operator types whose time moved most.
// The numbers come from the comparison (CompareResult::baselineSpans, model/analysis/step_diff.h).
#include "model/analysis/compare.h"
#include "model/store/session.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;

namespace npuscope {

class SelectionController;
class TimelineView;
class StepDiffLane;

class CompareTimelines : public QWidget {
    Q_OBJECT
public:
    explicit CompareTimelines(QWidget* parent = nullptr);

    // The two runs and their steps from the comparison; aligns on the result's anchors.
    void setRuns(SessionPtr baseline, SessionPtr optimized, const CompareResult& result);
    // Aligns baseline step `baselineStep` with optimized step `optimizedStep` and shows them.
    void alignSteps(int baselineStep, int optimizedStep);
    // Zooms both to the aligned steps (the longer of the two, with a 2 % margin).
    void fitAlignedSteps();

    int baselineAnchor() const { return m_anchorA; }
    int optimizedAnchor() const { return m_anchorB; }
    // optimized time = baseline time + shift (the aligned steps' starts coincide)
    TimeNs shift() const;
    const std::vector<StepPair>& pairs() const { return m_pairs; }
    // One line on the aligned pair: step times, the split's changes and the top operator types.
    QString pairSummary() const;

    SelectionController* baselineSelection() const { return m_selA; }
    SelectionController* optimizedSelection() const { return m_selB; }
    TimelineView* baselineTimeline() const { return m_viewA; }
    TimelineView* optimizedTimeline() const { return m_viewB; }
    QWidget* diffLane() const;
    QComboBox* baselineStepBox() const { return m_stepA; }
    QComboBox* optimizedStepBox() const { return m_stepB; }

private:
    void fillStepBoxes();
    void mirrorVisible(SelectionController* from, SelectionController* to, TimeNs shift);
    void mirrorSelection(SelectionController* from, SelectionController* to, TimeNs shift);

    SessionPtr m_baseline, m_optimized;
    std::vector<StepSpan> m_stepsA, m_stepsB;
    std::vector<StepPair> m_pairs;
    int m_anchorA = -1, m_anchorB = -1;
    bool m_mirroring = false;

    SelectionController* m_selA;
    SelectionController* m_selB;
    TimelineView* m_viewA;
    TimelineView* m_viewB;
    StepDiffLane* m_lane;
    QComboBox* m_stepA;
    QComboBox* m_stepB;
    QPushButton* m_fit;
    QLabel* m_summary;
    QLabel* m_titleA;
    QLabel* m_titleB;
};

} // namespace npuscope
