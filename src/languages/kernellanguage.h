#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace kiln {

// A language a KernelBench candidate writes its kernels in (docs/kernelbench.md, "Languages").
// Each is a small plugin of facts the rest of Kiln applies: how a candidate is built, which of
// its Python modules are the language itself rather than a library computing the answer, which
// of its names ask for reduced precision, how its kernels are named in a profiler trace, and
// which prompt template asks a model for it. Nothing here runs Python or a compiler.
class KernelLanguage
{
public:
    // When a candidate's kernels are compiled.
    enum class Build
    {
        AtImport,    // load_inline at import: a build process of its own, cached by source
        OnFirstCall, // a JIT: in the candidate's own process, on a warm-up call before its
                     // process loses exec (the compiler runs then)
    };
    // A call whose keyword argument asks for reduced precision: tl.dot(input_precision="tf32").
    struct PrecisionKeyword
    {
        QString call;       // the called name's last part ("dot")
        QString keyword;    // "input_precision"
        QStringList values; // values that reduce precision ("tf32", "tf32x3", "True")
        QString category;   // the screen's precision category ("tf32")
        int position = -1;  // the keyword's place among positional arguments (0-based)
    };

    virtual ~KernelLanguage() = default;

    virtual QString id() const = 0;          // "cuda", "triton": CLI --language, stored runs
    virtual QString displayName() const = 0; // "inline CUDA", "Triton"
    // The Python module it needs beside torch, and the distribution that carries its version
    // (empty for inline CUDA: torch's cpp_extension and nvcc serve).
    virtual QString pythonModule() const { return {}; }
    virtual QString distribution() const { return {}; }
    virtual Build build() const = 0;
    // Whether a source writes its kernels in this language.
    virtual bool writtenIn(const QString &source) const = 0;
    // The kernels the source defines, by the names the source gives them.
    virtual QStringList kernelNames(const QString &source) const = 0;
    // Whether a kernel of a profiler trace (its name without namespaces, template arguments
    // and parameters) is one of `kernels`: by default the same name.
    virtual bool ownsTraceKernel(const QString &traceName, const QStringList &kernels) const
    {
        return kernels.contains(traceName);
    }
    // Top-level Python modules that are the language itself: no library computing the answer.
    virtual QStringList ownModules() const { return {}; }
    // Dotted names inside those modules that compute the answer anyway ("triton.ops").
    virtual QStringList libraryParts() const { return {}; }
    // Attribute names of its dtypes below fp32, by the screen's precision category.
    virtual QList<QPair<QString, QString>> reducedDtypes() const { return {}; }
    virtual QList<PrecisionKeyword> precisionKeywords() const { return {}; }
    // The prompt template (src/policies/resources/prompts/<name>.md) that asks for it.
    virtual QString promptTemplate() const = 0;
    // Environment its compiler reads in the candidate's process, set by the sandbox.
    virtual QStringList environment(const QString &workDir) const;

protected:
    // Whether the source imports `module` (or one of its submodules) at a line's start.
    static bool importsModule(const QString &source, const QString &module);
    // Names of the functions a decorator marks whose dotted name matches `decorator` (a regular
    // expression over the whole name: "(\\w+\\.)?jit" for @triton.jit, @tr.jit and @jit),
    // among any other decorators of the def.
    static QStringList decoratedFunctions(const QString &source, const QString &decorator);
};

} // namespace kiln
