#pragma once

#include "policies/offline/offlinepolicy.h"
#include "verifier/harness/cudadevices.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <functional>

class QSettings;

namespace kiln {

class TaskLibrary;

// What the run launcher's form holds, without the widgets: the choices of `kiln-cli run`, turned
// into its argument words (the launcher starts exactly what the line it shows would run), checked
// field by field before anything starts, and remembered between sessions.
struct LaunchSettings
{
    struct Problem
    {
        QString field; // the form field at fault: "task", "budget", "endpoint", ...
        QString message;
    };

    QStringList tasks;                           // one task, or several (a suite)
    QString backend = QStringLiteral("auto");    // auto | cpu | cuda
    QString policy = QStringLiteral("offline");  // offline | llm | command | replay
    QString verifier = QStringLiteral("strict"); // strict | lenient (the naive harness, CPU)
    QString language = QStringLiteral("cuda");   // KernelBench: KernelLanguages ids
    // offline: a preset, and the settings it gives (a changed one is passed as --param)
    QString preset = OfflinePolicyOptions().preset;
    double skill = OfflinePolicyOptions().skill;
    double compileErrorRate = OfflinePolicyOptions().compileErrorRate;
    double wrongRate = OfflinePolicyOptions().wrongRate;
    double gamingRate = OfflinePolicyOptions().gamingRate;
    // The offline settings beyond those four (stuck_share, fix_rate, ...), only where they
    // differ from the preset's: `--param NAME=VALUE`.
    QVariantMap offlineOverrides;
    // llm
    QString endpoint;
    QString model;
    QString api = QStringLiteral("openai"); // openai | anthropic
    QString apiKeyEnv;
    QString reasoningEffort; // empty: the server's default
    double pricePrompt = -1; // per million tokens; < 0: the price table's
    double priceCompletion = -1;
    // command: a coding agent's command line, its time limit and what else it may read
    QString agentCommand;
    int agentTimeoutSeconds = 600;
    QString agentReadable; // folders, ':'-separated (command.read)
    // replay
    qint64 replayRunId = 0;
    // search
    QString strategy = QStringLiteral("best-of-n");
    QVariantMap strategyParameters; // only values that differ from the declared defaults
    double budget = 32;
    QString budgetAxis = QStringLiteral("evals");
    // A suite's budget among its tasks: adaptive (the engine's default) or even.
    QString allocation = QStringLiteral("adaptive");
    // A suite's rounds of up to this many tasks at once (tasks_at_once; 1: one at a time).
    int tasksAtOnce = 1;
    quint64 seed = 1;
    int seeds = 1; // runs of seeds seed, seed+1, ...
    QString database;
    // where evaluations run: local (this machine) | slurm (worker jobs on a cluster)
    QString executor = QStringLiteral("local");
    QString slurmPartition;
    int slurmGpus = 0;
    int slurmMaxJobs = 4;

    // Every problem, in form order; empty when the settings can start. `gpus` decides whether
    // --backend cuda can run; `environment` answers whether a variable is set (the API key).
    QList<Problem> problems(const TaskLibrary &library, const CudaAvailability &gpus,
                            const std::function<bool(const QString &)> &environment) const;
    // What would start but not be what was asked (a budget that ends an evolve run before its
    // first generation): advice shown beside the form, never a refusal.
    QStringList warnings() const;
    // The words after `kiln-cli run` for the run of seed seed + seedOffset (with --db).
    QStringList arguments(int seedOffset = 0) const;
    // The equivalent command line(s): one `kiln-cli run …`, or a loop over the seeds.
    QString commandLine() const;

    // The problems of the policy's fields (offline settings, the endpoint, the replayed run).
    void policyProblems(const std::function<void(const QString &, const QString &)> &add,
                        const std::function<bool(const QString &)> &environment) const;
    // The problems of the Evaluations row (executor and Slurm settings), given to `add`.
    void executorProblems(const std::function<void(const QString &, const QString &)> &add) const;

    // The offline settings the launcher shows under "More offline settings": every numeric
    // setting of OfflinePolicyOptions but skill and the three rates, which have fields of their
    // own.
    static QStringList extraOfflineSettings();

    void save(QSettings &settings) const;
    static LaunchSettings load(const QSettings &settings);
};

} // namespace kiln
