// How long a run's diagnosis takes on a run of 100,000 candidates (docs/performance.md, "Run
// diagnosis"): reading the run's history from SQLite (the lineage query the window already makes,
// plus the recent sources and the best's evaluation) and the eight analyzers over it, on a worker
// thread as the window runs it, beside the lineage query alone, in one process.
//
//   kiln_bench_diagnosis [--candidates N] [--db FILE] [--repeats K]
//
// The database is made once (a synthetic run written through RunStore) and reused when FILE
// exists.
#include "core/timingstats.h"
#include "engine/diagnosis/rundiagnosis.h"
#include "store/runstore.h"
#include "syntheticrun.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <cstdio>
#include <thread>

using namespace kiln;

namespace {

struct Times
{
    QList<double> lineageMs, loadMs, analyzeMs;
};

QString describe(const QList<double> &ms)
{
    QList<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    return QStringLiteral("median %1 ms (min %2, max %3, n=%4)")
        .arg(TimingStats::medianOf(ms), 0, 'f', 1)
        .arg(sorted.first(), 0, 'f', 1)
        .arg(sorted.last(), 0, 'f', 1)
        .arg(ms.size());
}

// One repeat, all of it on a thread of its own as the window's worker would run it.
void timeOnce(const QString &db, qint64 runId, Times &times)
{
    std::thread worker([&] {
        auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
        QElapsedTimer clock;
        clock.start();
        const qsizetype rows = store->lineage(runId).size();
        times.lineageMs.append(clock.nsecsElapsed() / 1e6);
        clock.restart();
        const RunHistory history = RunHistory::load(*store, runId);
        times.loadMs.append(clock.nsecsElapsed() / 1e6);
        clock.restart();
        const QList<DiagnosisFinding> findings = RunDiagnosis::diagnose(history);
        times.analyzeMs.append(clock.nsecsElapsed() / 1e6);
        if (rows != history.candidates().size() || findings.size() != 8)
            std::fprintf(stderr, "unexpected: %lld rows, %lld findings\n", qint64(rows),
                         qint64(findings.size()));
    });
    worker.join();
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const auto value = [&](const QString &name, const QString &fallback) {
        const qsizetype at = args.indexOf(name);
        return at > 0 && at + 1 < args.size() ? args[at + 1] : fallback;
    };
    const int candidates = value(QStringLiteral("--candidates"), QStringLiteral("100000")).toInt();
    const int repeats = value(QStringLiteral("--repeats"), QStringLiteral("5")).toInt();
    QTemporaryDir scratch;
    const QString db = value(QStringLiteral("--db"), scratch.filePath(QStringLiteral("d.db")));
    qint64 runId = 0;
    if (!QFileInfo::exists(db)) {
        auto store = RunStore::open(db, RunStore::Mode::ReadWrite);
        SyntheticRunOptions options;
        options.candidates = candidates;
        QElapsedTimer clock;
        clock.start();
        runId = createSyntheticRun(*store, options);
        std::printf("made %d candidates in %.1f s\n", candidates, clock.elapsed() / 1000.0);
    } else {
        auto store = RunStore::open(db, RunStore::Mode::ReadOnly);
        for (const RunRecord &run : store->runs())
            runId = std::max(runId, run.id);
    }
    Times times;
    for (int i = 0; i < repeats; ++i)
        timeOnce(db, runId, times);
    QList<double> total;
    for (int i = 0; i < repeats; ++i)
        total.append(times.loadMs[i] + times.analyzeMs[i]);
    std::printf("lineage query alone:        %s\n", qPrintable(describe(times.lineageMs)));
    std::printf("history read (RunHistory):  %s\n", qPrintable(describe(times.loadMs)));
    std::printf("analyzers (RunDiagnosis):   %s\n", qPrintable(describe(times.analyzeMs)));
    std::printf("diagnosis in all:           %s\n", qPrintable(describe(total)));
    std::printf("ratio, diagnosis in all / lineage query alone: %.2f (medians)\n",
                TimingStats::medianOf(total) / TimingStats::medianOf(times.lineageMs));
    return 0;
}
