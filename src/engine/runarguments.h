#pragma once

#include "engine/runconfig.h"

#include <QCommandLineParser>
#include <QStringList>
#include <optional>

namespace kiln {

// The options of `kiln-cli run` (cli.md) and their meaning as a RunConfig, in one place: the
// command line, `kiln --new-run` and the window's run launcher all go through it, so the line
// the launcher shows runs exactly what the launcher starts.
class RunArguments
{
public:
    // A whole `run` argument list (the words after `kiln-cli run`) as `kiln --new-run` takes it.
    struct Parsed
    {
        RunConfig config;
        QString database;      // --db, empty when not given
        QStringList tasksDirs; // --tasks-dir, in order
        int sandboxes = 0;     // --param sandboxes=N, 0 when not given
    };

    // Resolve: --backend auto becomes the CPU or the GPU that is usable here (a probe), and cuda
    // without a usable GPU is an error. NameOnly: only the name is checked (before the
    // application object exists, when no probe can run), and the config says Cpu.
    enum class Backends
    {
        Resolve,
        NameOnly
    };

    // Task or suite, backend, policy, budget, seed, database, --param and the LLM / replay
    // settings. Neither --strategy (compare takes --strategies) nor --json.
    static void addOptions(QCommandLineParser &parser);
    // --executor and --slurm-* (part of addOptions).
    static void addExecutorOptions(QCommandLineParser &parser);
    static QCommandLineOption strategyOption();
    static QCommandLineOption tasksDirOption();

    // The options of `parser` as a RunConfig for `strategy`, or nothing with a one-line *error.
    // --param keys go to the strategy (its declared parameters), the engine (target_speedup,
    // plateau, round_limit, reasoning_length, allocation, generation_threads, sandboxes) or the
    // policy (offline settings, llm.*).
    static std::optional<RunConfig> toConfig(const QCommandLineParser &parser,
                                             const QString &strategy, QString *error,
                                             Backends backends = Backends::Resolve);
    // Parses a `run` argument list, --strategy included; --json is accepted and ignored.
    static std::optional<Parsed> parse(const QStringList &arguments, QString *error,
                                       Backends backends = Backends::Resolve);

    static QStringList engineParameterNames();
    // The words as one line a POSIX shell reads back as the same words.
    static QString shellLine(const QStringList &words);
};

} // namespace kiln
