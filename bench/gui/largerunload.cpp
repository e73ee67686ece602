#include "guibenchmarks.h"

#include "app/commandlineoptions.h"
#include "app/lineageview.h"
#include "app/mainwindow.h"
#include "core/candidatesummary.h"
#include "models/rundocument.h"
#include "store/runstore.h"

#include <QApplication>
#include <QElapsedTimer>
#include <cstdio>

namespace kiln {

namespace {

// What the window read before the lineage query existed: each candidate's whole record and
// evaluation (sources, prompts, transcripts, stage data), boiled down to the same summaries.
int readFullRecords(const QString &path)
{
    auto store = RunStore::open(path, RunStore::Mode::ReadOnly);
    qint64 runId = 0; // the newest search run, as the window opens
    for (const RunRecord &run : store->runs())
        if (run.kind == QLatin1String("search"))
            runId = std::max(runId, run.id);
    QList<CandidateSummary> rows;
    store->transaction([&] {
        QHash<qint64, int> rowOf;
        for (const CandidateRecord &record : store->candidates(runId)) {
            rowOf.insert(record.id, int(rows.size()));
            rows.append(CandidateSummary::fromRecord(record));
        }
        const QMap<qint64, EvaluationResult> evaluations = store->evaluationsForRun(runId);
        for (auto it = evaluations.cbegin(); it != evaluations.cend(); ++it)
            rows[rowOf.value(it.key())].applyEvaluation(it.value());
        return !store->events(runId).isEmpty();
    });
    return int(rows.size());
}

} // namespace

int runLoadBenchmark(const QStringList &arguments)
{
    const QString path = arguments.value(1);
    if (path.isEmpty()) {
        std::fprintf(stderr, "usage: kiln_bench_gui load FILE [--full-records]\n");
        return 2;
    }
    QElapsedTimer clock;
    clock.start();
    if (arguments.contains(QStringLiteral("--full-records"))) {
        const int rows = readFullRecords(path);
        std::printf("full records: %d candidates read in %.0f ms, peak %.0f MiB\n", rows,
                    clock.nsecsElapsed() / 1e6, statusKiB("VmHWM:") / 1024);
        return 0;
    }
    MainWindow window(MainWindow::Settings::Ignore);
    CommandLineOptions options;
    options.database = path;
    QString error;
    if (!window.applyOptions(options, &error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    const double readMs = clock.nsecsElapsed() / 1e6;
    window.show();
    while (window.lineageView()->paintCount() == 0)
        QApplication::processEvents();
    std::printf("lineage query: %d candidates, read %.0f ms, tree painted %.0f ms, peak %.0f MiB, "
                "resident %.0f MiB\n",
                window.document()->count(), readMs, clock.nsecsElapsed() / 1e6,
                statusKiB("VmHWM:") / 1024, statusKiB("VmRSS:") / 1024);
    return 0;
}

} // namespace kiln
