#include "verifier/screen/python/pythonsource.h"

#include <QRegularExpression>
#include <QSet>

using namespace Qt::StringLiterals;

namespace kiln {

namespace {

using Token = PythonSource::Token;

bool isNameStart(char32_t c)
{
    return c == U'_' || QChar::isLetter(c);
}

bool isNamePart(char32_t c)
{
    return c == U'_' || QChar::isLetterOrNumber(c) || QChar::isMark(c) ||
           QChar::category(c) == QChar::Punctuation_Connector;
}

// The code point at i (a surrogate pair counts as one) and how many QChars it takes.
char32_t codePointAt(const QString &text, qsizetype i, int *length)
{
    const QChar c = text[i];
    if (c.isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate()) {
        *length = 2;
        return QChar::surrogateToUcs4(c, text[i + 1]);
    }
    *length = 1;
    return c.unicode();
}

const QStringList &operatorList()
{
    // Longest first, so "**=" is not read as "**" and "=".
    static const QStringList operators = {
        u"**="_s, u"//="_s, u">>="_s, u"<<="_s, u"..."_s, u"->"_s, u":="_s, u"**"_s,
        u"//"_s,  u"=="_s,  u"!="_s,  u"<="_s,  u">="_s,  u"<<"_s, u">>"_s, u"+="_s,
        u"-="_s,  u"*="_s,  u"/="_s,  u"%="_s,  u"&="_s,  u"|="_s, u"^="_s, u"@="_s};
    return operators;
}

bool isStringPrefix(const QString &word)
{
    static const QSet<QString> prefixes = {u"r"_s,  u"u"_s,  u"f"_s, u"b"_s,  u"br"_s, u"rb"_s,
                                           u"fr"_s, u"rf"_s, u"t"_s, u"tr"_s, u"rt"_s};
    return prefixes.contains(word.toLower());
}

bool isCompoundKeyword(const QString &word)
{
    static const QSet<QString> keywords = {u"if"_s,      u"elif"_s, u"else"_s,  u"for"_s,
                                           u"while"_s,   u"with"_s, u"try"_s,   u"except"_s,
                                           u"finally"_s, u"def"_s,  u"class"_s, u"async"_s};
    return keywords.contains(word);
}

// Reads Python text into tokens and logical lines (Python's own rules, simplified where the
// screen does not care).
class Lexer
{
public:
    Lexer(const QString &text, int firstLine, bool inField, QList<Token> *tokens,
          QList<int> *lineStarts, QList<int> *lineIndents)
        : m_text(text), m_line(firstLine), m_inField(inField), m_tokens(tokens),
          m_lineStarts(lineStarts), m_lineIndents(lineIndents)
    {
    }

    void run()
    {
        const qsizetype n = m_text.size();
        bool atLineStart = !m_inField;
        while (m_i < n) {
            if (atLineStart && m_depth == 0) {
                atLineStart = false;
                if (!readIndentation())
                    continue;
            }
            const QChar c = m_text[m_i];
            if (c == u'\n') {
                ++m_line;
                ++m_i;
                atLineStart = m_depth == 0 && !m_inField;
            } else if (c == u' ' || c == u'\t' || c == u'\f') {
                ++m_i;
            } else if (c == u'\\' && m_i + 1 < n && m_text[m_i + 1] == u'\n') {
                ++m_line; // explicit line joining
                m_i += 2;
            } else if (c == u'#') {
                while (m_i < n && m_text[m_i] != u'\n')
                    ++m_i;
            } else {
                readToken();
            }
        }
    }

private:
    // Measures the indentation of a new line; false when the line is blank or a comment.
    bool readIndentation()
    {
        int column = 0;
        const qsizetype n = m_text.size();
        while (m_i < n) {
            const QChar c = m_text[m_i];
            if (c == u' ')
                ++column;
            else if (c == u'\t')
                column = (column / 8 + 1) * 8;
            else if (c == u'\f')
                column = 0;
            else
                break;
            ++m_i;
        }
        if (m_i >= n || m_text[m_i] == u'\n' || m_text[m_i] == u'#')
            return false;
        m_pendingIndent = column;
        return true;
    }

    void push(Token token)
    {
        token.inField = m_inField;
        if (m_pendingIndent >= 0 && m_lineStarts) {
            m_lineStarts->append(int(m_tokens->size()));
            m_lineIndents->append(m_pendingIndent);
            m_pendingIndent = -1;
        }
        m_tokens->append(token);
    }

    void readToken()
    {
        int length = 0;
        const char32_t c = codePointAt(m_text, m_i, &length);
        if (isNameStart(c)) {
            const qsizetype start = m_i;
            while (m_i < m_text.size()) {
                const char32_t part = codePointAt(m_text, m_i, &length);
                if (!isNamePart(part))
                    break;
                m_i += length;
            }
            const QString word = m_text.mid(start, m_i - start);
            if (m_i < m_text.size() && (m_text[m_i] == u'"' || m_text[m_i] == u'\'') &&
                isStringPrefix(word)) {
                readString(start, word.toLower());
                return;
            }
            Token token;
            token.kind = Token::Kind::Name;
            // Python compares identifiers after NFKC normalisation.
            token.text = word.normalized(QString::NormalizationForm_KC);
            token.line = m_line;
            push(token);
        } else if (c == U'"' || c == U'\'') {
            readString(m_i, QString());
        } else if (QChar::isDigit(c) ||
                   (c == U'.' && m_i + 1 < m_text.size() && m_text[m_i + 1].isDigit())) {
            readNumber();
        } else {
            readOperator(length);
        }
    }

    void readNumber()
    {
        const qsizetype start = m_i;
        const bool prefixed = m_text[m_i] == u'0' && m_i + 1 < m_text.size() &&
                              QStringLiteral("xXoObB").contains(m_text[m_i + 1]);
        while (m_i < m_text.size()) {
            const QChar c = m_text[m_i];
            const bool sign = (c == u'+' || c == u'-') && !prefixed && m_i > start &&
                              (m_text[m_i - 1] == u'e' || m_text[m_i - 1] == u'E');
            if (c.isLetterOrNumber() || c == u'_' || (c == u'.' && !prefixed) || sign)
                ++m_i;
            else
                break;
        }
        push({Token::Kind::Number, m_text.mid(start, m_i - start), m_line});
    }

    void readOperator(int length)
    {
        for (const QString &op : operatorList()) {
            if (QStringView(m_text).mid(m_i, op.size()) == op) {
                push({Token::Kind::Operator, op, m_line});
                m_i += op.size();
                return;
            }
        }
        const QString single = m_text.mid(m_i, length);
        if (single == u"(" || single == u"[" || single == u"{")
            ++m_depth;
        else if ((single == u")" || single == u"]" || single == u"}") && m_depth > 0)
            --m_depth;
        push({Token::Kind::Operator, single, m_line});
        m_i += length;
    }

    void readString(qsizetype start, const QString &prefix)
    {
        Token token;
        token.kind = Token::Kind::String;
        token.line = m_line;
        token.valueLines.append(m_line);
        token.formatted = prefix.contains(u'f') || prefix.contains(u't');
        const bool raw = prefix.contains(u'r');
        const QChar quote = m_text[m_i];
        const bool triple = QStringView(m_text).mid(m_i, 3) == QString(3, quote);
        m_i += triple ? 3 : 1;
        QList<int> fieldLines;
        const qsizetype n = m_text.size();
        while (m_i < n) {
            const QChar c = m_text[m_i];
            if (triple ? QStringView(m_text).mid(m_i, 3) == QString(3, quote) : c == quote)
                break;
            if (!triple && c == u'\n')
                break; // unterminated: Python rejects it, the screen reads on
            if (c == u'\\' && m_i + 1 < n) {
                raw ? appendRawEscape(token) : decodeEscape(token);
            } else if (token.formatted && c == u'{' && m_i + 1 < n && m_text[m_i + 1] != u'{') {
                fieldLines.append(m_line);
                readField(token);
            } else if (token.formatted && (c == u'{' || c == u'}') && m_i + 1 < n &&
                       m_text[m_i + 1] == c) {
                token.value += c;
                m_i += 2;
            } else {
                appendChar(token, c);
                ++m_i;
            }
        }
        m_i = qMin(n, m_i + (m_i < n && m_text[m_i] == quote ? (triple ? 3 : 1) : 0));
        token.text = m_text.mid(start, m_i - start);
        push(token);
        emitFields(token, fieldLines);
    }

    void appendChar(Token &token, QChar c)
    {
        token.value += c;
        if (c == u'\n') {
            ++m_line;
            token.valueLines.append(m_line);
        }
    }

    void appendRawEscape(Token &token)
    {
        // A raw string keeps the backslash; it still protects the next character.
        token.value += m_text[m_i];
        ++m_i;
        appendChar(token, m_text[m_i]);
        ++m_i;
    }

    void decodeEscape(Token &token);
    void readField(Token &token);
    void emitFields(const Token &token, const QList<int> &fieldLines);

    const QString &m_text;
    qsizetype m_i = 0;
    int m_line = 1;
    int m_depth = 0;
    int m_pendingIndent = -1;
    bool m_inField = false;
    QList<Token> *m_tokens;
    QList<int> *m_lineStarts;
    QList<int> *m_lineIndents;
};

void Lexer::decodeEscape(Token &token)
{
    const QChar e = m_text[m_i + 1];
    m_i += 2;
    static const QString simple = QStringLiteral("ntrabfv");
    static const QString decoded = QStringLiteral("\n\t\r\a\b\f\v");
    if (e == u'\n') {
        ++m_line; // the backslash joins the lines inside the string
    } else if (e == u'\\' || e == u'\'' || e == u'"') {
        token.value += e;
    } else if (simple.contains(e)) {
        token.value += decoded[simple.indexOf(e)];
        if (e == u'n')
            token.valueLines.append(m_line);
    } else if (e >= u'0' && e <= u'7') {
        int value = e.digitValue();
        for (int k = 0; k < 2 && m_i < m_text.size() && m_text[m_i] >= u'0' && m_text[m_i] <= u'7';
             ++k)
            value = value * 8 + m_text[m_i++].digitValue();
        token.value += QChar(value);
    } else if (e == u'x' || e == u'u' || e == u'U') {
        const int width = e == u'x' ? 2 : (e == u'u' ? 4 : 8);
        bool ok = false;
        const char32_t value = m_text.mid(m_i, width).toUInt(&ok, 16);
        if (ok && value <= 0x10FFFF) {
            token.value += QString::fromUcs4(&value, 1);
            if (value == U'\n')
                token.valueLines.append(m_line);
            m_i += width;
        } else {
            token.value += u'\\' + QString(e);
        }
    } else if (e == u'N' && m_i < m_text.size() && m_text[m_i] == u'{') {
        // A character by its Unicode name: not decoded here, so the text is not trusted.
        const qsizetype close = m_text.indexOf(u'}', m_i);
        m_i = close < 0 ? m_text.size() : close + 1;
        token.value += u'?';
        token.opaque = true;
    } else {
        token.value += u'\\' + QString(e);
    }
}

// A replacement field "{expression!r:spec}" of an f-string, up to its closing brace (nested
// brackets and strings included).
void Lexer::readField(Token &token)
{
    const qsizetype open = m_i;
    int depth = 0;
    qsizetype j = m_i + 1;
    const qsizetype n = m_text.size();
    while (j < n) {
        const QChar c = m_text[j];
        if (c == u'"' || c == u'\'') {
            const bool triple = QStringView(m_text).mid(j, 3) == QString(3, c);
            const QString close = triple ? QString(3, c) : QString(c);
            qsizetype end = m_text.indexOf(close, j + close.size());
            m_line += int(QStringView(m_text).mid(j, (end < 0 ? n : end) - j).count(u'\n'));
            j = end < 0 ? n : end + close.size();
            continue;
        }
        if (c == u'\n')
            ++m_line;
        if (c == u'(' || c == u'[' || c == u'{')
            ++depth;
        else if (c == u'}' && depth == 0)
            break;
        else if (c == u')' || c == u']' || c == u'}')
            --depth;
        ++j;
    }
    token.fields.append(m_text.mid(open + 1, j - open - 1));
    token.fieldOffsets.append(int(token.value.size()));
    m_i = qMin(n, j + 1);
}

// The expression of a field and the fields nested in its format spec.
QStringList fieldExpressions(const QString &field)
{
    int depth = 0;
    qsizetype end = field.size();
    for (qsizetype k = 0; k < field.size(); ++k) {
        const QChar c = field[k];
        if (c == u'(' || c == u'[' || c == u'{')
            ++depth;
        else if (c == u')' || c == u']' || c == u'}')
            --depth;
        else if (depth == 0 &&
                 (c == u':' || (c == u'!' && (k + 1 >= field.size() || field[k + 1] != u'=')))) {
            end = k;
            break;
        }
    }
    QStringList expressions = {field.left(end)};
    static const QRegularExpression nested(QStringLiteral("\\{([^{}]*)\\}"));
    for (const QRegularExpressionMatch &m : nested.globalMatch(field.mid(end)))
        expressions.append(m.captured(1));
    return expressions;
}

// Field expressions are code: their tokens follow the string, in parentheses.
void Lexer::emitFields(const Token &token, const QList<int> &fieldLines)
{
    for (int k = 0; k < token.fields.size(); ++k) {
        for (const QString &expression : fieldExpressions(token.fields[k])) {
            Token open{Token::Kind::Operator, u"("_s, fieldLines[k]};
            open.inField = true;
            m_tokens->append(open);
            Lexer inner(expression, fieldLines[k], true, m_tokens, nullptr, nullptr);
            inner.run();
            Token close{Token::Kind::Operator, u")"_s, fieldLines[k]};
            close.inField = true;
            m_tokens->append(close);
        }
    }
}

QList<int> encodingDeclarations(const QString &text)
{
    static const QRegularExpression declaration(
        QStringLiteral("^[ \\t\\f]*#.*?coding[:=][ \\t]*([-\\w.]+)"));
    QList<int> lines;
    const QStringList firstLines = text.split(u'\n').mid(0, 2);
    for (int k = 0; k < firstLines.size(); ++k) {
        const QRegularExpressionMatch m = declaration.match(firstLines[k]);
        if (!m.hasMatch())
            continue;
        QString name = m.captured(1).toLower().replace(u'_', u'-');
        static const QStringList allowed = {u"utf-8"_s,      u"utf8"_s,      u"ascii"_s,
                                            u"us-ascii"_s,   u"latin-1"_s,   u"latin1"_s,
                                            u"iso-8859-1"_s, u"iso8859-1"_s, u"iso-latin-1"_s};
        bool ok = false;
        for (const QString &good : allowed)
            ok = ok || name == good || name.startsWith(good + u'-');
        if (!ok)
            lines.append(k + 1);
    }
    return lines;
}

} // namespace

PythonSource::PythonSource(const QString &source)
{
    // Python ends lines at \n, \r\n and a lone \r: a bare \r must not hide code in a comment.
    QString text = source;
    text.replace(u"\r\n"_s, u"\n"_s);
    text.replace(u'\r', u'\n');
    m_encodingLines = encodingDeclarations(text);
    tokenize(text, 1, false);
    buildStatements();
    buildDefinitions();
}

void PythonSource::tokenize(const QString &text, int firstLine, bool inField)
{
    Lexer lexer(text, firstLine, inField, &m_tokens, &m_lineStarts, &m_lineIndents);
    lexer.run();
}

bool PythonSource::is(int index, QStringView text) const
{
    return index >= 0 && index < m_tokens.size() && m_tokens[index].kind != Token::Kind::String &&
           m_tokens[index].text == text;
}

QString PythonSource::text(int first, int last) const
{
    QStringList words;
    for (int k = qMax(0, first); k < qMin(last, int(m_tokens.size())); ++k)
        words << m_tokens[k].text;
    return words.join(u' ');
}

int PythonSource::matchingClose(int open, int last) const
{
    int depth = 0;
    for (int k = open; k < last; ++k) {
        if (m_tokens[k].kind != Token::Kind::Operator)
            continue;
        const QString &t = m_tokens[k].text;
        if (t == u"(" || t == u"[" || t == u"{")
            ++depth;
        else if ((t == u")" || t == u"]" || t == u"}") && --depth == 0)
            return k;
    }
    return last;
}

QList<QPair<int, int>> PythonSource::splitItems(int first, int last) const
{
    QList<QPair<int, int>> items;
    int depth = 0;
    int start = first;
    for (int k = first; k < last; ++k) {
        if (m_tokens[k].kind != Token::Kind::Operator)
            continue;
        const QString &t = m_tokens[k].text;
        if (t == u"(" || t == u"[" || t == u"{")
            ++depth;
        else if (t == u")" || t == u"]" || t == u"}")
            --depth;
        else if (t == u"," && depth == 0) {
            items.append({start, k});
            start = k + 1;
        }
    }
    if (last > start)
        items.append({start, last});
    return items;
}

void PythonSource::buildStatements()
{
    for (int k = 0; k < m_lineStarts.size(); ++k) {
        const int last = k + 1 < m_lineStarts.size() ? m_lineStarts[k + 1] : int(m_tokens.size());
        addLogicalLine(m_lineStarts[k], last, m_lineIndents[k]);
    }
    QList<QPair<int, int>> open; // (indent, statement) of enclosing compound statements
    for (int s = 0; s < m_statements.size(); ++s) {
        Statement &statement = m_statements[s];
        while (!open.isEmpty() && open.last().first >= statement.indent)
            open.removeLast();
        statement.parent = open.isEmpty() ? -1 : open.last().second;
        if (statement.compound)
            open.append({statement.indent, s});
    }
}

// One logical line: a compound header is split from a body on the same line ("if x: y = 1"),
// and simple statements at ';'. A same-line body is indented one deeper than its header.
void PythonSource::addLogicalLine(int first, int last, int indent)
{
    const Token &head = m_tokens[first];
    const bool soft = (head.text == u"match" || head.text == u"case") && is(last - 1, u":");
    if (head.kind == Token::Kind::Name && (isCompoundKeyword(head.text) || soft)) {
        int depth = 0;
        int lambdas = 0;
        for (int k = first; k < last; ++k) {
            const QString &t = m_tokens[k].text;
            if (m_tokens[k].kind == Token::Kind::String)
                continue;
            if (t == u"(" || t == u"[" || t == u"{")
                ++depth;
            else if (t == u")" || t == u"]" || t == u"}")
                --depth;
            else if (depth == 0 && t == u"lambda")
                ++lambdas;
            else if (depth == 0 && t == u":" && lambdas > 0)
                --lambdas;
            else if (depth == 0 && t == u":") {
                m_statements.append({first, k + 1, indent, -1, true});
                if (k + 1 < last)
                    addLogicalLine(k + 1, last, indent + 1);
                return;
            }
        }
    }
    int start = first;
    int depth = 0;
    for (int k = first; k < last; ++k) {
        const QString &t = m_tokens[k].text;
        if (m_tokens[k].kind != Token::Kind::Operator)
            continue;
        if (t == u"(" || t == u"[" || t == u"{")
            ++depth;
        else if (t == u")" || t == u"]" || t == u"}")
            --depth;
        else if (t == u";" && depth == 0) {
            if (k > start)
                m_statements.append({start, k, indent, -1, false});
            start = k + 1;
        }
    }
    if (last > start)
        m_statements.append({start, last, indent, -1, false});
}

int PythonSource::blockEnd(int header) const
{
    int s = header + 1;
    while (s < m_statements.size() && m_statements[s].indent > m_statements[header].indent)
        ++s;
    return s;
}

void PythonSource::buildDefinitions()
{
    for (int s = 0; s < m_statements.size(); ++s) {
        const int first = m_statements[s].first;
        if (is(first, u"class"))
            readClass(s, blockEnd(s));
    }
    for (int s = 0; s < m_statements.size(); ++s) {
        const int first = m_statements[s].first;
        if (is(first, u"def") || (is(first, u"async") && is(first + 1, u"def")))
            readFunction(s, blockEnd(s));
    }
    m_functionOf = QList<int>(m_tokens.size(), -1);
    m_classOf = QList<int>(m_tokens.size(), -1);
    // Definitions come in source order, so an inner one overwrites its outer one.
    for (int c = 0; c < m_classes.size(); ++c) {
        const auto [first, last] = bodyTokens(m_classes[c].header, m_classes[c].bodyEnd);
        for (int k = m_statements[m_classes[c].header].first; k < last; ++k)
            m_classOf[k] = c;
    }
    for (int f = 0; f < m_functions.size(); ++f) {
        const auto [first, last] = bodyTokens(m_functions[f].header, m_functions[f].bodyEnd);
        for (int k = m_statements[m_functions[f].header].first; k < last; ++k)
            m_functionOf[k] = f;
    }
}

QPair<int, int> PythonSource::bodyTokens(int header, int bodyEnd) const
{
    const int first = m_statements[header].last;
    const int last = bodyEnd > header + 1 ? m_statements[bodyEnd - 1].last : first;
    return {first, last};
}

void PythonSource::readClass(int statement, int bodyEnd)
{
    const Statement &header = m_statements[statement];
    ClassDef definition;
    definition.header = statement;
    definition.bodyEnd = bodyEnd;
    definition.name = m_tokens.value(header.first + 1).text;
    definition.line = m_tokens[header.first].line;
    if (is(header.first + 2, u"(")) {
        definition.basesFirst = header.first + 3;
        definition.basesLast = matchingClose(header.first + 2, header.last);
    }
    m_classes.append(definition);
}

void PythonSource::readFunction(int statement, int bodyEnd)
{
    const Statement &header = m_statements[statement];
    const int defToken = is(header.first, u"async") ? header.first + 1 : header.first;
    Function function;
    function.header = statement;
    function.bodyEnd = bodyEnd;
    function.name = m_tokens.value(defToken + 1).text;
    function.line = m_tokens[header.first].line;
    for (int c = 0; c < m_classes.size(); ++c) {
        if (m_classes[c].header == header.parent)
            function.owner = c;
    }
    if (is(defToken + 2, u"(")) {
        const int close = matchingClose(defToken + 2, header.last);
        for (const auto &[first, last] : splitItems(defToken + 3, close)) {
            int k = first;
            while (k < last && (is(k, u"*") || is(k, u"**")))
                ++k;
            if (k >= last || m_tokens[k].kind != Token::Kind::Name)
                continue;
            function.parameters.append(m_tokens[k].text);
            for (int e = k; e < last; ++e) {
                if (is(e, u"="))
                    function.defaults.append({e + 1, last});
            }
        }
    }
    for (int d = statement - 1;
         d >= 0 && is(m_statements[d].first, u"@") && m_statements[d].indent == header.indent; --d)
        function.decorators.append(
            text(m_statements[d].first + 1, m_statements[d].last).remove(u' '));
    m_functions.append(function);
}

int PythonSource::findClass(const QString &name) const
{
    int found = -1;
    for (int c = 0; c < m_classes.size(); ++c) {
        if (m_classes[c].name != name)
            continue;
        if (m_statements[m_classes[c].header].parent == -1)
            return c;
        found = found < 0 ? c : found;
    }
    return found;
}

} // namespace kiln
