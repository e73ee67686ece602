#include "commandlineoptions.h"

#include "models/computeaxis.h"
#include "models/plotkind.h"

namespace kiln {

const QStringList &CommandLineOptions::views()
{
    static const QStringList names{
        QStringLiteral("tree"),       QStringLiteral("plots"),   QStringLiteral("table"),
        QStringLiteral("code"),       QStringLiteral("diff"),    QStringLiteral("report"),
        QStringLiteral("transcript"), QStringLiteral("profile"), QStringLiteral("diagnosis")};
    return names;
}

namespace {

// One word of the command line: "--name=value" carries its value, anything else is a name.
struct Word
{
    QString name;
    QString value;
    bool inlineValue = false;
};

Word splitWord(const QString &word)
{
    Word split{word, QString(), false};
    const int eq = word.indexOf(QLatin1Char('='));
    if (word.startsWith(QStringLiteral("--")) && eq > 0) {
        split.value = word.mid(eq + 1);
        split.name = word.left(eq);
        split.inlineValue = true;
    }
    return split;
}

// The options that take a value.
const QStringList &valueOptions()
{
    static const QStringList known{
        QStringLiteral("--task"),   QStringLiteral("--strategies"), QStringLiteral("--budget"),
        QStringLiteral("--seeds"),  QStringLiteral("--db"),         QStringLiteral("--run"),
        QStringLiteral("--select"), QStringLiteral("--view"),       QStringLiteral("--screenshot"),
        QStringLiteral("--runs"),   QStringLiteral("--plot"),       QStringLiteral("--x-axis"),
        QStringLiteral("--export")};
    return known;
}

// Each setter below stores one option's value, or returns why the value is refused.

QString setId(CommandLineOptions &options, const QString &name, const QString &value)
{
    bool ok = false;
    const qint64 id = value.toLongLong(&ok);
    if (!ok || id <= 0)
        return QStringLiteral("%1 expects a positive id, got '%2'").arg(name, value);
    (name == QStringLiteral("--run") ? options.run : options.select) = id;
    return {};
}

QString setNumber(CommandLineOptions &options, const QString &name, const QString &value)
{
    bool ok = false;
    const double number = value.toDouble(&ok);
    if (!ok || number <= 0 || (name == QStringLiteral("--seeds") && number != int(number)))
        return QStringLiteral("%1 expects a positive number, got '%2'").arg(name, value);
    if (name == QStringLiteral("--budget"))
        options.budget = number;
    else
        options.seeds = int(number);
    return {};
}

QString setRuns(CommandLineOptions &options, const QString &value)
{
    for (const QString &word : value.split(QLatin1Char(','))) {
        bool ok = false;
        const qint64 id = word.trimmed().toLongLong(&ok);
        if (!ok || id <= 0)
            return QStringLiteral("--runs expects positive ids separated by commas, got '%1'")
                .arg(value);
        options.runs.append(id);
    }
    return {};
}

QString setPlot(CommandLineOptions &options, const QString &value)
{
    if (!plotKindFromName(value))
        return QStringLiteral("--plot must be one of %1, got '%2'").arg(plotKindNames(), value);
    options.plot = value;
    return {};
}

QString setXAxis(CommandLineOptions &options, const QString &value)
{
    if (!computeAxisFromName(value)) {
        QStringList names;
        for (ComputeAxis axis : allComputeAxes())
            names << computeAxisName(axis);
        return QStringLiteral("--x-axis must be one of %1, got '%2'")
            .arg(names.join(QLatin1Char('|')), value);
    }
    options.xAxis = value;
    return {};
}

QString setExport(CommandLineOptions &options, const QString &value)
{
    const QString suffix = value.section(QLatin1Char('.'), -1).toLower();
    if (!QStringList{QStringLiteral("png"), QStringLiteral("pdf"), QStringLiteral("svg")}.contains(
            suffix) ||
        !value.contains(QLatin1Char('.')))
        return QStringLiteral("--export needs a file ending in .png, .pdf or .svg, got '%1'")
            .arg(value);
    options.exportPath = value;
    return {};
}

QString setView(CommandLineOptions &options, const QString &value)
{
    if (!CommandLineOptions::views().contains(value))
        return QStringLiteral("--view must be one of %1, got '%2'")
            .arg(CommandLineOptions::views().join(QLatin1Char('|')), value);
    options.view = value;
    return {};
}

QString setValue(CommandLineOptions &options, const QString &name, const QString &value)
{
    if (name == QStringLiteral("--db"))
        options.database = value;
    else if (name == QStringLiteral("--run") || name == QStringLiteral("--select"))
        return setId(options, name, value);
    else if (name == QStringLiteral("--task"))
        options.task = value;
    else if (name == QStringLiteral("--strategies"))
        options.strategies = value.split(QLatin1Char(','), Qt::SkipEmptyParts);
    else if (name == QStringLiteral("--budget") || name == QStringLiteral("--seeds"))
        return setNumber(options, name, value);
    else if (name == QStringLiteral("--runs"))
        return setRuns(options, value);
    else if (name == QStringLiteral("--plot"))
        return setPlot(options, value);
    else if (name == QStringLiteral("--x-axis"))
        return setXAxis(options, value);
    else if (name == QStringLiteral("--export"))
        return setExport(options, value);
    else if (name == QStringLiteral("--view"))
        return setView(options, value);
    else
        options.screenshot = value;
    return {};
}

} // namespace

std::optional<CommandLineOptions> CommandLineOptions::parse(const QStringList &arguments,
                                                            QString *error)
{
    CommandLineOptions options;
    auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    for (int i = 0; i < arguments.size(); ++i) {
        auto [name, value, inlineValue] = splitWord(arguments.at(i));
        if (name == QStringLiteral("--new-run") && !inlineValue) {
            std::optional<CommandLineOptions> withRun = parseNewRun(arguments, i, error);
            if (!withRun)
                return std::nullopt;
            options = *withRun;
            break;
        }
        if (name == QStringLiteral("--compare") && !inlineValue) {
            options.compare = true;
            continue;
        }
        // A bare path is the database: what a file manager or the .desktop entry passes.
        if (!name.startsWith(QLatin1Char('-')) && options.database.isEmpty()) {
            options.database = name;
            continue;
        }
        if (!valueOptions().contains(name))
            return fail(QStringLiteral("unknown argument '%1' (see kiln --help)").arg(name));
        if (!inlineValue) {
            if (i + 1 >= arguments.size())
                return fail(QStringLiteral("%1 needs a value").arg(name));
            value = arguments.at(++i);
        }
        if (value.isEmpty())
            return fail(QStringLiteral("%1 needs a value").arg(name));
        const QString refused = setValue(options, name, value);
        if (!refused.isEmpty())
            return fail(refused);
    }
    if ((options.run || options.select) && options.database.isEmpty())
        return fail(QStringLiteral("--run and --select need --db"));
    return checkCombination(options, fail);
}

std::optional<CommandLineOptions> CommandLineOptions::parseNewRun(const QStringList &arguments,
                                                                  int at, QString *error)
{
    // The rest are run options, except the window's own --screenshot and --view, which are no
    // run options and may come after.
    const QStringList rest = arguments.mid(at + 1);
    QStringList runArguments;
    QStringList own;
    for (qsizetype k = 0; k < rest.size(); ++k) {
        const QString word = rest[k];
        const QString key = word.section(QLatin1Char('='), 0, 0);
        if (key != QStringLiteral("--screenshot") && key != QStringLiteral("--view")) {
            runArguments << word;
        } else {
            own << word;
            if (!word.contains(QLatin1Char('=')) && k + 1 < rest.size())
                own << rest[++k];
        }
    }
    std::optional<CommandLineOptions> mine = parse(arguments.mid(0, at) + own, error);
    if (!mine)
        return std::nullopt;
    mine->newRun = true;
    mine->runArguments = runArguments;
    return mine;
}

std::optional<CommandLineOptions>
CommandLineOptions::checkCombination(CommandLineOptions options,
                                     const std::function<std::nullopt_t(const QString &)> &fail)
{
    const bool compareWords = !options.task.isEmpty() || !options.strategies.isEmpty();
    if (compareWords && !options.compare)
        return fail(QStringLiteral("--task and --strategies belong to --compare"));
    if (options.compare && (options.task.isEmpty() || options.strategies.size() < 2))
        return fail(
            QStringLiteral("--compare needs --task T and --strategies S1,S2 (two or more)"));
    if (options.compare && (options.newRun || !options.plot.isEmpty() || options.run))
        return fail(
            QStringLiteral("--compare starts runs of its own: drop --new-run, --plot and --run"));
    if (options.run && !options.runs.isEmpty())
        return fail(QStringLiteral("--run and --runs exclude each other"));
    if (!options.runs.isEmpty() && options.database.isEmpty())
        return fail(QStringLiteral("--runs needs --db"));
    if (options.plot.isEmpty() != options.exportPath.isEmpty())
        return fail(QStringLiteral("--plot and --export go together"));
    if (!options.xAxis.isEmpty() && options.plot.isEmpty())
        return fail(QStringLiteral("--x-axis needs --plot"));
    if (!options.plot.isEmpty() && options.database.isEmpty())
        return fail(QStringLiteral("--plot needs --db"));
    if (!options.plot.isEmpty() && (options.newRun || !options.screenshot.isEmpty()))
        return fail(QStringLiteral("--plot renders a plot alone: drop --new-run and --screenshot"));
    if (options.newRun && (options.run || options.select))
        return fail(QStringLiteral("--new-run starts a run of its own: drop --run and --select"));
    return options;
}

} // namespace kiln
