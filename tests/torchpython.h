#pragma once

// The python3 that the PyTorch-backend tests run: the verifier's own choice when it has torch,
// else Debian's (where python3-torch lives); empty when neither has torch (the test skips).
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

} // namespace kiln::test
