#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>

namespace kiln {

// The `kiln` arguments of cli.md: [--db FILE] [--run ID] [--select CANDIDATE_ID]
// [--view tree|plots|table|code|diff|report|transcript] [--screenshot OUT.png]
// [--new-run RUN-OPTIONS...] (every word after --new-run is an option of `kiln-cli run`);
// [--runs ID,ID,...] --plot KIND [--x-axis AXIS] --export OUT.png|.pdf|.svg renders one plot;
// --compare --task T --strategies S1,S2 [--budget N] [--seeds K] starts the comparison.
struct CommandLineOptions
{
    QString database;
    std::optional<qint64> run;
    std::optional<qint64> select;
    QString view; // empty: the remembered layout
    QString screenshot;
    bool newRun = false;
    QStringList runArguments; // after --new-run
    QList<qint64> runs;       // --runs
    QString plot;             // --plot: speedup, coverage, reasoning, timing, roofline, fastp
    QString xAxis;            // --x-axis: a ComputeAxis name
    QString exportPath;       // --export
    // --compare --task T --strategies S1,S2 --budget N --seeds K
    bool compare = false;
    QString task;
    QStringList strategies;
    double budget = 24;
    int seeds = 3;

    static const QStringList &views();
    // Parses arguments (argv without the program name); on failure returns nullopt and a one-line
    // reason in *error. --help and --version are handled by the caller.
    static std::optional<CommandLineOptions> parse(const QStringList &arguments, QString *error);

private:
    // `--new-run` at arguments[at]: every word after it is a run option, but the window's own.
    static std::optional<CommandLineOptions> parseNewRun(const QStringList &arguments, int at,
                                                         QString *error);
    static std::optional<CommandLineOptions>
    checkCombination(CommandLineOptions options,
                     const std::function<std::nullopt_t(const QString &)> &fail);
};

} // namespace kiln
