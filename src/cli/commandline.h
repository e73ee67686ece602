#pragma once

#include <QCommandLineParser>
#include <QJsonDocument>
#include <QString>
#include <QStringList>
#include <optional>

namespace kiln {

// Exit statuses of cli.md: 0 job done, 1 internal failure, 2 bad arguments or unusable input.
enum ExitCode
{
    ExitOk = 0,
    ExitInternal = 1,
    ExitUsage = 2
};

// A QCommandLineParser for one subcommand that reports errors the cli.md way: one line on
// stderr and exit status 2, instead of QCommandLineParser::process()'s exit(1).
class CommandLine
{
public:
    CommandLine(const QString &command, const QString &description);

    QCommandLineParser &parser() { return m_parser; }
    const QCommandLineParser &parser() const { return m_parser; }
    void addJsonOption();
    void addTasksDirOption();
    // --db FILE and --run ID, shared by the commands that work on a stored run.
    void addDbOption(const QString &description = QStringLiteral("Workspace database."));
    void addRunOption(const QString &description = QStringLiteral("Run id."));
    QString db() const { return m_parser.value(QStringLiteral("db")); }
    // The --run value, or nothing when it is absent or not a number.
    std::optional<qint64> runId() const;
    // For commands that need them: the usage error's exit code when --db (or a --run id) is
    // missing, nothing when it is there.
    std::optional<int> requireDb() const;
    std::optional<int> requireRunId() const;
    std::optional<int> requireDbAndRunId() const;

    // Parses `arguments` (the words after the subcommand). Returns an exit code when the
    // command must stop now (help shown: 0; bad arguments: 2), nothing when it should go on.
    std::optional<int> parse(const QStringList &arguments);

    bool json() const { return m_parser.isSet(QStringLiteral("json")); }
    QStringList tasksDirs() const;
    // Prints "kiln-cli <command>: <reason>" on stderr and returns ExitUsage.
    int usageError(const QString &reason) const;
    int internalError(const QString &reason) const;

    // Writes a JSON document on stdout (the only thing --json commands print there).
    static void printJson(const QJsonDocument &document);

private:
    QString m_command;
    QCommandLineParser m_parser;
};

} // namespace kiln
