#include "feedbackreader.h"

#include <QMap>
#include <QRegularExpression>
#include <QStringList>

#include <cstdlib>

namespace kiln {

QList<int> FeedbackReader::pointedLines(const QString &feedback)
{
    static const QRegularExpression single(
        QStringLiteral(R"(\bline (\d+)\b|\((\d+)\): (?:error|warning)|:(\d+):\d+: )"));
    static const QRegularExpression list(QStringLiteral(R"(\[lines ([\d, ]+)\])"));
    QList<int> lines;
    for (auto it = single.globalMatch(feedback); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        for (int group = 1; group <= 3; ++group)
            if (m.capturedLength(group) > 0)
                lines.append(m.captured(group).toInt());
    }
    for (auto it = list.globalMatch(feedback); it.hasNext();)
        for (const QString &n : it.next().captured(1).split(QLatin1Char(','), Qt::SkipEmptyParts))
            lines.append(n.trimmed().toInt());
    return lines;
}

bool FeedbackReader::namesFailingShape(const QString &feedback)
{
    static const QRegularExpression shape(QStringLiteral(R"(\bon [a-z_]+=\d+)"));
    return shape.match(feedback).hasMatch();
}

QList<int> FeedbackReader::deviatingLines(const QString &source, const QString &clean)
{
    // A line counts as deviating when it occurs more often in the source than in the clean
    // rendering (edited or inserted lines; deleted ones show at their neighbours' numbers).
    QMap<QString, int> available;
    for (const QString &line : clean.split(QLatin1Char('\n')))
        ++available[line.trimmed()];
    QList<int> deviating;
    const QStringList lines = source.split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < lines.size(); ++i) {
        int &left = available[lines[i].trimmed()];
        if (left > 0)
            --left;
        else
            deviating.append(int(i) + 1);
    }
    return deviating;
}

bool FeedbackReader::pointsAt(const QList<int> &pointed, const QList<int> &deviating, int slack)
{
    for (int p : pointed)
        for (int d : deviating)
            if (std::abs(p - d) <= slack)
                return true;
    return false;
}

} // namespace kiln
