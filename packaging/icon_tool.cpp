// Renders the application icon (the same shapes as npuscope.svg) to PNG at a given size, so the
// package ships crisp PNGs without an SVG rasteriser at build time.
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QPainterPath>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: npuscope_icon SIZE OUT.png\n");
        return 2;
    }
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    const int size = std::atoi(argv[1]);
    QImage img(size, size, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::transparent);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    p.scale(size / 256.0, size / 256.0);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0x1f, 0x2a, 0x44));
    p.drawRoundedRect(QRectF(8, 8, 240, 240), 40, 40);
    struct Bar { double x, y, w; unsigned rgb; };
    const Bar bars[] = {{36, 52, 84, 0x4e79a7}, {128, 52, 44, 0xf28e2b}, {180, 52, 40, 0x4e79a7},
                        {60, 92, 64, 0x59a14f}, {132, 92, 88, 0xe15759}, {36, 132, 120, 0x76b7b2},
                        {164, 132, 32, 0xedc948}};
    for (const Bar& b : bars) {
        p.setBrush(QColor::fromRgb(b.rgb));
        p.drawRoundedRect(QRectF(b.x, b.y, b.w, 26), 5, 5);
    }
    QPen pen(Qt::white, 10, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    const QPointF pts[] = {{36, 214}, {76, 184}, {108, 200}, {148, 168}, {188, 190}, {220, 172}};
    p.drawPolyline(pts, 6);
    p.end();
    return img.save(QString::fromLocal8Bit(argv[2])) ? 0 : 1;
}
