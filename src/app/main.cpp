#include "app/commandlineoptions.h"
#include "app/mainwindow.h"
#include "app/plotspanel.h"
#include "engine/runarguments.h"
#include "models/candidateselection.h"
#include "models/computeaxis.h"
#include "models/plotkind.h"
#include "models/runcontroller.h"
#include "models/rundocument.h"

#include <QApplication>
#include <QEventLoop>
#include <QFileInfo>

#include <cstdio>

using namespace kiln;

namespace {

const char usage[] =
    "Usage: kiln [--db FILE | FILE] [--run ID] [--select CANDIDATE_ID]\n"
    "            [--view tree|plots|table|code|diff|report|transcript] [--screenshot OUT.png]\n"
    "            [--new-run RUN-OPTIONS...]\n"
    "       kiln [--db FILE] --compare --task T --strategies S1,S2,... [--budget N] [--seeds K]\n"
    "       kiln --db FILE [--run ID | --runs ID,ID,...] [--select ID]\n"
    "            --plot speedup|coverage|reasoning|timing|roofline|fastp [--x-axis AXIS]\n"
    "            --export OUT.png|OUT.pdf|OUT.svg\n"
    "\n"
    "Kiln workbench: start, watch and explore the search runs of a workspace database.\n"
    "  --db FILE          workspace database to open (a bare FILE is the same)\n"
    "  --run ID           run to show (default: the most recent)\n"
    "  --select ID        candidate to select (default: the best passing one)\n"
    "  --view NAME        panel to bring to the front\n"
    "  --screenshot PNG   render the window after loading, save it and exit\n"
    "                     (with --new-run: once the run has finished)\n"
    "  --new-run ...      start a run in the window; every word after it is an option of\n"
    "                     `kiln-cli run` (--task, --strategy, --budget, --seed, --param, ...)\n"
    "  --compare          run each strategy over K seeds (1..K) at an equal budget of N\n"
    "                     evaluations (default 24, 3 seeds) and overlay their curves live\n"
    "  --plot KIND        render one plot of the run (or of --runs) without a window, save it\n"
    "                     to --export and exit; timing and roofline show the --select candidate,\n"
    "                     fastp every KernelBench run of the database\n"
    "  --x-axis AXIS      samples, prompt_tokens, completion_tokens, reasoning_tokens, tokens,\n"
    "                     evals, device_seconds, wall_seconds or cost (speedup plot)\n";

// Checks --db, --run and --select before any window or platform plugin exists, so that unusable
// input ends with exactly one line on stderr. Reads only the run list and one candidate.
bool validate(const CommandLineOptions &options, QString *error)
{
    if (options.compare)
        return true; // the comparison may create the database
    if (options.newRun) {
        // The run's options, except which backend "auto" means: that needs the application.
        if (!RunArguments::parse(options.runArguments, error, RunArguments::Backends::NameOnly)) {
            *error = QStringLiteral("--new-run: ") + *error;
            return false;
        }
        return true; // a new run may create the database
    }
    if (options.database.isEmpty())
        return true;
    if (!QFileInfo::exists(options.database)) {
        *error = QStringLiteral("cannot open database %1: no such file").arg(options.database);
        return false;
    }
    RunDocument probe;
    QString why;
    if (!probe.openDatabase(options.database, &why)) {
        *error = QStringLiteral("cannot open database %1: %2").arg(options.database, why);
        return false;
    }
    const QList<RunRecord> runs = probe.runs();
    QList<qint64> wanted = options.runs;
    if (options.run)
        wanted.append(*options.run);
    for (qint64 id : std::as_const(wanted)) {
        bool found = false;
        for (const RunRecord &r : runs)
            found = found || r.id == id;
        if (!found) {
            *error = QStringLiteral("no run %1 in %2").arg(id).arg(options.database);
            return false;
        }
    }
    if (!options.plot.isEmpty() && runs.isEmpty()) {
        *error = QStringLiteral("no run to plot in %1").arg(options.database);
        return false;
    }
    if (options.select) {
        const std::optional<CandidateRecord> c = probe.candidate(*options.select);
        if (!c || (options.run && c->runId != *options.run)) {
            *error =
                QStringLiteral("no candidate %1 in %2").arg(*options.select).arg(options.database);
            return false;
        }
    }
    return true;
}

// Waits while the engine sets the run up (the task, the policy, the strategy are checked there,
// on the run's thread): a run that cannot start ends `kiln --new-run` with status 2 and one
// line instead of leaving an empty window open. True when it failed.
bool setUpOrFailed(RunController &controller)
{
    if (controller.state() == RunController::State::Starting) {
        QEventLoop loop;
        QObject::connect(&controller, &RunController::stateChanged, &loop,
                         [&loop](RunController::State state) {
                             if (state != RunController::State::Starting)
                                 loop.quit();
                         });
        loop.exec();
    }
    if (controller.state() != RunController::State::Failed)
        return false;
    std::fprintf(stderr, "kiln: --new-run: %s\n", qPrintable(controller.error()));
    return true;
}

// --new-run: starts the run in the window. With --screenshot it waits until the run has ended.
// Returns an exit status to end with, or -1 to go on.
int startNewRun(MainWindow &window, const CommandLineOptions &options)
{
    QString error;
    RunController *controller =
        window.startRunFromArguments(options.runArguments, options.database, &error);
    if (!controller) {
        std::fprintf(stderr, "kiln: --new-run: %s\n", qPrintable(error));
        return 2;
    }
    if (!options.view.isEmpty())
        window.showView(options.view);
    if (options.screenshot.isEmpty())
        return setUpOrFailed(*controller) ? 2 : -1;
    if (controller->isLive() || controller->state() == RunController::State::Queued) {
        QEventLoop loop;
        QObject::connect(controller, &RunController::finished, &loop, &QEventLoop::quit);
        QObject::connect(controller, &RunController::failed, &loop, &QEventLoop::quit);
        loop.exec();
    }
    if (controller->state() == RunController::State::Failed) {
        std::fprintf(stderr, "kiln: --new-run: %s\n", qPrintable(controller->error()));
        return 2;
    }
    // Let the last queued results reach the document before the picture is taken.
    QApplication::processEvents();
    window.selectBestCandidate();
    return -1;
}

// --compare: starts the comparison. With --screenshot it waits until every run has ended.
// Returns an exit status to end with, or -1 to go on.
int startComparison(MainWindow &window, const CommandLineOptions &options)
{
    MainWindow::Comparison comparison;
    comparison.task = options.task;
    comparison.strategies = options.strategies;
    comparison.budget = options.budget;
    comparison.seeds = options.seeds;
    comparison.database = options.database;
    QString error;
    const QList<RunController *> controllers = window.startComparison(comparison, &error);
    if (controllers.size() != options.strategies.size() * options.seeds) {
        std::fprintf(stderr, "kiln: --compare: %s\n", qPrintable(error));
        return 2;
    }
    if (options.screenshot.isEmpty())
        return -1;
    for (RunController *controller : controllers) {
        if (!controller->isLive() && controller->state() != RunController::State::Queued)
            continue;
        QEventLoop loop;
        QObject::connect(controller, &RunController::finished, &loop, &QEventLoop::quit);
        QObject::connect(controller, &RunController::failed, &loop, &QEventLoop::quit);
        loop.exec();
    }
    QApplication::processEvents();
    window.plotsPanel()->refresh();
    window.showView(QStringLiteral("plots"));
    return -1;
}

// --plot: one plot, rendered without a window, saved, exit status.
int renderPlot(const CommandLineOptions &options)
{
    RunDocument document;
    QString error;
    if (!document.openDatabase(options.database, &error)) {
        std::fprintf(stderr, "kiln: %s\n", qPrintable(error));
        return 2;
    }
    const QList<RunRecord> runs = document.runs();
    const qint64 shown = options.run
                             ? *options.run
                             : (!options.runs.isEmpty() ? options.runs.first() : runs.last().id);
    if (!document.loadRun(shown, &error)) {
        std::fprintf(stderr, "kiln: %s\n", qPrintable(error));
        return 2;
    }
    CandidateSelection selection;
    const int best = document.bestRow();
    if (options.select)
        selection.setCurrent(*options.select);
    else if (best >= 0)
        selection.setCurrent(document.at(best).id);
    PlotsPanel panel(&document, &selection);
    panel.resize(1100, 700);
    panel.setRunIds(options.runs.isEmpty() ? QList<qint64>{shown} : options.runs);
    PlotOptions plot;
    plot.kind = *plotKindFromName(options.plot);
    if (!options.xAxis.isEmpty())
        plot.axis = *computeAxisFromName(options.xAxis);
    panel.setOptions(plot);
    panel.refresh();
    if (!panel.exportTo(options.exportPath, 1100, 680, &error)) {
        std::fprintf(stderr, "kiln: %s\n", qPrintable(error));
        return 1;
    }
    if (!panel.renderer().emptyReason().isEmpty())
        std::fprintf(stderr, "kiln: note: %s\n", qPrintable(panel.renderer().emptyReason()));
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    QStringList arguments;
    for (int i = 1; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    if (arguments.contains(QStringLiteral("--help")) || arguments.contains(QStringLiteral("-h"))) {
        std::fputs(usage, stdout);
        return 0;
    }
    if (arguments.contains(QStringLiteral("--version"))) {
        std::printf("kiln %s\n", KILN_VERSION);
        return 0;
    }
    QString error;
    const std::optional<CommandLineOptions> options = CommandLineOptions::parse(arguments, &error);
    if (!options || !validate(*options, &error)) {
        std::fprintf(stderr, "kiln: %s\n", qPrintable(error));
        return 2;
    }

    // A plot is rendered without a display.
    if (!options->plot.isEmpty() && !qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication::setOrganizationName(QStringLiteral("Kiln"));
    QApplication::setApplicationName(QStringLiteral("kiln"));
    QApplication::setApplicationVersion(QStringLiteral(KILN_VERSION));
    QApplication app(argc, argv);
    // The installed .desktop entry's id: desktops match the window to its icon and entry.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.kiln.Kiln"));
    QApplication::setStyle(QStringLiteral("Fusion"));
    if (!options->plot.isEmpty())
        return renderPlot(*options);

    // A screenshot must not depend on the layout a user left behind.
    MainWindow window(options->screenshot.isEmpty() ? MainWindow::Settings::Remember
                                                    : MainWindow::Settings::Ignore);
    if (options->screenshot.isEmpty()) {
        // The window first, then the run: a large run takes seconds to read, and the user sees
        // the window (and a busy cursor) meanwhile rather than nothing.
        window.show();
        QApplication::processEvents();
    }
    if (options->newRun || options->compare) {
        const int status =
            options->compare ? startComparison(window, *options) : startNewRun(window, *options);
        if (status >= 0)
            return status;
    } else if (!window.applyOptions(*options, &error, !options->screenshot.isEmpty())) {
        // Interactive: read the run in the background; a screenshot waits for it.
        std::fprintf(stderr, "kiln: %s\n", qPrintable(error));
        return 2;
    }
    if (!options->screenshot.isEmpty()) {
        if (!window.saveScreenshot(options->screenshot, &error)) {
            std::fprintf(stderr, "kiln: %s\n", qPrintable(error));
            return 1;
        }
        return 0;
    }
    return app.exec();
}
