#include "verifier/screen/native/elfsymbols.h"

#include <cstring>
#include <elf.h>

namespace kiln {

namespace {

template <typename T> bool readAt(const QByteArray &data, quint64 offset, T &out)
{
    if (offset > quint64(data.size()) || sizeof(T) > quint64(data.size()) - offset)
        return false;
    std::memcpy(&out, data.constData() + offset, sizeof(T));
    return true;
}

QString stringAt(const QByteArray &data, quint64 tableOffset, quint64 tableSize, quint64 index)
{
    if (index >= tableSize || tableOffset + tableSize > quint64(data.size()))
        return {};
    const char *start = data.constData() + tableOffset + index;
    const qsizetype maxLength = qsizetype(tableSize - index);
    return QString::fromLatin1(start, qstrnlen(start, size_t(maxLength)));
}

} // namespace

ElfSymbols ElfSymbols::read(const QByteArray &object)
{
    ElfSymbols symbols;
    Elf64_Ehdr header;
    if (!readAt(object, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
        header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr))
        return symbols;
    QList<Elf64_Shdr> sections;
    for (int i = 0; i < header.e_shnum; ++i) {
        Elf64_Shdr section;
        if (!readAt(object, header.e_shoff + quint64(i) * sizeof(Elf64_Shdr), section))
            return symbols;
        sections.append(section);
    }
    for (const Elf64_Shdr &table : sections) {
        if (table.sh_type != SHT_SYMTAB || table.sh_link >= quint64(sections.size()))
            continue;
        const Elf64_Shdr &strings = sections[table.sh_link];
        const quint64 count = table.sh_entsize ? table.sh_size / table.sh_entsize : 0;
        for (quint64 i = 1; i < count; ++i) {
            Elf64_Sym symbol;
            if (!readAt(object, table.sh_offset + i * sizeof(Elf64_Sym), symbol))
                return symbols;
            const QString name =
                stringAt(object, strings.sh_offset, strings.sh_size, symbol.st_name);
            if (name.isEmpty())
                continue;
            const int binding = ELF64_ST_BIND(symbol.st_info);
            const int type = ELF64_ST_TYPE(symbol.st_info);
            if (type == STT_SECTION || type == STT_FILE)
                continue;
            if (symbol.st_shndx == SHN_UNDEF) {
                if (binding != STB_LOCAL)
                    symbols.undefined.append(name);
                continue;
            }
            if (binding == STB_GLOBAL)
                symbols.defined.append(name);
            else if (binding == STB_WEAK)
                symbols.weakDefined.append(name);
            // Writable, but not relocation-only read-only data (vtables, typeinfo).
            bool writable = symbol.st_shndx < sections.size() &&
                            (sections[symbol.st_shndx].sh_flags & SHF_WRITE);
            if (writable && header.e_shstrndx < sections.size()) {
                const Elf64_Shdr &names = sections[header.e_shstrndx];
                writable = !stringAt(object, names.sh_offset, names.sh_size,
                                     sections[symbol.st_shndx].sh_name)
                                .startsWith(QLatin1String(".data.rel.ro"));
            }
            if ((type == STT_OBJECT || type == STT_TLS) && writable) {
                symbols.mutableObjects.append(name);
                if (sections[symbol.st_shndx].sh_type == SHT_NOBITS)
                    symbols.zeroFilled.append(name);
            }
        }
    }
    symbols.valid = true;
    return symbols;
}

} // namespace kiln
