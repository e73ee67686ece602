#pragma once

#include <QtGlobal>
#include <random>

namespace kiln {

// Seeded random source for strategies. std::mt19937_64's output sequence is fixed by the
// standard, but the std distributions are not, so the mapping to ranges is done here: a run
// replays identically on every standard library.
class StrategyRandom
{
public:
    explicit StrategyRandom(quint64 seed = 0) : m_engine(seed) {}
    void reseed(quint64 seed) { m_engine.seed(seed); }
    quint64 next() { return m_engine(); }
    // Uniform integer in [0, n); n <= 0 gives 0.
    int below(int n);
    // Uniform double in [0, 1).
    double unit();
    bool chance(double probability) { return unit() < probability; }

private:
    std::mt19937_64 m_engine;
};

} // namespace kiln
