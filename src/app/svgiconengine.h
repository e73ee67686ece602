#pragma once

#include <QByteArray>
#include <QIcon>
#include <QIconEngine>

namespace kiln {

// Renders the workbench's own SVG icons (resources/icons/*.svg) without the Qt SVG module, which
// the target distributions do not always ship: it understands the small subset those files use
// (path with M/L/H/V/C/Q/Z, circle, rect, line, polyline, polygon; fill, stroke, stroke-width,
// "currentColor"), so icons stay sharp at every size and follow the palette.
class SvgIconEngine : public QIconEngine
{
public:
    explicit SvgIconEngine(const QByteArray &svg);

    // The icon named name from :/icons/<name>.svg; a null icon when absent.
    static QIcon icon(const QString &name);
    // Whether the text parses into at least one shape (tests).
    static bool canRender(const QByteArray &svg);

    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State state) override;
    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state) override;
    QIconEngine *clone() const override;

private:
    QByteArray m_svg;
};

} // namespace kiln
