#pragma once
// The "Operator detail" dock: everything about the selected operator group over the whole
// profile of the current rank, or of every rank when "All ranks" is chosen (the instances then
// carry their rank, and the counts are the ranking's) — identity from its kernel rows, duration
// statistics, pipe ratios and memory metrics (duration-weighted), a duration histogram with
// p50/p90/p99, its instances, and the tasks around the chosen instance on its stream. A
// collective shows its instances on the communication tracks with their bandwidth; a host API
// (a CANN or Python call with no device task of its name) its calls.
//
// Histogram bins: equal-width bins over [min, max] of the instance durations; the number of
// bins is the square-root rule ceil(sqrt(n)), at least 1 and at most 50 (one bin when every
// instance has the same duration). Bin i holds d with floor((d - min) * k / (max - min)) == i,
// the maximum falling into the last bin.
#include "model/analysis/op_stats.h"
#include "views/operator_detail_groups.h"

#include <QMap>
#include <QVector>
#include <QWidget>

#include <memory>
#include <optional>
#include <string>
#include <vector>

class QCustomPlot;
class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QFormLayout;

namespace Ui {
class OperatorDetailView;
}

namespace npuscope {

class SelectionController;
class OperatorInstanceModel;

class OperatorDetailView : public QWidget {
    Q_OBJECT
public:
    explicit OperatorDetailView(SelectionController* sel, QWidget* parent = nullptr);
    ~OperatorDetailView() override;

    // Text of one field as shown: identity "name", "type", "core", "inputShapes",
    // "inputDtypes", "inputFormats", "outputShapes", "outputDtypes", "outputFormats",
    // "blockDim"; duration "count", "total", "avg", "min", "max", "p50", "p90", "p99", "share";
    // hardware "mac", "vec", "scalar", "mte1", "mte2", "mte3", "fixpipe", "cubeUtil",
    // "readBw", "writeBw", "l2Hit", "bound"; collectives "commVolume", "commBw", "commTransit",
    // "commWait". "" for an unknown field or no operator.
    QString fieldText(const QString& field) const;
    QVector<double> histogramCounts() const { return m_binCounts; }
    QVector<double> histogramEdges() const { return m_binEdges; } // ns, size = counts + 1
    int instanceCount() const;
    QString currentKey() const { return m_key; }
    GroupBy groupBy() const { return m_groupBy; }
    QTableView* instanceTable() const;
    OperatorInstanceModel* instanceModel() const { return m_instances; }
    QSortFilterProxyModel* instanceProxy() const { return m_instanceProxy; }
    QCustomPlot* histogramPlot() const { return m_plot; }
    QString titleText() const;
    // What the shown key is: device tasks, a collective or host calls.
    DetailKind kind() const { return m_group.kind; }
    // How many ranks the shown instances come from (every rank with "All ranks").
    int rankCount() const { return int(m_profiles.size()); }
    // Names shown in the "on its stream" list, top to bottom (previous tasks, the instance, next).
    QStringList neighbourNames() const;

public slots:
    void setGroupBy(npuscope::GroupBy g);
    void showOperator(const QString& key);
    // Reveal the instance at a row of the instance table (view order) on the timeline.
    void revealInstance(int viewRow);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void reload();
    void clearAll(const QString& title);
    void buildForms();
    void setField(const QString& field, const QString& text, const QString& toolTip = {});
    // The device group of `key` (the ranking's stats, or the other grouping / communication).
    std::optional<DetailGroup> findDeviceGroup(const std::string& key);
    void fillDurations(const DetailGroup& d);
    void fillIdentity(const DetailGroup& d);
    void fillHardware(const DetailGroup& d);
    void fillCommunication(const DetailGroup& d);
    void fillHistogram(const DetailGroup& d);
    void fillNeighbours(int viewRow);
    void showFieldsOf(DetailKind kind);
    // The profile of the i-th row of a group (its rowProfile, or the only one).
    const Profile& profileOfRow(const OpGroupStats& g, std::size_t i) const;

    std::unique_ptr<Ui::OperatorDetailView> m_ui;
    SelectionController* m_sel;
    QCustomPlot* m_plot = nullptr;
    OperatorInstanceModel* m_instances = nullptr;
    QSortFilterProxyModel* m_instanceProxy = nullptr;
    GroupBy m_groupBy = GroupBy::Type;
    QString m_key;
    std::vector<ProfilePtr> m_profiles; // the current rank, or every rank with "All ranks"
    int m_rankIndex = 0;                // Session::ranks index of m_profiles[0] for one rank
    OpStatsResult m_stats;          // whole-profile stats of m_profiles and the grouping
    std::vector<ProfilePtr> m_statsProfiles; // what m_stats was computed from
    DetailGroup m_group;            // what is shown
    GroupBy m_statsGroupBy = GroupBy::Type;
    QMap<QString, QLabel*> m_fieldLabels;
    QVector<double> m_binCounts, m_binEdges;
};

} // namespace npuscope
