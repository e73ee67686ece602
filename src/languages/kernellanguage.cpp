#include "languages/kernellanguage.h"

#include <QRegularExpression>

namespace kiln {

QStringList KernelLanguage::environment(const QString &workDir) const
{
    Q_UNUSED(workDir);
    return {};
}

bool KernelLanguage::importsModule(const QString &source, const QString &module)
{
    const QRegularExpression import(
        QStringLiteral("^\\s*(import|from)\\s+%1\\b").arg(QRegularExpression::escape(module)),
        QRegularExpression::MultilineOption);
    return import.match(source).hasMatch();
}

QStringList KernelLanguage::decoratedFunctions(const QString &source, const QString &decorator)
{
    // Decorator lines (blank lines between them allowed), then the def they decorate.
    static const QRegularExpression def(
        QStringLiteral(
            "^((?:[ \\t]*@[^\\n]*\\n|[ \\t]*\\n)+)[ \\t]*(?:async[ \\t]+)?def[ \\t]+(\\w+)"),
        QRegularExpression::MultilineOption);
    const QRegularExpression wanted(
        QStringLiteral("^[ \\t]*@[ \\t]*(?:%1)[ \\t]*(?:\\(|$)").arg(decorator),
        QRegularExpression::MultilineOption);
    QStringList names;
    for (auto it = def.globalMatch(source); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        if (wanted.match(match.captured(1)).hasMatch() && !names.contains(match.captured(2)))
            names.append(match.captured(2));
    }
    return names;
}

} // namespace kiln
