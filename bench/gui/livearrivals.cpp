#include "guibenchmarks.h"
#include "guistallmeter.h"
#include "pacedevaluator.h"

#include "app/commandlineoptions.h"
#include "app/lineageview.h"
#include "app/mainwindow.h"
#include "models/runcontroller.h"
#include "models/rundocument.h"
#include "models/workspace.h"
#include "store/runstore.h"
#include "syntheticrun.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QThread>
#include <algorithm>
#include <cstdio>
#include <numeric>

namespace kiln {

namespace {

struct Recorded
{
    QList<CandidateRecord> candidates;
    QList<EvaluationResult> verdicts;
};

// Realistic records to replay: sources, prompts, responses and five verifier stages each.
Recorded record(const QString &path, int count)
{
    Recorded r;
    auto store = RunStore::open(path, RunStore::Mode::ReadWrite);
    SyntheticRunOptions options;
    options.candidates = count;
    const qint64 runId = createSyntheticRun(*store, options);
    r.candidates = store->candidates(runId);
    for (const EvaluationResult &e : store->evaluationsForRun(runId))
        r.verdicts.append(e);
    return r;
}

struct WindowLoad
{
    double arrivalsPerSecond = 0;
    int candidates = 0;
    double longestStallMs = 0;
    double p99StallMs = 0;
    double panMeanMs = 0;
    double panP95Ms = 0;
    double panMaxMs = 0;
};

// The window's first paint is not part of what is measured.
void showAndSettle(MainWindow &window)
{
    window.show();
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 300)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
}

// Pans the tree every 16 ms and times each frame, and meters the GUI thread, until done().
WindowLoad measure(MainWindow &window, const std::function<bool()> &done)
{
    GuiStallMeter meter;
    LineageView *view = window.lineageView();
    std::vector<double> frames;
    QTimer pan;
    pan.setInterval(16);
    int step = 0;
    QObject::connect(&pan, &QTimer::timeout, [&] {
        view->panBy(QPointF(step++ % 40 < 20 ? 6 : -6, 0));
        QElapsedTimer frame;
        frame.start();
        view->repaint();
        frames.push_back(frame.nsecsElapsed() / 1e6);
        if (qEnvironmentVariableIsSet("KILN_BENCH_DEBUG") && frames.back() > 8)
            std::fprintf(stderr, "frame %zu: %.1f ms (paint event %.1f ms), %d nodes\n",
                         frames.size(), frames.back(), view->lastPaintMilliseconds(),
                         view->graph().size());
    });
    meter.start();
    pan.start();
    while (!done())
        QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    pan.stop();
    meter.stop();
    WindowLoad load;
    load.longestStallMs = meter.longest();
    load.p99StallMs = meter.percentile(0.99);
    std::sort(frames.begin(), frames.end());
    if (!frames.empty()) {
        load.panMeanMs = std::accumulate(frames.begin(), frames.end(), 0.0) / double(frames.size());
        load.panP95Ms = frames[std::min(frames.size() - 1, size_t(double(frames.size()) * 0.95))];
        load.panMaxMs = frames.back();
    }
    load.candidates = window.document()->count();
    return load;
}

// A run this window makes: the real engine, offline policy and store, verdicts replayed.
WindowLoad controllerPath(const Recorded &recorded, const QString &db, double rate, int total)
{
    MainWindow window(MainWindow::Settings::Ignore);
    showAndSettle(window);
    PacedEvaluator paced(recorded.verdicts, rate, 8);
    window.workspace()->useEvaluator(&paced);
    QElapsedTimer clock;
    clock.start();
    QString error;
    RunController *c = window.startRunFromArguments(
        {QStringLiteral("--task"), QStringLiteral("vector_add"), QStringLiteral("--backend"),
         QStringLiteral("cpu"), QStringLiteral("--budget"), QString::number(total),
         QStringLiteral("--param"), QStringLiteral("round_limit=64"), QStringLiteral("--param"),
         QStringLiteral("generation_threads=4")},
        db, &error);
    if (!c) {
        std::fprintf(stderr, "cannot start: %s\n", qPrintable(error));
        return {};
    }
    std::vector<double> arrivals;
    QObject::connect(c, &RunController::candidateEvaluated,
                     [&] { arrivals.push_back(clock.nsecsElapsed() / 1e9); });
    WindowLoad load = measure(window, [c] { return !c->isLive(); });
    if (arrivals.size() > 1)
        load.arrivalsPerSecond = double(arrivals.size() - 1) / (arrivals.back() - arrivals.front());
    return load;
}

// A run another writer makes (as kiln-cli would): the window follows its log.
WindowLoad followPath(const Recorded &recorded, const QString &db, double rate, int total)
{
    std::atomic<bool> created{false};
    double writerSeconds = 0;
    QThread *writer = QThread::create([&] {
        auto store = RunStore::open(db, RunStore::Mode::ReadWrite);
        RunRecord run;
        run.kind = QStringLiteral("search");
        run.tasks = {QStringLiteral("softmax")};
        run.strategy = QStringLiteral("best-of-n");
        run.policy = QStringLiteral("offline");
        run.backend = QStringLiteral("cpu");
        run.status = RunRecord::Status::Running;
        store->createRun(run);
        created = true;
        QElapsedTimer clock;
        clock.start();
        QList<qint64> ids;
        for (int i = 0; i < total; ++i) {
            while (clock.nsecsElapsed() / 1e9 < double(i) / rate)
                QThread::usleep(500);
            CandidateRecord c = recorded.candidates.at(i % recorded.candidates.size());
            c.runId = run.id;
            c.parent = ids.isEmpty() || i % 3 == 0
                           ? std::nullopt
                           : std::optional<qint64>(ids[(i * 7) % ids.size()]);
            c.secondParent.reset();
            c.operation = c.parent ? Operation::Refine : Operation::Sample;
            store->addCandidate(c);
            ids.append(c.id);
            store->addEvaluation(c.id, recorded.verdicts.at(i % recorded.verdicts.size()));
        }
        writerSeconds = clock.nsecsElapsed() / 1e9;
        store->updateRunStatus(run.id, RunRecord::Status::Finished);
    });
    writer->start();
    while (!created)
        QThread::msleep(5);
    MainWindow window(MainWindow::Settings::Ignore);
    showAndSettle(window);
    CommandLineOptions options;
    options.database = db;
    window.applyOptions(options, nullptr);
    WindowLoad load =
        measure(window, [&] { return writer->isFinished() && !window.document()->isLive(); });
    writer->wait();
    delete writer;
    load.arrivalsPerSecond = total / writerSeconds;
    return load;
}

void print(const char *path, const WindowLoad &l)
{
    std::printf("| %s | %.0f/s | %d | %.1f ms | %.1f ms | %.2f / %.2f / %.2f ms |\n", path,
                l.arrivalsPerSecond, l.candidates, l.longestStallMs, l.p99StallMs, l.panMeanMs,
                l.panP95Ms, l.panMaxMs);
}

double option(const QStringList &arguments, const char *name, double fallback)
{
    const qsizetype at = arguments.indexOf(QString::fromLatin1(name));
    return at >= 0 ? arguments.value(at + 1).toDouble() : fallback;
}

} // namespace

int runLiveBenchmark(const QStringList &arguments)
{
    const double rate = option(arguments, "--rate", 100);
    const int total = int(rate * option(arguments, "--seconds", 20));
    QTemporaryDir dir;
    const Recorded recorded = record(dir.filePath(QStringLiteral("recorded.db")), 500);
    const WindowLoad own =
        controllerPath(recorded, dir.filePath(QStringLiteral("own.db")), rate, total);
    const WindowLoad other =
        followPath(recorded, dir.filePath(QStringLiteral("other.db")), rate, total);
    std::printf("| Source | Arrivals | Candidates at the end | Longest GUI stall | p99 stall | "
                "Pan frame mean / p95 / max |\n|---|---|---|---|---|---|\n");
    print("run controller in the window (engine, offline policy, store; verdicts replayed)", own);
    print("another writer's run, followed from its log", other);
    return 0;
}

} // namespace kiln
