#include "verifier/harness/outputchecker.h"

#include "sandbox/elementcheck.h"
#include "sandbox/protocol.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kiln {

namespace {

double valueAt(const void *buffer, qint64 i, bool integer)
{
    if (integer) {
        qint32 v;
        std::memcpy(&v, static_cast<const char *>(buffer) + 4 * i, 4);
        return v;
    }
    float v;
    std::memcpy(&v, static_cast<const char *>(buffer) + 4 * i, 4);
    return v;
}

quint32 wordAt(const void *buffer, qint64 i)
{
    quint32 v;
    std::memcpy(&v, static_cast<const char *>(buffer) + 4 * i, 4);
    return v;
}

} // namespace

QJsonObject CheckResult::toJson() const
{
    return {{QStringLiteral("ok"), ok},
            {QStringLiteral("elements"), elements},
            {QStringLiteral("mismatches"), mismatches},
            {QStringLiteral("first_mismatch"), firstMismatch},
            {QStringLiteral("got"), std::isfinite(gotAtFirst) ? gotAtFirst : 0.0},
            {QStringLiteral("expected"), std::isfinite(expectedAtFirst) ? expectedAtFirst : 0.0},
            {QStringLiteral("max_abs_error"), maxAbsError},
            {QStringLiteral("max_rel_error"), maxRelError},
            {QStringLiteral("unwritten"), unwritten},
            {QStringLiteral("non_finite"), nonFinite}};
}

QString CheckResult::describe() const
{
    if (ok)
        return QStringLiteral("%1 elements within tolerance (max abs error %2, max rel error %3)")
            .arg(elements)
            .arg(maxAbsError, 0, 'g', 3)
            .arg(maxRelError, 0, 'g', 3);
    QString text = QStringLiteral("%1 of %2 elements wrong; first at index %3: got %4, expected %5")
                       .arg(mismatches)
                       .arg(elements)
                       .arg(firstMismatch)
                       .arg(gotAtFirst, 0, 'g', 7)
                       .arg(expectedAtFirst, 0, 'g', 7);
    if (unwritten)
        text += QStringLiteral("; %1 never written").arg(unwritten);
    if (nonFinite)
        text += QStringLiteral("; %1 NaN/Inf mismatches").arg(nonFinite);
    text += QStringLiteral("; max abs error %1, max rel error %2")
                .arg(maxAbsError, 0, 'g', 3)
                .arg(maxRelError, 0, 'g', 3);
    return text;
}

CheckResult OutputChecker::compare(const void *got, const void *expected, const void *scale,
                                   qint64 count, const QString &dtype, const Tolerance &tolerance)
{
    const bool integer = dtype == QLatin1String("i32");
    CheckResult result;
    result.elements = count;
    for (qint64 i = 0; i < count; ++i) {
        const check::KilnElementVerdict v = check::kilnCheckElement(
            wordAt(got, i), wordAt(expected, i), scale ? wordAt(scale, i) : 0u, scale != nullptr,
            integer, sandbox::kSentinelWord, tolerance.abs, tolerance.rel, tolerance.scaled);
        result.unwritten += v.unwritten;
        result.nonFinite += v.nonFinite;
        result.maxAbsError = std::max(result.maxAbsError, v.absError);
        result.maxRelError = std::max(result.maxRelError, v.relError);
        if (v.bad) {
            if (result.firstMismatch < 0) {
                result.firstMismatch = i;
                result.gotAtFirst = v.got;
                result.expectedAtFirst = v.expected;
            }
            ++result.mismatches;
        }
    }
    result.ok = result.mismatches == 0;
    return result;
}

OutputChecker::Shape OutputChecker::outputShape(const void *got, const void *expected, qint64 count,
                                                const QString &dtype)
{
    if (count < 16)
        return Shape::Follows;
    const bool integer = dtype == QLatin1String("i32");
    double meanE = 0, meanG = 0;
    double minE = INFINITY, maxE = -INFINITY, minG = INFINITY, maxG = -INFINITY;
    for (qint64 i = 0; i < count; ++i) {
        const double e = valueAt(expected, i, integer), g = valueAt(got, i, integer);
        if (!std::isfinite(e) || !std::isfinite(g))
            return Shape::Follows;
        meanE += e;
        meanG += g;
        minE = std::min(minE, e), maxE = std::max(maxE, e);
        minG = std::min(minG, g), maxG = std::max(maxG, g);
    }
    meanE /= count;
    meanG /= count;
    const double magnitude = std::max(std::fabs(maxE), std::fabs(minE));
    if (maxE - minE <= 1e-3 * magnitude)
        return Shape::Follows; // the reference itself is (nearly) constant: nothing to compare
    if (maxG - minG <= 1e-6 * std::max(std::fabs(maxG), std::fabs(minG)))
        return Shape::Constant;
    double covariance = 0, varE = 0, varG = 0;
    for (qint64 i = 0; i < count; ++i) {
        const double de = valueAt(expected, i, integer) - meanE;
        const double dg = valueAt(got, i, integer) - meanG;
        covariance += de * dg;
        varE += de * de;
        varG += dg * dg;
    }
    const double correlation = covariance / std::sqrt(varE * varG);
    return correlation > 0.9 ? Shape::Follows : Shape::Uncorrelated;
}

bool OutputChecker::guardIntact(const void *guard, qint64 bytes)
{
    for (qint64 i = 0; i < bytes / 4; ++i) {
        if (wordAt(guard, i) != sandbox::kGuardWord)
            return false;
    }
    return true;
}

bool OutputChecker::guardsIntact(const char *base, const QList<QPair<qint64, qint64>> &guards)
{
    for (const auto &[offset, bytes] : guards) {
        if (!guardIntact(base + offset, bytes))
            return false;
    }
    return true;
}

void OutputChecker::fillGuard(void *guard, qint64 bytes)
{
    for (qint64 i = 0; i < bytes / 4; ++i)
        std::memcpy(static_cast<char *>(guard) + 4 * i, &sandbox::kGuardWord, 4);
}

void OutputChecker::fillSentinel(void *output, qint64 bytes)
{
    for (qint64 i = 0; i < bytes / 4; ++i)
        std::memcpy(static_cast<char *>(output) + 4 * i, &sandbox::kSentinelWord, 4);
}

} // namespace kiln
