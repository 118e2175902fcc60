// PDF export: written through QTextDocument + QPdfWriter, then read back with pdftotext
// (poppler-utils) to check the title page and that every fired finding is in the document.
#include "../advisor/advisor_fixture.h"
#include "views/report_pdf.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

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

} // namespace

class TestReportPdf : public QObject {
    Q_OBJECT

private slots:
    void writesReadablePdf()
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
        Session s = fixture::session({a.p, b.p});
        s.root = "/data/profiles/llama_run_20260101";
        const AdvisorReport r = runAdvisor(s, fixture::defaults());
        QVERIFY(r.summary.fired >= 4);

        QTemporaryDir dir;
        const QString pdf = dir.filePath(QStringLiteral("report.pdf"));
        std::string err;
        QVERIFY2(writeReportPdf(r, pdf.toStdString(), &err), err.c_str());
        QVERIFY(QFileInfo(pdf).size() > 1000);

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

        // A page image for inspection (kept when NPUSCOPE_KEEP_PDF is set).
        if (qEnvironmentVariableIsSet("NPUSCOPE_KEEP_PDF")) {
            const QString keep = qEnvironmentVariable("NPUSCOPE_KEEP_PDF");
            QFile::remove(keep);
            QFile::copy(pdf, keep);
        }
    }
};

QTEST_MAIN(TestReportPdf)
#include "test_report_pdf.moc"
