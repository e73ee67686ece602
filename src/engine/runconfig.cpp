#include "runconfig.h"

#include "strategyregistry.h"

#include "languages/kernellanguages.h"

#include <QJsonArray>
#include <algorithm>

namespace kiln {

QJsonObject RunConfig::toJson() const
{
    return {
        {QStringLiteral("tasks"), QJsonArray::fromStringList(tasks)},
        {QStringLiteral("backend"), backendName(backend)},
        {QStringLiteral("policy"), policy},
        {QStringLiteral("strategy"), strategy},
        {QStringLiteral("strategy_parameters"), QJsonObject::fromVariantMap(strategyParameters)},
        {QStringLiteral("policy_parameters"), QJsonObject::fromVariantMap(policyParameters)},
        {QStringLiteral("budget_axis"), budgetAxisName(budgetAxis)},
        {QStringLiteral("budget"), budget},
        {QStringLiteral("seed"), QString::number(seed)},
        {QStringLiteral("round_limit"), roundLimit},
        {QStringLiteral("generation_threads"), generationThreads},
        {QStringLiteral("tasks_at_once"), tasksAtOnce},
        {QStringLiteral("target_speedup"), targetSpeedup},
        {QStringLiteral("plateau_rounds"), plateauRounds},
        {QStringLiteral("reasoning_length"), double(reasoningLength)},
        {QStringLiteral("allocation"), allocation},
        {QStringLiteral("duplicates"), duplicates},
        {QStringLiteral("profile"), profile},
        {QStringLiteral("confirm_best"), confirmBest},
        {QStringLiteral("replay_run"), double(replayRunId)},
        {QStringLiteral("verifier_seed"),
         verifierSeed ? QJsonValue(QString::number(*verifierSeed)) : QJsonValue()},
        {QStringLiteral("verifier"), verifier},
        {QStringLiteral("language"), language},
        {QStringLiteral("executor"), executor},
        {QStringLiteral("slurm"), onSlurm() ? QJsonValue(slurm.toJson()) : QJsonValue()}};
}

QString RunConfig::verifierProblem(const QString &mode, Backend backend)
{
    if (mode != QLatin1String("strict") && mode != QLatin1String("lenient"))
        return QStringLiteral("--verifier must be strict or lenient");
    if (mode == QLatin1String("lenient") && backend != Backend::Cpu)
        return QStringLiteral("--verifier lenient runs on the CPU backend only (--backend cpu)");
    return {};
}

QString RunConfig::profileProblem(const QString &profile, Backend backend)
{
    if (profile == QLatin1String("none") || backend == Backend::Cuda)
        return {};
    return QStringLiteral("--param profile=%1 needs the cuda backend: Kiln has no hardware "
                          "profiler for %2 kernels")
        .arg(profile, backendName(backend));
}

QString RunConfig::languageProblem(const QString &language, Backend backend, bool allowAuto)
{
    if (language == QLatin1String("auto")) {
        return allowAuto ? QString()
                         : QStringLiteral("--language auto judges single candidates only; a run "
                                          "needs one language (%1)")
                               .arg(KernelLanguages::ids().join(QStringLiteral(", ")));
    }
    if (!KernelLanguages::find(language))
        return QStringLiteral("--language must be %1%2, not '%3'")
            .arg(allowAuto ? QStringLiteral("auto, ") : QString(),
                 KernelLanguages::ids().join(QStringLiteral(", ")), language);
    if (backend != Backend::Torch && language != KernelLanguages::defaultLanguage().id())
        return QStringLiteral("--language %1 is for KernelBench problems (--backend pytorch); "
                              "the %2 backend takes Kiln's own kernel interface")
            .arg(language, backendName(backend));
    return {};
}

QString RunConfig::languageOf(const QJsonObject &config)
{
    return config.value(QStringLiteral("language"))
        .toString(KernelLanguages::defaultLanguage().id());
}

QString RunConfig::verifierOf(const QJsonObject &config)
{
    return config.value(QStringLiteral("verifier")).toString(QStringLiteral("strict"));
}

RunConfig RunConfig::fromJson(const QJsonObject &o)
{
    RunConfig c;
    c.tasks.clear();
    for (const QJsonValue &t : o.value(QStringLiteral("tasks")).toArray())
        c.tasks.append(t.toString());
    c.backend =
        backendFromName(o.value(QStringLiteral("backend")).toString()).value_or(Backend::Cpu);
    c.policy = o.value(QStringLiteral("policy")).toString(c.policy);
    c.strategy = o.value(QStringLiteral("strategy")).toString(c.strategy);
    c.strategyParameters = o.value(QStringLiteral("strategy_parameters")).toObject().toVariantMap();
    c.policyParameters = o.value(QStringLiteral("policy_parameters")).toObject().toVariantMap();
    c.budgetAxis = budgetAxisFromName(o.value(QStringLiteral("budget_axis")).toString())
                       .value_or(BudgetAxis::Evals);
    c.budget = o.value(QStringLiteral("budget")).toDouble(c.budget);
    c.seed = o.value(QStringLiteral("seed")).toString().toULongLong();
    c.roundLimit = o.value(QStringLiteral("round_limit")).toInt(c.roundLimit);
    c.generationThreads = o.value(QStringLiteral("generation_threads")).toInt(c.generationThreads);
    c.tasksAtOnce = std::max(1, o.value(QStringLiteral("tasks_at_once")).toInt(c.tasksAtOnce));
    c.targetSpeedup = o.value(QStringLiteral("target_speedup")).toDouble();
    c.plateauRounds = o.value(QStringLiteral("plateau_rounds")).toInt();
    c.reasoningLength = qint64(o.value(QStringLiteral("reasoning_length")).toDouble());
    c.allocation = o.value(QStringLiteral("allocation")).toString(c.allocation);
    c.duplicates = o.value(QStringLiteral("duplicates")).toString(c.duplicates);
    c.profile = o.value(QStringLiteral("profile")).toString(c.profile);
    c.confirmBest = o.value(QStringLiteral("confirm_best")).toBool(c.confirmBest);
    c.replayRunId = qint64(o.value(QStringLiteral("replay_run")).toDouble());
    if (o.value(QStringLiteral("verifier_seed")).isString())
        c.verifierSeed = o.value(QStringLiteral("verifier_seed")).toString().toULongLong();
    c.verifier = verifierOf(o);
    c.language = languageOf(o);
    c.executor = o.value(QStringLiteral("executor")).toString(c.executor);
    c.slurm = SlurmSettings::fromJson(o.value(QStringLiteral("slurm")).toObject());
    return c;
}

QString RunConfig::budgetShortfall() const
{
    if ((budgetAxis != BudgetAxis::Evals && budgetAxis != BudgetAxis::Samples) || !(budget > 0) ||
        !StrategyRegistry::contains(strategy))
        return {};
    return StrategyRegistry::budgetShortfall(strategy, strategyParameters, int(budget));
}

} // namespace kiln
