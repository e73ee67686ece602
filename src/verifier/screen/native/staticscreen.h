#pragma once

#include "core/backend.h"
#include "core/cheatflag.h"
#include "tasks/task.h"
#include "verifier/screen/native/elfsymbols.h"
#include "verifier/screen/native/macroexpander.h"
#include "verifier/screen/native/sourcetoken.h"

#include <QList>
#include <QString>

namespace kiln {

// Static and link-level screen (verifier.md): the preprocessed source, so macros and token
// pasting cannot hide a name, and the candidate object's symbol table. Flags point at the
// candidate's own lines, recovered through the preprocessor's line markers.
//
// Text that does not start with a line marker (a device-only CUDA source compiled with NVRTC,
// which has no separate preprocessing step; load_inline's C++) is screened as written: every
// token is the candidate's, comments are skipped, lines are physical lines, and #line
// directives are a flag. It is screened again with its macros expanded (MacroExpander); what
// only the expansion shows is said to be "after macro expansion".
class StaticScreen
{
public:
    using Token = SourceToken;

    // Tokens of the preprocessed text that come from candidateFile (headers are skipped); all
    // tokens of a raw source (see isPreprocessed).
    static QList<Token> candidateTokens(const QString &preprocessed, const QString &candidateFile);

    // True when the text is preprocessor output (its first line is a line marker).
    static bool isPreprocessed(const QString &text);

    // Lines of a raw source that hold #line or line-marker directives ("# 12 \"file\""), which
    // would make preprocessor output attribute the candidate's code to another file.
    static QList<int> lineDirectiveLines(const QString &source);

    // symbols may be invalid (no object: compile error, NVRTC); flags are merged per id.
    // The overload without a backend is the CPU screen.
    static QList<CheatFlag> screen(const Task &task, const QString &preprocessed,
                                   const QString &candidateFile, const ElfSymbols &symbols);
    // CUDA: preprocessed is nvcc's device and host passes (or the raw source for NVRTC), symbols
    // the host object of `nvcc -c`. Adds the stream, L2, CUDA library and precision rules.
    static QList<CheatFlag> screen(const Task &task, Backend backend, const QString &preprocessed,
                                   const QString &candidateFile, const ElfSymbols &symbols);
    // The same with a raw source's macro expansion already made (MacroExpander::expand of
    // `preprocessed`), for a caller that reads the expansion too.
    static QList<CheatFlag> screen(const Task &task, Backend backend, const QString &preprocessed,
                                   const QString &candidateFile, const ElfSymbols &symbols,
                                   const MacroExpander::Result &expansion);
};

} // namespace kiln
