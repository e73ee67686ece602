#pragma once

// A probe of what candidate code reaches from inside a sandbox (tst_sandboxconfinement for
// kiln-sandbox, tst_cudaconfinement for kiln-cuda-sandbox): a shared library whose entry tries
// to read the workspace database, a file and the listing of the user's home, another process's
// command line and the listing of /proc, to make executable memory, an anonymous file and a
// seccomp filter of its own, and, as controls, to read its own /proc folder and a system
// header. Each answer is bytes read (entries listed, 0 for a call that succeeded) or -errno.
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QtTest>
#include <cerrno>

namespace kiln::test {

// What the probes try to reach, both readable by this process: a workspace database of the
// engine's (outside every sandbox's folder) and a file of the user's in the home folder.
struct ProbeTargets
{
    QTemporaryDir workspace;
    QTemporaryFile homeFile{QDir::homePath() + QStringLiteral("/kiln-probe-XXXXXX")};
    QString database() const { return workspace.filePath(QStringLiteral("kiln.db")); }

    bool make()
    {
        QFile db(database());
        if (!workspace.isValid() || !db.open(QIODevice::WriteOnly) || !homeFile.open())
            return false;
        db.write("runs.verifier_secret=1234\n");
        homeFile.write("a file of the user's\n");
        return homeFile.flush();
    }
};

// One probe per slot of its output: bytes read (or entries listed, or 0 for a call that
// succeeded), or -errno.
enum ConfinementProbe
{
    kDatabase,
    kHomeFile,
    kHomeListing,
    kEngineCommandLine,
    kProcListing,
    kOwnStatus,
    kSystemHeader,
    kExecutableMemory,
    kAnonymousFile,
    kOwnSeccompFilter
};

// toFile: the answers go to probe.out in the working folder (the CUDA sandbox's buffers are
// device memory), one per line; otherwise into the first pointer argument.
inline QByteArray confinementProbeSource(const QString &database, const QString &homeFile,
                                         const QString &home, bool toFile)
{
    QByteArray source = R"(#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <string>
static int readAll(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -errno;
    char buffer[4096]; int total = 0; long n;
    while ((n = read(fd, buffer, sizeof buffer)) > 0) total += int(n);
    close(fd);
    return n < 0 ? -errno : total;
}
static int listDir(const char *path) {
    DIR *dir = opendir(path);
    if (!dir) return -errno;
    int n = 0;
    while (readdir(dir)) ++n;
    closedir(dir);
    return n;
}
static int result(long rc) { return rc < 0 ? -errno : 0; }
#include <cstdio>
extern "C" void probe(void *const *p, const long long *, const double *) {
    int results[10] = {};
    int *out = @TOFILE@ ? results : static_cast<int *>(p[0]);
    out[0] = readAll("@DATABASE@");
    out[1] = readAll("@HOMEFILE@");
    out[2] = listDir("@HOME@");
    out[3] = readAll(("/proc/" + std::to_string(getppid()) + "/cmdline").c_str());
    out[4] = listDir("/proc");
    out[5] = readAll("/proc/self/status");
    out[6] = readAll("/usr/include/stdio.h");
    void *page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    out[7] = result(mprotect(page, 4096, PROT_READ | PROT_EXEC));
    out[8] = result(syscall(SYS_memfd_create, "code", 0));
    sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    sock_fprog program{1, allow};
    out[9] = result(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0));
    if (@TOFILE@) {
        FILE *file = fopen("probe.out", "w");
        for (int i = 0; i < 10 && file; ++i)
            fprintf(file, "%d\n", out[i]);
        if (file)
            fclose(file);
    }
}
)";
    source.replace("@DATABASE@", database.toUtf8());
    source.replace("@HOMEFILE@", homeFile.toUtf8());
    source.replace("@HOME@", home.toUtf8());
    source.replace("@TOFILE@", toFile ? "true" : "false");
    return source;
}

// The answers against what confinement must give; QVERIFY fails the calling test function.
// noNewCode: the sandbox also refuses executable memory made at run time and anonymous files
// (kiln-sandbox; the CUDA driver's needs are not known to allow it in kiln-cuda-sandbox).
inline void verifyConfinement(const int *out, bool noNewCode)
{
    for (ConfinementProbe denied :
         {kDatabase, kHomeFile, kHomeListing, kEngineCommandLine, kProcListing})
        QVERIFY2(out[denied] == -EACCES,
                 qPrintable(QStringLiteral("probe %1 read %2").arg(denied).arg(out[denied])));
    for (ConfinementProbe refused : {kExecutableMemory, kAnonymousFile, kOwnSeccompFilter})
        QVERIFY2(out[refused] == -EPERM || (!noNewCode && refused != kOwnSeccompFilter),
                 qPrintable(QStringLiteral("probe %1 answered %2").arg(refused).arg(out[refused])));
    QVERIFY2(out[kOwnStatus] > 0, "its own /proc folder must stay readable");
    QVERIFY2(out[kSystemHeader] > 0, "the toolchain must stay readable");
}

} // namespace kiln::test
