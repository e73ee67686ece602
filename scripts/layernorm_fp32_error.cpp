// The error analysis behind layernorm's tolerance (docs/verifier.md, "Tolerances"): the
// textbook two-pass kernel in plain fp32 (sequential sums) against the same formula in double,
// on the task's hardest data for it, offset rows (mean 50, unit spread), with gamma and beta
// drawn as the task file says. Prints, over 2000 rows of n columns, the largest error per row
// (median, 99th percentile, largest) and the error of the fp32 mean.
//   g++ -O2 -o /tmp/layernorm_fp32_error scripts/layernorm_fp32_error.cpp
//   /tmp/layernorm_fp32_error 1025
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

struct RowError
{
    double output = 0.0; // largest |y_fp32 - y_double| in the row
    double mean = 0.0;   // |mean_fp32 - mean_double|
};

RowError rowError(const std::vector<float> &x, const std::vector<float> &gamma,
                  const std::vector<float> &beta)
{
    const int n = int(x.size());
    float sum = 0.0f;
    for (float v : x)
        sum += v;
    const float mean = sum / n;
    float squares = 0.0f;
    for (float v : x)
        squares += (v - mean) * (v - mean);
    const float inverse = 1.0f / std::sqrt(squares / n + 1e-5f);

    double exactMean = 0.0;
    for (float v : x)
        exactMean += v;
    exactMean /= n;
    double exactSquares = 0.0;
    for (float v : x)
        exactSquares += (v - exactMean) * (v - exactMean);
    const double exactInverse = 1.0 / std::sqrt(exactSquares / n + 1e-5);

    RowError error;
    error.mean = std::abs(double(mean) - exactMean);
    for (int i = 0; i < n; ++i) {
        const float y = (x[i] - mean) * inverse * gamma[i] + beta[i];
        const double exact = (x[i] - exactMean) * exactInverse * gamma[i] + beta[i];
        error.output = std::max(error.output, std::abs(double(y) - exact));
    }
    return error;
}

double quantile(std::vector<double> values, double q)
{
    std::sort(values.begin(), values.end());
    return values[size_t(q * double(values.size() - 1))];
}

} // namespace

int main(int argc, char **argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 1025;
    std::mt19937_64 random(7);
    std::normal_distribution<double> offset(50.0, 1.0);
    std::uniform_real_distribution<double> gammaValues(0.5, 1.5), betaValues(-0.5, 0.5);
    std::vector<double> outputErrors, meanErrors;
    for (int row = 0; row < 2000; ++row) {
        std::vector<float> x(n), gamma(n), beta(n);
        for (int i = 0; i < n; ++i) {
            x[i] = float(offset(random));
            gamma[i] = float(gammaValues(random));
            beta[i] = float(betaValues(random));
        }
        const RowError error = rowError(x, gamma, beta);
        outputErrors.push_back(error.output);
        meanErrors.push_back(error.mean);
    }
    std::printf("n=%d: largest |y error| per row: median %.2e, p99 %.2e, largest %.2e; "
                "|mean error|: median %.2e, largest %.2e\n",
                n, quantile(outputErrors, 0.5), quantile(outputErrors, 0.99),
                quantile(outputErrors, 1.0), quantile(meanErrors, 0.5), quantile(meanErrors, 1.0));
    return 0;
}
