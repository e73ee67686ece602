#include "verifier/harness/engineclockbound.h"

#include "core/timingstats.h"

#include <algorithm>
#include <map>

namespace kiln {

QString EngineClockBound::Finding::describe() const
{
    return QStringLiteral("the engine saw %1 ms per call that no reported time explains, against "
                          "%2 ms reported per call (median of %3 requests; %4 ms allowed)")
        .arg(unexplainedMsPerCall, 0, 'f', 3)
        .arg(reportedMsPerCall, 0, 'f', 3)
        .arg(requests)
        .arg(allowedMsPerCall, 0, 'f', 3);
}

// The calibration requests grouped by their number of calls: the median untimed time of each
// group; two sizes give a fixed part and a part per call, one size a fixed part only. The
// spread (the median distance from the median) widens the allowance on a jittery machine.
EngineClockBound::Untimed EngineClockBound::untimedPart() const
{
    std::map<int, QList<double>> bySize;
    for (const Request &request : m_calibration)
        bySize[request.calls].append(request.engineMs - request.reportedMs);
    Untimed untimed;
    if (bySize.empty())
        return untimed;
    const auto &[smallCalls, smallTimes] = *bySize.begin();
    const auto &[largeCalls, largeTimes] = *bySize.rbegin();
    const double small = TimingStats::medianOf(smallTimes);
    const double large = TimingStats::medianOf(largeTimes);
    if (largeCalls > smallCalls)
        untimed.perCallMs = std::max(0.0, (large - small) / (largeCalls - smallCalls));
    untimed.fixedMs = std::max(0.0, small - untimed.perCallMs * smallCalls);
    QList<double> distances;
    for (double t : smallTimes)
        distances.append(std::abs(t - small));
    untimed.spreadMs = TimingStats::medianOf(distances) / smallCalls;
    return untimed;
}

EngineClockBound::Finding EngineClockBound::judge() const
{
    Finding finding;
    finding.requests = int(m_observed.size());
    if (m_calibration.isEmpty() || finding.requests < kMinimumRequests)
        return finding;
    const Untimed untimed = untimedPart();
    QList<double> unexplained, reported;
    for (const Request &request : m_observed) {
        const int calls = std::max(1, request.calls);
        const double expected = untimed.fixedMs + calls * untimed.perCallMs;
        unexplained.append((request.engineMs - request.reportedMs - expected) / calls);
        reported.append(request.reportedMs / calls);
    }
    finding.unexplainedMsPerCall = TimingStats::medianOf(unexplained);
    finding.reportedMsPerCall = TimingStats::medianOf(reported);
    finding.allowedMsPerCall =
        std::max(kFloorMs + 3.0 * untimed.spreadMs, kShareOfReported * finding.reportedMsPerCall);
    finding.exceeded = finding.unexplainedMsPerCall > finding.allowedMsPerCall;
    return finding;
}

} // namespace kiln
