#include "tokenestimator.h"

namespace kiln {

qint64 TokenEstimator::count(const QString &text)
{
    qint64 tokens = 0;
    qsizetype i = 0;
    const qsizetype size = text.size();
    while (i < size) {
        const QChar c = text.at(i);
        if (c.isLetter() || c == QLatin1Char('_')) {
            qsizetype j = i;
            while (j < size && (text.at(j).isLetter() || text.at(j) == QLatin1Char('_')))
                ++j;
            tokens += (j - i + 4) / 5;
            i = j;
        } else if (c.isDigit()) {
            qsizetype j = i;
            while (j < size && text.at(j).isDigit())
                ++j;
            tokens += (j - i + 2) / 3;
            i = j;
        } else if (c == QLatin1Char('\n')) {
            ++tokens;
            ++i;
        } else if (c.isSpace()) {
            ++i;
        } else {
            ++tokens;
            ++i;
        }
    }
    return tokens;
}

} // namespace kiln
