// The sandbox's seccomp filter on sockets (src/sandbox/isolation.cpp), installed in a child
// process: a candidate never opens a socket, except that a profiled one (--profiled, alone with
// its profiler in a private network namespace) may open TCP and UDP ones, never raw or Unix ones.
#include "isolation.h"

#include <QTest>
#include <cerrno>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

// In a child: the filter, then socket() of each kind; the exit status's bits say which worked.
int socketsAllowed(bool allowInet)
{
    const pid_t child = ::fork();
    if (child == 0) {
        if (!kiln::sandbox::forbidProcessesAndNetwork(false, allowInet))
            ::_exit(255);
        const int kinds[][2] = {{AF_INET, SOCK_STREAM | SOCK_CLOEXEC},
                                {AF_INET6, SOCK_DGRAM},
                                {AF_INET, SOCK_RAW},
                                {AF_UNIX, SOCK_STREAM}};
        int opened = 0;
        for (int i = 0; i < 4; ++i) {
            const int fd = ::socket(kinds[i][0], kinds[i][1], 0);
            // EPERM is the filter's (also the kernel's for a raw socket without CAP_NET_RAW,
            // so run as root, as CI does, to tell them apart); another error is the system's.
            if (fd >= 0 || errno != EPERM)
                opened |= 1 << i;
        }
        ::_exit(opened);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

class TestSocketFilter : public QObject
{
    Q_OBJECT

private slots:
    void candidatesOpenNoSocket() { QCOMPARE(socketsAllowed(false), 0); }

    void profiledOpensTcpAndUdpOnly() { QCOMPARE(socketsAllowed(true), 0b0011); }
};

QTEST_GUILESS_MAIN(TestSocketFilter)
#include "tst_socketfilter.moc"
