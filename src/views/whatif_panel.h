#pragma once
// The "What-if" dock (beside the Advisor): the current rank's steps replayed with changes
// (model/analysis/whatif.h): a duration factor per op type (the top op types by device time),
// idle causes removed, communication overlapped; it shows the predicted median step against the
// measured one and the replayed critical path's time by kind. The replay model is built on a
// worker when the session or rank changes, and each change is replayed on a worker once the
// values have been still for a moment (debounced). Owns no profile data.
#include "model/analysis/whatif.h"
#include "views/selection_controller.h"

#include <QFutureWatcher>
#include <QWidget>

#include <memory>
#include <string>
#include <utility>
#include <vector>

class QCheckBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QTimer;
class QTreeWidget;

namespace npuscope {

class WhatIfPanel : public QWidget {
    Q_OBJECT
public:
    explicit WhatIfPanel(SelectionController* sel, QWidget* parent = nullptr);
    ~WhatIfPanel() override;

    // How many op types get a factor, and how long values must stay still before a replay.
    static constexpr int kTopTypes = 8;
    static constexpr int kDebounceMs = 250;

    // For tests and the window.
    QStringList opTypes() const;                          // the op types offered, heaviest first
    QDoubleSpinBox* factorBox(const QString& type) const; // nullptr when not offered
    QCheckBox* causeBox(const QString& cause) const;      // by idle_causes key
    QCheckBox* overlapBox() const { return m_overlap; }
    WhatIfChanges changes() const;                          // what the controls say now
    bool busy() const;                                      // a model build or replay is pending or running
    const WhatIfResult& result() const { return m_result; } // the last replay shown
    QString predictedText() const;                          // the prediction line as shown, plain
    int rankIndex() const { return m_rank; }

signals:
    void resultShown(); // result() and the labels are of the controls' current values

private:
    struct Prepared {
        SessionPtr session;
        int rank = -1;
        std::shared_ptr<const WhatIfModel> model;
        std::vector<std::pair<std::string, TimeNs>> topTypes;
    };
    void refresh(); // the session or rank changed: build the model
    void onPrepared();
    void schedule(); // a value changed: replay after kDebounceMs
    void replay();
    void showResult(const WhatIfResult& r);
    void clearControls();

    SelectionController* m_sel;
    QLabel* m_status;
    QGridLayout* m_types;  // two (name, factor) pairs a row
    QGridLayout* m_causes; // two a row
    QCheckBox* m_overlap;
    QLabel* m_predicted;
    QTreeWidget* m_boundBy;
    QLabel* m_notes;
    QTimer* m_debounce;
    std::vector<std::pair<QString, QDoubleSpinBox*>> m_factorBoxes;
    std::vector<QWidget*> m_typeWidgets; // the labels and boxes of m_types, deleted on a new model
    std::vector<std::pair<QString, QCheckBox*>> m_causeBoxes;

    QFutureWatcher<Prepared> m_prepWatcher;
    QFutureWatcher<WhatIfResult> m_runWatcher;
    Prepared m_prep;
    SessionPtr m_session;
    int m_rank = -1;
    bool m_preparing = false, m_prepAgain = false;
    bool m_running = false, m_runAgain = false;
    WhatIfResult m_result;
};

} // namespace npuscope
