#include "views/pdf_document.h"

#include <QAbstractTextDocumentLayout>
#include <QFontDatabase>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextLayout>
#include <QTextTable>

#include <algorithm>
#include <cmath>

namespace npuscope {

namespace {

// What a heading is kept with: the first lines of what follows it.
constexpr int kLinesKeptWithHeading = 3;

bool isHeading(const QTextBlock& b) { return b.blockFormat().headingLevel() > 0; }

bool isBlank(const QTextBlock& b) { return b.text().trimmed().isEmpty() && !b.textList(); }

// The bottom, in document coordinates, of the first `lines` lines of the content that starts
// at block `b` (the top rows of a table when `b` is in one).
double keptBottom(const QTextDocument& doc, const QTextBlock& b, int lines)
{
    QAbstractTextDocumentLayout* layout = doc.documentLayout();
    if (QTextTable* table = QTextCursor(b).currentTable()) {
        const QRectF r = layout->frameBoundingRect(table);
        const double line = QFontMetricsF(b.charFormat().font(), doc.documentLayout()->paintDevice()).lineSpacing();
        return r.top() + std::min(r.height(), (lines + 1) * line); // the header row and a few more
    }
    const QRectF r = layout->blockBoundingRect(b);
    const QTextLayout* tl = b.layout();
    if (!tl || tl->lineCount() == 0)
        return r.bottom();
    // The line's own position, not the block's rectangle: a line pushed to the next page lies
    // below the rectangle's bottom.
    const QTextLine last = tl->lineAt(std::min(lines, tl->lineCount()) - 1);
    return r.top() + last.rect().bottom();
}

int pageOf(double y, double pageHeight) { return static_cast<int>(std::floor(y / pageHeight)); }

} // namespace

QFont reportFont(int pointSize)
{
    QFont font;
    font.setPointSize(pointSize);
    for (const QString& family : {QStringLiteral("Noto Sans CJK SC"), QStringLiteral("WenQuanYi Micro Hei"),
                                  QStringLiteral("Source Han Sans SC")})
        if (QFontDatabase::families().contains(family)) {
            font.setFamilies({QStringLiteral("DejaVu Sans"), family});
            break;
        }
    return font;
}

int keepHeadingsWithNext(QTextDocument& doc)
{
    const double pageHeight = doc.pageSize().height();
    if (!(pageHeight > 0))
        return 0;
    QAbstractTextDocumentLayout* layout = doc.documentLayout();
    int moved = 0;
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next()) {
        if (!isHeading(b) || QTextCursor(b).currentTable())
            continue;
        // A run of headings (a section title right above a finding's) moves as one.
        QTextBlock next = b.next();
        while (next.isValid() && (isBlank(next) || isHeading(next)))
            next = next.next();
        if (!next.isValid())
            break;
        const double top = layout->blockBoundingRect(b).top();
        const double bottom = keptBottom(doc, next, kLinesKeptWithHeading);
        const int page = pageOf(top, pageHeight);
        // Already at the top of its page: moving it would leave an empty page.
        if (pageOf(bottom - 0.5, pageHeight) == page || top - page * pageHeight < 1)
            continue;
        QTextBlockFormat format = b.blockFormat();
        format.setPageBreakPolicy(format.pageBreakPolicy() | QTextFormat::PageBreak_AlwaysBefore);
        QTextCursor(b).setBlockFormat(format);
        // The whole document is laid out again: after an incremental relayout of one block,
        // QTextDocumentLayout can leave what follows the break unpainted.
        doc.setPageSize(doc.pageSize());
        ++moved;
        // The headings after it in the same run keep their place relative to it.
        while (b.next().isValid() && b.next() != next)
            b = b.next();
    }
    return moved;
}

bool writeDocumentPdf(QTextDocument& doc, const std::string& path, const PdfPageSetup& setup, std::string* error)
{
    QSaveFile out(QString::fromStdString(path));
    if (!out.open(QIODevice::WriteOnly)) {
        if (error)
            *error = path + ": " + out.errorString().toStdString();
        return false;
    }
    {
        QPdfWriter writer(&out);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setPageMargins(QMarginsF(setup.marginMm, setup.marginMm, setup.marginMm, setup.marginMm),
                              QPageLayout::Millimeter);
        writer.setTitle(setup.title);
        writer.setCreator(setup.creator);

        // Laid out in the writer's own units (as QTextDocument::print does), so points are points
        // and images keep their size; the foot of each page is left for its number.
        const QRectF body = writer.pageLayout().paintRectPixels(writer.resolution());
        const QFont numberFont = reportFont(8);
        const double footer = 2 * QFontMetricsF(numberFont, &writer).lineSpacing();
        doc.documentLayout()->setPaintDevice(&writer);
        doc.setPageSize(QSizeF(body.width(), body.height() - footer));
        keepHeadingsWithNext(doc);

        const double pageHeight = doc.pageSize().height();
        QPainter painter(&writer);
        const int pages = doc.pageCount();
        for (int i = 0; i < pages; ++i) {
            if (i > 0)
                writer.newPage();
            painter.save();
            const QRectF view(0, i * pageHeight, body.width(), pageHeight);
            painter.translate(0, -view.top());
            painter.setClipRect(view);
            QAbstractTextDocumentLayout::PaintContext context;
            context.clip = view;
            context.palette.setColor(QPalette::Text, Qt::black); // never the dark theme's white
            doc.documentLayout()->draw(&painter, context);
            painter.restore();
            painter.setFont(numberFont);
            painter.setPen(Qt::black);
            painter.drawText(QRectF(0, body.height() - footer, body.width(), footer), Qt::AlignCenter,
                             QString::number(i + 1));
        }
        painter.end();
        doc.documentLayout()->setPaintDevice(nullptr);
    }
    if (out.size() == 0) {
        out.cancelWriting();
        if (error)
            *error = path + ": the PDF writer produced no output";
        return false;
    }
    if (!out.commit()) {
        if (error)
            *error = path + ": " + out.errorString().toStdString();
        return false;
    }
    return true;
}

} // namespace npuscope
