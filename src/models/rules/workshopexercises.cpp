#include "models/rules/workshopexercises.h"

#include <QDir>
#include <QObject>

#include <algorithm>
#include <cmath>

namespace kiln {

namespace {

const QStringList kSuite = {QStringLiteral("vector_add"), QStringLiteral("reduce_sum"),
                            QStringLiteral("softmax"),    QStringLiteral("layernorm"),
                            QStringLiteral("matmul"),     QStringLiteral("transpose")};

// One run of an exercise: the CPU backend, the offline policy's frontier preset, one seed.
LaunchSettings run(const QStringList &tasks, const QString &strategy, double budget, quint64 seed,
                   const QVariantMap &parameters = {})
{
    LaunchSettings s;
    s.tasks = tasks;
    s.backend = QStringLiteral("cpu");
    s.strategy = strategy;
    s.strategyParameters = parameters;
    s.budget = budget;
    s.seed = seed;
    return s;
}

using View = WorkshopExercise::View;

WorkshopExercise width()
{
    LaunchSettings even = run(kSuite, QStringLiteral("best-of-n"), 48, 7);
    even.allocation = QStringLiteral("even");
    return {.number = 1,
            .title = QObject::tr("Width plateaus"),
            .database = QStringLiteral("width.db"),
            .runs = {even},
            .view = View::Plot,
            .plot = PlotKind::Coverage,
            .lookAt =
                QObject::tr("The coverage plot: each task's pass@k against k, and their mean."),
            .expect = QObject::tr(
                "Coverage rises with k, but far more slowly than independent tries would give: "
                "at a pass@1 of about 0.4, six independent tries would cover nearly every task, "
                "and the run covers clearly fewer. Some tasks stay flat however many samples are "
                "drawn: the model holds a misconception that every fresh sample repeats.")};
}

WorkshopExercise depth()
{
    return {.number = 2,
            .title = QObject::tr("Depth against width at equal budget"),
            .database = QStringLiteral("dw.db"),
            .runs = {run(kSuite, QStringLiteral("best-of-n"), 36, 7),
                     run(kSuite, QStringLiteral("refine"), 36, 7,
                         {{QStringLiteral("width"), 1}, {QStringLiteral("turns"), 6}})},
            .view = View::Compare,
            .lookAt = QObject::tr(
                "How many of the six tasks each run solved (the run picker and the report), and "
                "the refine run's lineage: a failed kernel, the verifier's feedback in the "
                "transcript, the fix."),
            .expect = QObject::tr(
                "Refinement solves at least as many tasks as sampling, usually more: feedback "
                "that points at a failure fixes it on a turn with probability fix_rate (0.55), "
                "while a resample repeats the misconception.")};
}

WorkshopExercise beam()
{
    return {.number = 3,
            .title = QObject::tr("Structured search"),
            .database = QStringLiteral("beam.db"),
            .runs = {run({QStringLiteral("softmax")}, QStringLiteral("beam"), 27, 7,
                         {{QStringLiteral("beams"), 3}, {QStringLiteral("children"), 3}})},
            .view = View::Tree,
            .lookAt = QObject::tr("The lineage view: each round keeps the three best kernels and "
                                  "refines them."),
            .expect = QObject::tr("Lineages at least two refinements deep, with the best kernel "
                                  "near the bottom: a good kernel's parent is a good kernel.")};
}

WorkshopExercise reasoning()
{
    QList<LaunchSettings> runs;
    for (int length : {400, 12000}) {
        runs.append(run({QStringLiteral("matmul")}, QStringLiteral("best-of-n"), 12, 11,
                        {{QStringLiteral("reasoning_length"), length}}));
        runs.last().offlineOverrides = {{QStringLiteral("stuck_share"), 0.0}};
    }
    return {.number = 4,
            .title = QObject::tr("The reasoning-length knob"),
            .database = QStringLiteral("reasoning.db"),
            .runs = runs,
            .view = View::Plot,
            .plot = PlotKind::Reasoning,
            .lookAt = QObject::tr(
                "Reasoning tokens spent (the status bar and the report), how many kernels pass, "
                "and the reasoning plot of each run (pick the run in the run picker)."),
            .expect = QObject::tr(
                "The long budget spends far more tokens (about 9,500 a kernel against 400) and "
                "buys no speed; the short one cuts traces short, and more of its kernels fail.")};
}

WorkshopExercise allocation()
{
    QList<LaunchSettings> runs;
    for (const char *mode : {"even", "adaptive", "diagnosed"}) {
        runs.append(run(kSuite, QStringLiteral("best-of-n"), 36, 7));
        runs.last().allocation = QString::fromLatin1(mode);
    }
    return {.number = 5,
            .title = QObject::tr("Compute-optimal allocation over a suite"),
            .database = QStringLiteral("alloc.db"),
            .runs = runs,
            .view = View::Plot,
            .plot = PlotKind::Coverage,
            .lookAt = QObject::tr(
                "Samples per task in each run: the coverage plot's legend gives each task's n "
                "(run 1 even, run 2 adaptive, run 3 diagnosed; pick the run in the run picker). "
                "Then the best per task (kiln-cli report) and each run's Diagnosis tab."),
            .expect = QObject::tr(
                "even gives every task the same share. adaptive first probes every task, then "
                "gives more to the tasks that still fail or reason longer, and stops a task that "
                "keeps passing without improving. diagnosed probes too, then weighs failures, the "
                "reasoning tier and stagnation, and stops a task at its ceiling. At this budget "
                "the three reach about the same suite score: over five seeds the differences "
                "were inside the noise (docs/performance.md).")};
}

WorkshopExercise leaky()
{
    LaunchSettings lenient =
        run({QStringLiteral("reduce_sum")}, QStringLiteral("best-of-n"), 10, 5);
    lenient.verifier = QStringLiteral("lenient");
    lenient.gamingRate = 0.5;
    lenient.offlineOverrides = {{QStringLiteral("stuck_share"), 0.0}};
    return {.number = 6,
            .title = QObject::tr("The leaky verifier"),
            .database = QStringLiteral("leaky.db"),
            .runs = {lenient},
            .rejudgeStrictly = true,
            .view = View::Compare,
            .lookAt = QObject::tr(
                "Which kernels pass under each verifier (run 1 lenient, run 2 the same kernels "
                "judged strictly), and the flags on the strict run's kernels (the code view marks "
                "the lines)."),
            .expect = QObject::tr(
                "The lenient harness passes kernels the strict verifier flags or fails (a result "
                "cached on the input pointer, an input cleared after use, a detached thread), so "
                "the lenient run shows more passes and a speedup that is not real.")};
}

WorkshopExercise byHand()
{
    return {.number = 7,
            .title = QObject::tr("Beat the search by hand"),
            .database = QStringLiteral("hand.db"),
            .runs = {run({QStringLiteral("vector_add")}, QStringLiteral("best-of-n"), 4, 2)},
            .view = View::Code,
            .lookAt = QObject::tr(
                "Pick a candidate, Edit a copy (Ctrl+E), change it and Submit as child: your "
                "kernel's verdict and speedup beside the search's best."),
            .expect = QObject::tr(
                "It is judged by the same verifier on the same inputs as the search's kernels. "
                "Try to beat the best; then try to cheat (cache the output, skip the work) and "
                "read the flag.")};
}

} // namespace

QList<WorkshopExercise> WorkshopExercise::all(const QString &folder, double scale)
{
    QList<WorkshopExercise> list{width(),      depth(), beam(),  reasoning(),
                                 allocation(), leaky(), byHand()};
    for (WorkshopExercise &e : list)
        for (LaunchSettings &s : e.runs) {
            s.budget = std::max(2.0, std::round(s.budget * scale));
            s.database = QDir(folder).filePath(e.database);
        }
    return list;
}

QStringList WorkshopExercise::commands() const
{
    QStringList lines;
    for (const LaunchSettings &s : runs)
        lines << s.commandLine();
    if (rejudgeStrictly)
        lines << QStringLiteral("kiln-cli rejudge --db %1 --run 1").arg(runs.first().database);
    return lines;
}

} // namespace kiln
