#pragma once

#include "tasks/task.h"

#include <QJsonObject>
#include <QList>
#include <QPair>

namespace kiln {

// Outcome of comparing one output buffer with the reference's.
struct CheckResult
{
    bool ok = true;
    qint64 elements = 0;
    qint64 mismatches = 0;
    qint64 firstMismatch = -1;
    double gotAtFirst = 0.0;
    double expectedAtFirst = 0.0;
    double maxAbsError = 0.0;
    double maxRelError = 0.0;
    qint64 unwritten = 0; // elements still holding the sentinel
    qint64 nonFinite = 0; // NaN/Inf where the reference is finite, or the reverse

    QJsonObject toJson() const;
    QString describe() const; // one line for a student
};

// Tolerance checks of verifier.md: |got - expected| <= abs + rel*|expected| + scaled*S.
class OutputChecker
{
public:
    // scale may be null (then the scaled term is 0); dtype "f32" or "i32".
    static CheckResult compare(const void *got, const void *expected, const void *scale,
                               qint64 count, const QString &dtype, const Tolerance &tolerance);
    // How an output relates to a reference that varies: Constant (got does not vary at all:
    // gaming even when the values are off), Uncorrelated (got varies but does not follow the
    // reference: gaming when it still passed the tolerance), or Follows.
    enum class Shape
    {
        Follows,
        Constant,
        Uncorrelated
    };
    static Shape outputShape(const void *got, const void *expected, qint64 count,
                             const QString &dtype);
    static bool guardIntact(const void *guard, qint64 bytes);
    // Every guard band of a layout (offset, bytes), read in the buffer at base.
    static bool guardsIntact(const char *base, const QList<QPair<qint64, qint64>> &guards);
    static void fillGuard(void *guard, qint64 bytes);
    static void fillSentinel(void *output, qint64 bytes);
};

} // namespace kiln
