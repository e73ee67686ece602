#include "verifier/screen/native/staticscreen.h"

#include "verifier/screen/native/candidatecode.h"
#include "verifier/screen/native/cudarules.h"
#include "verifier/screen/native/hostrules.h"
#include "verifier/screen/native/sourcetokenizer.h"
#include "verifier/screen/screenflags.h"

#include <optional>

namespace kiln {

namespace {

// Whether every tensor of the task is f32: then half precision anywhere is a downgrade.
bool isFp32Task(const Task &task)
{
    bool fp32Task = true;
    for (const TaskParameter &parameter : task.parameters) {
        if (parameter.role != TaskParameter::Role::Scalar &&
            parameter.dtype != QLatin1String("f32"))
            fp32Task = false;
    }
    return fp32Task;
}

} // namespace

bool StaticScreen::isPreprocessed(const QString &text)
{
    return SourceTokenizer::isPreprocessed(text);
}

QList<int> StaticScreen::lineDirectiveLines(const QString &source)
{
    return SourceTokenizer::lineDirectiveLines(source);
}

QList<StaticScreen::Token> StaticScreen::candidateTokens(const QString &preprocessed,
                                                         const QString &candidateFile)
{
    return SourceTokenizer::candidateTokens(preprocessed, candidateFile);
}

QList<CheatFlag> StaticScreen::screen(const Task &task, const QString &preprocessed,
                                      const QString &candidateFile, const ElfSymbols &symbols)
{
    return screen(task, Backend::Cpu, preprocessed, candidateFile, symbols);
}

QList<CheatFlag> StaticScreen::screen(const Task &task, Backend backend,
                                      const QString &preprocessed, const QString &candidateFile,
                                      const ElfSymbols &symbols)
{
    const bool cuda = backend == Backend::Cuda;
    const CandidateCode code(candidateTokens(preprocessed, candidateFile));
    const bool fp32Task = isFp32Task(task);
    const HostRules hostRules(task, code, fp32Task, cuda);
    std::optional<CudaRules> cudaRules;
    if (cuda)
        cudaRules.emplace(task, code, fp32Task);

    // The order of the rules is the order of the flags in the result.
    ScreenFlags flags;
    hostRules.screenTokens(flags);
    if (cudaRules)
        cudaRules->screenTokens(flags);
    // A raw source (NVRTC) is screened as written; a #line there would mislead the compiler's
    // diagnostics and any later preprocessed screen.
    if (!isPreprocessed(preprocessed)) {
        for (int line : lineDirectiveLines(preprocessed))
            flags.add(QStringLiteral("line_directive"), line);
    }
    if (symbols.valid) {
        if (cudaRules)
            cudaRules->screenSymbols(symbols, flags);
        hostRules.screenSymbols(symbols, flags);
    }
    return flags.flags();
}

} // namespace kiln
