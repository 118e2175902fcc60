#pragma once
// The one-line health of the current rank above the timeline: step time, its compute /
// exposed communication / free split, AI Core utilisation, L2 hit rate and HBM bandwidth as a
// share of peak. Each number's tooltip says where it came from.
#include "views/selection_controller.h"

#include <QLabel>

namespace npuscope {

class SummaryStrip : public QLabel {
    Q_OBJECT
public:
    explicit SummaryStrip(SelectionController* sel, QWidget* parent = nullptr);
    QString plainText() const { return m_plain; }

private:
    void refresh();
    void refreshAllRanks();

    SelectionController* m_sel;
    QString m_plain;
};

} // namespace npuscope
