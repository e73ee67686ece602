#pragma once

#include "core/cheatflag.h"
#include "elfsymbols.h"
#include "tasks/task.h"

#include <QList>
#include <QString>

namespace kiln {

// Advisory static and link-level screen (verifier.md): the preprocessed source, so macros and
// token pasting cannot hide a name, and the candidate object's symbol table. Flags point at the
// candidate's own lines, recovered through the preprocessor's line markers.
class StaticScreen
{
public:
    struct Token
    {
        enum class Kind
        {
            Identifier,
            Number,
            String,
            Punctuation
        };
        Kind kind = Kind::Punctuation;
        QString text;
        int line = 0; // line in the candidate's file
    };

    // Tokens of the preprocessed text that come from candidateFile (headers are skipped).
    static QList<Token> candidateTokens(const QString &preprocessed, const QString &candidateFile);

    // symbols may be invalid (no object: compile error); flags are merged per id.
    static QList<CheatFlag> screen(const Task &task, const QString &preprocessed,
                                   const QString &candidateFile, const ElfSymbols &symbols);
};

} // namespace kiln
