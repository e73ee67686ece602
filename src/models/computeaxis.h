#pragma once

#include <QList>
#include <QString>
#include <optional>

namespace kiln {

// The compute a plot can put on its x-axis: every axis a budget can be spent on, with tokens
// split by kind.
enum class ComputeAxis
{
    Samples,
    PromptTokens,
    CompletionTokens,
    ReasoningTokens,
    AllTokens,
    Evaluations,
    DeviceSeconds,
    WallSeconds,
    Cost
};

const QList<ComputeAxis> &allComputeAxes();
// "samples", "prompt_tokens", "completion_tokens", "reasoning_tokens", "tokens", "evals",
// "device_seconds", "wall_seconds", "cost": the words of `kiln --x-axis`.
QString computeAxisName(ComputeAxis axis);
// The axis title: "samples", "prompt tokens", ..., "cost (USD)".
QString computeAxisTitle(ComputeAxis axis);
// Also accepts "seconds" (wall seconds) and "device" (device seconds).
std::optional<ComputeAxis> computeAxisFromName(const QString &name);

} // namespace kiln
