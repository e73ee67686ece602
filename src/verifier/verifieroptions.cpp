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

    options.cudaProfiling = qEnvironmentVariableIntValue("KILN_PROFILE_SANDBOX") == 1;
    options.cudaSandbox = qEnvironmentVariable("KILN_CUDA_SANDBOX");
    if (options.cudaSandbox.isEmpty() && !options.sandbox.executable.isEmpty())
        options.cudaSandbox = QFileInfo(options.sandbox.executable)
                                  .dir()
                                  .filePath(QStringLiteral("kiln-cuda-sandbox"));
    options.nvcc = qEnvironmentVariable("KILN_NVCC");
    const QString cudaHome = qEnvironmentVariable("CUDA_HOME");
    for (const QString &candidate :
         {cudaHome.isEmpty() ? QString() : cudaHome + QStringLiteral("/bin/nvcc"),
          QStringLiteral("/usr/local/cuda/bin/nvcc"),
          QStandardPaths::findExecutable(QStringLiteral("nvcc"))}) {
        if (options.nvcc.isEmpty() && !candidate.isEmpty() && QFileInfo(candidate).isExecutable())
            options.nvcc = candidate;
    }
    return options;
}

} // namespace kiln
