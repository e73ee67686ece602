#pragma once

#include "core/candidaterecord.h"
#include "core/evaluationresult.h"
#include "core/profilerecord.h"
#include "core/runrecord.h"

#include <QList>
#include <atomic>
#include <optional>

namespace kiln {

class Evaluator;
class RunStore;
class Task;
class TaskLibrary;

// Hardware profiles of stored candidates (kiln-cli profile, the window's Profile tab, a run's
// --param profile): the candidate profiled by the evaluator with its run's task, shape and
// secret, then (withReference) its task's reference the same way; each record stored (a failed
// one with its reason), the report kept under "profiles/" beside the database, the candidate's
// duration compared with the verifier's stored median.
class ProfileSession
{
public:
    // Nothing, with `error`, where the candidate or its task cannot be found.
    static std::optional<QList<ProfileRecord>> run(RunStore &store, const TaskLibrary &library,
                                                   Evaluator &evaluator, qint64 candidateId,
                                                   bool withReference,
                                                   const std::atomic<bool> &cancel, QString *error);
    // The same for a candidate whose run and task the caller has (the search engine).
    static QList<ProfileRecord> profileStored(RunStore &store, Evaluator &evaluator,
                                              const RunRecord &run, const Task &task,
                                              const CandidateRecord &candidate, quint64 secret,
                                              bool withReference, const std::atomic<bool> &cancel);
    // `evaluation` with the candidate's newest stored profile as its "hardware_profile" stage,
    // which a refinement's feedback lists (FeedbackSummary); unchanged where it has none.
    static EvaluationResult withStoredProfile(RunStore &store, qint64 candidateId,
                                              EvaluationResult evaluation);
    // Where a candidate's report goes (without ".ncu-rep"): profiles/ beside the database.
    static QString reportBase(const QString &databasePath, qint64 runId, qint64 candidateId,
                              const QString &subject);
};

} // namespace kiln
