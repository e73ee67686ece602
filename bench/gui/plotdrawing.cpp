// kiln_bench_gui plots FILE [--repeat N]: how long the Plots panel takes to redraw the last run
// of FILE, for every plot and compute axis, and how long growth-replay steps take on it.
#include "guibenchmarks.h"

#include "app/plotspanel.h"
#include "models/candidateselection.h"
#include "models/rundocument.h"

#include <QElapsedTimer>
#include <algorithm>
#include <cstdio>
#include <vector>

namespace kiln {

namespace {

double medianMs(std::vector<double> samples)
{
    std::sort(samples.begin(), samples.end());
    return samples.empty() ? 0.0 : samples[samples.size() / 2];
}

template <typename Work> double timeMs(int repeat, Work work)
{
    std::vector<double> samples;
    for (int i = 0; i < repeat; ++i) {
        QElapsedTimer timer;
        timer.start();
        work();
        samples.push_back(timer.nsecsElapsed() / 1e6);
    }
    return medianMs(samples);
}

} // namespace

int runPlotBenchmark(const QStringList &arguments)
{
    const QString path = arguments.value(1);
    const int repeatAt = int(arguments.indexOf(QStringLiteral("--repeat")));
    const int repeat = repeatAt > 0 ? std::max(1, arguments.value(repeatAt + 1).toInt()) : 5;
    RunDocument document;
    QString error;
    if (path.isEmpty() || !document.openDatabase(path, &error) || document.runs().isEmpty() ||
        !document.loadRun(document.runs().last().id, &error)) {
        std::fprintf(stderr, "usage: kiln_bench_gui plots FILE [--repeat N] (%s)\n",
                     qPrintable(error));
        return 2;
    }
    CandidateSelection selection;
    if (document.bestRow() >= 0)
        selection.setCurrent(document.at(document.bestRow()).id);
    PlotsPanel panel(&document, &selection);
    panel.resize(1100, 700);
    panel.show();
    std::printf("| Redraw of run %lld (%d candidates) | median of %d, ms |\n|---|---|\n",
                document.run().id, document.count(), repeat);
    for (PlotKind kind : allPlotKinds()) {
        const QList<ComputeAxis> axes =
            kind == PlotKind::Speedup ? allComputeAxes() : QList<ComputeAxis>{ComputeAxis::Samples};
        for (ComputeAxis axis : axes) {
            PlotOptions options;
            options.kind = kind;
            options.axis = axis;
            panel.setOptions(options);
            const double ms = timeMs(repeat, [&] { panel.refresh(); });
            std::printf("| %s%s | %.1f |\n", qPrintable(plotKindName(kind)),
                        kind == PlotKind::Speedup
                            ? qPrintable(QStringLiteral(", x = ") + computeAxisName(axis))
                            : "",
                        ms);
        }
    }
    int steps = 0;
    const double read = timeMs(1, [&] { steps = document.replaySteps(); });
    const double back = timeMs(1, [&] { document.setReplayStep(steps / 2); });
    const double forward =
        timeMs(repeat, [&] { document.setReplayStep(document.replayStep() + 100); });
    const double end = timeMs(1, [&] { document.endReplay(); });
    std::printf("| growth replay: read the timeline (%d steps) | %.1f |\n"
                "| growth replay: step back to the middle | %.1f |\n"
                "| growth replay: 100 steps forward | %.1f |\n"
                "| growth replay: back to the run as it is now | %.1f |\n",
                steps, read, back, forward, end);
    return 0;
}

} // namespace kiln
