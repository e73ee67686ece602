#pragma once

#include "verifier/screen/python/pythonnames.h"
#include "verifier/screen/python/pythonsource.h"

#include <QList>
#include <QMap>
#include <QSet>
#include <QString>

namespace kiln {

// The compute a PyTorch module's forward does with PyTorch itself: torch.* / F.* functions,
// tensor methods, arithmetic operators on tensors and calls of the submodules it builds
// (nn.Linear ...), followed into the helpers and classes forward uses. Op names are
// canonical, so F.relu, torch.relu, x.relu_() and nn.ReLU are one op, and matmul, mm, addmm,
// F.linear, nn.Linear and `@` are another. Calls into a load_inline extension are collected
// beside them, and so are launches of the candidate's own kernels of another language (a
// Triton `kernel[grid](...)`), whose bodies are kernel code, not PyTorch.
class TorchOps
{
public:
    // `extraOps`: canonical names that count as compute when called as methods of a value
    // (the reference's ops, when reading a candidate); known compute methods always count.
    // `ownKernels`: functions of the source that are kernels (KernelLanguage::kernelNames).
    TorchOps(const PythonSource &source, const PythonNames &names, const QString &className,
             const QSet<QString> &extraOps = {}, const QStringList &ownKernels = {});

    bool found() const { return m_class >= 0; }
    int forwardLine() const { return m_forwardLine; }
    const QMap<QString, QList<int>> &ops() const { return m_ops; }
    const QList<int> &extensionCalls() const { return m_extensionCalls; }
    void addOp(const QString &op, int line);

    // "F.relu_" -> "relu", "LayerNorm" -> "layernorm", "addmm" -> "matmul".
    static QString canonical(const QString &name);
    // The op of a qualified torch function (torch.softmax, torch.nn.functional.relu,
    // torch.Tensor.sum, torch.ops.aten.mm.default); empty when it is no compute.
    static QString torchFunctionOp(const QString &qualified);
    static bool isKnownCompute(const QString &canonicalName);
    static bool isNonCompute(const QString &canonicalName);

private:
    void readModules();
    void readScalarNames();
    QStringList unpackedTargets(const PythonSource::Statement &statement) const;
    void collectReachable();
    void scanLambdas();
    void scanStoredFunctions();
    void reach(int function, QList<int> *work);
    void scanRange(int first, int last);
    void scanReference(const PythonNames::Reference &reference);
    void scanOperator(int token);
    QPair<int, int> leftOperand(int token) const;
    QPair<int, int> rightOperand(int token) const;
    bool isScalar(QPair<int, int> range) const;
    bool isUnaryPosition(int token) const;

    const PythonSource &m_source;
    const PythonNames &m_names;
    QSet<QString> m_extraOps;
    QSet<QString> m_ownKernels;
    int m_class = -1;
    int m_forwardLine = 0;
    QHash<QString, QSet<QString>> m_moduleOps; // self.<attribute> -> ops of the modules it holds
    QSet<QString> m_scalarNames;
    QSet<int> m_reachable; // functions
    QMap<QString, QList<int>> m_ops;
    QList<int> m_extensionCalls;
};

} // namespace kiln
