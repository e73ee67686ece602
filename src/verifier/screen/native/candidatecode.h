#pragma once

#include "verifier/screen/native/sourcetoken.h"

#include <QList>
#include <QMap>
#include <QSet>
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

    // The value of the string literal at token k joined with the literals right after it
    // ("sys" "call" is "syscall"), escapes decoded; `end` becomes the index after the last one.
    QString stringValue(int k, int *end = nullptr) const;
    // A literal's text with its escapes decoded: "\x73yscall" is "syscall".
    static QString decodeEscapes(const QString &literal);

    // Whether the candidate defines a function of this name (`name(...) {`): its own code.
    bool definesFunction(const QString &name) const { return m_definedFunctions.contains(name); }

    // Whether the candidate declares a variable of this name ("half" is a type unless it does:
    // the reference kernels write `for (int half = blockDim.x / 2; ...)`, OpenMP kernels split
    // rows in halves).
    bool declaresVariableNamed(const QString &name) const;

private:
    QList<SourceToken> m_tokens;
    QMap<QString, QList<int>> m_identifierLines;
    QSet<QString> m_definedFunctions;
};

} // namespace kiln
