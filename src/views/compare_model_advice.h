#pragma once
// The Compare tab's "Advice checked" page: the baseline's findings checked against the optimized
// run (advisor/advice_check.h), one row per finding of the advisor diff with its status (fixed,
// partly, remaining, new; coloured and said in text), the predicted gain, what it covers and the
// realised change of that time per step.
#include "views/compare_model.h"

#include <QColor>

namespace npuscope {

// The colour of a status: fixed green, partly amber, remaining red, new blue (readable on the
// current palette); invalid for an unknown one.
QColor adviceStatusColour(const std::string& status);

class AdviceCheckModel : public AdvisorDiffRowsModel {
    Q_OBJECT
public:
    enum Columns { Status, Id, Title, Predicted, Realised, Covered, Before, After, ColumnCount };
    enum Roles {
        SortRole = Qt::UserRole + 1, // raw number (ns; NaN sorts as −1) or text
        StatusRole,                  // "fixed", "partly", "remaining", "new"
        OpKeysRole,                  // QStringList: the covered operators (empty for a step-level finding)
        RawValueRole,                // ns of the time columns, NaN when unknown
    };
    explicit AdviceCheckModel(QObject* parent = nullptr);
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
};

} // namespace npuscope
