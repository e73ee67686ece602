#include "sourcefingerprint.h"

#include <QCryptographicHash>
#include <QStringList>

namespace kiln {

namespace {

bool isWordCharacter(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

// Characters that form tokens of several characters together (-- += << && :: ...).
bool isOperatorCharacter(QChar c)
{
    return QStringLiteral("+-*/%<>=!&|^:.#?").contains(c);
}

// A space is needed between two characters only where dropping it would join two tokens: two
// word characters (int x) or two operator characters (a - -b); a bracket, comma or semicolon
// never joins anything.
bool spaceSeparates(QChar before, QChar after)
{
    return (isWordCharacter(before) && isWordCharacter(after)) ||
           (isOperatorCharacter(before) && isOperatorCharacter(after));
}

// The source with comments replaced by a space and literals copied whole.
QString withoutCComments(const QString &source)
{
    QString out;
    out.reserve(source.size());
    const qsizetype n = source.size();
    for (qsizetype i = 0; i < n; ++i) {
        const QChar c = source[i];
        if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            const qsizetype start = i++;
            while (i < n && source[i] != c && source[i] != QLatin1Char('\n'))
                i += source[i] == QLatin1Char('\\') ? 2 : 1;
            out += source.mid(start, std::min(i, n - 1) - start + 1);
        } else if (c == QLatin1Char('/') && i + 1 < n && source[i + 1] == QLatin1Char('/')) {
            while (i < n && source[i] != QLatin1Char('\n'))
                ++i;
            out += QLatin1Char('\n');
        } else if (c == QLatin1Char('/') && i + 1 < n && source[i + 1] == QLatin1Char('*')) {
            const qsizetype end = source.indexOf(QLatin1String("*/"), i + 2);
            i = end < 0 ? n : end + 1;
            out += QLatin1Char(' ');
        } else {
            out += c;
        }
    }
    return out;
}

QString normalisedC(const QString &source)
{
    // Lines stay apart where a preprocessor directive ends; elsewhere a newline is a space.
    QStringList lines;
    for (const QString &raw : withoutCComments(source).split(QLatin1Char('\n'))) {
        QString line;
        QChar pending; // a space seen since the last character written
        for (const QChar c : raw) {
            if (c.isSpace()) {
                pending = QLatin1Char(' ');
                continue;
            }
            if (!pending.isNull() && !line.isEmpty() && spaceSeparates(line.back(), c))
                line += QLatin1Char(' ');
            pending = QChar();
            line += c;
        }
        if (!line.isEmpty())
            lines << line;
    }
    QString out;
    for (const QString &line : std::as_const(lines)) {
        const bool directive = line.startsWith(QLatin1Char('#'));
        if (!out.isEmpty() && !out.endsWith(QLatin1Char('\n'))) {
            if (directive)
                out += QLatin1Char('\n');
            else if (spaceSeparates(out.back(), line.front()))
                out += QLatin1Char(' ');
        }
        out += line;
        if (directive)
            out += QLatin1Char('\n');
    }
    return out.trimmed();
}

// Trailing spaces and blank lines only. A # is not stripped: inside a triple-quoted load_inline
// source it starts a #define or #pragma, and two candidates that differ only there are
// different kernels.
QString normalisedPython(const QString &source)
{
    QStringList lines;
    for (const QString &raw : source.split(QLatin1Char('\n'))) {
        QString line = raw;
        while (!line.isEmpty() && line.back().isSpace())
            line.chop(1);
        if (!line.isEmpty())
            lines << line;
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

QString SourceFingerprint::normalised(const QString &source, Backend backend)
{
    return backend == Backend::Torch ? normalisedPython(source) : normalisedC(source);
}

QString SourceFingerprint::of(const QString &source, Backend backend)
{
    return QString::fromLatin1(
        QCryptographicHash::hash(normalised(source, backend).toUtf8(), QCryptographicHash::Sha256)
            .toHex());
}

} // namespace kiln
