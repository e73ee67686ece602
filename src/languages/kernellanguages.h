#pragma once

#include "languages/kernellanguage.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace kiln {

// Every kernel language Kiln knows for KernelBench problems, inline CUDA first (the default).
// A new language is a KernelLanguage subclass in this folder, listed in all().
class KernelLanguages
{
public:
    static const QList<const KernelLanguage *> &all();
    static QStringList ids();
    // nullptr when no language has this id.
    static const KernelLanguage *find(const QString &id);
    static const KernelLanguage &defaultLanguage() { return *all().first(); }
    // The language a source writes its kernels in: the first whose writtenIn() holds, else
    // nullptr (a module of PyTorch calls alone).
    static const KernelLanguage *detect(const QString &source);
    // The language that owns a Python module ("triton" -> Triton), or nullptr.
    static const KernelLanguage *owningModule(const QString &module);
};

} // namespace kiln
