#include "languages/kernellanguages.h"

#include "languages/cudainlinelanguage.h"
#include "languages/cutedsllanguage.h"
#include "languages/tilelanglanguage.h"
#include "languages/tritonlanguage.h"

namespace kiln {

const QList<const KernelLanguage *> &KernelLanguages::all()
{
    static const CudaInlineLanguage cuda;
    static const TritonLanguage triton;
    static const CuteDslLanguage cute;
    static const TileLangLanguage tilelang;
    static const QList<const KernelLanguage *> languages = {&cuda, &triton, &cute, &tilelang};
    return languages;
}

QStringList KernelLanguages::ids()
{
    QStringList ids;
    for (const KernelLanguage *language : all())
        ids.append(language->id());
    return ids;
}

const KernelLanguage *KernelLanguages::find(const QString &id)
{
    for (const KernelLanguage *language : all()) {
        if (language->id() == id)
            return language;
    }
    return nullptr;
}

const KernelLanguage *KernelLanguages::detect(const QString &source)
{
    // The JIT languages first: a Triton module may still import cpp_extension for a helper.
    for (qsizetype i = all().size() - 1; i >= 0; --i) {
        if (all()[i]->writtenIn(source))
            return all()[i];
    }
    return nullptr;
}

const KernelLanguage *KernelLanguages::owningModule(const QString &module)
{
    for (const KernelLanguage *language : all()) {
        if (language->ownModules().contains(module))
            return language;
    }
    return nullptr;
}

} // namespace kiln
