#include "engine/doctor/machinedoctor.h"

#include "engine/profile/nsightcommand.h"
#include "languages/kernellanguages.h"
#include "strategyregistry.h"
#include "tasks/tasklibrary.h"
#include "verifier/harness/sandboxprocess.h"
#include "verifier/lint/problemlinter.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QStorageInfo>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <algorithm>
#include <cmath>
#include <tuple>

namespace kiln {

namespace {

using Level = DoctorFinding::Level;

// stdout and stderr of a short command, or empty when it cannot run.
QString commandOutput(const QString &program, const QStringList &arguments)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    if (!process.waitForFinished(20000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    return QString::fromLocal8Bit(process.readAll()).trimmed();
}

// "userns=1 netns=1 landlock=3" -> its numbers by key.
int isolationValue(const QString &isolation, const QString &key)
{
    for (const QString &word : isolation.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (word.section(QLatin1Char('='), 0, 0) == key)
            return word.section(QLatin1Char('='), 1).toInt();
    }
    return 0;
}

VerifierOptions withoutTiming(VerifierOptions options)
{
    options.runTiming = false;
    return options;
}

QString gib(qint64 bytes)
{
    return QString::number(double(bytes) / double(1ll << 30), 'f', 1) + QStringLiteral(" GiB");
}

} // namespace

MachineDoctor::MachineDoctor(VerifierOptions options, QStringList tasksDirectories)
    : m_options(std::move(options)), m_verifier(withoutTiming(m_options)),
      m_tasksDirectories(std::move(tasksDirectories))
{
}

bool MachineDoctor::ok() const
{
    return std::none_of(m_findings.cbegin(), m_findings.cend(),
                        [](const DoctorFinding &f) { return f.level == Level::Problem; });
}

QString MachineDoctor::summary() const
{
    return QStringLiteral("CPU backend: %1. CUDA backend: %2.")
        .arg(m_cpuUsable ? QStringLiteral("usable") : QStringLiteral("NOT usable"),
             m_cudaUsable ? QStringLiteral("usable")
                          : QStringLiteral("not usable (%1)").arg(m_cuda.reason));
}

QList<DoctorFinding> MachineDoctor::examine()
{
    m_findings.clear();
    m_cpuUsable = m_cudaUsable = false;
    checkSandbox();
    checkIsolation();
    checkCompiler();
    checkNvcc();
    m_cuda = m_verifier.cudaAvailability();
    checkCudaRuntime();
    checkGpus();
    checkProfiler();
    checkCache();
    const TaskLibrary library = TaskLibrary::standard(m_tasksDirectories);
    checkTasks(library);
    checkStrategies();
    checkTorch();
    checkBackend(library, Backend::Cpu);
    if (m_cpuUsable)
        checkNoiseFloor(library, Backend::Cpu);
    if (m_cuda.usable)
        checkBackend(library, Backend::Cuda);
    if (m_cudaUsable)
        checkNoiseFloor(library, Backend::Cuda);
    checkProblemLint(library);
    return m_findings;
}

void MachineDoctor::add(const QString &check, Level level, const QString &found, const QString &fix)
{
    m_findings.append(DoctorFinding{check, level, found, fix});
}

bool MachineDoctor::sandboxFound() const
{
    return m_verifier.checkSetup().isEmpty();
}

// The PyTorch backend (KernelBench problems) is optional: a warning, never a problem.
void MachineDoctor::checkTorch()
{
    const TorchEnvironment &torch = m_verifier.torchEnvironment();
    if (torch.usable) {
        add(QStringLiteral("pytorch"), Level::Ok, torch.describe());
        // Whether sandboxes compile the packages' modules on every start (TorchBytecode); the
        // folder is read only where Landlock confines the sandboxes.
        if (torch.bytecodeFailed)
            add(QStringLiteral("bytecode"), Level::Warning,
                torch.bytecodeNote + QStringLiteral(": every sandbox compiles torch's modules "
                                                    "again when it starts (seconds each)"),
                QStringLiteral("make Kiln's cache folder writable, or install torch with its "
                               "bytecode (pip without --no-compile)"));
        else
            add(QStringLiteral("bytecode"), Level::Ok,
                torch.bytecodeNote + (torch.bytecodeCache.isEmpty()
                                          ? QString()
                                          : QStringLiteral(" (read by sandboxes under Landlock)")));
    } else
        add(QStringLiteral("pytorch"), Level::Warning,
            QStringLiteral("the pytorch backend (KernelBench problems) cannot run: %1")
                .arg(torch.reason),
            QStringLiteral("install PyTorch with CUDA for python3 (pip install torch), or point "
                           "KILN_PYTHON at an interpreter that has it"));
    checkLanguages(torch);
}

// Which kernel languages KernelBench candidates may be written in here (--language).
void MachineDoctor::checkLanguages(const TorchEnvironment &torch)
{
    if (!torch.usable)
        return;
    QStringList available, missing;
    for (const KernelLanguage *language : KernelLanguages::all()) {
        const QString version = torch.languageVersions.value(language->id());
        if (torch.languageProblem(language->id()).isEmpty())
            available.append(version.isEmpty()
                                 ? language->id()
                                 : QStringLiteral("%1 %2").arg(language->id(), version));
        else
            missing.append(QStringLiteral("%1 (pip install %2)")
                               .arg(language->id(), language->distribution()));
    }
    add(QStringLiteral("languages"), Level::Ok,
        QStringLiteral("KernelBench kernel languages: %1%2")
            .arg(available.join(QStringLiteral(", ")),
                 missing.isEmpty()
                     ? QString()
                     : QStringLiteral("; unavailable: ") + missing.join(QStringLiteral(", "))));
}

void MachineDoctor::checkSandbox()
{
    if (const QString problem = m_verifier.checkSetup(); !problem.isEmpty())
        add(QStringLiteral("sandbox"), Level::Problem, problem,
            QStringLiteral("reinstall Kiln (kiln-sandbox belongs in libexec/kiln), or set "
                           "KILN_SANDBOX to the kiln-sandbox executable"));
    else
        add(QStringLiteral("sandbox"), Level::Ok,
            QStringLiteral("kiln-sandbox at %1").arg(m_options.sandbox.executable));
}

void MachineDoctor::checkIsolation()
{
    if (!sandboxFound())
        return;
    QTemporaryDir work(m_options.workRoot + QStringLiteral("/kiln-doctor-XXXXXX"));
    SandboxProcess sandbox(m_options.sandbox);
    QString error;
    if (!work.isValid() || !sandbox.start(work.path(), 4096, m_options.startTimeoutMs, &error)) {
        add(QStringLiteral("isolation"), Level::Problem,
            QStringLiteral("kiln-sandbox does not start: %1")
                .arg(work.isValid() ? error
                                    : QStringLiteral("no work folder in ") + m_options.workRoot),
            QStringLiteral("check that %1 is writable and that %2 can be started")
                .arg(m_options.workRoot, m_options.sandbox.executable));
        return;
    }
    // "lock" installs the seccomp filter that candidates run under.
    const bool seccomp =
        sandbox.request("lock", m_options.startTimeoutMs).status == SandboxProcess::Status::Ok;
    const QString isolation = sandbox.isolation();
    sandbox.kill();
    describeIsolation(isolation, seccomp);
}

void MachineDoctor::describeIsolation(const QString &isolation, bool seccomp)
{
    const bool userns = isolationValue(isolation, QStringLiteral("userns")) != 0;
    const bool netns = isolationValue(isolation, QStringLiteral("netns")) != 0;
    const int landlock = isolationValue(isolation, QStringLiteral("landlock"));
    add(QStringLiteral("namespaces"), userns && netns ? Level::Ok : Level::Warning,
        userns  ? QStringLiteral("private user and network namespaces")
        : netns ? QStringLiteral("a private network namespace, no user namespace")
                : QStringLiteral("no private namespaces: candidates could reach the "
                                 "network"),
        userns ? QString()
               : QStringLiteral("allow unprivileged user namespaces (Debian: sysctl -w "
                                "kernel.unprivileged_userns_clone=1; Ubuntu 24.04: sysctl -w "
                                "kernel.apparmor_restrict_unprivileged_userns=0); a chroot, or "
                                "a container that forbids unshare, never has them"));
    QString landlockFix;
    if (landlock == 0) {
        QFile lsm(QStringLiteral("/sys/kernel/security/lsm"));
        const bool listed = lsm.open(QIODevice::ReadOnly) && lsm.readAll().contains("landlock");
        landlockFix =
            listed ? QStringLiteral("Landlock is enabled but refused this process (nested in a "
                                    "confined sandbox?)")
                   : QStringLiteral("Linux 5.13 or later with landlock in the lsm= boot "
                                    "parameter (this kernel: %1)")
                         .arg(QSysInfo::kernelVersion());
    }
    add(QStringLiteral("landlock"), landlock > 0 ? Level::Ok : Level::Warning,
        landlock > 0
            ? QStringLiteral("Landlock ABI %1: candidates write only in their work folder")
                  .arg(landlock)
            : QStringLiteral("no Landlock: candidates may write outside their work folder"),
        landlockFix);
    add(QStringLiteral("seccomp"), seccomp ? Level::Ok : Level::Warning,
        seccomp ? QStringLiteral("seccomp filter: candidates cannot start processes or open "
                                 "sockets")
                : QStringLiteral("no seccomp filter: candidates may start processes"),
        seccomp ? QString()
                : QStringLiteral("a kernel with CONFIG_SECCOMP_FILTER, outside a container "
                                 "that forbids seccomp"));
}

void MachineDoctor::checkCompiler()
{
    // Looked up on the sandbox's PATH, which is where the sandbox will look.
    const QString compiler = QStandardPaths::findExecutable(
        m_options.compiler,
        {QStringLiteral("/usr/local/bin"), QStringLiteral("/usr/bin"), QStringLiteral("/bin")});
    const QString version = compiler.isEmpty()
                                ? QString()
                                : commandOutput(compiler, {QStringLiteral("-dumpfullversion")});
    if (compiler.isEmpty() || version.isEmpty())
        add(QStringLiteral("compiler"), Level::Problem,
            QStringLiteral("%1 not found: the CPU backend cannot compile candidates")
                .arg(m_options.compiler),
            QStringLiteral("apt-get install g++"));
    else
        add(QStringLiteral("compiler"), Level::Ok,
            QStringLiteral("%1 %2 (%3)")
                .arg(m_options.compiler, version.section(QLatin1Char('\n'), 0, 0), compiler));
}

void MachineDoctor::checkNvcc()
{
    const QString output = m_options.nvcc.isEmpty()
                               ? QString()
                               : commandOutput(m_options.nvcc, {QStringLiteral("--version")});
    const qsizetype at = output.indexOf(QLatin1String("release "));
    if (at < 0) {
        add(QStringLiteral("nvcc"), Level::Warning,
            m_options.nvcc.isEmpty() ? QStringLiteral("nvcc not found")
                                     : QStringLiteral("%1 does not run").arg(m_options.nvcc),
            QStringLiteral("install the CUDA toolkit (/usr/local/cuda), or set CUDA_HOME or "
                           "KILN_NVCC; without nvcc, CUDA candidates with host code cannot "
                           "compile"));
        return;
    }
    const QString release = output.mid(at + 8).section(QLatin1Char(','), 0, 0);
    add(QStringLiteral("nvcc"), Level::Ok,
        QStringLiteral("nvcc %1 (%2)").arg(release, m_options.nvcc));
}

void MachineDoctor::checkCudaRuntime()
{
    if (m_cuda.runtimeVersion == 0) {
        const bool built =
            !m_options.cudaSandbox.isEmpty() && QFileInfo(m_options.cudaSandbox).isExecutable();
        add(QStringLiteral("cuda-runtime"), Level::Warning, m_cuda.reason,
            built ? QStringLiteral("install the CUDA 13 toolkit: kiln-cuda-sandbox loads "
                                   "libcudart and libnvrtc from /usr/local/cuda/lib64 (or from "
                                   "the loader's path, see ldconfig)")
                  : QStringLiteral("build Kiln with the CUDA toolkit installed for a CUDA "
                                   "backend"));
        return;
    }
    add(QStringLiteral("cuda-runtime"), Level::Ok,
        QStringLiteral("CUDA runtime %1, NVRTC %2 (%3)")
            .arg(CudaAvailability::versionText(m_cuda.runtimeVersion), m_cuda.nvrtcVersion,
                 m_options.cudaSandbox));
    if (m_cuda.driverVersion == 0) {
        add(QStringLiteral("driver"), Level::Warning, QStringLiteral("no NVIDIA driver"),
            QStringLiteral("install the NVIDIA driver (for CUDA %1 or later) to use a GPU")
                .arg(CudaAvailability::versionText(m_cuda.runtimeVersion)));
    } else if (m_cuda.driverVersion < m_cuda.runtimeVersion) {
        add(QStringLiteral("driver"), Level::Warning,
            QStringLiteral("the NVIDIA driver supports CUDA %1, the runtime needs %2")
                .arg(CudaAvailability::versionText(m_cuda.driverVersion),
                     CudaAvailability::versionText(m_cuda.runtimeVersion)),
            QStringLiteral("update the NVIDIA driver"));
    } else {
        add(QStringLiteral("driver"), Level::Ok,
            QStringLiteral("NVIDIA driver for CUDA %1")
                .arg(CudaAvailability::versionText(m_cuda.driverVersion)));
    }
}

void MachineDoctor::checkGpus()
{
    if (!m_cuda.usable) {
        // No runtime or no driver has been said already.
        if (m_cuda.runtimeVersion != 0 && m_cuda.driverVersion != 0)
            add(QStringLiteral("gpus"), Level::Warning, m_cuda.reason,
                QStringLiteral("without a GPU Kiln verifies on the CPU backend (--backend cpu)"));
        return;
    }
    QStringList names;
    for (const CudaDevice &device : std::as_const(m_cuda.devices))
        names << QStringLiteral("%1: %2 (%3, %4 SMs, %5)")
                     .arg(device.index)
                     .arg(device.name, device.architecture())
                     .arg(device.smCount)
                     .arg(gib(device.memoryBytes));
    add(QStringLiteral("gpus"), Level::Ok, names.join(QStringLiteral("; ")));
}

// Nsight Compute for kiln-cli profile; a warning only, since verifying needs none of it.
void MachineDoctor::checkProfiler()
{
    const QString ncu = NsightCommand::locate();
    if (ncu.isEmpty()) {
        add(QStringLiteral("ncu"), Level::Warning,
            QStringLiteral("Nsight Compute (ncu) not found: no hardware profiles"),
            QStringLiteral("install the CUDA toolkit's Nsight Compute, or set KILN_NCU to ncu's "
                           "path"));
        return;
    }
    const QString version = NsightCommand::version(ncu);
    if (const QString problem = NsightCommand::permissionProblem(); !problem.isEmpty()) {
        add(QStringLiteral("ncu"), Level::Warning,
            QStringLiteral("%1 (%2) may not read the GPU's counters").arg(ncu, version), problem);
        return;
    }
    add(QStringLiteral("ncu"), Level::Ok, QStringLiteral("%1 (%2)").arg(ncu, version), {});
}

void MachineDoctor::checkCache()
{
    for (const auto &[check, directory, variable] :
         {std::tuple{QStringLiteral("cache"), m_options.cacheDirectory,
                     QStringLiteral("KILN_CACHE_DIR")},
          std::tuple{QStringLiteral("work"), m_options.workRoot, QStringLiteral("TMPDIR")}}) {
        QDir().mkpath(directory);
        QTemporaryFile probe(directory + QStringLiteral("/kiln-doctor-XXXXXX"));
        if (!probe.open()) {
            add(check, Level::Problem, QStringLiteral("%1 is not writable").arg(directory),
                QStringLiteral("set %1 to a writable folder").arg(variable));
            continue;
        }
        // Inside a chroot the mount table may not name the folder's file system: unknown.
        const QStorageInfo storage(directory);
        const qint64 free = storage.isValid() ? storage.bytesAvailable() : -1;
        const bool low = free >= 0 && free < (1ll << 30);
        add(check, low ? Level::Warning : Level::Ok,
            QStringLiteral("%1 (writable, %2)")
                .arg(directory, free < 0 ? QStringLiteral("free space unknown")
                                         : gib(free) + QStringLiteral(" free")),
            low ? QStringLiteral("free space, or set %1 elsewhere").arg(variable) : QString());
    }
}

void MachineDoctor::checkTasks(const TaskLibrary &library)
{
    int embedded = 0;
    QStringList folders;
    for (const Task &task : library.tasks()) {
        if (task.directory.startsWith(QLatin1Char(':')))
            ++embedded;
        else if (const QString parent = QFileInfo(task.directory).path(); !folders.contains(parent))
            folders << parent;
    }
    add(QStringLiteral("tasks"), library.tasks().isEmpty() ? Level::Problem : Level::Ok,
        QStringLiteral("%1 tasks (%2 built in%3)")
            .arg(library.tasks().size())
            .arg(embedded)
            .arg(folders.isEmpty()
                     ? QString()
                     : QStringLiteral(", others from ") + folders.join(QStringLiteral(", "))));
    for (const TaskLoadError &error : library.errors())
        add(QStringLiteral("tasks"), Level::Warning, error.toString(),
            QStringLiteral("fix the task folder (docs/tasks.md) or remove it"));
}

void MachineDoctor::checkStrategies()
{
    QStringList present;
    for (const QString &directory : StrategyRegistry::pluginDirectories()) {
        if (QFileInfo(directory).isDir())
            present << directory;
    }
    add(QStringLiteral("strategies"), Level::Ok,
        QStringLiteral("%1 (plugin folders: %2)")
            .arg(StrategyRegistry::names().join(QStringLiteral(", ")),
                 present.isEmpty() ? QStringLiteral("none present")
                                   : present.join(QStringLiteral(", "))));
    for (const QString &error : StrategyRegistry::loadErrors())
        add(QStringLiteral("strategies"), Level::Warning, error,
            QStringLiteral("rebuild the plugin against this Kiln and Qt, or remove it"));
}

void MachineDoctor::checkProblemLint(const TaskLibrary &library)
{
    ProblemLinter linter(m_options);
    int linted = 0, withFindings = 0, notLinted = 0;
    for (const Task &task : library.tasks()) {
        const bool builtIn = task.directory.startsWith(QLatin1Char(':'));
        const ProblemLint lint = builtIn && m_cpuUsable ? linter.lint(task) : linter.stored(task);
        if (lint.state == ProblemLint::State::NotLinted) {
            ++notLinted;
            continue;
        }
        if (lint.state == ProblemLint::State::Failed) {
            add(QStringLiteral("problem-lint"), Level::Warning,
                QStringLiteral("%1: lint failed: %2").arg(task.name, lint.note),
                QStringLiteral("`kiln-cli lint-tasks %1 --force` tries again").arg(task.name));
            continue;
        }
        ++linted;
        if (lint.findings.isEmpty())
            continue;
        ++withFindings;
        add(QStringLiteral("problem-lint"), Level::Warning,
            QStringLiteral("%1: %2").arg(task.name, lint.lines().join(QStringLiteral("; "))),
            lint.effectiveAbs ? QStringLiteral("none needed: the verifier judges this task with "
                                               "the magnitude-aware tolerance shown")
                              : QStringLiteral("review the task (docs/tasks.md, \"Problem "
                                               "lint\"); its verdicts stand as they are"));
    }
    add(QStringLiteral("problem-lint"), notLinted ? Level::Warning : Level::Ok,
        QStringLiteral("%1 of %2 tasks linted, %3 with findings, %4 not linted")
            .arg(linted)
            .arg(library.tasks().size())
            .arg(withFindings)
            .arg(notLinted),
        notLinted ? QStringLiteral("`kiln-cli lint-tasks` lints them (KernelBench problems "
                                   "need torch)")
                  : QString());
}

void MachineDoctor::checkBackend(const TaskLibrary &library, Backend backend)
{
    const QString check = backendName(backend) + QStringLiteral("-backend");
    const Task *task = library.task(QStringLiteral("vector_add"));
    if (!sandboxFound() || !task || !task->referenceSource.contains(backend))
        return;
    QElapsedTimer clock;
    clock.start();
    const EvaluationResult result =
        m_verifier.evaluate(*task, backend, task->referenceSource.value(backend),
                            QRandomGenerator::system()->generate64());
    const bool passed = result.correct && !result.hasBlockingFlag();
    (backend == Backend::Cpu ? m_cpuUsable : m_cudaUsable) = passed;
    if (passed)
        add(check, Level::Ok,
            QStringLiteral("vector_add's reference compiled and checked in the sandbox (%1 s)")
                .arg(clock.elapsed() / 1000.0, 0, 'f', 1));
    else
        add(check, Level::Problem,
            QStringLiteral("vector_add's reference did not pass: %1: %2")
                .arg(verdictName(result.verdict), result.summary),
            QStringLiteral("fix the findings above; `kiln-cli eval --task vector_add --backend "
                           "%1 FILE` shows every stage")
                .arg(backendName(backend)));
}

// The machine's noise floor: the same code timed against itself reads 1.00x only up to noise, and
// a difference between two kernels smaller than this is no difference (verifier.md, "Noise").
void MachineDoctor::checkNoiseFloor(const TaskLibrary &library, Backend backend)
{
    constexpr int kJudgements = 3;
    constexpr double kQuietFloor = 0.05;
    const QString check = backendName(backend) + QStringLiteral("-noise-floor");
    const Task *task = library.task(QStringLiteral("softmax"));
    if (!task || !task->referenceSource.contains(backend))
        return;
    Verifier timed(m_options);
    QStringList readings;
    double floor = 0.0;
    for (int i = 0; i < kJudgements; ++i) {
        const EvaluationResult r =
            timed.evaluate(*task, backend, task->referenceSource.value(backend),
                           QRandomGenerator::system()->generate64());
        if (!r.speedup || r.verdict != Verdict::Pass) {
            add(check, Level::Warning,
                QStringLiteral("the A/A test did not time: %1").arg(r.summary),
                QStringLiteral("`kiln-cli eval --task softmax tasks/softmax/reference.cpp` "
                               "shows every stage of the same judgement"));
            return;
        }
        const SpeedupInterval interval =
            r.speedupInterval.value_or(SpeedupInterval{*r.speedup, *r.speedup, *r.speedup});
        floor = std::max({floor, std::abs(interval.estimate - 1.0), std::abs(interval.low - 1.0),
                          std::abs(interval.high - 1.0)});
        readings << interval.text(3);
    }
    const QString found =
        QStringLiteral("softmax's reference against itself (an A/A test, the truth is 1.00x): %1; "
                       "noise floor ±%2 %: speedups closer than that are within noise")
            .arg(readings.join(QStringLiteral(", ")))
            .arg(100.0 * floor, 0, 'f', 1);
    if (floor <= kQuietFloor)
        add(check, Level::Ok, found);
    else
        add(check, Level::Warning, found,
            QStringLiteral("other programs are using this machine's %1: close them, or compare "
                           "kernels only by differences larger than the floor")
                .arg(backend == Backend::Cpu ? QStringLiteral("CPU") : QStringLiteral("GPU")));
}

} // namespace kiln
