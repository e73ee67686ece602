#include "runsession.h"

#include "cli/progressbar.h"
#include "engine/policyfactory.h"
#include "engine/searchengine.h"
#include "engine/verifierevaluator.h"
#include "store/runstore.h"
#include "strategyregistry.h"

#include <QThread>
#include <csignal>

namespace kiln {

namespace {

SearchEngine *g_activeEngine = nullptr;

// Ctrl-C stops the run cooperatively: the round in flight is abandoned, the run stays
// resumable, and the sandboxes are killed promptly.
void handleInterrupt(int)
{
    if (g_activeEngine)
        g_activeEngine->cancel();
}

} // namespace

int defaultSandboxCount()
{
    return std::max(1, std::min(4, QThread::idealThreadCount()));
}

RunSession::RunSession(RunStore &store, TaskLibrary library, int sandboxes)
    : m_store(store), m_library(std::move(library)), m_sandboxes(sandboxes)
{
}

RunSession::~RunSession() = default;

qint64 RunSession::execute(const RunConfig &requested, qint64 runId, bool showProgress,
                           QString *error, bool *usage)
{
    *usage = true;
    RunConfig config = requested;
    if (runId > 0) {
        const std::optional<RunRecord> run = m_store.run(runId);
        if (!run) {
            *error = QStringLiteral("no run %1 in %2").arg(runId).arg(m_store.path());
            return 0;
        }
        config = RunConfig::fromJson(run->config);
    }
    std::unique_ptr<Policy> policy = PolicyFactory::create(config, m_store, error);
    if (!policy)
        return 0;
    VerifierEvaluator evaluator(VerifierOptions::defaults(), m_sandboxes);
    const QString setup = evaluator.verifier().checkSetup();
    if (!setup.isEmpty()) {
        *usage = false;
        *error = setup;
        return 0;
    }
    SearchEngine engine(m_store, m_library, *policy, evaluator,
                        [](const QString &name) { return StrategyRegistry::create(name); });
    const qint64 id =
        runId > 0 ? (engine.load(runId, error) ? runId : 0) : engine.create(config, error);
    if (id == 0)
        return 0;

    ProgressBar bar(config.budgetAxis, config.budget);
    if (showProgress) {
        QObject::connect(
            &engine, &SearchEngine::progress, &engine,
            [&bar](const BudgetUsage &used, double best) { bar.update(used, best); },
            Qt::DirectConnection);
    }
    g_activeEngine = &engine;
    auto previous = std::signal(SIGINT, handleInterrupt);
    std::signal(SIGTERM, handleInterrupt);
    m_stopReason = engine.run();
    std::signal(SIGINT, previous);
    std::signal(SIGTERM, SIG_DFL);
    g_activeEngine = nullptr;
    bar.finish();
    return id;
}

} // namespace kiln
