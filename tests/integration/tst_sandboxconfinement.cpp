// What candidate code can reach from inside kiln-sandbox, tried by a probe compiled and run in
// the sandbox through the real protocol (no screen in the way): reads of the workspace
// database, the user's home and another process's /proc folder get nothing; executable memory
// made at run time, anonymous files and seccomp filters of its own are refused. The toolchain
// and the probe's own /proc folder stay readable (the confinement must not break honest code).
#include "confinementprobe.h"
#include "verifier/harness/sandboxprocess.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QtTest>
#include <cerrno>
#include <cstring>
#include <memory>
#include <unistd.h>

namespace {

// Redirects every writable GOT slot of clock_gettime in the process (dl_iterate_phdr, the
// dynamic sections, the relocations) to a clock running at a third of the speed, the way a
// candidate reaches the clock its harness times with; busy() then spins for 3 ms of real time.
const char *redirectSource = R"(#include <cstring>
#include <ctime>
#include <elf.h>
#include <link.h>
static timespec base;
// Taken before any slot is patched: this library's own slot is redirected too.
static int (*volatile realClock)(clockid_t, timespec *) = &clock_gettime;
static int slowClock(clockid_t id, timespec *now) {
    int rc = realClock(id, now);
    if (base.tv_sec == 0) base = *now;
    long long ns = (now->tv_sec - base.tv_sec) * 1000000000LL + (now->tv_nsec - base.tv_nsec);
    ns = ns / 3;
    now->tv_sec = base.tv_sec + ns / 1000000000LL;
    now->tv_nsec = base.tv_nsec + ns % 1000000000LL;
    if (now->tv_nsec >= 1000000000L) { now->tv_sec += 1; now->tv_nsec -= 1000000000L; }
    return rc;
}
static void patchRelocations(ElfW(Addr) base, const ElfW(Rela) *rela, size_t bytes,
                             const ElfW(Sym) *symbols, const char *names,
                             ElfW(Addr) relroStart, ElfW(Addr) relroEnd, int *patched) {
    for (size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
        const unsigned type = ELF64_R_TYPE(rela[i].r_info);
        if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue; // GOT slots only
        const ElfW(Sym) &symbol = symbols[ELF64_R_SYM(rela[i].r_info)];
        if (std::strcmp(names + symbol.st_name, "clock_gettime") != 0) continue;
        ElfW(Addr) slot = base + rela[i].r_offset;
        if (slot >= relroStart && slot < relroEnd) continue; // read-only after relocation
        *reinterpret_cast<void **>(slot) = reinterpret_cast<void *>(&slowClock);
        ++*patched;
    }
}
static int visit(dl_phdr_info *info, size_t, void *data) {
    const ElfW(Dyn) *dynamic = nullptr;
    ElfW(Addr) relroStart = 0, relroEnd = 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &header = info->dlpi_phdr[i];
        if (header.p_type == PT_DYNAMIC)
            dynamic = reinterpret_cast<const ElfW(Dyn) *>(info->dlpi_addr + header.p_vaddr);
        if (header.p_type == PT_GNU_RELRO) {
            relroStart = info->dlpi_addr + header.p_vaddr;
            relroEnd = relroStart + header.p_memsz;
        }
    }
    if (!dynamic || std::strstr(info->dlpi_name, "vdso")) return 0;
    auto at = [&](ElfW(Addr) p) { return p < info->dlpi_addr ? p + info->dlpi_addr : p; };
    ElfW(Addr) jmprel = 0, rela = 0, symtab = 0, strtab = 0;
    size_t jmprelBytes = 0, relaBytes = 0;
    bool bindNow = false;
    for (const ElfW(Dyn) *d = dynamic; d->d_tag != DT_NULL; ++d) {
        switch (d->d_tag) {
        case DT_JMPREL: jmprel = at(d->d_un.d_ptr); break;
        case DT_PLTRELSZ: jmprelBytes = d->d_un.d_val; break;
        case DT_RELA: rela = at(d->d_un.d_ptr); break;
        case DT_RELASZ: relaBytes = d->d_un.d_val; break;
        case DT_SYMTAB: symtab = at(d->d_un.d_ptr); break;
        case DT_STRTAB: strtab = at(d->d_un.d_ptr); break;
        case DT_FLAGS: bindNow = bindNow || (d->d_un.d_val & DF_BIND_NOW); break;
        case DT_FLAGS_1: bindNow = bindNow || (d->d_un.d_val & DF_1_NOW); break;
        }
    }
    if (!symtab || !strtab) return 0;
    const auto *symbols = reinterpret_cast<const ElfW(Sym) *>(symtab);
    const auto *names = reinterpret_cast<const char *>(strtab);
    int *patched = static_cast<int *>(data);
    if (jmprel && !bindNow)
        patchRelocations(info->dlpi_addr, reinterpret_cast<const ElfW(Rela) *>(jmprel),
                         jmprelBytes, symbols, names, relroStart, relroEnd, patched);
    if (rela)
        patchRelocations(info->dlpi_addr, reinterpret_cast<const ElfW(Rela) *>(rela), relaBytes,
                         symbols, names, relroStart, relroEnd, patched);
    return 0;
}
extern "C" void redirect(void *const *p, const long long *, const double *) {
    int patched = 0;
    dl_iterate_phdr(visit, &patched);
    *static_cast<int *>(p[0]) = patched;
}
extern "C" void busy(void *const *, const long long *, const double *) {
    timespec start, now;
    realClock(CLOCK_MONOTONIC, &start);
    do realClock(CLOCK_MONOTONIC, &now);
    while ((now.tv_sec - start.tv_sec) * 1000000000LL + (now.tv_nsec - start.tv_nsec) < 3000000);
}
)";

} // namespace

class TestSandboxConfinement : public QObject
{
    Q_OBJECT

private slots:
    void candidateCodeReachesNothingOutside();
    void aRedirectedClockDoesNotReachTheHarness();

private:
    // A sandbox in `work` with `source` compiled to probe.so.
    static std::unique_ptr<kiln::SandboxProcess> compiled(const QTemporaryDir &work,
                                                          const QByteArray &source);
};

std::unique_ptr<kiln::SandboxProcess> TestSandboxConfinement::compiled(const QTemporaryDir &work,
                                                                       const QByteArray &source)
{
    QFile file(work.filePath(QStringLiteral("probe.cpp")));
    if (!file.open(QIODevice::WriteOnly))
        return nullptr;
    file.write(source);
    file.close();
    kiln::SandboxSettings settings;
    settings.executable = QStringLiteral(KILN_BINARY_DIR "/bin/kiln-sandbox");
    auto sandbox = std::make_unique<kiln::SandboxProcess>(settings);
    QString error;
    if (!sandbox->start(work.path(), 1 << 20, 20000, &error)) {
        qWarning("%s", qPrintable(error));
        return nullptr;
    }
    const kiln::SandboxProcess::Reply reply =
        sandbox->request("compile g++ -std=c++17 -O1 -shared -fPIC probe.cpp -o probe.so", 120000);
    if (reply.status != kiln::SandboxProcess::Status::Ok || reply.words.value(0) != "0") {
        QFile log(work.filePath(QStringLiteral("compile.log")));
        log.open(QIODevice::ReadOnly);
        qWarning("%s", log.readAll().constData());
        return nullptr;
    }
    return sandbox;
}

// Before: the harness read its clock through libstdc++'s lazily bound GOT slot, and the same
// 3 ms call measured about 1 ms.
void TestSandboxConfinement::aRedirectedClockDoesNotReachTheHarness()
{
    QTemporaryDir work;
    QVERIFY(work.isValid());
    const std::unique_ptr<kiln::SandboxProcess> sandbox = compiled(work, redirectSource);
    QVERIFY(sandbox);
    using Status = kiln::SandboxProcess::Status;
    const QByteArray library = work.filePath(QStringLiteral("probe.so")).toUtf8();
    QCOMPARE(sandbox->request("load c redirect " + library, 20000).status, Status::Ok);
    QCOMPARE(sandbox->request("load r busy " + library, 20000).status, Status::Ok);
    QCOMPARE(sandbox->request("args 0 1 0 0 0", 20000).status, Status::Ok);
    const kiln::SandboxProcess::Reply reply =
        sandbox->request("batch call:c:0 call:r:0 call:r:0", 20000);
    QVERIFY2(reply.status == Status::Ok, (reply.line + sandbox->stderrTail()).constData());
    const int patched = *reinterpret_cast<const int *>(sandbox->buffer());
    if (patched == 0)
        QSKIP("no writable clock_gettime slot in this process: nothing to redirect");
    for (int call : {2, 3}) {
        const double ms = reply.words.value(call).toDouble() / 1e6;
        QVERIFY2(ms > 2.7, qPrintable(QStringLiteral("a 3 ms call measured %1 ms after %2 slots "
                                                     "were redirected")
                                          .arg(ms)
                                          .arg(patched)));
    }
}

void TestSandboxConfinement::candidateCodeReachesNothingOutside()
{
    kiln::test::ProbeTargets targets;
    QTemporaryDir work;
    QVERIFY2(targets.make() && work.isValid(), "cannot write the probe's targets");

    const std::unique_ptr<kiln::SandboxProcess> sandbox = compiled(
        work, kiln::test::confinementProbeSource(targets.database(), targets.homeFile.fileName(),
                                                 QDir::homePath(), false));
    QVERIFY(sandbox);
    if (!sandbox->isolation().contains(QLatin1String("reads=1")))
        QSKIP("this kernel has no Landlock: reads cannot be confined here");
    using Status = kiln::SandboxProcess::Status;
    kiln::SandboxProcess::Reply reply = sandbox->request(
        "load c probe " + work.filePath(QStringLiteral("probe.so")).toUtf8(), 20000);
    QVERIFY2(reply.status == Status::Ok, reply.line.constData());
    QCOMPARE(sandbox->request("args 0 1 0 0 0", 20000).status, Status::Ok);
    reply = sandbox->request("batch call:c:0", 20000);
    QVERIFY2(reply.status == Status::Ok, reply.line.constData());

    kiln::test::verifyConfinement(reinterpret_cast<const int *>(sandbox->buffer()), true);
}

QTEST_GUILESS_MAIN(TestSandboxConfinement)
#include "tst_sandboxconfinement.moc"
