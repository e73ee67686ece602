#include "verifieroptions.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace kiln {

VerifierOptions VerifierOptions::defaults()
{
    VerifierOptions options;
    const QString fromEnvironment = qEnvironmentVariable("KILN_SANDBOX");
    if (!fromEnvironment.isEmpty()) {
        options.sandbox.executable = fromEnvironment;
    } else if (QCoreApplication::instance()) {
        options.sandbox.executable =
            QCoreApplication::applicationDirPath() + QStringLiteral("/kiln-sandbox");
    }
    options.cacheDirectory = qEnvironmentVariable("KILN_CACHE_DIR");
    if (options.cacheDirectory.isEmpty()) {
        QString base = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
        if (base.isEmpty())
            base = QDir::tempPath() + QStringLiteral("/kiln-cache");
        options.cacheDirectory = base + QStringLiteral("/compile");
    }
    options.workRoot = QDir::tempPath();
    return options;
}

} // namespace kiln
