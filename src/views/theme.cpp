#include "views/theme.h"

#include <QApplication>
#include <QLabel>
#include <QStyle>
#include <QStyleFactory>

namespace npuscope {

namespace {

struct Platform {
    QString style;
    QPalette palette;
};

const Platform& platform()
{
    static const Platform p{QApplication::style() ? QApplication::style()->name() : QString(), QApplication::palette()};
    return p;
}

void setStyle(const QString& name)
{
    if (!name.isEmpty() && QApplication::style() && QApplication::style()->name().compare(name, Qt::CaseInsensitive) == 0)
        return;
    if (QStyle* s = QStyleFactory::create(name.isEmpty() ? QStringLiteral("Fusion") : name))
        QApplication::setStyle(s);
}

// Rich text takes its link colour from the palette when it is parsed, so a link set under the
// light theme would stay dark blue on the dark theme's grey: labels with links parse again.
void reparseLinks()
{
    for (QWidget* w : QApplication::allWidgets())
        if (auto* label = qobject_cast<QLabel*>(w))
            if (label->text().contains(QLatin1String("<a ")) && label->textFormat() != Qt::PlainText) {
                const QString text = label->text();
                label->clear();
                label->setText(text);
            }
}

} // namespace

QPalette lightPalette()
{
    // Fusion's own palette, which is light and does not follow the desktop.
    QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion"));
    QPalette p = fusion ? fusion->standardPalette() : QPalette(QColor(239, 239, 239));
    delete fusion;
    return p;
}

QPalette darkPalette()
{
    const QColor window(45, 45, 48), base(30, 30, 32), alternate(40, 40, 43), text(230, 230, 230),
        disabledText(128, 128, 128), button(53, 53, 56), highlight(42, 130, 218), link(100, 170, 255);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, alternate);
    p.setColor(QPalette::ToolTipBase, QColor(60, 60, 64));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabledText);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, link);
    p.setColor(QPalette::LinkVisited, link.darker(120));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Light, QColor(75, 75, 78));
    p.setColor(QPalette::Midlight, QColor(62, 62, 66));
    p.setColor(QPalette::Mid, QColor(40, 40, 42));
    p.setColor(QPalette::Dark, QColor(25, 25, 27));
    p.setColor(QPalette::Shadow, QColor(10, 10, 10));
    for (QPalette::ColorRole r : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, r, disabledText);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(80, 80, 80));
    p.setColor(QPalette::Disabled, QPalette::HighlightedText, disabledText);
    return p;
}

void applyTheme(Theme t)
{
    const Platform& plat = platform(); // remember the platform look before the first change
    switch (t) {
    case Theme::System:
        setStyle(plat.style);
        QApplication::setPalette(plat.palette);
        break;
    case Theme::Light:
        setStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(lightPalette());
        break;
    case Theme::Dark:
        setStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(darkPalette());
        break;
    }
    reparseLinks();
}

} // namespace npuscope
