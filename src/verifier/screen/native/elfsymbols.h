#pragma once

#include <QByteArray>
#include <QStringList>

namespace kiln {

// The symbol table of the candidate's own object file (g++ -c output, or NVRTC's cubin; ELF64):
// what it imports, what it defines, and which mutable variables it keeps.
struct ElfSymbols
{
    bool valid = false;
    QStringList undefined;      // imported functions and variables
    QStringList defined;        // global definitions (strong)
    QStringList weakDefined;    // weak definitions (inline functions, templates)
    QStringList mutableObjects; // variables in writable sections (static or global state)
    QStringList zeroFilled;     // those of them with no initial value (.bss, a cubin's .nv.global)

    static ElfSymbols read(const QByteArray &object);
};

} // namespace kiln
