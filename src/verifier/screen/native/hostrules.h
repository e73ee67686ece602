#pragma once

#include "tasks/task.h"
#include "verifier/screen/native/candidatecode.h"
#include "verifier/screen/native/elfsymbols.h"
#include "verifier/screen/screenflags.h"

#include <QMap>
#include <QString>
#include <QStringList>

namespace kiln {

// The static screen's rules for host C++ (verifier.md "Static screen"), which every candidate
// gets, a CUDA one included: calls that reach outside the kernel (files, processes, signals,
// dynamic loading ...), hidden state, inline assembly, reduced precision and forbidden
// libraries in the candidate's tokens; then the same in the object's imports, plus definitions
// that interpose on the runtime or its clocks and mutable statics.
class HostRules
{
public:
    // fp32Task: every tensor of the task is f32, so half types are a precision downgrade.
    // cuda: the candidate is a CUDA source, whose CUDA-specific names CudaRules judges.
    HostRules(const Task &task, const CandidateCode &code, bool fp32Task, bool cuda);

    void screenTokens(ScreenFlags &flags) const;
    void screenSymbols(const ElfSymbols &symbols, ScreenFlags &flags) const;

private:
    void screenIdentifier(int i, ScreenFlags &flags) const;
    void screenInlineAsm(int i, ScreenFlags &flags) const;
    bool isReducedPrecision(const QString &name, const QString &after) const;
    void screenImports(const ElfSymbols &symbols, ScreenFlags &flags) const;
    void screenDefinitions(const ElfSymbols &symbols, ScreenFlags &flags) const;
    void screenMutableObjects(const ElfSymbols &symbols, ScreenFlags &flags) const;

    const Task &m_task;
    const CandidateCode &m_code;
    const bool m_fp32Task;
    const bool m_cuda;
    QStringList m_forbiddenPrefixes; // of the task's forbidden libraries
    bool m_halfIsVariable = false;
};

} // namespace kiln
