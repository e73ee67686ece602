#include "tasks/task.h"

#include "tasks/sizeexpression.h"

#include <QJsonArray>

#include <cmath>
#include <limits>

namespace kiln {

namespace {

QString cType(const QString &dtype)
{
    if (dtype == QLatin1String("f32"))
        return QStringLiteral("float");
    if (dtype == QLatin1String("i32"))
        return QStringLiteral("int");
    return dtype; // the loader rejects anything else
}

} // namespace

QString TaskParameter::declaration() const
{
    const QString type = cType(dtype);
    switch (role) {
    case Role::Input:
        return QStringLiteral("const %1* %2").arg(type, name);
    case Role::Output:
        return QStringLiteral("%1* %2").arg(type, name);
    case Role::Scalar:
        break;
    }
    return QStringLiteral("%1 %2").arg(type, name);
}

QString Task::signature(Backend backend) const
{
    if (isKernelBench())
        return QStringLiteral("class ModelNew(nn.Module)");
    QStringList declarations;
    for (const TaskParameter &parameter : parameters)
        declarations.append(parameter.declaration());
    if (backend == Backend::Cuda)
        declarations.append(QStringLiteral("cudaStream_t stream"));
    return QStringLiteral("void %1(%2)").arg(entry, declarations.join(QStringLiteral(", ")));
}

QString Task::kernelSignature() const
{
    return QStringLiteral("__global__ ") + signature(Backend::Cpu);
}

qint64 Task::elementCount(const TaskParameter &parameter, const ShapeConfig &shape) const
{
    if (!parameter.isBuffer()) {
        const double value = scalarValue(parameter, shape);
        return std::isfinite(value) ? qint64(value) : -1;
    }
    qint64 count = 1;
    for (const QString &dimension : parameter.shape) {
        const auto extent = SizeExpression::evaluate(dimension, shape.sizes);
        if (!extent || *extent < 0 || *extent != std::floor(*extent) || *extent > 1e15)
            return -1;
        count *= qint64(*extent);
        if (count > (qint64(1) << 50))
            return -1;
    }
    return count;
}

double Task::scalarValue(const TaskParameter &parameter, const ShapeConfig &shape) const
{
    const auto value = SizeExpression::evaluate(parameter.value, shape.sizes);
    return value ? *value : std::numeric_limits<double>::quiet_NaN();
}

double Task::bytesMoved(const ShapeConfig &shape) const
{
    const auto value = SizeExpression::evaluate(rooflineBytes, shape.sizes);
    return value ? *value : std::numeric_limits<double>::quiet_NaN();
}

double Task::flops(const ShapeConfig &shape) const
{
    const auto value = SizeExpression::evaluate(rooflineFlops, shape.sizes);
    return value ? *value : std::numeric_limits<double>::quiet_NaN();
}

QJsonObject Task::summaryJson() const
{
    QJsonArray backendNames;
    QJsonObject signatures;
    for (Backend backend : backends()) {
        backendNames.append(backendName(backend));
        signatures.insert(backendName(backend), signature(backend));
    }
    QJsonObject summary{{QStringLiteral("name"), name},
                        {QStringLiteral("title"), title},
                        {QStringLiteral("backends"), backendNames},
                        {QStringLiteral("signature"), signatures},
                        {QStringLiteral("shapes"), int(correctnessShapes.size())}};
    if (isKernelBench())
        summary.insert(QStringLiteral("kernelbench_level"), kernelBench->level);
    return summary;
}

const TaskParameter *Task::parameter(const QString &parameterName) const
{
    for (const TaskParameter &candidate : parameters) {
        if (candidate.name == parameterName)
            return &candidate;
    }
    return nullptr;
}

ShapeConfig Task::timedShape(Backend backend) const
{
    if (timingShapes.contains(backend))
        return timingShapes.value(backend);
    return correctnessShapes.isEmpty() ? ShapeConfig() : correctnessShapes.last();
}

QMap<QString, qint64> Task::largestCheckedSizes() const
{
    QMap<QString, qint64> largest;
    for (const ShapeConfig &shape : correctnessShapes)
        for (auto it = shape.sizes.constBegin(); it != shape.sizes.constEnd(); ++it)
            largest[it.key()] = std::max(largest.value(it.key()), it.value());
    return largest;
}

QString Task::shapeLabel(const ShapeConfig &shape) const
{
    if (!shape.label.isEmpty())
        return shape.label;
    QStringList parts;
    for (const QString &size : sizes)
        parts.append(QStringLiteral("%1=%2").arg(size).arg(shape.sizes.value(size)));
    return parts.join(QLatin1Char(','));
}

} // namespace kiln
