#include "tasks/kernelbenchsource.h"

#include <QRegularExpression>

namespace kiln {

namespace {

// Triple-quoted strings and comments removed, so a name inside a docstring or a comment does
// not count as a definition (line count kept).
QString codeOnly(const QString &source)
{
    static const QRegularExpression strings(
        QStringLiteral(R"RX("""[\s\S]*?"""|'''[\s\S]*?'''|#[^\n]*)RX"));
    QString code = source;
    QRegularExpressionMatchIterator it = strings.globalMatch(source);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        for (qsizetype i = m.capturedStart(); i < m.capturedEnd(); ++i) {
            if (code[i] != QLatin1Char('\n'))
                code[i] = QLatin1Char(' ');
        }
    }
    return code;
}

bool hasTopLevel(const QString &code, const QString &pattern)
{
    return QRegularExpression(QStringLiteral("(^|\\n)") + pattern).match(code).hasMatch();
}

// The body of a top-level class: its lines up to the next line that starts in column 0.
QString classBody(const QString &code, const QString &name)
{
    const QRegularExpression start(QStringLiteral("(^|\\n)class\\s+%1\\s*[(:]").arg(name));
    const QRegularExpressionMatch m = start.match(code);
    if (!m.hasMatch())
        return {};
    static const QRegularExpression nextTopLevel(QStringLiteral("\\n[^\\s\\n]"));
    const QRegularExpressionMatch end = nextTopLevel.match(code, m.capturedEnd());
    return code.mid(m.capturedEnd(), end.hasMatch() ? end.capturedStart() - m.capturedEnd() : -1);
}

bool indentationMixed(const QString &source)
{
    static const QRegularExpression mixed(QStringLiteral("\\n( +\\t|\\t+ )"));
    return mixed.match(source).hasMatch();
}

} // namespace

QStringList KernelBenchSource::problemDefects(const QString &source)
{
    QStringList defects;
    if (source.trimmed().isEmpty())
        return {QStringLiteral("the file is empty")};
    const QString code = codeOnly(source);
    const QString model = classBody(code, QStringLiteral("Model"));
    if (model.isEmpty())
        defects << QStringLiteral("no top-level `class Model(nn.Module)`");
    else if (!model.contains(QRegularExpression(QStringLiteral("\\n\\s+def\\s+forward\\s*\\("))))
        defects << QStringLiteral("class Model has no `forward` method");
    if (!hasTopLevel(code, QStringLiteral("def\\s+get_inputs\\s*\\(")))
        defects << QStringLiteral("no top-level `def get_inputs()`");
    if (!hasTopLevel(code, QStringLiteral("def\\s+get_init_inputs\\s*\\(")))
        defects << QStringLiteral("no top-level `def get_init_inputs()`");
    if (!code.contains(QRegularExpression(QStringLiteral("\\bimport\\s+torch\\b"))))
        defects << QStringLiteral("does not import torch");
    if (indentationMixed(source))
        defects << QStringLiteral("mixes tabs and spaces in its indentation");
    return defects;
}

QStringList KernelBenchSource::candidateDefects(const QString &source)
{
    if (source.trimmed().isEmpty())
        return {QStringLiteral("the candidate is empty")};
    const QString code = codeOnly(source);
    const QString model = classBody(code, QStringLiteral("ModelNew"));
    if (model.isEmpty())
        return {QStringLiteral("no top-level `class ModelNew(nn.Module)`")};
    if (!model.contains(QRegularExpression(QStringLiteral("\\n\\s+def\\s+forward\\s*\\("))))
        return {QStringLiteral("class ModelNew has no `forward` method")};
    if (indentationMixed(source))
        return {QStringLiteral("mixes tabs and spaces in its indentation")};
    return {};
}

QString KernelBenchSource::summary(const QString &source)
{
    static const QRegularExpression doc(QStringLiteral(
        R"RX(class\s+Model\s*\([^)]*\)\s*:\s*\n\s*(?:"""|''')\s*([^\n]*?)\s*(?:"""|'''|\n))RX"));
    const QRegularExpressionMatch m = doc.match(source);
    return m.hasMatch() ? m.captured(1).trimmed() : QString();
}

bool KernelBenchSource::parseFileName(const QString &fileName, int *number, QString *title)
{
    static const QRegularExpression pattern(QStringLiteral("^(\\d+)_(.+)\\.py$"));
    const QRegularExpressionMatch m = pattern.match(fileName);
    if (!m.hasMatch())
        return false;
    *number = m.captured(1).toInt();
    *title = m.captured(2);
    title->replace(QLatin1Char('_'), QLatin1Char(' '));
    *title = title->trimmed();
    return true;
}

QString KernelBenchSource::taskName(int level, int number, const QString &title)
{
    QString slug = title.toLower();
    static const QRegularExpression nonWord(QStringLiteral("[^a-z0-9]+"));
    slug.replace(nonWord, QStringLiteral("_"));
    while (slug.startsWith(QLatin1Char('_')))
        slug.remove(0, 1);
    while (slug.endsWith(QLatin1Char('_')))
        slug.chop(1);
    slug = slug.left(40);
    while (slug.endsWith(QLatin1Char('_')))
        slug.chop(1);
    return QStringLiteral("kb%1_%2_%3")
        .arg(level)
        .arg(number, 3, 10, QLatin1Char('0'))
        .arg(slug.isEmpty() ? QStringLiteral("problem") : slug);
}

} // namespace kiln
