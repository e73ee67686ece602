#pragma once

#include <QByteArray>
#include <QIcon>
#include <QIconEngine>

namespace kiln {

// Renders the workbench's own SVG icons (resources/icons/*.svg) through QSvgRenderer, so icons stay
// sharp at every size and follow the palette: "currentColor" in the file becomes the colour of the
// icon's mode before the document is drawn.
class SvgIconEngine : public QIconEngine
{
public:
    explicit SvgIconEngine(const QByteArray &svg);

    // The icon named name from :/icons/<name>.svg; a null icon when absent.
    static QIcon icon(const QString &name);
    // Whether QSvgRenderer loads the text and it draws something (tests).
    static bool canRender(const QByteArray &svg);

    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State state) override;
    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state) override;
    QIconEngine *clone() const override;

private:
    QByteArray m_svg;
};

} // namespace kiln
