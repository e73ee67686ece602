#pragma once

#include <QList>
#include <QString>

namespace kiln {

// The engine's clock bounds every time a sandbox reports. Candidate code shares a process with
// the clock that times it, so whatever that process says is only as honest as the candidate:
// one that slows the clock its process reads reports short calls. The engine times each request
// from outside (the round trip of the request), and a request's round trip must be explained by
// the calls it reports plus the request's own untimed part, which requests of empty calls
// calibrate. A slowed clock leaves time no reported call explains in request after request; a
// busy machine does so only now and then, so the median over requests is what is judged.
class EngineClockBound
{
public:
    struct Request
    {
        double engineMs = 0.0;   // the round trip, on the engine's clock
        double reportedMs = 0.0; // the sum of the times the sandbox reported for its calls
        int calls = 1;           // timed calls in the request
    };
    struct Finding
    {
        bool exceeded = false;
        int requests = 0;
        double unexplainedMsPerCall = 0.0; // median over requests
        double reportedMsPerCall = 0.0;    // median over requests
        double allowedMsPerCall = 0.0;
        QString describe() const;
    };

    // A request whose calls do nothing (the timer-overhead calibration): what a request costs
    // around its calls, as a fixed part and a part per call.
    void calibrate(const Request &request) { m_calibration.append(request); }
    // A request of timed calls.
    void observe(const Request &request) { m_observed.append(request); }
    // A new attempt: only its requests are judged.
    void restart() { m_observed.clear(); }
    Finding judge() const;

    // Below this, a median per call is inside the jitter of waking a process through a pipe.
    static constexpr double kFloorMs = 0.1;
    // Above this share of the reported time: a fake speedup worth a hard flag.
    static constexpr double kShareOfReported = 0.25;
    static constexpr int kMinimumRequests = 5;

private:
    struct Untimed
    {
        double fixedMs = 0.0;
        double perCallMs = 0.0;
        double spreadMs = 0.0;
    };
    Untimed untimedPart() const;

    QList<Request> m_calibration;
    QList<Request> m_observed;
};

} // namespace kiln
