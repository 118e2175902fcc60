#include "views/compare_export.h"
#include "views/format.h"

#include "model/analysis/compare_report.h"
#include "views/pdf_document.h"

#include <QBuffer>
#include <QPainter>
#include <QTextDocument>
#include <QUrl>

#include <algorithm>
#include <cmath>

namespace npuscope {

namespace {

QString esc(const std::string& s) { return qstr(s).toHtmlEscaped(); }

QString tableHtml(const text::Table& t)
{
    QString h = QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\" width=\"100%\"><tr>");
    for (const std::string& c : t.header)
        h += QStringLiteral("<th>%1</th>").arg(esc(c));
    h += QStringLiteral("</tr>");
    for (const auto& row : t.rows) {
        h += QStringLiteral("<tr>");
        for (std::size_t i = 0; i < row.size(); ++i)
            h += (t.numeric[i] ? QStringLiteral("<td align=\"right\">%1</td>") : QStringLiteral("<td>%1</td>")).arg(esc(row[i]));
        h += QStringLiteral("</tr>");
    }
    return h + QStringLiteral("</table>");
}

// The operators with the largest change, compact for a page: the times of r.opTimes, the
// verdict per step.
QString operatorsHtml(const CompareResult& r)
{
    const bool perStep = r.opTimes == OpTimes::PerStep;
    text::Table ops;
    ops.addColumn("operator", false);
    ops.addColumn(perStep ? "count/step" : "count", true);
    ops.addColumn(perStep ? "baseline ms/step" : "baseline ms", true);
    ops.addColumn(perStep ? "optimized ms/step" : "optimized ms", true);
    ops.addColumn(perStep ? "Δ ms/step" : "Δ ms", true);
    ops.addColumn("ratio", true);
    ops.addColumn("verdict", false);
    auto count = [perStep](bool in, std::uint64_t n, double perStepN) {
        return !in ? std::string("—") : perStep ? text::fixed(perStepN, 1) : std::to_string(n);
    };
    for (std::size_t i = 0; i < std::min<std::size_t>(r.ops.size(), 15); ++i) {
        const OpDiffRow& d = r.ops[i];
        ops.rows.push_back({d.key,
                            count(d.inBaseline, d.baselineCount, d.baselineCountPerStep) + " → "
                                + count(d.inCurrent, d.currentCount, d.currentCountPerStep),
                            text::fixed(d.baselineNs(r.opTimes) / 1e6, 3), text::fixed(d.currentNs(r.opTimes) / 1e6, 3),
                            text::fixed(d.deltaNs(r.opTimes) / 1e6, 3), text::fixed(d.ratioOf(r.opTimes), 3),
                            opVerdict(d, r.sameWithin)});
    }
    return QStringLiteral("<h2>Operators</h2><p>%1; the %2 with the largest change of %3.</p>")
               .arg(esc(operatorStepsNote(r)))
               .arg(ops.rows.size())
               .arg(perStep ? QStringLiteral("time per step") : QStringLiteral("total time"))
           + tableHtml(ops);
}

// The report body; `chart` is the <img> source of the diff chart.
QString bodyHtml(const CompareResult& r, const std::string& baselinePath, const std::string& optimizedPath,
                 const QString& chart)
{
    QString h;
    h += QStringLiteral("<h1>npuscope compare</h1><p>Baseline <code>%1</code><br>Optimized <code>%2</code></p>")
             .arg(esc(baselinePath), esc(optimizedPath));
    const std::string verdict = r.verdictText();
    if (!verdict.empty())
        h += QStringLiteral("<p style=\"font-size:14pt\"><b>Optimized is %1.</b></p>").arg(esc(verdict));
    h += QStringLiteral("<p>A change under %1 % of the larger value, or inside the 95 % interval of the per-step "
                        "values, is the same.</p>")
             .arg(r.sameWithin * 100.0);
    text::Table head;
    for (const char* c : {"metric", "unit", "baseline", "optimized", "delta", "ratio", "verdict"})
        head.addColumn(c, std::string(c) != "metric" && std::string(c) != "unit" && std::string(c) != "verdict");
    for (const HeadlineRow& row : r.headline) {
        const int digits = row.unit == "ms" ? 3 : 2;
        head.rows.push_back({row.metric, row.unit, text::fixed(row.baseline, digits), text::fixed(row.current, digits),
                             text::fixed(row.delta, digits), text::fixed(row.ratio, 3), headlineVerdict(row, r.sameWithin)});
    }
    h += QStringLiteral("<h2>Headline</h2>") + tableHtml(head);
    h += operatorsHtml(r);
    h += QStringLiteral("<h2>Where the time moved</h2><p><img src=\"%1\" width=\"640\"></p>").arg(chart);
    h += QStringLiteral("<h2>Steps side by side</h2><p>%1</p>").arg(esc(stepAlignmentNote(r)));
    if (!r.stepPairs.empty()) {
        // Compact for a page: ms with 3 decimals, the split's changes in one cell.
        text::Table steps;
        steps.addColumn("baseline ⇒ optimized step", false);
        steps.addColumn("ms", true);
        steps.addColumn("Δ ms", true);
        steps.addColumn("Δ computing / not overlapped / free", true);
        steps.addColumn("most moved (Δ ms)", false);
        auto ms = [](TimeNs ns) { return text::fixed(static_cast<double>(ns) / 1e6, 3); };
        for (const StepPair& p : r.stepPairs) {
            const StepSpan& a = r.baselineSpans[static_cast<std::size_t>(p.baseline)];
            const StepSpan& b = r.currentSpans[static_cast<std::size_t>(p.optimized)];
            std::string moved;
            for (std::size_t i = 0; i < std::min<std::size_t>(3, p.ops.size()) && p.ops[i].delta() != 0; ++i)
                moved += (i ? ", " : "") + p.ops[i].type + " " + ms(p.ops[i].delta());
            steps.rows.push_back({a.step + " ⇒ " + b.step + (p.baseline == r.baselineAnchor ? " (aligned)" : ""),
                                  ms(a.duration()) + " → " + ms(b.duration()), ms(p.stepDelta),
                                  ms(p.computingDelta) + " / " + ms(p.commDelta) + " / " + ms(p.freeDelta), moved});
        }
        h += tableHtml(steps);
    }
    h += QStringLiteral("<h2>Operator mapping</h2><p>%1</p>").arg(esc(mappingNote(r.mapping)));
    // Compact for a page: the windows with their shapes, times per step, the ratio with its interval.
    text::Table map;
    map.addColumn("mapping", false);
    map.addColumn("baseline ⇒ optimized", false);
    map.addColumn("per step", true);
    map.addColumn("baseline ms/step", true);
    map.addColumn("optimized ms/step", true);
    map.addColumn("ratio (95 % CI)", true);
    map.addColumn("verdict", false);
    std::size_t plain = 0;
    for (const OpMappingRow& row : r.mapping.rows) {
        if (row.kind != MappingKind::Replaced && plain++ >= 15)
            continue;
        const std::string ops = (row.baseline.empty() ? std::string("—") : row.baseline) + " ⇒ "
                                + (row.optimized.empty() ? std::string("—") : row.optimized)
                                + (row.shapes.empty() ? "" : "  [" + row.shapes + "]");
        const double ratio = row.beforeNs > 0 ? row.afterNs / row.beforeNs : kNaN;
        std::string ci = text::fixed(ratio, 3);
        if (row.ci.valid() && row.ci.low != row.ci.high)
            ci += " (" + text::fixed(row.ci.low, 3) + "–" + text::fixed(row.ci.high, 3) + ")";
        map.rows.push_back({mappingKindName(row.kind), ops,
                            text::fixed(r.mapping.steps > 0 ? static_cast<double>(row.occurrences) / r.mapping.steps : kNaN, 1),
                            text::fixed(row.beforeNs / 1e6, 3), text::fixed(row.afterNs / 1e6, 3), ci, row.verdict});
    }
    h += tableHtml(map);
    h += QStringLiteral("<h2>Advisor findings</h2>");
    if (!r.advisorCompared)
        h += QStringLiteral("<p>Not compared.</p>");
    else if (r.advisor.empty())
        h += QStringLiteral("<p>No findings fired in either run.</p>");
    else {
        text::Table adv;
        adv.addColumn("change", false);
        adv.addColumn("finding", false);
        adv.addColumn("severity", false);
        adv.addColumn("cost before ms/step", true);
        adv.addColumn("cost after ms/step", true);
        for (const AdvisorDiffRow& a : r.advisor) {
            const bool before = a.change != FindingChange::New, after = a.change != FindingChange::Fixed;
            adv.rows.push_back({findingChangeName(a.change), a.id + ": " + a.title,
                                (before ? a.severityBefore : std::string("—")) + " → " + (after ? a.severityAfter : std::string("—")),
                                before ? text::fixed(static_cast<double>(a.costBefore) / 1e6, 3) : "",
                                after ? text::fixed(static_cast<double>(a.costAfter) / 1e6, 3) : ""});
        }
        h += tableHtml(adv);
    }
    if (r.adviceChecked) // compare --validate-advice: the baseline's findings against the optimized run
        h += QStringLiteral("<h2>Advice checked</h2><p>%1</p>").arg(esc(adviceCheckNote(r)))
             + tableHtml(adviceCheckTable(r));
    return h;
}

} // namespace

QImage renderCompareChart(const CompareResult& r, int width)
{
    const std::size_t steps = std::min<std::size_t>(std::max(r.baselineSteps.size(), r.currentSteps.size()), 16);
    // Operator types with the largest change of time per step (the operators table's numbers).
    std::vector<const OpDiffRow*> ops;
    for (const OpDiffRow& d : r.ops)
        ops.push_back(&d);
    std::stable_sort(ops.begin(), ops.end(), [](const OpDiffRow* x, const OpDiffRow* y) {
        return std::abs(x->deltaNs(OpTimes::PerStep)) > std::abs(y->deltaNs(OpTimes::PerStep));
    });
    ops.resize(std::min<std::size_t>(ops.size(), 10));
    const int pairH = 40, opH = 20, left = 170, right = 110;
    const int height = 24 + static_cast<int>(steps) * pairH + 30 + 24 + static_cast<int>(ops.size()) * opH + 10;
    QImage img(width, height, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    QFont f = p.font();
    f.setPixelSize(12);
    p.setFont(f);
    const QColor colours[3] = {QColor(0x4e, 0x79, 0xa7), QColor(0xe1, 0x57, 0x59), QColor(0xba, 0xb0, 0xac)};
    double maxT = 0;
    for (const auto* v : {&r.baselineSteps, &r.currentSteps})
        for (const StepBreakdown& s : *v)
            maxT = std::max(maxT, static_cast<double>(s.stepTime()));
    const int barW = width - left - right;
    int y = 4;
    p.setPen(Qt::black);
    p.drawText(QPoint(4, y + 14), QStringLiteral("Per step: baseline (upper) over optimized (lower bar), ms"));
    y += 22;
    for (std::size_t i = 0; i < steps; ++i) {
        p.setPen(Qt::black);
        p.drawText(QRect(0, y, left - 8, 34), Qt::AlignVCenter | Qt::AlignRight, QStringLiteral("step %1").arg(i + 1));
        for (int side = 0; side < 2; ++side) {
            const auto& v = side == 0 ? r.baselineSteps : r.currentSteps;
            const int by = y + side * 17;
            if (i >= v.size())
                continue;
            const StepBreakdown& s = v[i];
            const double parts[3] = {static_cast<double>(s.computing), static_cast<double>(s.commNotOverlapped),
                                     static_cast<double>(s.free)};
            double x = left;
            for (int k = 0; k < 3; ++k) {
                const double w = maxT > 0 ? parts[k] / maxT * barW : 0;
                QColor c = colours[k];
                if (side == 1)
                    c = c.darker(125);
                p.fillRect(QRectF(x, by, w, 15), c);
                x += w;
            }
            p.setPen(Qt::black);
            p.drawText(QPointF(x + 4, by + 12), QString::number(static_cast<double>(s.stepTime()) / 1e6, 'f', 2));
        }
        y += pairH;
    }
    const char* names[3] = {"Computing", "Communication (not overlapped)", "Free"};
    int x = left;
    for (int i = 0; i < 3; ++i) {
        p.fillRect(QRect(x, y + 2, 12, 12), colours[i]);
        p.setPen(Qt::black);
        const QString t = QString::fromUtf8(names[i]);
        p.drawText(QPoint(x + 16, y + 13), t);
        x += 16 + p.fontMetrics().horizontalAdvance(t) + 24;
    }
    y += 30;
    p.drawText(QPoint(4, y + 14), QStringLiteral("Per operator type: optimized − baseline, ms per step"));
    y += 22;
    double maxD = 0;
    std::vector<double> deltas;
    for (const OpDiffRow* d : ops) {
        const double v = d->deltaNs(OpTimes::PerStep);
        deltas.push_back(v);
        maxD = std::max(maxD, std::abs(v));
    }
    const double mid = left + barW / 2.0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        p.setPen(Qt::black);
        p.drawText(QRect(0, y, left - 8, opH - 4), Qt::AlignVCenter | Qt::AlignRight,
                   p.fontMetrics().elidedText(qstr(ops[i]->key), Qt::ElideRight, left - 12));
        const double w = maxD > 0 ? deltas[i] / maxD * (barW / 2.0) : 0;
        const QColor c = deltas[i] < 0 ? QColor(0x2e, 0x8b, 0x57) : QColor(0xc0, 0x39, 0x2b);
        p.fillRect(QRectF(std::min(mid, mid + w), y, std::abs(w), opH - 6), c);
        const QString label = QString::number(deltas[i] / 1e6, 'f', 3);
        p.setPen(Qt::black);
        if (w < 0)
            p.drawText(QPointF(mid + 4, y + 11), label);
        else
            p.drawText(QPointF(mid - 4 - p.fontMetrics().horizontalAdvance(label), y + 11), label);
        y += opH;
    }
    p.setPen(Qt::gray);
    p.drawLine(QPointF(mid, y - static_cast<double>(ops.size()) * opH), QPointF(mid, y));
    return img;
}

std::string compareHtml(const CompareResult& r, const std::string& baselinePath, const std::string& optimizedPath)
{
    QByteArray png;
    QBuffer buf(&png);
    buf.open(QIODevice::WriteOnly);
    renderCompareChart(r).save(&buf, "PNG");
    const QString chart = QStringLiteral("data:image/png;base64,") + QString::fromLatin1(png.toBase64());
    const QString page = QStringLiteral("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>npuscope compare</title>"
                                        "<style>body{font-family:sans-serif;margin:2em;} table{border-collapse:collapse;"
                                        "font-size:10pt;} th{background:#eee;} td,th{padding:2px 6px;}</style></head><body>")
                         + bodyHtml(r, baselinePath, optimizedPath, chart) + QStringLiteral("</body></html>\n");
    return page.toStdString();
}

bool writeComparePdf(const CompareResult& r, const std::string& baselinePath, const std::string& optimizedPath,
                     const std::string& path, std::string* error)
{
    QTextDocument doc;
    doc.setDefaultFont(reportFont(9));
    doc.setDefaultStyleSheet(QStringLiteral("h2{color:#333;} th{background-color:#eeeeee;} td,th{font-size:7pt;}"));
    doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("npuscope-chart:compare")), renderCompareChart(r));
    doc.setHtml(QStringLiteral("<html><body>") + bodyHtml(r, baselinePath, optimizedPath, QStringLiteral("npuscope-chart:compare"))
                + QStringLiteral("</body></html>"));
    return writeDocumentPdf(doc, path, {QStringLiteral("npuscope compare"), QStringLiteral("npuscope"), 12}, error);
}

} // namespace npuscope
