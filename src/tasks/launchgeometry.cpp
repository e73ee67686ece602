#include "tasks/launchgeometry.h"

#include <QRegularExpression>
#include <cmath>

namespace kiln {

namespace {

// "a, (b + 1) / 2" -> the top-level comma-separated parts.
QStringList splitTopLevel(const QString &text)
{
    QStringList parts;
    int depth = 0;
    QString current;
    for (const QChar c : text) {
        if (c == QLatin1Char('('))
            ++depth;
        else if (c == QLatin1Char(')'))
            --depth;
        if (c == QLatin1Char(',') && depth == 0) {
            parts << current.trimmed();
            current.clear();
        } else {
            current += c;
        }
    }
    parts << current.trimmed();
    return parts;
}

} // namespace

std::optional<LaunchGeometry> LaunchGeometry::parse(const QString &source, QString *error)
{
    static const QRegularExpression marker(QStringLiteral("//\\s*kiln-launch:(.*)$"),
                                           QRegularExpression::MultilineOption);
    error->clear();
    const QRegularExpressionMatch match = marker.match(source);
    if (!match.hasMatch())
        return std::nullopt;
    LaunchGeometry geometry;
    geometry.m_line = int(source.left(match.capturedStart()).count(QLatin1Char('\n'))) + 1;
    const QString text = match.captured(1);
    auto fail = [&](const QString &why) -> std::optional<LaunchGeometry> {
        *error = QStringLiteral("line %1: kiln-launch: %2").arg(geometry.m_line).arg(why);
        return std::nullopt;
    };
    // key=(list) or key=expr, for grid, block and shared; parentheses may nest. Anything else
    // on the line is an error: "shared=4 * 33" must not launch with 4 bytes.
    bool sawGrid = false, sawBlock = false;
    static const QRegularExpression key(QStringLiteral("(grid|block|shared)\\s*=\\s*"));
    qsizetype at = 0;
    while (true) {
        while (at < text.size() && text[at].isSpace())
            ++at;
        if (at == text.size())
            break;
        const QRegularExpressionMatch m = key.match(text, at, QRegularExpression::NormalMatch,
                                                    QRegularExpression::AnchorAtOffsetMatchOption);
        if (!m.hasMatch())
            return fail(QStringLiteral("unexpected \"%1\" (write grid=(...) block=(...) "
                                       "shared=(...))")
                            .arg(text.mid(at).trimmed()));
        qsizetype end = m.capturedEnd();
        QString value;
        if (end < text.size() && text[end] == QLatin1Char('(')) {
            int depth = 0;
            qsizetype i = end;
            for (; i < text.size(); ++i) {
                depth += text[i] == QLatin1Char('(') ? 1 : text[i] == QLatin1Char(')') ? -1 : 0;
                if (depth == 0)
                    break;
            }
            if (depth != 0)
                return fail(QStringLiteral("unbalanced parentheses"));
            value = text.mid(end + 1, i - end - 1);
            end = i + 1;
        } else {
            qsizetype i = end;
            while (i < text.size() && !text[i].isSpace())
                ++i;
            value = text.mid(end, i - end);
            end = i;
        }
        at = end;
        const QString name = m.captured(1);
        if (name == QLatin1String("shared")) {
            geometry.m_shared = SizeExpression(value);
            if (!geometry.m_shared.isValid())
                return fail(QStringLiteral("shared: ") + geometry.m_shared.error());
            continue;
        }
        const QStringList parts = splitTopLevel(value);
        if (parts.isEmpty() || parts.size() > 3)
            return fail(name + QStringLiteral(" needs one to three dimensions"));
        QList<SizeExpression> &target =
            name == QLatin1String("grid") ? geometry.m_grid : geometry.m_block;
        target.clear();
        for (const QString &part : parts) {
            SizeExpression expression(part);
            if (!expression.isValid())
                return fail(name + QStringLiteral(": ") + expression.error());
            target.append(expression);
        }
        (name == QLatin1String("grid") ? sawGrid : sawBlock) = true;
    }
    if (!sawGrid || !sawBlock)
        return fail(QStringLiteral("needs grid=(...) and block=(...)"));
    return geometry;
}

std::optional<LaunchGeometry::Dims> LaunchGeometry::evaluate(const ShapeConfig &shape,
                                                             QString *error) const
{
    Dims dims;
    auto value = [&](const SizeExpression &expression, qint64 &out, bool allowZero) {
        QString why;
        const std::optional<double> v = expression.evaluate(shape.sizes, &why);
        if (!v || !std::isfinite(*v) || *v < (allowZero ? 0.0 : 1.0) || *v > 2147483647.0) {
            *error = QStringLiteral("kiln-launch: \"%1\" is %2 for this shape")
                         .arg(expression.text(),
                              v ? QString::number(*v) : QStringLiteral("undefined (%1)").arg(why));
            return false;
        }
        out = qint64(std::floor(*v));
        return true;
    };
    for (int i = 0; i < m_grid.size(); ++i)
        if (!value(m_grid[i], dims.grid[i], false))
            return std::nullopt;
    for (int i = 0; i < m_block.size(); ++i)
        if (!value(m_block[i], dims.block[i], false))
            return std::nullopt;
    if (!value(m_shared, dims.sharedBytes, true))
        return std::nullopt;
    return dims;
}

QStringList LaunchGeometry::texts(const QList<SizeExpression> &expressions)
{
    QStringList out;
    for (const SizeExpression &expression : expressions)
        out.append(expression.text());
    return out;
}

QByteArray LaunchGeometry::signatureCode(const Task &task)
{
    QByteArray code;
    for (const TaskParameter &parameter : task.parameters) {
        if (parameter.role != TaskParameter::Role::Scalar)
            code += 'P';
        else
            code += parameter.dtype == QLatin1String("i32") ? 'I' : 'F';
    }
    return code;
}

} // namespace kiln
