#pragma once

#include "core/profilerecord.h"
#include "verifier/harness/verifieroptions.h"

#include <QList>
#include <atomic>
#include <optional>

namespace kiln {

class RunStore;
class TaskLibrary;

// kiln-cli profile on a stored candidate: its source, task, shape and run secret from the
// workspace; the candidate profiled, then (withReference) its task's reference the same way;
// each record stored (a failed one with its reason) and its report kept under "profiles/"
// beside the database, its duration compared with the verifier's stored median.
class ProfileSession
{
public:
    // Nothing, with `error`, where the candidate or its task cannot be found.
    static std::optional<QList<ProfileRecord>> run(RunStore &store, const TaskLibrary &library,
                                                   const VerifierOptions &options,
                                                   qint64 candidateId, bool withReference,
                                                   const std::atomic<bool> &cancel, QString *error);
    // Where a candidate's report goes (without ".ncu-rep"): profiles/ beside the database.
    static QString reportBase(const QString &databasePath, qint64 runId, qint64 candidateId,
                              const QString &subject);
};

} // namespace kiln
