#pragma once

#include "core/backend.h"
#include "policies/offline/counterrng.h"
#include "tasks/task.h"

#include <QString>
#include <QStringList>

namespace kiln {

// Turns a correct variant into a realistic broken one, the way language models break kernels:
// compile errors, wrong results and gaming of the verifier (verifier.md's threat model).
// Categories: "compile_error", "wrong", "gaming". Every kind edits real source text; the
// injected kind is recorded in candidate.policyMeta so tests and the UI can check the verifier.
// Backend::Torch candidates (Python with Triton kernels) go to PythonDefectInjector.
class DefectInjector
{
public:
    static QStringList compileErrorKinds();
    static QStringList wrongResultKinds();
    // Gaming mechanisms that fit the task and backend (e.g. side streams only on CUDA).
    static QStringList gamingKinds(const Task &task, Backend backend);
    static QStringList kinds(const QString &category, const Task &task, Backend backend);

    struct Outcome
    {
        bool applied = false;
        QString kind; // the kind actually applied (a fallback kind when the first had no site)
        int line = 0; // 1-based line of the edit
    };
    // Applies `kind` of `category`; when the source offers no site for it, tries the other kinds
    // of the category in a random order. Leaves the source unchanged when nothing applies.
    static Outcome apply(QString *source, const QString &category, const QString &kind,
                         const Task &task, Backend backend, CounterRng &rng);
};

} // namespace kiln
