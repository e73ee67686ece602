#include "verifier/torch/torchprocess.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QThread>

using namespace Qt::StringLiterals;

namespace kiln {

namespace {

QString roleName(TorchProcess::Role role)
{
    switch (role) {
    case TorchProcess::Role::Reference:
        return QStringLiteral("reference");
    case TorchProcess::Role::Build:
        return QStringLiteral("build");
    case TorchProcess::Role::Candidate:
        break;
    }
    return QStringLiteral("candidate");
}

} // namespace

TorchProcess::TorchProcess(const VerifierOptions &options, const TorchEnvironment &environment,
                           Role role, QString extensionDir, int buildSlots,
                           const KernelLanguage *language)
    : m_options(options), m_role(role)
{
    SandboxSettings settings = options.sandbox;
    settings.executable = options.torchSandbox;
    settings.addressSpaceMb = 0;
    // Importing torch, building an extension and torch.compile are all CPU-heavy.
    settings.cpuSeconds = role == Role::Reference ? 24 * 3600 : 3600;
    settings.outputCapBytes = 16ll << 20;
    settings.extraArguments = {QStringLiteral("--worker"),
                               environment.worker,
                               QStringLiteral("--python"),
                               environment.python,
                               QStringLiteral("--python-path"),
                               environment.pythonPath,
                               QStringLiteral("--role"),
                               roleName(role),
                               QStringLiteral("--arch"),
                               environment.architecture,
                               QStringLiteral("--device"),
                               options.torchDevice,
                               QStringLiteral("--jobs"),
                               QString::number(qMax(1, QThread::idealThreadCount() / buildSlots)),
                               QStringLiteral("--userns"),
                               options.torchUserNamespace ? QStringLiteral("1")
                                                          : QStringLiteral("0")};
    if (!extensionDir.isEmpty())
        settings.extraArguments << QStringLiteral("--extensions") << extensionDir;
    if (!environment.bytecodeCache.isEmpty())
        settings.extraArguments << QStringLiteral("--pycache") << environment.bytecodeCache;
    // The toolkit the verifier's nvcc belongs to, and the GPUs the user chose.
    if (!options.nvcc.isEmpty())
        settings.extraArguments << QStringLiteral("--cuda-home")
                                << QFileInfo(options.nvcc).dir().absoluteFilePath(u".."_s);
    if (const QString visible = qEnvironmentVariable("CUDA_VISIBLE_DEVICES"); !visible.isEmpty())
        settings.extraArguments << QStringLiteral("--visible-devices") << visible;
    if (options.torchInlineBuild == QLatin1String("kiln") && role != Role::Reference) {
        settings.extraArguments << QStringLiteral("--env")
                                << QStringLiteral("KILN_INLINE_BUILD=kiln");
        const QString headers =
            options.torchExtensionFolder() + QStringLiteral("/kiln-inline-headers");
        if (role == Role::Build && QDir().mkpath(headers))
            settings.extraArguments << QStringLiteral("--inline-headers") << headers;
    }
    if (language) {
        for (const QString &entry : language->environment(QStringLiteral("{workdir}")))
            settings.extraArguments << QStringLiteral("--env") << entry;
        if (role == Role::Candidate && language->build() == KernelLanguage::Build::OnFirstCall)
            settings.extraArguments << QStringLiteral("--jit") << QStringLiteral("1");
    }
    // A candidate's or a build's process opens the device and takes its extension folder on
    // request (openDevice), once its evaluation knows them: it can start earlier, even inside
    // another candidate's timed window.
    if (role != Role::Reference)
        settings.extraArguments << QStringLiteral("--defer-device") << QStringLiteral("1");
    m_process = std::make_unique<SandboxProcess>(settings);
}

bool TorchProcess::start(const QString &workDir, qint64 bufferBytes, QString *error,
                         const std::atomic<bool> *cancel)
{
    QString dir = workDir;
    if (dir.isEmpty()) {
        m_work = std::make_unique<QTemporaryDir>(m_options.workRoot +
                                                 QStringLiteral("/kiln-torch-XXXXXX"));
        if (!m_work->isValid()) {
            *error = QStringLiteral("cannot create a work folder under %1").arg(m_options.workRoot);
            return false;
        }
        dir = m_work->path();
    }
    return m_process->start(dir, qMax<qint64>(bufferBytes, 1 << 20), m_options.torchStartTimeoutMs,
                            error, cancel);
}

bool TorchProcess::openDevice(const QString &extensionDir, const std::atomic<bool> *cancel,
                              QString *error)
{
    QByteArray line = "device";
    if (!extensionDir.isEmpty())
        line += ' ' + QFile::encodeName(extensionDir);
    const SandboxProcess::Reply reply =
        m_process->request(line, m_options.torchStartTimeoutMs, cancel);
    if (reply.status != SandboxProcess::Status::Ok) {
        *error =
            QStringLiteral("the device did not open: %1")
                .arg(reply.status == SandboxProcess::Status::Error ? QString::fromUtf8(reply.line)
                                                                   : m_process->describeEnd());
        return false;
    }
    // "torch=... cuda=..." of the start, then the architecture and confinement now in force.
    const QStringList started = m_process->isolation().split(u' ');
    m_isolation =
        QStringList(started.mid(0, 2)).join(u' ') + u' ' + QString::fromUtf8(reply.words.join(' '));
    return true;
}

QString TorchProcess::isolation() const
{
    if (!m_isolation.isEmpty())
        return m_isolation;
    QStringList words = m_process->isolation().split(u' ');
    words.removeIf([](const QString &word) { return word.startsWith(QLatin1String("start_ms=")); });
    return words.join(u' ');
}

QJsonObject TorchProcess::startPhases() const
{
    QJsonObject phases;
    for (const QString &word : m_process->isolation().split(u' ')) {
        if (!word.startsWith(QLatin1String("start_ms=")))
            continue;
        for (const QString &entry : word.mid(9).split(u',')) {
            const qsizetype colon = entry.indexOf(u':');
            if (colon > 0)
                phases.insert(entry.left(colon), entry.mid(colon + 1).toDouble());
        }
    }
    return phases;
}

QString TorchProcess::recipe() const
{
    const SandboxSettings &settings = m_process->settings();
    return QStringList{settings.executable,
                       QString::number(settings.cpuSeconds),
                       QString::number(settings.threads),
                       QString::number(settings.flushBytes),
                       QString::number(settings.outputCapBytes),
                       QString::number(int(settings.profiling)),
                       m_options.workRoot,
                       QString::number(m_options.torchStartTimeoutMs),
                       QString::number(m_options.torchCallTimeoutMs)}
               .join(u'|') +
           u'|' + settings.extraArguments.join(u'|');
}

QString TorchProcess::writeModule(const QString &name, const QString &source) const
{
    const QString path = m_process->workDir() + QLatin1Char('/') + name;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(source.toUtf8()) < 0)
        return {};
    return path;
}

bool TorchProcess::ensureBuffer(qint64 bytes)
{
    if (bytes <= m_process->bufferSize())
        return true;
    return m_process->resizeBuffer(bytes + (bytes >> 2), m_options.torchCallTimeoutMs);
}

SandboxProcess::Reply TorchProcess::request(const QByteArray &line, int timeoutMs,
                                            const std::atomic<bool> *cancel)
{
    for (int attempt = 0;; ++attempt) {
        SandboxProcess::Reply reply = m_process->request(line, timeoutMs, cancel);
        const bool wantsMore = reply.status == SandboxProcess::Status::Error &&
                               reply.words.value(0) == "need" && attempt < 3;
        if (!wantsMore || !ensureBuffer(reply.words.value(1).toLongLong()))
            return reply;
    }
}

QJsonDocument TorchProcess::json(const SandboxProcess::Reply &reply)
{
    for (qsizetype i = reply.words.size() - 1; i >= 0; --i) {
        if (reply.words[i].startsWith('{') || reply.words[i].startsWith('['))
            return QJsonDocument::fromJson(reply.words[i]);
    }
    return {};
}

} // namespace kiln
