#include "verifier/harness/verifieroptions.h"

#include <algorithm>
#include <cmath>

#include "core/installlayout.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace kiln {

namespace {

// kiln-sandbox beside the executable (a build tree), else in the installed libexec folder.
QString findSandbox()
{
    const QString beside = InstallLayout::besideExecutable(QStringLiteral("kiln-sandbox"));
    const QString installed =
        InstallLayout::besideExecutable(QStringLiteral(KILN_LIBEXEC_FROM_BIN "/kiln-sandbox"));
    return QFileInfo(beside).isExecutable() || !QFileInfo(installed).isExecutable() ? beside
                                                                                    : installed;
}

} // namespace

VerifierOptions VerifierOptions::defaults()
{
    VerifierOptions options;
    const QString fromEnvironment = qEnvironmentVariable("KILN_SANDBOX");
    options.sandbox.executable = fromEnvironment.isEmpty() ? findSandbox() : fromEnvironment;
    options.cacheDirectory = qEnvironmentVariable("KILN_CACHE_DIR");
    if (options.cacheDirectory.isEmpty()) {
        // ~/.cache/kiln/compile, not the per-application CacheLocation: the window (organisation
        // "Kiln") and kiln-cli ("kiln") share one cache of compiled candidates.
        QString base = QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation);
        base = base.isEmpty() ? QDir::tempPath() + QStringLiteral("/kiln-cache")
                              : base + QStringLiteral("/kiln");
        options.cacheDirectory = base + QStringLiteral("/compile");
    }
    options.workRoot = QDir::tempPath();

    options.cudaProfiling = qEnvironmentVariableIntValue("KILN_PROFILE_SANDBOX") == 1;
    if (qEnvironmentVariable("KILN_CUDA_LAUNCHER") == QLatin1String("0"))
        options.cudaLauncher = false;
    if (const int slotCount = qEnvironmentVariableIntValue("KILN_CUDA_SLOTS"); slotCount > 0)
        options.cudaSlotsPerGpu = std::min(slotCount, 16);
    options.cudaSandbox = qEnvironmentVariable("KILN_CUDA_SANDBOX");
    if (options.cudaSandbox.isEmpty() && !options.sandbox.executable.isEmpty())
        options.cudaSandbox = QFileInfo(options.sandbox.executable)
                                  .dir()
                                  .filePath(QStringLiteral("kiln-cuda-sandbox"));
    options.torchSandbox = qEnvironmentVariable("KILN_TORCH_SANDBOX");
    if (options.torchSandbox.isEmpty() && !options.sandbox.executable.isEmpty())
        options.torchSandbox = QFileInfo(options.sandbox.executable)
                                   .dir()
                                   .filePath(QStringLiteral("kiln-torch-sandbox"));
    if (qEnvironmentVariable("KILN_TORCH_DEVICE") == QLatin1String("cpu"))
        options.torchDevice = QStringLiteral("cpu");
    if (qEnvironmentVariable("KILN_INLINE_BUILD") == QLatin1String("torch"))
        options.torchInlineBuild = QStringLiteral("torch");
    options.python = qEnvironmentVariable("KILN_PYTHON");
    if (options.python.isEmpty())
        options.python = QStandardPaths::findExecutable(QStringLiteral("python3"));
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

QString VerifierOptions::torchExtensionFolder() const
{
    if (!torchExtensionCache.isEmpty())
        return torchExtensionCache;
    return QFileInfo(cacheDirectory).dir().filePath(QStringLiteral("torch-extensions"));
}

} // namespace kiln

namespace kiln {

AdaptiveTiming::Rules VerifierOptions::timingRules(int warmup, int minTrials, int maxTrials,
                                                   double targetRelativeSem, double budgetMs) const
{
    const int scale = std::max(1, trialScale);
    AdaptiveTiming::Rules rules;
    rules.warmup = warmup;
    rules.minTrials = minTrials * scale;
    rules.maxTrials = maxTrials * scale;
    rules.targetRelativeSem = targetRelativeSem / std::sqrt(double(scale));
    rules.budgetMs = budgetMs * scale;
    return rules;
}

} // namespace kiln
