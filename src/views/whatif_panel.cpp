#include "views/whatif_panel.h"

#include "views/format.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <unordered_map>

namespace npuscope {

namespace {

// The device op types by total time, as WhatIfChanges::scaleTypes matches them: the joined
// kernel row's Type, else the task's name.
std::vector<std::pair<std::string, TimeNs>> topOpTypes(const Profile& p, std::size_t n)
{
    std::unordered_map<std::uint32_t, TimeNs> byName;
    for (const Track& tr : p.tracks) {
        if (tr.kind != TrackKind::Stream)
            continue;
        for (std::uint32_t s = tr.sliceBegin; s < tr.sliceEnd; ++s) {
            const std::uint32_t k = p.slices.kernel[s];
            const NameId key = k != kNone && k < p.kernels.size() && p.kernels.type[k].v != 0 ? p.kernels.type[k]
                                                                                              : p.slices.name[s];
            byName[key.v] += p.slices.dur[s];
        }
    }
    std::vector<std::pair<std::string, TimeNs>> out;
    for (const auto& [id, total] : byName)
        if (total > 0 && !p.strings.view(NameId(id)).empty())
            out.emplace_back(std::string(p.strings.view(NameId(id))), total);
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    if (out.size() > n)
        out.resize(n);
    return out;
}

QString share(double part, double whole)
{
    return whole > 0 ? QStringLiteral("%1 %").arg(100.0 * part / whole, 0, 'f', 1) : QStringLiteral("–");
}

} // namespace

WhatIfPanel::WhatIfPanel(SelectionController* sel, QWidget* parent) : QWidget(parent), m_sel(sel)
{
    setObjectName(QStringLiteral("whatIfPanel"));
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(4, 4, 4, 4);
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("whatIfStatus"));
    m_status->setWordWrap(true);
    lay->addWidget(m_status);
    m_predicted = new QLabel;
    m_predicted->setObjectName(QStringLiteral("whatIfPredicted"));
    m_predicted->setWordWrap(true);
    m_predicted->setTextInteractionFlags(Qt::TextSelectableByMouse);
    lay->addWidget(m_predicted);

    m_boundBy = new QTreeWidget;
    m_boundBy->setObjectName(QStringLiteral("whatIfBoundBy"));
    m_boundBy->setColumnCount(3);
    m_boundBy->setHeaderLabels({tr("Critical path (replayed)"), tr("per step"), tr("share")});
    m_boundBy->setRootIsDecorated(true);
    m_boundBy->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_boundBy->header()->setStretchLastSection(false);
    m_boundBy->setMinimumHeight(90);
    m_boundBy->setMaximumHeight(m_boundBy->fontMetrics().lineSpacing() * 16);
    lay->addWidget(m_boundBy);

    auto* typesBox = new QGroupBox(tr("Op type duration ×"));
    typesBox->setToolTip(tr("Every device task of the type takes its duration times this factor"));
    m_types = new QGridLayout(typesBox);
    m_types->setColumnStretch(0, 1);
    m_types->setColumnStretch(2, 1);
    m_types->setContentsMargins(6, 4, 6, 4);
    lay->addWidget(typesBox);

    auto* causesBox = new QGroupBox(tr("Remove idle causes"));
    causesBox->setToolTip(tr("The idle time blamed on the cause is taken out (a host cause's slices take no time)"));
    m_causes = new QGridLayout(causesBox);
    m_causes->setContentsMargins(6, 4, 6, 4);
    for (const std::string& c : whatIfCauses()) {
        auto* box = new QCheckBox(QString::fromStdString(c));
        box->setObjectName(QStringLiteral("remove_") + QString::fromStdString(c));
        connect(box, &QCheckBox::toggled, this, &WhatIfPanel::schedule);
        const int i = static_cast<int>(m_causeBoxes.size());
        m_causes->addWidget(box, i / 2, i % 2);
        m_causeBoxes.emplace_back(QString::fromStdString(c), box);
    }
    lay->addWidget(causesBox);
    m_overlap = new QCheckBox(tr("Overlap communication"));
    m_overlap->setObjectName(QStringLiteral("overlapComm"));
    m_overlap->setToolTip(tr("Compute no longer waits for collectives"));
    connect(m_overlap, &QCheckBox::toggled, this, &WhatIfPanel::schedule);
    lay->addWidget(m_overlap);
    m_notes = new QLabel;
    m_notes->setWordWrap(true);
    m_notes->setForegroundRole(QPalette::PlaceholderText);
    m_notes->setObjectName(QStringLiteral("whatIfNotes"));
    lay->addWidget(m_notes);
    lay->addStretch(1);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_debounce, &QTimer::timeout, this, &WhatIfPanel::replay);
    connect(&m_prepWatcher, &QFutureWatcher<Prepared>::finished, this, &WhatIfPanel::onPrepared);
    connect(&m_runWatcher, &QFutureWatcher<WhatIfResult>::finished, this, [this] {
        m_running = false;
        if (m_runAgain) {
            m_runAgain = false;
            replay();
            return;
        }
        showResult(m_runWatcher.result());
    });
    connect(m_sel, &SelectionController::sessionChanged, this, &WhatIfPanel::refresh);
    connect(m_sel, &SelectionController::currentRankChanged, this, &WhatIfPanel::refresh);
    refresh();
}

WhatIfPanel::~WhatIfPanel()
{
    m_prepWatcher.waitForFinished();
    m_runWatcher.waitForFinished();
}

QStringList WhatIfPanel::opTypes() const
{
    QStringList out;
    for (const auto& [type, box] : m_factorBoxes)
        out << type;
    return out;
}

QDoubleSpinBox* WhatIfPanel::factorBox(const QString& type) const
{
    for (const auto& [t, box] : m_factorBoxes)
        if (t == type)
            return box;
    return nullptr;
}

QCheckBox* WhatIfPanel::causeBox(const QString& cause) const
{
    for (const auto& [c, box] : m_causeBoxes)
        if (c == cause)
            return box;
    return nullptr;
}

WhatIfChanges WhatIfPanel::changes() const
{
    WhatIfChanges c;
    for (const auto& [type, box] : m_factorBoxes)
        if (box->value() != 1.0)
            c.scaleTypes.emplace_back(type.toStdString(), box->value());
    for (const auto& [cause, box] : m_causeBoxes)
        if (box->isChecked())
            c.removeCauses.push_back(cause.toStdString());
    c.overlapComm = m_overlap->isChecked();
    return c;
}

bool WhatIfPanel::busy() const
{
    return m_preparing || m_running || m_debounce->isActive();
}

QString WhatIfPanel::predictedText() const
{
    return m_predicted->text().remove(QRegularExpression(QStringLiteral("<[^>]*>")));
}

void WhatIfPanel::clearControls()
{
    for (QWidget* w : m_typeWidgets)
        delete w;
    m_typeWidgets.clear();
    m_factorBoxes.clear();
    m_boundBy->clear();
    m_predicted->clear();
    m_notes->clear();
    m_result = {};
}

void WhatIfPanel::refresh()
{
    const SessionPtr s = m_sel->session();
    const int rank = s && !s->ranks.empty() ? std::clamp(m_sel->currentRank(), 0, static_cast<int>(s->ranks.size()) - 1) : -1;
    if (s == m_session && rank == m_rank && (m_prep.model || m_preparing))
        return;
    m_session = s;
    m_rank = rank;
    m_prep = {};
    clearControls();
    if (m_preparing) {
        m_prepAgain = true;
        return;
    }
    if (!s || rank < 0) {
        m_status->setText(tr("No profile open"));
        return;
    }
    m_status->setText(tr("Building the replay model of rank %1…").arg(rank));
    m_preparing = true;
    m_prepWatcher.setFuture(QtConcurrent::run([s, rank] {
        Prepared p;
        p.session = s;
        p.rank = rank;
        const Profile& prof = *s->ranks[static_cast<std::size_t>(rank)];
        p.model = std::make_shared<const WhatIfModel>(prof);
        p.topTypes = topOpTypes(prof, kTopTypes);
        return p;
    }));
}

void WhatIfPanel::onPrepared()
{
    m_preparing = false;
    Prepared p = m_prepWatcher.result();
    if (m_prepAgain || p.session != m_session || p.rank != m_rank) {
        m_prepAgain = false;
        m_prep = {};
        m_session.reset(); // force a build for the current one
        return refresh();
    }
    m_prep = std::move(p);
    const Profile& prof = *m_session->ranks[static_cast<std::size_t>(m_rank)];
    m_status->setText(prof.rank >= 0 ? tr("Rank %1: each step replayed with the changes below").arg(prof.rank)
                                     : tr("Each step replayed with the changes below"));
    for (const auto& [type, total] : m_prep.topTypes) {
        auto* box = new QDoubleSpinBox;
        box->setRange(0.0, 4.0);
        box->setSingleStep(0.1);
        box->setDecimals(2);
        box->setValue(1.0);
        box->setSuffix(QStringLiteral(" ×"));
        const QString name = QString::fromStdString(type);
        box->setObjectName(QStringLiteral("factor_") + name);
        box->setToolTip(tr("%1: %2 of device time in the profile").arg(name, fmt::duration(static_cast<double>(total))));
        connect(box, &QDoubleSpinBox::valueChanged, this, &WhatIfPanel::schedule);
        auto* label = new QLabel(name);
        label->setToolTip(box->toolTip());
        label->setMinimumWidth(1);
        box->setMaximumWidth(box->fontMetrics().horizontalAdvance(QStringLiteral("0.00 ×")) + 48);
        const int i = static_cast<int>(m_factorBoxes.size());
        m_types->addWidget(label, i / 2, (i % 2) * 2);
        m_types->addWidget(box, i / 2, (i % 2) * 2 + 1);
        m_typeWidgets.push_back(label);
        m_typeWidgets.push_back(box);
        m_factorBoxes.emplace_back(name, box);
    }
    replay();
}

void WhatIfPanel::schedule()
{
    if (m_prep.model)
        m_debounce->start();
}

void WhatIfPanel::replay()
{
    m_debounce->stop();
    if (!m_prep.model)
        return;
    if (m_running) {
        m_runAgain = true;
        return;
    }
    m_running = true;
    m_runWatcher.setFuture(QtConcurrent::run([model = m_prep.model, c = changes()] { return model->run(c); }));
}

void WhatIfPanel::showResult(const WhatIfResult& r)
{
    m_result = r;
    m_boundBy->clear();
    if (!r.ok) {
        m_predicted->setText(tr("No prediction: %1").arg(QString::fromStdString(r.error).toHtmlEscaped()));
        m_notes->clear();
        emit resultShown();
        return;
    }
    const double delta = r.measuredStepNs > 0 ? (r.predictedStepNs - r.measuredStepNs) / r.measuredStepNs : 0.0;
    m_predicted->setText(tr("<b>Predicted median step %1</b><br>measured %2 (%3%4 %), from %5")
                             .arg(fmt::duration(r.predictedStepNs), fmt::duration(r.measuredStepNs),
                                  delta >= 0 ? QStringLiteral("+") : QString(), QString::number(100.0 * delta, 'f', 1),
                                  QString::fromStdString(r.stepSource).toHtmlEscaped()));
    std::vector<std::pair<std::string, double>> kinds = r.boundBy;
    std::sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    double total = 0;
    for (const auto& [kind, ns] : kinds)
        total += ns;
    for (const auto& [kind, ns] : kinds) {
        if (ns <= 0)
            continue;
        auto* it = new QTreeWidgetItem(m_boundBy, {QString::fromStdString(kind), fmt::duration(ns), share(ns, total)});
        it->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        it->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        // the new path's heaviest segments of that kind, by op type, slice or idle cause
        for (const WhatIfResult::PathTop& t : r.pathTop) {
            if (t.kind != kind)
                continue;
            const QString label = QString::fromStdString(t.label.empty() ? t.kind : t.label);
            auto* child = new QTreeWidgetItem(
                it, {t.count > 1 ? tr("%1 (%2×)").arg(label).arg(t.count) : label, fmt::duration(t.ns), share(t.ns, total)});
            child->setToolTip(0, label);
            child->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
            child->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        }
    }
    m_boundBy->expandAll();
    QStringList notes;
    for (const std::string& c : r.changes)
        notes << QString::fromStdString(c);
    for (const std::string& n : r.notes)
        notes << QString::fromStdString(n);
    m_notes->setText(notes.join(QLatin1Char('\n')));
    emit resultShown();
}

} // namespace npuscope
