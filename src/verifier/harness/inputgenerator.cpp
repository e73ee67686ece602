#include "verifier/harness/inputgenerator.h"

#include "verifier/harness/secretdigest.h"

#include <QtConcurrent/QtConcurrentMap>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace kiln {

namespace {

// xoshiro256** seeded through splitmix64: fast, well distributed, fully specified.
class Random
{
public:
    explicit Random(quint64 seed)
    {
        for (quint64 &word : m_state) {
            seed += 0x9e3779b97f4a7c15ull;
            quint64 z = seed;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            word = z ^ (z >> 31);
        }
    }
    quint64 next()
    {
        const quint64 result = rotate(m_state[1] * 5, 7) * 9;
        const quint64 t = m_state[1] << 17;
        m_state[2] ^= m_state[0];
        m_state[3] ^= m_state[1];
        m_state[1] ^= m_state[2];
        m_state[0] ^= m_state[3];
        m_state[2] ^= t;
        m_state[3] = rotate(m_state[3], 45);
        return result;
    }
    // Uniform in (0, 1): never exactly 0, so logarithms stay finite.
    double uniform() { return (double(next() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }
    double normal()
    {
        if (m_hasSpare) {
            m_hasSpare = false;
            return m_spare;
        }
        const double radius = std::sqrt(-2.0 * std::log(uniform()));
        const double angle = 2.0 * M_PI * uniform();
        m_spare = radius * std::sin(angle);
        m_hasSpare = true;
        return radius * std::cos(angle);
    }
    // Marsaglia-Tsang; shape < 1 through the usual boost.
    double gamma(double shape)
    {
        if (shape < 1.0)
            return gamma(shape + 1.0) * std::pow(uniform(), 1.0 / shape);
        const double d = shape - 1.0 / 3.0;
        const double c = 1.0 / std::sqrt(9.0 * d);
        for (;;) {
            double x, v;
            do {
                x = normal();
                v = 1.0 + c * x;
            } while (v <= 0.0);
            v = v * v * v;
            const double u = uniform();
            if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v))
                return d * v;
        }
    }

private:
    static quint64 rotate(quint64 x, int k) { return (x << k) | (x >> (64 - k)); }
    quint64 m_state[4];
    double m_spare = 0.0;
    bool m_hasSpare = false;
};

double sample(Random &random, const ValueDistribution &distribution)
{
    switch (distribution.kind) {
    case ValueDistribution::Kind::Normal:
        return distribution.a + distribution.b * random.normal();
    case ValueDistribution::Kind::Uniform:
        return distribution.a + (distribution.b - distribution.a) * random.uniform();
    case ValueDistribution::Kind::StudentT: {
        const double dof = distribution.a > 0 ? distribution.a : 1.0;
        double chi2 = 0.0;
        if (dof == std::floor(dof) && int(dof) % 2 == 0 && dof <= 16) {
            // Even degrees of freedom: chi-square is -2 ln of a product of uniforms (fast).
            double product = 1.0;
            for (int k = 0; k < int(dof) / 2; ++k)
                product *= random.uniform();
            chi2 = -2.0 * std::log(product);
        } else {
            chi2 = 2.0 * random.gamma(dof / 2.0);
        }
        return distribution.b * random.normal() / std::sqrt(chi2 / dof);
    }
    }
    return 0.0;
}

} // namespace

quint64 InputGenerator::deriveSeed(quint64 runSecret, const QString &task, int shapeIndex,
                                   int seedIndex)
{
    QByteArray data = task.toUtf8();
    const qint32 indices[2] = {shapeIndex, seedIndex};
    data.append(reinterpret_cast<const char *>(indices), sizeof indices);
    return secretDigest(runSecret, data);
}

namespace {

// One value written at element i as f32 (heavy tails can exceed the float range: kept finite)
// or rounded to i32.
void store(char *out, qint64 i, double value, bool integers)
{
    if (integers) {
        const qint32 v =
            static_cast<qint32>(std::clamp(std::round(value), -2147483648.0, 2147483647.0));
        std::memcpy(out + 4 * i, &v, 4);
        return;
    }
    const float v = static_cast<float>(std::clamp(value, -1e30, 1e30));
    std::memcpy(out + 4 * i, &v, 4);
}

constexpr qint64 kLongestRun = 256; // elements of one distribution in a mixed buffer

} // namespace

QByteArray InputGenerator::generate(const ValueDistribution &distribution, qint64 count,
                                    const QString &dtype, quint64 seed)
{
    Random random(seed);
    QByteArray bytes(count * 4, Qt::Uninitialized);
    const bool integers = dtype == QLatin1String("i32");
    for (qint64 i = 0; i < count; ++i)
        store(bytes.data(), i, sample(random, distribution) + distribution.offset, integers);
    return bytes;
}

QByteArray InputGenerator::generateMixed(const QList<ValueDistribution> &mixture, qint64 count,
                                         const QString &dtype, quint64 seed)
{
    if (mixture.size() == 1)
        return generate(mixture.first(), count, dtype, seed);
    Random values(seed);
    Random runs(seed ^ 0x72756e6c656e67ull); // run lengths and their distributions: a stream apart
    QByteArray bytes(count * 4, Qt::Uninitialized);
    const bool integers = dtype == QLatin1String("i32");
    for (qint64 i = 0; i < count;) {
        const quint64 draw = runs.next();
        const ValueDistribution &distribution = mixture[qsizetype(draw % quint64(mixture.size()))];
        const qint64 end = std::min(count, i + 1 + qint64((draw >> 32) % kLongestRun));
        for (; i < end; ++i)
            store(bytes.data(), i, sample(values, distribution) + distribution.offset, integers);
    }
    return bytes;
}

namespace {

// |value - centre| at the 1-in-10,000 level of a distribution, from a fixed-seed sample.
double tamingBound(const ValueDistribution &distribution)
{
    constexpr int kSample = 1 << 17;
    Random random(0x74696d696e67ull); // fixed: the bound must not depend on the secret
    std::vector<double> deviations(kSample);
    const double centre = distribution.kind == ValueDistribution::Kind::Uniform
                              ? 0.5 * (distribution.a + distribution.b)
                              : distribution.a;
    for (double &d : deviations)
        d = std::abs(sample(random, distribution) - centre);
    const size_t k = size_t(kSample * 0.9999);
    std::nth_element(deviations.begin(), deviations.begin() + qsizetype(k), deviations.end());
    return deviations[k];
}

} // namespace

QByteArray InputGenerator::generateForTiming(const ValueDistribution &distribution, qint64 count,
                                             const QString &dtype, quint64 seed)
{
    const double bound = tamingBound(distribution);
    const double centre = distribution.kind == ValueDistribution::Kind::Uniform
                              ? 0.5 * (distribution.a + distribution.b)
                              : distribution.a;
    Random random(seed);
    QByteArray bytes(count * 4, Qt::Uninitialized);
    char *out = bytes.data();
    for (qint64 i = 0; i < count; ++i) {
        double value = sample(random, distribution);
        while (std::abs(value - centre) > bound)
            value = sample(random, distribution);
        value += distribution.offset;
        if (dtype == QLatin1String("i32")) {
            const qint32 v =
                static_cast<qint32>(std::clamp(std::round(value), -2147483648.0, 2147483647.0));
            std::memcpy(out + 4 * i, &v, 4);
        } else {
            const float v = static_cast<float>(value);
            std::memcpy(out + 4 * i, &v, 4);
        }
    }
    return bytes;
}

QList<QByteArray> InputGenerator::inputs(const Task &task, const ShapeConfig &shape,
                                         const ValueDistribution &distribution, quint64 seed)
{
    return mixedInputs(task, shape, {distribution}, seed);
}

QList<QByteArray> InputGenerator::mixedInputs(const Task &task, const ShapeConfig &shape,
                                              const QList<ValueDistribution> &mixture, quint64 seed)
{
    QList<QByteArray> buffers;
    for (int p = 0; p < task.parameters.size(); ++p) {
        const TaskParameter &parameter = task.parameters[p];
        if (parameter.role != TaskParameter::Role::Input) {
            buffers.append(QByteArray());
            continue;
        }
        // Each input gets its own stream, so adding a parameter does not shift the others; an
        // input that declares a distribution of its own keeps it (layernorm's gamma and beta).
        const QList<ValueDistribution> own =
            parameter.distribution ? QList<ValueDistribution>{*parameter.distribution} : mixture;
        buffers.append(generateMixed(own, task.elementCount(parameter, shape), parameter.dtype,
                                     seed ^ (0x9e3779b97f4a7c15ull * (p + 1))));
    }
    return buffers;
}

QList<QByteArray> InputGenerator::inputsParallel(const Task &task, const ShapeConfig &shape,
                                                 const ValueDistribution &distribution,
                                                 quint64 seed)
{
    constexpr qint64 kChunk = 1 << 20;
    struct Job
    {
        int parameter;
        qint64 first;
        qint64 count;
    };
    QList<QByteArray> buffers(task.parameters.size());
    QList<Job> jobs;
    for (int p = 0; p < task.parameters.size(); ++p) {
        const TaskParameter &parameter = task.parameters[p];
        if (parameter.role != TaskParameter::Role::Input)
            continue;
        const qint64 count = task.elementCount(parameter, shape);
        buffers[p] = QByteArray(count * 4, Qt::Uninitialized);
        for (qint64 first = 0; first < count; first += kChunk)
            jobs.append({p, first, std::min(kChunk, count - first)});
    }
    QtConcurrent::blockingMap(jobs, [&](const Job &job) {
        const quint64 chunkSeed = seed ^ (0x9e3779b97f4a7c15ull * (job.parameter + 1)) ^
                                  (0xbf58476d1ce4e5b9ull * quint64(job.first / kChunk + 1));
        const TaskParameter &parameter = task.parameters[job.parameter];
        const QByteArray values = generate(parameter.distribution.value_or(distribution), job.count,
                                           parameter.dtype, chunkSeed);
        std::memcpy(buffers[job.parameter].data() + 4 * job.first, values.constData(),
                    size_t(values.size()));
    });
    return buffers;
}

ValueDistribution InputGenerator::distributionFor(const Task &task, int seedIndex)
{
    if (task.distributions.isEmpty())
        return ValueDistribution{QStringLiteral("normal"), ValueDistribution::Kind::Normal, 0, 1,
                                 0};
    return task.distributions[seedIndex % task.distributions.size()];
}

QList<ValueDistribution> InputGenerator::hiddenDistributions(const Task &task, quint64 secret,
                                                             int stream, int seedIndex)
{
    const int declared = std::max<int>(1, int(task.distributions.size()));
    const int choices = declared > 1 ? declared + 1 : 1; // the last: all of them, mixed
    const quint64 rotation = deriveSeed(secret, task.name, stream, -1) % quint64(choices);
    const int choice = int((quint64(seedIndex) + rotation) % quint64(choices));
    if (choice < declared)
        return {distributionFor(task, choice)};
    return task.distributions;
}

QString InputGenerator::mixtureName(const QList<ValueDistribution> &mixture)
{
    return mixture.size() == 1 ? mixture.first().name : QStringLiteral("mixed");
}

} // namespace kiln
