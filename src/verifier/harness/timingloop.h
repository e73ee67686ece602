#pragma once

#include "verifier/harness/adaptivetiming.h"

#include <QList>
#include <atomic>

namespace kiln {

// What one backend does for the timing loop: timed calls on fresh inputs, each judged at once.
class TimingSession
{
public:
    struct Sample
    {
        double candidateMs = 0.0;
        double baselineMs = 0.0;
        double libraryMs = -1.0; // < 0: no library baseline
    };
    virtual ~TimingSession() = default;
    // Timed calls first .. first+count-1: fresh inputs each, candidate and baseline in the order
    // TimingLoop::candidateFirst gives, every output judged (TimedCheck). Appends one sample per
    // call; false when a call failed or was wrong (the session keeps why).
    virtual bool time(int first, int count, QList<Sample> &samples) = 0;
    // One more call after the loop, untimed and judged in full, with the inputs and the guard
    // bands: results must not drift or switch to something else once timing is over.
    virtual bool finalCheck(int call) = 0;
    // The most calls one time() may take (1: every call a request of its own).
    virtual int batchLimit() const = 0;
};

// The adaptive loop both backends share: warm-up, then calls in batches until candidate and
// baseline have converged (or a trial or time cap), the first `fullCalls` not counted in the
// time budget (they are checked in full, which may take long).
class TimingLoop
{
public:
    struct Outcome
    {
        bool ok = false; // false: a call failed or was wrong, or cancelled
        bool cancelled = false;
        AdaptiveTiming::Stop stop = AdaptiveTiming::Stop::Continue;
        TimingStats candidate;
        TimingStats baseline;
        TimingStats library; // n = 0 without a library baseline
        // The kept samples in call order: candidateSamples[i] and baselineSamples[i] were
        // timed in the same call, which the speedup's interval resamples as pairs.
        std::vector<double> candidateSamples;
        std::vector<double> baselineSamples;
        int kinds = 1; // input kinds the calls rotate through (AdaptiveTiming::Rules::cycle)
        int calls = 0;
        double loopMs = 0.0;
    };
    static Outcome run(TimingSession &session, const AdaptiveTiming::Rules &rules, int fullCalls,
                       const std::atomic<bool> &cancel);
    // Who goes first in call j: they alternate, so slow drift affects both alike.
    static bool candidateFirst(int call) { return call % 2 == 0; }
};

} // namespace kiln
