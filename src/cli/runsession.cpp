#include "runsession.h"

#include "cli/progressbar.h"
#include "engine/searchsession.h"
#include "engine/verifierevaluator.h"
#include "store/runstore.h"
#include "verifier/verifieroptions.h"

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

RunSession::RunSession(RunStore &store, TaskLibrary library, int sandboxes)
    : m_store(store), m_library(std::move(library)), m_sandboxes(sandboxes)
{
}

RunSession::~RunSession() = default;

qint64 RunSession::execute(const RunConfig &config, qint64 runId, bool showProgress, QString *error,
                           bool *usage)
{
    *usage = true;
    // A resumed run keeps the verifier it was started with.
    const std::optional<RunRecord> stored = runId > 0 ? m_store.run(runId) : std::nullopt;
    VerifierOptions options = VerifierOptions::defaults();
    options.lenient = (stored ? RunConfig::verifierOf(stored->config) : config.verifier) ==
                      QLatin1String("lenient");
    VerifierEvaluator evaluator(options, m_sandboxes);
    const QString setup = evaluator.verifier().checkSetup();
    if (!setup.isEmpty()) {
        *usage = false;
        *error = setup;
        return 0;
    }
    std::unique_ptr<SearchSession> session =
        runId > 0 ? SearchSession::resume(m_store, m_library, evaluator, runId, error)
                  : SearchSession::create(m_store, m_library, evaluator, config, error);
    if (!session)
        return 0;
    SearchEngine &engine = session->engine();
    const RunConfig &running = session->config();
    ProgressBar bar(running.budgetAxis, running.budget);
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
    return session->runId();
}

} // namespace kiln
