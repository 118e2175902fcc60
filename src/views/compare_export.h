#pragma once
// The compare report as HTML and PDF: the verdict and headline table, the diff chart (per step,
// baseline over optimized: computing / exposed communication / free, and per operator type the
// change of time per step), the operator mapping and the advisor diff. `npuscope compare
// --format html|pdf` and the Compare tab's Export… write these. The chart is drawn with QPainter,
// so a QGuiApplication must exist (the CLI creates one on the offscreen platform).
#include "model/analysis/compare.h"

#include <QImage>

#include <string>

namespace npuscope {

// The diff chart, `width` pixels wide.
QImage renderCompareChart(const CompareResult& r, int width = 900);
// A standalone HTML page (the chart as an embedded PNG).
std::string compareHtml(const CompareResult& r, const std::string& baselinePath, const std::string& optimizedPath);
// The same content as an A4 PDF, written atomically; on failure false with *error naming the file.
bool writeComparePdf(const CompareResult& r, const std::string& baselinePath, const std::string& optimizedPath,
                     const std::string& path, std::string* error = nullptr);

} // namespace npuscope
