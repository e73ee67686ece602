#pragma once

#include "verifier/screen/native/sourcetoken.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace kiln {

// Splits preprocessed C/C++/CUDA text into the tokens of the candidate's own file, following the
// preprocessor's line markers so every token carries the candidate's line. Text that does not
// start with a line marker is a raw source: every token is the candidate's, comments are
// skipped, #define bodies are read as code (a macro's parameters as placeholders) and #pragma
// lines are kept.
class SourceTokenizer
{
public:
    // A directive of a raw source, over its backslash-continued lines.
    struct Directive
    {
        int firstLine = 0; // 1-based physical lines
        int lastLine = 0;
        QString name; // "define", "include" ...; "line" also for a line marker ("# 12 \"f\"")
        QString body; // the logical line after the name
    };

    // Tokens of the preprocessed text that come from candidateFile (headers are skipped); all
    // tokens of a raw source (see isPreprocessed).
    static QList<SourceToken> candidateTokens(const QString &text, const QString &candidateFile);

    // True when the text is preprocessor output (its first line is a line marker).
    static bool isPreprocessed(const QString &text);

    // Lines of a raw source that hold #line or line-marker directives ("# 12 \"file\"").
    static QList<int> lineDirectiveLines(const QString &source);

    // Every directive of a raw source (also "%:" spellings and those after a comment).
    static QList<Directive> directives(const QString &source);

    // The source with comments turned into blanks (their newlines kept), so "/**/ #line" is seen
    // as a directive and line numbers stay those of the source.
    static QString withoutComments(const QString &source);

    static bool isIdentifierStart(QChar c);
    static bool isIdentifierPart(QChar c);

private:
    SourceTokenizer(const QString &text, const QString &candidateFile);

    void run();
    bool skipComment();
    bool atRawDirective() const;
    void readRawDirective();
    void readMacroParameters(qsizetype from);
    qsizetype directiveEnd(qsizetype from);
    void readLineMarker();
    void appendPragma(const QStringList &words, int line);
    SourceToken readToken();
    void readWord(SourceToken &token);
    void readRawString(SourceToken &token, qsizetype start);
    void readNumber(SourceToken &token);
    void readQuoted(SourceToken &token);
    void readPunctuation(SourceToken &token);

    const QString &m_text;
    const QString &m_candidateFile;
    const qsizetype m_size;
    const bool m_raw;
    bool m_inCandidate;
    bool m_atLineStart = true;
    qsizetype m_pos = 0;
    int m_line = 1;
    QStringList m_macroParameters; // of the #define being read, until m_macroEnd
    qsizetype m_macroEnd = -1;
    QList<SourceToken> m_tokens;
};

} // namespace kiln
