#include "cudasandboxslot.h"

namespace kiln {

CudaSandboxSlot::CudaSandboxSlot(const VerifierOptions &options, CudaDevice device)
    : m_options(options), m_device(std::move(device)), m_userNamespace(options.cudaUserNamespace)
{
}

CudaSandboxSlot::~CudaSandboxSlot()
{
    if (m_process) {
        m_process->request("quit", 500);
        m_process->kill();
    }
}

SandboxSettings CudaSandboxSlot::settings(const VerifierOptions &options,
                                          const QStringList &arguments)
{
    SandboxSettings settings = options.sandbox;
    settings.executable = options.cudaSandbox;
    settings.addressSpaceMb = 0;
    settings.extraArguments = arguments;
    if (settings.profiling)
        settings.extraArguments << QStringLiteral("--profiling");
    return settings;
}

void CudaSandboxSlot::restart()
{
    if (m_process)
        m_process->kill();
    m_process.reset();
    m_work.reset();
    loadedReference.clear();
    loadedLibrary.clear();
    m_evaluations = 0;
    ++m_restarts;
}

bool CudaSandboxSlot::ensureStarted(QString *error)
{
    if (m_process && m_evaluations >= m_options.cudaEvaluationsPerSandbox)
        restart();
    if (m_process)
        return true;
    for (int attempt = 0; attempt < 2; ++attempt) {
        m_work = std::make_unique<QTemporaryDir>(m_options.workRoot +
                                                 QStringLiteral("/kiln-cuda-XXXXXX"));
        m_process = std::make_unique<SandboxProcess>(
            settings(m_options, {QStringLiteral("--device"), QString::number(m_device.index),
                                 QStringLiteral("--userns"),
                                 m_userNamespace ? QStringLiteral("1") : QStringLiteral("0")}));
        if (m_work->isValid() &&
            m_process->start(m_work->path(), 1 << 20, m_options.startTimeoutMs * 3, error))
            return true;
        m_process.reset();
        // Some drivers refuse a context inside an unprivileged user namespace: try once
        // without it (the report then says userns=0).
        if (!m_userNamespace)
            break;
        m_userNamespace = false;
    }
    return false;
}

double CudaSandboxSlot::bandwidth(int timeoutMs)
{
    if (m_bandwidth > 0.0 || !m_process)
        return m_bandwidth;
    const SandboxProcess::Reply reply = m_process->request("bandwidth 1073741824 10", timeoutMs);
    if (reply.status == SandboxProcess::Status::Ok)
        m_bandwidth = reply.words.value(0).toDouble();
    return m_bandwidth;
}

} // namespace kiln
