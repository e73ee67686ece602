#pragma once

#include <QJsonObject>
#include <QList>
#include <vector>

namespace kiln {

// Summary statistics of repeated timings, in milliseconds. Computed in the engine, never in
// the sandbox that ran the candidate.
struct TimingStats
{
    int n = 0;
    double mean = 0.0;
    double median = 0.0;
    double stddev = 0.0;
    double sem = 0.0;
    double min = 0.0;
    double max = 0.0;
    // The trials themselves, in the order they were taken (the first kMaxTrials, to four
    // significant digits): what the timing-distribution plot draws. The store keeps them.
    QList<double> trials;
    static constexpr int kMaxTrials = 200;

    static TimingStats fromSamples(std::vector<double> samples);
    static double medianOf(const QList<double> &samples)
    {
        return fromSamples({samples.begin(), samples.end()}).median;
    }
    double relativeSem() const { return mean > 0.0 ? sem / mean : 0.0; }

    QJsonObject toJson() const; // the summary only
    QJsonObject toJsonWithTrials() const;
    static TimingStats fromJson(const QJsonObject &object);
};

} // namespace kiln
