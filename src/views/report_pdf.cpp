#include "views/report_pdf.h"

#include "views/pdf_document.h"

#include <QPainter>
#include <QTextDocument>
#include <QUrl>

#include <algorithm>

namespace npuscope {

using namespace advisor;

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

QString esc(const std::string& s) { return q(s).toHtmlEscaped(); }

QColor sevColour(FindingSeverity s)
{
    return QColor(QLatin1String(severityColour(s)));
}

QString rankName(int r) { return r >= 0 ? QStringLiteral("rank %1").arg(r) : QStringLiteral("profile"); }

} // namespace

QImage renderSplitChart(const AdvisorReport& r, int width)
{
    const auto& ranks = r.summary.ranks;
    const int rowH = 28, left = 90, right = 20, top = 8;
    const int height = top + static_cast<int>(ranks.size()) * rowH + 34;
    QImage img(width, height, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    QFont f = p.font();
    f.setPixelSize(13);
    p.setFont(f);
    double maxT = 0;
    for (const auto& rs : ranks)
        maxT = std::max(maxT, rs.computing + rs.commNotOverlapped + rs.free);
    const QColor colours[3] = {QColor(0x4e, 0x79, 0xa7), QColor(0xe1, 0x57, 0x59), QColor(0xba, 0xb0, 0xac)};
    const int barW = width - left - right;
    int y = top;
    for (const auto& rs : ranks) {
        p.setPen(Qt::black);
        p.drawText(QRect(0, y, left - 6, 20), Qt::AlignVCenter | Qt::AlignRight, rankName(rs.rank));
        const double parts[3] = {rs.computing, rs.commNotOverlapped, rs.free};
        double x = left;
        for (int i = 0; i < 3; ++i) {
            const double w = maxT > 0 ? parts[i] / maxT * barW : 0;
            p.fillRect(QRectF(x, y, w, 20), colours[i]);
            x += w;
        }
        y += rowH;
    }
    const char* names[3] = {"Computing", "Comm (not overlapped)", "Free"};
    int x = left;
    for (int i = 0; i < 3; ++i) {
        p.fillRect(QRect(x, y + 6, 12, 12), colours[i]);
        p.setPen(Qt::black);
        const QString t = QString::fromUtf8(names[i]);
        p.drawText(QPoint(x + 16, y + 17), t);
        x += 16 + p.fontMetrics().horizontalAdvance(t) + 24;
    }
    return img;
}

QImage renderGainChart(const AdvisorReport& r, int width)
{
    const std::vector<const Finding*> fs = topGains(r, 10);
    const int rowH = 24, left = 330, right = 170;
    QImage img(width, std::max(30, static_cast<int>(fs.size()) * rowH + 10), QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    QPainter p(&img);
    QFont f = p.font();
    f.setPixelSize(12);
    p.setFont(f);
    if (fs.empty()) {
        p.drawText(QPoint(4, 20), QStringLiteral("No estimated gains."));
        return img;
    }
    const double mx = fs.front()->gain.nsPerStep;
    int y = 5;
    for (const Finding* fd : fs) {
        p.setPen(Qt::black);
        const QString label = p.fontMetrics().elidedText(q(fd->id), Qt::ElideRight, left - 10);
        p.drawText(QRect(0, y, left - 8, 18), Qt::AlignVCenter | Qt::AlignLeft, label);
        const double w = mx > 0 ? fd->gain.nsPerStep / mx * (width - left - right) : 0;
        p.fillRect(QRectF(left, y, std::max(1.0, w), 18), sevColour(fd->severity));
        p.drawText(QPointF(left + w + 6, y + 14),
                   q(fmtMs(fd->gain.nsPerStep)) + QStringLiteral(" · ") + QString::fromLatin1(severityName(fd->severity)));
        y += rowH;
    }
    return img;
}

bool writeReportPdf(const AdvisorReport& r, const std::string& path, std::string* error)
{
    const auto& id = r.identity;
    QString html = QStringLiteral("<html><body>");
    // Title page.
    html += QStringLiteral("<h1 style=\"font-size:22pt\">npuscope advisor report</h1>");
    html += QStringLiteral("<p style=\"font-size:15pt\"><b>%1</b></p>").arg(esc(id.name));
    html += QStringLiteral("<table cellpadding=\"4\">");
    auto row = [&html](const QString& k, const std::string& v) {
        if (!v.empty())
            html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(k, esc(v));
    };
    row(QStringLiteral("Path"), id.path);
    row(QStringLiteral("Layout"), id.layout);
    std::string ranks;
    for (std::size_t i = 0; i < id.ranks.size(); ++i)
        ranks += (i ? "," : "") + std::to_string(id.ranks[i]);
    row(QStringLiteral("Ranks"), ranks.empty() ? std::string("single profile") : ranks);
    row(QStringLiteral("SoC"), id.soc);
    row(QStringLiteral("CANN"), id.cannVersion);
    row(QStringLiteral("torch_npu"), id.torchNpuVersion);
    row(QStringLiteral("Profiler level"), id.profilerLevel);
    row(QStringLiteral("Captured"), id.captureTime);
    row(QStringLiteral("npuscope"), id.npuscopeVersion);
    row(QStringLiteral("Findings"), std::to_string(r.summary.high) + " high, " + std::to_string(r.summary.medium)
                                        + " medium, " + std::to_string(r.summary.low) + " low");
    html += QStringLiteral("</table>");
    if (r.overrides.empty()) {
        html += QStringLiteral("<p>Threshold overrides: none</p>");
    } else {
        html += QStringLiteral("<p><b>Threshold overrides</b></p><ul>");
        for (const auto& o : r.overrides)
            html += QStringLiteral("<li>%1 = %2 (default %3)</li>").arg(esc(o.key), esc(o.value), esc(o.defaultValue));
        html += QStringLiteral("</ul>");
    }
    html += QStringLiteral("<p style=\"page-break-after:always\">&nbsp;</p>");

    HtmlOptions ho;
    ho.forPdf = true;
    ho.evidenceRows = r.evidenceRowsPdf;
    QString body = q(writeHtmlBody(r, ho));
    body.replace(QStringLiteral("<!--charts-->"),
                 QStringLiteral("<h2>Step split per rank</h2><p><img src=\"npuscope-chart:split\" width=\"620\"></p>"
                                "<h2>Top gains by severity</h2><p><img src=\"npuscope-chart:gains\" width=\"620\"></p>"));
    html += body + QStringLiteral("</body></html>");

    QTextDocument doc;
    doc.setDefaultFont(reportFont(9));
    doc.setDefaultStyleSheet(QStringLiteral("h2{color:#333;} th{background-color:#eeeeee;} td,th{font-size:8pt;}"));
    doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("npuscope-chart:split")), renderSplitChart(r));
    doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("npuscope-chart:gains")), renderGainChart(r));
    doc.setHtml(html);
    return writeDocumentPdf(doc, path,
                            {QStringLiteral("npuscope advisor report: ") + q(id.name),
                             QStringLiteral("npuscope ") + q(id.npuscopeVersion), 15},
                            error);
}

} // namespace npuscope
