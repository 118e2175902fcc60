#pragma once
// The Roofline tab: every op type and shape of the advisor's roofline (advisor/roofline.h) as a
// point at (arithmetic intensity, achieved FLOP/s) on log-log axes, sized by its time, under the
// chip's roofs (HBM slope, cube and vector peaks). Clicking a point selects its op type, which
// the ranking and the operator detail show.
#include "advisor/advisor.h"

#include <QWidget>

#include <memory>
#include <vector>

class QCustomPlot;
class QCPAbstractItem;
class QCPAbstractPlottable;
class QLabel;
class QMouseEvent;

namespace npuscope {

class SelectionController;

class RooflineView : public QWidget {
    Q_OBJECT
public:
    explicit RooflineView(SelectionController* sel, QWidget* parent = nullptr);

    void setReport(std::shared_ptr<const advisor::AdvisorReport> report);
    // The points drawn (the current rank's, costliest first) and the text above the plot.
    const std::vector<const advisor::RooflinePoint*>& shownPoints() const { return m_shown; }
    QString summaryText() const;
    // Clicks point i as a user would (its op type becomes the selected operator).
    bool clickPoint(int i);
    QCustomPlot* plot() const { return m_plot; }

private:
    void rebuild();
    void onPlottableClick(QCPAbstractPlottable* plottable);

    SelectionController* m_sel;
    std::shared_ptr<const advisor::AdvisorReport> m_report;
    QLabel* m_label = nullptr;
    QLabel* m_picked = nullptr;
    QCustomPlot* m_plot = nullptr;
    std::vector<const advisor::RooflinePoint*> m_shown;
    std::vector<QCPAbstractPlottable*> m_pointGraphs; // one per shown point
    std::vector<QCPAbstractItem*> m_labels;            // the names of the first points
};

} // namespace npuscope
