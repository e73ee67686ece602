#include "policies/offline/hostlaunchwriter.h"

#include "tasks/launchgeometry.h"
#include "tasks/sizeexpression.h"

#include <QRegularExpression>

#include <cmath>

namespace kiln {

QString HostLaunchWriter::inCpp(const QString &expression)
{
    const SizeExpression parsed(expression);
    // A constant as its value; without a division, C++'s integer arithmetic is the same.
    if (parsed.identifiers().isEmpty())
        if (const std::optional<double> value = parsed.evaluate({}))
            return QString::number(qint64(std::floor(*value)));
    if (!expression.contains(QLatin1Char('/')))
        return expression;
    static const QRegularExpression token(
        QStringLiteral("[A-Za-z_][A-Za-z_0-9]*|[0-9.]+(e-?[0-9]+)?"));
    QString out;
    qsizetype at = 0;
    for (auto it = token.globalMatch(expression); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += expression.mid(at, m.capturedStart() - at);
        const QString word = m.captured();
        if (!word.front().isDigit() && word.front() != QLatin1Char('.'))
            out += QStringLiteral("double(%1)").arg(word);
        else
            out += word.contains(QLatin1Char('.')) || word.contains(QLatin1Char('e'))
                       ? word
                       : word + QStringLiteral(".0");
        at = m.capturedEnd();
    }
    return QStringLiteral("static_cast<unsigned>(%1)").arg(out + expression.mid(at));
}

bool HostLaunchWriter::addHostEntry(QString *source, const Task &task)
{
    QString error;
    const std::optional<LaunchGeometry> geometry = LaunchGeometry::parse(*source, &error);
    if (!geometry)
        return false;
    const QRegularExpression head(
        QStringLiteral("extern\\s+\"C\"\\s+__global__\\s+void\\s+((__launch_bounds__\\s*\\([^)]*\\)"
                       ")?\\s*)\\b%1\\s*\\(")
            .arg(QRegularExpression::escape(task.entry)));
    const QRegularExpressionMatch entry = head.match(*source);
    if (!entry.hasMatch())
        return false;
    QStringList names, declarations;
    for (const TaskParameter &parameter : task.parameters) {
        names.append(parameter.name);
        declarations.append(parameter.declaration());
    }
    const QStringList expressions = geometry->gridTexts() + geometry->blockTexts()
                                    << geometry->sharedText();
    for (const QString &expression : expressions)
        for (const QString &size : SizeExpression(expression).identifiers())
            if (!names.contains(size))
                return false;
    QString kernel = task.entry + QStringLiteral("_kernel");
    while (source->contains(kernel))
        kernel += QLatin1Char('_');
    source->replace(entry.capturedStart(), entry.capturedLength(),
                    QStringLiteral("__global__ void ") + entry.captured(1) + kernel +
                        QLatin1Char('('));
    static const QRegularExpression launchLine(QStringLiteral("^[ \\t]*//\\s*kiln-launch:.*\\n?"),
                                               QRegularExpression::MultilineOption);
    source->remove(launchLine);
    source->prepend(QStringLiteral("#include <cuda_runtime.h>\n"));
    QStringList grid, block;
    for (const QString &expression : geometry->gridTexts())
        grid.append(inCpp(expression));
    for (const QString &expression : geometry->blockTexts())
        block.append(inCpp(expression));
    if (!source->endsWith(QLatin1Char('\n')))
        source->append(QLatin1Char('\n'));
    source->append(QStringLiteral("\nextern \"C\" void %1(%2, cudaStream_t stream)\n{\n"
                                  "    const dim3 grid(%3);\n    const dim3 block(%4);\n"
                                  "    %5<<<grid, block, %6, stream>>>(%7);\n}\n")
                       .arg(task.entry, declarations.join(QStringLiteral(", ")),
                            grid.join(QStringLiteral(", ")), block.join(QStringLiteral(", ")),
                            kernel, inCpp(geometry->sharedText()),
                            names.join(QStringLiteral(", "))));
    return true;
}

} // namespace kiln
