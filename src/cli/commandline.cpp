#include "commandline.h"

#include "engine/runarguments.h"

#include <QCoreApplication>
#include <cstdio>

namespace kiln {

CommandLine::CommandLine(const QString &command, const QString &description) : m_command(command)
{
    m_parser.setApplicationDescription(description);
    m_parser.addHelpOption();
    m_parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
}

void CommandLine::addJsonOption()
{
    m_parser.addOption(QCommandLineOption(QStringLiteral("json"),
                                          QStringLiteral("Print one JSON document on stdout.")));
}

void CommandLine::addTasksDirOption()
{
    m_parser.addOption(RunArguments::tasksDirOption());
}

void CommandLine::addDbOption(const QString &description)
{
    m_parser.addOption(
        QCommandLineOption(QStringLiteral("db"), description, QStringLiteral("FILE")));
}

void CommandLine::addRunOption(const QString &description)
{
    m_parser.addOption(
        QCommandLineOption(QStringLiteral("run"), description, QStringLiteral("ID")));
}

std::optional<qint64> CommandLine::runId() const
{
    bool ok = false;
    const qint64 id = m_parser.value(QStringLiteral("run")).toLongLong(&ok);
    return ok ? std::optional<qint64>(id) : std::nullopt;
}

std::optional<int> CommandLine::requireDb() const
{
    if (db().isEmpty())
        return usageError(QStringLiteral("--db FILE is required"));
    return std::nullopt;
}

std::optional<int> CommandLine::requireRunId() const
{
    if (!runId())
        return usageError(QStringLiteral("--run ID is required"));
    return std::nullopt;
}

std::optional<int> CommandLine::requireDbAndRunId() const
{
    if (const auto missing = requireDb())
        return missing;
    return requireRunId();
}

QStringList CommandLine::tasksDirs() const
{
    return m_parser.values(QStringLiteral("tasks-dir"));
}

std::optional<int> CommandLine::parse(const QStringList &arguments)
{
    QStringList words{QStringLiteral("kiln-cli ") + m_command};
    words += arguments;
    if (!m_parser.parse(words))
        return usageError(m_parser.errorText());
    if (m_parser.isSet(QStringLiteral("help"))) {
        // Qt names the program by its path; the usage line names the command.
        QString help = m_parser.helpText();
        if (const qsizetype end = help.indexOf(QLatin1String(" [options]")); end >= 0)
            help.replace(0, end, QStringLiteral("Usage: kiln-cli ") + m_command);
        std::fputs(qPrintable(help), stdout);
        return ExitOk;
    }
    return std::nullopt;
}

int CommandLine::usageError(const QString &reason) const
{
    std::fprintf(stderr, "kiln-cli %s: %s\n", qPrintable(m_command), qPrintable(reason));
    return ExitUsage;
}

int CommandLine::internalError(const QString &reason) const
{
    std::fprintf(stderr, "kiln-cli %s: internal error: %s\n", qPrintable(m_command),
                 qPrintable(reason));
    return ExitInternal;
}

void CommandLine::printJson(const QJsonDocument &document)
{
    const QByteArray bytes = document.toJson(QJsonDocument::Compact);
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

} // namespace kiln
