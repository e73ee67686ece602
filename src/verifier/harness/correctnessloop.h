#pragma once

#include "core/evaluationresult.h"
#include "verifier/harness/bufferlayout.h"
#include "verifier/harness/evaluationrecorder.h"
#include "verifier/harness/referencebank.h"
#include "verifier/harness/sandboxprocess.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace kiln {

class CorrectnessSession;

// The correctness check both native backends share: every seed of every shape of the run's
// reference, the visible set first and the hidden set after it (RunReference), one call each on
// the instance's inputs, outputs judged against the reference's answer (ReferenceComparison),
// guard bands and inputs checked, then the "correctness" stage. After a first mismatch the
// remaining shapes still run: the mismatch is reported, the rest tells a bug (some elements off)
// from a mechanism (nothing written, a stale answer). The backend's sandbox work is its
// CorrectnessSession's. Where the hidden set is concerned, flags carry only kHiddenEvidence (the
// shape and seed go to the stage's data) and the stage's data says "failed_on": "hidden", so
// that what a policy is shown (FeedbackSummary) names no hidden shape and no hidden value.
class CorrectnessLoop
{
public:
    // Where the loop writes what it finds: the evaluation's own result, failure and wrong
    // answer, which the backend's requests write too.
    struct Record
    {
        EvaluationResult &result;
        std::optional<EvaluationRecorder::Failure> &failure;
        QString &wrongDetail;
    };
    // One correctness shape, as placed in the candidate's shared buffer.
    struct Shape
    {
        int index = 0; // into RunReference::shapes
        const ShapeConfig &config;
        QString label; // "rows=7,cols=1000", "hidden rows=37,cols=999" in the hidden set
        bool hidden = false;
        BufferLayout layout;
        PlacedBuffers placed;
    };
    // One call that answered, to be judged.
    struct Call
    {
        const Shape &shape;
        int seed = 0;
        const ReferenceInstance &instance;
        const ReferenceInstance *previous; // the seed before's, at the same addresses (or null)
        const char *memory;                // the shared buffer as the call left it
        QJsonObject where;                 // shape, seed, distribution and set, for the report
    };

    // The detail of a flag first raised in the hidden set.
    static constexpr const char *kHiddenEvidence = "on hidden inputs";

    CorrectnessLoop(const Task &task, const RunReference &reference, Record record);

    // Runs the calls and records the "correctness" stage; whether the candidate was correct.
    // referenceMs: computing the run's expected outputs, where the backend counts it in the
    // stage's time (and reports it).
    bool run(CorrectnessSession &session, std::optional<double> referenceMs = std::nullopt);

    // For the sessions' steps.
    bool failed() const { return m_record.failure.has_value(); }
    bool hasFlag(const QString &id) const;
    void flag(const QString &id, const QString &detail = {});
    // The candidate is wrong: the first reason (with its data) is the one reported.
    void fail(const QString &text, const QJsonObject &data);
    // Grows `box`'s shared buffer to `bytes`; false with the failure recorded.
    bool growBuffer(SandboxProcess &box, qint64 bytes, int timeoutMs);
    static void fillGuards(char *memory, const BufferLayout &layout);
    // Whether input `buffer` still holds the instance's values; if not, flagged and failed.
    bool checkInput(const Call &call, const PlacedBuffers::Buffer &buffer);
    // Output `buffer` (its contents at `got`) against the reference's answer.
    void judgeOutput(const Call &call, const PlacedBuffers::Buffer &buffer, const char *got);

private:
    bool runShape(CorrectnessSession &session, int index); // false: stop
    bool runSeed(CorrectnessSession &session, const Shape &shape, int seed);
    bool conclude(CorrectnessSession &session, const QElapsedTimer &timer,
                  std::optional<double> referenceMs);
    void describeFailure(bool correct, QJsonObject &data) const;
    QString passedDetail() const;
    int seeds() const;
    static QString setName(bool hidden);

    const Task &m_task;
    const RunReference &m_reference;
    Record m_record;
    QJsonObject m_failureData;    // where the first wrong answer was seen
    QJsonObject m_hiddenEvidence; // flag id -> its evidence, for flags first raised hidden
    bool m_inHidden = false;      // the shape being run is of the hidden set
    QString m_wrongSet;           // "visible" or "hidden": where the first wrong answer was
    QString m_failureSet;         // the same for a failed request (it stops the loop)
    int m_calls = 0;
};

} // namespace kiln
