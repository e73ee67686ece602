#include "verifier/screen/native/staticscreen.h"

#include "verifier/screen/native/candidatecode.h"
#include "verifier/screen/native/cudarules.h"
#include "verifier/screen/native/hostrules.h"
#include "verifier/screen/native/indirectcallrules.h"
#include "verifier/screen/native/macroexpander.h"
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

// The rules that read tokens, in the order their flags are listed.
void screenCode(const Task &task, bool cuda, const CandidateCode &code, ScreenFlags &flags)
{
    const bool fp32Task = isFp32Task(task);
    HostRules(task, code, fp32Task, cuda).screenTokens(flags);
    if (cuda)
        CudaRules(task, code, fp32Task).screenTokens(flags);
    IndirectCallRules(code).screenTokens(flags);
}

// A raw source, screened as written above, screened again with its macros expanded: what only
// the expansion shows (a flag, or a line, the raw text did not raise) is added, saying so.
void screenExpansion(const Task &task, bool cuda, const MacroExpander::Result &expansion,
                     const QString &candidateFile, ScreenFlags &flags)
{
    if (expansion.status == MacroExpander::Status::TooLarge)
        flags.add(QStringLiteral("unscreenable_source"), 0, expansion.detail);
    if (expansion.status != MacroExpander::Status::Expanded)
        return;
    const CandidateCode expanded(SourceTokenizer::candidateTokens(expansion.text, candidateFile));
    ScreenFlags found;
    screenCode(task, cuda, expanded, found);
    const QList<CheatFlag> raw = flags.flags();
    for (const CheatFlag &flag : found.flags()) {
        QList<int> lines = flag.lines;
        bool known = false;
        for (const CheatFlag &seen : raw) {
            if (seen.id != flag.id)
                continue;
            known = true;
            lines.removeIf([&](int line) { return seen.lines.contains(line); });
        }
        if (known && lines.isEmpty())
            continue;
        const QString detail = ScreenFlags::detailOf(flag);
        flags.add(flag.id, lines,
                  (detail.isEmpty() ? QString() : detail + QLatin1Char(' ')) +
                      QStringLiteral("after macro expansion"));
    }
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
    return screen(task, backend, preprocessed, candidateFile, symbols,
                  isPreprocessed(preprocessed)
                      ? MacroExpander::Result()
                      : MacroExpander::expand(preprocessed, candidateFile));
}

QList<CheatFlag> StaticScreen::screen(const Task &task, Backend backend,
                                      const QString &preprocessed, const QString &candidateFile,
                                      const ElfSymbols &symbols,
                                      const MacroExpander::Result &expansion)
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
    screenCode(task, cuda, code, flags);
    // A raw source (NVRTC, load_inline) is screened as written and with its macros expanded;
    // a #line there would mislead the compiler's diagnostics and any later preprocessed screen.
    if (!isPreprocessed(preprocessed)) {
        for (int line : lineDirectiveLines(preprocessed))
            flags.add(QStringLiteral("line_directive"), line);
        screenExpansion(task, cuda, expansion, candidateFile, flags);
    }
    if (symbols.valid) {
        if (cudaRules)
            cudaRules->screenSymbols(symbols, flags);
        hostRules.screenSymbols(symbols, flags);
    }
    return flags.flags();
}

} // namespace kiln
