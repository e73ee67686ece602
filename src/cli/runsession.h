#pragma once

#include "engine/runconfig.h"
#include "tasks/tasklibrary.h"

#include <QJsonObject>
#include <QString>
#include <memory>

namespace kiln {

class Evaluator;
class RunStore;

// Everything one headless search needs, wired together: the task library, the workspace store,
// the policy, the verifier and the engine. Used by `run`, `resume` and `compare`.
class RunSession
{
public:
    RunSession(RunStore &store, TaskLibrary library, int sandboxes);
    ~RunSession();

    // Starts a new run (runId 0) or continues an existing one; returns the run id, or 0 with
    // *error and *usage (true when the input was unusable rather than an internal failure).
    qint64 execute(const RunConfig &config, qint64 runId, bool showProgress, QString *error,
                   bool *usage);
    QString stopReason() const { return m_stopReason; }

private:
    // The run's evaluator: this machine's verifier, or worker jobs on a Slurm cluster.
    std::unique_ptr<Evaluator> makeEvaluator(const RunConfig &config, QString *error);

    RunStore &m_store;
    TaskLibrary m_library;
    int m_sandboxes;
    QString m_stopReason;
};

} // namespace kiln
