#pragma once

#include <QJsonObject>
#include <QString>
#include <optional>
#include <vector>

namespace kiln {

// A speedup with its 95 % confidence interval. The estimate is the ratio of the medians of
// baseline and candidate times; the interval is a percentile bootstrap over the timing loop's
// paired calls (each call times both, interleaved): whole pairs are resampled, so a disturbance
// that hit both halves of one call moves neither the estimate nor the interval much.
struct SpeedupInterval
{
    double estimate = 0.0;
    double low = 0.0;
    double high = 0.0;

    static constexpr double kLevel = 0.95;
    static constexpr int kResamples = 2000;

    // From paired samples (candidate[i] and baseline[i] were timed in the same call). Empty when
    // there are fewer than two pairs or a median is not positive. Deterministic: the resampling
    // is seeded from the sample count, so the same trials give the same interval.
    // With groups > 1, sample i was timed on input kind i % groups (the timing loop rotates
    // through the task's value distributions): each side's time is then typicalTime(), and pairs
    // are resampled within their kind. A kernel that is fast on some kinds and slow on others has
    // a bimodal distribution of times whose overall median jumps between the modes; the mean of
    // the per-kind medians does not.
    static std::optional<SpeedupInterval> bootstrap(const std::vector<double> &candidate,
                                                    const std::vector<double> &baseline,
                                                    int groups = 1);
    // The mean over input kinds of the median time of each kind (the plain median for 1 kind).
    static double typicalTime(const std::vector<double> &samples, int groups = 1);

    // The larger side of the interval, so a ± never understates it.
    double plusMinus() const;
    // plusMinus() relative to the estimate (0.02: about ±2 %).
    double relativeHalfWidth() const;
    // "2.31x ± 0.04" (the larger of the two sides, so never an understatement).
    QString text(int decimals = 2) const;
    bool contains(double value) const { return value >= low && value <= high; }

    // Whether `a` is faster than `b` beyond the noise: their intervals do not overlap, and the
    // ratio of estimates is outside the machine's noise floor (a relative A/A spread, 0 if
    // unknown). Otherwise the two are "within noise" of each other.
    static bool clearlyFaster(const SpeedupInterval &a, const SpeedupInterval &b,
                              double noiseFloor = 0.0);

    QJsonObject toJson() const;
    static std::optional<SpeedupInterval> fromJson(const QJsonObject &object);
};

} // namespace kiln
