#pragma once
// The "Memory" tab (UI.md): the device memory of the current rank on the timeline's time axis
// (x in ms since the trace start, zoom and selection shared through the SelectionController).
// Curves: the framework allocator's allocated, reserved and active totals (memory_record
// PTA+GE, else PTA, else GE) and the whole process's reserved memory (APP); the gap between
// reserved and allocated is filled as fragmentation. Step boundaries (ProfilerStep#N) are
// dashed lines, the peak is marked. Clicking a time lists the operator allocations alive then,
// largest first, with the Python op and call stack that made each; a second table lists the
// operators by bytes allocated. Shift+drag selects a range, which the timeline shows too.
#include "model/analysis/memory.h"
#include "views/selection_controller.h"

#include <QWidget>

#include <optional>

class QCustomPlot;
class QCPGraph;
class QCPItemRect;
class QCPItemStraightLine;
class QCPItemTracer;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace npuscope {

class AliveAllocationsModel;
class OperatorMemoryModel;

class MemoryView : public QWidget {
    Q_OBJECT
public:
    explicit MemoryView(SelectionController* sel, QWidget* parent = nullptr);

    // Whether a session gets a Memory tab: a rank with memory_record / operator_memory data.
    static bool wanted(const Session& s);

    // Lists the allocations alive at t (absolute ns) and moves the cursor there.
    void showMoment(TimeNs t);
    std::optional<TimeNs> moment() const { return m_moment; }
    const memory::Summary& summary() const { return m_summary; }
    ProfilePtr profile() const { return m_profile; }

    // The parts, for tests and screenshots.
    QCustomPlot* plot() const { return m_plot; }
    QCPGraph* allocatedGraph() const { return m_allocated; }
    QCPGraph* reservedGraph() const { return m_reserved; }
    QCPItemTracer* peakMarker() const { return m_peak; }
    int stepLineCount() const { return m_stepLines; }
    bool selectionBandVisible() const;
    QTableView* aliveTable() const { return m_aliveView; }
    QTableView* operatorTable() const { return m_opView; }
    AliveAllocationsModel* aliveModel() const { return m_alive; }
    OperatorMemoryModel* operatorModel() const { return m_ops; }
    QLabel* summaryLabel() const { return m_label; }
    QLabel* momentLabel() const { return m_momentLabel; }
    // Plot x (ms since the trace start) of an absolute time, and back.
    double toMs(TimeNs t) const;
    TimeNs fromMs(double ms) const;

private:
    void buildUi();
    // Redraws everything for the selection's session and current rank (it follows both).
    void rebuild();
    // The parts rebuild() draws, in its order.
    QCPGraph* addCurve(const memory::Series& ser, const QString& name, const QColor& c, Qt::PenStyle style);
    void addCurves();
    void fitValueAxis();
    void addStepLines();
    void addPeakMarker();
    void addCursorAndBand();
    QString summaryText() const;
    void onVisibleRangeChanged(TimeRange r);
    void onSelectedRangeChanged(std::optional<TimeRange> r);
    void onPlotRangeChanged();
    bool eventFilter(QObject* watched, QEvent* e) override;

    SelectionController* m_sel;
    ProfilePtr m_profile;
    memory::Summary m_summary;
    std::optional<TimeNs> m_moment;
    QLabel* m_label = nullptr;
    QLabel* m_momentLabel = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCPGraph* m_allocated = nullptr;
    QCPGraph* m_reserved = nullptr;
    QCPItemTracer* m_peak = nullptr;
    QCPItemStraightLine* m_cursor = nullptr;
    QCPItemRect* m_band = nullptr;
    int m_stepLines = 0;
    AliveAllocationsModel* m_alive = nullptr;
    OperatorMemoryModel* m_ops = nullptr;
    QSortFilterProxyModel* m_aliveProxy = nullptr;
    QSortFilterProxyModel* m_opProxy = nullptr;
    QTableView* m_aliveView = nullptr;
    QTableView* m_opView = nullptr;
    bool m_syncing = false;
    bool m_selecting = false;
    bool m_pressed = false;
    QPointF m_pressPos;
    double m_selectStartMs = 0;
};

} // namespace npuscope
