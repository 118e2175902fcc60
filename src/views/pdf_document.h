#pragma once
// One way to print a report to PDF: a QTextDocument on A4 pages with page numbers at the foot,
// headings kept with what follows them (a heading never ends a page), written atomically (a
// failed or interrupted export leaves neither a partial file nor a replaced good one). The
// advisor report and the compare report use it.
#include <QFont>
#include <QString>

#include <string>

class QTextDocument;

namespace npuscope {

struct PdfPageSetup {
    QString title;
    QString creator;
    double marginMm = 15;
};

// The report font: DejaVu Sans with a CJK-capable fallback when one is installed, so operator
// names and paths in Chinese render.
QFont reportFont(int pointSize);

// Lays `doc` out on the pages of `setup` and writes it to `path`. On failure, `*error` names the
// path and the reason.
bool writeDocumentPdf(QTextDocument& doc, const std::string& path, const PdfPageSetup& setup,
                      std::string* error = nullptr);

// Moves every heading (h1-h6) whose following lines would start on the next page to that page,
// in a document already given its page size. Returns how many headings moved.
int keepHeadingsWithNext(QTextDocument& doc);

} // namespace npuscope
