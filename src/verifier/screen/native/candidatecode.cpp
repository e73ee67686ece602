#include "verifier/screen/native/candidatecode.h"

#include <QSet>

#include <cstring>

namespace kiln {

namespace {

// Statements whose parentheses are followed by a block: `if (x) {` defines nothing.
bool isControlKeyword(const QString &word)
{
    static const QSet<QString> keywords = {
        QStringLiteral("if"),     QStringLiteral("while"),         QStringLiteral("for"),
        QStringLiteral("switch"), QStringLiteral("catch"),         QStringLiteral("return"),
        QStringLiteral("sizeof"), QStringLiteral("__attribute__"), QStringLiteral("decltype"),
        QStringLiteral("alignas")};
    return keywords.contains(word);
}

} // namespace

CandidateCode::CandidateCode(const QList<SourceToken> &tokens) : m_tokens(tokens)
{
    for (const SourceToken &token : m_tokens) {
        if (token.kind == SourceToken::Kind::Identifier &&
            !m_identifierLines.value(token.text).contains(token.line))
            m_identifierLines[token.text].append(token.line);
    }
    for (int k = 0; k + 1 < m_tokens.size(); ++k) {
        if (!isIdentifier(k) || text(k + 1) != QLatin1String("(") || isControlKeyword(text(k)) ||
            text(k - 1) == QLatin1String(".") || text(k - 1) == QLatin1String("->"))
            continue;
        int body = matchingClose(k + 1) + 1;
        while (body > 0 &&
               (text(body) == QLatin1String("const") || text(body) == QLatin1String("noexcept") ||
                text(body) == QLatin1String("override")))
            ++body;
        if (body > 0 && text(body) == QLatin1String("{"))
            m_definedFunctions.insert(text(k));
    }
}

QString CandidateCode::text(int k) const
{
    return k >= 0 && k < m_tokens.size() ? m_tokens[k].text : QString();
}

bool CandidateCode::isIdentifier(int k) const
{
    return k >= 0 && k < m_tokens.size() && m_tokens[k].kind == SourceToken::Kind::Identifier;
}

bool CandidateCode::isAsmKeyword(int k) const
{
    const QString name = text(k);
    return name == QLatin1String("asm") || name == QLatin1String("__asm__") ||
           name == QLatin1String("__asm");
}

int CandidateCode::matchingClose(int open) const
{
    int depth = 0;
    for (int k = open; k < m_tokens.size(); ++k) {
        const QString &t = m_tokens[k].text;
        if (m_tokens[k].kind != SourceToken::Kind::Punctuation)
            continue;
        if (t == QLatin1String("(") || t == QLatin1String("[") || t == QLatin1String("{"))
            ++depth;
        else if (t == QLatin1String(")") || t == QLatin1String("]") || t == QLatin1String("}")) {
            if (--depth == 0)
                return k;
        }
    }
    return -1;
}

QString CandidateCode::stringValue(int k, int *end) const
{
    QString value;
    for (; k < m_tokens.size() && m_tokens[k].kind == SourceToken::Kind::String; ++k)
        value += m_tokens[k].rawString ? m_tokens[k].text : decodeEscapes(m_tokens[k].text);
    if (end)
        *end = k;
    return value;
}

QString CandidateCode::decodeEscapes(const QString &literal)
{
    QString value;
    const qsizetype n = literal.size();
    // Up to `most` digits of `base` after position i; i ends on the last one read.
    auto number = [&](qsizetype &i, int base, int most) {
        char32_t code = 0;
        for (int count = 0; count < most && i + 1 < n; ++count) {
            bool ok = false;
            const int digit = QString(literal[i + 1]).toInt(&ok, base);
            if (!ok)
                break;
            code = code * char32_t(base) + char32_t(digit);
            ++i;
        }
        return code;
    };
    for (qsizetype i = 0; i < n; ++i) {
        if (literal[i] != QLatin1Char('\\') || i + 1 >= n) {
            value += literal[i];
            continue;
        }
        const char c = literal[++i].toLatin1();
        static const char simple[] = "ntrabfv";
        static const char simpleValue[] = "\n\t\r\a\b\f\v";
        char32_t code = literal[i].unicode(); // \\ \" \' \?
        if (const char *at = c ? std::strchr(simple, c) : nullptr)
            code = char32_t(simpleValue[at - simple]);
        else if (c == 'x' || c == 'u' || c == 'U')
            code = number(i, 16, c == 'u' ? 4 : 8);
        else if (c >= '0' && c <= '7')
            code = number(--i, 8, 3); // the first digit is c itself
        value += QString::fromUcs4(&code, 1);
    }
    return value;
}

bool CandidateCode::declaresVariableNamed(const QString &name) const
{
    static const QSet<QString> after = {
        QStringLiteral("="), QStringLiteral(";"), QStringLiteral(","), QStringLiteral(")"),
        QStringLiteral("["), QStringLiteral("{"), QStringLiteral(":")};
    for (int k = 1; k + 1 < m_tokens.size(); ++k) {
        const SourceToken &before = m_tokens[k - 1];
        if (m_tokens[k].text == name &&
            (before.kind == SourceToken::Kind::Identifier || before.text == QLatin1String("*") ||
             before.text == QLatin1String("&")) &&
            after.contains(m_tokens[k + 1].text))
            return true;
    }
    return false;
}

} // namespace kiln
