#pragma once
// PDF export of an advisor report: the HTML report content laid out by QTextDocument and
// written by QPdfWriter (no browser engine), with a title page, page numbers and the two charts
// drawn with QPainter. Needs a QGuiApplication (the CLI creates one on the offscreen platform).
#include "advisor/advisor.h"

#include <QImage>

#include <string>

namespace npuscope {

bool writeReportPdf(const advisor::AdvisorReport& report, const std::string& path, std::string* error = nullptr);

// The charts, also used by the GUI's advisor panel. Width in pixels.
QImage renderSplitChart(const advisor::AdvisorReport& report, int width = 900);
QImage renderGainChart(const advisor::AdvisorReport& report, int width = 900);
// The first rank's roofline: log-log, its roofs and a point per op shape sized by its time.
QImage renderRooflineChart(const advisor::AdvisorReport& report, int width = 900);

} // namespace npuscope
