#pragma once

#include "verifier/harness/adaptivetiming.h"
#include "verifier/harness/sandboxprocess.h"

#include <QString>
#include <QStringList>

namespace kiln {

// Every knob of the verifier. defaults() fills paths from the environment.
struct VerifierOptions
{
    SandboxSettings sandbox; // sandbox.executable empty: found by defaults()
    QString cacheDirectory;  // compile cache
    QString workRoot;        // private work directories are created below this
    QString compiler = QStringLiteral("g++");
    QStringList compileFlags = {QStringLiteral("-std=c++17"),    QStringLiteral("-O3"),
                                QStringLiteral("-march=native"), QStringLiteral("-fopenmp"),
                                QStringLiteral("-fPIC"),         QStringLiteral("-shared")};
    int seedsPerShape = 4; // at least 3; each seed also rotates the distribution
    int startTimeoutMs = 10000;
    int compileTimeoutMs = 60000;
    int callTimeoutMs = 10000;  // one correctness call
    int batchTimeoutMs = 30000; // one batch of timed calls
    bool runTiming = true;
    // --verifier lenient: the naive harness (NaiveHarness), CPU backend only. Never the default.
    bool lenient = false;
    double timingBudgetMs = 300.0; // wall time of the adaptive timing loop
    double targetRelativeSem = 0.01;
    int minTrials = 5;
    int maxTrials = 1000;
    int warmupTrials = 2;
    // Every backend's timing loop runs this many times the trials and time budget, with a
    // target standard error smaller by its square root: 1 for a judgement, kConfirmationScale
    // for the re-measurement of a run's best (Verifier::confirm).
    int trialScale = 1;
    static constexpr int kConfirmationScale = 4;
    double largeSpeedup = 25.0;   // above this: non-blocking review flag
    double bandwidthSlack = 16.0; // floor = bytes / (slack x measured memcpy bandwidth)

    // CUDA backend (kiln-cuda-sandbox, one persistent process per GPU).
    QString cudaSandbox; // empty: found by defaults()
    QString nvcc;        // empty: found by defaults()
    QStringList nvccFlags = {QStringLiteral("-std=c++17"), QStringLiteral("-O3")};
    int cudaCallTimeoutMs = 10000; // one correctness call, or a batch of timed calls
    double cudaTimingBudgetMs = 400.0;
    double cudaTargetRelativeSem = 0.005;
    qint64 cudaTimingMemoryBytes = 8ll << 30; // device bytes for the timing sets
    double cudaBandwidthSlack = 1.15;         // floor = bytes / (slack x measured copy bandwidth)
    int cudaEvaluationsPerSandbox = 400;      // the GPU checker's CPU allowance, in evaluations
    int cudaSpareSandboxes = 2;               // single-use candidates' processes started ahead
    // Device-only candidates (NVRTC, no host code) in the GPU's persistent trusted launcher,
    // scrubbed between candidates; false (KILN_CUDA_LAUNCHER=0): a single-use process each.
    bool cudaLauncher = true;
    int cudaEvaluationsPerLauncher = 2000; // then the launcher is replaced (its CPU allowance)
    // Evaluations in flight per GPU (KILN_CUDA_SLOTS): each slot has its own candidate processes,
    // launcher and checker; their timings still take the GPU one at a time (DeviceLock).
    int cudaSlotsPerGpu = 1;
    bool cudaUserNamespace = true; // retried without when the driver refuses it
    // The GPU sandbox without isolation and with our environment, so Nsight Compute can attach
    // (KILN_PROFILE_SANDBOX=1; trusted kernels only). CPU sandboxes never inherit it: a
    // profiler injected into a confined process cannot reach its host and hangs.
    bool cudaProfiling = false;
    // kiln-cli profile: each candidates' process (never the checker's or the launcher's) is
    // started by this Nsight Compute command line, in a network namespace of the two alone, and
    // confined as --profiled (ProfileRun builds it). Empty: nothing is profiled.
    QStringList cudaProfiler;
    QString cudaProfilerFolder; // the profiler's installation, readable by the profiled sandbox
    // One candidates' process at a time, ended before its results are read (a profiler writes
    // its report as the process ends): no spares, no launcher.
    bool profilesCandidates() const { return cudaProfiling || !cudaProfiler.isEmpty(); }

    // PyTorch backend (KernelBench problems): kiln-torch-sandbox isolates itself and runs the
    // user's python3 on kiln_torch_worker.py. Extensions are built once per source, in
    // torchExtensionCache, by a process of their own that runs while another candidate is timed.
    QString torchSandbox;             // empty: beside kiln-sandbox (or $KILN_TORCH_SANDBOX)
    QString python;                   // empty: python3 on PATH (or $KILN_PYTHON)
    QString torchExtensionCache;      // empty: torchExtensionFolder() decides
    int torchBuildTimeoutMs = 900000; // load_inline of one candidate (about 70 s on a big GPU)
    int torchStartTimeoutMs = 120000; // python3, import torch, CUDA context
    int torchCallTimeoutMs = 120000;  // a load, one correctness call or a batch of timed calls
    int torchSeeds = 3;               // correctness input sets (get_inputs under secret seeds)
    double torchTimingBudgetMs = 2000.0;
    double torchTargetRelativeSem = 0.01;
    int torchMaxTrials = 400;
    bool torchUserNamespace = true;
    // "cuda", or "cpu": the same pipeline on torch's CPU device, for tests and machines without
    // a GPU (candidates without CUDA code only). Set by $KILN_TORCH_DEVICE.
    QString torchDevice = QStringLiteral("cuda");
    // The kernel language of the run's candidates (KernelLanguages: "cuda", "triton" ...), or
    // "auto": each candidate's own (a single `kiln-cli eval`). A candidate written in another
    // language than the run's is `language_mismatch`.
    QString torchLanguage = QStringLiteral("auto");
    // How a candidate's load_inline extension is built: "kiln" (kiln_inline_build.py: the
    // source cut into a device part for nvcc and a host part for precompiled headers, and
    // load_inline itself wherever that cannot build it) or "torch" (load_inline always). Set
    // by $KILN_INLINE_BUILD and eval's --inline-build.
    QString torchInlineBuild = QStringLiteral("kiln");

    // Sandbox beside the running executable, else in the installed libexec folder (or
    // $KILN_SANDBOX); the CUDA sandbox beside it (or $KILN_CUDA_SANDBOX); cache in ~/.cache/kiln
    // (or $KILN_CACHE_DIR), work directories under the temporary directory.
    static VerifierOptions defaults();
    // torchExtensionCache, else torch-extensions beside the compile cache (so a test that
    // moves the compile cache moves this one too).
    QString torchExtensionFolder() const;
    // The adaptive loop's rules for a backend's figures, scaled by trialScale.
    AdaptiveTiming::Rules timingRules(int warmup, int minTrials, int maxTrials,
                                      double targetRelativeSem, double budgetMs) const;
};

} // namespace kiln
