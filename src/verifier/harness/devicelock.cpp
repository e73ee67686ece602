#include "verifier/harness/devicelock.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QThread>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln {

namespace {

int openLockFile(const QString &path)
{
    const QByteArray native = QFile::encodeName(path);
    int fd = ::open(native.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0) {
        ::fchmod(fd, 0666); // the umask may have taken write bits other users need
        return fd;
    }
    // Another user's file in the sticky folder cannot be opened for writing where the kernel
    // protects such files (fs.protected_regular); flock works on a read-only descriptor.
    fd = ::open(native.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        qWarning("kiln: no timing lock at %s (%s): timings may overlap other processes' work",
                 native.constData(), std::strerror(errno));
    return fd;
}

// Polls flock until it succeeds or the cancel flag is set; true when held. Polling keeps a
// stop prompt: a blocking flock only returns for a signal.
bool lockPolling(int fd, int operation, const std::atomic<bool> *cancel)
{
    int sleepUs = 200;
    while (::flock(fd, operation | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR)
            return false;
        if (cancel && cancel->load())
            return false;
        QThread::usleep(sleepUs);
        sleepUs = std::min(sleepUs * 2, 5000);
    }
    return true;
}

// This thread's holds, per device: a nested request is granted by the outer one.
thread_local QHash<QString, int> t_holds;

} // namespace

QString DeviceLock::directory()
{
    const QString configured = qEnvironmentVariable("KILN_LOCK_DIR");
    return configured.isEmpty() ? QStringLiteral("/tmp/kiln-device-locks") : configured;
}

bool DeviceLock::enabled()
{
    return qEnvironmentVariable("KILN_DEVICE_LOCK") != QLatin1String("off");
}

DeviceLock::DeviceLock(const QString &device, Mode mode, const std::atomic<bool> *cancel)
    : m_device(device)
{
    if (!enabled())
        return;
    if (t_holds.value(device) > 0) {
        if (mode == Mode::Exclusive)
            qWarning("kiln: an exclusive hold of %s asked for inside a hold of the same thread",
                     qPrintable(device));
        m_nested = true;
        ++t_holds[device];
        return;
    }
    const QString folder = directory();
    if (!QDir().exists(folder) && QDir().mkpath(folder))
        ::chmod(QFile::encodeName(folder).constData(), 01777);
    QElapsedTimer waited;
    waited.start();
    const int turnstile =
        openLockFile(folder + QLatin1Char('/') + device + QStringLiteral(".queue"));
    const int main = openLockFile(folder + QLatin1Char('/') + device + QStringLiteral(".lock"));
    if (turnstile < 0 || main < 0) {
        // No lock can be had (a read-only /tmp): measure anyway, as before the lock existed.
        if (turnstile >= 0)
            ::close(turnstile);
        if (main >= 0)
            ::close(main);
        return;
    }
    const bool queued = lockPolling(turnstile, LOCK_EX, cancel);
    const bool held =
        queued && lockPolling(main, mode == Mode::Exclusive ? LOCK_EX : LOCK_SH, cancel);
    ::close(turnstile); // closing drops the turnstile: the next in line may queue
    m_waitedMs = waited.nsecsElapsed() / 1e6;
    if (held) {
        m_fd = main;
        ++t_holds[device];
    } else {
        ::close(main);
        m_cancelled = cancel && cancel->load();
    }
}

DeviceLock::~DeviceLock()
{
    release();
}

void DeviceLock::release()
{
    if (m_fd < 0 && !m_nested)
        return;
    if (--t_holds[m_device] <= 0)
        t_holds.remove(m_device);
    m_nested = false;
    if (m_fd >= 0)
        ::close(m_fd); // drops the flock with the last descriptor of this open file
    m_fd = -1;
}

} // namespace kiln
