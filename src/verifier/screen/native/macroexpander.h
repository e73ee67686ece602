#pragma once

#include <QString>

namespace kiln {

// Expands the macros of a raw source, one that reaches its compiler without a preprocessed text
// the screen could read (NVRTC's device-only sources, load_inline's C++), with the host's
// preprocessor, so the screen sees the names that token pasting, stringizing and macro aliases
// build. The source is prepared first:
// * #include, #include_next, #import, #embed and #line are blanked: the screen reads only the
//   candidate's own text, and the engine opens no file a candidate names;
// * every #if, #ifdef, #elif, #else and #endif is blanked, so every branch is read, as the raw
//   screen reads it, whatever macros the real compiler predefines;
// * each macro is also expanded once where it is defined (with placeholder arguments), so a
//   definition that a later one replaces, or that nothing uses, is seen too.
// Blanked lines keep their place and the expansions are renumbered with #line, so the line
// markers of the output give every token its line in the source. The preprocessor runs in a
// fresh folder with no include path, bounded in time, memory and output; it never runs code.
class MacroExpander
{
public:
    enum class Status
    {
        Expanded,    // text holds the preprocessor's output
        Unavailable, // no preprocessor on this machine (or it did not start): nothing to add
        TooLarge     // the expansion ran past its bounds; detail says which
    };
    struct Result
    {
        Status status = Status::Unavailable;
        QString text;
        QString detail;
    };

    static constexpr qint64 kMaxOutputBytes = qint64(32) << 20;
    static constexpr int kTimeoutMs = 10000;

    // `fileName`: the name the line markers give the source (the screen's candidate file).
    static Result expand(const QString &source, const QString &fileName);

    // The text the preprocessor reads (see the class comment).
    static QString prepared(const QString &source);

    // g++, c++, clang++ or cpp from PATH; empty when there is none.
    static QString preprocessor();
};

} // namespace kiln
