#include "verifier/screen/native/candidatecode.h"

#include <QSet>

namespace kiln {

CandidateCode::CandidateCode(const QList<SourceToken> &tokens) : m_tokens(tokens)
{
    for (const SourceToken &token : m_tokens) {
        if (token.kind == SourceToken::Kind::Identifier &&
            !m_identifierLines.value(token.text).contains(token.line))
            m_identifierLines[token.text].append(token.line);
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
