#include "codeextractor.h"

#include <QRegularExpression>
#include <QStringList>
#include <functional>

namespace kiln {

namespace {

struct Fence
{
    QChar character;
    int length = 0;
    QString info;
};

// An opening or closing fence: up to three spaces, then three or more ` or ~.
bool parseFence(const QString &line, Fence *fence)
{
    int i = 0;
    while (i < line.size() && i < 4 && line.at(i) == QLatin1Char(' '))
        ++i;
    if (i > 3 || i >= line.size())
        return false;
    const QChar c = line.at(i);
    if (c != QLatin1Char('`') && c != QLatin1Char('~'))
        return false;
    int n = 0;
    while (i + n < line.size() && line.at(i + n) == c)
        ++n;
    if (n < 3)
        return false;
    fence->character = c;
    fence->length = n;
    fence->info = line.mid(i + n).trimmed();
    return true;
}

} // namespace

QString CodeExtractor::splitThinking(QString *answer)
{
    const QString trimmed = answer->trimmed();
    if (!trimmed.startsWith(QStringLiteral("<think>")))
        return QString();
    const qsizetype end = trimmed.indexOf(QStringLiteral("</think>"));
    if (end < 0) {
        // Never closed: everything is reasoning, there is no answer.
        const QString reasoning = trimmed.mid(7).trimmed();
        answer->clear();
        return reasoning;
    }
    const QString reasoning = trimmed.mid(7, end - 7).trimmed();
    *answer = trimmed.mid(end + 8);
    return reasoning;
}

QList<CodeBlock> CodeExtractor::blocks(const QString &answer)
{
    QString text = answer;
    text.replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
    text.replace(QLatin1Char('\r'), QLatin1Char('\n'));
    const QStringList lines = text.split(QLatin1Char('\n'));
    QList<CodeBlock> result;
    bool inside = false;
    Fence open;
    CodeBlock current;
    QStringList body;
    for (int i = 0; i < lines.size(); ++i) {
        const QString &line = lines.at(i);
        Fence fence;
        if (!inside) {
            // A backtick fence's info string may not contain backticks (inline code is no fence).
            if (parseFence(line, &fence) &&
                !(fence.character == QLatin1Char('`') && fence.info.contains(QLatin1Char('`')))) {
                inside = true;
                open = fence;
                current = CodeBlock();
                current.language = fence.info.section(QLatin1Char(' '), 0, 0).toLower();
                current.startLine = i + 1;
                body.clear();
            }
            continue;
        }
        if (parseFence(line, &fence) && fence.character == open.character &&
            fence.length >= open.length && fence.info.isEmpty()) {
            current.code = body.join(QLatin1Char('\n'));
            current.terminated = true;
            result.append(current);
            inside = false;
            continue;
        }
        body << line;
    }
    if (inside) {
        current.code = body.join(QLatin1Char('\n'));
        current.terminated = false;
        result.append(current);
    }
    for (CodeBlock &block : result) {
        if (!block.code.isEmpty() && !block.code.endsWith(QLatin1Char('\n')))
            block.code += QLatin1Char('\n');
    }
    return result;
}

bool CodeExtractor::definesEntry(const QString &code, const QString &entry)
{
    if (entry.isEmpty())
        return false;
    // name ( parameters without ; { } ) [qualifiers] {   -- a definition, not a call or prototype.
    const QRegularExpression definition(
        QStringLiteral("\\b%1\\s*\\(([^;{}()]|\\([^;{}()]*\\))*\\)\\s*[^;{}()]*\\{")
            .arg(QRegularExpression::escape(entry)));
    return definition.match(code).hasMatch();
}

bool CodeExtractor::definesClass(const QString &code, const QString &name)
{
    if (name.isEmpty())
        return false;
    const QRegularExpression definition(
        QStringLiteral("(^|\\n)class\\s+%1\\s*[(:]").arg(QRegularExpression::escape(name)));
    return definition.match(code).hasMatch();
}

namespace {

// The last of the answer's blocks that `accepts`, or why there is none (`what` names the
// definition looked for).
ExtractedCode lastBlock(const QString &answer, const std::function<bool(const QString &)> &accepts,
                        const QString &what)
{
    ExtractedCode out;
    QString text = answer;
    CodeExtractor::splitThinking(&text);
    const QList<CodeBlock> all = CodeExtractor::blocks(text);
    out.blockCount = int(all.size());
    for (int i = int(all.size()) - 1; i >= 0; --i) {
        if (accepts(all.at(i).code)) {
            out.found = true;
            out.code = all.at(i).code;
            out.language = all.at(i).language;
            out.blockIndex = i;
            return out;
        }
    }
    if (text.trimmed().isEmpty())
        out.reason = QStringLiteral("no code: the answer is empty");
    else if (all.isEmpty())
        out.reason = QStringLiteral("no code: the answer has no fenced code block");
    else
        out.reason = QStringLiteral("no code: none of the %1 fenced block(s) defines %2")
                         .arg(all.size())
                         .arg(what);
    return out;
}

} // namespace

ExtractedCode CodeExtractor::extract(const QString &answer, const QString &entry)
{
    return lastBlock(
        answer, [&](const QString &code) { return definesEntry(code, entry); },
        QStringLiteral("`%1`").arg(entry));
}

ExtractedCode CodeExtractor::extractModule(const QString &answer, const QString &className)
{
    return lastBlock(
        answer, [&](const QString &code) { return definesClass(code, className); },
        QStringLiteral("`class %1(nn.Module)` (a KernelBench answer is one Python module "
                       "defining it)")
            .arg(className));
}

} // namespace kiln
