#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace kiln {

// A Python module read as Python reads it, for the KernelBench screen: tokens (comments gone,
// strings decoded, backslash continuations joined, names NFKC-normalised as the interpreter
// does), statements with their indentation (one-line bodies and `;` split off), and the
// functions and classes they form. Nothing is executed.
class PythonSource
{
public:
    struct Token
    {
        enum class Kind
        {
            Name,
            Number,
            String,
            Operator
        };
        Kind kind = Kind::Operator;
        QString text; // names normalised; strings: the literal as written
        int line = 0; // 1-based line of the first character
        // Strings: the value with escapes decoded (raw strings as written), and the Python line
        // of each line of it, so text found inside can be traced back.
        QString value;
        QList<int> valueLines;
        bool formatted = false;  // f-string: replacement fields are left out of value
        QStringList fields;      // their expressions, in order
        QList<int> fieldOffsets; // where each field stands in value
        bool opaque = false;     // holds an escape the screen cannot decode (\N{...})
        bool inField = false;    // code from an f-string's replacement field
    };
    struct Statement
    {
        int first = 0; // token range [first, last)
        int last = 0;
        int indent = 0;
        int parent = -1;       // the compound statement whose body holds it; -1: module level
        bool compound = false; // a header ending in ':' (def, class, if, for, with, try ...)
    };
    struct Function
    {
        QString name;
        int header = 0;  // statement index
        int bodyEnd = 0; // statements (header, bodyEnd) are the body
        int owner = -1;  // index in classes() when a method
        QStringList parameters;
        QList<QPair<int, int>> defaults; // token ranges of default values
        QStringList decorators;          // decorator texts, e.g. "staticmethod"
        int line = 0;
    };
    struct ClassDef
    {
        QString name;
        int header = 0;
        int bodyEnd = 0;
        int basesFirst = 0; // token range of the bases inside the parentheses
        int basesLast = 0;
        int line = 0;
    };

    explicit PythonSource(const QString &text);

    const QList<Token> &tokens() const { return m_tokens; }
    const QList<Statement> &statements() const { return m_statements; }
    const QList<Function> &functions() const { return m_functions; }
    const QList<ClassDef> &classes() const { return m_classes; }
    // Lines of a `# coding:` declaration naming an encoding other than UTF-8, ASCII or Latin-1
    // (UTF-7 can turn what reads as a comment into code).
    QList<int> unusualEncodingLines() const { return m_encodingLines; }

    // The innermost function / class whose body holds a token; -1 when none.
    int functionAt(int token) const { return m_functionOf.value(token, -1); }
    int classAt(int token) const { return m_classOf.value(token, -1); }
    int findClass(const QString &name) const;
    // The token range of a statement's body: (header's last token, last token of bodyEnd).
    QPair<int, int> bodyTokens(int header, int bodyEnd) const;
    // The index of the bracket closing the one opened at `open`, or `last` when unbalanced.
    int matchingClose(int open, int last) const;
    // Comma-separated items between first and last at bracket depth 0.
    QList<QPair<int, int>> splitItems(int first, int last) const;
    QString text(int first, int last) const;
    bool is(int index, QStringView text) const;

private:
    void tokenize(const QString &text, int firstLine, bool inField);
    void buildStatements();
    void addLogicalLine(int first, int last, int indent);
    void buildDefinitions();
    void readFunction(int statement, int bodyEnd);
    void readClass(int statement, int bodyEnd);
    int blockEnd(int header) const;

    QList<Token> m_tokens;
    QList<int> m_lineStarts; // token indexes that begin a logical line
    QList<int> m_lineIndents;
    QList<Statement> m_statements;
    QList<Function> m_functions;
    QList<ClassDef> m_classes;
    QList<int> m_functionOf;
    QList<int> m_classOf;
    QList<int> m_encodingLines;
};

} // namespace kiln
