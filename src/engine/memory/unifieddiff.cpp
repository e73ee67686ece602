#include "engine/memory/unifieddiff.h"

#include <QStringList>
#include <dtl/dtl.hpp>
#include <vector>

namespace kiln {

namespace {

QStringList linesOf(const QString &text)
{
    QStringList lines = QString(text)
                            .replace(QStringLiteral("\r\n"), QStringLiteral("\n"))
                            .split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

struct Line
{
    QChar mark; // ' ', '-', '+'
    QString text;
    int before; // 1-based line in `before` (the next one for an added line)
    int after;
};

} // namespace

QString UnifiedDiff::between(const QString &before, const QString &after, int context, int maxLines)
{
    const QStringList a = linesOf(before);
    const QStringList b = linesOf(after);
    dtl::Diff<QString, std::vector<QString>> diff(std::vector<QString>(a.cbegin(), a.cend()),
                                                  std::vector<QString>(b.cbegin(), b.cend()));
    diff.onHuge();
    diff.compose();
    QList<Line> lines;
    int ai = 1;
    int bi = 1;
    for (const auto &[text, info] : diff.getSes().getSequence()) {
        if (info.type == dtl::SES_COMMON)
            lines.append({QLatin1Char(' '), text, ai++, bi++});
        else if (info.type == dtl::SES_DELETE)
            lines.append({QLatin1Char('-'), text, ai++, bi});
        else
            lines.append({QLatin1Char('+'), text, ai, bi++});
    }
    // The hunks are written here, not by dtl's composeUnifiedHunks()/printUnifiedFormat(),
    // because dtl 1.20 fixes their context at DTL_CONTEXT_SIZE = 3 lines (dtl/variables.hpp) and
    // has no line cap, while the callers ask for 1 or 0 lines of context and at most `maxLines`
    // lines: with line 5 of 10 changed dtl prints "@@ -2,7 +2,7 @@" and three lines either side
    // where a lesson stores "@@ -4,3 +4,3 @@" and one line, and on tst_optimisationmemory's
    // 100-line case it gives one hunk of 150 lines where the test expects 12 lines in all.
    // Which lines to show: every change and `context` lines either side of it.
    QList<bool> shown(lines.size(), false);
    for (qsizetype i = 0; i < lines.size(); ++i)
        if (lines[i].mark != QLatin1Char(' '))
            for (qsizetype k = std::max<qsizetype>(0, i - context);
                 k <= std::min<qsizetype>(lines.size() - 1, i + context); ++k)
                shown[k] = true;
    QStringList out;
    int written = 0;
    int omitted = 0;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (!shown[i])
            continue;
        if (written >= maxLines) {
            omitted += lines[i].mark != QLatin1Char(' ') ? 1 : 0;
            continue;
        }
        if (i == 0 || !shown[i - 1]) {
            qsizetype end = i;
            int removed = 0, added = 0, common = 0;
            for (; end < lines.size() && shown[end]; ++end)
                (lines[end].mark == QLatin1Char('-')   ? removed
                 : lines[end].mark == QLatin1Char('+') ? added
                                                       : common)++;
            out << QStringLiteral("@@ -%1,%2 +%3,%4 @@")
                       .arg(lines[i].before)
                       .arg(removed + common)
                       .arg(lines[i].after)
                       .arg(added + common);
        }
        out << lines[i].mark + lines[i].text;
        ++written;
    }
    if (omitted > 0)
        out << QStringLiteral("... %1 more changed lines").arg(omitted);
    return out.join(QLatin1Char('\n'));
}

} // namespace kiln
