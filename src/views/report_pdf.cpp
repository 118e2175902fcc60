#include "views/report_pdf.h"
#include "views/format.h"

#include "views/pdf_document.h"

#include <QPainter>
#include <QTextDocument>
#include <QUrl>

#include <algorithm>
#include <cmath>

namespace npuscope {

using namespace advisor;

namespace {

QString esc(const std::string& s) { return qstr(s).toHtmlEscaped(); }

QColor sevColour(FindingSeverity s)
{
    return QColor(QLatin1String(severityColour(s)));
}

QString rankName(int r) { return r >= 0 ? QStringLiteral("rank %1").arg(r) : QStringLiteral("profile"); }

// The roofline chart and its roofs' sources (empty when the report has no roofline).
QString rooflineSection(const AdvisorReport& r)
{
    if (r.roofs.empty())
        return {};
    const RooflineRoofs& roofs = r.roofs.front();
    QString s = QStringLiteral("<h2>Roofline (%1)</h2><p><img src=\"npuscope-chart:roofline\" width=\"620\"></p><ul>")
                    .arg(rankName(roofs.rank));
    for (const auto& line : roofs.sources)
        s += QStringLiteral("<li>%1</li>").arg(esc(line));
    const auto above = std::count_if(r.roofline.begin(), r.roofline.end(), [&roofs](const RooflinePoint& pt) {
        return pt.rank == roofs.rank && pt.aboveRoof;
    });
    if (above > 0)
        s += QStringLiteral("<li>%1 op shape(s) above their roof, drawn as crossed circles: no kernel can do that, so "
                            "their FLOPs or bytes estimate, their dtype's roof or the core count is off.</li>")
                 .arg(above);
    return s + QStringLiteral("</ul>");
}

// Log-log placement of the roofline chart: decades of intensity across, of TFLOP/s up.
struct LogFrame {
    QRectF area;
    double x0, x1, y0, y1; // log10 ranges
    QPointF at(double x, double y) const
    {
        const double fx = (std::log10(x) - x0) / (x1 - x0), fy = (std::log10(y) - y0) / (y1 - y0);
        return {area.left() + fx * area.width(), area.bottom() - fy * area.height()};
    }
};

void drawLogGrid(QPainter& p, const LogFrame& fr)
{
    p.setPen(QPen(QColor(0xdd, 0xdd, 0xdd), 1));
    for (int d = static_cast<int>(std::ceil(fr.x0)); d <= static_cast<int>(std::floor(fr.x1)); ++d) {
        const QPointF a = fr.at(std::pow(10.0, d), std::pow(10.0, fr.y0));
        p.drawLine(QPointF(a.x(), fr.area.top()), QPointF(a.x(), fr.area.bottom()));
        p.setPen(Qt::black);
        p.drawText(QRectF(a.x() - 40, fr.area.bottom() + 2, 80, 16), Qt::AlignHCenter, QString::number(std::pow(10.0, d), 'g', 6));
        p.setPen(QPen(QColor(0xdd, 0xdd, 0xdd), 1));
    }
    for (int d = static_cast<int>(std::ceil(fr.y0)); d <= static_cast<int>(std::floor(fr.y1)); ++d) {
        const QPointF a = fr.at(std::pow(10.0, fr.x0), std::pow(10.0, d));
        p.drawLine(QPointF(fr.area.left(), a.y()), QPointF(fr.area.right(), a.y()));
        p.setPen(Qt::black);
        p.drawText(QRectF(0, a.y() - 8, fr.area.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter, QString::number(std::pow(10.0, d), 'g', 6));
        p.setPen(QPen(QColor(0xdd, 0xdd, 0xdd), 1));
    }
    p.setPen(Qt::black);
    p.drawRect(fr.area);
    p.drawText(QRectF(fr.area.left(), fr.area.bottom() + 18, fr.area.width(), 16), Qt::AlignHCenter,
               QStringLiteral("arithmetic intensity (FLOP/byte)"));
    p.save();
    p.translate(12, fr.area.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-100, -8, 200, 16), Qt::AlignHCenter, QStringLiteral("achieved TFLOP/s"));
    p.restore();
}

// Draws a roof and its name; returns the name's rectangle.
QRectF drawRoof(QPainter& p, const LogFrame& fr, double peak, double bw, const QColor& c, const QString& name)
{
    if (!(peak > 0) || !(bw > 0))
        return {};
    const double ridge = peak / bw, xl = std::pow(10.0, fr.x0), xr = std::pow(10.0, fr.x1);
    p.setPen(QPen(c, 2));
    if (ridge > xl)
        p.drawLine(fr.at(xl, xl * bw / 1e12), fr.at(ridge, peak / 1e12));
    p.drawLine(fr.at(std::max(ridge, xl), peak / 1e12), fr.at(xr, peak / 1e12));
    // Named just right of the ridge, where no point sits above the roof.
    const QPointF at = fr.at(std::max(ridge, xl), peak / 1e12) + QPointF(4, -4);
    p.drawText(at, name);
    return QRectF(at.x(), at.y() - p.fontMetrics().ascent(), p.fontMetrics().horizontalAdvance(name), p.fontMetrics().height());
}

// A point's name beside it (of diameter d at c), in the first corner where it overlaps no
// label already drawn and stays inside the chart; none when every corner is taken.
void placeLabel(QPainter& p, const QRectF& area, std::vector<QRectF>& placed, QPointF c, double d, const QString& name)
{
    const double w = p.fontMetrics().horizontalAdvance(name), h = p.fontMetrics().height();
    const double gap = d / 2 + 2;
    for (const QPointF& corner : {QPointF(gap, -gap - h), QPointF(-gap - w, -gap - h), QPointF(gap, gap), QPointF(-gap - w, gap)}) {
        const QRectF r(c + corner, QSizeF(w, h));
        if (!area.contains(r) || std::any_of(placed.begin(), placed.end(), [&](const QRectF& o) { return o.intersects(r); }))
            continue;
        p.setPen(Qt::black);
        p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, name);
        placed.push_back(r);
        return;
    }
}

} // namespace

QImage renderRooflineChart(const AdvisorReport& r, int width)
{
    const int height = width * 55 / 100;
    QImage img(width, height, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    if (r.roofs.empty())
        return img;
    const RooflineRoofs& roofs = r.roofs.front();
    std::vector<const RooflinePoint*> pts;
    double tMax = 0, xMin = 1e300, xMax = 0, yMin = 1e300;
    for (const auto& pt : r.roofline)
        if (pt.rank == roofs.rank && pt.intensity > 0 && pt.achievedFlops > 0) {
            pts.push_back(&pt);
            tMax = std::max(tMax, pt.timeNs);
            xMin = std::min(xMin, pt.intensity);
            xMax = std::max(xMax, pt.intensity);
            yMin = std::min(yMin, pt.achievedFlops / 1e12);
        }
    const double peak = std::max(roofs.cubeFp16, roofs.vectorFp16) / 1e12;
    if (pts.empty()) {
        xMin = 1;
        xMax = 100;
        yMin = 0.1;
    }
    LogFrame fr{QRectF(70, 10, width - 110, height - 56), std::floor(std::log10(xMin / 2)),
                std::ceil(std::log10(std::max(xMax * 6, roofs.ridge(roofs.cubeFp16) * 3))), // room for labels
                std::floor(std::log10(yMin / 2)), std::ceil(std::log10(std::max(peak, 1e-3) * 2))};
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    QFont f = p.font();
    f.setPixelSize(13);
    p.setFont(f);
    drawLogGrid(p, fr);
    p.setClipRect(fr.area);
    std::vector<QRectF> placed; // the labels drawn so far
    placed.push_back(drawRoof(p, fr, roofs.cubeFp16, roofs.hbmBytesPerS, QColor(0x33, 0x66, 0xcc), QStringLiteral("cube FP16 roof")));
    placed.push_back(drawRoof(p, fr, roofs.vectorFp16, roofs.hbmBytesPerS, QColor(0x2a, 0x9d, 0x8f), QStringLiteral("vector FP16 roof")));
    std::vector<std::pair<QPointF, double>> drawn; // centre and diameter of each point
    for (const RooflinePoint* pt : pts) {
        const bool cube = pt->unit == "cube";
        const double d = 6 + 22 * std::sqrt(tMax > 0 ? pt->timeNs / tMax : 0);
        const QPointF c = fr.at(pt->intensity, pt->achievedFlops / 1e12);
        const QColor col = cube ? QColor(0x33, 0x66, 0xcc, 170) : QColor(0x2a, 0x9d, 0x8f, 170);
        p.setPen(col.darker(130));
        p.setBrush(col);
        if (pt->aboveRoof) { // an estimate is off: a crossed hollow circle, never like a measured point
            const double k = d / 2 / std::sqrt(2.0);
            p.setPen(QPen(QColor(0xB5, 0x49, 0x5B), 2));
            p.setBrush(Qt::NoBrush);
            p.drawEllipse(c, d / 2, d / 2);
            p.drawLine(c + QPointF(-k, -k), c + QPointF(k, k));
            p.drawLine(c + QPointF(-k, k), c + QPointF(k, -k));
        } else if (cube)
            p.drawEllipse(c, d / 2, d / 2);
        else
            p.drawRect(QRectF(c.x() - d / 2, c.y() - d / 2, d, d));
        drawn.emplace_back(c, d);
        placed.emplace_back(c.x() - d / 2, c.y() - d / 2, d, d); // labels keep off the points
    }
    for (std::size_t i = 0; i < pts.size() && i < 6; ++i) // the costliest are named
        placeLabel(p, fr.area, placed, drawn[i].first, drawn[i].second, qstr(pts[i]->opType));
    return img;
}

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
        maxT = std::max(maxT, static_cast<double>(rs.split.computing + rs.split.commNotOverlapped + rs.split.free));
    const QColor colours[3] = {QColor(0x4e, 0x79, 0xa7), QColor(0xe1, 0x57, 0x59), QColor(0xba, 0xb0, 0xac)};
    const int barW = width - left - right;
    int y = top;
    for (const auto& rs : ranks) {
        p.setPen(Qt::black);
        p.drawText(QRect(0, y, left - 6, 20), Qt::AlignVCenter | Qt::AlignRight, rankName(rs.rank));
        const double parts[3] = {static_cast<double>(rs.split.computing), static_cast<double>(rs.split.commNotOverlapped),
                                 static_cast<double>(rs.split.free)};
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
        const QString label = p.fontMetrics().elidedText(qstr(fd->id), Qt::ElideRight, left - 10);
        p.drawText(QRect(0, y, left - 8, 18), Qt::AlignVCenter | Qt::AlignLeft, label);
        const double w = mx > 0 ? fd->gain.nsPerStep / mx * (width - left - right) : 0;
        p.fillRect(QRectF(left, y, std::max(1.0, w), 18), sevColour(fd->severity));
        p.drawText(QPointF(left + w + 6, y + 14),
                   qstr(fmtMs(fd->gain.nsPerStep)) + QStringLiteral(" · ") + QString::fromLatin1(severityName(fd->severity)));
        y += rowH;
    }
    return img;
}

bool writeReportPdf(const AdvisorReport& r, const std::string& path, std::string* error)
{
    const auto& id = r.identity;
    QString html = QStringLiteral("<html><body>");
    // The title block: what was analysed, then the report itself on the same page.
    html += QStringLiteral("<h1 style=\"font-size:20pt\">npuscope advisor report</h1>");
    html += QStringLiteral("<p style=\"font-size:14pt\"><b>%1</b></p>").arg(esc(id.name));
    html += QStringLiteral("<table cellpadding=\"2\">");
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
    row(QStringLiteral("Findings"), findingsHeadline(r.summary));
    html += QStringLiteral("</table>");
    if (r.overrides.empty()) {
        html += QStringLiteral("<p>Threshold overrides: none</p>");
    } else {
        html += QStringLiteral("<p><b>Threshold overrides</b></p><ul>");
        for (const auto& o : r.overrides)
            html += QStringLiteral("<li>%1 = %2 (default %3)</li>").arg(esc(o.key), esc(o.value), esc(o.defaultValue));
        html += QStringLiteral("</ul>");
    }
    // The plan and the summary follow on the same page: a page of its own for the identity
    // left most of page 1 blank.
    html += QStringLiteral("<hr>");

    HtmlOptions ho;
    ho.forPdf = true;
    ho.evidenceRows = r.evidenceRowsPdf;
    QString body = qstr(writeHtmlBody(r, ho));
    body.replace(QStringLiteral("<!--charts-->"),
                 QStringLiteral("<h2>Step split per rank</h2><p><img src=\"npuscope-chart:split\" width=\"620\"></p>"
                                "<h2>Top gains by severity</h2><p><img src=\"npuscope-chart:gains\" width=\"620\"></p>")
                     + rooflineSection(r));
    html += body + QStringLiteral("</body></html>");

    QTextDocument doc;
    doc.setDefaultFont(reportFont(9));
    doc.setDefaultStyleSheet(QStringLiteral("h2{color:#333;} th{background-color:#eeeeee;} td,th{font-size:8pt;}"));
    doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("npuscope-chart:split")), renderSplitChart(r));
    doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("npuscope-chart:gains")), renderGainChart(r));
    if (!r.roofs.empty())
        doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("npuscope-chart:roofline")), renderRooflineChart(r));
    doc.setHtml(html);
    return writeDocumentPdf(doc, path,
                            {QStringLiteral("npuscope advisor report: ") + qstr(id.name),
                             QStringLiteral("npuscope ") + qstr(id.npuscopeVersion), 15},
                            error);
}

} // namespace npuscope
