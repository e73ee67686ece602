#pragma once

#include "tasks/task.h"
#include "verifier/screen/native/candidatecode.h"
#include "verifier/screen/native/elfsymbols.h"
#include "verifier/screen/screenflags.h"

#include <QList>
#include <QPair>
#include <QSet>
#include <QString>

namespace kiln {

// The static screen's CUDA rules (verifier.md: streams, L2 policies, libraries, precision,
// definitions of runtime functions), over the candidate's tokens and over the host object of
// `nvcc -c`. They come on top of HostRules.
class CudaRules
{
public:
    // fp32Task: every tensor of the task is f32, so half, bfloat16, fp8 and TF32 are a downgrade.
    CudaRules(const Task &task, const CandidateCode &code, bool fp32Task);

    void screenTokens(ScreenFlags &flags) const;
    void screenSymbols(const ElfSymbols &symbols, ScreenFlags &flags) const;

    // A name of the CUDA runtime or driver API (cudaMalloc, cuLaunchKernel, __cudaRegister...).
    static bool isCudaApiName(const QString &name);
    // Objects nvcc generates in every host object (fatbinary handles, launch stubs' statics) and
    // header-owned constants of libcu++/CUB/Thrust: not the candidate's state.
    static bool isGeneratedCudaObject(const QString &object);

private:
    using Range = QPair<int, int>; // tokens [first, last)

    int launchClose(int i) const;
    void screenLaunch(int i, ScreenFlags &flags) const;
    void screenIdentifier(int i, ScreenFlags &flags) const;
    void screenCall(int i, const QString &api, ScreenFlags &flags) const;
    void screenStreamArgument(int i, const QString &api, const QList<Range> &arguments,
                              ScreenFlags &flags) const;
    bool definesRuntimeFunction(int i, const QString &api, int close) const;
    void screenLibraries(int i, bool member, ScreenFlags &flags) const;
    void screenPrecision(int i, bool member, ScreenFlags &flags) const;
    void screenInlinePtx(int i, ScreenFlags &flags) const;
    void screenImports(const ElfSymbols &symbols, ScreenFlags &flags) const;
    void screenDefinitions(const ElfSymbols &symbols, ScreenFlags &flags) const;
    QList<int> linesOfSymbol(const QString &symbol) const;

    const Task &m_task;
    const CandidateCode &m_code;
    const bool m_fp32Task;
    QSet<QString> m_forbidden; // the task's forbidden libraries, lower case
    bool m_halfIsVariable = false;
    bool m_usesCub = false;
};

} // namespace kiln
