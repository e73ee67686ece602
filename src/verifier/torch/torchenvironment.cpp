#include "verifier/torch/torchenvironment.h"

#include "languages/kernellanguages.h"
#include "verifier/torch/torchbytecode.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

namespace kiln {

namespace {

// Prints one JSON line; torch's absence or a GPU it cannot see are answers, not failures.
const char *const kProbeScript = R"PY(
import json, sys
out = {"path": ":".join(p for p in sys.path if p), "languages": {}}
try:
    import importlib.metadata, importlib.util
    for module, distribution in json.loads(sys.argv[1]):
        found = importlib.util.find_spec(module) is not None
        version = ""
        if found:
            try:
                version = importlib.metadata.version(distribution)
            except Exception:
                version = "unknown version"
        out["languages"][module] = version
except Exception as error:
    out["languages_error"] = str(error)
try:
    import torch
    import importlib.util, os
    out["torch"] = torch.__version__
    out["site"] = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))
    out["bytecode"] = os.path.exists(importlib.util.cache_from_source(torch.__file__))
    out["cuda"] = torch.version.cuda or ""
    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability(0)
        out["arch"] = "%d.%d" % (major, minor)
        out["device"] = torch.cuda.get_device_name(0)
except Exception as error:
    out["error"] = "%s: %s" % (type(error).__name__, error)
print(json.dumps(out))
)PY";

} // namespace

TorchEnvironment TorchEnvironment::probe(const VerifierOptions &options)
{
    TorchEnvironment environment;
    environment.python = options.python;
    environment.worker =
        QFileInfo(options.torchSandbox).dir().filePath(QStringLiteral("kiln_torch_worker.py"));
    if (options.python.isEmpty()) {
        environment.reason = QStringLiteral("python3 not found (install python3, or set "
                                            "KILN_PYTHON)");
        return environment;
    }
    if (!QFileInfo(options.torchSandbox).isExecutable() || !QFileInfo::exists(environment.worker)) {
        environment.reason = QStringLiteral("kiln-torch-sandbox or kiln_torch_worker.py not "
                                            "found beside kiln-sandbox (looked for \"%1\")")
                                 .arg(options.torchSandbox);
        return environment;
    }
    QJsonArray packages;
    for (const KernelLanguage *language : KernelLanguages::all())
        if (!language->pythonModule().isEmpty())
            packages.append(QJsonArray{language->pythonModule(), language->distribution()});
    QProcess process;
    process.start(options.python,
                  {QStringLiteral("-c"), QString::fromLatin1(kProbeScript),
                   QString::fromUtf8(QJsonDocument(packages).toJson(QJsonDocument::Compact))});
    if (!process.waitForFinished(120000) || process.exitCode() != 0) {
        process.kill();
        environment.reason =
            QStringLiteral("%1 did not answer: %2")
                .arg(options.python, QString::fromUtf8(process.readAllStandardError()).trimmed());
        return environment;
    }
    const QJsonObject answer =
        QJsonDocument::fromJson(process.readAllStandardOutput().trimmed()).object();
    environment.pythonPath = answer.value(QStringLiteral("path")).toString();
    environment.torchVersion = answer.value(QStringLiteral("torch")).toString();
    environment.cudaVersion = answer.value(QStringLiteral("cuda")).toString();
    environment.architecture = answer.value(QStringLiteral("arch")).toString();
    environment.deviceName = answer.value(QStringLiteral("device")).toString();
    const QJsonObject versions = answer.value(QStringLiteral("languages")).toObject();
    for (const KernelLanguage *language : KernelLanguages::all())
        if (!language->pythonModule().isEmpty())
            environment.languageVersions.insert(
                language->id(), versions.value(language->pythonModule()).toString());
    if (environment.torchVersion.isEmpty())
        environment.reason =
            QStringLiteral("torch cannot be imported by %1 (%2): install "
                           "PyTorch with CUDA for this python3")
                .arg(options.python, answer.value(QStringLiteral("error")).toString());
    else if (options.torchDevice == QLatin1String("cpu"))
        environment.usable = true; // the CPU device: no GPU needed
    else if (environment.architecture.isEmpty())
        environment.reason = QStringLiteral("torch %1 sees no CUDA GPU (torch.cuda.is_available() "
                                            "is False)")
                                 .arg(environment.torchVersion);
    else
        environment.usable = true;
    if (environment.usable) {
        const TorchBytecode::Outcome bytecode =
            TorchBytecode::prepare(options, options.python, environment.torchVersion,
                                   answer.value(QStringLiteral("site")).toString(),
                                   answer.value(QStringLiteral("bytecode")).toBool(true));
        environment.bytecodeCache = bytecode.folder;
        environment.bytecodeNote = bytecode.note;
        environment.bytecodeFailed = bytecode.failed;
    }
    return environment;
}

QString TorchEnvironment::languageProblem(const QString &languageId) const
{
    const KernelLanguage *language = KernelLanguages::find(languageId);
    if (!language)
        return QStringLiteral("no kernel language '%1'").arg(languageId);
    if (!usable)
        return reason;
    if (language->pythonModule().isEmpty() || !languageVersions.value(languageId).isEmpty())
        return {};
    return QStringLiteral("%1 is unavailable: %2 has no module %3 (install the %4 package for "
                          "it)")
        .arg(language->displayName(), python, language->pythonModule(), language->distribution());
}

QString TorchEnvironment::describe() const
{
    if (torchVersion.isEmpty())
        return reason;
    if (deviceName.isEmpty())
        return QStringLiteral("torch %1 with %2 (CPU device)").arg(torchVersion, python);
    return QStringLiteral("torch %1 (CUDA %2) with %3%4")
        .arg(torchVersion, cudaVersion.isEmpty() ? QStringLiteral("none") : cudaVersion, python,
             deviceName.isEmpty() ? QString()
                                  : QStringLiteral(" on %1 (sm %2)").arg(deviceName, architecture));
}

} // namespace kiln
