#pragma once
// QCustomPlot paints with colours of its own (a white background, black axes and legends);
// these give a plot its widget palette's colours instead, so plots match the light and dark
// themes like every other widget.
class QCPAbstractItem;
class QCustomPlot;

namespace npuscope {

// Colours the plot's background, axes, grids, legends, text elements and text-coloured items
// from its palette. Call again after adding axis rects, legends or text elements.
void applyPlotPalette(QCustomPlot* plot);
// Draws a straight line or text item (markers, annotations) in the palette's text colour, now and after
// each applyPlotPalette(); a line keeps its width and style.
void useTextColour(QCPAbstractItem* item);
// applyPlotPalette() now and whenever the plot's palette changes (a theme switch), then replots.
void followPalette(QCustomPlot* plot);

} // namespace npuscope
