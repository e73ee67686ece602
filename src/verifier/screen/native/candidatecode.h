#pragma once

#include "verifier/screen/native/sourcetoken.h"

#include <QList>
#include <QMap>
#include <QString>

namespace kiln {

// The candidate's own tokens and where each identifier occurs: what the rule sets of the static
// screen read, with the look-ups they share.
class CandidateCode
{
public:
    explicit CandidateCode(const QList<SourceToken> &tokens);

    const QList<SourceToken> &tokens() const { return m_tokens; }
    int size() const { return int(m_tokens.size()); }
    const SourceToken &token(int k) const { return m_tokens[k]; }
    // The text of token k; empty before the first token and after the last.
    QString text(int k) const;
    bool isIdentifier(int k) const;
    // Whether token k is the asm keyword (asm, __asm__, __asm).
    bool isAsmKeyword(int k) const;

    // The lines where the identifier occurs, each once, in the order first seen; empty when the
    // candidate never spells it.
    QList<int> linesOf(const QString &name) const { return m_identifierLines.value(name); }
    bool mentions(const QString &name) const { return m_identifierLines.contains(name); }

    // Index of the token closing the bracket opened at `open` ("(" / "[" / "{"), or -1.
    int matchingClose(int open) const;

    // Whether the candidate declares a variable of this name ("half" is a type unless it does:
    // the reference kernels write `for (int half = blockDim.x / 2; ...)`, OpenMP kernels split
    // rows in halves).
    bool declaresVariableNamed(const QString &name) const;

private:
    QList<SourceToken> m_tokens;
    QMap<QString, QList<int>> m_identifierLines;
};

} // namespace kiln
