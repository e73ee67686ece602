#pragma once

// Runs the real `kiln` executable of this build, for the GUI tests.
#include <QProcess>
#include <QString>
#include <QStringList>

namespace kiln::testing {

inline QString binary(const char *name)
{
    return QStringLiteral(KILN_BINARY_DIR "/bin/") + QString::fromLatin1(name);
}

enum class KilnPlatform
{
    Offscreen, // QT_QPA_PLATFORM=offscreen
    None       // no platform and no DISPLAY: what needs none must manage without
};

// kiln with `args`; its exit code (-1 when it crashed or hung) and its standard error.
inline int runKiln(const QStringList &args, QString *stderrText = nullptr,
                   KilnPlatform platform = KilnPlatform::Offscreen)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (platform == KilnPlatform::Offscreen) {
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    } else {
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        env.remove(QStringLiteral("DISPLAY"));
    }
    p.setProcessEnvironment(env);
    p.start(binary("kiln"), args);
    if (!p.waitForFinished(120000))
        return -1;
    if (stderrText)
        *stderrText = QString::fromUtf8(p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

} // namespace kiln::testing
