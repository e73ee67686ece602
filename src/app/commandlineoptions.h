#pragma once

#include <QString>
#include <QStringList>
#include <optional>

namespace kiln {

// The `kiln` arguments of cli.md: [--db FILE] [--run ID] [--select CANDIDATE_ID]
// [--view tree|plots|table|code|diff|report|transcript] [--screenshot OUT.png]
// [--new-run RUN-OPTIONS...] (every word after --new-run is an option of `kiln-cli run`).
struct CommandLineOptions
{
    QString database;
    std::optional<qint64> run;
    std::optional<qint64> select;
    QString view; // empty: the remembered layout
    QString screenshot;
    bool newRun = false;
    QStringList runArguments; // after --new-run

    static const QStringList &views();
    // Parses arguments (argv without the program name); on failure returns nullopt and a one-line
    // reason in *error. --help and --version are handled by the caller.
    static std::optional<CommandLineOptions> parse(const QStringList &arguments, QString *error);
};

} // namespace kiln
