#pragma once

#include <QList>

namespace kiln {

// Unbiased estimators over n >= k samples (Chen et al. 2021 form):
// pass@k = 1 - C(n-c, k) / C(n, k), with c the number of successes among n.
class CoverageMetrics
{
public:
    // Probability that at least one of k samples drawn without replacement from n succeeds.
    static double atK(int n, int successes, int k);
    // pass@k over the correctness flags of n samples.
    static double passAtK(const QList<bool> &correct, int k);
    // fast_p@k: success = correct and speedup > p (speedups of incorrect samples ignored).
    static double fastPAtK(const QList<bool> &correct, const QList<double> &speedups, double p,
                           int k);
    // Pearson correlation coefficient; 0 when either side has no variance or n < 2.
    static double pearson(const QList<double> &x, const QList<double> &y);
};

} // namespace kiln
