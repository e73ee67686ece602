#include "runsession.h"

#include "cli/progressbar.h"
#include "engine/cluster/slurmevaluator.h"
#include "engine/searchsession.h"
#include "engine/verifierevaluator.h"
#include "store/runstore.h"
#include "verifier/harness/verifieroptions.h"

#include <QCoreApplication>
#include <csignal>
#include <cstdio>

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

std::unique_ptr<Evaluator> RunSession::makeEvaluator(const RunConfig &config, QString *error)
{
    if (!config.onSlurm()) {
        VerifierOptions options = VerifierOptions::defaults();
        options.lenient = config.lenient();
        auto local = std::make_unique<VerifierEvaluator>(options, m_sandboxes);
        *error = local->verifier().checkSetup();
        // A KernelBench run in a language whose package python3 lacks would end every
        // candidate as a compile error: say so once, before the run starts.
        if (error->isEmpty() && config.backend == Backend::Torch &&
            local->verifier().torchEnvironment().usable)
            *error = local->verifier().torchEnvironment().languageProblem(config.language);
        return error->isEmpty() ? std::move(local) : nullptr;
    }
    const QString spool = config.slurm.spool.isEmpty() ? m_store.path() + QStringLiteral(".spool")
                                                       : config.slurm.spool;
    auto cluster = std::make_unique<SlurmEvaluator>(
        config.slurm, QCoreApplication::applicationFilePath(), spool, config.lenient());
    cluster->setEventHandler(
        [](const QString &line) { std::fprintf(stderr, "slurm: %s\n", qPrintable(line)); });
    if (!cluster->start(error))
        return nullptr;
    return cluster;
}

qint64 RunSession::execute(const RunConfig &config, qint64 runId, bool showProgress, QString *error,
                           bool *usage)
{
    *usage = true;
    // A resumed run keeps the verifier it was started with.
    const std::optional<RunRecord> stored = runId > 0 ? m_store.run(runId) : std::nullopt;
    const RunConfig wanted = stored ? RunConfig::fromJson(stored->config) : config;
    std::unique_ptr<Evaluator> evaluator = makeEvaluator(wanted, error);
    if (!evaluator) {
        *usage = false;
        return 0;
    }
    std::unique_ptr<SearchSession> session =
        runId > 0 ? SearchSession::resume(m_store, m_library, *evaluator, runId, error)
                  : SearchSession::create(m_store, m_library, *evaluator, config, error);
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
    auto *cluster = dynamic_cast<SlurmEvaluator *>(evaluator.get());
    if (cluster) // workers that cannot be submitted stop the run; it stays resumable
        cluster->setFatalHandler([&engine](const QString &why) {
            std::fprintf(stderr, "kiln-cli: stopping the run: %s\n", qPrintable(why));
            engine.cancel();
        });
    g_activeEngine = &engine;
    auto previous = std::signal(SIGINT, handleInterrupt);
    std::signal(SIGTERM, handleInterrupt);
    m_stopReason = engine.run();
    std::signal(SIGINT, previous);
    std::signal(SIGTERM, SIG_DFL);
    g_activeEngine = nullptr;
    bar.finish();
    if (cluster) {
        cluster->shutdown(); // scancel the workers that are left
        std::fprintf(stderr,
                     "slurm: %d worker job(s), %d item(s) requeued, %d late result(s) dropped\n",
                     cluster->submittedJobs(), cluster->requeuedItems(), cluster->droppedResults());
    }
    return session->runId();
}

} // namespace kiln
