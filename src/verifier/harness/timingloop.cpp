#include "verifier/harness/timingloop.h"

#include <QElapsedTimer>
#include <algorithm>

namespace kiln {

TimingLoop::Outcome TimingLoop::run(TimingSession &session, const AdaptiveTiming::Rules &rules,
                                    int fullCalls, const std::atomic<bool> &cancel)
{
    Outcome outcome;
    AdaptiveTiming candidate(rules), baseline(rules), library(rules);
    QElapsedTimer loop, budget;
    loop.start();
    auto spent = [&] { return budget.isValid() ? budget.nsecsElapsed() / 1e6 : 0.0; };
    int call = 0;
    while (outcome.stop == AdaptiveTiming::Stop::Continue) {
        if (call >= fullCalls && !budget.isValid())
            budget.start();
        const int batch = call < fullCalls
                              ? std::min(fullCalls - call, session.batchLimit())
                              : std::max(1, candidate.nextBatch(spent(), session.batchLimit()));
        QList<TimingSession::Sample> samples;
        if (!session.time(call, batch, samples)) {
            outcome.loopMs = loop.nsecsElapsed() / 1e6;
            return outcome;
        }
        for (const TimingSession::Sample &s : std::as_const(samples)) {
            candidate.add(s.candidateMs);
            baseline.add(s.baselineMs);
            if (s.libraryMs >= 0)
                library.add(s.libraryMs);
        }
        call += int(samples.size());
        outcome.stop = candidate.decide(spent());
        if (outcome.stop == AdaptiveTiming::Stop::Converged &&
            baseline.decide(spent()) == AdaptiveTiming::Stop::Continue)
            outcome.stop = AdaptiveTiming::Stop::Continue; // the baseline needs its precision too
        if (cancel.load()) {
            outcome.cancelled = true;
            outcome.loopMs = loop.nsecsElapsed() / 1e6;
            return outcome;
        }
    }
    outcome.calls = call;
    outcome.loopMs = loop.nsecsElapsed() / 1e6;
    if (!session.finalCheck(call))
        return outcome;
    outcome.ok = true;
    outcome.candidate = candidate.stats();
    outcome.baseline = baseline.stats();
    outcome.library = library.stats();
    outcome.candidateSamples = candidate.samples();
    outcome.baselineSamples = baseline.samples();
    outcome.kinds = std::max(1, rules.cycle);
    return outcome;
}

} // namespace kiln
