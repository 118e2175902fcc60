#pragma once
// QCustomPlot paints with colours of its own (a white background, black axes and legends);
// these give a plot its widget palette's colours instead, so plots match the light and dark
// themes like every other widget.
class QCustomPlot;

namespace npuscope {

// Colours the plot's background, axes, grids, legends and text elements from its palette.
// Call again after adding axis rects, legends or text elements.
void applyPlotPalette(QCustomPlot* plot);
// applyPlotPalette() now and whenever the plot's palette changes (a theme switch), then replots.
void followPalette(QCustomPlot* plot);

} // namespace npuscope
