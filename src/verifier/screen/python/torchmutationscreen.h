#pragma once

#include "verifier/screen/python/pythonnames.h"
#include "verifier/screen/python/pythonsource.h"
#include "verifier/screen/screenflags.h"

#include <QHash>
#include <QSet>
#include <QString>

namespace kiln {

// What a KernelBench candidate writes to, for torch_monkey_patch and
// torch_state_between_calls. An attribute or item may be written only on an object the
// candidate created in the same scope, or on self; writing through a name that leads to a
// module (`torch.cuda.Event = ...`, `T.cuda.Event` with `import torch as T`,
// `setattr(time, "perf_counter", f)`, `sys.modules[...]`, `os.environ[...]`), to a class, to a
// call's result or to an object of unknown origin (a parameter, a loop variable) is patching.
// Writes to self outside __init__, to module-level objects inside functions, and mutable
// default arguments keep state between calls (advisory).
class TorchMutationScreen
{
public:
    TorchMutationScreen(const PythonSource &source, const PythonNames &names, ScreenFlags *flags);
    void run();

private:
    enum class Trailer
    {
        Attribute,
        Subscript,
        Call
    };
    void readCreatedNames();
    bool isFresh(int first, int last) const;
    void screenStatement(int statement);
    void screenAssignmentTargets(int first, int last);
    void screenComprehensions(int first, int last);
    void screenTarget(int first, int last);
    bool parseChain(int first, int last, QList<Trailer> *trailers, QString *dotted) const;
    void screenChain(int head, const QList<Trailer> &trailers, const QString &dotted, int line);
    void screenCalls();
    void screenDefaults();
    QString scopeName(int token) const;

    const PythonSource &m_source;
    const PythonNames &m_names;
    ScreenFlags *m_flags;
    QHash<int, QSet<QString>> m_created;  // scope (function, -1: module) -> names it creates
    QHash<int, QSet<QString>> m_assigned; // scope -> names it binds at all
    QSet<QString> m_classNames;
};

} // namespace kiln
