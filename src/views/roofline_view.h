#pragma once
// The Roofline tab: every op type and shape of the advisor's roofline (advisor/roofline.h) as a
// point at (arithmetic intensity, achieved FLOP/s) on log-log axes, sized by its time, under the
// chip's roofs (HBM slope, cube and vector peaks). Clicking a point selects its op type, which
// the ranking and the operator detail show.
#include "advisor/advisor.h"

#include <QRectF>
#include <QWidget>

#include <memory>
#include <vector>

class QCustomPlot;
class QCPAbstractItem;
class QCPAbstractPlottable;
class QLabel;
class QMouseEvent;
class QResizeEvent;

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
    // The names drawn on the plot: the shown point each belongs to and where it sits (pixels).
    // Names that would overlap another are left off (thinned); the tooltip still has them.
    const std::vector<int>& labelledPoints() const { return m_labelPoint; }
    const std::vector<QRectF>& labelRects() const { return m_labelRects; }
    // The hover text of shown point i: its numbers and, above its roof, why.
    QString pointToolTip(int i) const;

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void rebuild();
    void placeLabels();
    void schedulePlaceLabels();
    void showPointTip(const QPoint& pos);
    void onPlottableClick(QCPAbstractPlottable* plottable);

    SelectionController* m_sel;
    std::shared_ptr<const advisor::AdvisorReport> m_report;
    QLabel* m_label = nullptr;
    QLabel* m_picked = nullptr;
    QCustomPlot* m_plot = nullptr;
    std::vector<const advisor::RooflinePoint*> m_shown;
    std::vector<QCPAbstractPlottable*> m_pointGraphs; // one per shown point
    std::vector<double> m_pointSize;                   // marker diameter per shown point (px)
    std::vector<QCPAbstractItem*> m_labels;            // the names of the costliest points
    std::vector<QCPAbstractItem*> m_leaders;           // lines from a point to its name set farther out
    std::vector<int> m_labelPoint;                     // per name: the shown point it names
    std::vector<QRectF> m_labelRects;                  // per name: its box (px)
    bool m_placePending = false;
};

} // namespace npuscope
