#include "verifier/screen/native/symbolnames.h"

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

} // namespace kiln
