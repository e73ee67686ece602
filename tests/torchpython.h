#pragma once

// The python3 that the PyTorch-backend tests run: the verifier's own choice when it has torch,
// else Debian's (where python3-torch lives); empty when neither has torch (the test skips).
#include "verifier/torch/torchenvironment.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace kiln::test {

inline bool canImport(const QString &python, const QString &module)
{
    if (python.isEmpty())
        return false;
    QProcess process;
    process.start(python, {QStringLiteral("-c"), QStringLiteral("import ") + module});
    return process.waitForFinished(60000) && process.exitStatus() == QProcess::NormalExit &&
           process.exitCode() == 0;
}

inline bool hasTorch(const QString &python)
{
    return canImport(python, QStringLiteral("torch"));
}

// Why Triton candidates cannot be judged on a GPU here (a test's reason to skip); empty when
// they can.
inline QString tritonOnGpuMissing(const TorchEnvironment &torch, const QString &python)
{
    if (!torch.usable || torch.deviceName.isEmpty())
        return QStringLiteral("the pytorch backend cannot run on a GPU here: ") + torch.reason;
    if (!canImport(python, QStringLiteral("triton")))
        return QStringLiteral("python3 has no triton");
    return {};
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
