#pragma once

#include "tasks/task.h"

#include <QList>
#include <QString>
#include <optional>

namespace kiln {

// The shapes a task allows besides those it declares, derived from the declared correctness
// shapes conservatively, since task.json states no range: each size between the smallest and the
// largest value those shapes give it, a multiple of the greatest common divisor of those values,
// equal to an earlier size wherever every declared shape has the two equal, fixed where they all
// agree, and no shape holding more elements than the largest declared one or any timing shape.
// Only for tasks whose sizes are plain (each the extent of a dimension of some buffer): sizes
// that only enter expressions may be tied in ways no declared shape shows. The verifier draws
// its hidden shapes from this range with the run's secret (docs/verifier.md, "Correctness
// inputs: the visible set and the hidden set").
class ShapeRange
{
public:
    struct Size
    {
        QString name;
        qint64 low = 1;
        qint64 high = 1;
        qint64 step = 1; // every value is a multiple of it
        int sameAs = -1; // an earlier size (index into sizes()) it always equals, or -1
    };

    // Null where the task declares no correctness shape or a size is not plain.
    static std::optional<ShapeRange> of(const Task &task);

    const QList<Size> &sizes() const { return m_sizes; }
    qint64 elementCap() const { return m_elementCap; }
    // Elements of all the task's buffers at `shape` (every dtype is 4 bytes); -1 where one does
    // not evaluate to a whole count.
    static qint64 elements(const Task &task, const ShapeConfig &shape);
    // Whether `shape` lies in the range and every parameter evaluates for it as the task loader
    // requires of a declared shape (whole positive buffer sizes, i32 scalars that fit an int).
    bool admits(const Task &task, const ShapeConfig &shape) const;
    // Up to `count` shapes drawn from `seed`, none a declared correctness shape and none twice.
    // The first has every free size an odd multiple of its step, the second an even one, the
    // rest either; a free size is never a power of two where its range has another value. Fewer
    // come back where the range is too narrow. The same (task, seed, count) always gives the
    // same shapes.
    QList<ShapeConfig> draw(const Task &task, quint64 seed, int count) const;

private:
    enum class Parity
    {
        Odd,
        Even,
        Either
    };
    class Draws;

    std::optional<ShapeConfig> drawOne(const Task &task, Draws &draws, Parity parity) const;
    qint64 unitsFor(Draws &draws, const Size &size, Parity parity) const;
    static qint64 adjusted(qint64 units, const Size &size, bool odd);
    // Halves the largest free size until the shape fits the element cap; false if it cannot.
    bool shrink(const Task &task, ShapeConfig &shape) const;
    void applyTies(ShapeConfig &shape) const;

    QList<Size> m_sizes;
    qint64 m_elementCap = 0;
};

} // namespace kiln
