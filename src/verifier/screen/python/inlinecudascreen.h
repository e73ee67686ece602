#pragma once

#include "tasks/task.h"
#include "verifier/screen/python/pythonnames.h"
#include "verifier/screen/python/pythonsource.h"
#include "verifier/screen/screenflags.h"

#include <QList>
#include <QMap>
#include <QSet>
#include <QString>

namespace kiln {

// The C++/CUDA a KernelBench candidate compiles with torch.utils.cpp_extension.load_inline:
// the cpp_sources/cuda_sources values are evaluated from the Python text (string literals,
// names bound to them, `+`, lists, f-strings with plain fields) and screened with the CUDA
// screen as raw text (which also reads it with its macros expanded), then with the rules that
// only matter inside a PyTorch extension (ATen ops, cuBLAS handles, torch streams, Python
// C-API), on the text as written and expanded. The compiler flags are screened too.
// Sources the text does not determine are a flag: what the screen cannot read it cannot pass.
class InlineCudaScreen
{
public:
    // `cudaTask`: the task handed to the CUDA screen (its forbidden libraries, its dtypes);
    // `extraOps`: ATen op names that count as compute (the reference's).
    InlineCudaScreen(const PythonSource &source, const PythonNames &names, const Task &cudaTask,
                     bool reducedPrecisionAllowed, const QSet<QString> &extraOps,
                     ScreenFlags *flags);

    void run();
    // Compute the C++ does with ATen (torch::softmax, x.matmul(...)), by canonical op.
    const QMap<QString, QList<int>> &ops() const { return m_ops; }

    // Source text with, for each of its lines, the Python line it came from.
    struct MappedText
    {
        QString text;
        QList<int> lines;
    };

private:
    void screenCall(const PythonNames::Reference &call);
    void screenArgument(const QString &keyword, int position, int first, int last, int line);
    bool evaluate(int first, int last, QList<MappedText> *out, int depth) const;
    bool evaluateStrings(int first, int last, QList<MappedText> *out) const;
    bool evaluateName(const QString &name, QList<MappedText> *out, int depth) const;
    bool evaluateFlags(int first, int last, QStringList *flags, int depth) const;
    QString fieldValue(const QString &field) const;
    void screenSource(const MappedText &source, int line);
    // `pastingHides`: token pasting (##) is a finding, the expansion being unknown.
    void screenTorchTokens(const QString &text, const QList<int> &lines, bool pastingHides);
    void screenTorchIdentifier(const QString &name, const QString &before, const QString &scope,
                               const QString &after, int line);
    void screenIncludes(const QString &text, const QList<int> &lines);
    void screenCompilerFlags(const QStringList &flags, int line);

    const PythonSource &m_source;
    const PythonNames &m_names;
    const Task &m_cudaTask;
    bool m_reducedPrecisionAllowed = false;
    QSet<QString> m_extraOps;
    ScreenFlags *m_flags;
    QMap<QString, QList<int>> m_ops;
};

} // namespace kiln
