// EngineClockBound: the engine's clock around a sandbox's requests against the times it
// reported. The figures follow what the CPU backend sees on a 2-core VM: a request's untimed
// part of ~60 us with jitter of tens of us, now and then a preempted request of milliseconds.
#include "verifier/harness/engineclockbound.h"

#include <QRandomGenerator>
#include <QtTest>

using kiln::EngineClockBound;

namespace {

// Requests of `calls` calls of `callMs` each, reported as `reportedShare` of their real time,
// around an untimed part of fixedMs + perCallMs per call, with jitter and rare preemptions.
void observe(EngineClockBound &bound, int requests, int calls, double callMs, double reportedShare,
             double fixedMs = 0.06, double perCallMs = 0.0)
{
    QRandomGenerator random(7);
    for (int i = 0; i < requests; ++i) {
        const double jitter = random.bounded(0.04);
        const double preempted = i % 17 == 5 ? 3.0 : 0.0;
        const double real = calls * callMs;
        bound.observe(
            {real + fixedMs + calls * perCallMs + jitter + preempted, real * reportedShare, calls});
    }
}

void calibrate(EngineClockBound &bound, int requests, int calls, double fixedMs = 0.06,
               double perCallMs = 0.0)
{
    QRandomGenerator random(11);
    for (int i = 0; i < requests; ++i)
        bound.calibrate(
            {fixedMs + calls * perCallMs + random.bounded(0.04), 0.0005 * calls, calls});
}

} // namespace

class TestEngineClockBound : public QObject
{
    Q_OBJECT

private slots:
    void honestRequestsStayInside();
    void slowedClockIsCaught();
    void slowedClockIsCaughtInBatches();
    void tinyCallsAreNotJudgedOnJitter();
    void needsCalibrationAndRequests();
    void restartForgetsTheAttempt();
};

void TestEngineClockBound::honestRequestsStayInside()
{
    EngineClockBound bound;
    calibrate(bound, 7, 1);
    observe(bound, 40, 1, 1.5, 1.0);
    const EngineClockBound::Finding finding = bound.judge();
    QVERIFY2(!finding.exceeded, qPrintable(finding.describe()));
    QVERIFY(std::abs(finding.unexplainedMsPerCall) < 0.05);
}

// The held-out exploit's figures: the same loop honestly ~1x, measured 2.3-2.7x faster.
void TestEngineClockBound::slowedClockIsCaught()
{
    for (double share : {1.0 / 2.3, 1.0 / 2.7}) {
        EngineClockBound bound;
        calibrate(bound, 7, 1);
        observe(bound, 40, 1, 1.5, share);
        const EngineClockBound::Finding finding = bound.judge();
        QVERIFY2(finding.exceeded, qPrintable(finding.describe()));
        QVERIFY(finding.describe().contains(QLatin1String("median of 40 requests")));
    }
    // A clock slowed by a fifth on a call of 0.5 ms: inside the noise, not called a result.
    EngineClockBound slight;
    calibrate(slight, 7, 1);
    observe(slight, 40, 1, 0.5, 0.8);
    QVERIFY(!slight.judge().exceeded);
}

// CUDA: requests of several calls, calibrated by one request of 21 empty calls and single ones.
void TestEngineClockBound::slowedClockIsCaughtInBatches()
{
    EngineClockBound honest, slowed;
    for (EngineClockBound *bound : {&honest, &slowed}) {
        calibrate(*bound, 5, 1, 0.08, 0.02);
        calibrate(*bound, 1, 21, 0.08, 0.02);
    }
    observe(honest, 20, 4, 0.9, 1.0, 0.08, 0.02);
    observe(slowed, 20, 4, 0.9, 1.0 / 3.2, 0.08, 0.02);
    QVERIFY2(!honest.judge().exceeded, qPrintable(honest.judge().describe()));
    QVERIFY2(slowed.judge().exceeded, qPrintable(slowed.judge().describe()));
}

// Calls of microseconds: a slowed clock hides less than the jitter of a request.
void TestEngineClockBound::tinyCallsAreNotJudgedOnJitter()
{
    EngineClockBound bound;
    calibrate(bound, 7, 1);
    observe(bound, 40, 1, 0.004, 0.3);
    QVERIFY(!bound.judge().exceeded);
}

void TestEngineClockBound::needsCalibrationAndRequests()
{
    EngineClockBound uncalibrated;
    observe(uncalibrated, 40, 1, 1.5, 0.3);
    QVERIFY(!uncalibrated.judge().exceeded);
    EngineClockBound few;
    calibrate(few, 7, 1);
    observe(few, EngineClockBound::kMinimumRequests - 1, 1, 1.5, 0.3);
    QVERIFY(!few.judge().exceeded);
}

void TestEngineClockBound::restartForgetsTheAttempt()
{
    EngineClockBound bound;
    calibrate(bound, 7, 1);
    observe(bound, 40, 1, 1.5, 0.3);
    QVERIFY(bound.judge().exceeded);
    bound.restart();
    observe(bound, 40, 1, 1.5, 1.0);
    QVERIFY(!bound.judge().exceeded);
}

QTEST_GUILESS_MAIN(TestEngineClockBound)
#include "tst_engineclockbound.moc"
