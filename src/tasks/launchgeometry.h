#pragma once

#include "tasks/sizeexpression.h"
#include "tasks/task.h"

#include <QString>
#include <array>
#include <optional>

namespace kiln {

// The device-only candidate form (the CUDA backend's NVRTC fast path; part of the candidate ABI,
// which prompts and the offline policy write to): the entry is an extern "C" __global__ kernel
// with the task's signature minus the stream, and one comment line gives the launch:
//   // kiln-launch: grid=(EXPR[, EXPR[, EXPR]]) block=(EXPR[, ...]) [shared=EXPR]
// EXPRs use the task's size names; each is evaluated in real arithmetic and rounded down.
class LaunchGeometry
{
public:
    struct Dims
    {
        std::array<qint64, 3> grid{1, 1, 1};
        std::array<qint64, 3> block{1, 1, 1};
        qint64 sharedBytes = 0;
    };

    // nullopt when the source has no kiln-launch line (then it needs nvcc), or when the line is
    // malformed: then *error says why.
    static std::optional<LaunchGeometry> parse(const QString &source, QString *error);
    // The launch for one shape; error when a dimension is not a positive number.
    std::optional<Dims> evaluate(const ShapeConfig &shape, QString *error) const;
    // Parameter kinds in signature order for the sandbox: P pointer, I int32, F float32.
    static QByteArray signatureCode(const Task &task);
    int line() const { return m_line; }
    // The expressions as written: one to three each for grid and block.
    QStringList gridTexts() const { return texts(m_grid); }
    QStringList blockTexts() const { return texts(m_block); }
    QString sharedText() const { return m_shared.text(); }

private:
    static QStringList texts(const QList<SizeExpression> &expressions);

    QList<SizeExpression> m_grid;
    QList<SizeExpression> m_block;
    SizeExpression m_shared{QStringLiteral("0")};
    int m_line = 0;
};

} // namespace kiln
