#pragma once

#include "policies/offline/counterrng.h"
#include "policies/offline/defectinjector.h"

#include <QString>
#include <QStringList>

namespace kiln {

// DefectInjector's counterpart for KernelBench candidates written in Python with Triton
// kernels (a ModelNew whose forward launches @triton.jit functions). The same three categories
// ("compile_error", "wrong", "gaming"); every kind edits the Python text the way a model breaks
// it, at a site of the candidate's own code. The kinds, and the verifier flag each gaming kind
// must raise, are listed in the .cpp beside the functions that find their sites.
class PythonDefectInjector
{
public:
    static QStringList compileErrorKinds();
    static QStringList wrongResultKinds();
    // Gaming kinds with a site in `source` (an empty source: every gaming kind).
    static QStringList gamingKinds(const QString &source);
    static QStringList kinds(const QString &category, const QString &source);

    // Applies `kind` of `category`; when the source offers no site for it, tries the other
    // kinds of the category in a random order. Leaves the source unchanged when nothing applies.
    static DefectInjector::Outcome apply(QString *source, const QString &category,
                                         const QString &kind, CounterRng &rng);
};

} // namespace kiln
