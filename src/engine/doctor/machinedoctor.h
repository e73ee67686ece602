#pragma once

#include "core/backend.h"
#include "engine/doctor/doctorfinding.h"
#include "verifier/harness/cudadevices.h"
#include "verifier/harness/verifieroptions.h"
#include "verifier/verifier.h"

#include <QList>
#include <QStringList>

namespace kiln {

class TaskLibrary;

// What Kiln finds on this machine (`kiln-cli doctor`): the sandboxes and the isolation the
// kernel grants them, the compilers, the GPUs and the driver, a writable cache, the task library
// and the strategies. Every check runs the real part: the sandbox is started, the compilers are
// asked their versions, and one kernel per usable backend is verified end to end.
class MachineDoctor
{
public:
    MachineDoctor(VerifierOptions options, QStringList tasksDirectories);

    // Takes a few seconds (it compiles and checks a kernel on each usable backend).
    QList<DoctorFinding> examine();
    // After examine():
    QList<DoctorFinding> findings() const { return m_findings; }
    bool cpuBackendUsable() const { return m_cpuUsable; }
    bool cudaBackendUsable() const { return m_cudaUsable; }
    bool ok() const; // no finding is a problem
    // "CPU backend: usable. CUDA backend: not usable (why)."
    QString summary() const;

private:
    bool sandboxFound() const;
    void checkSandbox();
    void checkIsolation();
    void describeIsolation(const QString &isolation, bool seccomp);
    void checkCompiler();
    void checkNvcc();
    void checkCudaRuntime();
    void checkGpus();
    void checkCache();
    void checkProfiler();
    void checkTasks(const TaskLibrary &library);
    void checkStrategies();
    void checkTorch();
    void checkLanguages(const TorchEnvironment &torch);
    void checkBackend(const TaskLibrary &library, Backend backend);
    // The A/A test: a task's reference judged against itself a few times with timing on.
    void checkNoiseFloor(const TaskLibrary &library, Backend backend);
    // Problem lint: the built-in tasks linted on the CPU backend when not yet kept, the others
    // as kept (KernelBench problems need torch: `kiln-cli lint-tasks`).
    void checkProblemLint(const TaskLibrary &library);
    void add(const QString &check, DoctorFinding::Level level, const QString &found,
             const QString &fix = {});

    VerifierOptions m_options;
    Verifier m_verifier; // m_options without timing: the doctor answers in seconds
    QStringList m_tasksDirectories;
    QList<DoctorFinding> m_findings;
    CudaAvailability m_cuda;
    bool m_cpuUsable = false;
    bool m_cudaUsable = false;
};

} // namespace kiln
