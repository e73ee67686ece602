#include "svgiconengine.h"

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

namespace kiln {

namespace {

// The ink of an icon in each mode; the state (on/off) does not change it.
QColor colorForMode(QIcon::Mode mode)
{
    if (mode == QIcon::Disabled)
        return QColor(0xb0, 0xb6, 0xbe);
    if (mode == QIcon::Selected)
        return Qt::white;
    return QColor(0x3b, 0x44, 0x50);
}

// The icons were drawn for round line ends and corners, which the former hand-written painter
// always used; SVG's initial values are butt caps and miter joins, so the root element gets round
// ones unless it names its own (children still override them as usual).
QByteArray withRoundStrokes(QByteArray svg)
{
    const qsizetype rootStart = svg.indexOf("<svg");
    if (rootStart < 0)
        return svg;
    const qsizetype rootEnd = svg.indexOf('>', rootStart);
    const QByteArray rootTag = svg.mid(rootStart, rootEnd < 0 ? -1 : rootEnd - rootStart);
    QByteArray defaults;
    if (!rootTag.contains("stroke-linecap"))
        defaults += " stroke-linecap=\"round\"";
    if (!rootTag.contains("stroke-linejoin"))
        defaults += " stroke-linejoin=\"round\"";
    svg.insert(rootStart + qsizetype(qstrlen("<svg")), defaults);
    return svg;
}

// The document as QSvgRenderer should read it: currentColor resolved to color, round strokes.
QByteArray prepared(const QByteArray &svg, const QColor &color)
{
    QByteArray out = withRoundStrokes(svg);
    out.replace("currentColor", color.name().toLatin1());
    return out;
}

} // namespace

SvgIconEngine::SvgIconEngine(const QByteArray &svg) : m_svg(svg) {}

QIcon SvgIconEngine::icon(const QString &name)
{
    QFile file(QStringLiteral(":/icons/%1.svg").arg(name));
    if (!file.open(QIODevice::ReadOnly))
        return QIcon();
    return QIcon(new SvgIconEngine(file.readAll()));
}

bool SvgIconEngine::canRender(const QByteArray &svg)
{
    QSvgRenderer renderer(prepared(svg, Qt::black));
    if (!renderer.isValid())
        return false;
    QImage image(32, 32, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    {
        QPainter painter(&image);
        renderer.render(&painter, QRectF(image.rect()));
    }
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if (qAlpha(image.pixel(x, y)) != 0)
                return true;
    return false;
}

void SvgIconEngine::paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State)
{
    QSvgRenderer renderer(prepared(m_svg, colorForMode(mode)));
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    renderer.render(painter, QRectF(rect));
    painter->restore();
}

QPixmap SvgIconEngine::pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state)
{
    QPixmap pixmap(size);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    paint(&painter, QRect(QPoint(0, 0), size), mode, state);
    return pixmap;
}

QIconEngine *SvgIconEngine::clone() const
{
    return new SvgIconEngine(m_svg);
}

} // namespace kiln
