#include "engine/reports/coveragemetrics.h"

#include <cmath>

namespace kiln {

double CoverageMetrics::atK(int n, int successes, int k)
{
    if (n <= 0 || k <= 0 || k > n)
        return 0.0;
    if (n - successes < k)
        return 1.0;
    // C(n-c, k) / C(n, k) = prod_{i=n-c+1}^{n} (1 - k / i), numerically stable.
    double failAll = 1.0;
    for (int i = n - successes + 1; i <= n; ++i)
        failAll *= 1.0 - double(k) / double(i);
    return 1.0 - failAll;
}

double CoverageMetrics::passAtK(const QList<bool> &correct, int k)
{
    int successes = 0;
    for (bool c : correct)
        successes += c ? 1 : 0;
    return atK(int(correct.size()), successes, k);
}

double CoverageMetrics::fastPAtK(const QList<bool> &correct, const QList<double> &speedups,
                                 double p, int k)
{
    int successes = 0;
    const qsizetype n = std::min(correct.size(), speedups.size());
    for (qsizetype i = 0; i < n; ++i)
        successes += (correct[i] && speedups[i] > p) ? 1 : 0;
    return atK(int(n), successes, k);
}

double CoverageMetrics::pearson(const QList<double> &x, const QList<double> &y)
{
    const qsizetype n = std::min(x.size(), y.size());
    if (n < 2)
        return 0.0;
    double mx = 0, my = 0;
    for (qsizetype i = 0; i < n; ++i) {
        mx += x[i];
        my += y[i];
    }
    mx /= double(n);
    my /= double(n);
    double sxy = 0, sxx = 0, syy = 0;
    for (qsizetype i = 0; i < n; ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx <= 0.0 || syy <= 0.0)
        return 0.0;
    return sxy / std::sqrt(sxx * syy);
}

} // namespace kiln
