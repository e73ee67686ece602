// Verifier throughput and overhead (docs/performance.md, "Verifier").
//   bench_verifier [--evals N] [--task NAME]
// Prints a JSON document: per-evaluation overhead beyond compilation and timed calls, the
// compile-cache hit cost, and evaluations per second with 1 and 2 sandboxes.

#include "../benchsupport.h"
#include "tasks/tasklibrary.h"
#include "verifier/verifierpool.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QThread>
#include <algorithm>
#include <cstdio>

using namespace kiln;
using kiln::bench::median;
using kiln::bench::readFile;

namespace {

// Time the evaluation spent in the candidate's and the baseline's timed calls, in ms.
double timedCallsMs(const EvaluationResult &result)
{
    const StageResult *timing = result.stage(QStringLiteral("timing"));
    return timing ? timing->data.value(QStringLiteral("reported_ms")).toDouble() : 0.0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int evals =
        std::max(2, int(args.indexOf(QStringLiteral("--evals")) > 0
                            ? args.value(args.indexOf(QStringLiteral("--evals")) + 1).toInt()
                            : 12));
    const QString taskName = args.indexOf(QStringLiteral("--task")) > 0
                                 ? args.value(args.indexOf(QStringLiteral("--task")) + 1)
                                 : QStringLiteral("vector_add");
    TaskLibrary tasks;
    tasks.loadDirectory(QStringLiteral(KILN_SOURCE_DIR "/tasks"));
    const Task *task = tasks.task(taskName);
    if (!task) {
        std::fprintf(stderr, "unknown task %s\n", qPrintable(taskName));
        return 2;
    }
    const QString source = readFile(
        QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/%1_naive.cpp").arg(taskName));
    QTemporaryDir cache;
    VerifierOptions options = VerifierOptions::defaults();
    options.sandbox.executable =
        QCoreApplication::applicationDirPath() + QStringLiteral("/kiln-sandbox");
    options.cacheDirectory = cache.path();

    QJsonObject report{{QStringLiteral("task"), taskName},
                       {QStringLiteral("evals"), evals},
                       {QStringLiteral("cores"), QThread::idealThreadCount()}};
    {
        // Cold: compile, reference outputs, bandwidth probe, everything.
        Verifier verifier(options);
        QElapsedTimer timer;
        timer.start();
        const EvaluationResult cold = verifier.evaluate(*task, Backend::Cpu, source, 1);
        report.insert(QStringLiteral("cold_eval_ms"), double(timer.elapsed()));
        report.insert(QStringLiteral("cold_compile_ms"), cold.stage(QStringLiteral("compile"))->ms);
        report.insert(QStringLiteral("cold_verdict"), verdictName(cold.verdict));

        std::vector<double> overhead, cacheHit, wall, correctness;
        for (int i = 0; i < evals; ++i) {
            timer.restart();
            const EvaluationResult warm = verifier.evaluate(*task, Backend::Cpu, source, 1);
            const double ms = timer.nsecsElapsed() / 1e6;
            const double compileMs = warm.stage(QStringLiteral("compile"))->ms;
            wall.push_back(ms);
            cacheHit.push_back(compileMs);
            overhead.push_back(ms - compileMs - timedCallsMs(warm));
            correctness.push_back(warm.stage(QStringLiteral("correctness"))->ms);
        }
        report.insert(QStringLiteral("warm_eval_ms_median"), median(wall));
        report.insert(QStringLiteral("compile_cache_hit_ms_median"), median(cacheHit));
        report.insert(QStringLiteral("overhead_ms_median"), median(overhead));
        report.insert(QStringLiteral("correctness_stage_ms_median"), median(correctness));
    }
    for (const bool timing : {true, false}) {
        QJsonObject rates;
        for (const int sandboxes : {1, 2}) {
            VerifierOptions o = options;
            o.runTiming = timing;
            VerifierPool pool(o, sandboxes);
            pool.submit(*task, Backend::Cpu, source, 1).waitForFinished(); // references, probe
            QElapsedTimer timer;
            timer.start();
            QList<QFuture<EvaluationResult>> futures;
            for (int i = 0; i < evals; ++i)
                futures.append(pool.submit(*task, Backend::Cpu, source, 1));
            for (auto &future : futures)
                future.waitForFinished();
            rates.insert(QStringLiteral("sandboxes_%1").arg(sandboxes),
                         evals / (timer.nsecsElapsed() / 1e9));
        }
        report.insert(timing ? QStringLiteral("evals_per_second_with_timing")
                             : QStringLiteral("evals_per_second_correctness_only"),
                      rates);
    }
    std::printf("%s", QJsonDocument(report).toJson().constData());
    return 0;
}
