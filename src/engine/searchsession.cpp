#include "engine/searchsession.h"

#include "engine/policyfactory.h"
#include "store/runstore.h"
#include "strategyregistry.h"
#include "tasks/tasklibrary.h"

namespace kiln {

SearchSession::~SearchSession() = default;

std::unique_ptr<SearchSession> SearchSession::make(RunStore &store, const TaskLibrary &tasks,
                                                   Evaluator &evaluator, const RunConfig &config,
                                                   QString *error)
{
    std::unique_ptr<SearchSession> session(new SearchSession);
    session->m_policy = PolicyFactory::create(config, store, error);
    if (!session->m_policy)
        return nullptr;
    for (const QString &name : config.tasks) {
        const Task *shared = tasks.task(name);
        if (!shared)
            continue;
        // A KernelBench problem is refused or not in the run's language, as the engine's copy
        // of it will carry.
        Task task = *shared;
        if (task.isKernelBench())
            task.candidateLanguage = config.language;
        const QString refused = session->m_policy->refusal(task, config.backend);
        if (!refused.isEmpty()) {
            *error = refused;
            return nullptr;
        }
    }
    session->m_engine = std::make_unique<SearchEngine>(
        store, tasks, *session->m_policy, evaluator,
        [](const QString &name) { return StrategyRegistry::create(name); });
    return session;
}

std::unique_ptr<SearchSession> SearchSession::create(RunStore &store, const TaskLibrary &tasks,
                                                     Evaluator &evaluator, const RunConfig &config,
                                                     QString *error)
{
    std::unique_ptr<SearchSession> session = make(store, tasks, evaluator, config, error);
    if (!session || session->m_engine->create(config, error) == 0)
        return nullptr;
    return session;
}

std::unique_ptr<SearchSession> SearchSession::resume(RunStore &store, const TaskLibrary &tasks,
                                                     Evaluator &evaluator, qint64 runId,
                                                     QString *error)
{
    const std::optional<RunRecord> run = store.run(runId);
    if (!run) {
        *error = QStringLiteral("no run %1 in %2").arg(runId).arg(store.path());
        return nullptr;
    }
    if (run->status == RunRecord::Status::Finished) {
        *error = QStringLiteral("run %1 is finished; there is nothing to resume").arg(runId);
        return nullptr;
    }
    std::unique_ptr<SearchSession> session =
        make(store, tasks, evaluator, RunConfig::fromJson(run->config), error);
    if (!session || !session->m_engine->load(runId, error))
        return nullptr;
    return session;
}

} // namespace kiln
