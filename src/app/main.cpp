#include "app/commandlineoptions.h"
#include "app/mainwindow.h"
#include "models/rundocument.h"

#include <QApplication>
#include <QFileInfo>

#include <cstdio>

using namespace kiln;

namespace {

const char usage[] =
    "Usage: kiln [--db FILE] [--run ID] [--select CANDIDATE_ID]\n"
    "            [--view tree|plots|table|code|diff|report|transcript] [--screenshot OUT.png]\n"
    "\n"
    "Kiln workbench: explore the search runs of a workspace database.\n"
    "  --db FILE          workspace database to open\n"
    "  --run ID           run to show (default: the most recent)\n"
    "  --select ID        candidate to select (default: the best passing one)\n"
    "  --view NAME        panel to bring to the front\n"
    "  --screenshot PNG   render the window after loading, save it and exit\n";

// Checks --db, --run and --select before any window or platform plugin exists, so that unusable
// input ends with exactly one line on stderr. Reads only the run list and one candidate.
bool validate(const CommandLineOptions &options, QString *error)
{
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
    if (options.run) {
        bool found = false;
        for (const RunRecord &r : runs)
            found = found || r.id == *options.run;
        if (!found) {
            *error = QStringLiteral("no run %1 in %2").arg(*options.run).arg(options.database);
            return false;
        }
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

    QApplication::setOrganizationName(QStringLiteral("Kiln"));
    QApplication::setApplicationName(QStringLiteral("kiln"));
    QApplication::setApplicationVersion(QStringLiteral(KILN_VERSION));
    QApplication app(argc, argv);
    QApplication::setStyle(QStringLiteral("Fusion"));

    // A screenshot must not depend on the layout a user left behind.
    MainWindow window(options->screenshot.isEmpty() ? MainWindow::Settings::Remember
                                                    : MainWindow::Settings::Ignore);
    if (options->screenshot.isEmpty()) {
        // The window first, then the run: a large run takes seconds to read, and the user sees
        // the window (and a busy cursor) meanwhile rather than nothing.
        window.show();
        QApplication::processEvents();
    }
    // Interactive: read the run in the background; a screenshot waits for it.
    if (!window.applyOptions(*options, &error, !options->screenshot.isEmpty())) {
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
