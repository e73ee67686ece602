#include "engine/cluster/slurmclient.h"

#include <QProcess>
#include <QRegularExpression>

namespace kiln {

bool SlurmClient::runTool(const QString &program, const QStringList &arguments, QByteArray *out,
                          QString *error, int timeoutMs)
{
    QProcess process;
    process.start(program, arguments);
    if (!process.waitForStarted(timeoutMs)) {
        *error = QStringLiteral("%1 could not be started (%2): is Slurm's client installed?")
                     .arg(program, process.errorString());
        return false;
    }
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(1000);
        *error = QStringLiteral("%1 did not answer within %2 s").arg(program).arg(timeoutMs / 1000);
        return false;
    }
    *out = process.readAllStandardOutput();
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        *error = QStringLiteral("%1 failed: %2")
                     .arg(program,
                          QString::fromLocal8Bit(process.readAllStandardError() + *out).trimmed());
        return false;
    }
    return true;
}

std::optional<QString> SlurmClient::submit(const QStringList &options, const QString &script,
                                           QString *error)
{
    QByteArray out;
    if (!runTool(QStringLiteral("sbatch"), options + QStringList{script}, &out, error))
        return std::nullopt;
    // --parsable: "ID" or "ID;CLUSTER".
    const QString id = QString::fromLatin1(out).trimmed().section(QLatin1Char(';'), 0, 0);
    static const QRegularExpression number(QStringLiteral("^\\d+$"));
    if (!number.match(id).hasMatch()) {
        *error = QStringLiteral("sbatch answered '%1', not a job id").arg(QString::fromLatin1(out));
        return std::nullopt;
    }
    return id;
}

bool SlurmClient::test(const QStringList &options, const QString &script, QString *error)
{
    QStringList testOptions = options;
    testOptions.removeAll(QStringLiteral("--parsable"));
    QByteArray out;
    return runTool(QStringLiteral("sbatch"),
                   QStringList{QStringLiteral("--test-only")} + testOptions + QStringList{script},
                   &out, error);
}

std::optional<QMap<QString, SlurmClient::JobState>> SlurmClient::queue(const QStringList &jobs,
                                                                       QString *error)
{
    QMap<QString, JobState> states;
    if (jobs.isEmpty())
        return states;
    QByteArray out;
    // --states=all: a job that is completing or requeued is listed too, until it leaves.
    if (!runTool(QStringLiteral("squeue"),
                 {QStringLiteral("--noheader"), QStringLiteral("--states=all"),
                  QStringLiteral("--format=%i|%T|%N|%r"),
                  QStringLiteral("--jobs=") + jobs.join(QLatin1Char(','))},
                 &out, error)) {
        // squeue refuses a list of ids that have all left the queue: none is known.
        if (error->contains(QLatin1String("Invalid job id")))
            return states;
        return std::nullopt;
    }
    for (const QByteArray &line : out.split('\n')) {
        const QList<QByteArray> fields = line.trimmed().split('|');
        if (fields.size() < 4)
            continue;
        states.insert(QString::fromLatin1(fields[0]),
                      JobState{QString::fromLatin1(fields[1]), QString::fromLatin1(fields[2]),
                               QString::fromLatin1(fields[3])});
    }
    return states;
}

SlurmClient::JobState SlurmClient::finalState(const QString &job)
{
    QByteArray out;
    QString error;
    if (runTool(QStringLiteral("sacct"),
                {QStringLiteral("--noheader"), QStringLiteral("--parsable2"),
                 QStringLiteral("--allocations"), QStringLiteral("--format=State,NodeList,Reason"),
                 QStringLiteral("--jobs=") + job},
                &out, &error)) {
        const QList<QByteArray> fields = out.split('\n').value(0).trimmed().split('|');
        if (!fields.value(0).isEmpty()) // "CANCELLED by 0" keeps its first word
            return JobState{QString::fromLatin1(fields[0]).section(QLatin1Char(' '), 0, 0),
                            QString::fromLatin1(fields.value(1)),
                            QString::fromLatin1(fields.value(2))};
    }
    // No accounting storage: the controller still remembers the job for MinJobAge seconds.
    if (runTool(QStringLiteral("scontrol"), {QStringLiteral("show"), QStringLiteral("job"), job},
                &out, &error)) {
        static const QRegularExpression state(QStringLiteral("JobState=(\\S+)"));
        static const QRegularExpression reason(QStringLiteral("Reason=(\\S+)"));
        static const QRegularExpression node(QStringLiteral(" NodeList=(\\S+)"));
        const QString text = QString::fromLatin1(out);
        return JobState{state.match(text).captured(1), node.match(text).captured(1),
                        reason.match(text).captured(1)};
    }
    return JobState{QStringLiteral("UNKNOWN"), {}, error};
}

void SlurmClient::cancel(const QStringList &jobs)
{
    if (jobs.isEmpty())
        return;
    QByteArray out;
    QString error;
    runTool(QStringLiteral("scancel"), jobs, &out, &error);
}

void SlurmClient::cancelByName(const QString &name)
{
    QByteArray out;
    QString error;
    runTool(QStringLiteral("scancel"), {QStringLiteral("--me"), QStringLiteral("--name=") + name},
            &out, &error);
}

bool SlurmClient::alive(const QString &state)
{
    static const QStringList live{
        QStringLiteral("PENDING"),    QStringLiteral("RUNNING"),      QStringLiteral("CONFIGURING"),
        QStringLiteral("COMPLETING"), QStringLiteral("SUSPENDED"),    QStringLiteral("RESIZING"),
        QStringLiteral("REQUEUED"),   QStringLiteral("REQUEUE_HOLD"), QStringLiteral("REQUEUE_FED"),
        QStringLiteral("SIGNALING"),  QStringLiteral("STAGE_OUT"),    QStringLiteral("STOPPED")};
    return live.contains(state);
}

} // namespace kiln
