#pragma once

#include "core/backend.h"
#include "engine/budget/budgetaxis.h"
#include "engine/cluster/slurmsettings.h"

#include <QJsonObject>
#include <QStringList>
#include <QVariantMap>
#include <optional>

namespace kiln {

// Everything that defines a search run; stored with the run so `resume` can rebuild it.
struct RunConfig
{
    QStringList tasks; // one task, or a suite
    Backend backend = Backend::Cpu;
    QString policy = QStringLiteral("offline");
    QString strategy = QStringLiteral("best-of-n");
    QVariantMap strategyParameters;
    QVariantMap policyParameters; // offline: skill, rates; llm: endpoint, model, api, key env
    BudgetAxis budgetAxis = BudgetAxis::Evals;
    double budget = 32;
    quint64 seed = 1;
    // Most requests per round, on every budget axis: feedback-driven strategies (greedy, MCTS,
    // two-phase) only steer when a round is small next to the budget.
    int roundLimit = 8;
    int generationThreads = 2;
    // Suites: rounds of up to this many different tasks run at once (one round per task), so one
    // task's compiles overlap another's timing. The rounds are planned together from what was
    // recorded before them and recorded in their order: the same seed records the same rounds,
    // however the threads interleave.
    int tasksAtOnce = 1;
    double targetSpeedup = 0.0; // 0: none
    int plateauRounds = 0;      // 0: none
    qint64 reasoningLength = 0; // default reasoning budget for every request (0: policy's)
    QString allocation = QStringLiteral("adaptive"); // suites: "adaptive", "even" or "diagnosed"
    // A candidate whose source repeats an earlier one of its task (SourceFingerprint): "reuse"
    // takes that judgement as it is; "remeasure" judges it afresh (to study the evaluator's
    // noise), still marked as a duplicate.
    QString duplicates = QStringLiteral("reuse");
    bool reusesDuplicates() const { return duplicates == QLatin1String("reuse"); }
    // Hardware profiles once the rounds are done (CUDA backend, Nsight Compute): "none", "best"
    // (each task's best, beside its reference) or "all" (every passing candidate, and the
    // reference beside each task's best).
    QString profile = QStringLiteral("none");
    // Why the budget ends the run before its strategy does what it is named for
    // (Strategy::budgetShortfall), where the budget counts evaluations or samples; else empty.
    QString budgetShortfall() const;
    // Re-measure a candidate with more trials before it becomes its task's best.
    bool confirmBest = true;
    qint64 replayRunId = 0;
    // --verifier-seed: the verifier's secret derives from it, so runs check identical inputs on
    // purpose. None (the default): a fresh secret from the OS for every run.
    std::optional<quint64> verifierSeed;
    // --verifier: "strict" (the default) or "lenient", the naive harness of the workshop's leaky
    // verifier lesson (CPU backend). Every report of a lenient run says so.
    QString verifier = QStringLiteral("strict");
    // --language: the kernel language of a KernelBench run's candidates (KernelLanguages ids:
    // cuda, triton ...); what prompts ask for and what the verifier accepts. Other backends
    // keep "cuda" (Kiln's own kernel ABI).
    QString language = QStringLiteral("cuda");
    // Why --param profile cannot be honoured on `backend` (only CUDA has a profiler), or empty.
    static QString profileProblem(const QString &profile, Backend backend);
    // Why a --language value cannot serve a run on `backend` ("" when it can); `allowAuto`:
    // "auto" (each candidate's own language) is accepted, as a single eval does.
    static QString languageProblem(const QString &language, Backend backend,
                                   bool allowAuto = false);
    // The language a stored run's candidates were judged in (its config, as toJson() wrote it).
    static QString languageOf(const QJsonObject &config);
    bool lenient() const { return verifier == QLatin1String("lenient"); }
    // --executor: "local" (this machine's sandboxes) or "slurm" (worker jobs on a cluster,
    // docs/cluster.md), with the cluster's settings.
    QString executor = QStringLiteral("local");
    SlurmSettings slurm;
    bool onSlurm() const { return executor == QLatin1String("slurm"); }
    // Why a --verifier value cannot judge on this backend ("" when it can).
    static QString verifierProblem(const QString &mode, Backend backend);
    // The verifier a stored run was judged by (its config, as toJson() wrote it).
    static QString verifierOf(const QJsonObject &config);
    static bool lenientOf(const QJsonObject &config)
    {
        return verifierOf(config) == QLatin1String("lenient");
    }

    QJsonObject toJson() const;
    static RunConfig fromJson(const QJsonObject &object);
};

} // namespace kiln
