// PDF export: written through QTextDocument + QPdfWriter, then read back with pdftotext
// (poppler-utils) to check the title page and that every fired finding is in the document.
#include "test_main.h"
#include "../advisor/advisor_fixture.h"
#include "views/pdf_document.h"
#include "views/report_pdf.h"

#include <QAbstractTextDocumentLayout>
#include <QPdfWriter>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

namespace test_report_pdf {

using namespace npuscope;
using namespace npuscope::advisor;
using fixture::Builder;

namespace {

QString normalised(QString s)
{
    s.replace(QRegularExpression(QStringLiteral("\\s+")), QStringLiteral(" "));
    // pdftotext writes the fonts' ligatures as single characters ("proﬁles").
    s.replace(QChar(0xFB01), QStringLiteral("fi"));
    s.replace(QChar(0xFB02), QStringLiteral("fl"));
    return s;
}

QString pdfText(const QString& pdf)
{
    QProcess p;
    p.start(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), pdf, QStringLiteral("-")});
    if (!p.waitForFinished(20000))
        return {};
    return QString::fromUtf8(p.readAllStandardOutput());
}

// A page's text without its number at the foot.
QString pageBody(const QString& page)
{
    QString s = normalised(page).trimmed();
    s.remove(QRegularExpression(QStringLiteral("\\s*\\d+$")));
    return s;
}

// Two ranks with an AI CPU op and 14 memory-bound MatMuls each: several findings, with evidence.
Session twoRanks()
{
    Builder a(0), b(1);
    for (Builder* x : {&a, &b}) {
        x->step(x == &a ? 80 : 88, x == &a ? 5 : 1, 15);
        x->kernel("NonZero", "NonZero", "AI_CPU", 0, 4000, 2, "8,8", "INT64");
        for (int i = 0; i < 14; ++i) {
            const auto r = x->kernel("MatMulV2", "MatMulV2", "AI_CORE", 5000 + 1000.0 * i, 1000, 2, "1024,1024", "FLOAT16");
            x->set(r, "aic_mac_ratio", 0.3);
            x->set(r, "aic_mte2_ratio", 0.9);
        }
    }
    return fixture::session({a.p, b.p});
}

} // namespace

class TestReportPdf : public QObject {
    Q_OBJECT

private slots:
    void writesReadablePdf()
    {
        Session s = twoRanks();
        s.root = "/data/profiles/llama_run_20260101";
        const AdvisorReport r = runAdvisor(s, fixture::defaults());
        QVERIFY(r.summary.fired >= 4);

        QTemporaryDir dir;
        const QString pdf = dir.filePath(QStringLiteral("report.pdf"));
        std::string err;
        QVERIFY2(writeReportPdf(r, pdf.toStdString(), &err), err.c_str());
        QVERIFY(QFileInfo(pdf).size() > 1000);
        // Kept for inspection when NPUSCOPE_KEEP_PDF names a file.
        if (qEnvironmentVariableIsSet("NPUSCOPE_KEEP_PDF")) {
            const QString keep = qEnvironmentVariable("NPUSCOPE_KEEP_PDF");
            QFile::remove(keep);
            QFile::copy(pdf, keep);
        }

        QProcess p;
        p.start(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), pdf, QStringLiteral("-")});
        QVERIFY(p.waitForFinished(20000));
        const QString text = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(!text.isEmpty(), "pdftotext produced no text");
        const QString flat = normalised(text);
        // Title page (page 1) names the profile and its path.
        const QString page1 = normalised(text.section(QChar(u'\f'), 0, 0));
        QVERIFY(page1.contains(QStringLiteral("npuscope advisor report")));
        QVERIFY(page1.contains(QStringLiteral("llama_run_20260101")));
        QVERIFY(page1.contains(QStringLiteral("/data/profiles/llama_run_20260101")));
        QVERIFY(page1.contains(QStringLiteral("Threshold overrides: none")));
        for (const Finding* f : r.fired())
            QVERIFY2(flat.contains(normalised(QString::fromStdString(f->title))), f->title.c_str());
        // Evidence is cut to evidence_rows_pdf (10) rows: 28 MatMul rows merged over two ranks.
        QVERIFY(flat.contains(QStringLiteral("+18 more")));
        QVERIFY(flat.contains(QStringLiteral("HIGH")));
        // Page numbers at the bottom of the pages.
        QVERIFY(text.count(QChar(u'\f')) >= 2);
        // Page 1 is not a title page left mostly blank: the plan and the summary follow the
        // identity there, and it holds about as many lines as the fullest page after it.
        QVERIFY2(page1.contains(QStringLiteral("Action plan")), qPrintable(page1));
        QVERIFY(page1.contains(QStringLiteral("Summary")));
        const QStringList pages = text.split(QChar(u'\f'), Qt::SkipEmptyParts);
        auto lines = [](const QString& page) {
            int n = 0;
            for (const QString& l : page.split(QLatin1Char('\n')))
                n += !l.trimmed().isEmpty();
            return n;
        };
        int fullest = 0;
        for (int i = 1; i + 1 < pages.size(); ++i) // the last page may end anywhere
            fullest = std::max(fullest, lines(pages[i]));
        QVERIFY2(lines(pages[0]) * 10 >= fullest * 7,
                 qPrintable(QStringLiteral("page 1: %1 lines, fullest later page %2").arg(lines(pages[0])).arg(fullest)));

    }

    // Layout level: whatever precedes them, headings end up on the page of the lines that follow
    // them. Each document shifts the headings by one more line of filler.
    void headingsStayWithTheirText()
    {
        int movedTotal = 0;
        for (int filler = 0; filler < 24; ++filler) {
            QString html = QStringLiteral("<html><body>");
            for (int i = 0; i < filler; ++i)
                html += QStringLiteral("<p>filler %1</p>").arg(i);
            for (int f = 0; f < 12; ++f)
                html += QStringLiteral("<h3>Finding %1</h3><p>%2</p>")
                            .arg(f)
                            .arg(QStringLiteral("a line of the finding's description, long enough to wrap. ").repeated(4));
            html += QStringLiteral("</body></html>");
            QTextDocument doc;
            doc.setDefaultFont(reportFont(9));
            doc.setHtml(html);
            doc.setPageSize(QSizeF(400, 300));
            movedTotal += keepHeadingsWithNext(doc);
            const double pageHeight = doc.pageSize().height();
            auto pageOf = [pageHeight](double y) { return static_cast<int>(std::floor(y / pageHeight)); };
            for (QTextBlock b = doc.begin(); b.isValid(); b = b.next()) {
                if (b.blockFormat().headingLevel() == 0 || !b.next().isValid())
                    continue;
                const QRectF h = doc.documentLayout()->blockBoundingRect(b);
                const QTextBlock text = b.next();
                const QRectF t = doc.documentLayout()->blockBoundingRect(text);
                const double firstLineBottom = t.top() + text.layout()->lineAt(0).rect().bottom();
                QVERIFY2(pageOf(h.top()) == pageOf(firstLineBottom - 0.5),
                         qPrintable(QStringLiteral("filler %1: '%2' at %3, its text at %4")
                                        .arg(filler)
                                        .arg(b.text())
                                        .arg(h.top())
                                        .arg(firstLineBottom)));
            }
        }
        QVERIFY(movedTotal > 0); // the case arises, and was handled
    }

    // PDF level: no page of the advisor report ends with a finding's or a section's title, for
    // reports whose evidence tables shift the titles by a row at a time.
    void noTitleEndsAPage()
    {
        Session s = twoRanks();
        AdvisorReport r = runAdvisor(s, fixture::defaults());
        QStringList titles;
        for (const Finding* f : r.fired())
            titles << normalised(QString::fromStdString(f->title)).trimmed();
        for (const char* section : {"Computation", "Communication", "Scheduling (host)", "Memory", "Cluster", "Not checked",
                                    "Passed", "Disabled and errors", "Appendix", "Summary"})
            titles << QString::fromLatin1(section);
        QTemporaryDir dir;
        int pagesSeen = 0;
        for (int rows = 1; rows <= 14; ++rows) {
            r.evidenceRowsPdf = rows;
            const QString pdf = dir.filePath(QStringLiteral("report-%1.pdf").arg(rows));
            std::string err;
            QVERIFY2(writeReportPdf(r, pdf.toStdString(), &err), err.c_str());
            const QStringList pages = pdfText(pdf).split(QChar(u'\f'), Qt::SkipEmptyParts);
            QVERIFY(pages.size() >= 3);
            for (int p = 0; p + 1 < pages.size(); ++p) {
                const QString body = pageBody(pages[p]);
                if (body.isEmpty())
                    continue;
                ++pagesSeen;
                for (const QString& t : titles)
                    QVERIFY2(!body.endsWith(t), qPrintable(QStringLiteral("%1 evidence rows: page %2 ends with '%3'")
                                                               .arg(rows)
                                                               .arg(p + 1)
                                                               .arg(t)));
            }
        }
        QVERIFY(pagesSeen >= 28);
    }
};

NPUSCOPE_TEST_MAIN(TestReportPdf)

} // namespace test_report_pdf

#include "test_report_pdf.moc"
