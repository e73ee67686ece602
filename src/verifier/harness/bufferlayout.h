#pragma once

#include "tasks/task.h"

#include <QByteArray>
#include <QList>

namespace kiln {

// Where one set of a task's buffers lives in the shared memory the candidate sees.
struct PlacedBuffers
{
    struct Buffer
    {
        int parameter = -1; // index into Task::parameters
        qint64 offset = 0;
        qint64 bytes = 0;
        bool output = false;
    };
    QList<Buffer> buffers; // buffer parameters in signature order
    QByteArray argumentWords(const Task &task, const ShapeConfig &shape) const; // for "args"
};

// Bump allocator over the shared buffer: 64-byte alignment (the CPU ABI promise; 256 on the GPU)
// and guard bands in front of and behind every buffer, so stray writes land where they are seen.
class BufferLayout
{
public:
    static constexpr qint64 kAlignment = 64;
    static constexpr qint64 kGpuAlignment = 256;
    static constexpr qint64 kGuardBytes = 256;

    explicit BufferLayout(qint64 alignment = kAlignment) : m_alignment(alignment) {}

    PlacedBuffers place(const Task &task, const ShapeConfig &shape);
    qint64 reserve(qint64 bytes); // a raw region (with guards), returns its offset
    qint64 size() const { return m_end + kGuardBytes; }
    // Every guard band placed so far (offset, bytes).
    const QList<QPair<qint64, qint64>> &guards() const { return m_guards; }

private:
    qint64 m_alignment;
    qint64 m_end = 4096;
    QList<QPair<qint64, qint64>> m_guards;
};

} // namespace kiln
