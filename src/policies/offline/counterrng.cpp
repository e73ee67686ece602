#include "counterrng.h"

#include <cmath>

namespace kiln {

CounterRng::CounterRng(quint64 seed, quint64 key, quint64 stream)
    : m_seed(seed), m_key(key), m_stream(stream)
{
}

quint64 CounterRng::mix(quint64 value)
{
    value += 0x9e3779b97f4a7c15ULL;
    value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
    value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
    return value ^ (value >> 31);
}

quint64 CounterRng::next()
{
    // Nested mixing keeps (seed, key, stream, counter) tuples apart even for small integers.
    const quint64 base = mix(mix(mix(m_seed) ^ m_key) ^ (m_stream * 0xd1b54a32d192ed03ULL));
    return mix(base ^ mix(m_counter++));
}

double CounterRng::uniform()
{
    return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
}

int CounterRng::below(int n)
{
    if (n <= 1)
        return 0;
    return static_cast<int>(next() % static_cast<quint64>(n));
}

bool CounterRng::chance(double probability)
{
    if (probability <= 0.0)
        return false;
    if (probability >= 1.0)
        return true;
    return uniform() < probability;
}

double CounterRng::normal()
{
    const double u1 = std::max(uniform(), 1e-300);
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

int CounterRng::weighted(const QList<double> &weights)
{
    double total = 0.0;
    for (double w : weights)
        total += std::max(0.0, w);
    if (total <= 0.0)
        return below(static_cast<int>(weights.size()));
    double target = uniform() * total;
    for (qsizetype i = 0; i < weights.size(); ++i) {
        target -= std::max(0.0, weights.at(i));
        if (target < 0.0)
            return static_cast<int>(i);
    }
    return static_cast<int>(weights.size()) - 1;
}

CounterRng CounterRng::fork(quint64 stream) const
{
    return CounterRng(m_seed, m_key, mix(m_stream ^ mix(stream + 0x1234567ULL)));
}

} // namespace kiln
