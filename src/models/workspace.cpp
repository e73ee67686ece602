#include "workspace.h"

#include "core/installlayout.h"
#include "engine/cluster/slurmevaluator.h"
#include "engine/profile/profilesession.h"
#include "engine/rejudge.h"
#include "engine/verifierevaluator.h"
#include "runcontroller.h"
#include "store/runstore.h"

#include <QDeadlineTimer>
#include <QLocale>
#include <QRandomGenerator>
#include <QtConcurrent/QtConcurrentRun>

namespace kiln {

Workspace::Workspace(QObject *parent)
    : QObject(parent), m_tasks(TaskLibrary::standard()),
      m_evaluator(std::make_unique<VerifierEvaluator>(VerifierOptions::defaults(),
                                                      VerifierEvaluator::machineSandboxes())),
      m_cancelManual(std::make_shared<std::atomic<bool>>(false))
{
    m_runEvaluator = m_evaluator.get();
    qRegisterMetaType<CandidateRecord>();
    qRegisterMetaType<EvaluationResult>();
    // The launcher lists the GPUs; asking the driver takes a moment, so it starts now.
    m_gpuProbe = QtConcurrent::run([] { return CudaDevices::probe(); });
}

Workspace::~Workspace()
{
    stopAll(2000);
    for (const QPointer<RunController> &c : std::as_const(m_controllers))
        delete c.data(); // each waits for its worker
    m_gpuProbe.waitForFinished();
}

bool Workspace::open(const QString &path, QString *error)
{
    if (m_store && m_store->path() == path)
        return true;
    if (hasLiveRuns() || hasManualWork()) {
        *error = tr("runs of %1 are still going; stop them first").arg(m_path);
        return false;
    }
    std::unique_ptr<RunStore> store = RunStore::open(path, RunStore::Mode::ReadWrite, error);
    if (!store)
        return false;
    for (const QPointer<RunController> &c : std::as_const(m_controllers))
        delete c.data(); // finished runs of the previous database
    m_controllers.clear();
    if (m_store)
        emit storeReplacing();
    m_store = std::move(store);
    m_path = path;
    return true;
}

int Workspace::sandboxes() const
{
    return m_evaluator->concurrency();
}

CudaAvailability Workspace::gpus()
{
    return m_gpuProbe.result();
}

QStringList Workspace::deviceNames(Backend backend)
{
    QStringList names;
    if (backend != Backend::Cuda)
        return names;
    const QLocale locale;
    for (const CudaDevice &d : gpus().devices)
        names << tr("GPU %1: %2 (%3)")
                     .arg(d.index)
                     .arg(d.name, locale.formattedDataSize(d.memoryBytes, 0,
                                                           QLocale::DataSizeTraditionalFormat));
    return names;
}

RunController *Workspace::startRun(const RunArguments::Parsed &arguments, QString *error)
{
    if (!m_store) {
        *error = tr("no workspace database is open");
        return nullptr;
    }
    const QString setup = m_evaluator->verifier().checkSetup();
    if (!setup.isEmpty()) {
        *error = setup;
        return nullptr;
    }
    TaskLibrary tasks =
        arguments.tasksDirs.isEmpty() ? m_tasks : TaskLibrary::standard(arguments.tasksDirs);
    return addRun(arguments.config, std::move(tasks), 0, error);
}

RunController *Workspace::addRun(const RunConfig &config, TaskLibrary tasks, qint64 runId,
                                 QString *error)
{
    Evaluator *evaluator = evaluatorFor(config, error);
    if (!evaluator)
        return nullptr;
    auto *controller = new RunController(*m_store, *evaluator, std::move(tasks), config, runId,
                                         deviceNames(config.backend), this);
    if (auto *cluster = dynamic_cast<SlurmEvaluator *>(evaluator)) {
        const QPointer<RunController> guarded(controller);
        // Workers that cannot be submitted stop the run (it stays resumable).
        cluster->setFatalHandler([this, guarded](const QString &) {
            QMetaObject::invokeMethod(
                this,
                [guarded] {
                    if (guarded)
                        guarded->stop();
                },
                Qt::QueuedConnection);
        });
        auto shutDown = [cluster] { cluster->shutdown(); }; // scancel what is left
        connect(controller, &RunController::finished, this, shutDown);
        connect(controller, &RunController::failed, this, shutDown);
    }
    return addController(controller);
}

RunController *Workspace::resumeRun(qint64 runId, QString *error)
{
    if (!m_store) {
        *error = tr("no workspace database is open");
        return nullptr;
    }
    if (RunController *live = controllerFor(runId); live && live->isLive()) {
        *error = tr("run %1 is already going").arg(runId);
        return nullptr;
    }
    const std::optional<RunRecord> run = m_store->run(runId);
    if (!run || run->kind != QLatin1String("search")) {
        *error = tr("no search run %1 in %2").arg(runId).arg(m_path);
        return nullptr;
    }
    if (run->status == RunRecord::Status::Finished) {
        *error = tr("run %1 is finished; there is nothing to resume").arg(runId);
        return nullptr;
    }
    return addRun(RunConfig::fromJson(run->config), m_tasks, runId, error);
}

Evaluator *Workspace::evaluatorFor(const RunConfig &config, QString *error)
{
    // A lenient run is judged by the naive harness, made the first time one starts; an
    // evaluator set with useEvaluator judges every run.
    if (m_runEvaluator != m_evaluator.get())
        return m_runEvaluator;
    if (config.onSlurm()) {
        const QString spool =
            config.slurm.spool.isEmpty() ? m_path + QStringLiteral(".spool") : config.slurm.spool;
        auto cluster = std::make_unique<SlurmEvaluator>(
            config.slurm, InstallLayout::besideExecutable(QStringLiteral("kiln-cli")), spool,
            config.lenient());
        if (!cluster->start(error))
            return nullptr;
        m_clusterEvaluators.push_back(std::move(cluster));
        return m_clusterEvaluators.back().get();
    }
    if (!config.lenient())
        return m_runEvaluator;
    if (!m_lenientEvaluator) {
        VerifierOptions options = VerifierOptions::defaults();
        options.lenient = true;
        m_lenientEvaluator =
            std::make_unique<VerifierEvaluator>(options, VerifierEvaluator::machineSandboxes());
    }
    return m_lenientEvaluator.get();
}

RunController *Workspace::addController(RunController *controller)
{
    m_controllers.append(controller);
    connect(controller, &RunController::finished, this, &Workspace::startQueued,
            Qt::QueuedConnection);
    connect(controller, &RunController::failed, this, &Workspace::startQueued,
            Qt::QueuedConnection);
    emit runAdded(controller);
    startQueued();
    return controller;
}

void Workspace::startQueued()
{
    int live = 0;
    for (const QPointer<RunController> &c : std::as_const(m_controllers))
        live += c && c->isLive() ? 1 : 0;
    for (const QPointer<RunController> &c : std::as_const(m_controllers)) {
        if (live >= m_maxLiveRuns)
            return;
        if (c && c->state() == RunController::State::Queued) {
            c->start();
            ++live;
        }
    }
}

void Workspace::useEvaluator(Evaluator *evaluator)
{
    m_runEvaluator = evaluator ? evaluator : m_evaluator.get();
}

void Workspace::setMaxLiveRuns(int count)
{
    m_maxLiveRuns = std::max(1, count);
    startQueued();
}

RunController *Workspace::controllerFor(qint64 runId) const
{
    // The newest controller of a run: a resumed run has an older, ended one too.
    for (auto it = m_controllers.crbegin(); it != m_controllers.crend(); ++it) {
        if (*it && (*it)->runId() == runId)
            return it->data();
    }
    return nullptr;
}

QList<RunController *> Workspace::controllers() const
{
    QList<RunController *> list;
    for (const QPointer<RunController> &c : m_controllers)
        if (c)
            list.append(c.data());
    return list;
}

bool Workspace::hasLiveRuns() const
{
    for (const QPointer<RunController> &c : m_controllers)
        if (c && c->isLive())
            return true;
    return false;
}

bool Workspace::stopAll(int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    for (const QPointer<RunController> &c : std::as_const(m_controllers))
        if (c)
            c->stop();
    m_cancelManual->store(true);
    bool ended = true;
    for (const QPointer<RunController> &c : std::as_const(m_controllers))
        if (c)
            ended = c->wait(int(std::max<qint64>(0, deadline.remainingTime()))) && ended;
    for (QFuture<void> &job : m_manualJobs)
        job.waitForFinished();
    m_manualJobs.clear();
    m_cancelManual = std::make_shared<std::atomic<bool>>(false);
    return ended;
}

int Workspace::runManual(const std::function<std::optional<ManualSubmission::Outcome>(
                             const std::function<void(const CandidateRecord &)> &, QString *)> &job)
{
    const int ticket = m_nextTicket++;
    ++m_manualInFlight;
    QPointer<Workspace> self(this);
    auto stored = [this, ticket](const CandidateRecord &candidate) {
        QMetaObject::invokeMethod(
            this, [this, ticket, candidate] { emit manualStored(ticket, candidate); },
            Qt::QueuedConnection);
    };
    m_manualJobs.append(QtConcurrent::run([this, ticket, job, stored] {
        QString error;
        const std::optional<ManualSubmission::Outcome> outcome = job(stored, &error);
        QMetaObject::invokeMethod(
            this,
            [this, ticket, outcome, error] {
                --m_manualInFlight;
                emit manualFinished(ticket, outcome.has_value(),
                                    outcome ? outcome->candidate : CandidateRecord(),
                                    outcome ? outcome->result : EvaluationResult(), error);
            },
            Qt::QueuedConnection);
    }));
    // Forget the jobs that are done, so the list stays short in a long session.
    m_manualJobs.removeIf([](const QFuture<void> &f) { return f.isFinished(); });
    return ticket;
}

int Workspace::submit(const ManualSubmission::Request &request)
{
    const std::shared_ptr<std::atomic<bool>> cancel = m_cancelManual;
    RunStore *store = m_store.get();
    // Judged as the run's own candidates were: a lenient run's by the naive harness.
    Evaluator *evaluator = m_evaluator.get();
    if (const std::optional<RunRecord> run = store ? store->run(request.runId) : std::nullopt;
        run && RunConfig::lenientOf(run->config)) {
        RunConfig lenient; // judged here, even for a run whose search used a cluster
        lenient.verifier = QStringLiteral("lenient");
        QString unused;
        evaluator = evaluatorFor(lenient, &unused);
    }
    return runManual([this, request, cancel, store, evaluator](const auto &stored, QString *error) {
        if (!store) {
            *error = tr("no workspace database is open");
            return std::optional<ManualSubmission::Outcome>();
        }
        return ManualSubmission::submit(*store, m_tasks, *evaluator, request, *cancel, error,
                                        nullptr, stored);
    });
}

int Workspace::evaluateAlone(const QString &taskName, Backend backend, const QString &source,
                             const QString &origin)
{
    const std::shared_ptr<std::atomic<bool>> cancel = m_cancelManual;
    RunStore *store = m_store.get();
    return runManual([=, this](const auto &stored, QString *error) {
        std::optional<ManualSubmission::Outcome> none;
        const Task *task = m_tasks.task(taskName);
        if (!store || !task) {
            *error =
                store ? tr("unknown task '%1'").arg(taskName) : tr("no workspace database is open");
            return none;
        }
        const quint64 seed = QRandomGenerator::system()->generate64();
        ManualSubmission::Outcome outcome;
        outcome.result = m_evaluator->evaluate(*task, backend, source, seed, *cancel);
        if (*cancel) {
            *error = tr("cancelled");
            return none;
        }
        const qint64 runId = ManualSubmission::recordEvaluation(
            *store, *task, backend, seed, origin, source, outcome.result, error);
        if (runId == 0)
            return none;
        const QList<CandidateRecord> candidates = store->candidates(runId);
        if (!candidates.isEmpty())
            outcome.candidate = candidates.first();
        stored(outcome.candidate);
        return std::optional<ManualSubmission::Outcome>(outcome);
    });
}

void Workspace::inBackground(const std::function<void()> &job, const std::function<void()> &done)
{
    ++m_manualInFlight; // the database stays this one until it is done
    m_manualJobs.append(QtConcurrent::run([=, this] {
        job();
        QMetaObject::invokeMethod(
            this,
            [=, this] {
                --m_manualInFlight;
                done();
            },
            Qt::QueuedConnection);
    }));
    m_manualJobs.removeIf([](const QFuture<void> &f) { return f.isFinished(); });
}

int Workspace::profileCandidate(qint64 candidateId)
{
    const int ticket = m_nextTicket++;
    const std::shared_ptr<std::atomic<bool>> cancel = m_cancelManual;
    RunStore *store = m_store.get();
    auto error = std::make_shared<QString>(store ? QString() : tr("no workspace database is open"));
    inBackground(
        [=, this] {
            if (store)
                ProfileSession::run(*store, m_tasks, *m_evaluator, candidateId, true, *cancel,
                                    error.get());
        },
        [=, this] { emit profiled(ticket, candidateId, *error); });
    return ticket;
}

int Workspace::rejudgeStrictly(qint64 runId)
{
    const int ticket = m_nextTicket++;
    const std::shared_ptr<std::atomic<bool>> cancel = m_cancelManual;
    RunStore *store = m_store.get();
    auto error = std::make_shared<QString>(store ? QString() : tr("no workspace database is open"));
    auto outcome = std::make_shared<std::optional<Rejudge::Outcome>>();
    inBackground(
        [=, this] {
            if (store)
                *outcome = Rejudge::run(*store, m_tasks, *m_evaluator, runId,
                                        QStringLiteral("strict"), *cancel, error.get());
        },
        [=, this] {
            emit rejudged(ticket, runId, *outcome ? (*outcome)->runId : 0,
                          *outcome ? (*outcome)->changed : 0, *error);
        });
    return ticket;
}

} // namespace kiln
