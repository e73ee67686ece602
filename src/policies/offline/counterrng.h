#pragma once

#include <QList>
#include <QtGlobal>

namespace kiln {

// Counter-based random numbers: draw i of stream (seed, key) is a pure function of
// (seed, key, i), so the offline policy's output for one (run seed, sample index) never depends
// on which thread generated it, in which order, or whether the run was resumed.
class CounterRng
{
public:
    CounterRng(quint64 seed, quint64 key, quint64 stream = 0);

    quint64 next();
    double uniform(); // [0, 1)
    int below(int n); // [0, n), n >= 1
    bool chance(double probability);
    double normal();                            // standard normal (Box-Muller)
    int weighted(const QList<double> &weights); // index drawn by non-negative weights

    // A child stream for one concern ("knobs", "defects", ...): adding draws to one concern
    // does not shift the draws of another.
    CounterRng fork(quint64 stream) const;

    static quint64 mix(quint64 value); // SplitMix64 finaliser

private:
    quint64 m_seed = 0;
    quint64 m_key = 0;
    quint64 m_stream = 0;
    quint64 m_counter = 0;
};

} // namespace kiln
