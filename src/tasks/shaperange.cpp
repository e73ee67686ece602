#include "tasks/shaperange.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>

namespace kiln {

// splitmix64: the draws depend on the seed alone, the same on every machine.
class ShapeRange::Draws
{
public:
    explicit Draws(quint64 seed) : m_state(seed) {}
    quint64 next()
    {
        quint64 z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next() >> 11) * (1.0 / 9007199254740992.0); } // [0, 1)
    bool coin() { return (next() >> 63) != 0; }

private:
    quint64 m_state;
};

namespace {

constexpr int kAttempts = 16; // draws per shape before the range counts as too narrow

bool isPowerOfTwo(qint64 value)
{
    return value > 0 && (value & (value - 1)) == 0;
}

// Whether every size of the task is, as written, the extent of a dimension of one of its buffers.
bool plainSizes(const Task &task)
{
    for (const QString &size : task.sizes) {
        bool extent = false;
        for (const TaskParameter &parameter : task.parameters)
            extent = extent || (parameter.isBuffer() && parameter.shape.contains(size));
        if (!extent)
            return false;
    }
    return !task.sizes.isEmpty();
}

// Whether sizes i and j are equal in every declared shape.
bool alwaysEqual(const Task &task, const QString &i, const QString &j)
{
    for (const ShapeConfig &shape : task.correctnessShapes)
        if (shape.sizes.value(i) != shape.sizes.value(j))
            return false;
    return true;
}

bool declared(const Task &task, const QList<ShapeConfig> &drawn, const ShapeConfig &shape)
{
    for (const ShapeConfig &known : task.correctnessShapes)
        if (known.sizes == shape.sizes)
            return true;
    for (const ShapeConfig &known : drawn)
        if (known.sizes == shape.sizes)
            return true;
    return false;
}

} // namespace

std::optional<ShapeRange> ShapeRange::of(const Task &task)
{
    if (task.correctnessShapes.isEmpty() || !plainSizes(task))
        return std::nullopt;
    ShapeRange range;
    for (const QString &name : task.sizes) {
        Size size{name, LLONG_MAX, 0, 0, -1};
        for (const ShapeConfig &shape : task.correctnessShapes) {
            const qint64 value = shape.sizes.value(name, 0);
            if (value < 1)
                return std::nullopt;
            size.low = std::min(size.low, value);
            size.high = std::max(size.high, value);
            size.step = std::gcd(size.step, value);
        }
        for (int j = 0; j < range.m_sizes.size() && size.low < size.high; ++j) {
            const Size &earlier = range.m_sizes[j];
            if (earlier.sameAs < 0 && alwaysEqual(task, earlier.name, name)) {
                size.sameAs = j;
                break;
            }
        }
        range.m_sizes.append(size);
    }
    for (const ShapeConfig &shape : task.correctnessShapes)
        range.m_elementCap = std::max(range.m_elementCap, elements(task, shape));
    for (const ShapeConfig &shape : task.timingShapes) {
        const qint64 timed = elements(task, shape);
        if (timed > 0)
            range.m_elementCap = std::min(range.m_elementCap, timed);
    }
    return range.m_elementCap > 0 ? std::optional<ShapeRange>(range) : std::nullopt;
}

qint64 ShapeRange::elements(const Task &task, const ShapeConfig &shape)
{
    qint64 total = 0;
    for (const TaskParameter &parameter : task.parameters) {
        if (!parameter.isBuffer())
            continue;
        const qint64 count = task.elementCount(parameter, shape);
        if (count < 0)
            return -1;
        total += count;
    }
    return total;
}

bool ShapeRange::admits(const Task &task, const ShapeConfig &shape) const
{
    for (const Size &size : m_sizes) {
        const qint64 value = shape.sizes.value(size.name, 0);
        if (value < size.low || value > size.high || value % size.step != 0 || value > INT_MAX)
            return false;
        if (size.sameAs >= 0 && value != shape.sizes.value(m_sizes[size.sameAs].name))
            return false;
    }
    const qint64 total = elements(task, shape);
    if (total < 1 || total > m_elementCap)
        return false;
    for (const TaskParameter &parameter : task.parameters) {
        if (parameter.isBuffer()) {
            if (task.elementCount(parameter, shape) < 1)
                return false;
            continue;
        }
        const double value = task.scalarValue(parameter, shape);
        if (!std::isfinite(value))
            return false;
        if (parameter.dtype == QLatin1String("i32") &&
            (value != std::floor(value) || value < INT_MIN || value > INT_MAX))
            return false;
    }
    return true;
}

QList<ShapeConfig> ShapeRange::draw(const Task &task, quint64 seed, int count) const
{
    QList<ShapeConfig> drawn;
    Draws draws(seed);
    for (int k = 0; k < count; ++k) {
        const Parity parity = k == 0 ? Parity::Odd : k == 1 ? Parity::Even : Parity::Either;
        for (int attempt = 0; attempt < kAttempts; ++attempt) {
            const std::optional<ShapeConfig> shape = drawOne(task, draws, parity);
            if (shape && !declared(task, drawn, *shape)) {
                drawn.append(*shape);
                break;
            }
        }
    }
    return drawn;
}

std::optional<ShapeConfig> ShapeRange::drawOne(const Task &task, Draws &draws, Parity parity) const
{
    ShapeConfig shape;
    for (const Size &size : m_sizes)
        shape.sizes.insert(size.name,
                           size.sameAs >= 0 ? 0 : unitsFor(draws, size, parity) * size.step);
    applyTies(shape);
    if (!shrink(task, shape) || !admits(task, shape))
        return std::nullopt;
    return shape;
}

// Half the draws log-uniform (small sizes and their remainders), half uniform (large ones).
qint64 ShapeRange::unitsFor(Draws &draws, const Size &size, Parity parity) const
{
    const qint64 low = size.low / size.step;
    const qint64 high = size.high / size.step;
    if (low == high)
        return low;
    double units = 0.0;
    if (draws.coin()) {
        const double a = std::log(double(low));
        const double b = std::log(double(high) + 1.0);
        units = std::exp(a + (b - a) * draws.uniform());
    } else {
        units = double(low) + double(high - low + 1) * draws.uniform();
    }
    const qint64 drawn = std::clamp(qint64(units), low, high);
    const bool odd = parity == Parity::Odd || (parity == Parity::Either && draws.coin());
    return adjusted(drawn, size, odd);
}

// `units` moved by one to the parity asked for, then by steps of two off a power of two, as far
// as the range allows.
qint64 ShapeRange::adjusted(qint64 units, const Size &size, bool odd)
{
    const qint64 low = size.low / size.step;
    const qint64 high = size.high / size.step;
    auto fits = [&](qint64 v) { return v >= low && v <= high; };
    if ((units % 2 != 0) != odd)
        units = fits(units + 1) ? units + 1 : fits(units - 1) ? units - 1 : units;
    for (const qint64 delta : {0, 2, -2, 4, -4, 6, -6}) {
        const qint64 v = units + delta;
        if (fits(v) && !isPowerOfTwo(v * size.step))
            return v;
    }
    return units;
}

bool ShapeRange::shrink(const Task &task, ShapeConfig &shape) const
{
    for (int round = 0; round < 128; ++round) {
        const qint64 total = elements(task, shape);
        if (total >= 0 && total <= m_elementCap)
            return true;
        const Size *largest = nullptr;
        qint64 largestUnits = 0;
        for (const Size &size : m_sizes) {
            const qint64 units = shape.sizes.value(size.name) / size.step;
            if (size.sameAs < 0 && units > size.low / size.step && units > largestUnits) {
                largest = &size;
                largestUnits = units;
            }
        }
        if (!largest)
            return false;
        const qint64 halved = std::max(largest->low / largest->step, largestUnits / 2);
        const qint64 nudged = adjusted(halved, *largest, largestUnits % 2 != 0);
        shape.sizes[largest->name] = (nudged < largestUnits ? nudged : halved) * largest->step;
        applyTies(shape);
    }
    return false;
}

void ShapeRange::applyTies(ShapeConfig &shape) const
{
    for (const Size &size : m_sizes)
        if (size.sameAs >= 0)
            shape.sizes[size.name] = shape.sizes.value(m_sizes[size.sameAs].name);
}

} // namespace kiln
