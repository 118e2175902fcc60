#include "views/compare_view.h"

#include "advisor/advice_check.h"
#include "advisor/advisor_diff.h"
#include "advisor/cluster_summary_advice.h"
#include "model/cluster_summary/cluster_summary.h"
#include "model/analysis/atomic_file.h"
#include "model/analysis/compare_report.h"
#include "views/compare_export.h"
#include "views/compare_model.h"
#include "views/compare_model_advice.h"
#include "views/compare_timelines.h"
#include "views/export_notice.h"
#include "views/format.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTabWidget>
#include <QTextDocument>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

namespace npuscope {

namespace {

QString rankNote(const SessionPtr& s)
{
    return s && s->ranks.size() > 1 ? QObject::tr(" (%1 ranks)").arg(s->ranks.size()) : QString();
}

QTableView* makeTable(QWidget* parent)
{
    auto* t = new QTableView(parent);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setAlternatingRowColors(true);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 8);
    t->horizontalHeader()->setHighlightSections(false);
    t->setWordWrap(false);
    return t;
}

} // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent), m_header(new QLabel), m_swap(new QPushButton(tr("Swap"))), m_export(new QPushButton(tr("Export…"))),
      m_groupBy(new QComboBox), m_tokens(new QSpinBox), m_sameWithin(new QDoubleSpinBox), m_show(new QComboBox),
      m_filter(new QLineEdit), m_wholeRun(new QCheckBox(tr("Whole run"))), m_opTitle(new QLabel), m_opNote(new QLabel),
      m_opCount(new QLabel), m_headline(new CompareHeadlineModel(this)), m_ops(new OperatorDiffModel(this)),
      m_proxy(new OperatorDiffProxy(this)), m_headlineTable(makeTable(this)), m_opTable(makeTable(this)),
      m_mapping(new OperatorMappingModel(this)), m_advisor(new AdvisorDiffModel(this)),
      m_mappingProxy(new QSortFilterProxyModel(this)), m_advisorProxy(new QSortFilterProxyModel(this)),
      m_mappingTable(makeTable(this)), m_advisorTable(makeTable(this)), m_check(new AdviceCheckModel(this)),
      m_checkProxy(new QSortFilterProxyModel(this)), m_checkTable(makeTable(this)), m_checkNote(new QLabel),
      m_checkPage(new QWidget), m_details(new QTabWidget(this)),
      m_timelines(new CompareTimelines)
{
    setObjectName(QStringLiteral("compareView"));
    m_header->setObjectName(QStringLiteral("compareHeader"));
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_swap->setObjectName(QStringLiteral("compareSwap"));
    m_swap->setToolTip(tr("Exchange baseline and optimized"));
    m_export->setObjectName(QStringLiteral("compareExport"));
    m_export->setToolTip(tr("Write the comparison as CSV, Markdown, JSON, HTML or PDF (as `npuscope compare` does)"));
    m_tokens->setRange(0, 1 << 20);
    m_tokens->setSpecialValueText(tr("off"));
    m_tokens->setToolTip(tr("Tokens per step: adds a per-token latency row (step time / tokens)"));
    m_sameWithin->setObjectName(QStringLiteral("compareSameWithin"));
    m_sameWithin->setRange(0.0, 50.0);
    m_sameWithin->setDecimals(1);
    m_sameWithin->setSingleStep(0.5);
    m_sameWithin->setPrefix(QStringLiteral("± "));
    m_sameWithin->setSuffix(QStringLiteral(" %"));
    m_sameWithin->setValue(kSameWithin * 100.0);
    m_sameWithin->setKeyboardTracking(false); // one comparison when the value is entered, not one a key
    m_sameWithin->setToolTip(tr("A change of less than this share of the larger value is run-to-run noise: "
                                "shown as the same, neither improved nor regressed"));
    m_groupBy->addItem(tr("OP Type"), static_cast<int>(GroupBy::Type));
    m_groupBy->addItem(tr("Op Name"), static_cast<int>(GroupBy::Name));
    m_groupBy->setToolTip(tr("Match operators of both profiles by their type or by their name"));
    m_show->addItem(tr("All operators"), static_cast<int>(OperatorDiffProxy::Show::All));
    m_show->addItem(tr("In both"), static_cast<int>(OperatorDiffProxy::Show::Both));
    m_show->addItem(tr("Baseline only"), static_cast<int>(OperatorDiffProxy::Show::BaselineOnly));
    m_show->addItem(tr("Optimized only"), static_cast<int>(OperatorDiffProxy::Show::OptimizedOnly));
    m_show->addItem(tr("On one side only"), static_cast<int>(OperatorDiffProxy::Show::OneSideOnly));
    m_filter->setObjectName(QStringLiteral("compareFilter"));
    m_filter->setPlaceholderText(tr("Filter operators by name"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMaximumWidth(280);
    m_wholeRun->setObjectName(QStringLiteral("compareWholeRun"));
    m_wholeRun->setToolTip(tr("Show the operators' times over the whole run instead of per step. Runs of different "
                              "lengths have totals that differ by their length: the verdicts stay per step"));
    m_opNote->setObjectName(QStringLiteral("compareOperatorSteps"));
    m_opNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_opNote->setWordWrap(true);

    m_headlineTable->setObjectName(QStringLiteral("compareHeadline"));
    m_headlineTable->setModel(m_headline);
    m_headlineTable->setSelectionMode(QAbstractItemView::NoSelection);
    m_headlineTable->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_headlineTable->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_headlineTable->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_headlineTable->horizontalHeader()->setStretchLastSection(true);

    m_proxy->setSourceModel(m_ops);
    m_opTable->setObjectName(QStringLiteral("compareOperators"));
    m_opTable->setModel(m_proxy);
    m_opTable->setSortingEnabled(true);
    m_opTable->sortByColumn(OperatorDiffModel::Delta, Qt::DescendingOrder); // |Δ| first
    m_opTable->horizontalHeader()->setStretchLastSection(true);
    m_opTable->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);

    m_mappingProxy->setSourceModel(m_mapping);
    m_mappingProxy->setSortRole(OperatorMappingModel::SortRole);
    m_mappingTable->setObjectName(QStringLiteral("compareMapping"));
    m_mappingTable->setModel(m_mappingProxy);
    m_mappingTable->setSortingEnabled(true);
    m_mappingTable->sortByColumn(-1, Qt::AscendingOrder); // the engine's order: replaced first, by |Δ|
    m_mappingTable->horizontalHeader()->setStretchLastSection(true);
    m_advisorProxy->setSourceModel(m_advisor);
    m_advisorProxy->setSortRole(AdvisorDiffModel::SortRole);
    m_advisorTable->setObjectName(QStringLiteral("compareAdvisor"));
    m_advisorTable->setModel(m_advisorProxy);
    m_advisorTable->setSortingEnabled(true);
    m_advisorTable->sortByColumn(-1, Qt::AscendingOrder); // fixed, remaining, new; by cost
    m_advisorTable->horizontalHeader()->setStretchLastSection(true);

    auto* top = new QHBoxLayout;
    top->addWidget(m_header, 1);
    top->addWidget(new QLabel(tr("Tokens/step")));
    top->addWidget(m_tokens);
    top->addWidget(new QLabel(tr("Same within")));
    top->addWidget(m_sameWithin);
    top->addWidget(m_swap);
    top->addWidget(m_export);

    auto* opBar = new QHBoxLayout;
    opBar->addWidget(m_opTitle);
    opBar->addSpacing(12);
    opBar->addWidget(m_wholeRun);
    opBar->addWidget(new QLabel(tr("Match by")));
    opBar->addWidget(m_groupBy);
    opBar->addWidget(m_show);
    opBar->addWidget(m_filter, 1);
    opBar->addWidget(m_opCount);

    auto* opPage = new QWidget;
    auto* opLay = new QVBoxLayout(opPage);
    opLay->setContentsMargins(0, 4, 0, 0);
    opLay->addLayout(opBar);
    opLay->addWidget(m_opNote);
    opLay->addWidget(m_opTable, 1);
    m_details->setObjectName(QStringLiteral("compareDetails"));
    m_details->addTab(opPage, tr("Operators"));
    m_details->addTab(m_mappingTable, tr("Operator mapping"));
    m_details->addTab(m_advisorTable, tr("Advisor findings"));
    setupAdvicePage();
    m_details->addTab(m_checkPage, tr("Advice checked"));
    m_details->addTab(m_timelines, tr("Timelines"));

    auto* lay = new QVBoxLayout(this);
    lay->addLayout(top);
    // The headline over the details; the splitter gives the side-by-side timelines room.
    auto* split = new QSplitter(Qt::Vertical);
    split->setObjectName(QStringLiteral("compareSplit"));
    split->setChildrenCollapsible(false);
    split->addWidget(m_headlineTable);
    split->addWidget(m_details);
    split->setStretchFactor(1, 1);
    lay->addWidget(split, 1);
    // The timelines need the height: their page shrinks the headline to its minimum, the other
    // pages give it back.
    connect(m_details, &QTabWidget::currentChanged, this, [this, split](int) {
        const int total = split->sizes().value(0) + split->sizes().value(1);
        const int head = m_details->currentWidget() == m_timelines ? m_headlineTable->minimumHeight()
                                                                     : m_headlineTable->maximumHeight();
        split->setSizes({head, std::max(0, total - head)});
    });

    connect(m_swap, &QPushButton::clicked, this, &CompareView::swap);
    connect(m_export, &QPushButton::clicked, this, &CompareView::exportWithDialog);
    connect(m_groupBy, &QComboBox::activated, this,
            [this](int i) { setGroupBy(static_cast<GroupBy>(m_groupBy->itemData(i).toInt())); });
    connect(m_tokens, &QSpinBox::valueChanged, this, &CompareView::setTokensPerStep);
    connect(m_sameWithin, &QDoubleSpinBox::valueChanged, this, &CompareView::setSameWithinPercent);
    connect(m_show, &QComboBox::activated, this, [this](int i) {
        m_proxy->setShow(static_cast<OperatorDiffProxy::Show>(m_show->itemData(i).toInt()));
        updateHeader();
    });
    connect(m_filter, &QLineEdit::textChanged, this, &CompareView::setFilterText);
    connect(m_wholeRun, &QCheckBox::toggled, this,
            [this](bool whole) { setOpTimes(whole ? OpTimes::WholeRun : OpTimes::PerStep); });
    connect(m_opTable, &QTableView::doubleClicked, this, &CompareView::onOperatorActivated);
    updateHeader();
}

CompareView::~CompareView() = default;

void CompareView::setupAdvicePage()
{
    m_checkProxy->setSourceModel(m_check);
    m_checkProxy->setSortRole(AdviceCheckModel::SortRole);
    m_checkTable->setObjectName(QStringLiteral("compareAdviceCheck"));
    m_checkTable->setModel(m_checkProxy);
    m_checkTable->setSortingEnabled(true);
    m_checkTable->sortByColumn(-1, Qt::AscendingOrder); // the advisor diff's order
    m_checkTable->horizontalHeader()->setStretchLastSection(true);
    m_checkNote->setObjectName(QStringLiteral("compareAdviceNote"));
    m_checkNote->setWordWrap(true);
    m_checkNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_checkNote->setToolTip(tr("fixed: absent in the optimized run, or the time it covers fell by ≥ 80 % of its "
                               "predicted gain; partly: still present and it fell by ≥ 20 %; remaining: otherwise; "
                               "new: only in the optimized run"));
    m_checkPage->setObjectName(QStringLiteral("compareAdvicePage"));
    auto* lay = new QVBoxLayout(m_checkPage);
    lay->setContentsMargins(0, 4, 0, 0);
    lay->addWidget(m_checkNote);
    lay->addWidget(m_checkTable, 1);
    connect(m_checkTable, &QTableView::clicked, this, &CompareView::onAdviceClicked);
    connect(m_checkTable, &QTableView::doubleClicked, this, &CompareView::onAdviceActivated);
}

void CompareView::setProfiles(SessionPtr baseline, const QString& baselinePath, SessionPtr optimized,
                              const QString& optimizedPath)
{
    m_in.baseline = std::move(baseline);
    m_in.optimized = std::move(optimized);
    m_in.baselinePath = baselinePath;
    m_in.optimizedPath = optimizedPath;
    recompute();
}

void CompareView::swap()
{
    std::swap(m_in.baseline, m_in.optimized);
    std::swap(m_in.baselinePath, m_in.optimizedPath);
    recompute();
}

void CompareView::setGroupBy(GroupBy g)
{
    const int i = m_groupBy->findData(static_cast<int>(g));
    if (i >= 0)
        m_groupBy->setCurrentIndex(i);
    if (g == m_in.options.groupBy)
        return;
    m_in.options.groupBy = g;
    recompute();
}

void CompareView::setTokensPerStep(int tokens)
{
    if (m_tokens->value() != tokens)
        m_tokens->setValue(tokens); // emits valueChanged -> here again
    if (static_cast<double>(tokens) == m_in.options.tokensPerStep)
        return;
    m_in.options.tokensPerStep = tokens;
    recompute();
}

void CompareView::setSameWithinPercent(double percent)
{
    if (m_sameWithin->value() != percent)
        m_sameWithin->setValue(percent); // emits valueChanged -> here again (clamped, rounded)
    const double share = m_sameWithin->value() / 100.0;
    if (share == m_in.options.sameWithin)
        return;
    m_in.options.sameWithin = share;
    recompute();
}

void CompareView::setOpTimes(OpTimes t)
{
    if (m_wholeRun->isChecked() != (t == OpTimes::WholeRun))
        m_wholeRun->setChecked(t == OpTimes::WholeRun); // emits toggled -> here again
    // Both kinds of times are in the result: no new comparison, only what is shown and exported.
    m_in.options.opTimes = t;
    m_shown.options.opTimes = t;
    if (m_result.opTimes != t) {
        m_result.opTimes = t;
        sortOps(m_result);
    }
    m_ops->setOpTimes(t);
    updateHeader();
}

void CompareView::setFilterText(const QString& text)
{
    if (m_filter->text() != text)
        m_filter->setText(text);
    m_proxy->setFilterFixedString(text);
    updateHeader();
}

void CompareView::recompute()
{
    const quint64 id = ++m_generation; // a newer request wins over a running one
    const Inputs in = m_in;
    if (!in.baseline || !in.optimized) {
        m_busy = false;
        m_shown = in;
        showResult(CompareResult{});
        emit resultReady();
        return;
    }
    m_busy = true;
    updateHeader();
    // The sessions are immutable and shared: the worker holds its own references, so a
    // dropped computation may finish after the view is gone.
    auto* watcher = new QFutureWatcher<CompareResult>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, in] {
        watcher->deleteLater();
        if (id != m_generation)
            return; // superseded or cancelled
        m_busy = false;
        m_shown = in;
        showResult(watcher->result());
        emit resultReady();
    });
    watcher->setFuture(QtConcurrent::run([b = in.baseline, o = in.optimized, options = in.options] {
        std::string error; // a summary read again: the result names the side that failed
        CompareResult r = cluster_summary::compareRuns(*b, *o, options, &error);
        const advisor::Thresholds th = advisor::Thresholds::load();
        advisor::compareAdvice(r, advisor::adviseSession(*b, th), advisor::adviseSession(*o, th), b.get(), o.get(),
                               options.groupBy);
        return r;
    }));
}

void CompareView::cancel()
{
    if (!m_busy)
        return;
    ++m_generation;
    m_busy = false;
    m_in = m_shown;
    syncControls();
    updateHeader();
    emit computationCancelled();
}

void CompareView::syncControls()
{
    const QSignalBlocker b1(m_groupBy), b2(m_tokens), b3(m_sameWithin), b4(m_wholeRun);
    m_wholeRun->setChecked(m_in.options.opTimes == OpTimes::WholeRun);
    if (const int i = m_groupBy->findData(static_cast<int>(m_in.options.groupBy)); i >= 0)
        m_groupBy->setCurrentIndex(i);
    m_tokens->setValue(static_cast<int>(m_in.options.tokensPerStep));
    m_sameWithin->setValue(m_in.options.sameWithin * 100.0);
}

void CompareView::showResult(CompareResult result)
{
    m_result = std::move(result);
    // Per step or whole run is a choice of what to show, kept across comparisons.
    m_shown.options.opTimes = m_in.options.opTimes;
    if (m_result.opTimes != m_in.options.opTimes) {
        m_result.opTimes = m_in.options.opTimes;
        sortOps(m_result);
    }
    m_headline->setRows(m_result.headline, m_result.sameWithin);
    m_ops->setRows(m_result.ops, m_result.sameWithin);
    m_ops->setOpTimes(m_result.opTimes);
    m_mapping->setMapping(m_result.mapping);
    m_advisor->setRows(m_result.advisor);
    m_check->setRows(m_result.adviceChecked ? m_result.advisor : std::vector<AdvisorDiffRow>{});
    m_checkNote->setText(adviceCheckNote());
    m_timelines->setRuns(m_shown.baseline, m_shown.optimized, m_result);
    int fixed = 0, remaining = 0, added = 0;
    for (const AdvisorDiffRow& a : m_result.advisor)
        (a.change == FindingChange::Fixed ? fixed : a.change == FindingChange::New ? added : remaining) += 1;
    m_details->setTabText(1, tr("Operator mapping (%1 replaced)").arg(m_result.mapping.count(MappingKind::Replaced)));
    m_details->setTabText(2, tr("Advisor findings (%1 fixed, %2 remaining, %3 new)").arg(fixed).arg(remaining).arg(added));
    int partly = 0, checkedFixed = 0;
    for (const AdvisorDiffRow& a : m_result.advisor) {
        partly += a.status == "partly";
        checkedFixed += a.status == "fixed";
    }
    m_details->setTabText(m_details->indexOf(m_checkPage),
                          m_result.adviceChecked ? tr("Advice checked (%1 fixed, %2 partly)").arg(checkedFixed).arg(partly)
                                                 : tr("Advice checked"));
    for (QTableView* t : {m_mappingTable, m_advisorTable, m_checkTable}) {
        t->resizeColumnsToContents();
        for (int c = 0; c < t->model()->columnCount(); ++c)
            t->setColumnWidth(c, std::min(t->columnWidth(c) + 12, 420));
    }

    // The headline shows all its rows without scrolling.
    m_headlineTable->resizeColumnsToContents();
    for (int c = 0; c < CompareHeadlineModel::ColumnCount; ++c)
        m_headlineTable->setColumnWidth(c, m_headlineTable->columnWidth(c) + 16);
    const int h = m_headlineTable->horizontalHeader()->sizeHint().height() + m_headlineTable->verticalHeader()->length()
                  + 2 * m_headlineTable->frameWidth();
    // At most all rows without scrolling; the splitter may shrink it to three rows.
    m_headlineTable->setMaximumHeight(h);
    m_headlineTable->setMinimumHeight(std::min(h, m_headlineTable->horizontalHeader()->sizeHint().height()
                                                      + 3 * m_headlineTable->verticalHeader()->defaultSectionSize()
                                                      + 2 * m_headlineTable->frameWidth()));
    m_opTable->resizeColumnsToContents();
    m_opTable->setColumnWidth(OperatorDiffModel::Name, std::min(m_opTable->columnWidth(OperatorDiffModel::Name), 360));
    for (int c = 1; c < OperatorDiffModel::ColumnCount; ++c)
        m_opTable->setColumnWidth(c, m_opTable->columnWidth(c) + 12);
    updateHeader();
}

void CompareView::updateHeader()
{
    auto path = [](const QString& p) { return p.isEmpty() ? tr("(none)") : p.toHtmlEscaped(); };
    QString html = tr("Baseline <b>%1</b>%2 &nbsp;→&nbsp; optimized <b>%3</b>%4")
                       .arg(path(m_shown.baselinePath), rankNote(m_shown.baseline), path(m_shown.optimizedPath),
                            rankNote(m_shown.optimized));
    const CompareResult& r = m_result;
    if (m_busy) {
        html += QStringLiteral("<br>") + tr("Comparing %1 with %2…").arg(path(m_in.baselinePath), path(m_in.optimizedPath));
    } else if (!std::isnan(r.speedup) && !r.headline.empty()) {
        const HeadlineRow& step = r.headline.front();
        // The step-time row's own verdict: a "same" change is no speed-up either way.
        const bool same = headlineVerdict(step, r.sameWithin) == "same";
        const Change c = same ? Change::Same : r.speedup > 1 ? Change::Improved : Change::Regressed;
        const QColor colour = changeColour(c);
        const QString value = QString::number(r.speedup, 'f', 2) + QStringLiteral("×");
        html += QStringLiteral("<br>") + (same ? tr("Same speed") : r.speedup > 1 ? tr("Speedup") : tr("Slowdown"))
                + QStringLiteral(" ")
                + (colour.isValid() ? QStringLiteral("<b style=\"color:%1\">%2</b>").arg(colour.name(), value)
                                    : QStringLiteral("<b>%1</b>").arg(value))
                + tr(" &nbsp;(step time %1 → %2%3)")
                      .arg(fmt::duration(step.baseline * 1e6), fmt::duration(step.current * 1e6),
                           same ? QString() : r.speedup > 1 ? tr(", faster") : tr(", slower"));
        const std::string verdict = r.verdictText();
        if (!verdict.empty())
            html += QStringLiteral("<br>") + tr("Optimized is %1").arg(QString::fromStdString(verdict).toHtmlEscaped());
    } else if (m_shown.baseline && m_shown.optimized) {
        html += QStringLiteral("<br>") + tr("No step time on one side: no speedup");
    }
    m_header->setText(html);
    m_header->setToolTip(tr("Baseline: %1\nOptimized: %2").arg(m_shown.baselinePath, m_shown.optimizedPath));
    m_opCount->setText(tr("%1 of %2").arg(m_proxy->rowCount()).arg(m_ops->rowCount()));
    const bool perStep = m_ops->opTimes() == OpTimes::PerStep;
    m_opTitle->setText(perStep ? tr("<b>Operators</b> by |Δ per step|") : tr("<b>Operators</b> by |Δ total|"));
    m_opNote->setText(m_shown.baseline && m_shown.optimized ? qstr(operatorStepsNote(m_result)) : QString());
    m_swap->setEnabled(m_in.baseline && m_in.optimized);
    // The export writes the shown result, never one being computed.
    m_export->setEnabled(!m_busy && m_shown.baseline && m_shown.optimized);
}

QString CompareView::headerText() const
{
    QTextDocument doc;
    doc.setHtml(m_header->text());
    return doc.toPlainText();
}

bool CompareView::exportTo(const QString& path, const QString& format, QString* error) const
{
    const std::string base = m_shown.baselinePath.toStdString(), opt = m_shown.optimizedPath.toStdString();
    std::string err;
    if (format == QLatin1String("pdf")) {
        if (writeComparePdf(m_result, base, opt, path.toStdString(), &err))
            return true;
        if (error)
            *error = QString::fromStdString(err);
        return false;
    }
    const std::string text = format == QLatin1String("html") ? compareHtml(m_result, base, opt)
                                                             : formatCompareReport(m_result, base, opt, format.toStdString());
    if (writeFileAtomically(path.toStdString(), text, &err))
        return true;
    if (error)
        *error = QString::fromStdString(err);
    return false;
}

void CompareView::exportWithDialog()
{
    const QString csv = tr("CSV (*.csv)"), md = tr("Markdown (*.md)"), json = tr("JSON (*.json)"),
                  txt = tr("Text table (*.txt)"), html = tr("HTML (*.html)"), pdf = tr("PDF (*.pdf)");
    QString filter = csv;
    QString path = QFileDialog::getSaveFileName(this, tr("Export comparison"), QStringLiteral("compare.csv"),
                                                QStringList{csv, md, json, txt, html, pdf}.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty())
        return;
    const QString suffix = QFileInfo(path).suffix().toLower();
    QString format = suffix == QLatin1String("md") ? QStringLiteral("markdown")
                     : suffix == QLatin1String("json") ? QStringLiteral("json")
                     : suffix == QLatin1String("txt") ? QStringLiteral("table")
                     : suffix == QLatin1String("csv") ? QStringLiteral("csv")
                     : suffix == QLatin1String("html") || suffix == QLatin1String("htm") ? QStringLiteral("html")
                     : suffix == QLatin1String("pdf") ? QStringLiteral("pdf")
                                                      : QString();
    if (format.isEmpty()) // no known suffix: the chosen filter decides
        format = filter == md ? QStringLiteral("markdown") : filter == json ? QStringLiteral("json")
                 : filter == txt ? QStringLiteral("table") : filter == html ? QStringLiteral("html")
                 : filter == pdf ? QStringLiteral("pdf") : QStringLiteral("csv");
    QString error;
    if (!exportTo(path, format, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
    else
        showExportNotice(this, path);
}

QString CompareView::adviceCheckNote() const
{
    if (!m_result.adviceChecked)
        return m_shown.baseline && m_shown.optimized ? tr("The advice was not checked.") : QString();
    return qstr(npuscope::adviceCheckNote(m_result));
}

void CompareView::onAdviceClicked(const QModelIndex& proxyIndex)
{
    if (!proxyIndex.isValid())
        return;
    // The finding's operators, selected in the Operators table (the evidence this tab can show).
    const QStringList keys = proxyIndex.data(AdviceCheckModel::OpKeysRole).toStringList();
    if (keys.isEmpty())
        return;
    QItemSelection sel;
    for (const QString& key : keys) {
        const int row = m_ops->rowForKey(key);
        if (row < 0)
            continue;
        const QModelIndex at = m_proxy->mapFromSource(m_ops->index(row, 0));
        if (at.isValid())
            sel.select(at, at.siblingAtColumn(OperatorDiffModel::ColumnCount - 1));
    }
    m_opTable->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void CompareView::onAdviceActivated(const QModelIndex& proxyIndex)
{
    if (!proxyIndex.isValid())
        return;
    const QStringList keys = proxyIndex.data(AdviceCheckModel::OpKeysRole).toStringList();
    if (!keys.isEmpty())
        emit operatorActivated(keys.front(), m_shown.options.groupBy);
}

void CompareView::onOperatorActivated(const QModelIndex& proxyIndex)
{
    if (!proxyIndex.isValid())
        return;
    emit operatorActivated(proxyIndex.data(OperatorDiffModel::KeyRole).toString(), m_shown.options.groupBy);
}

} // namespace npuscope
