#include "verifier/screen/native/hostrules.h"

#include "verifier/screen/native/asmstatement.h"
#include "verifier/screen/native/cudarules.h"
#include "verifier/screen/native/forbiddencalls.h"
#include "verifier/screen/native/sourcetokenizer.h"
#include "verifier/screen/native/symbolnames.h"

#include <QList>
#include <QPair>
#include <QSet>
#include <dlfcn.h>

namespace kiln {

namespace {

// Imports that count even though the source never spells them (libstdc++ wrappers).
const QList<QPair<const char *, const char *>> &importPrefixes()
{
    static const QList<QPair<const char *, const char *>> prefixes = {
        {"threads_detached", "_ZNSt6thread6detachEv"}, {"file_access", "_ZNSt14basic_ofstream"},
        {"file_access", "_ZNSt14basic_ifstream"},      {"file_access", "_ZNSt13basic_fstream"},
        {"file_access", "_ZNSt13basic_filebuf"},       {"process_exit", "_ZSt4exit"},
        {"precision_downgrade", "__extendhfsf2"},      {"precision_downgrade", "__truncsfhf2"},
        {"precision_downgrade", "__truncsfbf2"},       {"precision_downgrade", "__extendbfsf2"},
    };
    return prefixes;
}

// Library prefixes per forbidden-library name of task.json.
const QMap<QString, QStringList> &libraryPrefixes()
{
    static const QMap<QString, QStringList> prefixes = {
        {QStringLiteral("blas"),
         {QStringLiteral("cblas_"), QStringLiteral("sgemm_"), QStringLiteral("dgemm_"),
          QStringLiteral("sgemv_"), QStringLiteral("saxpy_"), QStringLiteral("sdot_"),
          QStringLiteral("openblas_"), QStringLiteral("blis_"), QStringLiteral("bli_")}},
        {QStringLiteral("mkl"), {QStringLiteral("mkl_"), QStringLiteral("MKL_")}},
        {QStringLiteral("eigen"), {QStringLiteral("_ZN5Eigen"), QStringLiteral("Eigen")}},
    };
    return prefixes;
}

// Runtime prefixes that are interposition even when the engine has not loaded that runtime.
const QStringList &runtimePrefixes()
{
    static const QStringList prefixes = {QStringLiteral("GOMP_"),    QStringLiteral("omp_"),
                                         QStringLiteral("pthread_"), QStringLiteral("__libc_"),
                                         QStringLiteral("_dl_"),     QStringLiteral("__cxa_")};
    return prefixes;
}

// Half and bfloat16 types of the compilers and of the x86 vector extensions.
const QSet<QString> &halfTypes()
{
    static const QSet<QString> names = {
        QStringLiteral("_Float16"),  QStringLiteral("__fp16"),     QStringLiteral("__bf16"),
        QStringLiteral("bfloat16"),  QStringLiteral("__half"),     QStringLiteral("__nv_bfloat16"),
        QStringLiteral("float16_t"), QStringLiteral("bfloat16_t"), QStringLiteral("__m128bh"),
        QStringLiteral("__m256bh"),  QStringLiteral("__m512bh"),   QStringLiteral("__m512h"),
        QStringLiteral("__m256h"),   QStringLiteral("__m128h")};
    return names;
}

} // namespace

HostRules::HostRules(const Task &task, const CandidateCode &code, bool fp32Task, bool cuda)
    : m_task(task), m_code(code), m_fp32Task(fp32Task), m_cuda(cuda),
      m_halfIsVariable(code.declaresVariableNamed(QStringLiteral("half")))
{
    for (const QString &library : task.forbiddenLibraries)
        m_forbiddenPrefixes += libraryPrefixes().value(library.toLower());
}

void HostRules::screenTokens(ScreenFlags &flags) const
{
    for (int i = 0; i < m_code.size(); ++i) {
        const SourceToken &token = m_code.token(i);
        if (token.kind == SourceToken::Kind::String) {
            if (token.text.contains(QLatin1String("/proc/")) ||
                token.text == QLatin1String("/proc"))
                flags.add(QStringLiteral("proc_access"), token.line, token.text.left(40));
        } else if (token.kind == SourceToken::Kind::Identifier) {
            screenIdentifier(i, flags);
        }
    }
}

void HostRules::screenIdentifier(int i, ScreenFlags &flags) const
{
    const SourceToken &token = m_code.token(i);
    const QString &name = token.text;
    const QString after = m_code.text(i + 1);
    const QString before = m_code.text(i - 1);
    const bool member = before == QLatin1String(".") || before == QLatin1String("->");
    // A function of the candidate's own (a device helper named `read`) is not the C library's;
    // defining one of the library's names is judged in the object (symbol_interposition).
    if (after == QLatin1String("(") && !member && !m_code.definesFunction(name)) {
        if (const QString flag = ForbiddenCalls::flagOf(name); !flag.isEmpty())
            flags.add(flag, token.line, name);
    }
    if (name == QLatin1String("thread_local") || name == QLatin1String("__thread"))
        flags.add(QStringLiteral("static_state"), token.line, name);
    if (name == QLatin1String("detach") && member && after == QLatin1String("("))
        flags.add(QStringLiteral("threads_detached"), token.line, QStringLiteral("detach()"));
    if (name == QLatin1String("constructor") || name == QLatin1String("__constructor__")) {
        if (before == QLatin1String("(") || before == QLatin1String(","))
            flags.add(QStringLiteral("load_time_code"), token.line);
    }
    if (m_code.isAsmKeyword(i))
        screenInlineAsm(i, flags);
    if (m_fp32Task && isReducedPrecision(name, after))
        flags.add(QStringLiteral("precision_downgrade"), token.line, name);
    for (const QString &prefix : m_forbiddenPrefixes) {
        if (name.startsWith(prefix) ||
            (prefix.endsWith(QLatin1Char('_')) && name == prefix.chopped(1)))
            flags.add(QStringLiteral("forbidden_library"), token.line, name);
    }
}

// Inline assembly is advice, unless its template makes a system call, hides instructions
// the source does not spell, or calls code: then it bypasses every name screened above.
void HostRules::screenInlineAsm(int i, ScreenFlags &flags) const
{
    const AsmStatement statement(m_code, i);
    const AsmStatement::Finding clock = statement.clockRead();
    flags.add(QStringLiteral("inline_asm"), statement.line(),
              clock.found() ? clock.what + QStringLiteral(" reads a clock") : QString());
    if (const AsmStatement::Finding call = statement.systemCall(); call.found())
        flags.add(QStringLiteral("raw_system_calls"), statement.lineAt(call.offset),
                  QStringLiteral("asm ") + call.what);
    if (const AsmStatement::Finding data = statement.hiddenInstructions(); data.found())
        flags.add(QStringLiteral("raw_system_calls"), statement.lineAt(data.offset),
                  QStringLiteral("asm ") + data.what + QStringLiteral(": code written as data"));
    const AsmStatement::Finding call = statement.call();
    if (!call.found())
        return;
    const QString flag = call.what == QLatin1String("*") ? QStringLiteral("dynamic_loading")
                                                         : ForbiddenCalls::flagOf(call.what);
    if (!flag.isEmpty())
        flags.add(flag, statement.lineAt(call.offset), QStringLiteral("asm call ") + call.what);
}

// Only asked of an fp32 task, where any half-precision type or conversion is a downgrade.
bool HostRules::isReducedPrecision(const QString &name, const QString &after) const
{
    // "half" only where it is used as a type: followed by a name or a pointer, and never
    // when the candidate has a variable of that name (then `half * rows` multiplies).
    const bool halfAsType = name == QLatin1String("half") && !m_halfIsVariable &&
                            (after == QLatin1String("*") ||
                             (!after.isEmpty() && SourceTokenizer::isIdentifierStart(after[0])));
    const bool conversion =
        name.startsWith(QLatin1String("_mm")) &&
        (name.contains(QLatin1String("cvtps_ph")) || name.contains(QLatin1String("cvtneps_pbh")) ||
         name.contains(QLatin1String("_ph")));
    // CUDA: "half" is judged by CudaRules (kernels name variables "half").
    return halfTypes().contains(name) || (halfAsType && !m_cuda) || conversion;
}

void HostRules::screenSymbols(const ElfSymbols &symbols, ScreenFlags &flags) const
{
    screenImports(symbols, flags);
    screenDefinitions(symbols, flags);
    screenMutableObjects(symbols, flags);
}

void HostRules::screenImports(const ElfSymbols &symbols, ScreenFlags &flags) const
{
    for (const QString &import : symbols.undefined) {
        const QList<int> lines = m_code.linesOf(SymbolNames::plainName(import));
        const QString flag = ForbiddenCalls::flagOf(import);
        // nvcc replaces every __device__ function's host body with a call to exit(): the
        // import alone is no finding, a call in the candidate's own code is.
        if (m_cuda && import == QLatin1String("exit") && lines.isEmpty())
            continue;
        if (!flag.isEmpty() && import != QLatin1String("terminate"))
            flags.add(flag, lines, import);
        for (const auto &[id, prefix] : importPrefixes()) {
            if (import.startsWith(QLatin1String(prefix)))
                flags.add(QString::fromLatin1(id), lines, import);
        }
        if (SymbolNames::startsWithAny(import, m_forbiddenPrefixes))
            flags.add(QStringLiteral("forbidden_library"), lines, import);
    }
}

void HostRules::screenDefinitions(const ElfSymbols &symbols, ScreenFlags &flags) const
{
    QStringList definitions = symbols.defined;
    for (const QString &weak : symbols.weakDefined) {
        if (ForbiddenCalls::isTimerFunction(weak))
            definitions.append(weak);
    }
    for (const QString &symbol : definitions) {
        if (symbol == m_task.entry || (m_cuda && CudaRules::isCudaApiName(symbol)))
            continue; // CUDA runtime names: CudaRules::screenSymbols
        const QList<int> lines = m_code.linesOf(SymbolNames::plainName(symbol));
        if (ForbiddenCalls::isTimerFunction(symbol)) {
            flags.add(QStringLiteral("timer_tampering"), lines, symbol);
            continue;
        }
        bool runtime = SymbolNames::startsWithAny(symbol, runtimePrefixes());
        // Anything the engine's own runtime (libc, libm, libstdc++) exports would be
        // interposed for the candidate's code.
        runtime = runtime || ::dlsym(RTLD_DEFAULT, symbol.toLatin1().constData()) != nullptr;
        if (runtime)
            flags.add(QStringLiteral("symbol_interposition"), lines, symbol);
    }
}

void HostRules::screenMutableObjects(const ElfSymbols &symbols, ScreenFlags &flags) const
{
    for (const QString &object : symbols.mutableObjects) {
        // Guard variables of local statics and <iostream>'s initialiser are not state.
        if (object.startsWith(QLatin1String("_ZGV")) || object.startsWith(QLatin1String("_ZStL")) ||
            object.startsWith(QLatin1String("DW.ref.")) ||
            (m_cuda && CudaRules::isGeneratedCudaObject(object)))
            continue;
        const QString name = SymbolNames::plainName(object);
        flags.add(QStringLiteral("static_state"), m_code.linesOf(name).mid(0, 1), name);
    }
}

} // namespace kiln
