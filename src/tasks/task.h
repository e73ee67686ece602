#pragma once

#include "core/backend.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace kiln {

// How input values are drawn (verifier.md: normal, uniform, heavy-tailed, offset).
struct ValueDistribution
{
    enum class Kind
    {
        Normal,
        Uniform,
        StudentT
    };
    QString name;
    Kind kind = Kind::Normal;
    double a = 0.0;      // normal: mean; uniform: low;  student_t: degrees of freedom
    double b = 1.0;      // normal: std;  uniform: high; student_t: scale
    double offset = 0.0; // added to every value
};

// One entry parameter of a task's kernel, in signature order.
struct TaskParameter
{
    enum class Role
    {
        Input,
        Output,
        Scalar
    };
    QString name;
    Role role = Role::Input;
    QString dtype;     // "f32" or "i32"
    QStringList shape; // buffers: dimension expressions over the task's sizes, e.g. {"rows","cols"}
    QString value;     // scalars: an expression over the sizes ("n") or a literal ("1e-5")
    // Inputs only: a fixed distribution that overrides the run's distribution for this buffer
    // (layernorm's gamma and beta stay near 1 and 0 so the tolerance can stay tight).
    std::optional<ValueDistribution> distribution;

    bool isBuffer() const { return role != Role::Scalar; }
    // "const float* x", "float* y", "int n", "float eps".
    QString declaration() const;
};

// Named sizes of one problem instance, e.g. {rows: 7, cols: 1000}.
struct ShapeConfig
{
    QString label; // optional; "rows=7,cols=1000" when absent
    QMap<QString, qint64> sizes;
};

// |got - expected| <= abs + rel * |expected| + scaled * S, where S is the reference output
// computed on the absolute values of the inputs (Σ|a_ik·b_kj| for matmul, Σ|x| for a sum):
// scale-aware for reductions, and tight enough that fp16 arithmetic fails.
struct Tolerance
{
    double abs = 0.0;
    double rel = 0.0;
    double scaled = 0.0;
};

// Where a KernelBench problem came from: its level (1-3), its number within the level and the
// file it was imported from. Such a task has no C entry: its reference is the problem's Python
// source (referenceSource[Backend::Torch]) and candidates are a ModelNew module.
struct KernelBenchProblem
{
    int level = 0;
    int number = 0;
    QString file;
};

struct Task
{
    QString name; // folder name and entry symbol
    QString title;
    QString description; // good enough to paste into an LLM prompt
    QString entry;
    QStringList sizes;
    QList<TaskParameter> parameters;
    QList<ShapeConfig> correctnessShapes;
    QMap<Backend, ShapeConfig> timingShapes;
    QList<ValueDistribution> distributions;
    QMap<QString, Tolerance> tolerances; // by dtype
    QString rooflineBytes;               // expression over the sizes
    QString rooflineFlops;
    QMap<Backend, QStringList> allowedLibraries;
    QStringList forbiddenLibraries;               // e.g. cublas, cudnn, cub, blas
    QMap<Backend, QString> referenceSource;       // file contents, not paths
    QMap<Backend, QString> libraryBaselineSource; // e.g. cuBLAS for matmul on CUDA
    QMap<Backend, QStringList> libraryBaselineLibraries;
    QString directory; // where it was loaded from (":/tasks/x" for embedded ones)
    std::optional<KernelBenchProblem> kernelBench;
    // The kernel language a run judges this KernelBench problem's candidates in (RunConfig's
    // --language, set on the run's copy of the task); empty: VerifierOptions::torchLanguage.
    QString candidateLanguage;

    bool isKernelBench() const { return kernelBench.has_value(); }

    QList<Backend> backends() const { return referenceSource.keys(); }
    // The exact C declaration of the entry, e.g.
    // "void vector_add(const float* a, const float* b, float* c, int n)"; CUDA appends
    // ", cudaStream_t stream".
    QString signature(Backend backend) const;
    // The device-only CUDA form's entry (tasks/launchgeometry.h), without the stream:
    // "__global__ void vector_add(const float* a, const float* b, float* c, int n)".
    QString kernelSignature() const;
    // Number of elements of a buffer parameter for a shape; scalars give their value.
    qint64 elementCount(const TaskParameter &parameter, const ShapeConfig &shape) const;
    double scalarValue(const TaskParameter &parameter, const ShapeConfig &shape) const;
    double bytesMoved(const ShapeConfig &shape) const;
    double flops(const ShapeConfig &shape) const;
    QJsonObject summaryJson() const; // one entry of `kiln-cli tasks --json`

    // The declared parameter named `name` (nullptr when absent); the tolerance of a dtype
    // (all zero when absent); the shape's label, or "rows=7,cols=1000" in declaration order.
    const TaskParameter *parameter(const QString &name) const;
    Tolerance tolerance(const QString &dtype) const { return tolerances.value(dtype); }
    QString shapeLabel(const ShapeConfig &shape) const;
    // The shape a backend is timed on: its own timing shape, else the last correctness shape.
    ShapeConfig timedShape(Backend backend) const;
    // The largest value each size takes over the correctness shapes.
    QMap<QString, qint64> largestCheckedSizes() const;
};

} // namespace kiln
