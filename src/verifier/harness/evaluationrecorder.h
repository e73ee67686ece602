#pragma once

#include "core/evaluationresult.h"

#include <QJsonObject>
#include <optional>

namespace kiln {

// What both backends' evaluations write into their result: each flag once, stages in order,
// and at the end the verdict with its one-line summary and the "verdict" stage.
class EvaluationRecorder
{
public:
    struct Failure
    {
        Verdict verdict;
        QString message;
    };
    // The verifier's own side failed (its reference, a baseline, its sandbox before candidate
    // code ran): verifier_error, worded alike for every backend.
    static Failure verifierFailure(const QString &message)
    {
        return {Verdict::VerifierError,
                QStringLiteral("not judged: the verifier's side failed, not the candidate (%1)")
                    .arg(message)};
    }
    // How the evaluation went, for conclude().
    struct Outcome
    {
        bool compiled = false;
        bool objectBuilt = false;
        bool correct = false;
        std::optional<Failure> failure; // a compile timeout, or a runtime / harness failure
        QString wrongDetail;            // why wrong, or the compiler's first error
        QString isolation;              // what the sandbox reported
    };

    static void addFlag(EvaluationResult &result, const QString &id, const QString &detail = {});
    static void addStage(EvaluationResult &result, const QString &name, bool ok, double ms,
                         const QString &detail, const QJsonObject &data = {});
    // The interleaved timing loop's statistics, and the speedup with its interval from the
    // loop's paired samples (candidateSamples[i] and baselineSamples[i] share a call, of input
    // kind i % kinds): each side's time is SpeedupInterval::typicalTime.
    static void recordTimes(EvaluationResult &result, const TimingStats &candidate,
                            const TimingStats &baseline,
                            const std::vector<double> &candidateSamples,
                            const std::vector<double> &baselineSamples, int kinds = 1);
    // "2.31x ± 0.04", or the bare speedup where there is no interval.
    static QString speedupText(const EvaluationResult &result);
    // Roofline of a timed candidate: floor = max(bytes / bandwidth, flops / peak) sets the
    // roofline fraction; a median below bytes / (slack x bandwidth) or flops / peak is
    // implausibly_fast, a speedup above largeSpeedup is large_speedup. Returns the floor (ms).
    static double judgeRoofline(EvaluationResult &result, double bytes, double flops,
                                double bandwidth, double peakFlops, double bandwidthSlack,
                                double largeSpeedup);
    // Verdict (VerdictRules), summary, timing fields dropped unless pass / flagged, and the
    // verdict stage. A failure other than a compile timeout is a runtime or harness failure,
    // never the candidate's compile error.
    static void conclude(EvaluationResult &result, const Outcome &outcome);
};

} // namespace kiln
