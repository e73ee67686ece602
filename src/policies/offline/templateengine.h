#pragma once

#include <QMap>
#include <QString>
#include <QStringList>

namespace kiln {

// A small logic-light template language for kernel variant sources (docs/offline-policy.md):
//   {{NAME}}                          the value of variable NAME (an error when undefined)
//   {{#if COND}} .. {{#elif COND}} .. {{else}} .. {{/if}}   nestable conditionals
//   {{! comment }}                    dropped
// COND is `NAME`, `NAME == v`, `NAME != v`, `NAME < v` (<, <=, >, >= compare numbers),
// combined with `&&`, `||`, `!` and parentheses. The left side of a comparison is always a
// variable, the right side a literal. A line holding only a block tag disappears with its
// newline, so templates stay readable without leaving blank lines in the output.
class TemplateEngine
{
public:
    struct Result
    {
        bool ok = false;
        QString text;
        QString error;
        int errorLine = 0; // 1-based line of the template where rendering failed
    };

    static Result render(const QString &source, const QMap<QString, QString> &variables);
    // Every variable name the template refers to, in first-use order (syntax errors ignored).
    static QStringList referencedVariables(const QString &source);
};

} // namespace kiln
