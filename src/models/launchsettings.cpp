#include "launchsettings.h"

#include "engine/budget/budgetallocator.h"
#include "engine/runarguments.h"
#include "engine/runconfig.h"
#include "strategyregistry.h"
#include "tasks/tasklibrary.h"

#include <QSettings>
#include <QUrl>
#include <cmath>

namespace kiln {

namespace {

QString number(double value)
{
    return QString::number(value, 'g', 12);
}

QString text(const QVariant &value)
{
    if (value.typeId() == QMetaType::Bool)
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.typeId() == QMetaType::Double)
        return number(value.toDouble());
    return value.toString();
}

bool isCount(const QString &axis)
{
    return axis == QLatin1String("evals") || axis == QLatin1String("samples");
}

const QStringList &efforts()
{
    static const QStringList levels{QStringLiteral("minimal"), QStringLiteral("low"),
                                    QStringLiteral("medium"), QStringLiteral("high")};
    return levels;
}

} // namespace

QList<LaunchSettings::Problem>
LaunchSettings::problems(const TaskLibrary &library, const CudaAvailability &gpus,
                         const std::function<bool(const QString &)> &environment) const
{
    QList<Problem> found;
    auto add = [&found](const QString &field, const QString &message) {
        found.append({field, message});
    };
    const bool cuda =
        backend == QLatin1String("cuda") || (backend == QLatin1String("auto") && gpus.usable);
    if (tasks.isEmpty())
        add(QStringLiteral("task"), QObject::tr("Pick a task (or several, for a suite)."));
    for (const QString &name : tasks) {
        const Task *task = library.task(name);
        if (!task)
            add(QStringLiteral("task"), QObject::tr("There is no task '%1'.").arg(name));
        else if (const Backend wanted =
                     backend == QLatin1String("pytorch") ||
                             (backend == QLatin1String("auto") && task->isKernelBench())
                         ? Backend::Torch
                         : (cuda ? Backend::Cuda : Backend::Cpu);
                 !task->backends().contains(wanted))
            add(QStringLiteral("task"),
                QObject::tr("Task '%1' has no %2 reference.")
                    .arg(name, wanted == Backend::Torch  ? QStringLiteral("PyTorch")
                               : wanted == Backend::Cuda ? QStringLiteral("CUDA")
                                                         : QStringLiteral("CPU")));
    }
    if (backend == QLatin1String("cuda") && !gpus.usable)
        add(QStringLiteral("backend"), QObject::tr("No usable GPU: %1").arg(gpus.reason));
    if (verifier != QLatin1String("strict") && verifier != QLatin1String("lenient"))
        add(QStringLiteral("verifier"), QObject::tr("The verifier is strict or lenient."));
    else if (verifier == QLatin1String("lenient") && backend != QLatin1String("cpu"))
        add(QStringLiteral("verifier"),
            QObject::tr("The lenient verifier (the naive harness) runs on the CPU backend only: "
                        "choose the cpu backend."));
    if (const QString problem = RunConfig::languageProblem(
            language, backend == QLatin1String("cpu") || backend == QLatin1String("cuda")
                          ? Backend::Cpu
                          : Backend::Torch);
        !problem.isEmpty())
        add(QStringLiteral("language"), problem);
    policyProblems(add, environment);
    if (!StrategyRegistry::contains(strategy)) {
        add(QStringLiteral("strategy"), QObject::tr("Unknown strategy '%1'.").arg(strategy));
    } else {
        for (auto it = strategyParameters.cbegin(); it != strategyParameters.cend(); ++it) {
            const QString why =
                StrategyRegistry::validate(strategy, QVariantMap{{it.key(), it.value()}});
            if (!why.isEmpty())
                add(QStringLiteral("param:") + it.key(), why);
        }
    }
    if (!(budget > 0))
        add(QStringLiteral("budget"), QObject::tr("The budget must be more than 0."));
    else if (isCount(budgetAxis) && budget != std::floor(budget))
        add(QStringLiteral("budget"),
            QObject::tr("A budget of %1 counts whole units.").arg(budgetAxis));
    if (!budgetAxisFromName(budgetAxis))
        add(QStringLiteral("budgetAxis"), QObject::tr("Unknown budget axis '%1'.").arg(budgetAxis));
    if (!BudgetAllocator::modeFromName(allocation))
        add(QStringLiteral("allocation"),
            QObject::tr("A suite's allocation is adaptive, even or diagnosed."));
    if (tasksAtOnce < 1)
        add(QStringLiteral("tasksAtOnce"), QObject::tr("A suite runs at least one task at once."));
    if (seeds < 1 || seeds > 100)
        add(QStringLiteral("seeds"), QObject::tr("Run between 1 and 100 seeds."));
    if (database.trimmed().isEmpty())
        add(QStringLiteral("database"), QObject::tr("Choose the database the run is stored in."));
    executorProblems(add);
    return found;
}

void LaunchSettings::policyProblems(
    const std::function<void(const QString &, const QString &)> &add,
    const std::function<bool(const QString &)> &environment) const
{
    if (policy == QLatin1String("offline")) {
        if (!OfflinePolicyOptions::fromPreset(preset))
            add(QStringLiteral("offline"), QObject::tr("Unknown model preset '%1'.").arg(preset));
        for (double rate : {skill, compileErrorRate, wrongRate, gamingRate}) {
            if (!(rate >= 0.0 && rate <= 1.0)) {
                add(QStringLiteral("offline"),
                    QObject::tr("Skill and failure rates lie between 0 and 1."));
                break;
            }
        }
        for (auto it = offlineOverrides.cbegin(); it != offlineOverrides.cend(); ++it) {
            bool number = false;
            const double value = it.value().toDouble(&number);
            if (!extraOfflineSettings().contains(it.key()))
                add(QStringLiteral("offline"),
                    QObject::tr("Unknown offline setting '%1'.").arg(it.key()));
            else if (!number || !(value >= 0.0 && value <= 1.0))
                add(QStringLiteral("offline"),
                    QObject::tr("The offline setting %1 lies between 0 and 1.").arg(it.key()));
        }
    } else if (policy == QLatin1String("llm")) {
        const QUrl url(endpoint.trimmed(), QUrl::StrictMode);
        if (!url.isValid() ||
            !(url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https")) ||
            url.host().isEmpty())
            add(QStringLiteral("endpoint"),
                QObject::tr("The endpoint must be an http:// or https:// URL, for example "
                            "http://localhost:8000/v1."));
        if (model.trimmed().isEmpty())
            add(QStringLiteral("model"), QObject::tr("Name the model to ask."));
        if (api != QLatin1String("openai") && api != QLatin1String("anthropic"))
            add(QStringLiteral("api"), QObject::tr("The API is openai or anthropic."));
        if (!apiKeyEnv.isEmpty() && !environment(apiKeyEnv))
            add(QStringLiteral("apiKeyEnv"),
                QObject::tr("The variable %1 is not set in Kiln's environment, so no key "
                            "would be sent. Set it before starting Kiln, or leave the field "
                            "empty for a server without a key.")
                    .arg(apiKeyEnv));
        if (!reasoningEffort.isEmpty() && !efforts().contains(reasoningEffort))
            add(QStringLiteral("reasoningEffort"),
                QObject::tr("Reasoning effort is minimal, low, medium or high."));
    } else if (policy == QLatin1String("command")) {
        if (agentCommand.trimmed().isEmpty())
            add(QStringLiteral("agentCommand"),
                QObject::tr("Give the agent's command line, for example: claude -p "
                            "--output-format json < prompt.md"));
        if (agentTimeoutSeconds < 1)
            add(QStringLiteral("agentTimeout"),
                QObject::tr("The agent's time limit must be at least one second."));
    } else if (policy == QLatin1String("replay")) {
        if (replayRunId <= 0)
            add(QStringLiteral("replay"), QObject::tr("Pick the recorded run to replay."));
    } else {
        add(QStringLiteral("policy"), QObject::tr("Unknown policy '%1'.").arg(policy));
    }
}

void LaunchSettings::executorProblems(
    const std::function<void(const QString &, const QString &)> &add) const
{
    if (executor != QLatin1String("local") && executor != QLatin1String("slurm"))
        add(QStringLiteral("executor"), QObject::tr("Evaluations run locally or on Slurm."));
    else if (executor == QLatin1String("slurm") && slurmPartition.trimmed().isEmpty())
        add(QStringLiteral("slurmPartition"),
            QObject::tr("Name the Slurm partition the worker jobs go to."));
    if (slurmGpus < 0)
        add(QStringLiteral("slurmGpus"), QObject::tr("A worker job asks for 0 or more GPUs."));
    if (slurmMaxJobs < 1)
        add(QStringLiteral("slurmMaxJobs"), QObject::tr("At least one worker job runs."));
}

QStringList LaunchSettings::warnings() const
{
    RunConfig config;
    config.strategy = strategy;
    config.strategyParameters = strategyParameters;
    config.budget = budget;
    const std::optional<BudgetAxis> axis = budgetAxisFromName(budgetAxis);
    if (!axis)
        return {};
    config.budgetAxis = *axis;
    const QString shortfall = config.budgetShortfall();
    return shortfall.isEmpty() ? QStringList() : QStringList{shortfall};
}

QStringList LaunchSettings::arguments(int seedOffset) const
{
    QStringList words;
    if (tasks.size() > 1)
        words << QStringLiteral("--suite") << tasks.join(QLatin1Char(','));
    else
        words << QStringLiteral("--task") << tasks.value(0);
    words << QStringLiteral("--strategy") << strategy;
    if (backend != QLatin1String("auto"))
        words << QStringLiteral("--backend") << backend;
    words << QStringLiteral("--budget") << number(budget);
    if (verifier != QLatin1String("strict"))
        words << QStringLiteral("--verifier") << verifier;
    if (language != QLatin1String("cuda"))
        words << QStringLiteral("--language") << language;
    if (budgetAxis != QLatin1String("evals"))
        words << QStringLiteral("--budget-axis") << budgetAxis;
    words << QStringLiteral("--seed") << QString::number(seed + quint64(seedOffset));
    for (auto it = strategyParameters.cbegin(); it != strategyParameters.cend(); ++it)
        words << QStringLiteral("--param") << it.key() + QLatin1Char('=') + text(it.value());
    if (tasks.size() > 1 && allocation != LaunchSettings().allocation)
        words << QStringLiteral("--param") << QStringLiteral("allocation=") + allocation;
    if (tasks.size() > 1 && tasksAtOnce != LaunchSettings().tasksAtOnce)
        words << QStringLiteral("--param") << QStringLiteral("tasks_at_once=%1").arg(tasksAtOnce);
    if (policy == QLatin1String("offline")) {
        const OfflinePolicyOptions defaults =
            OfflinePolicyOptions::fromPreset(preset).value_or(OfflinePolicyOptions{});
        if (preset != OfflinePolicyOptions().preset)
            words << QStringLiteral("--param") << QStringLiteral("preset=") + preset;
        const QList<std::pair<const char *, std::pair<double, double>>> rates{
            {"skill", {skill, defaults.skill}},
            {"compile_error_rate", {compileErrorRate, defaults.compileErrorRate}},
            {"wrong_rate", {wrongRate, defaults.wrongRate}},
            {"gaming_rate", {gamingRate, defaults.gamingRate}}};
        for (const auto &[name, values] : rates) {
            if (std::abs(values.first - values.second) > 1e-9)
                words << QStringLiteral("--param")
                      << QString::fromLatin1(name) + QLatin1Char('=') + number(values.first);
        }
        for (auto it = offlineOverrides.cbegin(); it != offlineOverrides.cend(); ++it)
            words << QStringLiteral("--param")
                  << it.key() + QLatin1Char('=') + number(it.value().toDouble());
    } else if (policy == QLatin1String("llm")) {
        words << QStringLiteral("--policy") << policy << QStringLiteral("--endpoint")
              << endpoint.trimmed() << QStringLiteral("--model") << model.trimmed()
              << QStringLiteral("--api") << api;
        if (!apiKeyEnv.isEmpty())
            words << QStringLiteral("--api-key-env") << apiKeyEnv;
        if (!reasoningEffort.isEmpty())
            words << QStringLiteral("--param")
                  << QStringLiteral("llm.reasoning_effort=") + reasoningEffort;
        if (pricePrompt >= 0)
            words << QStringLiteral("--param")
                  << QStringLiteral("llm.price_prompt=") + number(pricePrompt);
        if (priceCompletion >= 0)
            words << QStringLiteral("--param")
                  << QStringLiteral("llm.price_completion=") + number(priceCompletion);
    } else if (policy == QLatin1String("command")) {
        words << QStringLiteral("--policy") << policy << QStringLiteral("--command")
              << agentCommand.trimmed() << QStringLiteral("--param")
              << QStringLiteral("command.timeout=") + QString::number(agentTimeoutSeconds);
        if (!agentReadable.trimmed().isEmpty())
            words << QStringLiteral("--param")
                  << QStringLiteral("command.read=") + agentReadable.trimmed();
    } else {
        words << QStringLiteral("--policy") << policy << QStringLiteral("--replay-run")
              << QString::number(replayRunId);
    }
    if (executor == QLatin1String("slurm")) {
        words << QStringLiteral("--executor") << executor << QStringLiteral("--slurm-partition")
              << slurmPartition.trimmed();
        if (slurmGpus > 0)
            words << QStringLiteral("--slurm-gpus") << QString::number(slurmGpus);
        if (slurmMaxJobs != LaunchSettings().slurmMaxJobs)
            words << QStringLiteral("--slurm-max-jobs") << QString::number(slurmMaxJobs);
    }
    words << QStringLiteral("--db") << database;
    return words;
}

QString LaunchSettings::commandLine() const
{
    const QString line = QStringLiteral("kiln-cli run ") + RunArguments::shellLine(arguments());
    if (seeds <= 1)
        return line;
    // One run per seed: the same words with the seed as a shell variable.
    QStringList words = arguments();
    const qsizetype at = words.indexOf(QStringLiteral("--seed"));
    words[at + 1] = QStringLiteral("SEED_PLACEHOLDER");
    QStringList seedList;
    for (int i = 0; i < seeds; ++i)
        seedList << QString::number(seed + quint64(i));
    return QStringLiteral("for seed in %1; do kiln-cli run %2; done")
        .arg(seedList.join(QLatin1Char(' ')),
             RunArguments::shellLine(words).replace(QStringLiteral("SEED_PLACEHOLDER"),
                                                    QStringLiteral("\"$seed\"")));
}

QStringList LaunchSettings::extraOfflineSettings()
{
    static const QStringList own = {QStringLiteral("skill"), QStringLiteral("compile_error_rate"),
                                    QStringLiteral("wrong_rate"), QStringLiteral("gaming_rate")};
    QStringList extra;
    OfflinePolicyOptions options;
    for (const auto &[name, value] : options.numericSettings())
        if (!own.contains(name))
            extra << name;
    return extra;
}

void LaunchSettings::save(QSettings &s) const
{
    s.beginGroup(QStringLiteral("launcher"));
    s.setValue(QStringLiteral("tasks"), tasks);
    s.setValue(QStringLiteral("backend"), backend);
    s.setValue(QStringLiteral("policy"), policy);
    s.setValue(QStringLiteral("verifier"), verifier);
    s.setValue(QStringLiteral("language"), language);
    s.setValue(QStringLiteral("preset"), preset);
    s.setValue(QStringLiteral("skill"), skill);
    s.setValue(QStringLiteral("compileErrorRate"), compileErrorRate);
    s.setValue(QStringLiteral("wrongRate"), wrongRate);
    s.setValue(QStringLiteral("gamingRate"), gamingRate);
    s.setValue(QStringLiteral("offlineOverrides"), offlineOverrides);
    s.setValue(QStringLiteral("allocation"), allocation);
    s.setValue(QStringLiteral("tasksAtOnce"), tasksAtOnce);
    s.setValue(QStringLiteral("endpoint"), endpoint);
    s.setValue(QStringLiteral("agentCommand"), agentCommand);
    s.setValue(QStringLiteral("agentTimeoutSeconds"), agentTimeoutSeconds);
    s.setValue(QStringLiteral("agentReadable"), agentReadable);
    s.setValue(QStringLiteral("model"), model);
    s.setValue(QStringLiteral("api"), api);
    s.setValue(QStringLiteral("apiKeyEnv"), apiKeyEnv);
    s.setValue(QStringLiteral("reasoningEffort"), reasoningEffort);
    s.setValue(QStringLiteral("pricePrompt"), pricePrompt);
    s.setValue(QStringLiteral("priceCompletion"), priceCompletion);
    s.setValue(QStringLiteral("strategy"), strategy);
    s.setValue(QStringLiteral("strategyParameters"), strategyParameters);
    s.setValue(QStringLiteral("budget"), budget);
    s.setValue(QStringLiteral("budgetAxis"), budgetAxis);
    s.setValue(QStringLiteral("seed"), seed);
    s.setValue(QStringLiteral("seeds"), seeds);
    s.setValue(QStringLiteral("database"), database);
    s.setValue(QStringLiteral("executor"), executor);
    s.setValue(QStringLiteral("slurmPartition"), slurmPartition);
    s.setValue(QStringLiteral("slurmGpus"), slurmGpus);
    s.setValue(QStringLiteral("slurmMaxJobs"), slurmMaxJobs);
    s.endGroup();
}

LaunchSettings LaunchSettings::load(const QSettings &s)
{
    LaunchSettings l;
    auto value = [&s](const char *key, const QVariant &fallback) {
        return s.value(QStringLiteral("launcher/") + QLatin1String(key), fallback);
    };
    l.tasks = value("tasks", l.tasks).toStringList();
    l.backend = value("backend", l.backend).toString();
    l.policy = value("policy", l.policy).toString();
    l.verifier = value("verifier", l.verifier).toString();
    l.language = value("language", l.language).toString();
    l.preset = value("preset", l.preset).toString();
    l.skill = value("skill", l.skill).toDouble();
    l.compileErrorRate = value("compileErrorRate", l.compileErrorRate).toDouble();
    l.wrongRate = value("wrongRate", l.wrongRate).toDouble();
    l.gamingRate = value("gamingRate", l.gamingRate).toDouble();
    l.offlineOverrides = value("offlineOverrides", l.offlineOverrides).toMap();
    l.allocation = value("allocation", l.allocation).toString();
    l.tasksAtOnce = value("tasksAtOnce", l.tasksAtOnce).toInt();
    l.endpoint = value("endpoint", l.endpoint).toString();
    l.agentCommand = value("agentCommand", l.agentCommand).toString();
    l.agentTimeoutSeconds = value("agentTimeoutSeconds", l.agentTimeoutSeconds).toInt();
    l.agentReadable = value("agentReadable", l.agentReadable).toString();
    l.model = value("model", l.model).toString();
    l.api = value("api", l.api).toString();
    l.apiKeyEnv = value("apiKeyEnv", l.apiKeyEnv).toString();
    l.reasoningEffort = value("reasoningEffort", l.reasoningEffort).toString();
    l.pricePrompt = value("pricePrompt", l.pricePrompt).toDouble();
    l.priceCompletion = value("priceCompletion", l.priceCompletion).toDouble();
    l.strategy = value("strategy", l.strategy).toString();
    l.strategyParameters = value("strategyParameters", l.strategyParameters).toMap();
    l.budget = value("budget", l.budget).toDouble();
    l.budgetAxis = value("budgetAxis", l.budgetAxis).toString();
    l.seed = value("seed", l.seed).toULongLong();
    l.seeds = value("seeds", l.seeds).toInt();
    l.database = value("database", l.database).toString();
    l.executor = value("executor", l.executor).toString();
    l.slurmPartition = value("slurmPartition", l.slurmPartition).toString();
    l.slurmGpus = value("slurmGpus", l.slurmGpus).toInt();
    l.slurmMaxJobs = value("slurmMaxJobs", l.slurmMaxJobs).toInt();
    return l;
}

} // namespace kiln
