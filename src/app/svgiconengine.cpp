#include "svgiconengine.h"

#include <QFile>
#include <QPainter>
#include <QPainterPath>
#include <QPixmapCache>
#include <QRegularExpression>
#include <QXmlStreamReader>

namespace kiln {

namespace {

struct Style
{
    QString fill = QStringLiteral("none");
    QString stroke = QStringLiteral("currentColor");
    double strokeWidth = 2.0;
};

QList<double> numbers(const QString &text)
{
    static const QRegularExpression number(
        QStringLiteral("[-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?"));
    QList<double> out;
    auto it = number.globalMatch(text);
    while (it.hasNext())
        out << it.next().captured(0).toDouble();
    return out;
}

QPainterPath parsePath(const QString &d)
{
    static const QRegularExpression token(
        QStringLiteral("([MmLlHhVvCcQqZz])|([-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?)"));
    QPainterPath path;
    QChar command;
    QList<double> args;
    QPointF current;
    QPointF start;
    auto flush = [&] {
        const bool rel = command.isLower();
        const QChar c = command.toUpper();
        auto pt = [&](int i) {
            QPointF p(args[i], args[i + 1]);
            return rel ? current + p : p;
        };
        int i = 0;
        auto need = [&](int n) { return i + n <= args.size(); };
        if (c == QLatin1Char('Z')) {
            path.closeSubpath();
            current = start;
            return;
        }
        while (true) {
            if (c == QLatin1Char('M') && need(2)) {
                current = pt(i);
                if (i == 0) {
                    path.moveTo(current);
                    start = current;
                } else {
                    path.lineTo(current);
                }
                i += 2;
            } else if (c == QLatin1Char('L') && need(2)) {
                current = pt(i);
                path.lineTo(current);
                i += 2;
            } else if (c == QLatin1Char('H') && need(1)) {
                current.setX(rel ? current.x() + args[i] : args[i]);
                path.lineTo(current);
                i += 1;
            } else if (c == QLatin1Char('V') && need(1)) {
                current.setY(rel ? current.y() + args[i] : args[i]);
                path.lineTo(current);
                i += 1;
            } else if (c == QLatin1Char('C') && need(6)) {
                const QPointF c1 = pt(i), c2 = pt(i + 2), e = pt(i + 4);
                path.cubicTo(c1, c2, e);
                current = e;
                i += 6;
            } else if (c == QLatin1Char('Q') && need(4)) {
                const QPointF c1 = pt(i), e = pt(i + 2);
                path.quadTo(c1, e);
                current = e;
                i += 4;
            } else {
                break;
            }
        }
    };
    auto it = token.globalMatch(d);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        if (!m.captured(1).isEmpty()) {
            if (!command.isNull())
                flush();
            command = m.captured(1).at(0);
            args.clear();
        } else {
            args << m.captured(2).toDouble();
        }
    }
    if (!command.isNull())
        flush();
    return path;
}

QColor resolve(const QString &value, const QColor &current)
{
    if (value == QStringLiteral("currentColor"))
        return current;
    return QColor(value);
}

// Draws the SVG into painter, mapped into target; returns the number of shapes drawn.
int render(const QByteArray &svg, QPainter *painter, const QRectF &target, const QColor &current)
{
    QXmlStreamReader xml(svg);
    QRectF viewBox(0, 0, 24, 24);
    QList<Style> styles{Style()};
    int shapes = 0;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isEndElement()) {
            const QStringView name = xml.name();
            if ((name == QLatin1String("g") || name == QLatin1String("svg")) && styles.size() > 1)
                styles.removeLast();
            continue;
        }
        if (!xml.isStartElement())
            continue;
        const QXmlStreamAttributes a = xml.attributes();
        Style style = styles.last();
        if (a.hasAttribute(QStringLiteral("fill")))
            style.fill = a.value(QStringLiteral("fill")).toString();
        if (a.hasAttribute(QStringLiteral("stroke")))
            style.stroke = a.value(QStringLiteral("stroke")).toString();
        if (a.hasAttribute(QStringLiteral("stroke-width")))
            style.strokeWidth = a.value(QStringLiteral("stroke-width")).toDouble();
        const QStringView name = xml.name();
        if (name == QLatin1String("svg") || name == QLatin1String("g")) {
            if (name == QLatin1String("svg") && a.hasAttribute(QStringLiteral("viewBox"))) {
                const QList<double> v = numbers(a.value(QStringLiteral("viewBox")).toString());
                if (v.size() == 4)
                    viewBox = QRectF(v[0], v[1], v[2], v[3]);
            }
            styles.append(style);
            continue;
        }
        QPainterPath path;
        auto num = [&](const char *key) { return a.value(QLatin1String(key)).toDouble(); };
        if (name == QLatin1String("path")) {
            path = parsePath(a.value(QStringLiteral("d")).toString());
        } else if (name == QLatin1String("circle")) {
            path.addEllipse(QPointF(num("cx"), num("cy")), num("r"), num("r"));
        } else if (name == QLatin1String("rect")) {
            const double rx = num("rx");
            path.addRoundedRect(QRectF(num("x"), num("y"), num("width"), num("height")), rx, rx);
        } else if (name == QLatin1String("line")) {
            path.moveTo(num("x1"), num("y1"));
            path.lineTo(num("x2"), num("y2"));
        } else if (name == QLatin1String("polyline") || name == QLatin1String("polygon")) {
            const QList<double> v = numbers(a.value(QStringLiteral("points")).toString());
            for (int i = 0; i + 1 < v.size(); i += 2) {
                if (i == 0)
                    path.moveTo(v[i], v[i + 1]);
                else
                    path.lineTo(v[i], v[i + 1]);
            }
            if (name == QLatin1String("polygon"))
                path.closeSubpath();
        } else {
            continue;
        }
        if (!painter) {
            ++shapes;
            continue;
        }
        painter->save();
        painter->translate(target.topLeft());
        painter->scale(target.width() / viewBox.width(), target.height() / viewBox.height());
        painter->translate(-viewBox.topLeft());
        painter->setBrush(style.fill == QStringLiteral("none")
                              ? QBrush(Qt::NoBrush)
                              : QBrush(resolve(style.fill, current)));
        if (style.stroke == QStringLiteral("none"))
            painter->setPen(Qt::NoPen);
        else
            painter->setPen(QPen(resolve(style.stroke, current), style.strokeWidth, Qt::SolidLine,
                                 Qt::RoundCap, Qt::RoundJoin));
        painter->drawPath(path);
        painter->restore();
        ++shapes;
    }
    return shapes;
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
    return render(svg, nullptr, QRectF(), QColor()) > 0;
}

void SvgIconEngine::paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State)
{
    QColor color(0x3b, 0x44, 0x50);
    if (mode == QIcon::Disabled)
        color = QColor(0xb0, 0xb6, 0xbe);
    else if (mode == QIcon::Selected)
        color = Qt::white;
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    render(m_svg, painter, rect, color);
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
