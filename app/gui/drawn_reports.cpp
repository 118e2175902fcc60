// The reports drawn with QPainter, for the command line of npuscope-gui (see app/qt_parts.h).
#include "app/cli_table.h"
#include "app/qt_parts.h"

#include "advisor/advisor.h"
#include "model/analysis/compare.h"
#include "views/compare_export.h"
#include "views/report_pdf.h"

#include <QGuiApplication>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace npuscope::cli {

namespace {

// A QGuiApplication for drawing from the command line, on the offscreen platform when there is
// no display; null when the process has one already. Keep it alive while drawing.
std::unique_ptr<QGuiApplication> paintingApp()
{
    if (!std::getenv("QT_QPA_PLATFORM") && !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    if (QGuiApplication::instance())
        return nullptr;
    static int argc = 1;
    static char name[] = "npuscope";
    static char* argv[] = {name, nullptr};
    return std::make_unique<QGuiApplication>(argc, argv);
}

} // namespace

void needQt() {} // this is the program with Qt

int writeAdvicePdf(const advisor::AdvisorReport& report, const std::string& output)
{
    const std::unique_ptr<QGuiApplication> app = paintingApp(); // QTextDocument and QPdfWriter need one
    std::string err;
    if (!writeReportPdf(report, output, &err)) {
        std::fprintf(stderr, "npuscope advise: cannot write %s: %s\n", output.c_str(), err.c_str());
        return 1;
    }
    return 0;
}

int writeDrawnComparison(const CompareResult& r, const std::string& baseline, const std::string& optimized,
                         const std::string& format, const std::string& output)
{
    const std::unique_ptr<QGuiApplication> app = paintingApp(); // the chart is drawn with QPainter
    if (format == "pdf") {
        std::string err;
        if (!writeComparePdf(r, baseline, optimized, output, &err)) {
            std::fprintf(stderr, "npuscope compare: cannot write %s: %s\n", output.c_str(), err.c_str());
            return 1;
        }
        return 0;
    }
    return writeOutput("compare", output, compareHtml(r, baseline, optimized)) ? 0 : 1;
}

} // namespace npuscope::cli
