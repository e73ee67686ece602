#include "languages/cudainlinelanguage.h"

#include <QRegularExpression>

namespace kiln {

bool CudaInlineLanguage::writtenIn(const QString &source) const
{
    static const QRegularExpression build(QStringLiteral("\\b(load_inline|cpp_extension)\\b"));
    return build.match(source).hasMatch();
}

QStringList CudaInlineLanguage::kernelNames(const QString &source) const
{
    static const QRegularExpression bounds(QStringLiteral("__launch_bounds__\\s*\\([^)]*\\)"));
    static const QRegularExpression global(
        QStringLiteral("__global__\\s+[\\w:<>,\\s*&]*?\\b(\\w+)\\s*\\("));
    QString text = source;
    text.remove(bounds); // before or after the return type
    QStringList names;
    for (auto it = global.globalMatch(text); it.hasNext();) {
        const QString name = it.next().captured(1);
        if (!names.contains(name))
            names.append(name);
    }
    return names;
}

} // namespace kiln
