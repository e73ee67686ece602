#pragma once

#include <QList>
#include <QString>

namespace kiln {

// A fenced block found in a model's answer.
struct CodeBlock
{
    QString language;  // the fence's info string, lower case ("cuda", "cpp", "" ...)
    QString code;      // without the fences, '\n' line endings
    int startLine = 0; // 1-based line of the opening fence in the answer
    bool terminated = true;
};

// The outcome of looking for the candidate in an answer.
struct ExtractedCode
{
    bool found = false;
    QString code;
    QString language;
    int blockIndex = -1; // index among all fenced blocks
    int blockCount = 0;
    QString reason; // why nothing was found ("no code")
};

// Picks the candidate source out of a model's answer: the fenced block (``` or ~~~, any info
// string such as cuda / cpp / c++) that defines the task's entry function. When several do, the
// last wins (models tend to end with the final version); an unterminated fence runs to the end of
// the answer; CRLF is normalised. A <think>...</think> prefix (reasoning some local servers inline
// in the content) is never searched.
class CodeExtractor
{
public:
    static ExtractedCode extract(const QString &answer, const QString &entry);
    // A KernelBench answer: the last fenced block (```python, ```py or any other) that defines a
    // top-level `class <className>`; the reason names the class when none does.
    static ExtractedCode extractModule(const QString &answer,
                                       const QString &className = QStringLiteral("ModelNew"));
    static QList<CodeBlock> blocks(const QString &answer);
    // True when code contains a definition (not a declaration or a call) of entry.
    static bool definesEntry(const QString &code, const QString &entry);
    // True when Python code defines `class name` at the top level (not indented, not a comment).
    static bool definesClass(const QString &code, const QString &name);
    // Splits a leading <think>...</think> section off an answer: returns the reasoning and leaves
    // the rest in *answer.
    static QString splitThinking(QString *answer);
};

} // namespace kiln
