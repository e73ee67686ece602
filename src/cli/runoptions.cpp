#include "cli/runoptions.h"

#include "cli/backendchoice.h"
#include "engine/policyfactory.h"
#include "store/runstore.h"
#include "strategyregistry.h"

#include <QSet>

namespace kiln {

namespace {

const QStringList &engineParameterNames()
{
    static const QStringList names{
        QStringLiteral("target_speedup"), QStringLiteral("plateau"),
        QStringLiteral("round_limit"),    QStringLiteral("reasoning_length"),
        QStringLiteral("allocation"),     QStringLiteral("generation_threads"),
        QStringLiteral("sandboxes")};
    return names;
}

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

} // namespace

void addRunOptions(CommandLine &cli)
{
    QCommandLineParser &p = cli.parser();
    p.addOption(
        {QStringLiteral("task"), QStringLiteral("Task to search."), QStringLiteral("NAME")});
    p.addOption({QStringLiteral("suite"), QStringLiteral("Several tasks sharing one budget."),
                 QStringLiteral("NAME,NAME,...")});
    p.addOption({QStringLiteral("backend"), QStringLiteral("auto, cpu or cuda."),
                 QStringLiteral("BACKEND"), QStringLiteral("auto")});
    p.addOption({QStringLiteral("policy"), QStringLiteral("offline, llm or replay."),
                 QStringLiteral("POLICY"), QStringLiteral("offline")});
    p.addOption({QStringLiteral("budget"), QStringLiteral("Budget on the budget axis."),
                 QStringLiteral("N"), QStringLiteral("32")});
    p.addOption({QStringLiteral("budget-axis"),
                 QStringLiteral("evals, samples, tokens, seconds or cost."), QStringLiteral("AXIS"),
                 QStringLiteral("evals")});
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
    p.addOption({QStringLiteral("replay-run"), QStringLiteral("Run to replay (replay policy)."),
                 QStringLiteral("ID")});
    cli.addTasksDirOption();
    cli.addJsonOption();
}

// Shared by run and compare: turns the parsed options into a RunConfig, or a usage error.
std::optional<RunConfig> runConfigFromOptions(const CommandLine &cli, const QString &strategy,
                                              QString *error)
{
    const QCommandLineParser &p = const_cast<CommandLine &>(cli).parser();
    RunConfig config;
    if (p.isSet(QStringLiteral("suite")))
        config.tasks = p.value(QStringLiteral("suite")).split(QLatin1Char(','), Qt::SkipEmptyParts);
    else if (p.isSet(QStringLiteral("task")))
        config.tasks = {p.value(QStringLiteral("task"))};
    if (config.tasks.isEmpty()) {
        *error = QStringLiteral("--task NAME or --suite NAME,NAME,... is required");
        return std::nullopt;
    }
    const std::optional<Backend> backend =
        BackendChoice::resolve(p.value(QStringLiteral("backend")), error);
    if (!backend)
        return std::nullopt;
    config.backend = *backend;
    config.policy = p.value(QStringLiteral("policy"));
    config.strategy = strategy;
    if (!StrategyRegistry::contains(strategy)) {
        *error = QStringLiteral("unknown strategy '%1' (%2)")
                     .arg(strategy, StrategyRegistry::names().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    bool ok = false;
    config.budget = p.value(QStringLiteral("budget")).toDouble(&ok);
    if (!ok || config.budget <= 0) {
        *error = QStringLiteral("--budget must be a positive number");
        return std::nullopt;
    }
    const auto axis = budgetAxisFromName(p.value(QStringLiteral("budget-axis")));
    if (!axis) {
        *error = QStringLiteral("--budget-axis must be evals, samples, tokens, seconds or cost");
        return std::nullopt;
    }
    config.budgetAxis = *axis;
    config.seed = p.value(QStringLiteral("seed")).toULongLong(&ok);
    if (!ok) {
        *error = QStringLiteral("--seed must be a non-negative integer");
        return std::nullopt;
    }

    QSet<QString> strategyNames;
    for (const StrategyParameter &parameter : StrategyRegistry::parameters(strategy))
        strategyNames.insert(parameter.name);
    const QStringList offline = PolicyFactory::offlineParameterNames();
    for (const QString &pair : p.values(QStringLiteral("param"))) {
        const qsizetype eq = pair.indexOf(QLatin1Char('='));
        if (eq <= 0) {
            *error = QStringLiteral("--param wants KEY=VALUE, not '%1'").arg(pair);
            return std::nullopt;
        }
        const QString key = pair.left(eq);
        const QVariant value = parseValue(pair.mid(eq + 1));
        if (strategyNames.contains(key)) {
            config.strategyParameters.insert(key, value);
        } else if (key == QLatin1String("target_speedup")) {
            config.targetSpeedup = value.toDouble();
        } else if (key == QLatin1String("plateau")) {
            config.plateauRounds = value.toInt();
        } else if (key == QLatin1String("round_limit")) {
            config.roundLimit = value.toInt();
        } else if (key == QLatin1String("reasoning_length")) {
            config.reasoningLength = value.toLongLong();
        } else if (key == QLatin1String("allocation")) {
            config.allocation = value.toString();
            if (config.allocation != QLatin1String("even") &&
                config.allocation != QLatin1String("adaptive")) {
                *error = QStringLiteral("allocation must be even or adaptive");
                return std::nullopt;
            }
        } else if (key == QLatin1String("generation_threads")) {
            config.generationThreads = std::max(1, value.toInt());
        } else if (key == QLatin1String("sandboxes")) {
            config.policyParameters.insert(key, value); // read by the session, kept with the run
        } else if (offline.contains(key) || key.startsWith(QLatin1String("llm."))) {
            config.policyParameters.insert(key, pair.mid(eq + 1));
        } else {
            *error =
                QStringLiteral("unknown parameter '%1' for the %2 strategy (its parameters: %3; "
                               "engine: %4; offline policy: %5; llm.*)")
                    .arg(key, strategy, QStringList(strategyNames.values()).join(QLatin1Char(',')),
                         engineParameterNames().join(QLatin1Char(',')),
                         offline.join(QLatin1Char(',')));
            return std::nullopt;
        }
    }
    const QString invalid = StrategyRegistry::validate(strategy, config.strategyParameters);
    if (!invalid.isEmpty()) {
        *error = invalid;
        return std::nullopt;
    }
    if (config.policy == QLatin1String("llm")) {
        config.policyParameters.insert(QStringLiteral("endpoint"),
                                       p.value(QStringLiteral("endpoint")));
        config.policyParameters.insert(QStringLiteral("model"), p.value(QStringLiteral("model")));
        config.policyParameters.insert(QStringLiteral("api"), p.value(QStringLiteral("api")));
        config.policyParameters.insert(QStringLiteral("api_key_env"),
                                       p.value(QStringLiteral("api-key-env")));
    } else if (config.policy == QLatin1String("replay")) {
        config.replayRunId = p.value(QStringLiteral("replay-run")).toLongLong();
    } else if (config.policy != QLatin1String("offline")) {
        *error = QStringLiteral("--policy must be offline, llm or replay");
        return std::nullopt;
    }
    return config;
}

// Opens (creating) the workspace for writing, or reports why not on stderr.
std::unique_ptr<RunStore> openWorkspace(const CommandLine &cli, const QString &path, int *status)
{
    QString error;
    auto store = RunStore::open(path, RunStore::Mode::ReadWrite, &error);
    if (!store)
        *status = cli.usageError(error);
    return store;
}

} // namespace kiln
