#pragma once

// The python3 that the PyTorch-backend tests run: the verifier's own choice when it has torch,
// else Debian's (where python3-torch lives); empty when neither has torch (the test skips).
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace kiln::test {

inline bool hasTorch(const QString &python)
{
    if (python.isEmpty())
        return false;
    QProcess process;
    process.start(python, {QStringLiteral("-c"), QStringLiteral("import torch")});
    return process.waitForFinished(60000) && process.exitStatus() == QProcess::NormalExit &&
           process.exitCode() == 0;
}

inline QString pythonWithTorch(const QString &preferred)
{
    for (const QString &python : {preferred, QStringLiteral("/usr/bin/python3")})
        if (hasTorch(python))
            return python;
    return {};
}

// tests/cuda/inline_builds.py run with `arguments` (after the script): the JSON report it prints
// last, or an empty object when it failed (its stderr is forwarded).
inline QJsonObject inlineBuildsReport(const QString &python, const QStringList &arguments)
{
    QProcess script;
    script.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    script.start(python,
                 QStringList{QStringLiteral(KILN_SOURCE_DIR "/tests/cuda/inline_builds.py")} +
                     arguments);
    if (!script.waitForFinished(900000) || script.exitCode() != 0)
        return {};
    const QByteArray output = script.readAllStandardOutput().trimmed();
    return QJsonDocument::fromJson(output.mid(output.lastIndexOf('\n') + 1)).object();
}

} // namespace kiln::test
