#pragma once
// What needs Qt, apart from the window (gui_main.h): the reports drawn with QPainter.
//
// `npuscope` links no Qt: its verbs start in a few milliseconds instead of the ~40 that mapping
// Qt's libraries and theirs takes. `npuscope-gui` is the same program with Qt, built beside it
// from the same sources plus app/gui/. A command line that needs Qt (no verb: the window; a PDF;
// the HTML comparison with its chart) is handed over to it whole, before
// anything is read or written (app/handoff/qt_handoff.cpp).
#include <string>

namespace npuscope {
struct CompareResult;
namespace advisor {
struct AdvisorReport;
}
} // namespace npuscope

namespace npuscope::cli {

// The command line a hand-over repeats; main() sets it first (cli_common.cpp).
void setCommandLine(char** argv);
char** commandLine();
// In `npuscope`: replaces this process with `npuscope-gui` (beside this binary) on the same
// command line, and does not return (exit code 1 with a message when it cannot). In
// `npuscope-gui`: does nothing. A verb calls it once its options say Qt is needed, before it
// reads or writes anything.
void needQt();

// A PDF of the advisor's report at `output`; the exit code (app/gui/drawn_reports.cpp).
int writeAdvicePdf(const advisor::AdvisorReport& report, const std::string& output);
// The comparison as HTML (with its chart) or PDF at `output` (stdout for HTML when empty or
// "-"); the exit code.
int writeDrawnComparison(const CompareResult& r, const std::string& baseline, const std::string& optimized,
                         const std::string& format, const std::string& output);

} // namespace npuscope::cli
