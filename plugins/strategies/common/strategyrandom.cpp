#include "strategyrandom.h"

namespace kiln {

int StrategyRandom::below(int n)
{
    if (n <= 1)
        return 0;
    // Rejection sampling removes the modulo bias.
    const quint64 range = quint64(n);
    const quint64 limit = ~quint64(0) - (~quint64(0) % range);
    quint64 value = next();
    while (value >= limit)
        value = next();
    return int(value % range);
}

double StrategyRandom::unit()
{
    return double(next() >> 11) * (1.0 / 9007199254740992.0);
}

} // namespace kiln
