#pragma once

#include "core/timingstats.h"

#include <vector>

namespace kiln {

// When to stop timing: enough trials and a standard error of the median below a fraction of the
// median, or a cap on trials or on the time spent. Pure logic, decided in the engine.
class AdaptiveTiming
{
public:
    struct Rules
    {
        int warmup = 2; // leading trials discarded
        int minTrials = 5;
        int maxTrials = 1000;
        double targetRelativeSem = 0.01;
        double budgetMs = 300.0; // wall time of the timing loop
        // Calls rotate through this many input distributions: the loop stops only after whole
        // rotations, so every judgement's median is over the same mix of inputs.
        int cycle = 1;
    };
    enum class Stop
    {
        Continue,
        Converged,
        TrialCap,
        TimeCap
    };

    explicit AdaptiveTiming(Rules rules) : m_rules(rules) {}

    // A raw sample in ms; the first `warmup` are dropped.
    void add(double ms);
    Stop decide(double elapsedMs) const;
    // How many more trials are worth asking for in one batch, at most `limit`; with several
    // input kinds, a batch that ends on a whole rotation wherever the limit allows.
    int nextBatch(double elapsedMs, int limit) const;

    int seen() const { return m_seen; }
    const std::vector<double> &samples() const { return m_samples; }
    TimingStats stats() const { return TimingStats::fromSamples(m_samples); }
    double medianStandardError() const;
    static QString stopName(Stop stop);

private:
    int endOnRotation(int batch, int limit) const;

    Rules m_rules;
    int m_seen = 0;
    std::vector<double> m_samples;
};

} // namespace kiln
