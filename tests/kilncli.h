#pragma once

// Runs the built kiln-cli as a user would, for the end-to-end tests.

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace kiln::test {

inline QString cli()
{
    return QStringLiteral(KILN_BINARY_DIR "/bin/kiln-cli");
}

struct CliOutcome
{
    int status = -1; // -1: timed out or crashed
    QByteArray out;
    QByteArray err;
    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
};

inline CliOutcome
runCli(const QStringList &arguments, int timeoutMs = 240000,
       const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment(),
       const QString &program = cli())
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(program, arguments);
    CliOutcome o;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        o.err = "timed out";
        return o;
    }
    o.status = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    o.out = process.readAllStandardOutput();
    o.err = process.readAllStandardError();
    return o;
}

} // namespace kiln::test
