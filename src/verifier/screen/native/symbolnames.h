#pragma once

#include <QString>
#include <QStringList>

namespace kiln {

// Reading the names in a symbol or identifier: the parts of a mangled C++ name, and matching a
// name against a family of prefixes (a library's, a runtime's).
class SymbolNames
{
public:
    // Whether name begins with one of the prefixes.
    static bool startsWithAny(const QString &name, const QStringList &prefixes);

    // The readable name inside a mangled symbol, for finding its lines: "_ZZ3fooE5cache" ->
    // cache. Other symbols are returned as they are.
    static QString plainName(const QString &symbol);

    // The length-prefixed names inside a mangled symbol: "_ZN3cub12DeviceReduce3SumE..." ->
    // cub, DeviceReduce, Sum. Empty for a symbol that is not mangled.
    static QStringList mangledParts(const QString &symbol);

    // "_ZNSt6thread6detachEv" -> "std::thread::detach()"; a name that is not mangled, or that
    // does not demangle, is returned as it is.
    static QString demangled(const QString &symbol);
    // A text with every mangled C++ name in it demangled (a flag's detail, a linker's message).
    static QString readable(const QString &text);
};

} // namespace kiln
