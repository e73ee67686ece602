#include "verifier/lint/torchproblemlinter.h"

#include "verifier/harness/cudadevices.h"
#include "verifier/harness/devicelock.h"
#include "verifier/lint/problemlint.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace kiln {

namespace {

QString replyText(TorchProcess &process, const SandboxProcess::Reply &reply)
{
    if (reply.status == SandboxProcess::Status::Error)
        return QString::fromUtf8(reply.line) + QStringLiteral(" | ") +
               QString::fromUtf8(process.process().stderrTail().right(600)).trimmed();
    return process.process().describeEnd();
}

} // namespace

TorchProblemLinter::TorchProblemLinter(const VerifierOptions &options,
                                       const TorchEnvironment &environment)
    : m_options(options), m_environment(environment)
{
}

TorchProblemLinter::~TorchProblemLinter()
{
    if (m_process && m_process->process().running())
        m_process->request("quit", 5000);
}

bool TorchProblemLinter::ensureStarted(QString *error)
{
    if (m_process && m_process->process().running())
        return true;
    m_process = std::make_unique<TorchProcess>(m_options, m_environment,
                                               TorchProcess::Role::Reference, QString());
    return m_process->start(QString(), 64 << 20, error);
}

// The lock of the GPU torch uses (device 0 of what it sees), as TorchEvaluation takes it.
QString TorchProblemLinter::lockName() const
{
    if (m_options.torchDevice == QLatin1String("cpu"))
        return QStringLiteral("cpu");
    for (const CudaDevice &device : CudaDevices::probe(m_options).devices)
        if (device.index == 0)
            return device.lockName();
    return QStringLiteral("gpu-0");
}

bool TorchProblemLinter::lint(const Task &task, LintFacts *facts, QString *error)
{
    const DeviceLock lock(lockName(), DeviceLock::Mode::Shared);
    if (!ensureStarted(error))
        return false;
    // A file name of its own per problem: Python's bytecode cache keys on path and mtime.
    const QString path =
        m_process->writeModule(QStringLiteral("lint_%1_%2.py").arg(++m_modules).arg(task.name),
                               task.referenceSource.value(Backend::Torch));
    if (path.isEmpty()) {
        *error =
            QStringLiteral("cannot write the problem into %1").arg(m_process->process().workDir());
        return false;
    }
    SandboxProcess::Reply reply = m_process->request(
        "load " + path.toUtf8() + ' ' + QByteArray::number(kSeed), m_options.torchCallTimeoutMs);
    if (reply.status != SandboxProcess::Status::Ok) {
        *error = QStringLiteral("the problem's Model could not be built: %1")
                     .arg(replyText(*m_process, reply));
        return false;
    }
    const Tolerance tolerance = task.tolerance(QStringLiteral("f32"));
    reply = m_process->request(QByteArray("lint ") + QByteArray::number(kSeed) + ' ' +
                                   QByteArray::number(tolerance.abs, 'g', 17) + ' ' +
                                   QByteArray::number(tolerance.rel, 'g', 17) + ' ' +
                                   QByteArray::number(ProblemLint::kMagnitudeFraction, 'g', 17) +
                                   ' ' + QByteArray::number(kOpBudgetSeconds),
                               kLintTimeoutMs);
    if (reply.status != SandboxProcess::Status::Ok) {
        *error =
            QStringLiteral("the lint of the problem failed: %1").arg(replyText(*m_process, reply));
        return false;
    }
    // The document holds names with spaces: it is the rest of the line, not one word.
    const QJsonObject document =
        QJsonDocument::fromJson(reply.line.mid(reply.line.indexOf(' ') + 1)).object();
    if (document.isEmpty()) {
        *error = QStringLiteral("the worker's lint reply is not a JSON document");
        return false;
    }
    *facts = LintFacts::fromWorkerJson(document);
    return true;
}

} // namespace kiln
