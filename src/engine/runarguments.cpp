#include "engine/runarguments.h"

#include "engine/backendchoice.h"
#include "engine/budget/budgetallocator.h"
#include "engine/policyfactory.h"
#include "strategyregistry.h"
#include "tasks/tasklibrary.h"

#include <QRegularExpression>
#include <QSet>

namespace kiln {

namespace {

QVariant parseValue(const QString &text)
{
    bool ok = false;
    const qlonglong i = text.toLongLong(&ok);
    if (ok)
        return i;
    const double d = text.toDouble(&ok);
    if (ok)
        return d;
    if (text == QLatin1String("true") || text == QLatin1String("false"))
        return text == QLatin1String("true");
    return text;
}

// --param settings the engine reads; true when `key` was one of them (error set when its value
// is unusable).
bool applyEngineParameter(RunConfig &config, const QString &key, const QVariant &value,
                          QString *error)
{
    if (key == QLatin1String("target_speedup")) {
        config.targetSpeedup = value.toDouble();
    } else if (key == QLatin1String("plateau")) {
        config.plateauRounds = value.toInt();
    } else if (key == QLatin1String("round_limit")) {
        config.roundLimit = value.toInt();
    } else if (key == QLatin1String("reasoning_length")) {
        config.reasoningLength = value.toLongLong();
    } else if (key == QLatin1String("allocation")) {
        config.allocation = value.toString();
        if (!BudgetAllocator::modeFromName(config.allocation))
            *error = QStringLiteral("allocation must be even, adaptive or diagnosed");
    } else if (key == QLatin1String("duplicates")) {
        config.duplicates = value.toString();
        if (config.duplicates != QLatin1String("reuse") &&
            config.duplicates != QLatin1String("remeasure"))
            *error = QStringLiteral("duplicates must be reuse or remeasure");
    } else if (key == QLatin1String("profile")) {
        config.profile = value.toString();
        if (!QStringList{QStringLiteral("none"), QStringLiteral("best"), QStringLiteral("all")}
                 .contains(config.profile))
            *error = QStringLiteral("profile must be best, all or none");
    } else if (key == QLatin1String("confirm")) {
        const QString text = value.toString();
        if (text != QLatin1String("on") && text != QLatin1String("off") &&
            text != QLatin1String("true") && text != QLatin1String("false"))
            *error = QStringLiteral("confirm must be on or off");
        config.confirmBest = text == QLatin1String("on") || text == QLatin1String("true");
    } else if (key == QLatin1String("generation_threads")) {
        config.generationThreads = std::max(1, value.toInt());
    } else if (key == QLatin1String("tasks_at_once")) {
        if (value.toInt() < 1)
            *error = QStringLiteral("tasks_at_once must be a positive integer");
        config.tasksAtOnce = std::max(1, value.toInt());
    } else if (key == QLatin1String("sandboxes")) {
        if (value.toInt() < 1)
            *error = QStringLiteral("sandboxes must be a positive integer");
        config.policyParameters.insert(key, value); // read by the session, kept with the run
    } else {
        return false;
    }
    return true;
}

bool applyParameters(const QCommandLineParser &p, const QString &strategy, RunConfig &config,
                     QString *error)
{
    QSet<QString> strategyNames;
    for (const StrategyParameter &parameter : StrategyRegistry::parameters(strategy))
        strategyNames.insert(parameter.name);
    const QStringList offline = PolicyFactory::offlineParameterNames();
    for (const QString &pair : p.values(QStringLiteral("param"))) {
        const qsizetype eq = pair.indexOf(QLatin1Char('='));
        if (eq <= 0) {
            *error = QStringLiteral("--param wants KEY=VALUE, not '%1'").arg(pair);
            return false;
        }
        const QString key = pair.left(eq);
        const QVariant value = parseValue(pair.mid(eq + 1));
        if (strategyNames.contains(key)) {
            config.strategyParameters.insert(key, value);
        } else if (applyEngineParameter(config, key, value, error)) {
            if (!error->isEmpty())
                return false;
        } else if (offline.contains(key) || key.startsWith(QLatin1String("llm.")) ||
                   key.startsWith(QLatin1String("command."))) {
            config.policyParameters.insert(key, pair.mid(eq + 1));
        } else {
            *error =
                QStringLiteral("unknown parameter '%1' for the %2 strategy (its parameters: %3; "
                               "engine: %4; offline policy: %5; llm.*; command.*)")
                    .arg(key, strategy, QStringList(strategyNames.values()).join(QLatin1Char(',')),
                         RunArguments::engineParameterNames().join(QLatin1Char(',')),
                         offline.join(QLatin1Char(',')));
            return false;
        }
    }
    const QString invalid = StrategyRegistry::validate(strategy, config.strategyParameters);
    if (!invalid.isEmpty()) {
        *error = invalid;
        return false;
    }
    return true;
}

bool applyPolicy(const QCommandLineParser &p, RunConfig &config, QString *error)
{
    if (config.policy == QLatin1String("llm")) {
        config.policyParameters.insert(QStringLiteral("endpoint"),
                                       p.value(QStringLiteral("endpoint")));
        config.policyParameters.insert(QStringLiteral("model"), p.value(QStringLiteral("model")));
        config.policyParameters.insert(QStringLiteral("api"), p.value(QStringLiteral("api")));
        config.policyParameters.insert(QStringLiteral("api_key_env"),
                                       p.value(QStringLiteral("api-key-env")));
    } else if (config.policy == QLatin1String("command")) {
        if (p.value(QStringLiteral("command")).trimmed().isEmpty()) {
            *error = QStringLiteral("--policy command needs --command \"...\" (the agent's "
                                    "command line)");
            return false;
        }
        config.policyParameters.insert(QStringLiteral("command"),
                                       p.value(QStringLiteral("command")));
    } else if (config.policy == QLatin1String("replay")) {
        bool ok = false;
        config.replayRunId = p.value(QStringLiteral("replay-run")).toLongLong(&ok);
        if (!ok || config.replayRunId <= 0) {
            *error = QStringLiteral("--policy replay needs --replay-run ID");
            return false;
        }
    } else if (config.policy != QLatin1String("offline")) {
        *error = QStringLiteral("--policy must be offline, llm, command or replay");
        return false;
    }
    return true;
}

} // namespace

QStringList RunArguments::engineParameterNames()
{
    return {QStringLiteral("target_speedup"), QStringLiteral("plateau"),
            QStringLiteral("round_limit"),    QStringLiteral("reasoning_length"),
            QStringLiteral("allocation"),     QStringLiteral("generation_threads"),
            QStringLiteral("sandboxes"),      QStringLiteral("duplicates"),
            QStringLiteral("confirm"),        QStringLiteral("profile")};
}

QCommandLineOption RunArguments::strategyOption()
{
    // From the registry, so installed plugins are listed (and completed: packaging/completion).
    QStringList names = StrategyRegistry::names();
    const QString last = names.size() > 1 ? names.takeLast() : QString();
    const QString list = names.join(QStringLiteral(", ")) +
                         (last.isEmpty() ? QString() : QStringLiteral(" or ") + last);
    return {QStringLiteral("strategy"), list + QLatin1Char('.'), QStringLiteral("NAME"),
            QStringLiteral("best-of-n")};
}

QCommandLineOption RunArguments::tasksDirOption()
{
    return {QStringLiteral("tasks-dir"),
            QStringLiteral("Also load tasks from DIR (repeatable; later folders override)."),
            QStringLiteral("DIR")};
}

void RunArguments::addOptions(QCommandLineParser &p)
{
    p.addOption(
        {QStringLiteral("task"), QStringLiteral("Task to search."), QStringLiteral("NAME")});
    p.addOption({QStringLiteral("suite"), QStringLiteral("Several tasks sharing one budget."),
                 QStringLiteral("NAME,NAME,...")});
    p.addOption({QStringLiteral("backend"),
                 QStringLiteral(
                     "auto, cpu, cuda or pytorch (KernelBench problems; auto picks it for them)."),
                 QStringLiteral("BACKEND"), QStringLiteral("auto")});
    p.addOption({QStringLiteral("policy"), QStringLiteral("offline, llm, command or replay."),
                 QStringLiteral("POLICY"), QStringLiteral("offline")});
    p.addOption({QStringLiteral("budget"), QStringLiteral("Budget on the budget axis."),
                 QStringLiteral("N"), QStringLiteral("32")});
    p.addOption({QStringLiteral("budget-axis"),
                 QStringLiteral("evals, samples, tokens, seconds, device_seconds or cost."),
                 QStringLiteral("AXIS"), QStringLiteral("evals")});
    p.addOption({QStringLiteral("seed"), QStringLiteral("Run seed."), QStringLiteral("S"),
                 QStringLiteral("1")});
    p.addOption({QStringLiteral("db"), QStringLiteral("Workspace database (default kiln.db)."),
                 QStringLiteral("FILE"), QStringLiteral("kiln.db")});
    p.addOption({QStringLiteral("param"),
                 QStringLiteral("Strategy, policy or engine parameter (repeatable)."),
                 QStringLiteral("KEY=VALUE")});
    p.addOption(
        {QStringLiteral("endpoint"), QStringLiteral("LLM endpoint URL."), QStringLiteral("URL")});
    p.addOption(
        {QStringLiteral("model"), QStringLiteral("LLM model name."), QStringLiteral("NAME")});
    p.addOption(
        {QStringLiteral("api"), QStringLiteral("openai or anthropic."), QStringLiteral("API")});
    p.addOption({QStringLiteral("api-key-env"),
                 QStringLiteral("Environment variable holding the API key."),
                 QStringLiteral("VAR")});
    p.addOption({QStringLiteral("command"),
                 QStringLiteral("A coding agent's command line (command policy), run by /bin/sh "
                                "in a work folder of its own."),
                 QStringLiteral("COMMAND")});
    p.addOption({QStringLiteral("replay-run"), QStringLiteral("Run to replay (replay policy)."),
                 QStringLiteral("ID")});
    p.addOption({QStringLiteral("verifier-seed"),
                 QStringLiteral("Derive the verifier's test inputs from S (identical inputs on "
                                "purpose); by default each run draws a secret of its own."),
                 QStringLiteral("S")});
    p.addOption({QStringLiteral("verifier"),
                 QStringLiteral("strict (default), or lenient: the naive harness (one shape, a "
                                "fixed seed, the output pre-filled with the answer, no "
                                "anti-cheat; CPU backend) for the leaky-verifier lesson."),
                 QStringLiteral("MODE"), QStringLiteral("strict")});
    p.addOption({QStringLiteral("language"),
                 QStringLiteral("Kernel language of a KernelBench run's candidates: cuda "
                                "(load_inline, the default), triton, cute or tilelang; the "
                                "prompts ask for it and the verifier accepts only it."),
                 QStringLiteral("LANGUAGE"), QStringLiteral("cuda")});
    p.addOption(tasksDirOption());
    addExecutorOptions(p);
}

void RunArguments::addExecutorOptions(QCommandLineParser &p)
{
    p.addOption({QStringLiteral("executor"),
                 QStringLiteral("local (default): this machine's sandboxes; slurm: worker jobs on "
                                "a Slurm cluster (docs/cluster.md)."),
                 QStringLiteral("EXECUTOR"), QStringLiteral("local")});
    p.addOption({QStringLiteral("slurm-partition"),
                 QStringLiteral("Partition of the worker jobs (required with slurm)."),
                 QStringLiteral("P")});
    p.addOption({QStringLiteral("slurm-gpus"),
                 QStringLiteral("GPUs of each worker job (a gres request; default 0)."),
                 QStringLiteral("N"), QStringLiteral("0")});
    p.addOption({QStringLiteral("slurm-max-jobs"),
                 QStringLiteral("Worker jobs queued or running at once (default 4)."),
                 QStringLiteral("M"), QStringLiteral("4")});
    p.addOption({QStringLiteral("slurm-cpus"),
                 QStringLiteral("CPUs of each worker job (default 2)."), QStringLiteral("N"),
                 QStringLiteral("2")});
    p.addOption({QStringLiteral("slurm-account"), QStringLiteral("Account to charge."),
                 QStringLiteral("A")});
    p.addOption({QStringLiteral("slurm-time"),
                 QStringLiteral("Time limit of each worker job, as sbatch takes it."),
                 QStringLiteral("T")});
    p.addOption({QStringLiteral("slurm-spool"),
                 QStringLiteral("Spool folder on a filesystem the nodes share (default: "
                                "DB.spool beside the database)."),
                 QStringLiteral("DIR")});
}

namespace {

// --executor and the --slurm-* settings; false with *error when they cannot work.
bool applyExecutor(const QCommandLineParser &p, RunConfig &config, QString *error)
{
    config.executor = p.value(QStringLiteral("executor"));
    if (config.executor != QLatin1String("local") && config.executor != QLatin1String("slurm")) {
        *error = QStringLiteral("--executor must be local or slurm, not '%1'").arg(config.executor);
        return false;
    }
    if (!config.onSlurm())
        return true;
    SlurmSettings &s = config.slurm;
    bool gpusOk = false, jobsOk = false, cpusOk = false;
    s.partition = p.value(QStringLiteral("slurm-partition"));
    s.gpus = p.value(QStringLiteral("slurm-gpus")).toInt(&gpusOk);
    s.maxJobs = p.value(QStringLiteral("slurm-max-jobs")).toInt(&jobsOk);
    s.cpusPerJob = p.value(QStringLiteral("slurm-cpus")).toInt(&cpusOk);
    s.account = p.value(QStringLiteral("slurm-account"));
    s.timeLimit = p.value(QStringLiteral("slurm-time"));
    s.spool = p.value(QStringLiteral("slurm-spool"));
    if (!gpusOk || !jobsOk || !cpusOk || s.cpusPerJob < 1) {
        *error = QStringLiteral("--slurm-gpus, --slurm-max-jobs and --slurm-cpus take integers");
        return false;
    }
    *error = s.problem();
    return error->isEmpty();
}

} // namespace

// Whether the run's tasks are KernelBench problems (all of them) or Kiln tasks (none);
// a mix is an error, since one run has one backend.
static bool kernelBenchTasks(const QStringList &names, const QStringList &tasksDirs,
                             bool *kernelBench, QString *error)
{
    const TaskLibrary library = TaskLibrary::standard(tasksDirs);
    int kernelBenchCount = 0;
    int kilnCount = 0; // unknown names count as neither: the run reports them itself
    for (const QString &name : names) {
        if (const Task *task = library.task(name))
            (task->isKernelBench() ? kernelBenchCount : kilnCount) += 1;
    }
    *kernelBench = kernelBenchCount > 0;
    if (kernelBenchCount > 0 && kilnCount > 0) {
        *error = QStringLiteral("a run cannot mix KernelBench problems with Kiln's own tasks");
        return false;
    }
    return true;
}

std::optional<RunConfig> RunArguments::toConfig(const QCommandLineParser &p,
                                                const QString &strategy, QString *error,
                                                Backends backends)
{
    RunConfig config;
    if (p.isSet(QStringLiteral("suite")))
        config.tasks = p.value(QStringLiteral("suite")).split(QLatin1Char(','), Qt::SkipEmptyParts);
    else if (p.isSet(QStringLiteral("task")))
        config.tasks = {p.value(QStringLiteral("task"))};
    if (config.tasks.isEmpty()) {
        *error = QStringLiteral("--task NAME or --suite NAME,NAME,... is required");
        return std::nullopt;
    }
    config.strategy = strategy;
    if (!StrategyRegistry::contains(strategy)) {
        *error = QStringLiteral("unknown strategy '%1' (%2)")
                     .arg(strategy, StrategyRegistry::names().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    bool ok = false;
    config.budget = p.value(QStringLiteral("budget")).toDouble(&ok);
    if (!ok || !(config.budget > 0)) {
        *error = QStringLiteral("--budget must be a positive number");
        return std::nullopt;
    }
    const auto axis = budgetAxisFromName(p.value(QStringLiteral("budget-axis")));
    if (!axis) {
        *error = QStringLiteral(
            "--budget-axis must be evals, samples, tokens, seconds, device_seconds or cost");
        return std::nullopt;
    }
    config.budgetAxis = *axis;
    config.seed = p.value(QStringLiteral("seed")).toULongLong(&ok);
    if (!ok) {
        *error = QStringLiteral("--seed must be a non-negative integer");
        return std::nullopt;
    }
    if (p.isSet(QStringLiteral("verifier-seed"))) {
        config.verifierSeed = p.value(QStringLiteral("verifier-seed")).toULongLong(&ok);
        if (!ok) {
            *error = QStringLiteral("--verifier-seed must be a non-negative integer");
            return std::nullopt;
        }
    }
    config.verifier = p.value(QStringLiteral("verifier"));
    // The backend is known only below; the mode's own spelling is checked now.
    if (const QString problem = RunConfig::verifierProblem(config.verifier, Backend::Cpu);
        !problem.isEmpty()) {
        *error = problem;
        return std::nullopt;
    }
    config.language = p.value(QStringLiteral("language"));
    if (const QString problem = RunConfig::languageProblem(config.language, Backend::Torch);
        !problem.isEmpty()) {
        *error = problem;
        return std::nullopt;
    }
    config.policy = p.value(QStringLiteral("policy"));
    if (!applyParameters(p, strategy, config, error) || !applyPolicy(p, config, error) ||
        !applyExecutor(p, config, error))
        return std::nullopt;
    // Last: probing the GPU starts a process, and an argument error should not wait for it.
    const QString backendName = p.value(QStringLiteral("backend"));
    if (backends == Backends::NameOnly) {
        if (backendName == QLatin1String("auto") || backendName == QLatin1String("cpu") ||
            backendName == QLatin1String("cuda") || backendName == QLatin1String("pytorch"))
            return config;
        *error = QStringLiteral("--backend must be auto, cpu, cuda or pytorch, not '%1'")
                     .arg(backendName);
        return std::nullopt;
    }
    bool kernelBench = false;
    if (!kernelBenchTasks(config.tasks, p.values(QStringLiteral("tasks-dir")), &kernelBench, error))
        return std::nullopt;
    const std::optional<Backend> backend = BackendChoice::resolve(backendName, error, kernelBench);
    if (!backend)
        return std::nullopt;
    config.backend = *backend;
    for (const QString &problem : {RunConfig::verifierProblem(config.verifier, config.backend),
                                   RunConfig::languageProblem(config.language, config.backend),
                                   RunConfig::profileProblem(config.profile, config.backend)}) {
        if (!problem.isEmpty()) {
            *error = problem;
            return std::nullopt;
        }
    }
    return config;
}

std::optional<RunArguments::Parsed> RunArguments::parse(const QStringList &arguments,
                                                        QString *error, Backends backends)
{
    QCommandLineParser p;
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    addOptions(p);
    p.addOption(strategyOption());
    p.addOption(QCommandLineOption(QStringLiteral("json")));
    if (!p.parse(QStringList{QStringLiteral("run")} + arguments)) {
        *error = p.errorText();
        return std::nullopt;
    }
    if (!p.positionalArguments().isEmpty()) {
        *error = QStringLiteral("unexpected argument '%1'").arg(p.positionalArguments().first());
        return std::nullopt;
    }
    std::optional<RunConfig> config =
        toConfig(p, p.value(QStringLiteral("strategy")), error, backends);
    if (!config)
        return std::nullopt;
    Parsed parsed;
    parsed.config = *config;
    if (p.isSet(QStringLiteral("db")))
        parsed.database = p.value(QStringLiteral("db"));
    parsed.tasksDirs = p.values(tasksDirOption().names().first());
    parsed.sandboxes = config->policyParameters.value(QStringLiteral("sandboxes")).toInt();
    return parsed;
}

QString RunArguments::shellLine(const QStringList &words)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
    QStringList quoted;
    for (const QString &word : words) {
        if (plain.match(word).hasMatch()) {
            quoted << word;
        } else {
            QString escaped = word;
            escaped.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
            quoted << QLatin1Char('\'') + escaped + QLatin1Char('\'');
        }
    }
    return quoted.join(QLatin1Char(' '));
}

} // namespace kiln
