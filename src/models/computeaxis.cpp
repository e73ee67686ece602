#include "computeaxis.h"

namespace kiln {

const QList<ComputeAxis> &allComputeAxes()
{
    static const QList<ComputeAxis> axes{
        ComputeAxis::Samples,         ComputeAxis::PromptTokens, ComputeAxis::CompletionTokens,
        ComputeAxis::ReasoningTokens, ComputeAxis::AllTokens,    ComputeAxis::Evaluations,
        ComputeAxis::DeviceSeconds,   ComputeAxis::WallSeconds,  ComputeAxis::Cost};
    return axes;
}

QString computeAxisName(ComputeAxis axis)
{
    switch (axis) {
    case ComputeAxis::Samples:
        return QStringLiteral("samples");
    case ComputeAxis::PromptTokens:
        return QStringLiteral("prompt_tokens");
    case ComputeAxis::CompletionTokens:
        return QStringLiteral("completion_tokens");
    case ComputeAxis::ReasoningTokens:
        return QStringLiteral("reasoning_tokens");
    case ComputeAxis::AllTokens:
        return QStringLiteral("tokens");
    case ComputeAxis::Evaluations:
        return QStringLiteral("evals");
    case ComputeAxis::DeviceSeconds:
        return QStringLiteral("device_seconds");
    case ComputeAxis::WallSeconds:
        return QStringLiteral("wall_seconds");
    case ComputeAxis::Cost:
        return QStringLiteral("cost");
    }
    return {};
}

QString computeAxisTitle(ComputeAxis axis)
{
    switch (axis) {
    case ComputeAxis::AllTokens:
        return QStringLiteral("tokens (prompt + completion + reasoning)");
    case ComputeAxis::Evaluations:
        return QStringLiteral("evaluations");
    case ComputeAxis::DeviceSeconds:
        return QStringLiteral("device seconds (verifier time)");
    case ComputeAxis::WallSeconds:
        return QStringLiteral("wall seconds the run went (stops and pauses left out)");
    case ComputeAxis::Cost:
        return QStringLiteral("cost (USD, list price)");
    default:
        return computeAxisName(axis).replace(QLatin1Char('_'), QLatin1Char(' '));
    }
}

std::optional<ComputeAxis> computeAxisFromName(const QString &name)
{
    if (name == QLatin1String("seconds"))
        return ComputeAxis::WallSeconds;
    if (name == QLatin1String("device"))
        return ComputeAxis::DeviceSeconds;
    for (ComputeAxis axis : allComputeAxes())
        if (computeAxisName(axis) == name)
            return axis;
    return std::nullopt;
}

} // namespace kiln
