#include "verifier/harness/bufferlayout.h"

namespace kiln {

namespace {

qint64 alignUp(qint64 value, qint64 alignment)
{
    return (value + alignment - 1) / alignment * alignment;
}

bool isBuffer(const TaskParameter &parameter)
{
    return parameter.role != TaskParameter::Role::Scalar;
}

} // namespace

qint64 BufferLayout::reserve(qint64 bytes)
{
    const qint64 guardStart = alignUp(m_end, m_alignment);
    const qint64 offset = guardStart + kGuardBytes;
    m_guards.append({guardStart, kGuardBytes});
    m_end = offset + alignUp(qMax<qint64>(bytes, 4), m_alignment);
    m_guards.append({offset + bytes, m_end + kGuardBytes - (offset + bytes)});
    m_end += kGuardBytes;
    return offset;
}

PlacedBuffers BufferLayout::place(const Task &task, const ShapeConfig &shape)
{
    PlacedBuffers placed;
    for (int p = 0; p < task.parameters.size(); ++p) {
        const TaskParameter &parameter = task.parameters[p];
        if (!isBuffer(parameter))
            continue;
        PlacedBuffers::Buffer buffer;
        buffer.parameter = p;
        buffer.bytes = 4 * task.elementCount(parameter, shape);
        buffer.output = parameter.role == TaskParameter::Role::Output;
        buffer.offset = reserve(buffer.bytes);
        placed.buffers.append(buffer);
    }
    return placed;
}

QByteArray PlacedBuffers::argumentWords(const Task &task, const ShapeConfig &shape) const
{
    QByteArray pointers, ints, reals;
    int intCount = 0, realCount = 0;
    for (const Buffer &buffer : buffers)
        pointers += ' ' + QByteArray::number(buffer.offset);
    for (const TaskParameter &parameter : task.parameters) {
        if (parameter.role != TaskParameter::Role::Scalar)
            continue;
        const double value = task.scalarValue(parameter, shape);
        if (parameter.dtype == QLatin1String("i32")) {
            ints += ' ' + QByteArray::number(qint64(value));
            ++intCount;
        } else {
            reals += ' ' + QByteArray::number(value, 'g', 17);
            ++realCount;
        }
    }
    return QByteArray::number(buffers.size()) + pointers + ' ' + QByteArray::number(intCount) +
           ints + ' ' + QByteArray::number(realCount) + reals;
}

} // namespace kiln
