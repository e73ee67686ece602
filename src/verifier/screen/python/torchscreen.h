#pragma once

#include "core/cheatflag.h"
#include "languages/kernellanguage.h"
#include "tasks/task.h"

#include <QList>
#include <QString>

namespace kiln {

// The static screen for KernelBench candidates (Backend::Torch): a Python module defining
// ModelNew, usually with C++/CUDA built by load_inline. The Python text is read as Python
// reads it (comments and docstrings do not count, aliases and getattr with literal names are
// followed); the inline C++/CUDA sources are evaluated from the text and screened with the
// CUDA screen, their flags pointing at lines of the Python file. Python-level rules: the
// reference Model, fallbacks, PyTorch or libraries computing the answer, monkey-patching,
// threads, lazy tensors, streams, precision, introspection and state kept between calls
// (docs/verifier.md lists them). The task supplies the reference (referenceSource[Torch]).
// The run's kernel language decides which Python modules are the candidate's own means (Triton
// in a Triton run) and which of its names ask for reduced precision; a candidate written in
// another language is `language_mismatch`.
class TorchScreen
{
public:
    // In the default language, inline CUDA.
    static QList<CheatFlag> screen(const Task &task, const QString &candidateSource);
    static QList<CheatFlag> screen(const Task &task, const QString &candidateSource,
                                   const KernelLanguage &language);
};

} // namespace kiln
