#include "views/plot_palette.h"

#include <qcustomplot.h>

namespace npuscope {

namespace {

void colourAxis(QCPAxis* axis, const QColor& text, const QColor& grid)
{
    const QPen pen(text, 0);
    axis->setBasePen(pen);
    axis->setTickPen(pen);
    axis->setSubTickPen(pen);
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
    axis->grid()->setSubGridPen(QPen(grid, 0, Qt::DotLine));
    axis->grid()->setZeroLinePen(QPen(grid, 0));
}

constexpr char kTextColoured[] = "npuscopeTextColoured";

void colourItem(QCPAbstractItem* item, const QColor& text)
{
    if (auto* line = qobject_cast<QCPItemStraightLine*>(item)) {
        QPen pen = line->pen();
        pen.setColor(text);
        line->setPen(pen);
    } else if (auto* label = qobject_cast<QCPItemText*>(item)) {
        label->setColor(text);
    }
}

// Re-applies the colours when the palette changes.
class PaletteFollower : public QObject {
public:
    explicit PaletteFollower(QCustomPlot* plot) : QObject(plot), m_plot(plot) { plot->installEventFilter(this); }

protected:
    bool eventFilter(QObject* watched, QEvent* e) override
    {
        if (watched == m_plot && e->type() == QEvent::PaletteChange) {
            applyPlotPalette(m_plot);
            m_plot->replot(QCustomPlot::rpQueuedReplot);
        }
        return false;
    }

private:
    QCustomPlot* m_plot;
};

} // namespace

void applyPlotPalette(QCustomPlot* plot)
{
    const QPalette& pal = plot->palette();
    const QColor text = pal.color(QPalette::Text), grid = pal.color(QPalette::Mid);
    plot->setBackground(pal.brush(QPalette::Base));
    for (QCPAxisRect* rect : plot->axisRects())
        for (QCPAxis* axis : rect->axes())
            colourAxis(axis, text, grid);
    for (QCPLayoutElement* el : plot->plotLayout()->elements(true)) {
        if (auto* legend = qobject_cast<QCPLegend*>(el)) {
            legend->setBrush(pal.brush(QPalette::Base));
            legend->setBorderPen(QPen(grid, 0));
            legend->setTextColor(text); // for items added later
            for (int i = 0; i < legend->itemCount(); ++i)
                legend->item(i)->setTextColor(text);
        } else if (auto* title = qobject_cast<QCPTextElement*>(el)) {
            title->setTextColor(text);
        } else if (auto* scale = qobject_cast<QCPColorScale*>(el)) {
            colourAxis(scale->axis(), text, grid);
        }
    }
    for (int i = 0; i < plot->itemCount(); ++i)
        if (plot->item(i)->property(kTextColoured).toBool())
            colourItem(plot->item(i), text);
}

void useTextColour(QCPAbstractItem* item)
{
    item->setProperty(kTextColoured, true);
    colourItem(item, item->parentPlot()->palette().color(QPalette::Text));
}

void followPalette(QCustomPlot* plot)
{
    applyPlotPalette(plot);
    new PaletteFollower(plot);
}

} // namespace npuscope
