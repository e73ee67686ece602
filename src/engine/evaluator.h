#pragma once

#include "core/backend.h"
#include "core/evaluationresult.h"
#include "core/profilerecord.h"
#include "tasks/task.h"

#include <atomic>

namespace kiln {

// What the engine needs from a verifier: judge one source. Implementations are thread-safe and
// may run up to concurrency() evaluations at once (one sandbox each).
class Evaluator
{
public:
    virtual ~Evaluator() = default;
    virtual EvaluationResult evaluate(const Task &task, Backend backend, const QString &source,
                                      quint64 runSecret, const std::atomic<bool> &cancel) = 0;
    virtual int concurrency() const = 0;
    // The re-measurement a candidate passes before it becomes a run's best: more trials against
    // a freshly timed baseline. The result says confirmed = true when it passed and was timed.
    // An evaluator that cannot time more carefully judges again.
    virtual EvaluationResult confirm(const Task &task, Backend backend, const QString &source,
                                     quint64 runSecret, const std::atomic<bool> &cancel)
    {
        EvaluationResult result = evaluate(task, backend, source, runSecret, cancel);
        result.confirmed = result.verdict == Verdict::Pass && result.speedup.has_value();
        return result;
    }
    // A hardware profile of one source (the "profile" stage the agents strategy's profiler reads):
    // ok with metrics in its data, or not ok with a note saying why there is none, in which case
    // the verifier's own stage data is all a profiler has.
    virtual StageResult profile(const Task &task, Backend backend, const QString &source,
                                quint64 runSecret, const std::atomic<bool> &cancel)
    {
        Q_UNUSED(task);
        Q_UNUSED(source);
        Q_UNUSED(runSecret);
        Q_UNUSED(cancel);
        return unprofiled(QStringLiteral("this evaluator takes no hardware profile of %1 kernels")
                              .arg(backendName(backend)));
    }
    // A hardware profile of one source kept as a record, its report at reportBase + ".ncu-rep"
    // (kiln-cli profile, --param profile): subject "candidate" or "reference". Not ok, with
    // the reason, where this evaluator takes none.
    virtual ProfileRecord profileRecord(const Task &task, Backend backend, const QString &source,
                                        quint64 runSecret, const QString &subject,
                                        const QString &reportBase, const std::atomic<bool> &cancel)
    {
        Q_UNUSED(task);
        Q_UNUSED(source);
        Q_UNUSED(runSecret);
        Q_UNUSED(reportBase);
        Q_UNUSED(cancel);
        ProfileRecord record;
        record.subject = subject;
        record.reason = QStringLiteral("this evaluator takes no hardware profile of %1 kernels")
                            .arg(backendName(backend));
        return record;
    }
    // The profile stage without a profile: `why`, and that the verifier's data stands in.
    static StageResult unprofiled(const QString &why)
    {
        StageResult stage;
        stage.name = QStringLiteral("profile");
        stage.detail = why + QStringLiteral("; the verifier's own data stands in for a profile");
        return stage;
    }
};

} // namespace kiln
