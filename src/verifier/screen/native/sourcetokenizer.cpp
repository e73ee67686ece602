#include "verifier/screen/native/sourcetokenizer.h"

#include <QRegularExpression>
#include <QStringList>

namespace kiln {

namespace {

// The logical line starting at physical line `first`: physical lines joined where they end in a
// backslash. `last` becomes the index of its final physical line.
QString logicalLine(const QStringList &physical, int first, int &last)
{
    QString logical;
    for (last = first;; ++last) {
        QString part = physical[last];
        if (part.endsWith(QLatin1Char('\r')))
            part.chop(1);
        if (part.endsWith(QLatin1Char('\\')) && last + 1 < physical.size()) {
            logical += part.chopped(1);
            continue;
        }
        logical += part;
        break;
    }
    return logical;
}

// The name of the directive a logical line holds ("define", "line" for #line and for a line
// marker "# 12 \"file\""), also spelled with "%:"; a null string for a line that is none. `body`
// becomes the text after the name.
QString directiveName(const QString &logical, QString *body)
{
    QString directive = logical.trimmed();
    if (!directive.startsWith(QLatin1Char('#')) && !directive.startsWith(QLatin1String("%:")))
        return {};
    directive = directive.mid(directive.startsWith(QLatin1Char('#')) ? 1 : 2).trimmed();
    if (!directive.isEmpty() && directive[0].isDigit()) {
        *body = directive;
        return QStringLiteral("line");
    }
    qsizetype end = 0;
    while (end < directive.size() && SourceTokenizer::isIdentifierPart(directive[end]))
        ++end;
    *body = directive.mid(end).trimmed();
    return directive.left(end);
}

} // namespace

QString SourceTokenizer::withoutComments(const QString &source)
{
    QString text = source;
    const qsizetype n = text.size();
    for (qsizetype i = 0; i < n; ++i) {
        const QChar c = text[i];
        if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            for (++i; i < n && text[i] != c && text[i] != QLatin1Char('\n'); ++i) {
                if (text[i] == QLatin1Char('\\'))
                    ++i;
            }
        } else if (c == QLatin1Char('/') && i + 1 < n && text[i + 1] == QLatin1Char('/')) {
            for (; i < n && text[i] != QLatin1Char('\n'); ++i)
                text[i] = QLatin1Char(' ');
        } else if (c == QLatin1Char('/') && i + 1 < n && text[i + 1] == QLatin1Char('*')) {
            const qsizetype close = text.indexOf(QLatin1String("*/"), i + 2);
            const qsizetype end = close < 0 ? n : close + 2;
            for (; i < end; ++i) {
                if (text[i] != QLatin1Char('\n'))
                    text[i] = QLatin1Char(' ');
            }
            --i;
        }
    }
    return text;
}

bool SourceTokenizer::isIdentifierStart(QChar c)
{
    return c.isLetter() || c == QLatin1Char('_');
}

bool SourceTokenizer::isIdentifierPart(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

bool SourceTokenizer::isPreprocessed(const QString &text)
{
    static const QRegularExpression marker(QStringLiteral("^#\\s*\\d+\\s+\""));
    return marker.match(text).hasMatch();
}

QList<int> SourceTokenizer::lineDirectiveLines(const QString &source)
{
    QList<int> lines;
    for (const Directive &directive : directives(source)) {
        if (directive.name == QLatin1String("line"))
            lines.append(directive.firstLine);
    }
    return lines;
}

QList<SourceTokenizer::Directive> SourceTokenizer::directives(const QString &source)
{
    QList<Directive> found;
    const QStringList physical = withoutComments(source).split(QLatin1Char('\n'));
    for (int first = 0; first < physical.size();) {
        int last = first;
        QString body;
        const QString name = directiveName(logicalLine(physical, first, last), &body);
        if (!name.isNull())
            found.append({first + 1, last + 1, name, body});
        first = last + 1;
    }
    return found;
}

QList<SourceToken> SourceTokenizer::candidateTokens(const QString &text,
                                                    const QString &candidateFile)
{
    SourceTokenizer tokenizer(text, candidateFile);
    tokenizer.run();
    return tokenizer.m_tokens;
}

SourceTokenizer::SourceTokenizer(const QString &text, const QString &candidateFile)
    : m_text(text), m_candidateFile(candidateFile), m_size(text.size()),
      m_raw(!isPreprocessed(text)), m_inCandidate(m_raw) // raw: every token is the candidate's
{
}

void SourceTokenizer::run()
{
    while (m_pos < m_size) {
        const QChar c = m_text[m_pos];
        if (c == QLatin1Char('\n')) {
            ++m_line;
            ++m_pos;
            m_atLineStart = true;
            continue;
        }
        if (c.isSpace()) {
            ++m_pos;
            continue;
        }
        if (skipComment())
            continue;
        if (atRawDirective()) {
            readRawDirective();
            continue;
        }
        if (m_atLineStart && c == QLatin1Char('#')) {
            readLineMarker();
            continue;
        }
        m_atLineStart = false;
        SourceToken token = readToken();
        // A macro's parameter is a placeholder, not the name it spells (`#define AT(p, time)`).
        if (m_pos > m_macroEnd)
            m_macroParameters.clear();
        else if (token.kind == SourceToken::Kind::Identifier &&
                 m_macroParameters.contains(token.text))
            token.text = QStringLiteral("kiln_macro_parameter");
        if (m_inCandidate)
            m_tokens.append(token);
    }
}

// Comments only occur in raw sources; preprocessor output has none.
bool SourceTokenizer::skipComment()
{
    if (m_text[m_pos] != QLatin1Char('/') || m_pos + 1 >= m_size)
        return false;
    if (m_text[m_pos + 1] == QLatin1Char('/')) {
        while (m_pos < m_size && m_text[m_pos] != QLatin1Char('\n'))
            ++m_pos;
        return true;
    }
    if (m_text[m_pos + 1] == QLatin1Char('*')) {
        const qsizetype close = m_text.indexOf(QLatin1String("*/"), m_pos + 2);
        const qsizetype end = close < 0 ? m_size : close + 2;
        m_line += int(QStringView(m_text).mid(m_pos, end - m_pos).count(QLatin1Char('\n')));
        m_pos = end;
        return true;
    }
    return false;
}

bool SourceTokenizer::atRawDirective() const
{
    const QChar c = m_text[m_pos];
    return m_raw && m_atLineStart &&
           (c == QLatin1Char('#') ||
            (c == QLatin1Char('%') && m_pos + 1 < m_size && m_text[m_pos + 1] == QLatin1Char(':')));
}

// A directive of a raw source: #define bodies are screened like code (their names would
// otherwise hide behind the macro), #pragma is kept, the rest skipped.
void SourceTokenizer::readRawDirective()
{
    qsizetype j = m_pos + (m_text[m_pos] == QLatin1Char('#') ? 1 : 2);
    while (j < m_size && (m_text[j] == QLatin1Char(' ') || m_text[j] == QLatin1Char('\t')))
        ++j;
    qsizetype wordEnd = j;
    while (wordEnd < m_size && isIdentifierPart(m_text[wordEnd]))
        ++wordEnd;
    const QString word = m_text.mid(j, wordEnd - j);
    if (word == QLatin1String("define")) {
        readMacroParameters(wordEnd);
        m_pos = wordEnd;
        m_atLineStart = false;
        return;
    }
    const int directiveLine = m_line;
    const qsizetype end = directiveEnd(wordEnd);
    if (word == QLatin1String("pragma"))
        appendPragma(m_text.mid(wordEnd, end - wordEnd)
                         .simplified()
                         .split(QLatin1Char(' '), Qt::SkipEmptyParts),
                     directiveLine);
    m_pos = end;
}

// The parameters of the function-like macro a #define (its text after `from`) defines, and
// where the definition ends.
void SourceTokenizer::readMacroParameters(qsizetype from)
{
    const int line = m_line;
    m_macroEnd = directiveEnd(from);
    m_line = line; // the body's newlines are counted as its tokens are read
    qsizetype nameEnd = from;
    while (nameEnd < m_size &&
           (m_text[nameEnd] == QLatin1Char(' ') || m_text[nameEnd] == QLatin1Char('\t')))
        ++nameEnd;
    while (nameEnd < m_size && isIdentifierPart(m_text[nameEnd]))
        ++nameEnd;
    m_macroParameters.clear();
    const qsizetype close = m_text.indexOf(QLatin1Char(')'), nameEnd);
    if (nameEnd >= m_size || m_text[nameEnd] != QLatin1Char('(') || close < 0 || close > m_macroEnd)
        return;
    for (QString parameter : m_text.mid(nameEnd + 1, close - nameEnd - 1).split(QLatin1Char(','))) {
        parameter = parameter.remove(QLatin1String("...")).remove(QLatin1Char('\\')).trimmed();
        if (!parameter.isEmpty())
            m_macroParameters.append(parameter);
    }
}

// The end of a directive, over backslash-continued lines (counted in m_line).
qsizetype SourceTokenizer::directiveEnd(qsizetype from)
{
    qsizetype end = from;
    for (;;) {
        end = m_text.indexOf(QLatin1Char('\n'), end);
        if (end < 0)
            return m_size;
        qsizetype back = end - 1;
        if (back >= 0 && m_text[back] == QLatin1Char('\r'))
            --back;
        if (back < 0 || m_text[back] != QLatin1Char('\\'))
            return end;
        ++m_line;
        ++end;
    }
}

// Line marker: # <line> "<file>" [flags]  (or a surviving #pragma).
void SourceTokenizer::readLineMarker()
{
    const qsizetype end = m_text.indexOf(QLatin1Char('\n'), m_pos);
    const QString directive = m_text.mid(m_pos + 1, (end < 0 ? m_size : end) - m_pos - 1).trimmed();
    const QStringList parts = directive.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    bool isNumber = false;
    const int markerLine = parts.value(0).toInt(&isNumber);
    if (isNumber && parts.size() >= 2) {
        QString file = parts[1];
        file.remove(QLatin1Char('"'));
        m_inCandidate =
            file == m_candidateFile || file.endsWith(QLatin1Char('/') + m_candidateFile);
        m_line = markerLine - 1; // the newline ending the marker moves to markerLine
    } else if (m_inCandidate && directive.startsWith(QLatin1String("pragma"))) {
        appendPragma(directive.mid(6).split(QLatin1Char(' '), Qt::SkipEmptyParts), m_line);
    }
    m_pos = end < 0 ? m_size : end;
}

// A #pragma is kept as the identifier "#pragma" followed by its words.
void SourceTokenizer::appendPragma(const QStringList &words, int line)
{
    m_tokens.append({SourceToken::Kind::Identifier, QStringLiteral("#pragma"), line});
    for (const QString &word : words)
        m_tokens.append({SourceToken::Kind::Identifier, word, line});
}

SourceToken SourceTokenizer::readToken()
{
    const QChar c = m_text[m_pos];
    SourceToken token;
    token.line = m_line;
    if (isIdentifierStart(c))
        readWord(token);
    else if (c.isDigit() ||
             (c == QLatin1Char('.') && m_pos + 1 < m_size && m_text[m_pos + 1].isDigit()))
        readNumber(token);
    else if (c == QLatin1Char('"') || c == QLatin1Char('\''))
        readQuoted(token);
    else
        readPunctuation(token);
    return token;
}

void SourceTokenizer::readWord(SourceToken &token)
{
    const qsizetype start = m_pos;
    while (m_pos < m_size && isIdentifierPart(m_text[m_pos]))
        ++m_pos;
    if (m_pos < m_size && m_text[m_pos] == QLatin1Char('"') &&
        m_text.mid(start, m_pos - start).endsWith(QLatin1Char('R'))) {
        readRawString(token, start);
        return;
    }
    token.kind = SourceToken::Kind::Identifier;
    token.text = m_text.mid(start, m_pos - start);
}

// Raw string literal: R"delim( ... )delim"; m_pos is at its opening quote.
void SourceTokenizer::readRawString(SourceToken &token, qsizetype start)
{
    const qsizetype open = m_text.indexOf(QLatin1Char('('), m_pos);
    const QString delimiter = m_text.mid(m_pos + 1, open - m_pos - 1);
    const QString close = QLatin1Char(')') + delimiter + QLatin1Char('"');
    const qsizetype stop = m_text.indexOf(close, open);
    const qsizetype end = stop < 0 ? m_size : stop + close.size();
    token.kind = SourceToken::Kind::String;
    token.rawString = true;
    token.text = m_text.mid(open + 1, (stop < 0 ? m_size : stop) - open - 1);
    m_line += int(m_text.mid(start, end - start).count(QLatin1Char('\n')));
    m_pos = end;
}

void SourceTokenizer::readNumber(SourceToken &token)
{
    const qsizetype start = m_pos;
    while (m_pos < m_size &&
           (isIdentifierPart(m_text[m_pos]) || m_text[m_pos] == QLatin1Char('.') ||
            ((m_text[m_pos] == QLatin1Char('+') || m_text[m_pos] == QLatin1Char('-')) &&
             QStringLiteral("eEpP").contains(m_text[m_pos - 1]))))
        ++m_pos;
    token.kind = SourceToken::Kind::Number;
    token.text = m_text.mid(start, m_pos - start);
}

// A string or character literal (a character literal counts as a number).
void SourceTokenizer::readQuoted(SourceToken &token)
{
    const qsizetype start = m_pos;
    const QChar quote = m_text[m_pos];
    ++m_pos;
    while (m_pos < m_size && m_text[m_pos] != quote && m_text[m_pos] != QLatin1Char('\n')) {
        if (m_text[m_pos] == QLatin1Char('\\'))
            ++m_pos;
        ++m_pos;
    }
    ++m_pos;
    token.kind = quote == QLatin1Char('"') ? SourceToken::Kind::String : SourceToken::Kind::Number;
    token.text = m_text.mid(start + 1, qMax<qsizetype>(0, m_pos - start - 2));
}

void SourceTokenizer::readPunctuation(SourceToken &token)
{
    static const QStringList pairs = {QStringLiteral("::"), QStringLiteral("->")};
    const QString two = m_text.mid(m_pos, 2);
    token.kind = SourceToken::Kind::Punctuation;
    token.text = pairs.contains(two) ? two : QString(m_text[m_pos]);
    m_pos += token.text.size();
}

} // namespace kiln
