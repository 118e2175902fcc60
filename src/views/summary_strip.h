#pragma once
// The one-line health of the current rank above the timeline: step time, its compute /
// exposed communication / free split, AI Core utilisation, L2 hit rate and HBM bandwidth as a
// share of peak. Each number's tooltip says where it came from. The numbers are computed on a
// worker (a pass over every task of the rank): the window's first frame does not wait for them.
#include "model/analysis/summary.h"
#include "views/selection_controller.h"

#include <QFutureWatcher>
#include <QLabel>

#include <vector>

namespace npuscope {

class CausalModel;

class SummaryStrip : public QLabel {
    Q_OBJECT
public:
    explicit SummaryStrip(SelectionController* sel, QWidget* parent = nullptr);
    QString plainText() const { return m_plain; }
    // True while the numbers of the current rank (or of all ranks) are being computed.
    bool busy() const { return m_computing; }
    // The causal model (idle_lane.h): once ready, a rank's strip ends with its idle time per
    // step and the top idle cause.
    void setCausalModel(CausalModel* model);

private:
    void refresh();
    void show(const std::vector<ProfileSummary>& sums);
    void showRank(const Profile& p, const ProfileSummary& sum);
    void showAllRanks(const std::vector<ProfileSummary>& sums);
    // "Idle: 12.3 ms/step, mostly host_python (61 %)" and its tooltip; empty when not known.
    std::pair<QString, QString> idlePart() const;

    SelectionController* m_sel;
    CausalModel* m_causal = nullptr;
    std::vector<ProfileSummary> m_shown; // the numbers on show, to add the idle part when it comes
    QString m_plain;
    QFutureWatcher<std::vector<ProfileSummary>> m_watcher;
    SessionPtr m_session; // what the running computation is of
    int m_rank = 0;       // its rank, or -1 for all
    bool m_computing = false; // from the start of a computation to its result shown
    bool m_pending = false;   // another session or rank asked for while one was running
};

} // namespace npuscope
