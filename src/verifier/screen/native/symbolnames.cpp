#include "verifier/screen/native/symbolnames.h"

#include <QRegularExpression>

#include <cstdlib>
#include <cxxabi.h>

namespace kiln {

bool SymbolNames::startsWithAny(const QString &name, const QStringList &prefixes)
{
    for (const QString &prefix : prefixes) {
        if (name.startsWith(prefix))
            return true;
    }
    return false;
}

QString SymbolNames::plainName(const QString &symbol)
{
    if (!symbol.startsWith(QLatin1String("_Z")))
        return symbol;
    QString last;
    for (int i = 2; i < symbol.size();) {
        if (!symbol[i].isDigit()) {
            ++i;
            continue;
        }
        int length = 0;
        while (i < symbol.size() && symbol[i].isDigit())
            length = length * 10 + symbol[i++].digitValue();
        last = symbol.mid(i, length);
        i += length;
    }
    return last.isEmpty() ? symbol : last;
}

QStringList SymbolNames::mangledParts(const QString &symbol)
{
    QStringList parts;
    if (!symbol.startsWith(QLatin1String("_Z")))
        return parts;
    for (int i = 2; i < symbol.size();) {
        if (!symbol[i].isDigit()) {
            ++i;
            continue;
        }
        int length = 0;
        while (i < symbol.size() && symbol[i].isDigit())
            length = length * 10 + symbol[i++].digitValue();
        if (length <= 0 || i + length > symbol.size())
            continue; // a number of a template argument (Li256E), not a name
        parts << symbol.mid(i, length);
        i += length;
    }
    return parts;
}

QString SymbolNames::demangled(const QString &symbol)
{
    if (!symbol.startsWith(QLatin1String("_Z")))
        return symbol;
    int status = 0;
    char *text = abi::__cxa_demangle(symbol.toLatin1().constData(), nullptr, nullptr, &status);
    const QString result = status == 0 && text ? QString::fromLatin1(text) : symbol;
    std::free(text);
    return result;
}

QString SymbolNames::readable(const QString &text)
{
    static const QRegularExpression mangled(QStringLiteral("\\b_Z[A-Za-z0-9_$.]+"));
    QString out;
    qsizetype from = 0;
    for (const QRegularExpressionMatch &m : mangled.globalMatch(text)) {
        out += text.mid(from, m.capturedStart() - from) + demangled(m.captured());
        from = m.capturedEnd();
    }
    return out + text.mid(from);
}

} // namespace kiln
